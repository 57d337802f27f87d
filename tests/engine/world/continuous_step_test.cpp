// Continuous collision with kinematic bodies, of bodies moving along what they touch, and its cost
// (engine/world/continuous_step.cpp).
#include "world/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "scene/scene.h"
#include "solvers/registry.h"
#include "support/builders.h"
#include "support/scenes.h"

namespace cl {
namespace {

// A kinematic ram at 500 m/s (under max_speed) along x from -10 to 30 through a stack of five 0.5 m boxes at x = 0.
std::string ram_scene(double dt) { return test::ram_scene(dt, -10.0, 30.0, 500.0); }

// Every box ends ahead of the ram (it was pushed, not passed through), or the run stops (exit 3): never a box
// left behind it or inside it with the run going on.
TEST(ContinuousStep, AKinematicBodyNeverPassesThroughAStackUnderAnyMethod) {
  for (const SolverInfo& info : solver_registry())
    for (double dt : {1.0 / 30, 1.0 / 60, 1.0 / 240}) {
      SceneLoadResult r = load_scene_text(ram_scene(dt), "ram.json");
      ASSERT_TRUE(r.ok()) << r.error;
      World& w = r.world;
      std::string error;
      ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
      const int ram = w.find_body("ram");
      bool stopped = false;
      for (int s = 0; s < int(0.2 / dt) && !stopped; ++s) stopped = !w.step().ok;
      if (stopped) continue;
      const double front = w.bodies[size_t(ram)].position.x() + 0.3;
      EXPECT_NEAR(w.bodies[size_t(ram)].position.x(), 30.0, 1e-9);
      for (int i = 0; i < 5; ++i) {
        const Body& b = w.bodies[size_t(w.find_body("b" + std::to_string(i)))];
        EXPECT_GT(b.position.x(), front) << info.name << " dt " << dt << ": box " << i << " at " << b.position.x()
                                         << " is behind the ram's front " << front;
        EXPECT_GT(b.position.y(), 0.0) << info.name << " dt " << dt << ": box " << i << " under the ground";
      }
    }
}

// The ram does not stop: it carries the stack on at 500 m/s for a second (500 m). No box goes into it by as much as
// a quarter of its half thickness (6.25 cm, what continuous collision lets a touching pair go deeper in a step),
// under every method, at every step: `lcp` and `pid-penalty` 1 mm, `volume` 5 mm, `implicit-penalty`, whose stack
// leans on its penalty springs, 3.7 mm at 1/240 s to 3.4 cm at 1/30 s. Continuous collision once put each box back
// a quarter into the step against the ram it touched (its bound on their closing summed their two reaches of 8.3 m,
// where they close by nothing), the ram carried it on from 6 cm deeper, and after ten steps it had passed through.
TEST(ContinuousStep, AKinematicBodyCarriesAStackOnWithoutPassingThrough) {
  for (const SolverInfo& info : solver_registry())
    for (double dt : {1.0 / 30, 1.0 / 60, 1.0 / 240}) {
      SceneLoadResult r = load_scene_text(test::ram_scene(dt, -10.0, 490.0, 500.0), "ram.json");
      ASSERT_TRUE(r.ok()) << r.error;
      World& w = r.world;
      std::string error;
      ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
      const int ram = w.find_body("ram");
      for (int s = 0; s < int(std::lround(1.0 / dt)); ++s) {
        ASSERT_TRUE(w.step().ok) << info.name << " dt " << dt << " step " << s;
        const double front = w.bodies[size_t(ram)].position.x() + 0.3;
        if (front < -0.25) continue;  // not there yet
        for (int i = 0; i < 5; ++i) {
          const Body& b = w.bodies[size_t(w.find_body("b" + std::to_string(i)))];
          ASSERT_GT(b.position.x() - 0.25, front - 0.25 * 0.25)
              << info.name << " dt " << dt << " step " << s << ": box " << i << " is deep inside the ram";
        }
      }
      // At its end (to 1 cm: the scene's dt is written with six decimals).
      EXPECT_NEAR(w.bodies[size_t(ram)].position.x(), 490.0, 0.01) << info.name << " dt " << dt;
    }
}

// Without the ram's push the boxes stay where they are (the ram tunnels): the test above can fail.
TEST(ContinuousStep, WithoutContinuousCollisionTheRamPassesThrough) {
  SceneLoadResult r = load_scene_text(ram_scene(1.0 / 60), "ram.json");
  ASSERT_TRUE(r.ok()) << r.error;
  r.world.settings.continuous = false;
  for (int s = 0; s < 12; ++s) ASSERT_TRUE(r.world.step().ok);
  EXPECT_NEAR(r.world.bodies[size_t(r.world.find_body("b0"))].position.x(), 0.0, 1e-6);
}

// The sweep uses the broad phase over the swept boxes: 10,648 falling spheres (each fast, each meeting a few
// others) cost a few times the integration without continuous collision, not one sweep per body against every
// body. The two worlds step alternately, and each is timed by its fastest step of six, so that another process
// taking the core for a step (two suites on two cores: 88 against 7.4 ms summed over three steps) counts in neither.
TEST(ContinuousStep, CostGrowsWithTheMovingPairsNotTheSquareOfTheBodies) {
  std::string bodies = R"({"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true})";
  const int side = 22;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k)
        bodies += R"(, {"name": "s)" + std::to_string((i * side + j) * side + k) +
                  R"(", "shape": {"type": "sphere", "radius": 0.01}, "mass": 0.01, "position": [)" +
                  std::to_string(0.03 * i) + ", " + std::to_string(0.5 + 0.03 * j) + ", " + std::to_string(0.03 * k) + "]}";
  SceneLoadResult r = load_scene_text(R"({"format": 1, "max_contacts": 0, "bodies": [)" + bodies + "]}", "spheres.json");
  ASSERT_TRUE(r.ok()) << r.error;
  World swept = r.world, plain = r.world;
  plain.settings.continuous = false;
  double swept_ms = 1e300, plain_ms = 1e300;
  for (int s = 0; s < 15; ++s) {  // falling faster than the contact margin per step from step 9 on
    ASSERT_TRUE(swept.step().ok);
    ASSERT_TRUE(plain.step().ok);
    if (s < 9) continue;
    swept_ms = std::min(swept_ms, swept.last_stats().profile.integrate);
    plain_ms = std::min(plain_ms, plain.last_stats().profile.integrate);
  }
  // Measured 5-6 times (the sweep of every body against every body: about 16 times).
  EXPECT_LT(swept_ms, 10.0 * plain_ms) << swept_ms << " ms against " << plain_ms << " ms";
}

// A ball released on a 60 or 72 degree plane (tan theta = 0.9 times the 7/2 mu at which rolling gives way to
// sliding, mu 0.5 and 1) rolls without slipping at a = 5/7 g sin theta; at 1.1 times it slides at
// g (sin theta - mu cos theta). Under lcp, at every step from 1/30 to 1/1000 s and diameter from 2 cm to 4 m, its
// speed after 1 s is a T to a h (the first step, in which the contact takes hold), and continuous collision
// changes nothing: the ball moves along the plane it touches and closes on nothing. A 2 cm ball at 1/30 s rolls
// 7 to 10 diameters a step; it was stopped short as if it had hit and ended 4 to 8 % slow.
TEST(ContinuousStep, ABallRollingFastDownASteepPlaneIsNeverStopped) {
  constexpr double kG = 9.81;
  for (const double dt : {1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 250, 1.0 / 500, 1.0 / 1000})
    for (const double size : {0.02, 0.1, 1.0, 4.0})
      for (const double mu : {0.5, 1.0})
        for (const double ratio : {0.9, 1.1}) {
          const double theta = std::atan(ratio * 3.5 * mu);
          const double a = ratio < 1.0 ? 5.0 / 7.0 * kG * std::sin(theta) : kG * (std::sin(theta) - mu * std::cos(theta));
          const Quat tilt(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
          const Vec3 normal = tilt * Vec3::UnitY(), down = tilt * -Vec3::UnitX();
          double speed[2] = {0.0, 0.0};
          for (const bool continuous : {false, true}) {
            World w;
            w.settings.dt = dt;
            w.settings.gravity = Vec3(0, -kG, 0);
            w.settings.continuous = continuous;
            std::string error;
            ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
            const int m = test::add_material(w, mu, 0.0);
            test::add_plane(w, normal, 0.0, m);
            test::add_body(w, test::sphere(size / 2), normal * (size / 2), 1000.0, tilt, m);
            const int steps = int(std::lround(1.0 / dt));
            for (int k = 0; k < steps; ++k) ASSERT_TRUE(w.step().ok);
            speed[continuous] = w.bodies[1].linear_velocity.dot(down);
          }
          const std::string at = "dt 1/" + std::to_string(std::lround(1 / dt)) + ", " + std::to_string(size) +
                                 " m, mu " + std::to_string(mu) + ", tan theta / (7/2 mu) " + std::to_string(ratio);
          EXPECT_NEAR(speed[1], a * std::lround(1.0 / dt) * dt, a * dt) << at;
          EXPECT_EQ(speed[1], speed[0]) << at;
        }
}


// A fast body put back where it meets a slower dynamic body ahead of it ends the step touching it, under every
// method that sweeps dynamic bodies against each other. Left where they met while the slower body moved on, the
// two ended the step apart (here 4 cm, more than the contact margin), the next narrow phase had no contact for
// them, and the fast body, which keeps its speed, was put back again step after step: in pile1000 a box at 8 m/s
// moved at the pace of the capsule under it while the ball resting on it went on at its own speed, 0.2 m into it
// (pid-penalty). At steps from 1/30 to 1/1000 s, the lower body moving away at a third of the upper's speed.
TEST(ContinuousStep, ABodyPutBackAtASlowerBodyAheadEndsTheStepTouchingIt) {
  for (const SolverInfo& info : solver_registry())
    for (const double dt : {1.0 / 30, 1.0 / 60, 1.0 / 240, 1.0 / 1000}) {
      World w;
      w.settings.dt = dt;
      w.settings.gravity = Vec3::Zero();
      std::string error;
      ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
      if (!w.solver().continuous_between_dynamic_bodies()) continue;
      const double fast = 0.6 / dt, slow = fast / 3;  // the upper body closes 0.4 m a step, 4 gaps
      const double gap = 0.1;
      const int lower = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0));
      const int upper = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0.2 + gap, 0));
      w.bodies[size_t(lower)].linear_velocity = Vec3(0, -slow, 0);
      w.bodies[size_t(upper)].linear_velocity = Vec3(0, -fast, 0);
      const std::string at = info.name + " dt 1/" + std::to_string(std::lround(1 / dt));
      ASSERT_TRUE(w.step().ok) << at;
      // The upper body met the lower one and was put back (the lower one too, against the upper's whole motion).
      const std::vector<int>& stops = w.last_swept_stops();
      EXPECT_TRUE(std::find(stops.begin(), stops.end(), upper) != stops.end()) << at;
      const double apart = w.bodies[size_t(upper)].position.y() - w.bodies[size_t(lower)].position.y() - 0.2;
      EXPECT_LE(apart, w.settings.contact_margin) << at;
      EXPECT_GT(apart, -0.05) << at;  // not into it
      ASSERT_TRUE(w.step().ok) << at;  // the next narrow phase has the pair's contact
      bool touching = false;
      for (const Contact& c : w.contacts())
        touching |= (c.a == lower && c.b == upper) || (c.a == upper && c.b == lower);
      EXPECT_TRUE(touching) << at;
    }
}

}  // namespace
}  // namespace cl
