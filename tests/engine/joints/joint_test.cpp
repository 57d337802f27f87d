// Joints (thesis sect. 4.8-4.11, signs corrected): Jacobians against finite differences of independently written
// constraint functions, the sign of every error term (ERP-only steps shrink the error), momentum conservation of
// J^T lambda, and physics: pendulum period, motors, limits under load, long-run error, sliders.
#include "joints/joint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/builders.h"
#include "support/random.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {
namespace {

using test::kPi;
constexpr JointType kJointTypes[] = {JointType::Ball,   JointType::Hinge,     JointType::Slider,
                                     JointType::Hinge2, JointType::Universal, JointType::Fixed};

std::string type_name(JointType t) { return std::string(joint_type_name(t)); }

// --- random states -------------------------------------------------------------------------------------

using test::make_body;
using test::Rng;

constexpr uint32_t kJointSeed = 12345;  // of every random state below

// Two dynamic boxes of different, anisotropic sizes at random poses.
std::vector<Body> random_bodies(Rng& rng) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::box(Vec3(0.3, 0.5, 0.2)), rng.vec(2.0), rng.quat(), 700));
  bodies.push_back(make_body(test::box(Vec3(0.6, 0.2, 0.4)), rng.vec(2.0), rng.quat(), 1300));
  return bodies;
}

// A second axis at least 30 degrees from the first.
Vec3 second_axis(Rng& rng, const Vec3& s1) {
  Vec3 s2;
  do s2 = rng.unit();
  while (std::abs(s1.dot(s2)) > std::cos(30.0 * kPi / 180.0));
  return s2;
}

void randomize_velocities(Rng& rng, std::vector<Body>& bodies) {
  for (Body& b : bodies) {
    b.linear_velocity = rng.vec(1.0);
    b.angular_velocity = rng.vec(1.0);
  }
}

// Moves every body along its current velocity for `t` seconds (exact for constant velocities).
std::vector<Body> advanced(std::vector<Body> bodies, double t) {
  for (Body& b : bodies) {
    b.position += t * b.linear_velocity;
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity, t);
    b.update_world_inertia();
  }
  return bodies;
}

// d/dt of f(bodies) along the bodies' velocities, by central differences.
template <class F>
double rate_of(const std::vector<Body>& bodies, F f, double eps = 1e-6) {
  return (f(advanced(bodies, eps)) - f(advanced(bodies, -eps))) / (2 * eps);
}

double row_value(const JointRow& r, const std::vector<Body>& bodies) {
  const Body& A = bodies[size_t(r.a)];
  const Body& B = bodies[size_t(r.b)];
  return r.ja_lin.dot(A.linear_velocity) + r.ja_ang.dot(A.angular_velocity) + r.jb_lin.dot(B.linear_velocity) +
         r.jb_ang.dot(B.angular_velocity);
}

// --- a tiny reference solver ---------------------------------------------------------------------------

// Applies u += M^-1 J^T lambda for one row.
void apply_impulse(const JointRow& r, double lambda, std::vector<Body>& bodies) {
  Body& A = bodies[size_t(r.a)];
  Body& B = bodies[size_t(r.b)];
  A.linear_velocity += A.inv_mass * lambda * r.ja_lin;
  A.angular_velocity += A.inv_inertia_world * (lambda * r.ja_ang);
  B.linear_velocity += B.inv_mass * lambda * r.jb_lin;
  B.angular_velocity += B.inv_inertia_world * (lambda * r.jb_ang);
}

// Projected Gauss-Seidel over the rows until converged (independent of the engine's solver); returns lambda.
std::vector<double> solve_rows(const std::vector<JointRow>& rows, std::vector<Body>& bodies, int sweeps = 500) {
  std::vector<double> lambda(rows.size(), 0.0);
  std::vector<double> inv_diag(rows.size(), 0.0);
  for (size_t k = 0; k < rows.size(); ++k) {
    const JointRow& r = rows[k];
    const Body& A = bodies[size_t(r.a)];
    const Body& B = bodies[size_t(r.b)];
    const double d = A.inv_mass * r.ja_lin.squaredNorm() + r.ja_ang.dot(A.inv_inertia_world * r.ja_ang) +
                     B.inv_mass * r.jb_lin.squaredNorm() + r.jb_ang.dot(B.inv_inertia_world * r.jb_ang) + r.cfm;
    inv_diag[k] = d > 0 ? 1.0 / d : 0.0;
  }
  for (int it = 0; it < sweeps; ++it) {
    for (size_t k = 0; k < rows.size(); ++k) {
      const JointRow& r = rows[k];
      const double w = row_value(r, bodies) - r.target + r.cfm * lambda[k];
      const double next = std::clamp(lambda[k] - inv_diag[k] * w, r.lo, r.hi);
      apply_impulse(r, next - lambda[k], bodies);
      lambda[k] = next;
    }
  }
  return lambda;
}

// --- independent constraint functions ------------------------------------------------------------------

// What the joint was made from, kept by the test to write the constraint functions without joint.cpp.
struct JointSetup {
  JointType type;
  std::vector<Body> bodies0;  // poses at creation
  Vec3 anchor, s1, s2;
  double x0 = 0.0;
};

Mat3 carried(const Body& now, const Body& then) { return now.rotation() * then.rotation().transpose(); }

// World anchor carried by body i.
Vec3 anchor_of(const JointSetup& s, const std::vector<Body>& bodies, int i) {
  const Body& now = bodies[size_t(i)];
  const Body& then = s.bodies0[size_t(i)];
  return now.position + carried(now, then) * (s.anchor - then.position);
}

// The world rotation of b relative to a since creation, as a rotation vector (2 vec of the quaternion).
Vec3 relative_rotation_vector(const JointSetup& s, const std::vector<Body>& bodies) {
  const Quat da = bodies[0].orientation * s.bodies0[0].orientation.conjugate();
  const Quat db = bodies[1].orientation * s.bodies0[1].orientation.conjugate();
  Quat d = db * da.conjugate();
  if (d.w() < 0) d.coeffs() = -d.coeffs();
  return 2.0 * d.vec();
}

// Checks J u against -dC/dt for each equality row (row value = (bearing of a) - (bearing of b), thesis sect. 4.9),
// at the satisfied creation pose with random velocities; the row's own direction (unit) names C.
void check_equality_rows(const JointSetup& s, const std::vector<JointRow>& rows, const std::vector<Body>& bodies,
                         double tol) {
  auto ball = [&](const Vec3& n) {
    return [&s, n](const std::vector<Body>& b) { return n.dot(anchor_of(s, b, 1) - anchor_of(s, b, 0)); };
  };
  auto rotation = [&](const Vec3& n) {
    return [&s, n](const std::vector<Body>& b) { return n.dot(relative_rotation_vector(s, b)); };
  };
  int k = 0;
  auto check = [&](const JointRow& r, auto c, const std::string& what) {
    SCOPED_TRACE(type_name(s.type) + " row " + std::to_string(k) + " (" + what + ")");
    EXPECT_EQ(r.kind, kRowEquality);
    EXPECT_LE(r.lo, -1e100);
    EXPECT_GE(r.hi, 1e100);
    EXPECT_NEAR(row_value(r, bodies), -rate_of(bodies, c), tol);
  };
  auto check_ball = [&]() {
    for (int i = 0; i < 3; ++i, ++k) {
      const Vec3 n = rows[size_t(k)].ja_lin;
      EXPECT_NEAR(n.norm(), 1.0, 1e-12);
      check(rows[size_t(k)], ball(n), "anchor");
    }
  };
  auto check_rotation = [&]() {
    for (int i = 0; i < 3; ++i, ++k) {
      const Vec3 n = rows[size_t(k)].ja_ang;
      EXPECT_NEAR(n.norm(), 1.0, 1e-12);
      EXPECT_EQ(rows[size_t(k)].ja_lin, Vec3::Zero());
      check(rows[size_t(k)], rotation(n), "orientation");
    }
  };

  switch (s.type) {
    case JointType::Ball: check_ball(); break;
    case JointType::Hinge:
      check_ball();
      // C = t . (s_a x s_b) with t perpendicular to the axis.
      for (int i = 0; i < 2; ++i, ++k) {
        const Vec3 t = rows[size_t(k)].ja_ang;
        EXPECT_NEAR(t.norm(), 1.0, 1e-12);
        EXPECT_NEAR(t.dot(s.s1), 0.0, 1e-12);
        check(rows[size_t(k)], [&s, t](const std::vector<Body>& b) {
          const Vec3 sa = carried(b[0], s.bodies0[0]) * s.s1, sb = carried(b[1], s.bodies0[1]) * s.s1;
          return t.dot(sa.cross(sb));
        }, "axis");
      }
      break;
    case JointType::Slider:
      check_rotation();
      // C = alpha C_a + (1 - alpha) C_b, C_i = t_i . (c - off_i) with t and the initial offset carried by
      // body i, alpha = m_a / (m_a + m_b): the row with alpha (c x t) on a and (1 - alpha) (c x t) on b is
      // exactly its derivative (thesis sect. 4.9 slider rows 4-5 have alpha = 1/2).
      for (int i = 0; i < 2; ++i, ++k) {
        const Vec3 t = rows[size_t(k)].ja_lin;
        EXPECT_NEAR(t.norm(), 1.0, 1e-12);
        EXPECT_NEAR(t.dot(s.s1), 0.0, 1e-12);
        const double wa = s.bodies0[0].inv_mass, wb = s.bodies0[1].inv_mass;
        const double alpha = wb / (wa + wb);
        check(rows[size_t(k)], [&s, t, alpha](const std::vector<Body>& b) {
          const Vec3 c = b[1].position - b[0].position;
          const Vec3 c0 = s.bodies0[1].position - s.bodies0[0].position;
          double sum = 0;
          for (int j = 0; j < 2; ++j) {
            const Mat3 r = carried(b[size_t(j)], s.bodies0[size_t(j)]);
            sum += (j == 0 ? alpha : 1 - alpha) * (r * t).dot(c - r * c0);
          }
          return sum;
        }, "across the axis");
      }
      break;
    case JointType::Hinge2:
    case JointType::Universal: {
      check_ball();
      // C = angle between the first axis (carried by a) and the second (carried by b).
      const Vec3 u = rows[size_t(k)].ja_ang;
      EXPECT_NEAR(u.norm(), 1.0, 1e-12);
      EXPECT_NEAR(u.dot(s.s1), 0.0, 1e-12);
      EXPECT_NEAR(u.dot(s.s2), 0.0, 1e-12);
      check(rows[size_t(k)], [&s](const std::vector<Body>& b) {
        const Vec3 sa = carried(b[0], s.bodies0[0]) * s.s1, sb = carried(b[1], s.bodies0[1]) * s.s2;
        return std::atan2(sa.cross(sb).norm(), sa.dot(sb));
      }, "angle between the axes");
      ++k;
      break;
    }
    case JointType::Fixed:
      check_ball();
      check_rotation();
      break;
  }
  EXPECT_EQ(k, joint_type_equality_rows(s.type));
}

// The relative spin of b about the second axis: beta in w_b - w_a = alpha s_1 + beta s_2 + gamma (s_1 x s_2).
double spin_about_second_axis(const JointSetup& s, const std::vector<Body>& bodies) {
  const Vec3 sa = carried(bodies[0], s.bodies0[0]) * s.s1, sb = carried(bodies[1], s.bodies0[1]) * s.s2;
  Mat3 basis;
  basis << sa, sb, sa.cross(sb);
  return basis.fullPivLu().solve(bodies[1].angular_velocity - bodies[0].angular_velocity)(1);
}

JointSetup random_joint_setup(Rng& rng, JointType type, Joint& joint) {
  JointSetup s;
  s.type = type;
  s.bodies0 = random_bodies(rng);
  s.anchor = 0.5 * (s.bodies0[0].position + s.bodies0[1].position) + rng.vec(0.5);
  s.s1 = rng.unit();
  s.s2 = second_axis(rng, s.s1);
  s.x0 = joint_type_has_coordinate(type) ? rng.uniform(-1.0, 1.0) : 0.0;
  joint = make_joint(type, s.bodies0, 0, 1, s.anchor, s.s1, s.s2, s.x0);
  return s;
}

// --- 1. Jacobians against finite differences -----------------------------------------------------------

TEST(JointJacobian, EqualityRowsAreTheDerivativeOfTheConstraintFunctions) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    for (int trial = 0; trial < 20; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      std::vector<Body> bodies = s.bodies0;
      randomize_velocities(rng, bodies);
      EXPECT_LT(joint_error(j, bodies), 1e-12) << type_name(type);
      std::vector<JointRow> rows;
      joint_rows(j, 7, bodies, 0.01, rows, JointRowForm::Physical);
      ASSERT_EQ(int(rows.size()), joint_type_equality_rows(type)) << type_name(type);
      for (const JointRow& r : rows) {
        EXPECT_EQ(r.a, 0);
        EXPECT_EQ(r.b, 1);
        EXPECT_EQ(r.joint, 7);
        EXPECT_NEAR(r.target, 0.0, 1e-12) << "no error at creation";
      }
      check_equality_rows(s, rows, bodies, 1e-6);
      if (testing::Test::HasFailure()) return;
    }
  }
}

// Limit and motor rows measure the coordinate's rate: J u = dx/dt for the lower limit and the motor (hinge,
// slider), -dx/dt for the upper limit; the hinge-2 / universal motor measures the spin about the second axis.
TEST(JointJacobian, LimitAndMotorRowsMeasureTheCoordinateRate) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    if (!joint_type_has_coordinate(type)) continue;
    for (int trial = 0; trial < 20; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      j.limit = JointLimit{true, s.x0, s.x0};  // both bounds active
      j.motor = JointMotor{true, 1.5, 10.0};
      std::vector<Body> bodies = s.bodies0;
      randomize_velocities(rng, bodies);
      if (type == JointType::Slider) bodies[1].angular_velocity = bodies[0].angular_velocity;  // see below
      EXPECT_NEAR(joint_coordinate(j, bodies), s.x0, 1e-12) << type_name(type);
      std::vector<JointRow> rows;
      const double h = 0.01;
      joint_rows(j, 0, bodies, h, rows, JointRowForm::Physical);
      const int n = joint_type_equality_rows(type);
      ASSERT_EQ(int(rows.size()), n + 3) << type_name(type);
      const JointRow &lower = rows[size_t(n)], &upper = rows[size_t(n + 1)], &motor = rows[size_t(n + 2)];
      SCOPED_TRACE(type_name(type));
      EXPECT_EQ(lower.kind, kRowLimit);
      EXPECT_EQ(upper.kind, kRowLimit);
      EXPECT_EQ(motor.kind, kRowMotor);
      for (int k = 0; k < n + 3; ++k) EXPECT_EQ(rows[size_t(k)].slot, k);
      // Without the lower limit row, the others keep their slots.
      Joint upper_only = j;
      upper_only.limit = JointLimit{true, s.x0 - 1.0, s.x0};
      std::vector<JointRow> fewer;
      joint_rows(upper_only, 0, bodies, h, fewer);
      ASSERT_EQ(int(fewer.size()), n + 2);
      EXPECT_EQ(fewer[size_t(n)].slot, n + 1);
      EXPECT_EQ(fewer[size_t(n + 1)].slot, n + 2);
      EXPECT_LT(n + 2, kMaxJointRows);
      EXPECT_EQ(lower.lo, 0.0);
      EXPECT_EQ(upper.lo, 0.0);
      EXPECT_NEAR(motor.lo, -10.0 * h, 1e-15);
      EXPECT_NEAR(motor.hi, 10.0 * h, 1e-15);
      // A motor on the limited coordinate aims at a rate the limits allow (here, held between both bounds).
      if (type == JointType::Hinge2 || type == JointType::Universal) EXPECT_EQ(motor.target, 1.5);
      else EXPECT_EQ(motor.target, std::clamp(1.5, std::min(lower.target, -upper.target), -upper.target));
      EXPECT_NEAR(lower.target, 0.0, 1e-12);
      EXPECT_NEAR(upper.target, 0.0, 1e-12);
      // (The slider's displacement rate is exact while the orientation is kept: w_a = w_b, thesis sect. 4.10-4.11.)
      const double rate = rate_of(bodies, [&j](const std::vector<Body>& b) { return joint_coordinate(j, b); });
      EXPECT_NEAR(row_value(lower, bodies), rate, 1e-6);
      EXPECT_NEAR(row_value(upper, bodies), -rate, 1e-6);
      const double motor_rate =
          (type == JointType::Hinge2 || type == JointType::Universal) ? spin_about_second_axis(s, bodies) : rate;
      EXPECT_NEAR(row_value(motor, bodies), motor_rate, 1e-6);
      EXPECT_NEAR(joint_rate(j, bodies), motor_rate, 1e-6);
      if (testing::Test::HasFailure()) return;
    }
  }
}

// LimitRows::Always adds a limit's row however far the bound is, with the target that lets the coordinate reach
// the bound at the end of the step and no further (-(x - lower) / h); Near leaves a far bound out.
TEST(JointRows, SpeculativeLimitRowsAreThereAtAnyDistance) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    if (!joint_type_has_coordinate(type)) continue;
    SCOPED_TRACE(type_name(type));
    Joint j;
    const JointSetup s = random_joint_setup(rng, type, j);
    j.limit = JointLimit{true, s.x0 - 0.7, s.x0 + 0.9};
    const double h = 0.01;
    std::vector<JointRow> near, always;
    joint_rows(j, 0, s.bodies0, h, near, JointRowForm::Physical);
    joint_rows(j, 0, s.bodies0, h, always, JointRowForm::Physical, LimitRows::Always);
    const int n = joint_type_equality_rows(type);
    ASSERT_EQ(int(near.size()), n);
    ASSERT_EQ(int(always.size()), n + 2);
    EXPECT_EQ(always[size_t(n)].kind, kRowLimit);
    EXPECT_EQ(always[size_t(n)].slot, n);
    EXPECT_NEAR(always[size_t(n)].target, -0.7 / h, 1e-9);
    EXPECT_EQ(always[size_t(n + 1)].slot, n + 1);
    EXPECT_NEAR(always[size_t(n + 1)].target, -0.9 / h, 1e-9);
  }
}

// Away from the satisfied pose, the rows whose constraint function is exact everywhere still match: the
// anchor rows, the hinge-2/universal angle row, and their first-axis rate.
TEST(JointJacobian, ExactRowsMatchAlsoWhenTheJointIsViolated) {
  Rng rng(kJointSeed);
  for (JointType type : {JointType::Ball, JointType::Hinge2, JointType::Universal, JointType::Fixed}) {
    for (int trial = 0; trial < 20; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      std::vector<Body> bodies = s.bodies0;
      bodies[1].position += rng.vec(0.2);
      bodies[1].orientation = Quat(Eigen::AngleAxisd(0.3, rng.unit())) * bodies[1].orientation;
      bodies[1].update_world_inertia();
      randomize_velocities(rng, bodies);
      if (joint_type_has_coordinate(type)) {
        const double x = joint_coordinate(j, bodies);
        j.limit = JointLimit{true, x, x};  // both limit rows
      }
      std::vector<JointRow> rows;
      joint_rows(j, 0, bodies, 0.01, rows, JointRowForm::Physical);
      SCOPED_TRACE(type_name(type));
      for (int k = 0; k < 3; ++k) {
        const JointRow& r = rows[size_t(k)];
        const Vec3 n = r.ja_lin;
        const double dc = rate_of(bodies, [&](const std::vector<Body>& b) {
          return n.dot(anchor_of(s, b, 1) - anchor_of(s, b, 0));
        });
        EXPECT_NEAR(row_value(r, bodies), -dc, 1e-6);
        // Error term: k_cor (p_b - p_a) along the row (thesis sect. 4.9 ball).
        EXPECT_NEAR(r.target, (j.erp / 0.01) * n.dot(anchor_of(s, bodies, 1) - anchor_of(s, bodies, 0)), 1e-9);
      }
      if (type == JointType::Hinge2 || type == JointType::Universal) {
        ASSERT_EQ(rows.size(), 6u);
        const double dphi = rate_of(bodies, [&](const std::vector<Body>& b) {
          const Vec3 sa = carried(b[0], s.bodies0[0]) * s.s1, sb = carried(b[1], s.bodies0[1]) * s.s2;
          return std::atan2(sa.cross(sb).norm(), sa.dot(sb));
        });
        EXPECT_NEAR(row_value(rows[3], bodies), -dphi, 1e-6);
        const double rate = rate_of(bodies, [&j](const std::vector<Body>& b) { return joint_coordinate(j, b); });
        EXPECT_NEAR(row_value(rows[4], bodies), rate, 1e-6);
        EXPECT_NEAR(row_value(rows[5], bodies), -rate, 1e-6);
        EXPECT_NEAR(joint_rate(j, bodies), spin_about_second_axis(s, bodies), 1e-6);
      }
      if (testing::Test::HasFailure()) return;
    }
  }
}

// The coordinate means what the format says: rotating b about the axis by +d changes the hinge angle by +d;
// sliding b along the axis by +d changes the slider displacement by +d; turning b about the steering axis
// changes the hinge-2 coordinate, spinning it about its own (wheel) axis does not.
TEST(JointCoordinate, MovesWithTheBodyAlongTheFreeDirection) {
  Rng rng(kJointSeed);
  for (JointType type : {JointType::Hinge, JointType::Slider, JointType::Hinge2, JointType::Universal}) {
    Joint j;
    const JointSetup s = random_joint_setup(rng, type, j);
    std::vector<Body> bodies = s.bodies0;
    const double d = 0.4;
    Body& B = bodies[1];
    SCOPED_TRACE(type_name(type));
    if (type == JointType::Slider) {
      B.position += d * s.s1;
    } else {
      const Quat turn(Eigen::AngleAxisd(d, s.s1));
      B.position = s.anchor + turn * (B.position - s.anchor);
      B.orientation = turn * B.orientation;
    }
    EXPECT_NEAR(joint_coordinate(j, bodies), s.x0 + d, 1e-12);
    EXPECT_LT(joint_error(j, bodies), 1e-12);
    if (type == JointType::Hinge2 || type == JointType::Universal) {
      const Vec3 wheel = B.rotation() * j.axis2_b;
      const Quat spin(Eigen::AngleAxisd(1.1, wheel));
      B.position = s.anchor + spin * (B.position - s.anchor);
      B.orientation = spin * B.orientation;
      EXPECT_NEAR(joint_coordinate(j, bodies), s.x0 + d, 1e-12);
      EXPECT_LT(joint_error(j, bodies), 1e-12);
    }
    // Moving the other way across the free direction is an error the joint reports.
    std::vector<Body> off = bodies;
    off[1].position += 0.1 * s.s1.cross(s.s2).normalized();
    EXPECT_NEAR(joint_error_parts(j, off).linear, 0.1, 1e-9);
  }
}

// --- 2. error terms shrink under ERP-only steps -------------------------------------------------------

struct JointWorld {
  World world;
  int a = -1, b = -1;
};

// Two spheres 1 m apart joined at the midpoint; `fixed_a` makes the first one fixed. No gravity.
JointWorld two_sphere_world(JointType type, bool fixed_a, const Vec3& s1, const Vec3& s2) {
  JointWorld w;
  w.world.settings.gravity = Vec3::Zero();
  w.world.settings.dt = 0.01;
  // Both bodies turned, so that errors measured in the wrong frame show.
  w.a = test::add_body(w.world, test::sphere(0.2), Vec3(0, 1, 0), 1000.0,
                       Quat(Eigen::AngleAxisd(0.9, Vec3(1, 0.5, -0.3).normalized())), 0,
                       fixed_a ? BodyKind::Fixed : BodyKind::Dynamic);
  w.b = test::add_body(w.world, test::sphere(0.15), Vec3(1, 1.1, 0.2), 1000.0, Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized())));
  for (Body& body : w.world.bodies) body.update_world_inertia();
  w.world.joints.push_back(make_joint(type, w.world.bodies, w.a, w.b, Vec3(0.5, 1.05, 0.1), s1, s2));
  std::string error;
  EXPECT_TRUE(w.world.set_solver("lcp", &error)) << error;
  ParamSet& p = w.world.solver().params();
  EXPECT_TRUE(p.set("iterations", 100, &error)) << error;
  p.set("sleeping", 0, &error);
  return w;
}

void displace(Body& b, const Vec3& by, const Quat& turn) {
  b.position += by;
  b.orientation = turn * b.orientation;
  b.update_world_inertia();
}

// ERP-only steps: before each step the velocities are cleared, so the only motion is what the error terms
// ask for; the error must fall by about the factor 1 - erp every step.
TEST(JointErrorTerm, ErpOnlyStepsShrinkTheErrorMonotonically) {
  const Vec3 s1 = Vec3(0.2, 1, 0.1).normalized(), s2 = Vec3(1, 0, 0.3).normalized();
  for (bool fixed_a : {true, false}) {
    for (JointType type : kJointTypes) {
      SCOPED_TRACE(type_name(type) + (fixed_a ? " to a fixed body" : " between two dynamic bodies"));
      JointWorld w = two_sphere_world(type, fixed_a, s1, s2);
      w.world.joints[0].erp = 0.5;
      displace(w.world.bodies[size_t(w.b)], Vec3(0.03, -0.04, 0.02), Quat(Eigen::AngleAxisd(0.1, Vec3(1, -1, 2).normalized())));
      const Joint& j = w.world.joints[0];
      double previous = joint_error(j, w.world.bodies);
      const double initial = previous;
      EXPECT_GT(initial, 0.05);
      for (int step = 0; step < 30; ++step) {
        for (Body& b : w.world.bodies) b.linear_velocity = b.angular_velocity = Vec3::Zero();
        ASSERT_TRUE(w.world.step().ok);
        const double e = joint_error(j, w.world.bodies);
        if (previous > 1e-12) {
          EXPECT_LT(e, 0.6 * previous) << "step " << step;
          EXPECT_GT(e, 0.3 * previous) << "step " << step << ": erp 0.5 removes about half";
        }
        previous = e;
      }
      EXPECT_LT(previous, 1e-8 * initial);
    }
  }
}

// The same with the velocities kept: the error still shrinks monotonically until it reaches the small floor
// where the first-order position update of the still-moving bodies (free rotation about the joint) adds as
// much as the error term removes.
TEST(JointErrorTerm, StepsWithMomentumShrinkTheErrorToASmallFloor) {
  const Vec3 s1 = Vec3(0.2, 1, 0.1).normalized(), s2 = Vec3(1, 0, 0.3).normalized();
  for (bool fixed_a : {true, false}) {
    for (JointType type : kJointTypes) {
      SCOPED_TRACE(type_name(type) + (fixed_a ? " to a fixed body" : " between two dynamic bodies"));
      JointWorld w = two_sphere_world(type, fixed_a, s1, s2);
      w.world.joints[0].erp = 0.5;
      displace(w.world.bodies[size_t(w.b)], Vec3(0.03, -0.04, 0.02), Quat(Eigen::AngleAxisd(0.1, Vec3(1, -1, 2).normalized())));
      const Joint& j = w.world.joints[0];
      const double initial = joint_error(j, w.world.bodies);
      double previous = initial;
      for (int step = 0; step < 100; ++step) {
        ASSERT_TRUE(w.world.step().ok);
        const double e = joint_error(j, w.world.bodies);
        if (previous > 1e-3 * initial) { EXPECT_LT(e, previous) << "step " << step; }
        if (step >= 20) { EXPECT_LT(e, 1e-3 * initial) << "step " << step; }
        previous = e;
      }
    }
  }
}

// A coordinate past its limit comes back to the bound monotonically under ERP-only steps.
TEST(JointErrorTerm, ErpOnlyStepsBringACoordinateBackToItsLimit) {
  const Vec3 s1 = Vec3(0.2, 1, 0.1).normalized(), s2 = Vec3(1, 0, 0.3).normalized();
  for (JointType type : {JointType::Hinge, JointType::Slider, JointType::Hinge2, JointType::Universal}) {
    for (bool upper : {false, true}) {
      for (bool fixed_a : {true, false}) {
        SCOPED_TRACE(type_name(type) + (upper ? " upper" : " lower") + (fixed_a ? " fixed a" : ""));
        JointWorld w = two_sphere_world(type, fixed_a, s1, s2);
        Joint& j = w.world.joints[0];
        j.erp = 0.5;
        // The coordinate is 0 at creation: put the bounds 0.2 (rad or m) away on one side.
        j.limit = upper ? JointLimit{true, -0.6, -0.2} : JointLimit{true, 0.2, 0.6};
        const double bound = upper ? -0.2 : 0.2;
        double previous = 0.2;
        for (int step = 0; step < 30; ++step) {
          for (Body& b : w.world.bodies) b.linear_velocity = b.angular_velocity = Vec3::Zero();
          ASSERT_TRUE(w.world.step().ok);
          const double x = joint_coordinate(j, w.world.bodies);
          const double outside = upper ? x - bound : bound - x;
          if (previous > 1e-12) {
            EXPECT_LT(outside, 0.6 * previous) << "step " << step;
            EXPECT_GT(outside, 0.3 * previous) << "step " << step;
          }
          previous = outside;
          EXPECT_LT(joint_error(j, w.world.bodies), 2e-2) << "the finite turn per step leaves a small equality error";
        }
        EXPECT_LT(std::abs(previous), 1e-8);
      }
    }
  }
}

// --- 3. momentum --------------------------------------------------------------------------------------

struct Momentum {
  Vec3 linear, angular;  // angular about the origin
};

Momentum momentum(const std::vector<Body>& bodies) {
  Momentum m{Vec3::Zero(), Vec3::Zero()};
  for (const Body& b : bodies) {
    if (!b.is_dynamic()) continue;
    const Vec3 p = b.mass * b.linear_velocity;
    m.linear += p;
    m.angular += b.position.cross(p) + b.inertia_world() * b.angular_velocity;
  }
  return m;
}

void expect_same_momentum(const Momentum& before, const Momentum& after) {
  EXPECT_LT((after.linear - before.linear).norm(), 1e-9 * (1 + before.linear.norm()));
  EXPECT_LT((after.angular - before.angular).norm(), 1e-9 * (1 + before.angular.norm()));
}

// At a satisfied pose every row (equality, both limits, motor) is a pair of equal and opposite impulses
// through one point, or opposite torques: any J^T lambda, and a real solve, keep P and L (about the origin).
TEST(JointMomentum, InternalRowsConserveLinearAndAngularMomentum) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    for (int trial = 0; trial < 10; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      std::vector<Body> bodies = s.bodies0;
      randomize_velocities(rng, bodies);
      if (joint_type_has_coordinate(type)) {
        j.limit = JointLimit{true, s.x0, s.x0};  // both limit rows
        j.motor = JointMotor{true, 2.0, 50.0};
      }
      std::vector<JointRow> rows;
      joint_rows(j, 0, bodies, 0.01, rows, trial % 2 ? JointRowForm::Physical : JointRowForm::Decoupled);
      const int extra = joint_type_has_coordinate(type) ? 3 : 0;
      ASSERT_EQ(int(rows.size()), joint_type_equality_rows(type) + extra) << type_name(type);
      SCOPED_TRACE(type_name(type));
      const Momentum before = momentum(bodies);
      for (const JointRow& r : rows) {
        std::vector<Body> kicked = bodies;
        apply_impulse(r, rng.uniform(-50, 50), kicked);
        expect_same_momentum(before, momentum(kicked));
      }
      std::vector<Body> solved = bodies;
      solve_rows(rows, solved, 300);
      expect_same_momentum(before, momentum(solved));
      // The solve did its job: equality rows at their target, the limits hold, the motor is capped.
      for (size_t k = 0; k < rows.size(); ++k) {
        const JointRow& r = rows[k];
        if (r.kind == kRowLimit) {
          EXPECT_GE(row_value(r, solved), r.target - 1e-6) << "row " << k;
        } else if (r.kind == kRowEquality) {
          EXPECT_NEAR(row_value(r, solved), r.target, 1e-6) << "row " << k;
        }
      }
      if (testing::Test::HasFailure()) return;
    }
  }
}

// With the joint violated, the anchor rows apply +-F at the two (now different) anchors, a couple
// (p_a - p_b) x F that vanishes with the error (thesis sect. 4.9 ball form); every other row, limits and motors
// included, still conserves momentum exactly.
TEST(JointMomentum, ViolatedJointsOnlyAnchorRowsMakeACoupleOfTheError) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    for (int trial = 0; trial < 10; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      std::vector<Body> bodies = s.bodies0;
      displace(bodies[1], rng.vec(0.05), Quat(Eigen::AngleAxisd(0.05, rng.unit())));
      randomize_velocities(rng, bodies);
      if (joint_type_has_coordinate(type)) {
        const double x = joint_coordinate(j, bodies);
        j.limit = JointLimit{true, x + 0.01, x + 0.01};  // the lower bound violated, the upper one near
        j.motor = JointMotor{true, 2.0, 50.0};
      }
      std::vector<JointRow> rows;
      joint_rows(j, 0, bodies, 0.01, rows, JointRowForm::Physical);
      SCOPED_TRACE(type_name(type));
      Vec3 pa, pb;
      joint_anchors_world(j, bodies, pa, pb);
      const bool has_anchor_rows = type != JointType::Slider;
      const Momentum before = momentum(bodies);
      for (size_t k = 0; k < rows.size(); ++k) {
        std::vector<Body> kicked = bodies;
        const double lambda = rng.uniform(-50, 50);
        apply_impulse(rows[k], lambda, kicked);
        const Momentum after = momentum(kicked);
        EXPECT_LT((after.linear - before.linear).norm(), 1e-9 * (1 + before.linear.norm()));
        const Vec3 couple = has_anchor_rows && k < 3 ? Vec3((pa - pb).cross(lambda * rows[k].ja_lin)) : Vec3::Zero();
        EXPECT_LT((after.angular - before.angular - couple).norm(), 1e-9 * (1 + before.angular.norm())) << "row " << k;
      }
      if (testing::Test::HasFailure()) return;
    }
  }
}

// --- physics ------------------------------------------------------------------------------------------

// The joint physics below holds for every solver built on the shared constraint rows, run at 10 sweeps and
// without sleeping.
class JointPhysics : public ::testing::TestWithParam<std::string> {
 protected:
  void quiet_solver(World& w, int iterations = 10) {
    std::string error;
    ASSERT_TRUE(w.set_solver(GetParam(), &error)) << error;
    ParamSet& p = w.solver().params();
    ASSERT_TRUE(p.set("iterations", iterations, &error)) << error;
    if (p.find("sleeping")) {
      ASSERT_TRUE(p.set("sleeping", 0, &error)) << error;
    }
  }
};
INSTANTIATE_TEST_SUITE_P(RowSolvers, JointPhysics, ::testing::Values("lcp", "volume"),
                         [](const auto& info) { return info.param; });

// A small heavy sphere on a ball joint to a fixed body: T = 2 pi sqrt(I_pivot / (m g L)), with
// I_pivot = 2/5 m r^2 + m L^2, times 1 + theta0^2 / 16 for the finite amplitude; at h = 1/60 and 1/240 s.
TEST_P(JointPhysics, PendulumPeriod) {
  for (double dt : {1.0 / 60.0, 1.0 / 240.0}) {
    World w;
    w.settings.dt = dt;
    const double L = 1.0, r = 0.05, theta0 = 5.0 * kPi / 180.0, g = 9.81;
    const Vec3 pivot(0, 3, 0);
    const int anchor = test::add_body(w, test::sphere(0.05), pivot, 1000.0, Quat::Identity(), 0, BodyKind::Fixed);
    const int bob = test::add_body(w, test::sphere(r), pivot + L * Vec3(std::sin(theta0), -std::cos(theta0), 0), 7800.0);
    w.joints.push_back(make_joint(JointType::Ball, w.bodies, anchor, bob, pivot, Vec3::UnitX(), Vec3::UnitZ()));
    quiet_solver(w);

    // Upward zero crossings of x (moving towards +x), linearly interpolated.
    std::vector<double> crossings;
    double previous_x = w.bodies[size_t(bob)].position.x(), max_error = 0, max_x = 0;
    while (w.time() < 12.0) {
      ASSERT_TRUE(w.step().ok);
      const double x = w.bodies[size_t(bob)].position.x();
      if (previous_x < 0 && x >= 0) crossings.push_back(w.time() - w.settings.dt * x / (x - previous_x));
      previous_x = x;
      if (w.time() > 10.0) max_x = std::max(max_x, x);
      max_error = std::max(max_error, joint_error(w.joints[0], w.bodies));
    }
    ASSERT_GE(crossings.size(), 5u);
    const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
    const double expected = 2 * kPi * std::sqrt((0.4 * r * r + L * L) / (g * L)) * (1 + theta0 * theta0 / 16);
    const double relative = std::abs(period - expected) / expected;
    std::printf("[ pendulum ] h = 1/%.0f s: period %.5f s, expected %.5f s, error %.3f%%, max joint error %.2e m, "
                "amplitude after 10 s %.4f of %.4f m\n", 1 / dt, period, expected, 100 * relative, max_error, max_x,
                L * std::sin(theta0));
    EXPECT_LT(relative, 0.02);
    EXPECT_LT(max_error, 1e-3);
    // It keeps swinging in its plane with most of its amplitude.
    EXPECT_GT(max_x, 0.9 * L * std::sin(theta0));
    EXPECT_NEAR(std::abs(w.bodies[size_t(bob)].position.z()), 0.0, 1e-6);
  }
}

// A 1 m cube on a hinge through its centre (axis z, no load from gravity): the motor reaches its speed when
// max_force suffices; with a small max_force the speed grows at exactly max_force / I and stays below.
TEST_P(JointPhysics, MotorReachesItsSpeedOnlyWithEnoughForce) {
  for (double max_force : {2000.0, 20.0}) {
    World w;
    w.settings.dt = 1.0 / 60.0;
    const int frame = test::add_body(w, test::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 2, -1), 1000, Quat::Identity(), 0, BodyKind::Fixed);
    const int wheel = test::add_body(w, test::box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 2, 0), 1000);
    Joint j = make_joint(JointType::Hinge, w.bodies, frame, wheel, Vec3(0, 2, 0), Vec3::UnitZ(), Vec3::UnitX());
    j.motor = JointMotor{true, 3.0, max_force};
    w.joints.push_back(j);
    quiet_solver(w);
    const double inertia = w.bodies[size_t(wheel)].inertia_body(2, 2);  // 1000 kg * (1 + 1) / 12
    for (int i = 0; i < 120; ++i) ASSERT_TRUE(w.step().ok);  // 2 s
    const double rate = joint_rate(w.joints[0], w.bodies);
    const double expected_limited = max_force * w.time() / inertia;
    std::printf("[ motor ] max_force %.0f N m: rate %.5f rad/s after %.2f s (target 3, force-limited %.5f)\n", max_force,
                rate, w.time(), expected_limited);
    if (expected_limited > 3.0) {
      EXPECT_NEAR(rate, 3.0, 0.01 * 3.0);
    } else {
      EXPECT_NEAR(rate, expected_limited, 0.01 * expected_limited);
      EXPECT_LT(rate, 0.5 * 3.0);
    }
    EXPECT_NEAR(w.bodies[size_t(wheel)].angular_velocity.z(), rate, 1e-9);
    EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-4);
  }
}

// A bar on a horizontal hinge at one end under gravity: a motor stronger than the gravity torque m g d turns
// it at its speed all the way round; a weaker one (m g d / 2) cannot lift it past the angle where its work
// equals the gain in potential energy, theta/2 = 1 - cos(theta) (1.109 rad), and never reaches its speed.
TEST_P(JointPhysics, MotorAgainstGravity) {
  // The root of theta/2 = 1 - cos(theta) in (0.5, 2), by bisection.
  double lo = 0.5, hi = 2.0;
  while (hi - lo > 1e-12) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * mid > 1 - std::cos(mid)) lo = mid;
    else hi = mid;
  }
  const double stall = 0.5 * (lo + hi);
  for (double factor : {2.0, 0.5}) {
    World w;
    w.settings.dt = 1.0 / 120.0;
    const double d = 0.5;  // hinge to centre of mass
    // The fixed body sits 1 m behind the hinge: jointed bodies still collide, so they must not touch.
    const int frame = test::add_body(w, test::sphere(0.05), Vec3(0, 3, -1), 1000, Quat::Identity(), 0, BodyKind::Fixed);
    const int bar = test::add_body(w, test::box(Vec3(d, 0.05, 0.05)), Vec3(0, 3 - d, 0), 1000,
                                   Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ())));  // hanging down
    const double weight_torque = w.bodies[size_t(bar)].mass * 9.81 * d;
    Joint j = make_joint(JointType::Hinge, w.bodies, frame, bar, Vec3(0, 3, 0), Vec3::UnitZ(), Vec3::UnitX());
    j.motor = JointMotor{true, 4.0, factor * weight_torque};
    w.joints.push_back(j);
    quiet_solver(w, 20);
    double max_rate = 0, max_angle = 0, min_rate_late = 1e9, max_rate_late = -1e9;
    for (int i = 0; i < 1200; ++i) {  // 10 s
      ASSERT_TRUE(w.step().ok);
      const double rate = joint_rate(w.joints[0], w.bodies);
      max_rate = std::max(max_rate, rate);
      max_angle = std::max(max_angle, joint_coordinate(w.joints[0], w.bodies));
      if (w.time() > 3.0) {
        min_rate_late = std::min(min_rate_late, rate);
        max_rate_late = std::max(max_rate_late, rate);
      }
    }
    std::printf("[ motor vs gravity ] max_force = %.1f m g d, speed 4: rate after 3 s in [%.5f, %.5f], max angle %.4f "
                "(stall prediction %.4f)\n", factor, min_rate_late, max_rate_late, max_angle, stall);
    if (factor > 1) {
      EXPECT_NEAR(min_rate_late, 4.0, 0.04);
      EXPECT_NEAR(max_rate_late, 4.0, 0.04);
    } else {
      EXPECT_LT(max_rate, 0.6 * 4.0);
      EXPECT_NEAR(max_angle, stall, 0.02);
    }
    // First-order drift of a 0.5 m lever turning at 4 rad/s: r (w h)^2 / 2 / erp = 1.4e-3 m.
    EXPECT_LT(joint_error(w.joints[0], w.bodies), 3e-3);
  }
}

// A bar hinged at one end, starting horizontal, falls onto its limit (with an extra downward spin in the
// second run) and is held there under its weight.
TEST_P(JointPhysics, LimitHoldsUnderLoad) {
  for (double spin : {0.0, -6.0}) {
    World w;
    w.settings.dt = 1.0 / 60.0;
    const int frame = test::add_body(w, test::sphere(0.05), Vec3(0, 3, -1), 1000, Quat::Identity(), 0, BodyKind::Fixed);
    const int bar = test::add_body(w, test::box(Vec3(0.5, 0.05, 0.05)), Vec3(0.5, 3, 0), 1000);
    Joint j = make_joint(JointType::Hinge, w.bodies, frame, bar, Vec3(0, 3, 0), Vec3::UnitZ(), Vec3::UnitX());
    j.limit = JointLimit{true, -0.5, 0.5};
    w.joints.push_back(j);
    w.bodies[size_t(bar)].angular_velocity = Vec3(0, 0, spin);
    w.bodies[size_t(bar)].linear_velocity = Vec3(0, spin * 0.5, 0);
    quiet_solver(w);
    double min_angle = 0;
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(w.step().ok);
      min_angle = std::min(min_angle, joint_coordinate(w.joints[0], w.bodies));
    }
    const double final_angle = joint_coordinate(w.joints[0], w.bodies);
    std::printf("[ limit ] initial spin %.1f rad/s: overshoot %.2e rad, final %.6f rad (limit -0.5)\n", spin,
                -0.5 - min_angle, final_angle);
    EXPECT_GT(min_angle, -0.5 - 0.01);
    EXPECT_NEAR(final_angle, -0.5, 1e-3);
    EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-3);
  }
}

// A hinged bar swinging through the bottom from horizontal to horizontal for 60 s with the default solver
// settings keeps its hinge: the axis exactly, the anchor within the first-order drift of a velocity-level
// constraint, r (w h)^2 / 2 / erp = 0.5 m (5.4 rad/s / 60)^2 / 2 / 0.2 = 1e-2 m at the bottom, which does
// not grow over the run; no energy is gained.
TEST_P(JointPhysics, HingeErrorStaysSmallOverALongRun) {
  World w;
  w.settings.dt = 1.0 / 60.0;
  const int frame = test::add_body(w, test::sphere(0.05), Vec3(0, 4, -1), 1000, Quat::Identity(), 0, BodyKind::Fixed);
  const int bar = test::add_body(w, test::box(Vec3(0.5, 0.05, 0.05)), Vec3(0.5, 4, 0), 1000);
  w.joints.push_back(make_joint(JointType::Hinge, w.bodies, frame, bar, Vec3(0, 4, 0), Vec3::UnitZ(), Vec3::UnitX()));
  quiet_solver(w);
  const double e0 = w.kinetic_energy() + w.potential_energy();
  double max_early = 0, max_late = 0, max_angular = 0, max_gain = -1e9, min_angle = 0;
  while (w.time() < 60.0) {
    ASSERT_TRUE(w.step().ok);
    const JointErrorParts p = joint_error_parts(w.joints[0], w.bodies);
    double& max_linear = w.time() < 30 ? max_early : max_late;
    max_linear = std::max(max_linear, p.linear);
    max_angular = std::max(max_angular, p.angular);
    max_gain = std::max(max_gain, w.kinetic_energy() + w.potential_energy() - e0);
    min_angle = std::min(min_angle, joint_coordinate(w.joints[0], w.bodies));
  }
  std::printf("[ hinge error ] bar 60 s: max anchor error %.2e m (first 30 s) %.2e m (last 30 s), max axis error "
              "%.2e rad, max energy gain %.2e J, lowest angle %.3f rad\n", max_early, max_late, max_angular, max_gain,
              min_angle);
  EXPECT_LT(min_angle, -3.0) << "it swings through the bottom to the other side";
  EXPECT_LT(std::max(max_early, max_late), 1.5e-2);
  EXPECT_LT(max_late, 1.05 * max_early);
  EXPECT_LT(max_angular, 1e-6);
  EXPECT_LT(max_gain, 1e-6 * std::abs(e0) + 1e-9);
}

// A double pendulum of two hinged bars (the second hinge off the first bar's long axis, where its inertia is
// tiny) swinging chaotically for 30 s keeps its hinges together with 30 sweeps at h = 1/120 s. (With the
// default 10 sweeps at h = 0.01 and warm starting, PGS on this badly conditioned chain does not converge and
// gains energy until the hinges come apart; see the report.)
TEST_P(JointPhysics, DoublePendulumKeepsItsHinges) {
  World w;
  w.settings.dt = 1.0 / 120.0;
  const int frame = test::add_body(w, test::sphere(0.05), Vec3(0, 4, -1), 1000, Quat::Identity(), 0, BodyKind::Fixed);
  const int bar1 = test::add_body(w, test::box(Vec3(0.5, 0.05, 0.05)), Vec3(0.5, 4, 0), 1000);
  const int bar2 = test::add_body(w, test::box(Vec3(0.5, 0.05, 0.05)), Vec3(1.5, 4, 0.15), 1000);
  w.joints.push_back(make_joint(JointType::Hinge, w.bodies, frame, bar1, Vec3(0, 4, 0), Vec3::UnitZ(), Vec3::UnitX()));
  w.joints.push_back(make_joint(JointType::Hinge, w.bodies, bar1, bar2, Vec3(1.0, 4, 0.075), Vec3::UnitZ(), Vec3::UnitX()));
  quiet_solver(w, 30);
  const double e0 = w.kinetic_energy() + w.potential_energy();
  double max_linear = 0, max_angular = 0, max_speed = 0, max_gain = -1e9;
  while (w.time() < 30.0) {
    ASSERT_TRUE(w.step().ok);
    for (const Joint& j : w.joints) {
      const JointErrorParts p = joint_error_parts(j, w.bodies);
      max_linear = std::max(max_linear, p.linear);
      max_angular = std::max(max_angular, p.angular);
    }
    max_speed = std::max(max_speed, w.bodies[size_t(bar2)].linear_velocity.norm());
    max_gain = std::max(max_gain, w.kinetic_energy() + w.potential_energy() - e0);
  }
  std::printf("[ hinge error ] double pendulum 30 s: max anchor error %.2e m, max axis error %.2e rad, max speed %.2f "
              "m/s, max energy gain %.3f J of %.1f J\n", max_linear, max_angular, max_speed, max_gain,
              w.bodies[size_t(bar1)].mass * 9.81 * 4);
  EXPECT_GT(max_speed, 3.0) << "it swings";
  EXPECT_LT(max_linear, 2e-2);
  EXPECT_LT(max_angular, 1e-2);
  EXPECT_LT(max_gain, 2.0);
  // The motion stays in the plane of the hinges.
  for (int b : {bar1, bar2}) EXPECT_LT(std::abs(w.bodies[size_t(b)].linear_velocity.z()), 1e-2);
}

// A box on a slider inclined at 45 degrees slides down along the axis only, accelerating at g sin 45,
// keeps its orientation, and stops at the lower limit.
TEST_P(JointPhysics, SliderMovesOnlyAlongItsAxis) {
  World w;
  w.settings.dt = 1.0 / 120.0;
  const Vec3 axis = Vec3(1, 1, 0).normalized();
  const int frame = test::add_body(w, test::sphere(0.05), Vec3(-2, 2, 0), 1000, Quat::Identity(), 0, BodyKind::Fixed);
  const Quat q0(Eigen::AngleAxisd(0.3, Vec3(0, 1, 1).normalized()));
  const int box = test::add_body(w, test::box(Vec3(0.3, 0.2, 0.1)), Vec3(0, 2, 0), 1000, q0);
  Joint j = make_joint(JointType::Slider, w.bodies, frame, box, Vec3(0, 2, 0), axis, Vec3::UnitZ());
  j.limit = JointLimit{true, -3.0, 1.0};
  w.joints.push_back(j);
  quiet_solver(w);
  const Vec3 start = w.bodies[size_t(box)].position;
  double max_off_axis = 0, max_turn = 0;
  for (int i = 0; i < 60; ++i) {  // 0.5 s: d = -1/2 g sin45 t^2 = -0.867 m
    ASSERT_TRUE(w.step().ok);
    const Vec3 moved = w.bodies[size_t(box)].position - start;
    max_off_axis = std::max(max_off_axis, (moved - axis * axis.dot(moved)).norm());
    max_turn = std::max(max_turn, w.bodies[size_t(box)].orientation.angularDistance(q0));
  }
  // Semi-implicit Euler from rest: x_n = -a h^2 n (n + 1) / 2 = -a t (t + h) / 2, with a = g sin 45.
  const double t = w.time();
  const double expected = -0.5 * 9.81 * std::sin(kPi / 4) * t * (t + w.settings.dt);
  const double d = joint_coordinate(w.joints[0], w.bodies);
  std::printf("[ slider ] after %.2f s: displacement %.5f m (free slide %.5f), max off-axis %.2e m, max turn %.2e rad\n",
              t, d, expected, max_off_axis, max_turn);
  EXPECT_NEAR(d, expected, 1e-3 * std::abs(expected));
  EXPECT_LT(max_off_axis, 1e-4);
  EXPECT_LT(max_turn, 1e-4);
  for (int i = 0; i < 240; ++i) {
    ASSERT_TRUE(w.step().ok);
    const Vec3 moved = w.bodies[size_t(box)].position - start;
    max_off_axis = std::max(max_off_axis, (moved - axis * axis.dot(moved)).norm());
    max_turn = std::max(max_turn, w.bodies[size_t(box)].orientation.angularDistance(q0));
  }
  const double rest = joint_coordinate(w.joints[0], w.bodies);
  std::printf("[ slider ] at the lower limit -3: %.6f m, max off-axis %.2e m, max turn %.2e rad\n", rest, max_off_axis,
              max_turn);
  EXPECT_NEAR(rest, -3.0, 2e-3);
  EXPECT_LT(max_off_axis, 1e-3);
  EXPECT_LT(max_turn, 1e-3);
}

// A slider motor between two free bodies in zero gravity: they move apart along the axis at the motor
// speed and the total momentum stays zero.
TEST_P(JointPhysics, SliderMotorBetweenFreeBodiesConservesMomentum) {
  World w;
  w.settings.gravity = Vec3::Zero();
  w.settings.dt = 0.01;
  const Vec3 axis = Vec3(1, 0.5, -0.3).normalized();
  const int a = test::add_body(w, test::box(Vec3(0.3, 0.3, 0.3)), Vec3(0, 0, 0), 1000);
  const int b = test::add_body(w, test::box(Vec3(0.2, 0.1, 0.4)), Vec3(0.2, 0.7, 0.3), 500,
                               Quat(Eigen::AngleAxisd(0.7, Vec3(1, 1, 0).normalized())));
  Joint j = make_joint(JointType::Slider, w.bodies, a, b, Vec3(0.1, 0.35, 0.15), axis, Vec3::UnitZ());
  j.motor = JointMotor{true, 0.5, 1000.0};
  w.joints.push_back(j);
  quiet_solver(w, 30);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(w.step().ok);
  const Momentum m = momentum(w.bodies);
  std::printf("[ slider motor ] rate %.5f m/s (target 0.5), |P| %.2e, |L| %.2e\n", joint_rate(w.joints[0], w.bodies),
              m.linear.norm(), m.angular.norm());
  EXPECT_NEAR(joint_rate(w.joints[0], w.bodies), 0.5, 0.005);
  EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.5 * w.time(), 0.05);
  EXPECT_LT(m.linear.norm(), 1e-9);
  EXPECT_LT(m.angular.norm(), 1e-9);  // the pose update holds each body's angular momentum (constraints/motion.h)
  EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-4);
}

// Hinge-2: the wheel spins at the motor speed about its own axis while the steering limit holds it straight.
TEST_P(JointPhysics, Hinge2WheelMotorAndSteeringLimit) {
  World w;
  w.settings.gravity = Vec3::Zero();
  w.settings.dt = 1.0 / 60.0;
  const int chassis = test::add_body(w, test::box(Vec3(0.5, 0.2, 0.3)), Vec3(0, 1, 0), 1000, Quat::Identity(), 0, BodyKind::Fixed);
  const int wheel = test::add_body(w, test::sphere(0.3), Vec3(0, 1, 0.7), 500);
  Joint j = make_joint(JointType::Hinge2, w.bodies, chassis, wheel, Vec3(0, 1, 0.7), Vec3::UnitY(), Vec3::UnitZ());
  j.limit = JointLimit{true, 0.0, 0.0};
  j.motor = JointMotor{true, -8.0, 500.0};
  w.joints.push_back(j);
  // A kick about the steering axis the limit must take out, and some off-axis spin.
  w.bodies[size_t(wheel)].angular_velocity = Vec3(0.5, 2.0, 0);
  quiet_solver(w, 20);
  for (int i = 0; i < 120; ++i) ASSERT_TRUE(w.step().ok);
  const double steer = joint_coordinate(w.joints[0], w.bodies);
  std::printf("[ hinge2 ] wheel rate %.5f rad/s (target -8), steering %.2e rad, error %.2e\n",
              joint_rate(w.joints[0], w.bodies), steer, joint_error(w.joints[0], w.bodies));
  EXPECT_NEAR(joint_rate(w.joints[0], w.bodies), -8.0, 0.08);
  EXPECT_NEAR(w.bodies[size_t(wheel)].angular_velocity.z(), -8.0, 0.08);
  EXPECT_LT(std::abs(steer), 1e-3);
  EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-3);
}

// Decoupled rows (the default) are the physical equality rows recombined so that J M^-1 J^T = I; limit and
// motor rows are unchanged, and solving either set gives the same velocities.
TEST(JointRows, DecoupledRowsAreOrthonormalInTheMassMetricAndSolveTheSame) {
  Rng rng(kJointSeed);
  for (JointType type : kJointTypes) {
    for (int trial = 0; trial < 10; ++trial) {
      Joint j;
      const JointSetup s = random_joint_setup(rng, type, j);
      std::vector<Body> bodies = s.bodies0;
      if (trial % 3 == 0) bodies[0].kind = BodyKind::Fixed, bodies[0].inv_mass = 0, bodies[0].inv_inertia_world.setZero();
      displace(bodies[1], rng.vec(0.05), Quat(Eigen::AngleAxisd(0.05, rng.unit())));
      randomize_velocities(rng, bodies);
      if (bodies[0].kind == BodyKind::Fixed) bodies[0].linear_velocity = bodies[0].angular_velocity = Vec3::Zero();
      if (joint_type_has_coordinate(type)) {
        const double x = joint_coordinate(j, bodies);
        j.limit = JointLimit{true, x + 0.01, x + 0.01};
        j.motor = JointMotor{true, 2.0, 5.0};
      }
      std::vector<JointRow> physical, decoupled;
      joint_rows(j, 0, bodies, 0.01, physical, JointRowForm::Physical);
      joint_rows(j, 0, bodies, 0.01, decoupled, JointRowForm::Decoupled);
      SCOPED_TRACE(type_name(type) + " trial " + std::to_string(trial));
      ASSERT_EQ(physical.size(), decoupled.size());
      const int n = joint_type_equality_rows(type);
      auto dot = [&](const JointRow& x, const JointRow& y) {
        const Body& A = bodies[0];
        const Body& B = bodies[1];
        return A.inv_mass * x.ja_lin.dot(y.ja_lin) + x.ja_ang.dot(A.inv_inertia_world * y.ja_ang) +
               B.inv_mass * x.jb_lin.dot(y.jb_lin) + x.jb_ang.dot(B.inv_inertia_world * y.jb_ang);
      };
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) EXPECT_NEAR(dot(decoupled[size_t(a)], decoupled[size_t(b)]), a == b ? 1.0 : 0.0, 1e-9);
      for (size_t k = size_t(n); k < physical.size(); ++k) {
        EXPECT_EQ(decoupled[k].ja_ang, physical[k].ja_ang);
        EXPECT_EQ(decoupled[k].target, physical[k].target);
        EXPECT_EQ(decoupled[k].kind, physical[k].kind);
      }
      std::vector<Body> u1 = bodies, u2 = bodies;
      solve_rows(physical, u1, 3000);
      solve_rows(decoupled, u2, 3000);
      for (int i = 0; i < 2; ++i) {
        EXPECT_LT((u1[size_t(i)].linear_velocity - u2[size_t(i)].linear_velocity).norm(), 1e-7);
        EXPECT_LT((u1[size_t(i)].angular_velocity - u2[size_t(i)].angular_velocity).norm(), 1e-7);
      }
      // With CFM the rows stay physical.
      j.cfm = 1e-4;
      std::vector<JointRow> soft, soft_physical;
      joint_rows(j, 0, bodies, 0.01, soft);
      joint_rows(j, 0, bodies, 0.01, soft_physical, JointRowForm::Physical);
      ASSERT_EQ(soft.size(), soft_physical.size());
      for (size_t k = 0; k < soft.size(); ++k) EXPECT_EQ(soft[k].ja_lin, soft_physical[k].ja_lin);
      if (testing::Test::HasFailure()) return;
    }
  }
}

TEST(JointTypes, NamesRoundTrip) {
  for (JointType t : kJointTypes) EXPECT_EQ(joint_type_from_name(joint_type_name(t)), t);
  EXPECT_FALSE(joint_type_from_name("hinge3").has_value());
}

// Joined pairs are {smaller, larger} body index, sorted, once each, whatever order the joints name them in.
TEST(JointTypes, JoinedPairsAreSortedAndUnique) {
  std::vector<Joint> joints(5);
  const int bodies[][2] = {{4, 2}, {0, 3}, {2, 4}, {1, 0}, {-1, 5}};
  for (size_t i = 0; i < joints.size(); ++i) {
    joints[i].body_a = bodies[i][0];
    joints[i].body_b = bodies[i][1];
  }
  const std::vector<BodyPair> expected = {{0, 1}, {0, 3}, {2, 4}};
  EXPECT_EQ(joined_pairs(joints), expected);
  EXPECT_TRUE(joined_pairs({}).empty());
}

TEST(JointRows, NothingBetweenTwoBodiesThatCannotMove) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(test::sphere(0.1), Vec3(0, 0, 0), Quat::Identity(), 0, BodyKind::Fixed));
  bodies.push_back(make_body(test::sphere(0.1), Vec3(1, 0, 0), Quat::Identity(), 0, BodyKind::Kinematic));
  const Joint j = make_joint(JointType::Fixed, bodies, 0, 1, Vec3(0.5, 0, 0), Vec3::UnitX(), Vec3::UnitZ());
  std::vector<JointRow> rows;
  joint_rows(j, 0, bodies, 0.01, rows);
  EXPECT_TRUE(rows.empty());
}

// A hinge motor of practically unbounded force (1e30 N m) never drives the door through its limit under any
// method, at 1/30 to 1/1000 s: with the motor aiming at a rate the limit allows (the motor row's target), the
// motor and limit rows no longer ask opposite rates of the solver (lcp, volume, pid-penalty), and the implicit
// motor damper of implicit-penalty no longer outweighs its limit spring.
TEST(JointMotor, AnUnboundedMotorStopsAtTheLimit) {
  for (const char* solver : {"lcp", "volume", "pid-penalty", "implicit-penalty"})
    for (double h : {1.0 / 30, 1.0 / 240, 1.0 / 1000}) {
      World w;
      using namespace cl::test;
      const int post = add_body(w, box(Vec3(0.1, 1, 0.1)), Vec3(-0.65, 1.07, 0), 0.0, Quat::Identity(), 0, BodyKind::Fixed);
      const int door = add_body(w, box(Vec3(0.5, 1, 0.025)), Vec3(0, 1.07, 0), 20.0);
      Joint j = make_joint(JointType::Hinge, w.bodies, post, door, Vec3(-0.5, 1.07, 0), Vec3::UnitY(), Vec3::UnitX());
      j.limit = JointLimit{true, 0.0, 0.5};
      j.motor = JointMotor{true, 1.0, 1e30};
      w.joints.push_back(j);
      std::string error;
      ASSERT_TRUE(w.set_solver(solver, &error)) << error;
      w.settings.dt = h;
      double most = 0.0;
      for (int s = 0; s < int(1.5 / h); ++s) {
        ASSERT_TRUE(w.step().ok) << solver;
        most = std::max(most, joint_coordinate(w.joints[0], w.bodies));
      }
      EXPECT_LT(most, 0.5 + 0.02) << solver << " h " << h;
      EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 0.5, 0.02) << solver << " h " << h;
    }
}

// A hinge motor of practically unbounded torque (1e30 N m) drives a door against a fixed post in its swing, with
// no limit: under every method and at every step from 1/30 to 1/1000 s the door stops at the post rather than
// passing through it. Its face meets the post's corner at 0.37 rad; it may end inside the post by at most the
// post's half width plus one step's travel at the post (0.7 m x 1 rad/s x h), never at the post's middle
// (0.46 rad), and it stays there (no creep over the last half second beyond a millimetre at the post).
TEST(JointMotor, AnUnboundedMotorNeverDrivesThroughAFixedContact) {
  using test::DoorAgainstPost;
  for (const char* solver : {"lcp", "volume", "pid-penalty", "implicit-penalty"})
    for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 100, 1.0 / 240, 1.0 / 500, 1.0 / 1000}) {
      const DoorAgainstPost door = test::door_against_post(solver, h);
      const double reach = DoorAgainstPost::kPostReach;
      const double bound = std::min(DoorAgainstPost::kTouch + (DoorAgainstPost::kPostHalf + reach * h) / reach,
                                    DoorAgainstPost::kMiddle);
      EXPECT_LT(door.most, bound) << solver << " h " << h;
      EXPECT_GT(door.last, DoorAgainstPost::kTouch - 0.01) << solver << " h " << h << ": the door stops short";
      EXPECT_TRUE(door.ok) << solver << " h " << h;
      EXPECT_LT(door.late_travel * reach, 1e-3) << solver << " h " << h << ": the door creeps";
    }
}

}  // namespace
}  // namespace cl
