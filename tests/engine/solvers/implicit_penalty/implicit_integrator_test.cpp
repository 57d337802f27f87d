#include "solvers/implicit_penalty/implicit_integrator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cl::implicit_penalty {
namespace {

// A body of mass m on a spring of stiffness k to the origin (an external force with its gradient: b = -1).
PairForce spring_to_origin(const IntegratorBody& body, double k, double c) {
  PairForce f;
  f.a = 0;
  f.wrench.segment<3>(0) = -k * body.pose.x - c * body.pose.v;
  f.d_pos.block<3, 3>(0, 0) = -k * Mat3::Identity();
  f.d_vel.block<3, 3>(0, 0) = -c * Mat3::Identity();
  return f;
}

IntegratorBody point_body(double m, const Vec3& x, const Vec3& v) {
  IntegratorBody b;
  b.mass = m;
  b.pose.x = x;
  b.pose.v = v;
  b.pose.inv_inertia = Mat3::Identity() / m;  // a unit-radius-ish body; rotation plays no part here
  return b;
}

// One step of the group {0..n-1} under `forces`; returns dS.
Eigen::VectorXd integrate(std::vector<IntegratorBody>& bodies, const std::vector<PairForce>& forces, double h,
                          Integrator mode) {
  std::vector<int> group(bodies.size()), slot(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) group[i] = slot[i] = int(i);
  std::vector<int> which(forces.size());
  for (size_t i = 0; i < forces.size(); ++i) which[i] = int(i);
  GroupSystem system;
  assemble_group(group, bodies, forces, which, slot, h, mode, system);
  Eigen::VectorXd dS;
  EXPECT_TRUE(solve_group(system, h, dS));
  return dS;
}

// The 6 x 6 system of eq. 5 on a linear spring is backward Euler exactly:
// v' = v + h/m (-k (x + h v') - c v')  =>  v' = (v - h k x / m) / (1 + h c / m + h^2 k / m).
TEST(ImplicitIntegrator, SpringIsBackwardEuler) {
  const double m = 2.0, k = 500.0, c = 3.0, h = 0.01;
  std::vector<IntegratorBody> bodies{point_body(m, Vec3(0.1, -0.2, 0.3), Vec3(1, 0.5, -2))};
  const Eigen::VectorXd dS = integrate(bodies, {spring_to_origin(bodies[0], k, c)}, h, Integrator::Implicit);
  const Vec3 x = bodies[0].pose.x, v = bodies[0].pose.v;
  const Vec3 expected = (v - h * k * x / m) / (1 + h * c / m + h * h * k / m);
  const Vec3 got = v + dS.segment<3>(0) / m;
  EXPECT_LT((got - expected).norm(), 1e-12);
  EXPECT_LT(dS.segment<3>(3).norm(), 1e-15);  // no torque
}

// Stiff spring, large step: the implicit step loses energy every step, the explicit one blows up
// (h sqrt(k/m) = 10 is five times past symplectic Euler's limit of 2).
TEST(ImplicitIntegrator, StiffSpringStableOnlyImplicitly) {
  const double m = 1.0, k = 1e6, h = 0.01;
  for (Integrator mode : {Integrator::Implicit, Integrator::Explicit}) {
    std::vector<IntegratorBody> bodies{point_body(m, Vec3(0.01, 0, 0), Vec3::Zero())};
    double energy0 = 0.5 * k * 1e-4, energy = energy0;
    for (int i = 0; i < 50; ++i) {
      const Eigen::VectorXd dS = integrate(bodies, {spring_to_origin(bodies[0], k, 0.0)}, h, mode);
      bodies[0].pose.v += dS.segment<3>(0) / m;
      bodies[0].pose.x += h * bodies[0].pose.v;
      const double e = 0.5 * m * bodies[0].pose.v.squaredNorm() + 0.5 * k * bodies[0].pose.x.squaredNorm();
      if (mode == Integrator::Implicit) {
        EXPECT_LE(e, energy * (1 + 1e-12));
      }
      energy = e;
    }
    if (mode == Integrator::Implicit) {
      EXPECT_LT(energy, 0.01 * energy0);
    } else {
      EXPECT_GT(energy, 1e6 * energy0);
    }
  }
}

// A spring between two free bodies: internal forces, so the total momentum change is zero, linear and angular.
TEST(ImplicitIntegrator, InternalForcesConserveMomentum) {
  std::vector<IntegratorBody> bodies{point_body(1.0, Vec3(0, 0, 0), Vec3(0.3, 0, 0)),
                                     point_body(3.0, Vec3(1.2, 0.1, 0), Vec3(-0.1, 0.2, 0))};
  const double k = 1e4, rest = 1.0;
  // Central spring: F_b = -k (|d| - rest) d/|d|, d = x_b - x_a; gradients by finite differences of F_b.
  auto force_b = [&](const Vec3& xa, const Vec3& xb) {
    const Vec3 d = xb - xa;
    return Vec3(-k * (d.norm() - rest) * d.normalized());
  };
  PairForce f;
  f.a = 0;
  f.b = 1;
  const Vec3 fb = force_b(bodies[0].pose.x, bodies[1].pose.x);
  f.wrench.segment<3>(0) = -fb;
  f.wrench.segment<3>(6) = fb;
  const double eps = 1e-7;
  for (int j = 0; j < 3; ++j) {
    const Vec3 e = Vec3::Unit(j) * eps;
    const Vec3 dfb_dxb = (force_b(bodies[0].pose.x, bodies[1].pose.x + e) - force_b(bodies[0].pose.x, bodies[1].pose.x - e)) / (2 * eps);
    f.d_pos.block<3, 1>(6, 6 + j) = dfb_dxb;
    f.d_pos.block<3, 1>(6, j) = -dfb_dxb;
    f.d_pos.block<3, 1>(0, 6 + j) = -dfb_dxb;
    f.d_pos.block<3, 1>(0, j) = dfb_dxb;
  }
  const Eigen::VectorXd dS = integrate(bodies, {f}, 0.02, Integrator::Implicit);
  EXPECT_LT((dS.segment<3>(0) + dS.segment<3>(6)).norm(), 1e-12 * fb.norm());
}

// A 1e-6 kg body between the ground and a 1e6 kg one, on two springs stiff enough to hold the heavy one 1 mm deep,
// the heavy one landing at 2 cm/s: each body's change of velocity as the 2 x 2 backward Euler system in velocities
// gives it (long double). The changes of momentum solved for are 1e12 apart; the light body's is not lost in the
// rounding of the heavy one's.
TEST(ImplicitIntegrator, ExtremeMassRatioKeepsTheLightBodysVelocity) {
  const double ml = 1e-6, mh = 1e6, g = 9.81, W = mh * g, k = W / 1e-3, h = 1.0 / 60, v0 = -0.02;
  std::vector<IntegratorBody> bodies{point_body(ml, Vec3(0, 0.5, 0), Vec3::Zero()),
                                     point_body(mh, Vec3(0, 1.5, 0), Vec3(0, v0, 0))};
  bodies[0].force = Vec3(0, -ml * g, 0);
  bodies[1].force = Vec3(0, -W, 0);
  const Mat3 K = k * Mat3::Identity();
  PairForce ground;  // the light body on the ground, carrying the heavy one's weight
  ground.a = 0;
  ground.wrench.segment<3>(0) = Vec3(0, W, 0);
  ground.d_pos.block<3, 3>(0, 0) = -K;
  PairForce pair;  // the heavy one on the light one
  pair.a = 0;
  pair.b = 1;
  pair.wrench.segment<3>(0) = Vec3(0, -W, 0);
  pair.wrench.segment<3>(6) = Vec3(0, W, 0);
  pair.d_pos.block<3, 3>(0, 0) = -K;
  pair.d_pos.block<3, 3>(0, 6) = K;
  pair.d_pos.block<3, 3>(6, 0) = K;
  pair.d_pos.block<3, 3>(6, 6) = -K;
  const Eigen::VectorXd dS = integrate(bodies, {ground, pair}, h, Integrator::Implicit);
  // Along y: (M + h^2 K) dv = h (F + h dF/dx v), with F = (-ml g, 0) and dF/dx v = (k v0, -k v0).
  using R = long double;
  const R a11 = R(ml) + R(h) * h * 2 * k, a12 = -R(h) * h * k, a22 = R(mh) + R(h) * h * k;
  const R b1 = R(h) * (-R(ml) * g + R(h) * k * v0), b2 = R(h) * (-R(h) * k * v0);
  const R det = a11 * a22 - a12 * a12;
  const double light = double((b1 * a22 - a12 * b2) / det), heavy = double((a11 * b2 - a12 * b1) / det);
  EXPECT_NEAR(dS(1) / ml, light, 1e-6 * std::abs(light));
  EXPECT_NEAR(dS(7) / mh, heavy, 1e-6 * std::abs(heavy));
}

// Torque-free tumbling: L is the state, so it is kept exactly; the rotation map V = (I - h dw/dtheta)^-1.
// A group's factor kept from step to step (GroupFactor) gives the solution a fresh factorisation gives, bit for
// bit, while G's pattern holds, and analyses a changed pattern again. The springs close a ring, so that the sparse
// LU solves the group (a chain or a tree is eliminated block by block, block_forest.h).
TEST(ImplicitIntegrator, KeptFactorSolvesAsAFreshOne) {
  std::vector<IntegratorBody> bodies;
  for (int i = 0; i < 4; ++i) bodies.push_back(point_body(1.0 + i, Vec3(0.1 * i, 0.2, -0.3 * i), Vec3(i, -1, 0.5)));
  auto chain = [&](double k, int links) {
    std::vector<PairForce> forces;
    for (int i = 0; i < links + 1; ++i) {
      PairForce f;
      f.a = i;
      f.b = i < links ? i + 1 : 0;  // the last spring closes the ring
      const Vec3 d = bodies[size_t(f.b)].pose.x - bodies[size_t(i)].pose.x;
      f.wrench.segment<3>(0) = k * d;
      f.wrench.segment<3>(6) = -k * d;
      const Mat3 K = k * (Mat3::Identity() + 0.1 * d * d.transpose());
      f.d_pos.block<3, 3>(0, 0) = -K;
      f.d_pos.block<3, 3>(0, 6) = K;
      f.d_pos.block<3, 3>(6, 0) = K;
      f.d_pos.block<3, 3>(6, 6) = -K;
      forces.push_back(f);
    }
    return forces;
  };
  std::vector<int> group = {0, 1, 2, 3}, slot = {0, 1, 2, 3};
  GroupFactor kept;
  const double h = 0.01;
  for (int step = 0; step < 6; ++step) {
    const std::vector<PairForce> forces = chain(100.0 * (step + 1), step < 3 ? 3 : 2);  // the pattern changes
    std::vector<int> which(forces.size());
    for (size_t i = 0; i < forces.size(); ++i) which[i] = int(i);
    GroupSystem system;
    assemble_group(group, bodies, forces, which, slot, h, Integrator::Implicit, system);
    Eigen::VectorXd fresh, reused;
    ASSERT_TRUE(solve_group(system, h, fresh));
    ASSERT_TRUE(solve_group(system, h, reused, &kept));
    EXPECT_TRUE(fresh == reused) << "step " << step;
    EXPECT_LT((system.G * reused - h * system.Z).norm(), 1e-12 * (h * system.Z).norm()) << "step " << step;
  }
}

TEST(ImplicitIntegrator, RotationMapIsIdentityWithoutSpinAndExplicit) {
  BodyPose p;
  p.inv_inertia = Vec3(1.0, 0.5, 0.25).asDiagonal();
  p.w = Vec3::Zero();
  EXPECT_TRUE(rotation_map(p, 0.01, Integrator::Implicit).isApprox(Mat3::Identity()));
  p.w = Vec3(1, 2, 3);
  p.L = p.inv_inertia.inverse() * p.w;
  EXPECT_TRUE(rotation_map(p, 0.01, Integrator::Explicit).isApprox(Mat3::Identity()));
  const Mat3 V = rotation_map(p, 0.01, Integrator::Implicit);
  const Mat3 expected = (Mat3::Identity() - 0.01 * (p.inv_inertia * skew(p.L) - skew(p.w))).inverse();
  EXPECT_TRUE(V.isApprox(expected, 1e-14));
  // For a sphere (isotropic inertia) w is parallel to L: dw/dtheta = 0 and V = I.
  p.inv_inertia = Mat3::Identity() * 2.0;
  p.L = p.inv_inertia.inverse() * p.w;
  EXPECT_TRUE(rotation_map(p, 0.01, Integrator::Implicit).isApprox(Mat3::Identity(), 1e-14));
}

}  // namespace
}  // namespace cl::implicit_penalty
