// The excavator scene (Xu, Zhao, Barbic 2014, Fig. 2) driven the way a user drives it from the keyboard.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "joints/joint.h"
#include "scene/scene.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {
namespace {

using test::body_named;
using test::joint_named;
// One stretch of driving: the keys of these servos are held (each target moves towards its value at the
// servo's `rate`, as the viewer does while a key is down) until all have arrived, then nothing is touched for
// `dwell` seconds.
struct Target {
  const char* servo;
  double value;  // m (cylinders) or rad (swing)
};
struct Phase {
  std::vector<Target> targets;
  double dwell;  // s
};

// Angle of a point about the cabin's vertical swing axis (through the origin), positive as the swing servo's.
double azimuth(const Vec3& p) { return std::atan2(-p.z(), p.x()); }

// The paper's Fig. 2 and the scene's description ("lower the boom until the bucket's lip is on the ground,
// push the arm out to take rocks onto its bottom, curl, raise, swing, tip"): one full cycle at the keyboard,
// through the servos alone, picks up a rock, carries it a radian round to the side and tips it out there.
// The key sequence was found by experiment: the lip bulldozes the first rock of the middle row ahead of it
// until it jams against the rocks behind, then the curl scoops it onto the bottom. Pushing the arm out to
// -0.28..-0.30 m (almost its full stroke) with the bucket tipped 5 degrees lip down caught the rock at friction
// 0.5, 0.6 and 0.7, and at 0.6 also tipped 3 or 8 degrees with the lip planned from 2 cm into to 1.5 cm above
// the ground; stopping at -0.20 or -0.22 m let it roll off the lip, -0.24 and -0.26 m caught it at some
// frictions only, and tipping 15 degrees mostly missed. The boom and the arm move together
// while raising (arm pulled in) so that the curled bucket stays a V that holds the rock: raising the boom alone
// to its top with the bucket fully curled turns the bucket's opening over, and the boom's overshoot (its PD
// servo is lightly damped under this load) threw the rock out. With this sequence the whole cycle passes
// at friction 0.4 to 0.8. This shows that the loops of pinned cylinders, the slider PD servos under load,
// the rotation constraint of the cabin and the penalty contacts between a mesh rock and the steel plates hold
// together well enough to do what the scene is for, with every step finite.
TEST(Excavator, KeyboardCyclePicksUpARockCarriesItAndTipsItOut) {
  World w = test::load_shipped_scene("excavator.json");
  const double h = w.settings.dt;
  const int bottom = body_named(w, "bucket_bottom");
  ASSERT_GE(bottom, 0);
  std::vector<int> rocks;
  std::vector<Vec3> rest;
  for (int i = 0; i < 9; ++i) {
    rocks.push_back(body_named(w, "rock_" + std::to_string(i)));
    ASSERT_GE(rocks.back(), 0);
    rest.push_back(w.bodies[size_t(rocks.back())].position);
  }
  auto servo = [&](const char* name) -> JointServo& {
    const std::string joint = std::string(name) == "swing" ? "swing" : std::string(name) + "_cylinder";
    const int j = joint_named(w, joint);
    EXPECT_GE(j, 0) << joint;
    return w.joints[size_t(std::max(j, 0))].servo;
  };

  // Targets at the scene's servo rates (0.25 m/s for the cylinders, 0.6 rad/s for the swing). The boom sags
  // about 2.5 cm below its target under the machine's weight (PD stiffness 5e5 N/m), so its targets are that
  // much above the poses planned; the bucket cylinder's -0.29 m is 3 mm short of its full curl.
  const std::vector<Phase> phases = {
      {{{"boom", -0.035}, {"bucket", -0.04}}, 0.5},                    // 0: S, O: lip onto the ground
      {{{"arm", -0.16}, {"boom", -0.055}, {"bucket", 0.057}}, 0.0},    // 1: K, S, L: push along the ground,
      {{{"arm", -0.29}, {"boom", -0.086}, {"bucket", 0.121}}, 0.5},    // 2:   bucket 5 degrees lip down
      {{{"bucket", -0.29}}, 0.5},                                      // 3: O: curl, the rock rolls in
      {{{"boom", -0.02}, {"arm", -0.1}}, 1.0},                         // 4: W, I: raise, arm in
      {{{"boom", 0.05}, {"arm", 0.1}}, 2.0},                           // 5: W, I: higher
      {{{"swing", 1.0}}, 1.0},                                         // 6: A: swing a radian
      {{{"bucket", 0.2}}, 2.0},                                        // 7: L: tip it out
  };

  int steps = 0, failed_step = -1;
  double t = 0;
  int lifted = -1;          // the rock picked up (the highest above its rest at the end of the curl)
  double lift_time = -1;    // when a rock's centre first rose 0.3 m above its rest
  double max_lift = 0, min_carry_lift = 1e9, carry_out = 0;  // m; carry_out: farthest outside the bucket
  std::vector<double> lift_at_end(phases.size(), 0);
  auto lift = [&](int i) { return w.bodies[size_t(rocks[size_t(i)])].position.y() - rest[size_t(i)].y(); };
  // How far a point is outside the bucket's inside (bottom plate frame: floor at y 0.015, sides 0.4 high,
  // back plate at x -0.275, lip at x 0.29, sides at z +-0.35), m; 0 inside.
  auto outside_bucket = [&](const Vec3& p) {
    const Body& b = w.bodies[size_t(bottom)];
    const Vec3 l = b.orientation.conjugate() * (p - b.position);
    const double dx = std::max({-0.275 - l.x(), l.x() - 0.29, 0.0});
    const double dy = std::max({0.015 - l.y(), l.y() - 0.415, 0.0});
    const double dz = std::max(std::abs(l.z()) - 0.35, 0.0);
    return std::sqrt(dx * dx + dy * dy + dz * dz);
  };

  for (size_t p = 0; p < phases.size() && failed_step < 0; ++p) {
    const Phase& phase = phases[p];
    double dwell_left = phase.dwell;
    bool arrived = false;
    while (failed_step < 0 && (!arrived || dwell_left > 0.5 * h)) {
      if (!arrived) {
        arrived = true;
        for (const Target& target : phase.targets) {
          JointServo& s = servo(target.servo);
          const double step = std::clamp(target.value - s.target, -s.rate * h, s.rate * h);
          set_servo_target(s, s.target + step);
          if (std::abs(target.value - s.target) > 1e-12) arrived = false;
        }
      } else {
        dwell_left -= h;
      }
      if (!w.step().ok) failed_step = steps;
      ++steps;
      t += h;
      for (int i = 0; i < 9 && lift_time < 0; ++i)
        if (lift(i) > 0.3) lift_time = t;
      if (lifted >= 0) {
        max_lift = std::max(max_lift, lift(lifted));
        // Carried: from the second raise to the end of the swing it stays up and inside the bucket.
        if (p >= 5 && p <= 6) {
          min_carry_lift = std::min(min_carry_lift, lift(lifted));
          carry_out = std::max(carry_out, outside_bucket(w.bodies[size_t(rocks[size_t(lifted)])].position));
        }
      }
    }
    if (p == 3) {  // the curl is done: the rock that rose most is the one in the bucket
      lifted = 0;
      for (int i = 1; i < 9; ++i)
        if (lift(i) > lift(lifted)) lifted = i;
    }
    if (lifted >= 0) lift_at_end[p] = lift(lifted);
  }
  ASSERT_LT(failed_step, 0) << "step " << failed_step << " failed";
  ASSERT_GE(lifted, 0);
  const Vec3& end = w.bodies[size_t(rocks[size_t(lifted)])].position;
  const double turned = azimuth(end) - azimuth(rest[size_t(lifted)]);
  std::printf("[ excavator ] %d steps, %.2f s: a rock rose 0.3 m at %.2f s; rock_%d: lift after curl %.2f m, "
              "raised %.2f m, highest %.2f m, lowest while carried %.2f m (at most %.3f m outside the bucket), "
              "after the swing %.2f m; tipped out %.2f m above its rest, %.2f rad round from the pile\n",
              steps, t, lift_time, lifted, lift_at_end[3], lift_at_end[5], max_lift, min_carry_lift, carry_out,
              lift_at_end[6], lift(lifted), turned);

  EXPECT_GT(lift_at_end[3], 0.1) << "the curl lifts the rock off the ground";
  EXPECT_GT(lift_time, 0) << "a rock rises 0.3 m";
  EXPECT_GT(lift_at_end[5], 0.6) << "raised with the boom";
  EXPECT_GT(min_carry_lift, 0.3) << "held up while raised and swung";
  EXPECT_LT(carry_out, 0.02) << "the rock stays inside the bucket";
  EXPECT_GT(lift_at_end[6], 0.6) << "still up after the swing";
  // Tipped out a radian round from the pile, back on the ground.
  EXPECT_LT(lift(lifted), 0.1);
  EXPECT_GT(turned, 0.7);
}

}  // namespace
}  // namespace cl
