// Coulomb's cone under the row-based methods (`lcp`, `volume`): |f_t| <= mu f_n in every tangent direction, not
// only along the tangent rows' axes (issue 33). A box and a ball released on an incline whose slope runs at 0,
// 22.5, 45 and 67.5 degrees to the world's axes (so at every angle to the tangent directions a method would take
// from the world's axes), just steeper and just less steep than friction holds, at sizes from 2 cm to 4 m, time
// steps from 1/30 to 1/1000 s and friction from 0.1 to 1; and a box thrown across an incline, whose friction
// must turn with its sliding.
//
// The tangent directions of both methods follow each contact's sliding velocity at the start of the step (the
// free velocity, gravity's step included): a body released at rest gets a first tangent down the slope, so the
// release cases hold whichever cone the rows have; where the velocity turns within the step (the throw across
// the slope; several contacts whose rows couple through the body's turning) the second tangent row carries
// friction too, and only a disc pair keeps the two within mu f_n.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/builders.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

using test::kG;
using test::kTimeSteps;
constexpr double kSizes[] = {0.02, 0.1, 1.0, 4.0};  // the box's edge, the ball's diameter, m (density 1000)
constexpr double kYaws[] = {0.0, 22.5, 45.0, 67.5};
constexpr double kFrictions[] = {0.1, 0.5, 1.0};

// A flat box (edge `size`, height size / 2, so that it slides rather than tips up to tan theta = 2; a cube tips
// over at tan theta > 1) or a ball (diameter `size`) resting on a plane tilted by theta about an axis turned `yaw` degrees
// about the vertical from z, touching it, friction mu. The body is body 1.
struct Incline {
  World world;
  Vec3 normal, down, across;  // the plane's normal, down its slope, and level across it
};
Incline incline(const std::string& solver, double dt, double theta, double mu, double size, double yaw, bool ball) {
  Incline in;
  World& w = in.world;
  w.settings.dt = dt;
  w.settings.gravity = Vec3(0, -kG, 0);
  std::string error;
  EXPECT_TRUE(w.set_solver(solver, &error)) << error;
  EXPECT_TRUE(w.solver().params().set("friction_cone", 0, &error)) << error;  // circle (volume's default is box)
  const Quat turn(Eigen::AngleAxisd(yaw * M_PI / 180, Vec3::UnitY()));
  const Quat tilt(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
  in.normal = turn * (tilt * Vec3::UnitY());
  in.down = turn * (tilt * -Vec3::UnitX());
  in.across = in.normal.cross(in.down);
  const int m = add_material(w, mu, 0.0);
  add_plane(w, in.normal, 0.0, m);
  const double half = size / 2;
  const double rest = ball ? half : half / 2;  // the centre's height over the plane
  add_body(w, ball ? sphere(half) : box(Vec3(half, rest, half)), in.normal * rest, 1000.0, turn * tilt, m);
  return in;
}

// The largest |friction impulse| / (mu normal impulse) of any contact after the step (0 without contacts).
double cone_ratio(const World& w, double mu) {
  double worst = 0.0;
  for (const Contact& c : w.contacts())
    if (c.normal_impulse > 0.0) worst = std::max(worst, c.friction_impulse.norm() / (mu * c.normal_impulse));
  return worst;
}

std::string where(const std::string& solver, double dt, double size, double yaw, double mu, double ratio) {
  return solver + ", dt 1/" + std::to_string(int(std::lround(1 / dt))) + ", size " + std::to_string(size) +
         " m, yaw " + std::to_string(yaw) + ", mu " + std::to_string(mu) + ", tan/limit " + std::to_string(ratio);
}

// One release: the body at rest on the incline with tan theta = ratio times the tangent at which it starts to
// slide (mu for the box; 3.5 mu for the ball, which rolls without slipping while mu >= 2/7 tan theta). After
// T = 1 s its velocity down the slope must be a T, with a = g (sin - mu cos) when it slides, 5/7 g sin when the
// ball rolls, 0 when the box holds, and across the slope 0. Semi-implicit Euler gives a constant acceleration's
// velocity exactly at every step's end, so the allowance is a h (the first step, in which the contact takes hold)
// plus 1% of the speed friction takes off over T, (g sin - a) T: friction known to 1%. A box held by a box-shaped
// cone at the slope's 45 degrees would have up to sqrt(2) mu: it would hold at ratio 1.1, 0.1 mu g cos T short.
// Every contact's friction stays within mu times its normal impulse at every step (to 1e-9, the rounding of the
// reported impulses).
void release(const std::string& solver, double dt, double size, double yaw, double mu, double ratio, bool ball) {
  const double limit = ball ? 3.5 * mu : mu;
  const double theta = std::atan(ratio * limit);
  const bool slides = ratio > 1.0;
  const double a = !slides ? (ball ? 5.0 / 7.0 * kG * std::sin(theta) : 0.0) : kG * (std::sin(theta) - mu * std::cos(theta));
  const std::string at = where(solver, dt, size, yaw, mu, ratio) + (ball ? ", ball" : ", box");
  Incline in = incline(solver, dt, theta, mu, size, yaw, ball);
  const int steps = int(std::lround(1.0 / dt));
  const double T = steps * dt;
  double worst = 0.0;
  for (int k = 0; k < steps; ++k) {
    ASSERT_TRUE(in.world.step().ok) << at;
    worst = std::max(worst, cone_ratio(in.world, mu));
  }
  const Body& b = in.world.bodies[1];
  const double tolerance = a * dt + 0.01 * (kG * std::sin(theta) - a) * T;
  EXPECT_NEAR(b.linear_velocity.dot(in.down), a * T, tolerance) << at;
  EXPECT_NEAR(b.linear_velocity.dot(in.across), 0.0, tolerance) << at;
  EXPECT_LE(worst, 1.0 + 1e-9) << at;
}

}  // namespace

// Outside the unnamed namespace: the tests derive from it, and GCC warns of a base in an unnamed namespace when the
// file is compiled within a unity build's source.
class CoulombFriction : public testing::TestWithParam<const char*> {};

// The box at every yaw, friction, size and step.
TEST_P(CoulombFriction, InclineBoxSlidesOrHoldsAtEveryYaw) {
  for (double dt : kTimeSteps)
    for (double size : kSizes)
      for (double yaw : kYaws)
        for (double mu : kFrictions)
          for (double ratio : {1.1, 0.9}) release(GetParam(), dt, size, yaw, mu, ratio, false);
}

// The ball: it slides at 1.1 times 3.5 mu and rolls at 0.9 times, on slopes of 19 to 75 degrees (friction 0.1 to
// 1). At 0.5 and 1 the 2 cm ball at dt 1/30 rolls 7 to 10 diameters a step; continuous collision once stopped it
// short as if it had hit the plane it rolled on, and it ended 4 to 8 % slow.
TEST_P(CoulombFriction, InclineBallSlidesOrRollsAtEveryYaw) {
  for (double dt : kTimeSteps)
    for (double size : kSizes)
      for (double yaw : kYaws)
        for (double mu : {0.1, 0.2, 0.5, 1.0})
          for (double ratio : {1.1, 0.9}) release(GetParam(), dt, size, yaw, mu, ratio, true);
}

// A box thrown level across an incline (tan theta = 0.5 mu, so it would hold at rest) at 3 m/s for 0.5 s, scaled
// by Froude's similarity to its size (speed and time by sqrt(size / 1 m)), so that a 2 cm box moves a third of its
// size per step at dt 1/30 as the 1 m box moves 2 % of its: friction mu m g cos theta opposes its sliding velocity, which turns down the slope as gravity pulls, and the
// box comes to rest. The reference is Coulomb's law stepped as the methods step it (the friction of a step opposes
// the velocity at its end, at most mu g cos theta h: v' = v* (1 - mu g cos h / |v*|), or 0 when that would
// reverse it, v* = v + g sin h down the slope); it is the exact solution of the time-discrete law, which the
// methods' LCP solves. At every step the velocity is within 1% of the speed friction takes off per step, mu g cos
// theta h, per step so far (friction known to 1%, as above), and every contact within its cone. A box-shaped cone
// lets the second tangent row hold the box against the slope while the first brakes it: it slides level.
TEST_P(CoulombFriction, BoxThrownAcrossAnInclineTurnsDownIt) {
  for (double dt : {1.0 / 30, 1.0 / 100, 1.0 / 1000})
    for (double size : {0.02, 1.0, 4.0})
      for (double yaw : {0.0, 45.0}) {
        const double mu = 0.5, theta = std::atan(0.5 * mu);
        const std::string at = where(GetParam(), dt, size, yaw, mu, 0.5) + ", thrown";
        Incline in = incline(GetParam(), dt, theta, mu, size, yaw, false);
        Vec3 v = 3.0 * std::sqrt(size) * in.across;
        in.world.bodies[1].linear_velocity = v;
        const double brake = mu * kG * std::cos(theta) * dt;
        const int steps = int(std::lround(0.5 * std::sqrt(size) / dt));
        double worst = 0.0;
        for (int k = 1; k <= steps; ++k) {
          ASSERT_TRUE(in.world.step().ok) << at;
          worst = std::max(worst, cone_ratio(in.world, mu));
          const Vec3 free = v + kG * std::sin(theta) * dt * in.down;
          v = free.norm() > brake ? Vec3(free * (1 - brake / free.norm())) : Vec3::Zero();
          const Vec3 got = in.world.bodies[1].linear_velocity;
          const Vec3 in_plane = got - got.dot(in.normal) * in.normal;
          ASSERT_LT((in_plane - v).norm(), 0.01 * brake * k) << at << ", step " << k;
        }
        EXPECT_LE(worst, 1.0 + 1e-9) << at;
      }
}

INSTANTIATE_TEST_SUITE_P(Methods, CoulombFriction, testing::Values("lcp", "volume"),
                         [](const testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace cl
