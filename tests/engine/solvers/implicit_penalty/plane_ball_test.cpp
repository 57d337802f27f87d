// A ball on a plane under the physical contact model (plane_ball.h): its exact depth, and what it gives across time
// steps and sizes: rolling down an incline without slipping (its contact point at rest, v = w r), and a box
// placed on a slope just steeper than its friction sliding at Coulomb's rate from its first step.
#include "solvers/implicit_penalty/plane_ball.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/builders.h"
#include "world/world.h"

namespace cl {
namespace {

using implicit_penalty::BodyPose;
using implicit_penalty::plane_ball;

TEST(ImplicitPenaltyPlaneBall, ExactDepthAlongThePlanesNormalInEitherOrder) {
  const Shape plane = test::plane_shape(Vec3(0, 1, 0), 0.5);
  const Shape ball = test::sphere(0.25);
  BodyPose p, b;
  b.x = Vec3(1.0, 0.7, -2.0);  // 0.2 above the plane: 5 cm deep
  const auto first = plane_ball(plane, p, ball, b, 0.001);
  ASSERT_TRUE(first.has_value());
  EXPECT_NEAR(first->depth, 0.051, 1e-12);
  EXPECT_TRUE(first->normal.isApprox(Vec3(0, 1, 0)));  // pushes b, the ball, out of the plane
  EXPECT_TRUE(first->axes.a.isApprox(Vec3(1.0, 0.45, -2.0)));
  EXPECT_TRUE(first->axes.b.isApprox(b.x));
  const auto second = plane_ball(ball, b, plane, p, 0.001);
  ASSERT_TRUE(second.has_value());
  EXPECT_NEAR(second->depth, 0.051, 1e-12);
  EXPECT_TRUE(second->normal.isApprox(Vec3(0, -1, 0)));  // pushes b, the plane, out of the ball
  EXPECT_TRUE(second->axes.a.isApprox(b.x));
  // A centre below the plane keeps the plane's direction.
  b.x.y() = 0.3;
  EXPECT_NEAR(plane_ball(plane, p, ball, b, 0.0)->depth, 0.45, 1e-12);
  EXPECT_TRUE((plane_ball(plane, p, ball, b, 0.0)->axes.b - plane_ball(plane, p, ball, b, 0.0)->axes.a)
                  .normalized()
                  .isApprox(Vec3(0, 1, 0)));
  EXPECT_FALSE(plane_ball(plane, p, test::box(Vec3(1, 1, 1)), b, 0.0).has_value());
}

// A solid ball released on a 30 degree plane with friction 0.5 rolls without slipping: its contact point
// v + w x (-r n) stays at rest, to within one step of the rolling acceleration 5/7 g sin 30 (conformance
// rolling_slip's tolerance: a penalty contact may lag by up to a step), and it reaches 5/7 g sin 30 t.
TEST(ImplicitPenaltyPlaneBall, ABallRollsDownAnInclineWithoutSlippingAtEveryStepAndSize) {
  const double theta = M_PI / 6, a = 5.0 / 7.0 * 9.81 * std::sin(theta);
  const Vec3 n(-std::sin(theta), std::cos(theta), 0);
  for (double r : {0.01, 0.05, 0.5, 2.0})
    for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 250, 1.0 / 500, 1.0 / 1000}) {
      World w;
      ASSERT_TRUE(w.set_solver("implicit-penalty", nullptr));
      w.settings.dt = h;
      const int mat = test::add_material(w, 0.5, 0.0);
      test::add_plane(w, n, 0.0, mat);
      const int ball = test::add_body(w, test::sphere(r), r * n, 1000.0, Quat::Identity(), mat);
      double slip = 0.0;
      const int steps = int(std::lround(1.0 / h));
      for (int i = 0; i < steps; ++i) {
        ASSERT_TRUE(w.step().ok) << "r " << r << " h " << h;
        const Body& b = w.bodies[size_t(ball)];
        slip = std::max(slip, (b.linear_velocity + b.angular_velocity.cross(-r * n)).norm());
      }
      EXPECT_LE(slip, a * h) << "r " << r << " h " << h;
      EXPECT_NEAR(w.bodies[size_t(ball)].linear_velocity.norm(), a * w.time(), a * h) << "r " << r << " h " << h;
    }
}

// A box placed on a plane of tan theta = 0.5 with friction 0.49 slides from its first step at Coulomb's rate
// g (sin theta - 0.49 cos theta), to within one step of it (conformance incline_edge_slide's tolerance): placed
// touching, its contact carries the share of its weight along the normal, not its whole weight, which made it hop
// and its friction hold less than mu N while it settled.
TEST(ImplicitPenaltyPlaneBall, ABoxPlacedOnASlopeSlidesAtCoulombsRateAtEveryStepAndSize) {
  const double theta = std::atan(0.5), a = 9.81 * (std::sin(theta) - 0.49 * std::cos(theta));
  const Vec3 n(-std::sin(theta), std::cos(theta), 0);
  const Quat tilt(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
  for (double half : {0.01, 0.05, 0.5, 2.0})
    for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 250, 1.0 / 1000}) {
      World w;
      ASSERT_TRUE(w.set_solver("implicit-penalty", nullptr));
      w.settings.dt = h;
      const int mat = test::add_material(w, 0.49, 0.0);
      test::add_plane(w, n, 0.0, mat);
      const int box = test::add_body(w, test::box(Vec3::Constant(half)), half * n, 1000.0, tilt, mat);
      const int steps = int(std::lround(2.0 / h));
      for (int i = 0; i < steps; ++i) ASSERT_TRUE(w.step().ok) << "half " << half << " h " << h;
      EXPECT_NEAR(w.bodies[size_t(box)].linear_velocity.norm(), a * w.time(), a * h) << "half " << half << " h " << h;
    }
}

}  // namespace
}  // namespace cl
