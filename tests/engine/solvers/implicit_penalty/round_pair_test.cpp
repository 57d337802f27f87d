// Two round bodies (spheres, capsules) under the physical contact model: the pair's force along the line of their
// centres or axes (round_pair.h), its gradients against finite differences, and the thesis scene S15 (a light
// ball under one 8000 times heavier, scenes/two_balls.json) across time steps and sizes.
#include "solvers/implicit_penalty/round_pair.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "support/builders.h"
#include "world/world.h"

namespace cl {
namespace {

using implicit_penalty::BodyPose;
using implicit_penalty::GradientMode;
using implicit_penalty::PairForce;
using implicit_penalty::RoundAxes;

BodyPose pose(const Vec3& x, const Quat& q, const Vec3& v = Vec3::Zero(), const Vec3& w = Vec3::Zero()) {
  BodyPose p;
  p.x = x;
  p.R = q.toRotationMatrix();
  p.v = v;
  p.w = w;
  return p;
}

// The wrench of a pair whose force is a spring K (R - D) on the axes' distance D, and its d_pos against central
// differences in x_a, theta_a, x_b, theta_b (theta: world rotation, R -> exp([dtheta]x) R).
void expect_exact_position_gradient(const Shape& sa, const BodyPose& a0, const Shape& sb, const BodyPose& b0) {
  const double K = 1e4, R = sa.radius + sb.radius;
  auto wrench = [&](const BodyPose& a, const BodyPose& b, PairForce* out) {
    const RoundAxes axes = implicit_penalty::round_axes(sa, a, sb, b);
    const double D = (axes.b - axes.a).norm();
    PairForce f;
    implicit_penalty::add_round_pair_force(a, b, axes, K * (R - D), K, 0.0, GradientMode::Exact, Vec3::UnitY(), f);
    if (out) *out = f;
    return f.wrench;
  };
  PairForce f;
  wrench(a0, b0, &f);
  ASSERT_GT(f.wrench.segment<3>(6).norm(), 0.0);
  const double e = 1e-6;
  for (int j = 0; j < 12; ++j) {
    auto moved = [&](double step) {
      BodyPose a = a0, b = b0;
      BodyPose& body = j < 6 ? a : b;
      const int k = j % 6;
      Vec3 d = Vec3::Zero();
      d[k % 3] = step;
      if (k < 3) body.x += d;
      else body.R = Eigen::AngleAxisd(step, Vec3::Unit(k % 3)).toRotationMatrix() * body.R;
      return wrench(a, b, nullptr);
    };
    const implicit_penalty::Vec12 fd = (moved(e) - moved(-e)) / (2 * e);
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(f.d_pos(i, j), fd[i], 1e-5 * K) << "row " << i << " column " << j;
  }
}

TEST(RoundPair, ExactGradientsMatchFiniteDifferencesForTwoBalls) {
  expect_exact_position_gradient(test::sphere(0.5), pose(Vec3(0.1, 0.0, -0.05), Quat(0.9, 0.1, 0.3, 0.2).normalized()),
                                 test::sphere(0.3), pose(Vec3(0.3, 0.7, 0.2), Quat(0.8, -0.2, 0.1, 0.4).normalized()));
}

// A ball on a tilted capsule's end: the end is a clamped closest point, a material point of the capsule.
TEST(RoundPair, ExactGradientsMatchFiniteDifferencesForABallOnACapsuleEnd) {
  const Quat tilt(Eigen::AngleAxisd(0.4, Vec3(0.3, 0, 1).normalized()));
  const BodyPose capsule = pose(Vec3(0, 0, 0), tilt);
  const Vec3 end = capsule.x + capsule.R * Vec3(0, 0.6, 0);
  expect_exact_position_gradient(test::capsule(0.2, 0.6), capsule, test::sphere(0.25),
                                 pose(end + Vec3(0.1, 0.4, 0.05), Quat::Identity()));
}

// The force passes through both centres (no torque on a ball) and through the middle of two parallel capsules'
// overlap (no torque on either about the line between their centres' overlap).
TEST(RoundPair, ForceActsThroughTheCentresAndTheAxes) {
  PairForce f;
  const BodyPose a = pose(Vec3(0, 0, 0), Quat::Identity()), b = pose(Vec3(0.2, 0.7, -0.1), Quat(0.7, 0.1, 0.5, 0.2).normalized());
  implicit_penalty::add_round_pair_force(a, b, implicit_penalty::round_axes(test::sphere(0.4), a, test::sphere(0.4), b),
                                         10.0, 1e3, 0.0, GradientMode::Exact, Vec3::UnitY(), f);
  EXPECT_LT(f.wrench.segment<3>(3).norm() + f.wrench.segment<3>(9).norm(), 1e-12);
  EXPECT_LT(f.wrench.segment<3>(6).normalized().cross(b.x - a.x).norm(), 1e-12);
  // Two capsules lying along z, b above a and shifted by 0.3 along its axis: pushed through the overlap's middle.
  const Quat along_z(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  const BodyPose ca = pose(Vec3(0, 0, 0), along_z), cb = pose(Vec3(0, 0.35, 0.3), along_z);
  const RoundAxes axes = implicit_penalty::round_axes(test::capsule(0.2, 0.5), ca, test::capsule(0.2, 0.5), cb);
  EXPECT_NEAR(axes.a.z(), 0.15, 1e-12);
  EXPECT_NEAR(axes.b.z(), 0.15, 1e-12);
}

// A ball and a box: the closest point of the box to the centre, and inside it the nearest face's normal.
TEST(RoundPair, BoxBallAxesAreTheClosestPointAndTheNearestFace) {
  const Quat q(Eigen::AngleAxisd(0.5, Vec3(1, 2, 0.5).normalized()));
  const BodyPose box = pose(Vec3(0.3, 1.0, -0.2), q);
  const Shape shape = test::box(Vec3(0.5, 0.25, 0.25));
  Vec3 outward;
  // Beyond a corner: the corner itself.
  const Vec3 corner = box.x + box.R * Vec3(0.5, 0.25, -0.25);
  const Vec3 centre = corner + box.R * Vec3(0.3, 0.2, -0.1);
  RoundAxes axes = implicit_penalty::box_ball_axes(shape, box, centre, outward);
  EXPECT_LT((axes.a - corner).norm(), 1e-12);
  EXPECT_LT((axes.b - centre).norm(), 1e-12);
  // Inside, nearest the +y face.
  const Vec3 inside = box.x + box.R * Vec3(0.1, 0.2, 0.0);
  axes = implicit_penalty::box_ball_axes(shape, box, inside, outward);
  EXPECT_LT((axes.a - inside).norm(), 1e-12);
  EXPECT_LT((outward - box.R * Vec3::UnitY()).norm(), 1e-12);
}

struct Balls {
  World w;
  int light = -1, heavy = -1;
};

// Thesis scene S15 (scenes/two_balls.json) scaled by `s`: a ball of radius 0.5 s, density 1, on a frictionless
// ground, under a ball of radius s, density 1000, the heavy one `offset` s to the side of the light one's top.
Balls two_balls(double s, double h, double offset) {
  Balls b;
  EXPECT_TRUE(b.w.set_solver("implicit-penalty", nullptr));
  b.w.settings.dt = h;
  const int mat = test::add_material(b.w, 0.0, 0.0);
  test::add_plane(b.w, Vec3(0, 1, 0), 0.0, mat);
  b.light = test::add_body(b.w, test::sphere(0.5 * s), Vec3(0, 0.5 * s, 0), 1.0, Quat::Identity(), mat);
  const double dx = offset * s, dy = std::sqrt(std::pow(1.5 * s, 2) - dx * dx);
  b.heavy = test::add_body(b.w, test::sphere(s), Vec3(dx, 0.5 * s + dy, 0), 1000.0, Quat::Identity(), mat);
  return b;
}

// Exactly aligned, the heavy ball stays on the light one (as lcp, volume and pid-penalty hold it): 600 steps at
// every time step and size. Along the points' own normals the light ball left sideways at 13.8 m/s within two
// steps (1 m heavy ball, h = 1/100 s) and the heavy one fell to the ground. Closed form: at rest, no lateral
// motion; each contact held at about its `penetration` (1 mm, less for small balls), so the heavy ball sinks
// by a few of them.
TEST(RoundPair, HeavyBallRestsOnALightBallAtEveryStepAndSize) {
  for (double s : {0.02, 0.25, 1.0, 4.0})
    for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 100, 1.0 / 200, 1.0 / 500, 1.0 / 1000}) {
      Balls b = two_balls(s, h, 0.0);
      const double y0 = b.w.bodies[size_t(b.heavy)].position.y();
      double lateral = 0.0, lowest = y0;
      for (int i = 0; i < 600; ++i) {
        ASSERT_TRUE(b.w.step().ok) << "s " << s << " h " << h << " step " << i;
        for (int k : {b.light, b.heavy}) {
          const Vec3& x = b.w.bodies[size_t(k)].position;
          lateral = std::max(lateral, std::hypot(x.x(), x.z()));
        }
        lowest = std::min(lowest, b.w.bodies[size_t(b.heavy)].position.y());
      }
      const double weight = b.w.bodies[size_t(b.heavy)].mass * 9.81;
      EXPECT_LT(lateral, 1e-9 * s) << "s " << s << " h " << h;
      EXPECT_LT(y0 - lowest, 5e-3) << "s " << s << " h " << h;
      // Settled: kinetic energy below a thousandth of the heavy ball's weight over one `penetration` (1 mm), the
      // scale of its contacts' springs (the 4 m pair at h = 1 ms still rings vertically at 4 mm/s after 0.6 s).
      EXPECT_LT(b.w.kinetic_energy(), 1e-3 * weight * 1e-3) << "s " << s << " h " << h;
    }
}

// Off-centre by a tenth of its radius, frictionless: the light ball is squeezed out to the other side (the
// contact's push has a sideways part W tan 3.8 degrees on 1/8000 of the mass), the heavy ball moves to its own
// side (by the same momentum) and falls to the ground, and the pair's energy never rises above its start.
TEST(RoundPair, HeavyBallOffCentreRollsOffItsOwnSide) {
  for (double s : {0.02, 1.0, 4.0})
    for (double h : {1.0 / 30, 1.0 / 100, 1.0 / 1000}) {
      Balls b = two_balls(s, h, 0.1);
      const double e0 = b.w.kinetic_energy() + b.w.potential_energy();
      double gained = 0.0;
      for (int i = 0; i < int(2.0 / h); ++i) {
        ASSERT_TRUE(b.w.step().ok) << "s " << s << " h " << h << " step " << i;
        gained = std::max(gained, b.w.kinetic_energy() + b.w.potential_energy() - e0);
      }
      const Body& heavy = b.w.bodies[size_t(b.heavy)];
      const Body& light = b.w.bodies[size_t(b.light)];
      EXPECT_GT(heavy.position.x(), 0.1 * s) << "s " << s << " h " << h;
      EXPECT_LT(heavy.position.y(), 1.1 * s) << "s " << s << " h " << h;
      EXPECT_LT(light.position.x(), -1.5 * s) << "s " << s << " h " << h;
      EXPECT_LT(std::abs(heavy.position.z()) + std::abs(light.position.z()), 1e-9 * s) << "s " << s << " h " << h;
      EXPECT_LE(gained, 1e-3 * std::abs(e0) + 1e-9) << "s " << s << " h " << h;
    }
}

}  // namespace
}  // namespace cl
