// Joint servos under the `lcp` solver (Xu, Zhao, Barbic 2014, eq. 65-66 as rows): the servo row measures the
// coordinate rate, the slider's row is exactly the backward-Euler PD spring-damper of its gains, a slider
// servo settles at its target (with the static sag m g / k along the axis), a hinge servo holds its angle
// against gravity and follows a new target, and the target stays in its range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "joints/joint.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {
namespace {

void lcp_solver(World& w) {
  std::string error;
  ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
  ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error)) << error;
}

// A fixed post and a block on a slider along `axis` from it.
World slider_world(const Vec3& axis, const Vec3& gravity) {
  World w;
  w.settings.dt = 0.01;
  w.settings.gravity = gravity;
  const int post = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 1, 0), 1000, Quat::Identity(), 0,
                                  BodyKind::Fixed);
  const int block = test::add_body(w, test::box(Vec3(0.2, 0.1, 0.1)), Vec3(0.5, 1, 0), 500);
  w.joints.push_back(make_joint(JointType::Slider, w.bodies, post, block, Vec3(0.5, 1, 0), axis, Vec3::UnitZ()));
  return w;
}

TEST(JointServo, TypesAndTargetRange) {
  EXPECT_TRUE(joint_type_has_servo(JointType::Hinge));
  EXPECT_TRUE(joint_type_has_servo(JointType::Slider));
  for (JointType t : {JointType::Ball, JointType::Hinge2, JointType::Universal, JointType::Fixed})
    EXPECT_FALSE(joint_type_has_servo(t));
  JointServo s;
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.lower, -std::numeric_limits<double>::infinity());
  set_servo_target(s, 12.0);
  EXPECT_EQ(s.target, 12.0);
  s.lower = -0.5;
  s.upper = 0.25;
  set_servo_target(s, 12.0);
  EXPECT_EQ(s.target, 0.25);
  set_servo_target(s, -3.0);
  EXPECT_EQ(s.target, -0.5);
}

// The servo row is the motor's rate row with the spring-damper's target and CFM; one exact row solve gives
// the backward-Euler velocity v+ = (m v - h k e) / (m + h c + h^2 k).
TEST(JointServo, SliderRowIsTheImplicitSpringDamper) {
  World w = slider_world(Vec3::UnitX(), Vec3::Zero());
  Joint& j = w.joints[0];
  j.servo.enabled = true;
  j.servo.target = 0.2;
  j.servo.stiffness = 4000;
  j.servo.damping = 150;
  w.bodies[1].linear_velocity = Vec3(0.3, 0, 0);
  const double h = w.settings.dt, m = w.bodies[1].mass, k = 4000, c = 150;
  std::vector<ConstraintRow> rows;
  joint_rows(j, 0, w.bodies, h, rows);
  ASSERT_EQ(rows.size(), 6u);
  const ConstraintRow& r = rows.back();
  EXPECT_EQ(r.kind, kRowServo);
  EXPECT_EQ(r.slot, joint_type_equality_rows(JointType::Slider) + 3);
  EXPECT_LT(r.slot, kMaxJointRows);
  EXPECT_NEAR(r.target, -k * (0.0 - 0.2) / (c + h * k), 1e-12);
  EXPECT_NEAR(r.cfm, 1.0 / (h * (c + h * k)), 1e-15);
  EXPECT_EQ(r.lo, -1e300);
  double target = 0, cfm = 0;
  ASSERT_TRUE(servo_row_target_and_cfm(j, w.bodies, h, target, cfm));
  EXPECT_EQ(target, r.target);
  lcp_solver(w);
  ASSERT_TRUE(w.step().ok);
  const double e = -0.2, v = 0.3;
  EXPECT_NEAR(w.bodies[1].linear_velocity.x(), (m * v - h * k * e) / (m + h * c + h * h * k), 1e-9);
  // Both gains 0: no row.
  j.servo.stiffness = j.servo.damping = 0;
  rows.clear();
  joint_rows(j, 0, w.bodies, h, rows);
  EXPECT_EQ(rows.size(), 5u);
}

// Under gravity along a tilted axis: the block settles at target - m g sin / k and stays on the axis; with
// stiff gains too (the row is implicit).
TEST(JointServo, SliderServoSettlesAtItsTarget) {
  for (double k : {3000.0, 1e7}) {
    const Vec3 axis = Vec3(1, 1, 0).normalized();
    World w = slider_world(axis, Vec3(0, -9.81, 0));
    Joint& j = w.joints[0];
    const double m = w.bodies[1].mass;
    j.servo = JointServo{true, 0.3, k, 2 * std::sqrt(k * m), -1.0, 1.0};
    lcp_solver(w);
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(w.step().ok);
    const double sag = m * 9.81 * axis.y() / k;
    EXPECT_NEAR(joint_coordinate(j, w.bodies), 0.3 - sag, 2e-3 * (1 + sag / 0.01)) << "k " << k;
    EXPECT_LT(w.bodies[1].linear_velocity.norm(), 1e-2);
    EXPECT_LT(joint_error(j, w.bodies), 1e-3);
  }
}

// A bar hinged at one end, horizontal: the servo holds it level against gravity, then lifts it to 0.6 rad.
TEST(JointServo, HingeServoHoldsItsAngleUnderLcp) {
  World w;
  w.settings.dt = 0.01;
  const int post = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, 0), 1000, Quat::Identity(), 0,
                                  BodyKind::Fixed);
  const int bar = test::add_body(w, test::box(Vec3(0.5, 0.04, 0.04)), Vec3(0.5, 2, 0), 1000);
  Joint j = make_joint(JointType::Hinge, w.bodies, post, bar, Vec3(0, 2, 0), Vec3::UnitZ(), Vec3::UnitX());
  j.servo.enabled = true;
  w.joints.push_back(j);
  lcp_solver(w);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(w.step().ok);
  EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.0, 1e-3);
  set_servo_target(w.joints[0].servo, 0.6);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(w.step().ok);
  EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.6, 1e-3);
  EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-3);
}

}  // namespace
}  // namespace cl
