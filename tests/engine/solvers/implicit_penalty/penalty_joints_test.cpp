// Articulated bodies of the implicit penalty method (Xu, Zhao, Barbic 2014, section 5): the Jacobians W
// against finite differences of C for every joint type at random (violated) poses, the rate Cdot against
// finite differences of C along a motion, the Baumgarte condition of eq. 56 at the velocity level reached by
// one constrained step, the Schur-complement solve (eq. 64) against
// the full (6n + m) system, redundant rows (slider, a closed loop of four hinged bars), slider-servo
// gradients against finite differences, and a small integrator of eq. 15-18 (no contacts) that swings a
// pendulum at its analytic period, closes a four-bar loop and drives both servos to their targets.
#include "solvers/implicit_penalty/penalty_joints.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "support/builders.h"
#include "support/random.h"
#include "world/world.h"

namespace cl::implicit_penalty {
namespace {

using test::kPi;
constexpr JointType kAllTypes[] = {JointType::Ball,   JointType::Hinge,     JointType::Slider,
                                   JointType::Hinge2, JointType::Universal, JointType::Fixed};

std::string name_of(const Joint& j) {
  return std::string(joint_type_name(j.type)) + (j.servo.enabled ? " with servo" : "");
}

using test::make_body;
using test::Rng;

constexpr uint32_t kSeed = 20140901;  // of every random state below

// Two anisotropic dynamic boxes (a may be made kinematic) at random poses.
std::vector<Body> random_pair(Rng& rng, BodyKind kind_a = BodyKind::Dynamic) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.3, 0.5, 0.2)), rng.vec(2.0), rng.quat(), 700, kind_a));
  bodies.push_back(make_body(test::box(Vec3(0.6, 0.2, 0.4)), rng.vec(2.0), rng.quat(), 1300));
  return bodies;
}

// A joint of the given type between bodies 0 and 1 at their current poses, with a random anchor, axes and
// coordinate.
Joint random_joint(Rng& rng, JointType type, const std::vector<Body>& bodies, bool servo = false) {
  const Vec3 anchor = 0.5 * (bodies[0].position + bodies[1].position) + rng.vec(0.5);
  const Vec3 s1 = rng.unit();
  Vec3 s2;
  do s2 = rng.unit();
  while (std::abs(s1.dot(s2)) > std::cos(30.0 * kPi / 180.0));
  const double coordinate = joint_type_has_coordinate(type) ? rng.uniform(-1.0, 1.0) : 0.0;
  Joint j = make_joint(type, bodies, 0, 1, anchor, s1, s2, coordinate);
  if (servo) {
    j.servo.enabled = true;
    j.servo.target = rng.uniform(-1.0, 1.0);
    // A slider servo is a PD force; a hinge servo without gains is the rigid target-rotation constraint.
    if (type == JointType::Slider) {
      j.servo.stiffness = 300.0;
      j.servo.damping = 20.0;
    }
  }
  return j;
}

// Moves both bodies off the joint (random small displacements and rotations) and gives them velocities.
void disturb(Rng& rng, std::vector<Body>& bodies, double amount) {
  for (Body& b : bodies) {
    if (b.kind == BodyKind::Fixed) continue;
    b.position += rng.vec(amount);
    b.orientation = apply_small_rotation(b.orientation, rng.vec(amount));
    b.linear_velocity = rng.vec(1.0);
    b.angular_velocity = rng.vec(2.0);
    b.update_world_inertia();
  }
}

// Every joint of the tests: the six types and a hinge with its servo.
std::vector<std::pair<JointType, bool>> all_cases() {
  std::vector<std::pair<JointType, bool>> cases;
  for (JointType t : kAllTypes) cases.emplace_back(t, false);
  cases.emplace_back(JointType::Hinge, true);
  return cases;
}

// The pose rotated by exp([dtheta]x) and moved by dx; w follows the rotation at fixed L when `fixed_L`.
BodyPose moved(const BodyPose& p, const Vec3& dx, const Vec3& dtheta, bool fixed_L, const Mat3& inv_inertia_body) {
  BodyPose q = p;
  q.x += dx;
  if (dtheta.norm() > 0) q.R = Eigen::AngleAxisd(dtheta.norm(), dtheta.normalized()).toRotationMatrix() * p.R;
  if (fixed_L && !p.inv_inertia.isZero(0.0)) {
    q.inv_inertia = q.R * inv_inertia_body * q.R.transpose();
    q.w = q.inv_inertia * q.L;
  }
  return q;
}

// Variable k (0..11) of [x_a, theta_a, x_b, theta_b] moved by e.
void perturb(BodyPose& a, BodyPose& b, int k, double e, const Body& A, const Body& B, bool fixed_L = false) {
  const Vec3 delta = Vec3::Unit(k % 3) * e;
  BodyPose& p = k < 6 ? a : b;
  const Body& body = k < 6 ? A : B;
  const bool rotation = (k % 6) >= 3;
  p = moved(p, rotation ? Vec3::Zero() : delta, rotation ? delta : Vec3::Zero(), fixed_L, body.inv_inertia_body);
}

// True when the hinge's dropped row could switch under a small rotation (two |axis| components almost equal).
bool hinge_row_choice_is_ambiguous(const Joint& j, const BodyPose& a) {
  if (j.type != JointType::Hinge) return false;
  Vec3 s = (a.R * j.axis_a.normalized()).cwiseAbs();
  std::sort(s.data(), s.data() + 3);
  return s[2] - s[1] < 1e-3;
}

// --- constraint functions and derivatives --------------------------------------------------------------

TEST(PenaltyJoints, ConstraintIsZeroAtTheCreationPoses) {
  Rng rng(kSeed);
  for (const auto& [type, servo] : all_cases()) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<Body> bodies = random_pair(rng);
      Joint j = random_joint(rng, type, bodies, servo);
      if (servo) j.servo.target = joint_coordinate(j, bodies);  // the servo holds the creation angle
      JointConstraint c;
      std::string why;
      ASSERT_TRUE(joint_constraint(j, body_pose(bodies[0]), body_pose(bodies[1]), c, &why)) << why;
      EXPECT_EQ(c.rows(), penalty_joint_rows(j));
      EXPECT_LT(c.C.norm(), 1e-12) << name_of(j);
    }
  }
  Joint j;
  j.type = JointType::Hinge;
  EXPECT_EQ(penalty_joint_rows(j), 5);
  j.type = JointType::Slider;
  EXPECT_EQ(penalty_joint_rows(j), 8);
  j.type = JointType::Fixed;
  EXPECT_EQ(penalty_joint_rows(j), 9);
}

TEST(PenaltyJoints, JacobianMatchesFiniteDifferencesOfTheConstraint) {
  Rng rng(kSeed);
  const double eps = 1e-6;
  for (const auto& [type, servo] : all_cases()) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<Body> bodies = random_pair(rng);
      const Joint j = random_joint(rng, type, bodies, servo);
      disturb(rng, bodies, 0.3);
      const BodyPose a = body_pose(bodies[0]), b = body_pose(bodies[1]);
      if (hinge_row_choice_is_ambiguous(j, a)) continue;
      JointConstraint c;
      ASSERT_TRUE(joint_constraint(j, a, b, c));
      EXPECT_GT(c.C.norm(), 1e-3) << "the poses should violate the joint";
      for (int k = 0; k < 12; ++k) {
        BodyPose ap = a, bp = b, am = a, bm = b;
        perturb(ap, bp, k, eps, bodies[0], bodies[1]);
        perturb(am, bm, k, -eps, bodies[0], bodies[1]);
        JointConstraint cp, cm;
        ASSERT_TRUE(joint_constraint(j, ap, bp, cp));
        ASSERT_TRUE(joint_constraint(j, am, bm, cm));
        const Eigen::VectorXd fd = (cp.C - cm.C) / (2 * eps);
        const Eigen::VectorXd an = k < 6 ? Eigen::VectorXd(c.Wa.col(k)) : Eigen::VectorXd(c.Wb.col(k - 6));
        EXPECT_LT((fd - an).norm(), 1e-7 * (1 + an.norm())) << name_of(j) << " variable " << k << "\nfd " << fd.transpose()
                                                            << "\nW  " << an.transpose();
      }
    }
  }
}

// Cdot = W u is the time derivative of C along a motion with constant v and w (world frame).
TEST(PenaltyJoints, RateIsTheTimeDerivativeOfTheConstraint) {
  Rng rng(kSeed);
  const double eps = 1e-6;
  for (const auto& [type, servo] : all_cases()) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<Body> bodies = random_pair(rng);
      const Joint j = random_joint(rng, type, bodies, servo);
      disturb(rng, bodies, 0.3);
      const BodyPose a = body_pose(bodies[0]), b = body_pose(bodies[1]);
      if (hinge_row_choice_is_ambiguous(j, a)) continue;
      const auto along = [&](const BodyPose& p, double t, const Body& body) {
        return moved(p, t * p.v, t * p.w, false, body.inv_inertia_body);  // v, w unchanged
      };
      JointConstraint cp, cm;
      ASSERT_TRUE(joint_constraint(j, along(a, eps, bodies[0]), along(b, eps, bodies[1]), cp));
      ASSERT_TRUE(joint_constraint(j, along(a, -eps, bodies[0]), along(b, -eps, bodies[1]), cm));
      const Eigen::VectorXd rate_fd = (cp.C - cm.C) / (2 * eps);
      JointConstraint c;
      ASSERT_TRUE(joint_constraint(j, a, b, c));
      EXPECT_LT((rate_fd - c.rate(a, b)).norm(), 1e-6 * (1 + rate_fd.norm())) << name_of(j);
    }
  }
}

TEST(PenaltyJoints, SliderCoordinateIsTheJointCoordinate) {
  Rng rng(kSeed);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Body> bodies = random_pair(rng);
    const Joint j = random_joint(rng, JointType::Slider, bodies);
    EXPECT_NEAR(slider_coordinate(j, body_pose(bodies[0]), body_pose(bodies[1])),
                joint_coordinate(j, bodies), 1e-12);
    disturb(rng, bodies, 0.3);
    EXPECT_NEAR(slider_coordinate(j, body_pose(bodies[0]), body_pose(bodies[1])),
                joint_coordinate(j, bodies), 1e-12);
  }
}

TEST(PenaltyJoints, HingeServoRowsAreZeroOnlyAtTheTargetAngle) {
  Rng rng(kSeed);
  std::vector<Body> bodies = random_pair(rng);
  Joint j = random_joint(rng, JointType::Hinge, bodies, true);
  j.servo.target = 0.4;
  // Turn b about the hinge axis to 0.4 rad: every row is satisfied.
  const Vec3 axis = bodies[0].rotation() * j.axis_a.normalized();
  Vec3 anchor, other;
  joint_anchors_world(j, bodies, anchor, other);
  const double now = joint_coordinate(j, bodies);
  const Eigen::AngleAxisd turn(0.4 - now, axis);
  bodies[1].position = anchor + turn * (bodies[1].position - anchor);
  bodies[1].orientation = Quat(turn) * bodies[1].orientation;
  EXPECT_NEAR(joint_coordinate(j, bodies), 0.4, 1e-12);
  JointConstraint c;
  ASSERT_TRUE(joint_constraint(j, body_pose(bodies[0]), body_pose(bodies[1]), c));
  EXPECT_LT(c.C.norm(), 1e-12);
  // The target is clamped to the servo's range.
  j.servo.lower = -0.2;
  j.servo.upper = 0.3;
  ASSERT_TRUE(joint_constraint(j, body_pose(bodies[0]), body_pose(bodies[1]), c));
  EXPECT_LT(c.C.head(5).norm(), 1e-12) << "the hinge rows still hold";
  // 0.1 rad about the axis s from the clamped target: column k of R_b is off by 2 sin(0.05) |c_k x s|.
  const Mat3 Rb = bodies[1].rotation();
  const double off = 2 * std::sin(0.05) * std::hypot(Rb.col(0).cross(axis).norm(), Rb.col(1).cross(axis).norm());
  EXPECT_NEAR(c.C.tail(6).norm(), off, 1e-9) << "0.1 rad from the clamped target";
}

// --- one constrained step reaches the Baumgarte condition of eq. 56 at the velocity level --------------

// With G = I (no contacts) and the constraint force of the Schur solve, the new velocities v + dP / m and
// w + I^-1 dL (at the rotation of the start of the step) give W (v(t+h), w(t+h)) = (1 - alpha h) Cdot - h beta C
// for the non-redundant joints (baumgarte_bias); a kinematic body keeps its velocity.
TEST(PenaltyJoints, OneStepSatisfiesTheBaumgarteCondition) {
  Rng rng(kSeed);
  const double h = 0.01, alpha = 1.0 / h, beta = alpha * alpha / 4;
  const JointType types[] = {JointType::Ball, JointType::Hinge, JointType::Universal, JointType::Hinge2};
  for (JointType type : types) {
    for (BodyKind kind_a : {BodyKind::Dynamic, BodyKind::Kinematic, BodyKind::Fixed}) {
      for (int trial = 0; trial < 5; ++trial) {
        std::vector<Body> bodies = random_pair(rng, kind_a);
        const Joint j = random_joint(rng, type, bodies);
        disturb(rng, bodies, 0.05);
        if (kind_a == BodyKind::Fixed) bodies[0].linear_velocity = bodies[0].angular_velocity = Vec3::Zero();
        const BodyPose a = body_pose(bodies[0]), b = body_pose(bodies[1]);
        if (hinge_row_choice_is_ambiguous(j, a)) continue;
        const bool a_moves = kind_a == BodyKind::Dynamic;
        const std::vector<int> unknown = a_moves ? std::vector<int>{0, 1} : std::vector<int>{-1, 0};
        const int n = a_moves ? 2 : 1;
        JointSystem sys;
        std::string why;
        ASSERT_TRUE(assemble_joint_system({j}, {0}, bodies, unknown, n, alpha, sys, &why)) << why;
        // Gravity and an arbitrary torque as the external forces.
        Eigen::VectorXd hZ(6 * n);
        for (int k = 0; k < n; ++k) hZ.segment<6>(6 * k) << h * Vec3(0, -9.81, 0) / bodies[1].inv_mass, h * Vec3(0.3, 0, 0.1);
        const auto identity = [](const Eigen::VectorXd& x) { return x; };
        Eigen::VectorXd dS, lambda;
        ConstrainedSolveInfo info;
        ASSERT_TRUE(solve_with_constraints(identity, sys.W, sys.J, hZ, sys.d, h, dS, lambda, &info));
        EXPECT_EQ(info.rank, sys.rows());
        EXPECT_LT(info.residual, 1e-9 * (1 + h * sys.d.norm()));
        BodyPose after[2] = {a, b};
        for (int i = 0; i < 2; ++i) {
          if (unknown[size_t(i)] < 0) continue;
          const int k = unknown[size_t(i)];
          after[i].v += dS.segment<3>(6 * k) * bodies[size_t(i)].inv_mass;
          after[i].w += after[i].inv_inertia * dS.segment<3>(6 * k + 3);
        }
        JointConstraint c0;
        ASSERT_TRUE(joint_constraint(j, a, b, c0));
        const Eigen::VectorXd rate = c0.rate(after[0], after[1]);
        const Eigen::VectorXd expected = (1 - alpha * h) * c0.rate(a, b) - h * beta * c0.C;
        EXPECT_LT((rate - expected).norm(), 1e-9 * (1 + c0.rate(a, b).norm() + h * beta * c0.C.norm()))
            << name_of(j) << " a " << int(kind_a) << "\nrate " << rate.transpose() << "\nexpected "
            << expected.transpose();
      }
    }
  }
}

// --- the Schur-complement solve (eq. 62-64) ------------------------------------------------------------

// Random non-symmetric G near the identity, full-rank W, J = W M^-1: the same dS and lambda as the full
// (6n + m) system [G, -h W^T; J, 0] [dS; lambda] = [h Z; -h d] by dense LU.
TEST(PenaltyJoints, SchurSolveEqualsTheFullSystem) {
  Rng rng(kSeed);
  const double h = 0.005;
  for (int trial = 0; trial < 5; ++trial) {
    const int n = 3, m = 7, N = 6 * n;
    Eigen::MatrixXd G = Eigen::MatrixXd::Identity(N, N);
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c) G(r, c) += 0.2 * rng.uniform(-1, 1);
    Eigen::MatrixXd W(m, N);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < N; ++c) W(r, c) = rng.uniform(-1, 1);
    Eigen::VectorXd minv(N), hZ(N), d(m);
    for (int c = 0; c < N; ++c) minv[c] = rng.uniform(0.1, 3.0);
    for (int c = 0; c < N; ++c) hZ[c] = rng.uniform(-1, 1);
    for (int r = 0; r < m; ++r) d[r] = rng.uniform(-5, 5);
    const Eigen::MatrixXd J = W * minv.asDiagonal();

    Eigen::MatrixXd full = Eigen::MatrixXd::Zero(N + m, N + m);
    full.topLeftCorner(N, N) = G;
    full.topRightCorner(N, m) = -h * W.transpose();
    full.bottomLeftCorner(m, N) = J;
    Eigen::VectorXd rhs(N + m);
    rhs << hZ, -h * d;
    const Eigen::VectorXd x = full.fullPivLu().solve(rhs);

    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
    const auto solve_G = [&](const Eigen::VectorXd& b) { return Eigen::VectorXd(lu.solve(b)); };
    Eigen::VectorXd dS, lambda;
    ConstrainedSolveInfo info;
    ASSERT_TRUE(solve_with_constraints(solve_G, W, J, hZ, d, h, dS, lambda, &info));
    EXPECT_EQ(info.rank, m);
    EXPECT_LT((dS - x.head(N)).norm(), 1e-10 * (1 + x.head(N).norm()));
    EXPECT_LT((lambda - x.tail(m)).norm(), 1e-9 * (1 + x.tail(m).norm()));
    EXPECT_LT(info.residual, 1e-10);

    // The SparseLU overload gives the same.
    Eigen::SparseMatrix<double> Gs = G.sparseView();
    Eigen::SparseLU<Eigen::SparseMatrix<double>> slu;
    slu.compute(Gs);
    ASSERT_EQ(slu.info(), Eigen::Success);
    Eigen::VectorXd dS2, lambda2;
    ASSERT_TRUE(solve_with_constraints(slu, W, J, hZ, d, h, dS2, lambda2));
    EXPECT_LT((dS2 - dS).norm(), 1e-10 * (1 + dS.norm()));
    EXPECT_LT((lambda2 - lambda).norm(), 1e-9 * (1 + lambda.norm()));
  }
  // No rows: dS = G^-1 hZ.
  const Eigen::VectorXd hZ = Eigen::VectorXd::Constant(6, 2.0);
  Eigen::VectorXd dS, lambda;
  const auto half = [](const Eigen::VectorXd& b) { return Eigen::VectorXd(0.5 * b); };
  ASSERT_TRUE(solve_with_constraints(half, Eigen::MatrixXd(0, 6), Eigen::MatrixXd(0, 6), hZ, Eigen::VectorXd(0), h, dS,
                                     lambda));
  EXPECT_EQ(lambda.size(), 0);
  EXPECT_LT((dS - Eigen::VectorXd::Constant(6, 1.0)).norm(), 1e-15);
  // Mismatched sizes are refused.
  EXPECT_FALSE(solve_with_constraints(half, Eigen::MatrixXd(2, 6), Eigen::MatrixXd(2, 6), hZ, Eigen::VectorXd(3), h,
                                      dS, lambda));
}

// Gravity and a velocity field on the bodies of a contact group, G = I.
Eigen::VectorXd gravity_step(const std::vector<Body>& bodies, const std::vector<int>& unknown, int n, double h) {
  Eigen::VectorXd hZ = Eigen::VectorXd::Zero(6 * n);
  for (size_t i = 0; i < bodies.size(); ++i)
    if (unknown[i] >= 0) hZ.segment<3>(6 * unknown[i]) = h * bodies[i].mass * Vec3(0, -9.81, 0);
  return hZ;
}

// The slider's 8 rows have rank 5; at a satisfied state (velocities consistent with the joint) the rows are
// consistent and the redundant ones are dropped by the SVD: finite dS, J dS + h d = 0.
TEST(PenaltyJoints, RedundantSliderRowsAreSolvedBySvd) {
  Rng rng(kSeed);
  const double h = 0.01;
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<Body> bodies = random_pair(rng);
    const Joint j = random_joint(rng, JointType::Slider, bodies);
    // A common rigid motion plus sliding along the axis.
    const Vec3 w = rng.vec(1.0), v0 = rng.vec(1.0);
    for (Body& b : bodies) {
      b.angular_velocity = w;
      b.linear_velocity = v0 + w.cross(b.position);
    }
    const Vec3 axis = bodies[0].rotation() * j.axis_a.normalized();
    bodies[1].linear_velocity += 0.7 * axis;
    JointSystem sys;
    ASSERT_TRUE(assemble_joint_system({j}, {0}, bodies, {0, 1}, 2, 1.0 / h, sys));
    ASSERT_EQ(sys.rows(), 8);
    EXPECT_LT(sys.C.norm(), 1e-12);
    EXPECT_LT(sys.Cdot.norm(), 1e-12);
    const auto identity = [](const Eigen::VectorXd& x) { return x; };
    Eigen::VectorXd dS, lambda;
    ConstrainedSolveInfo info;
    ASSERT_TRUE(solve_with_constraints(identity, sys.W, sys.J, gravity_step(bodies, {0, 1}, 2, h), sys.d, h, dS, lambda,
                                       &info));
    EXPECT_EQ(info.rank, 5);
    EXPECT_TRUE(dS.allFinite());
    EXPECT_LT(info.residual, 1e-9 * (1 + dS.norm()));
    // The minimum-norm multipliers: no component in the null space of S.
    EXPECT_LT(lambda.norm(), 1e6);
  }
  // Violated: least squares, still finite, and the residual is orthogonal to the range of S.
  std::vector<Body> bodies = random_pair(rng);
  const Joint j = random_joint(rng, JointType::Slider, bodies);
  disturb(rng, bodies, 0.1);
  JointSystem sys;
  ASSERT_TRUE(assemble_joint_system({j}, {0}, bodies, {0, 1}, 2, 1.0 / h, sys));
  const auto identity = [](const Eigen::VectorXd& x) { return x; };
  Eigen::VectorXd dS, lambda;
  const Eigen::VectorXd hZ = gravity_step(bodies, {0, 1}, 2, h);
  ASSERT_TRUE(solve_with_constraints(identity, sys.W, sys.J, hZ, sys.d, h, dS, lambda));
  EXPECT_TRUE(dS.allFinite());
  const Eigen::MatrixXd S = sys.J * sys.W.transpose();
  const Eigen::VectorXd r = -sys.d - sys.J * hZ / h;
  EXPECT_LT((S.transpose() * (S * lambda - r)).norm(), 1e-6 * (S.norm() * S.norm() * lambda.norm() + 1));
}

// Four bars in a square, hinged at the corners about z: a closed loop. 20 rows on 24 unknowns, but the
// loop moves (6 rigid + 1 planar): rank 17, 3 rows redundant. Bar 0 on top, bar 2 hanging below it.
struct FourBar {
  std::vector<Body> bodies;
  std::vector<Joint> joints;
};

FourBar four_bar(bool ground_fixed) {
  FourBar f;
  const double l = 1.0;
  const Shape bar_x = test::box(Vec3(0.5 * l, 0.04, 0.04)), bar_y = test::box(Vec3(0.04, 0.5 * l, 0.04));
  f.bodies.push_back(make_body(bar_x, Vec3(0, 0, 0), Quat::Identity(), 800,
                               ground_fixed ? BodyKind::Fixed : BodyKind::Dynamic));  // top
  f.bodies.push_back(make_body(bar_y, Vec3(0.5 * l, -0.5 * l, 0), Quat::Identity(), 800));  // right
  f.bodies.push_back(make_body(bar_x, Vec3(0, -l, 0), Quat::Identity(), 800));              // bottom
  f.bodies.push_back(make_body(bar_y, Vec3(-0.5 * l, -0.5 * l, 0), Quat::Identity(), 800));  // left
  const Vec3 corners[4] = {Vec3(0.5 * l, 0, 0), Vec3(0.5 * l, -l, 0), Vec3(-0.5 * l, -l, 0), Vec3(-0.5 * l, 0, 0)};
  for (int i = 0; i < 4; ++i)
    f.joints.push_back(make_joint(JointType::Hinge, f.bodies, i, (i + 1) % 4, corners[i], Vec3(0, 0, 1), Vec3(0, 0, 1)));
  return f;
}

TEST(PenaltyJoints, ClosedLoopOfFourHingedBarsIsSolvedBySvd) {
  FourBar f = four_bar(false);
  const double h = 0.01;
  JointSystem sys;
  std::string why;
  ASSERT_TRUE(assemble_joint_system(f.joints, {0, 1, 2, 3}, f.bodies, {0, 1, 2, 3}, 4, 1.0 / h, sys, &why)) << why;
  ASSERT_EQ(sys.rows(), 20);
  EXPECT_EQ(sys.row_joint[0], 0);
  EXPECT_EQ(sys.row_joint[19], 3);
  const auto identity = [](const Eigen::VectorXd& x) { return x; };
  Eigen::VectorXd dS, lambda;
  ConstrainedSolveInfo info;
  // Gravity on the free loop: it falls as one piece, no constraint force.
  const Eigen::VectorXd hZ = gravity_step(f.bodies, {0, 1, 2, 3}, 4, h);
  ASSERT_TRUE(solve_with_constraints(identity, sys.W, sys.J, hZ, sys.d, h, dS, lambda, &info));
  EXPECT_EQ(info.rank, 17);
  EXPECT_LT(info.residual, 1e-10);
  EXPECT_LT(lambda.norm(), 1e-6);
  // Now a push on one bar, with the top bar held (no unknowns): the others move as a linkage.
  const std::vector<int> unknown = {-1, 0, 1, 2};
  ASSERT_TRUE(assemble_joint_system(f.joints, {0, 1, 2, 3}, f.bodies, unknown, 3, 1.0 / h, sys));
  Eigen::VectorXd push = gravity_step(f.bodies, unknown, 3, h);
  push.segment<3>(6) += h * Vec3(50, 0, 10);  // the bottom bar, sideways and out of the plane
  ASSERT_TRUE(solve_with_constraints(identity, sys.W, sys.J, push, sys.d, h, dS, lambda, &info));
  // 18 unknowns, one degree of freedom left (the planar linkage): rank 17 of 20 rows.
  EXPECT_EQ(info.rank, 17);
  EXPECT_LT(info.residual, 1e-9);
  // At rest d = 0, so the momentum change is a motion of the linkage: nothing out of the plane.
  for (int k = 0; k < 3; ++k) {
    EXPECT_LT(std::abs(dS[6 * k + 2]), 1e-9) << "bar " << k + 1 << " P_z";
    EXPECT_LT(dS.segment<2>(6 * k + 3).norm(), 1e-9) << "bar " << k + 1 << " L_x, L_y";
  }
  EXPECT_GT(std::abs(dS[6]), 1e-3) << "the bottom bar moves sideways";
}

// --- a small integrator of eq. 15-18 without contacts ----------------------------------------------------

// One step of the paper's semi-implicit scheme for dS = [dP, dL] per dynamic body: the slider servos'
// PairForces enter G = I - h (h D_pos + D_vel) M^-1 and Z = F + h D_pos u (eq. 15-17, the quaternion factors
// V taken as identity, as for theta variables), gravity enters Z; the joints are solved by the Schur
// complement; then P, L are updated, v = P / m, w = I^-1 L, x += h v, q rotated by h w (and w recomputed at
// the new orientation from L). Kinematic bodies move with their velocities. Returns the solve's info.
ConstrainedSolveInfo step(std::vector<Body>& bodies, const std::vector<Joint>& joints, double h, double alpha,
                          const Vec3& gravity = Vec3(0, -9.81, 0)) {
  std::vector<int> unknown(bodies.size(), -1);
  int n = 0;
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].is_dynamic()) unknown[i] = n++;
  std::vector<BodyPose> poses;
  for (const Body& b : bodies) poses.push_back(body_pose(b));
  const auto minv = [&](size_t i) {
    Eigen::Matrix<double, 6, 6> M = Eigen::Matrix<double, 6, 6>::Zero();
    M.topLeftCorner<3, 3>() = bodies[i].inv_mass * Mat3::Identity();
    M.bottomRightCorner<3, 3>() = poses[i].inv_inertia;
    return M;
  };
  Eigen::MatrixXd G = Eigen::MatrixXd::Identity(6 * n, 6 * n);
  Eigen::VectorXd Z = Eigen::VectorXd::Zero(6 * n);
  for (size_t i = 0; i < bodies.size(); ++i)
    if (unknown[i] >= 0) Z.segment<3>(6 * unknown[i]) = bodies[i].mass * gravity;
  for (const Joint& j : joints) {
    PairForce pf;
    if (!slider_servo_force(j, poses[size_t(j.body_a)], poses[size_t(j.body_b)], pf)) continue;
    const size_t ids[2] = {size_t(j.body_a), size_t(j.body_b)};
    Vec12 u;
    u << poses[ids[0]].v, poses[ids[0]].w, poses[ids[1]].v, poses[ids[1]].w;
    const Vec12 Zpair = pf.wrench + h * pf.d_pos * u;
    for (int r = 0; r < 2; ++r) {
      const int kr = unknown[ids[r]];
      if (kr < 0) continue;
      Z.segment<6>(6 * kr) += Zpair.segment<6>(6 * r);
      for (int c = 0; c < 2; ++c) {
        const int kc = unknown[ids[c]];
        if (kc < 0) continue;
        G.block<6, 6>(6 * kr, 6 * kc) -=
            h * (h * pf.d_pos.block<6, 6>(6 * r, 6 * c) + pf.d_vel.block<6, 6>(6 * r, 6 * c)) * minv(ids[c]);
      }
    }
  }
  std::vector<int> all(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) all[i] = int(i);
  JointSystem sys;
  std::string why;
  EXPECT_TRUE(assemble_joint_system(joints, all, bodies, unknown, n, alpha, sys, &why)) << why;
  Eigen::SparseMatrix<double> Gs = G.sparseView();
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  lu.compute(Gs);
  Eigen::VectorXd dS, lambda;
  ConstrainedSolveInfo info;
  EXPECT_TRUE(solve_with_constraints(lu, sys, h * Z, h, dS, lambda, &info));
  for (size_t i = 0; i < bodies.size(); ++i) {
    Body& b = bodies[i];
    if (b.kind == BodyKind::Fixed) continue;
    if (unknown[i] >= 0) {
      const int k = unknown[i];
      b.linear_velocity += b.inv_mass * dS.segment<3>(6 * k);
      b.angular_velocity = poses[i].inv_inertia * (poses[i].L + dS.segment<3>(6 * k + 3));
    }
    b.position += h * b.linear_velocity;
    const Vec3 L = poses[i].L + (unknown[i] >= 0 ? Vec3(dS.segment<3>(6 * unknown[i] + 3)) : Vec3::Zero());
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity, h);
    b.update_world_inertia();
    if (unknown[i] >= 0) b.angular_velocity = b.inv_inertia_world * L;
  }
  return info;
}

double max_error(const std::vector<Joint>& joints, const std::vector<Body>& bodies) {
  double e = 0;
  for (const Joint& j : joints) {
    JointConstraint c;
    EXPECT_TRUE(joint_constraint(j, body_pose(bodies[size_t(j.body_a)]), body_pose(bodies[size_t(j.body_b)]), c));
    e = std::max(e, c.C.cwiseAbs().maxCoeff());
  }
  return e;
}

double energy(const std::vector<Body>& bodies, double g = 9.81) {
  double e = 0;
  for (const Body& b : bodies) {
    if (!b.is_dynamic()) continue;
    e += 0.5 * b.mass * b.linear_velocity.squaredNorm() + 0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity) +
         b.mass * g * b.position.y();
  }
  return e;
}

// A bar hinged at one end to a fixed post swings at the physical pendulum's period 2 pi sqrt(I_p / (m g l)).
TEST(PenaltyJointsPhysics, PendulumPeriod) {
  const double half = 0.5, h = 0.002;
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, 0), Quat::Identity(), 0, BodyKind::Fixed));
  const double start = 0.05;  // rad
  const Quat tilt(Eigen::AngleAxisd(start, Vec3(0, 0, 1)));
  const Vec3 pivot(0, 2, 0);
  bodies.push_back(make_body(test::box(Vec3(0.04, half, 0.04)), pivot + tilt * Vec3(0, -half, 0), tilt, 1000));
  const std::vector<Joint> joints = {make_joint(JointType::Hinge, bodies, 0, 1, pivot, Vec3(0, 0, 1), Vec3(0, 0, 1), start)};
  const Body& bar = bodies[1];
  const double Ip = bar.inertia_body(2, 2) + bar.mass * half * half;
  const double expected = 2 * kPi * std::sqrt(Ip / (bar.mass * 9.81 * half));
  // Downward zero crossings of the angle, one per period.
  std::vector<double> crossings;
  double last = joint_coordinate(joints[0], bodies), t = 0, worst = 0;
  while (crossings.size() < 3 && t < 10) {
    step(bodies, joints, h, 1.0 / h);
    t += h;
    const double x = joint_coordinate(joints[0], bodies);
    if (last > 0 && x <= 0) crossings.push_back(t - h * x / (x - last));
    last = x;
    worst = std::max(worst, max_error(joints, bodies));
  }
  ASSERT_EQ(crossings.size(), 3u);
  const double period = 0.5 * (crossings[2] - crossings[0]);
  std::printf("[ pendulum ] period %.5f s, expected %.5f s, max constraint error %.2e\n", period, expected, worst);
  EXPECT_NEAR(period, expected, 0.005 * expected);
  EXPECT_LT(worst, 1e-6);
}

// A hinge started 2 cm apart: Baumgarte (alpha h = 1, critically damped) shrinks the gap by 0.75 per step
// (the eigenvalues of the discrete drift recursion are 0 and 0.75), down to a floor set by the swing.
TEST(PenaltyJointsPhysics, BaumgarteRemovesDrift) {
  const double h = 0.01;
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, 0), Quat::Identity(), 0, BodyKind::Fixed));
  bodies.push_back(make_body(test::box(Vec3(0.04, 0.5, 0.04)), Vec3(0, 1.5, 0), Quat::Identity(), 1000));
  const std::vector<Joint> joints = {make_joint(JointType::Hinge, bodies, 0, 1, Vec3(0, 2, 0), Vec3(0, 0, 1), Vec3(0, 0, 1))};
  bodies[1].position += Vec3(0.02, 0, 0.01);
  const double e0 = max_error(joints, bodies);
  EXPECT_GT(e0, 0.015);
  for (int i = 0; i < 20; ++i) step(bodies, joints, h, 1.0 / h);
  EXPECT_LT(max_error(joints, bodies), 1.2 * std::pow(0.75, 20) * e0);
  for (int i = 0; i < 100; ++i) step(bodies, joints, h, 1.0 / h);
  EXPECT_LT(max_error(joints, bodies), 1e-5);
}

// The four-bar loop hanging from its fixed top bar, its bottom bar pushed sideways: it swings as a
// parallelogram (away from its flat, singular configurations); the joints hold with rank-deficient rows
// every step and the energy does not grow.
TEST(PenaltyJointsPhysics, FourBarLinkageSwings) {
  FourBar f = four_bar(true);
  f.bodies[2].linear_velocity = Vec3(1.0, 0, 0);  // the bottom bar sideways; Baumgarte makes the rest follow
  const double h = 0.005;
  for (int i = 0; i < 10; ++i) step(f.bodies, f.joints, h, 1.0 / h);
  const double e0 = energy(f.bodies);
  double worst = 0, highest = e0;
  for (int i = 0; i < 400; ++i) {
    const ConstrainedSolveInfo info = step(f.bodies, f.joints, h, 1.0 / h);
    EXPECT_EQ(info.rank, 17);
    worst = std::max(worst, max_error(f.joints, f.bodies));
    highest = std::max(highest, energy(f.bodies));
  }
  std::printf("[ four-bar ] max constraint error %.2e, energy %.6f -> at most %.6f J, bottom bar x %.3f m\n", worst, e0,
              highest, f.bodies[2].position.x());
  EXPECT_LT(worst, 1e-4);
  EXPECT_LT(highest, e0 + 1e-3 * std::abs(e0) + 1e-3);
  EXPECT_GT(std::abs(f.bodies[2].position.x()), 0.05) << "the linkage moved";
  for (const Body& b : f.bodies) EXPECT_LT(std::abs(b.position.z()), 1e-6) << "stays in its plane";
}

// Two anisotropic boxes welded (fixed joint: 9 rows, rank 6), on a slider (8 rows, rank 5) or, for
// reference, on a ball joint (3 rows), tumbling in zero gravity at 3 rad/s: the redundant rotation-match
// rows keep their exact rank off the constraint manifold, linear momentum is conserved, angular momentum too
// (exactly for the slider, whose rows all make torque-free pairs; to O(|C| lambda) for the point rows), and
// the joints hold. The constraint error is the scheme's O((h w)^2) (it falls 4x when h halves) and the
// energy grows by O(h) (0.26% over 2 s here, 0.12% at h / 2), the same with the ball joint's 3 rows: the
// semi-implicit step, not the redundant rows.
TEST(PenaltyJointsPhysics, WeldedAndSlidingPairsTumble) {
  for (JointType type : {JointType::Fixed, JointType::Slider, JointType::Ball}) {
    std::vector<Body> bodies;
    bodies.push_back(make_body(test::box(Vec3(0.3, 0.1, 0.2)), Vec3(0, 0, 0), Quat::Identity(), 700));
    bodies.push_back(make_body(test::box(Vec3(0.1, 0.4, 0.15)), Vec3(0.4, 0.3, 0), Quat::Identity(), 1200));
    const std::vector<Joint> joints = {
        make_joint(type, bodies, 0, 1, Vec3(0.3, 0.1, 0), Vec3(1, 1, 0).normalized(), Vec3(0, 0, 1))};
    // A common rigid rotation about the middle principal axis-ish, plus a slide for the slider.
    const Vec3 w(0.2, 3.0, 0.1), centre = Vec3(0.2, 0.15, 0);
    for (Body& b : bodies) {
      b.angular_velocity = w;
      b.linear_velocity = w.cross(b.position - centre);
    }
    if (type == JointType::Slider) bodies[1].linear_velocity += 0.3 * Vec3(1, 1, 0).normalized();
    const auto momentum = [&](Vec3& P, Vec3& L) {
      P.setZero();
      L.setZero();
      for (const Body& b : bodies) {
        P += b.mass * b.linear_velocity;
        L += b.position.cross(b.mass * b.linear_velocity) + b.inertia_world() * b.angular_velocity;
      }
    };
    Vec3 P0, L0;
    momentum(P0, L0);
    const double e0 = energy(bodies, 0.0);
    const double h = 0.005;
    double worst = 0, highest = e0;
    int min_rank = 100, max_rank = 0;
    for (int i = 0; i < 400; ++i) {
      const ConstrainedSolveInfo info = step(bodies, joints, h, 1.0 / h, Vec3::Zero());
      min_rank = std::min(min_rank, info.rank);
      max_rank = std::max(max_rank, info.rank);
      worst = std::max(worst, max_error(joints, bodies));
      highest = std::max(highest, energy(bodies, 0.0));
    }
    Vec3 P, L;
    momentum(P, L);
    std::printf("[ tumbling %s ] rank %d..%d, max constraint error %.2e, energy %.6f -> at most %.6f J, |dP| %.1e, "
                "|dL| %.1e\n", std::string(joint_type_name(type)).c_str(), min_rank, max_rank, worst, e0, highest,
                (P - P0).norm(), (L - L0).norm());
    const int rank = type == JointType::Fixed ? 6 : type == JointType::Slider ? 5 : 3;
    EXPECT_EQ(min_rank, rank) << joint_type_name(type);
    EXPECT_EQ(max_rank, rank) << joint_type_name(type);
    EXPECT_LT(worst, 1e-3) << joint_type_name(type);
    EXPECT_LT(highest, e0 * 1.005) << joint_type_name(type);
    EXPECT_LT((P - P0).norm(), 1e-9 * (1 + P0.norm()));
    EXPECT_LT((L - L0).norm(), (type == JointType::Slider ? 1e-9 : 1e-3) * L0.norm());
  }
}

// A slider from a fixed post, axis tilted in the vertical plane, with a servo: the coordinate settles at the
// target under gravity (minus the sag m g sin / k) and the block stays on the axis. Stiff gains at a large
// step stay stable (implicit PD, eq. 65).
TEST(PenaltyJointsPhysics, SliderServoReachesItsTarget) {
  for (const double stiffness : {2000.0, 1e7}) {
    std::vector<Body> bodies;
    bodies.push_back(make_body(test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 1, 0), Quat::Identity(), 0, BodyKind::Fixed));
    bodies.push_back(make_body(test::box(Vec3(0.2, 0.1, 0.1)), Vec3(0.5, 1.3, 0), Quat::Identity(), 500));
    const Vec3 axis = Vec3(1, 1, 0).normalized();
    std::vector<Joint> joints = {make_joint(JointType::Slider, bodies, 0, 1, Vec3(0.5, 1.3, 0), axis, Vec3(0, 0, 1))};
    Joint& j = joints[0];
    j.servo.enabled = true;
    j.servo.stiffness = stiffness;
    const double m = bodies[1].mass;
    j.servo.damping = 2 * std::sqrt(stiffness * m);  // critical
    j.servo.lower = -1;
    j.servo.upper = 0.3;
    set_servo_target(j.servo, 0.8);
    EXPECT_EQ(j.servo.target, 0.3) << "clamped to the range";
    const double h = 0.01;
    double worst = 0;
    for (int i = 0; i < 300; ++i) {
      step(bodies, joints, h, 1.0 / h);
      worst = std::max(worst, max_error(joints, bodies));
      ASSERT_TRUE(all_finite(bodies[1].position));
    }
    const double sag = m * 9.81 * axis.y() / stiffness;
    EXPECT_NEAR(joint_coordinate(j, bodies), 0.3 - sag, 1e-3 * (1 + sag)) << "stiffness " << stiffness;
    EXPECT_LT(bodies[1].linear_velocity.norm(), 1e-2);
    EXPECT_LT(worst, 1e-6);
  }
}

// A hinge servo (eq. 66) holds a bar at its target angle against gravity; a new target moves it there.
TEST(PenaltyJointsPhysics, HingeServoHoldsItsAngle) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, 0), Quat::Identity(), 0, BodyKind::Fixed));
  bodies.push_back(make_body(test::box(Vec3(0.5, 0.04, 0.04)), Vec3(0.5, 2, 0), Quat::Identity(), 1000));
  std::vector<Joint> joints = {make_joint(JointType::Hinge, bodies, 0, 1, Vec3(0, 2, 0), Vec3(0, 0, 1), Vec3(0, 0, 1))};
  joints[0].servo.enabled = true;
  joints[0].servo.target = 0.0;
  const double h = 0.01;
  for (int i = 0; i < 100; ++i) step(bodies, joints, h, 1.0 / h);
  EXPECT_NEAR(joint_coordinate(joints[0], bodies), 0.0, 1e-6) << "held level against gravity";
  set_servo_target(joints[0].servo, 0.6);
  for (int i = 0; i < 100; ++i) step(bodies, joints, h, 1.0 / h);
  EXPECT_NEAR(joint_coordinate(joints[0], bodies), 0.6, 1e-6);
  EXPECT_LT(bodies[1].angular_velocity.norm(), 1e-4);
}

// --- slider servo forces -------------------------------------------------------------------------------

// Wrench of the servo (slider force or hinge torque) at poses a, b.
Vec12 servo_wrench(const Joint& j, const BodyPose& a, const BodyPose& b) {
  PairForce pf;
  EXPECT_TRUE(servo_force(j, a, b, pf));
  return pf.wrench;
}

// The servo force's position and velocity gradients (pf, at a, b) against central differences of its wrench;
// positions perturbed at fixed angular momentum (pair_force.h).
void expect_servo_gradients(const Joint& j, const BodyPose& a, const BodyPose& b, const std::vector<Body>& bodies,
                            const PairForce& pf, const std::string& what) {
  const double eps = 1e-6;
  Mat12 fd_pos, fd_vel;
  for (int k = 0; k < 12; ++k) {
    BodyPose ap = a, bp = b, am = a, bm = b;
    perturb(ap, bp, k, eps, bodies[0], bodies[1], true);
    perturb(am, bm, k, -eps, bodies[0], bodies[1], true);
    fd_pos.col(k) = (servo_wrench(j, ap, bp) - servo_wrench(j, am, bm)) / (2 * eps);
    ap = a, bp = b, am = a, bm = b;
    BodyPose& p = k < 6 ? ap : bp;
    BodyPose& q = k < 6 ? am : bm;
    (k % 6 < 3 ? p.v : p.w)[k % 3] += eps;
    (k % 6 < 3 ? q.v : q.w)[k % 3] -= eps;
    fd_vel.col(k) = (servo_wrench(j, ap, bp) - servo_wrench(j, am, bm)) / (2 * eps);
  }
  EXPECT_LT((fd_pos - pf.d_pos).norm(), 1e-6 * (1 + pf.d_pos.norm())) << what << "\nfd\n" << fd_pos << "\nexact\n"
                                                                     << pf.d_pos;
  EXPECT_LT((fd_vel - pf.d_vel).norm(), 1e-6 * (1 + pf.d_vel.norm())) << what;
}

TEST(PenaltyJoints, SliderServoGradientsMatchFiniteDifferences) {
  Rng rng(kSeed);
  for (BodyKind kind_a : {BodyKind::Dynamic, BodyKind::Kinematic}) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<Body> bodies = random_pair(rng, kind_a);
      Joint j = random_joint(rng, JointType::Slider, bodies, true);
      j.servo.stiffness = rng.uniform(10, 1000);
      j.servo.damping = rng.uniform(1, 100);
      disturb(rng, bodies, 0.2);
      const BodyPose a = body_pose(bodies[0]), b = body_pose(bodies[1]);
      PairForce pf;
      ASSERT_TRUE(slider_servo_force(j, a, b, pf));
      EXPECT_EQ(pf.a, 0);
      EXPECT_EQ(pf.b, 1);
      expect_servo_gradients(j, a, b, bodies, pf, "kind " + std::to_string(int(kind_a)));
      // No net force or torque (about the origin) on the pair.
      const Vec3 Fa = pf.wrench.segment<3>(0), Ta = pf.wrench.segment<3>(3), Fb = pf.wrench.segment<3>(6),
                 Tb = pf.wrench.segment<3>(9);
      EXPECT_LT((Fa + Fb).norm(), 1e-9 * (1 + Fa.norm()));
      EXPECT_LT((Ta + Tb + a.x.cross(Fa) + b.x.cross(Fb)).norm(), 1e-9 * (1 + Fa.norm()));
    }
  }
  // The force pulls the coordinate toward the target.
  std::vector<Body> bodies = random_pair(rng);
  Joint j = random_joint(rng, JointType::Slider, bodies, true);
  j.servo.target = joint_coordinate(j, bodies) - 0.1;
  j.servo.damping = 0;
  PairForce pf;
  ASSERT_TRUE(slider_servo_force(j, body_pose(bodies[0]), body_pose(bodies[1]), pf));
  const Vec3 axis = bodies[0].rotation() * j.axis_a.normalized();
  EXPECT_NEAR(pf.wrench.segment<3>(6).dot(axis), -0.1 * j.servo.stiffness, 1e-9);
  // Not a slider, or no servo: nothing.
  j.servo.enabled = false;
  EXPECT_FALSE(slider_servo_force(j, body_pose(bodies[0]), body_pose(bodies[1]), pf));
  EXPECT_EQ(pf.wrench.norm(), 0.0);
}

// --- hinge servo torques --------------------------------------------------------------------------------

// On hinges that hold (b turned about the axis through the anchor; the gradient [0, -u, 0, u] of the angle is
// exact there), with random velocities, torques unsaturated and saturated.
TEST(PenaltyJoints, HingeServoTorqueGradientsMatchFiniteDifferences) {
  Rng rng(kSeed);
  for (BodyKind kind_a : {BodyKind::Dynamic, BodyKind::Kinematic}) {
    for (const bool saturated : {false, true}) {
      for (int trial = 0; trial < 10; ++trial) {
        std::vector<Body> bodies = random_pair(rng, kind_a);
        Joint j = random_joint(rng, JointType::Hinge, bodies, true);
        j.servo.stiffness = rng.uniform(10, 1000);
        j.servo.damping = rng.uniform(1, 100);
        j.servo.max_force = saturated ? 0.5 : std::numeric_limits<double>::infinity();
        // Turn b about the world hinge axis through the anchor: the hinge still holds.
        const Vec3 u = bodies[0].rotation() * j.axis_a.normalized();
        const Vec3 anchor = bodies[0].position + bodies[0].rotation() * j.anchor_a;
        const Quat turn(Eigen::AngleAxisd(rng.uniform(-1.0, 1.0), u));
        bodies[1].position = anchor + turn * (bodies[1].position - anchor);
        bodies[1].orientation = (turn * bodies[1].orientation).normalized();
        bodies[1].update_world_inertia();
        for (Body& b : bodies) {
          if (b.kind == BodyKind::Fixed) continue;
          b.linear_velocity = rng.vec(1.0);
          b.angular_velocity = rng.vec(2.0);
        }
        ASSERT_LT(joint_error(j, bodies), 1e-9);
        j.servo.coordinate = joint_coordinate(j, bodies) + 2 * kPi;  // one turn counted: the angle keeps it
        const BodyPose a = body_pose(bodies[0]), b = body_pose(bodies[1]);
        EXPECT_NEAR(hinge_servo_angle(j, a, b), j.servo.coordinate, 1e-9);
        PairForce pf;
        ASSERT_TRUE(hinge_servo_force(j, a, b, pf));
        const double f = -pf.wrench.segment<3>(9).dot(u);
        if (saturated) EXPECT_NEAR(std::abs(f), 0.5, 1e-12);
        else EXPECT_NEAR(f, j.servo.stiffness * (j.servo.coordinate - j.servo.target) +
                                j.servo.damping * u.dot(b.w - a.w), 1e-9 * (1 + std::abs(f)));
        expect_servo_gradients(j, a, b, bodies, pf,
                               "kind " + std::to_string(int(kind_a)) + " saturated " + std::to_string(saturated));
        // Torques only, equal and opposite.
        EXPECT_EQ(pf.wrench.segment<3>(0).norm() + pf.wrench.segment<3>(6).norm(), 0.0);
        EXPECT_LT((pf.wrench.segment<3>(3) + pf.wrench.segment<3>(9)).norm(), 1e-12 * (1 + std::abs(f)));
      }
    }
  }
  // A hinge servo without gains is a constraint, not a torque; a slider's servo is not a hinge's.
  std::vector<Body> bodies = random_pair(rng);
  Joint j = random_joint(rng, JointType::Hinge, bodies, true);
  PairForce pf;
  EXPECT_FALSE(hinge_servo_force(j, body_pose(bodies[0]), body_pose(bodies[1]), pf));
  EXPECT_EQ(penalty_joint_rows(j), 11);
  j.servo.stiffness = 10;
  EXPECT_TRUE(hinge_servo_force(j, body_pose(bodies[0]), body_pose(bodies[1]), pf));
  EXPECT_EQ(penalty_joint_rows(j), 5);
  Joint s = random_joint(rng, JointType::Slider, bodies, true);
  EXPECT_FALSE(hinge_servo_force(s, body_pose(bodies[0]), body_pose(bodies[1]), pf));
}

// --- assembly ------------------------------------------------------------------------------------------

// Columns of bodies without unknowns drop out; a kinematic body's velocity still enters Cdot and d; J is
// W scaled by the inverse mass and world inverse inertia.
TEST(PenaltyJoints, AssemblyPlacesColumnsByUnknownIndex) {
  Rng rng(kSeed);
  std::vector<Body> bodies = random_pair(rng, BodyKind::Kinematic);
  bodies.push_back(make_body(test::sphere(0.3), Vec3(3, 0, 0), Quat::Identity(), 900));
  std::vector<Joint> joints;
  joints.push_back(random_joint(rng, JointType::Ball, bodies));  // kinematic 0 - dynamic 1
  joints.push_back(make_joint(JointType::Hinge, bodies, 2, 1, Vec3(2, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)));
  disturb(rng, bodies, 0.1);
  const std::vector<int> unknown = {-1, 1, 0};  // body 2 first
  JointSystem sys;
  const double alpha = 50;
  ASSERT_TRUE(assemble_joint_system(joints, {1, 0}, bodies, unknown, 2, alpha, sys));
  ASSERT_EQ(sys.rows(), 8);
  EXPECT_EQ(sys.row_joint, (std::vector<int>{1, 1, 1, 1, 1, 0, 0, 0}));
  // Hinge (a = body 2 -> columns 0..5, b = body 1 -> columns 6..11).
  JointConstraint hinge, ball;
  const BodyPose p0 = body_pose(bodies[0]), p1 = body_pose(bodies[1]), p2 = body_pose(bodies[2]);
  ASSERT_TRUE(joint_constraint(joints[1], p2, p1, hinge));
  ASSERT_TRUE(joint_constraint(joints[0], p0, p1, ball));
  EXPECT_EQ((sys.W.block(0, 0, 5, 6) - hinge.Wa).norm(), 0.0);
  EXPECT_EQ((sys.W.block(0, 6, 5, 6) - hinge.Wb).norm(), 0.0);
  EXPECT_EQ(sys.W.block(5, 0, 3, 6).norm(), 0.0) << "the ball joint does not touch body 2";
  EXPECT_EQ((sys.W.block(5, 6, 3, 6) - ball.Wb).norm(), 0.0);
  const Mat3 inv_i1 = p1.inv_inertia;
  EXPECT_LT((sys.J.block(5, 6, 3, 3) - ball.Wb.leftCols<3>() * bodies[1].inv_mass).norm(), 1e-15);
  EXPECT_LT((sys.J.block(5, 9, 3, 3) - ball.Wb.rightCols<3>() * inv_i1).norm(), 1e-12);
  // The kinematic body's velocity is in Cdot and in d.
  EXPECT_LT((sys.Cdot.tail(3) - ball.rate(p0, p1)).norm(), 1e-14);
  EXPECT_GT(p0.v.norm(), 0.1);
  EXPECT_LT((sys.d.tail(3) - baumgarte_bias(ball, p0, p1, alpha)).norm(), 1e-12);
  // Joints whose bodies both lack unknowns add nothing; a bad index is an error.
  ASSERT_TRUE(assemble_joint_system(joints, {0}, bodies, {-1, -1, 0}, 1, alpha, sys));
  EXPECT_EQ(sys.rows(), 0);
  std::string why;
  EXPECT_FALSE(assemble_joint_system(joints, {5}, bodies, unknown, 2, alpha, sys, &why));
  EXPECT_FALSE(why.empty());
}

// A hinge motor of practically unbounded torque (1e30 N m) against the hinge's limit, at 1/30 to 1/1000 s
// (motor_force): the motor aims at the rate the shared limit rows allow (joints/joint.h), so at the bound it
// holds the door there instead of outweighing the limit's finite spring (it drove it 0.3 rad past).
TEST(PenaltyJointsPhysics, AnUnboundedMotorStopsAtTheLimit) {
  for (double h : {1.0 / 30, 1.0 / 240, 1.0 / 1000}) {
    World w;
    const int post = test::add_body(w, test::box(Vec3(0.1, 1, 0.1)), Vec3(-0.65, 1.07, 0), 0.0, Quat::Identity(), 0,
                                    BodyKind::Fixed);
    const int door = test::add_body(w, test::box(Vec3(0.5, 1, 0.025)), Vec3(0, 1.07, 0), 20.0);
    Joint j = make_joint(JointType::Hinge, w.bodies, post, door, Vec3(-0.5, 1.07, 0), Vec3::UnitY(), Vec3::UnitX());
    j.limit = JointLimit{true, 0.0, 0.5};
    j.motor = JointMotor{true, 1.0, 1e30};
    w.joints.push_back(j);
    std::string error;
    ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
    w.settings.dt = h;
    double most = 0.0;
    for (int s = 0; s < int(1.5 / h); ++s) {
      ASSERT_TRUE(w.step().ok);
      most = std::max(most, joint_coordinate(w.joints[0], w.bodies));
    }
    EXPECT_LT(most, 0.5 + 0.02) << "h " << h;
    EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.5, 0.02) << "h " << h;
  }
}

// How hard a motor presses a contact of a body it drives (MotorPush, our addition): held still, the damper pushes
// with c |speed| = 100 I / h |speed| (I = 1 / (g^T M^-1 g), here the door's moment about its centre's vertical,
// as motor_force), at most max_force; a point at 0.7 m from the hinge's axis carries the torque over its lever,
// tau / 0.7, where its motion runs straight into the contact, the part along the normal of the force along its
// motion where the normal is oblique, and none where the motion leaves the contact, runs across it, or the point
// lies on the axis.
TEST(PenaltyJoints, AMotorPressesAContactByItsTorqueOverTheLever) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.1, 1, 0.1)), Vec3(-0.65, 0, 0), Quat::Identity(), 0, BodyKind::Fixed));
  bodies.push_back(make_body(test::box(Vec3(0.5, 1, 0.025)), Vec3(0, 0, 0), Quat::Identity(), 20.0));
  Joint j = make_joint(JointType::Hinge, bodies, 0, 1, Vec3(-0.5, 0, 0), Vec3::UnitY(), Vec3::UnitX());
  const double h = 0.01;
  j.motor = JointMotor{true, 2.0, 1e30};
  MotorPush push;
  ASSERT_TRUE(motor_push(j, bodies, h, kMotorGain, push));
  const double I = 1.0 / bodies[1].inv_inertia_world(1, 1);
  EXPECT_NEAR(push.force, kMotorGain * I / h * 2.0, 1e-9 * push.force);

  j.motor = JointMotor{true, 1.0, 50.0};  // bounded: 50 N m
  ASSERT_TRUE(motor_push(j, bodies, h, kMotorGain, push));
  EXPECT_DOUBLE_EQ(push.force, 50.0);
  // A positive rate turns the door from +x toward -z (about +y).
  const Vec3 p(0.2, 0.3, 0.0);  // 0.7 m from the axis
  EXPECT_NEAR(push.load(1, p, -Vec3::UnitZ()), 50.0 / 0.7, 1e-9);
  EXPECT_NEAR(push.load(1, p, Vec3(1, 0, -1).normalized()), 50.0 / 0.7 / std::sqrt(2.0), 1e-9);
  EXPECT_EQ(push.load(1, p, Vec3::UnitZ()), 0.0);   // the motion leaves the contact
  EXPECT_EQ(push.load(1, p, Vec3::UnitX()), 0.0);   // across the motion
  EXPECT_EQ(push.load(1, Vec3(-0.5, 0.4, 0), -Vec3::UnitZ()), 0.0);  // on the axis
  EXPECT_EQ(push.load(2, p, -Vec3::UnitZ()), 0.0);  // not a body of the joint
  j.motor = JointMotor{true, -1.0, 50.0};  // the other way
  ASSERT_TRUE(motor_push(j, bodies, h, kMotorGain, push));
  EXPECT_NEAR(push.load(1, p, Vec3::UnitZ()), 50.0 / 0.7, 1e-9);
  EXPECT_EQ(push.load(1, p, -Vec3::UnitZ()), 0.0);
  j.motor = JointMotor{true, 0.0, 50.0};  // a motor holding still pushes with nothing
  EXPECT_FALSE(motor_push(j, bodies, h, kMotorGain, push));
}

// A slider motor of practically unbounded force (1e30 N) drives a 10 cm box of 1 kg at 0.5 m/s into a fixed wall,
// no gravity: at every step from 1/30 to 1/1000 s the contact holds it at the physical model's depth (the box's
// penetration, 0.5 mm here, at most twice that at its deepest) instead of at the depth where the contact's spring
// sized by the box's weight balances the motor's damper, 100 m v / (h K) (0.15 m at 1/60 s: through the wall).
TEST(PenaltyJointsPhysics, AnUnboundedSliderMotorStopsAtAWall) {
  for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 100, 1.0 / 240, 1.0 / 500, 1.0 / 1000}) {
    World w;
    w.settings.gravity = Vec3::Zero();
    w.settings.dt = h;
    const int base = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(-1, 0, 0), 0.0, Quat::Identity(), 0,
                                    BodyKind::Fixed);
    const int box = test::add_body(w, test::box(Vec3(0.05, 0.05, 0.05)), Vec3(0, 0, 0), 1000.0);
    test::add_body(w, test::box(Vec3(0.1, 0.5, 0.5)), Vec3(0.25, 0, 0), 0.0, Quat::Identity(), 0, BodyKind::Fixed);
    Joint j = make_joint(JointType::Slider, w.bodies, base, box, Vec3(0, 0, 0), Vec3::UnitX(), Vec3::UnitY());
    j.motor = JointMotor{true, 0.5, 1e30};
    w.joints.push_back(j);
    std::string error;
    ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
    double deepest = 0.0;
    for (int s = 0; s < int(std::lround(1.0 / h)); ++s) {
      ASSERT_TRUE(w.step().ok) << "h " << h;
      deepest = std::max(deepest, w.bodies[size_t(box)].position.x() + 0.05 - 0.15);
    }
    const double depth = w.bodies[size_t(box)].position.x() + 0.05 - 0.15;
    EXPECT_LT(deepest, 2.0 * 5e-4 + 0.5 * h) << "h " << h;  // at most one step's travel at the first touch
    EXPECT_GT(depth, 0.0) << "h " << h;
    EXPECT_LT(depth, 2.0 * 5e-4) << "h " << h;
  }
}

// The conditions the physics must hold under: steps 1/30 .. 1/1000 s, sizes 2 cm .. 4 m, masses 10 g .. 100 t.
constexpr double kSweepSteps[] = {1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 250, 1.0 / 500, 1.0 / 1000};
constexpr double kSweepSizes[] = {0.02, 0.1, 1.0, 4.0};
constexpr double kSweepMasses[] = {0.01, 1.0, 1e5};

// A velocity motor bounded by max_force (motor_force) on a cube of edge L and mass m hinged through its centre,
// at every step, size and mass: its torque I a (I = m L^2 / 6, a = 12 / L rad/s^2) spins it up at a, so the
// rate is a t until it reaches the speed 3 / sqrt(L) rad/s (0.25 sqrt(L) s), within the one step's a h, and it
// never passes the speed (a backward Euler damper does not overshoot its target rate); 10 steps later it turns
// at the speed to 0.1%. The bound was decided on the damper's force at the start of the step, gain + 1 times its
// force at the end: a motor one step short of its speed pushed its whole bound for the whole step and swung
// between the speed and h a above it (40 instead of 21.2 rad/s at 1/30 s, 2 cm).
TEST(PenaltyJointsPhysics, ABoundedMotorReachesItsSpeedWithoutPassingIt) {
  for (double h : kSweepSteps)
    for (double L : kSweepSizes)
      for (double m : kSweepMasses) {
        World w;
        w.settings.gravity = Vec3::Zero();
        const int frame = test::add_body(w, test::box(Vec3::Constant(0.1 * L)), Vec3(0, 0, -2 * L), 0.0,
                                         Quat::Identity(), 0, BodyKind::Fixed);
        const int cube = test::add_body(w, test::box(Vec3::Constant(0.5 * L)), Vec3::Zero(), m / (L * L * L));
        Joint j = make_joint(JointType::Hinge, w.bodies, frame, cube, Vec3::Zero(), Vec3::UnitZ(), Vec3::UnitX());
        const double I = m * L * L / 6.0, a = 12.0 / L, speed = 3.0 / std::sqrt(L);
        j.motor = JointMotor{true, speed, a * I};
        w.joints.push_back(j);
        std::string error;
        ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
        w.settings.dt = h;
        const int reach = int(std::ceil(speed / (a * h)));
        double most = 0.0, off = 0.0;
        for (int s = 1; s <= reach + 10; ++s) {
          ASSERT_TRUE(w.step().ok);
          const double rate = joint_rate(w.joints[0], w.bodies);
          most = std::max(most, rate);
          off = std::max(off, std::abs(rate - std::min(a * s * h, speed)));
        }
        const std::string at = "h " + std::to_string(h) + ", L " + std::to_string(L) + ", m " + std::to_string(m);
        EXPECT_LE(most, speed * (1 + 1e-6)) << at;
        EXPECT_LE(off, a * h * (1 + 1e-6)) << at;
        EXPECT_NEAR(joint_rate(w.joints[0], w.bodies), speed, 1e-3 * speed) << at;
      }
}

// A joint limit (limit_gains, limit_force) holding a bar of length L and mass m hinged at one end, released level
// onto its lower limit at -0.5 rad, at every step, size and mass. Its stiffness is limit_stiffness I / h^2 with I
// the bar's inertia about the hinge, m L^2 (1/4 + 1.01/12), so its weight's torque tau = m g (L/2) cos(0.5) rests
// it tau h^2 / (limit_stiffness I) past the bound (7e-4 rad at 1/30 s, 2 cm; a fixed 1e5 N m/rad let a 100 t bar
// of 1 m through to -1 rad). Critically damped, it stops the bar within about a step of its impact rate w
// (I w^2 / 2 = m g (L/2) sin 0.5) past the bound and does not throw it back off the limit.
TEST(PenaltyJointsPhysics, ALimitHoldsABarAtTheDepthOfItsWeightAtEveryScale) {
  for (double h : kSweepSteps)
    for (double L : kSweepSizes)
      for (double m : kSweepMasses) {
        World w;
        const int frame = test::add_body(w, test::box(Vec3::Constant(0.05 * L)), Vec3(0, 0, -L), 0.0,
                                         Quat::Identity(), 0, BodyKind::Fixed);
        const int bar = test::add_body(w, test::box(Vec3(0.5 * L, 0.05 * L, 0.05 * L)), Vec3(0.5 * L, 0, 0),
                                       m / (0.01 * L * L * L));
        Joint j = make_joint(JointType::Hinge, w.bodies, frame, bar, Vec3::Zero(), Vec3::UnitZ(), Vec3::UnitX());
        j.limit = JointLimit{true, -0.5, 0.5};
        w.joints.push_back(j);
        std::string error;
        ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
        w.settings.dt = h;
        const double stiffness = *w.solver().params().get("limit_stiffness");
        const double g = 9.81, I = m * L * L * (0.25 + 1.01 / 12.0);
        const double depth = m * g * 0.5 * L * std::cos(0.5) * h * h / (stiffness * I);
        const double impact = std::sqrt(m * g * L * std::sin(0.5) / I);
        double lowest = 0.0, after = -kPi;  // the deepest angle, and the highest once it reached the bound
        for (int s = 0; s < int(std::ceil(2.0 * std::sqrt(L) / h)); ++s) {
          ASSERT_TRUE(w.step().ok);
          const double x = joint_coordinate(w.joints[0], w.bodies);
          if (lowest <= -0.5) after = std::max(after, x);
          lowest = std::min(lowest, x);
        }
        const std::string at = "h " + std::to_string(h) + ", L " + std::to_string(L) + ", m " + std::to_string(m);
        EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), -0.5 - depth, 0.01 * depth + 1e-9) << at;
        EXPECT_GT(lowest, -0.5 - depth - 1.5 * impact * h) << at;
        EXPECT_LT(after, -0.5 + 1e-9) << at;
      }
}

// The slider's twin: a cube of edge L and mass m on a vertical slider, dropped from L / 2 above its lower limit,
// at every step, size and mass. The limit holds the cube's whole mass (I = m along the free axis), so its weight
// rests it g h^2 / limit_stiffness below the bound (0.1 mm at 1/30 s; whatever the mass and size), and the cube
// stops within about a step of its impact speed sqrt(g L) past the bound and is not thrown back up.
TEST(PenaltyJointsPhysics, ASliderLimitHoldsACubeAtTheDepthOfItsWeightAtEveryScale) {
  for (double h : kSweepSteps)
    for (double L : kSweepSizes)
      for (double m : kSweepMasses) {
        World w;
        const int rail = test::add_body(w, test::box(Vec3::Constant(0.05 * L)), Vec3(0, 0, -2 * L), 0.0,
                                        Quat::Identity(), 0, BodyKind::Fixed);
        const int cube = test::add_body(w, test::box(Vec3::Constant(0.5 * L)), Vec3::Zero(), m / (L * L * L));
        Joint j = make_joint(JointType::Slider, w.bodies, rail, cube, Vec3::Zero(), Vec3::UnitY(), Vec3::UnitX());
        j.limit = JointLimit{true, -0.5 * L, 0.5 * L};
        w.joints.push_back(j);
        std::string error;
        ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
        w.settings.dt = h;
        const double stiffness = *w.solver().params().get("limit_stiffness");
        const double g = 9.81, depth = g * h * h / stiffness, impact = std::sqrt(g * L);
        double lowest = 0.0, after = -L;  // the lowest position, and the highest once it reached the bound
        for (int s = 0; s < int(std::ceil(2.0 * std::sqrt(L) / h)); ++s) {
          ASSERT_TRUE(w.step().ok);
          const double x = joint_coordinate(w.joints[0], w.bodies);
          if (lowest <= -0.5 * L) after = std::max(after, x);
          lowest = std::min(lowest, x);
        }
        const std::string at = "h " + std::to_string(h) + ", L " + std::to_string(L) + ", m " + std::to_string(m);
        EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), -0.5 * L - depth, 0.01 * depth + 1e-12 * L) << at;
        EXPECT_GT(lowest, -0.5 * L - depth - 1.5 * impact * h) << at;
        EXPECT_LT(after, -0.5 * L + 1e-12 * L) << at;
      }
}

}  // namespace
}  // namespace cl::implicit_penalty
