#include "constraints/motion.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "support/builders.h"

namespace cl {
namespace {

// Gravity and an applied force change the linear velocity by h (g + F / m); a body that is not dynamic gets
// no change.
TEST(Motion, FreeVelocityChangeFromGravityAndForce) {
  World w;
  test::add_body(w, test::sphere(0.5), Vec3::Zero(), 1000.0);
  Body b = w.bodies[0];
  b.force = Vec3(10, 0, 0);
  const BodyVelocity du = free_velocity_change(b, Vec3(0, -9.81, 0), 0.01);
  EXPECT_NEAR(du.v.x(), 0.01 * 10 * b.inv_mass, 1e-15);
  EXPECT_NEAR(du.v.y(), -0.0981, 1e-15);
  EXPECT_TRUE(du.w.isZero(0.0));
  b.kind = BodyKind::Kinematic;
  EXPECT_TRUE(free_velocity_change(b, Vec3(0, -9.81, 0), 0.01).v.isZero(0.0));
}

// A torque-free box spinning about its axis of largest inertia with a wobble: the implicit gyroscopic step
// never gains rotational energy, and over 10 s at 60 Hz loses under 1 % of it and of the angular momentum's
// length (measured 0.4 % and 0.2 %; it damps the precession, see free_velocity_change).
TEST(Motion, FreeTumblingNeverGainsEnergy) {
  World w;
  test::add_body(w, test::box(Vec3(0.5, 0.2, 0.1)), Vec3::Zero(), 1000.0);
  Body b = w.bodies[0];
  b.angular_velocity = Vec3(0.3, 0.2, 4.0);  // about the axis of largest inertia, with a wobble
  auto energy = [](const Body& x) {
    const Mat3 inertia = x.rotation() * x.inertia_body * x.rotation().transpose();
    return 0.5 * x.angular_velocity.dot(inertia * x.angular_velocity);
  };
  auto momentum = [](const Body& x) {
    return (x.rotation() * x.inertia_body * x.rotation().transpose() * x.angular_velocity).norm();
  };
  const double e0 = energy(b), l0 = momentum(b);
  const double h = 1.0 / 60.0;
  double previous = e0;
  for (int s = 0; s < 600; ++s) {
    b.angular_velocity += free_velocity_change(b, Vec3::Zero(), h).w;
    advance_pose(b, h);
    const double e = energy(b);
    EXPECT_LE(e, previous * (1 + 1e-12)) << "step " << s;
    previous = e;
  }
  EXPECT_GT(previous, 0.99 * e0);
  std::printf("[ tumbling ] after 10 s: energy %.6f of %.6f J, angular momentum %.6f of %.6f N m s\n", previous, e0, momentum(b), l0);
  EXPECT_NEAR(momentum(b), l0, 0.01 * l0);
}

// displace() moves by dx and turns by a small rotation, keeping the orientation a unit quaternion and the
// world inertia in step with it.
TEST(Motion, DisplaceMovesAndTurns) {
  World w;
  test::add_body(w, test::box(Vec3(0.5, 0.2, 0.1)), Vec3(1, 2, 3), 1000.0);
  Body b = w.bodies[0];
  displace(b, Vec3(0.1, 0, 0), Vec3(0, 0, 1e-3));
  EXPECT_TRUE(b.position.isApprox(Vec3(1.1, 2, 3)));
  EXPECT_NEAR(b.orientation.norm(), 1.0, 1e-15);
  EXPECT_NEAR(Eigen::AngleAxisd(b.orientation).angle(), 1e-3, 1e-9);
  const Mat3 r = b.rotation();
  EXPECT_TRUE(b.inv_inertia_world.isApprox(r * b.inv_inertia_body * r.transpose()));
}

}  // namespace
}  // namespace cl
