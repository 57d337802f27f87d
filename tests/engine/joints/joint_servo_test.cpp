// Joint servos under the `lcp` solver (Xu, Zhao, Barbic 2014, eq. 65-66 as rows): the servo row measures the
// coordinate rate, the slider's row is exactly the backward-Euler PD spring-damper of its gains, a slider
// servo settles at its target (with the static sag m g / k along the axis), a hinge servo holds its angle
// against gravity and follows a new target, and the target stays in its range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
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

// The slider of slider_world along x without gravity, its servo on: target 0.2 m, k 4000 N/m, c 150 N s/m.
World servo_slider_world() {
  World w = slider_world(Vec3::UnitX(), Vec3::Zero());
  JointServo& servo = w.joints[0].servo;
  servo.enabled = true;
  servo.target = 0.2;
  servo.stiffness = 4000;
  servo.damping = 150;
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
  World w = servo_slider_world();
  Joint& j = w.joints[0];
  w.bodies[1].linear_velocity = Vec3(0.3, 0, 0);
  const double h = w.settings.dt, m = w.bodies[1].mass, k = 4000, c = 150;
  std::vector<JointRow> rows;
  joint_rows(j, 0, w.bodies, h, rows);
  ASSERT_EQ(rows.size(), 6u);
  const JointRow& r = rows.back();
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

// The warm start of a PD servo's row (JointWarmStart): without a last impulse, its spring's force over the step with
// the joint held still, h k (x* - x), within h max_force; after one, 0.9 of the last impulse. Rows without a spring
// start from 0 and then from 0.9 of their last impulse, as do a rigid hinge servo's.
TEST(JointServo, AServoRowIsWarmStartedFromItsSpring) {
  World w = servo_slider_world();
  Joint& j = w.joints[0];
  const double h = w.settings.dt, held = h * 4000 * 0.2;
  std::vector<JointRow> rows;
  joint_rows(j, 0, w.bodies, h, rows);
  ASSERT_EQ(rows.size(), 6u);
  const JointRow& servo = rows.back();
  const JointRow& equality = rows.front();
  ASSERT_EQ(servo.kind, kRowServo);
  EXPECT_TRUE(servo.spring);
  EXPECT_FALSE(equality.spring);
  JointWarmStart warm;
  EXPECT_NEAR(warm.guess(servo), held, 1e-12);
  EXPECT_EQ(warm.guess(equality), 0.0);
  warm.forget(0);
  for (const JointRow& r : rows) warm.keep(r, 5.0);
  EXPECT_NEAR(warm.guess(servo), 0.9 * 5.0, 1e-12);  // the last impulse alone once there is one
  EXPECT_NEAR(warm.guess(equality), 0.9 * 5.0, 1e-12);
  // A slot its joint had no row in last step (the servo just switched on) starts afresh.
  warm.forget(0);
  for (size_t i = 0; i + 1 < rows.size(); ++i) warm.keep(rows[i], 5.0);
  EXPECT_NEAR(warm.guess(servo), held, 1e-12);
  // Within the bound h max_force.
  j.servo.max_force = 100;
  rows.clear();
  joint_rows(j, 0, w.bodies, h, rows);
  EXPECT_NEAR(JointWarmStart().guess(rows.back()), h * 100, 1e-12);
  // A rigid hinge servo (no gains) is a constraint, not a spring.
  World hinge = slider_world(Vec3::UnitX(), Vec3::Zero());
  hinge.joints[0] = make_joint(JointType::Hinge, hinge.bodies, 0, 1, Vec3(0.5, 1, 0), Vec3::UnitZ(), Vec3::UnitX());
  hinge.joints[0].servo.enabled = true;
  hinge.joints[0].servo.target = 0.3;
  rows.clear();
  joint_rows(hinge.joints[0], 0, hinge.bodies, h, rows);
  ASSERT_EQ(rows.back().kind, kRowServo);
  EXPECT_FALSE(rows.back().spring);
  EXPECT_EQ(JointWarmStart().guess(rows.back()), 0.0);
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

// --- hinge servos with gains: a bounded PD torque, counting turns (both solvers) -----------------------------

// A 1 m bar of mass m hinged at one end about z, started at `angle` (0 = level, negative = below), at rest,
// with a PD hinge servo pulling it up toward 0.3 rad but bounded to `max_torque`.
World bar_world(const char* solver, double angle, double max_torque) {
  World w;
  w.settings.dt = 0.005;
  const int post = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, 0), 1000, Quat::Identity(), 0,
                                  BodyKind::Fixed);
  const Quat q(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  const int bar = test::add_body(w, test::box(Vec3(0.5, 0.04, 0.04)), Vec3(0, 2, 0) + q * Vec3(0.5, 0, 0), 1000, q);
  Joint j = make_joint(JointType::Hinge, w.bodies, post, bar, Vec3(0, 2, 0), Vec3::UnitZ(), Vec3::UnitX(), angle);
  j.servo.enabled = true;
  j.servo.target = 0.3;
  j.servo.stiffness = 1e5;
  j.servo.damping = 1e3;
  j.servo.max_force = max_torque;
  w.joints.push_back(j);
  std::string error;
  EXPECT_TRUE(w.set_solver(solver, &error)) << error;
  if (w.solver().params().find("sleeping")) {
    EXPECT_TRUE(w.solver().params().set("sleeping", 0, &error));
  }
  return w;
}

// The torque bound is a real bound (the stuck and turning states of the paper's Fig. 8 in their simplest
// form): at the angle where gravity's torque m g L/2 cos(angle) equals max_torque the bar hangs still; 5 %
// less torque and it sinks, 5 % more and it rises, and an ample bound lifts it to the target.
TEST(JointServo, HingePdTorqueIsBoundedByMaxForce) {
  for (const char* solver : {"lcp", "implicit-penalty"}) {
    const double m = 1000 * 1.0 * 0.08 * 0.08, weight_torque = m * 9.81 * 0.5;
    const double balance = -std::acos(0.7);  // where max_torque = 0.7 weight_torque holds the bar
    const auto run = [&](double start, double max_torque, double seconds) {
      World w = bar_world(solver, start, max_torque);
      for (int i = 0; i < int(seconds / w.settings.dt); ++i) EXPECT_TRUE(w.step().ok);
      return joint_coordinate(w.joints[0], w.bodies);
    };
    EXPECT_NEAR(run(balance, 0.7 * weight_torque, 0.5), balance, 2e-3) << solver << ": balanced";
    EXPECT_LT(run(balance, 0.65 * weight_torque, 0.5), balance - 0.05) << solver << ": too little torque, sinks";
    EXPECT_GT(run(balance, 0.75 * weight_torque, 0.5), balance + 0.05) << solver << ": more torque, rises";
    // Ample torque: at the target, less the sag m g L/2 cos / k.
    EXPECT_NEAR(run(0.0, 10 * weight_torque, 2.0), 0.3 - weight_torque * std::cos(0.3) / 1e5, 2e-3) << solver;
  }
}

// A wheel on a hinge, no gravity: a PD servo whose target runs three turns at 2 rad/s (as a held key moves
// it) turns the wheel three whole turns (the angle counts turns, JointServo::coordinate), following the target
// closely, and saving and loading keeps the count.
TEST(JointServo, HingePdServoTurnsManyTimes) {
  for (const char* solver : {"lcp", "implicit-penalty"}) {
    World w;
    w.settings.dt = 0.005;
    w.settings.gravity = Vec3::Zero();
    const int post = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 1, 0), 1000, Quat::Identity(), 0,
                                    BodyKind::Fixed);
    const int wheel = test::add_body(w, test::box(Vec3(0.3, 0.3, 0.05)), Vec3(0, 1, 0.3), 500);
    Joint j = make_joint(JointType::Hinge, w.bodies, post, wheel, Vec3(0, 1, 0.2), Vec3::UnitZ(), Vec3::UnitX());
    j.servo.enabled = true;
    j.servo.stiffness = 200;  // N m/rad, with the wheel's 1.08 kg m^2 a damping ratio of 0.68
    j.servo.damping = 20;
    j.servo.max_force = 100;
    j.servo.lower = -6 * std::numbers::pi;
    w.joints.push_back(j);
    std::string error;
    ASSERT_TRUE(w.set_solver(solver, &error)) << error;
    if (w.solver().params().find("sleeping")) {
      ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error));  // the test moves the target, not the viewer
    }
    double lowest = 0, lag = 0;
    for (int i = 0; i < 2400; ++i) {
      set_servo_target(w.joints[0].servo, -2.0 * i * w.settings.dt);
      ASSERT_TRUE(w.step().ok);
      lowest = std::min(lowest, w.joints[0].servo.coordinate);
      if (i > 200) lag = std::max(lag, std::abs(w.joints[0].servo.coordinate - w.joints[0].servo.target));
    }
    // A PD servo trails a target moving at rate r by c r / k (damping against the absolute speed).
    EXPECT_LT(lag, 20 * 2.0 / 200 + 0.02) << solver << ": follows the moving target";
    EXPECT_NEAR(w.joints[0].servo.coordinate, -6 * std::numbers::pi, 1e-2) << solver;
    EXPECT_GT(lowest, -6 * std::numbers::pi - 0.05) << solver << ": no overshoot";
    EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.0, 1e-2) << solver << ": the pose shows the angle mod 2 pi";
    EXPECT_LT(w.bodies[wheel].angular_velocity.norm(), 0.05) << solver;
    // The turns survive a save and load (the scene's "coordinate" of a hinge counts them).
    EXPECT_NEAR(describe_joint(w.joints[0], w.bodies).coordinate, -6 * std::numbers::pi, 1e-2) << solver;
  }
}

// A slider servo lifting a known mass m straight up (gravity along the axis), from rest at the coordinate 0 to a
// target 0.25 m above, under every method at its defaults (sleeping on), at steps from 1/30 to 1/1000 s and for
// bodies from 10 g (2 cm) to 100 t (4 m). The gains scale with the mass (k = 3000 m N/m, c = 1500 m N s/m), so the
// closed form is the same for all: m x'' + c x' + k (x - x*) = -m g, overdamped, x = x_ss + C1 e^(s1 t) +
// C2 e^(s2 t) from rest, with the static offset m g / k below the target (x_ss = x* - m g / k, 3.3 mm) and the
// slow time constant about c / k = 0.5 s. Backward Euler lags the slow mode by at most about (h / tau) of the
// distance; after ten time constants the block rests at x_ss.
TEST(JointServo, ALoadedSliderServoFollowsTheClosedForm) {
  const double g = 9.81, target = 0.25;
  for (const char* solver : {"lcp", "volume", "pid-penalty", "implicit-penalty"})
    for (double h : {1.0 / 30, 1.0 / 100, 1.0 / 1000})
      for (const auto& [m, half] : {std::pair{0.01, 0.01}, std::pair{1.0, 0.1}, std::pair{1e5, 2.0}}) {
        const double k = 3000 * m, c = 1500 * m;
        World w;
        w.settings.dt = h;
        w.settings.gravity = Vec3(0, -g, 0);
        const int post = test::add_body(w, test::box(Vec3::Constant(half)), Vec3(0, 0, 0), 1000, Quat::Identity(),
                                        0, BodyKind::Fixed);
        const int block = test::add_body(w, test::box(Vec3::Constant(half)), Vec3(0, 4 * half, 0),
                                         m / (8 * half * half * half));
        w.joints.push_back(make_joint(JointType::Slider, w.bodies, post, block, Vec3(0, 4 * half, 0), Vec3::UnitY(),
                                      Vec3::UnitZ()));
        w.joints[0].servo = JointServo{true, target, k, c, -1.0, 1.0};
        std::string error;
        ASSERT_TRUE(w.set_solver(solver, &error)) << error;
        const double x_ss = target - m * g / k;
        const double disc = std::sqrt(c * c - 4 * m * k);
        const double s1 = (-c + disc) / (2 * m), s2 = (-c - disc) / (2 * m);
        const double c1 = -x_ss * s2 / (s2 - s1), c2 = x_ss * s1 / (s2 - s1);
        const double tau = -1.0 / s1;
        const std::string where = std::string(solver) + " h " + std::to_string(h) + " m " + std::to_string(m);
        const int steps = int(std::lround(10 * tau / h));
        for (int i = 1; i <= steps; ++i) {
          ASSERT_TRUE(w.step().ok) << where;
          const double t = i * h;
          if (i == int(std::lround(tau / h)) || i == int(std::lround(2 * tau / h))) {
            const double closed = x_ss + c1 * std::exp(s1 * t) + c2 * std::exp(s2 * t);
            EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), closed, target * h / tau + 1e-4) << where << " t " << t;
          }
        }
        EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), x_ss, 1e-4) << where << ": the static offset m g / k";
      }
}

}  // namespace
}  // namespace cl
