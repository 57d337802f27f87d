// The physical contact model's friction patch (Xu, Zhao, Barbic 2014, sec. 4, our patch form): one normal row
// holding the pair's normal impulse, two tangent rows at the centre of its pressure bounded by mu times it, and a
// twist row bounded by mu times it times the pressure's mean lever.
#include "solvers/implicit_penalty/patch_friction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/builders.h"

namespace cl::implicit_penalty {
namespace {

// A 1 m box (b) on a fixed plane (a): its 5 x 5 bottom points, the deeper towards +x (a pressure shifted onto
// its leading edge), all inside the plane's field.
struct Resting {
  std::vector<Body> bodies;
  std::vector<PenetratingPoint> points;
  Resting(const Vec3& v, const Vec3& w) {
    bodies.push_back(test::make_body(test::sphere(1), Vec3::Zero(), Quat::Identity(), 0.0, BodyKind::Fixed));
    bodies.push_back(test::make_body(test::box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5, 0), Quat::Identity(), 1000.0));
    bodies[1].linear_velocity = v;
    bodies[1].angular_velocity = w;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) {
        PenetratingPoint p;
        p.index = 5 * i + j;
        p.r_b = Vec3(-0.4 + 0.2 * i, -0.5, -0.4 + 0.2 * j);
        p.n_b = Vec3(0, -1, 0);
        p.g_a = Vec3(0, 1, 0);
        p.d = -1e-3 * (1 + i);  // 1 to 5 mm
        points.push_back(p);
      }
  }
};

PatchFrictionSettings settings(double mu) {
  PatchFrictionSettings s;
  s.k = 1e5;
  s.mu = mu;
  s.dynamic_ratio = 0.8;
  s.slip_speed = 0.01;
  s.h = 0.01;
  return s;
}

std::vector<InverseMass> masses(const std::vector<Body>& bodies) {
  std::vector<InverseMass> m;
  load_inverse_masses(bodies, m);
  return m;
}

TEST(PatchFriction, RowsHoldThePairsNormalImpulseAtItsCentreOfPressure) {
  Resting r(Vec3::Zero(), Vec3::Zero());
  const PatchSide side{&r.points, 0, 1};
  Row rows[kPatchRows];
  ASSERT_TRUE(patch_friction_rows(0, 1, std::span<const PatchSide>(&side, 1), r.bodies, settings(0.5), masses(r.bodies),
                                  7, rows));
  // N = h k sum |d| = 0.01 s x 1e5 N/m x 5 x (1 + 2 + 3 + 4 + 5) mm.
  const double N = 0.01 * 1e5 * 5 * 15e-3;
  EXPECT_NEAR(rows[0].lambda, N, 1e-12 * N);
  EXPECT_EQ(rows[0].lo, rows[0].lambda);
  EXPECT_EQ(rows[0].hi, rows[0].lambda);
  // The pressure's centre: x = sum (1 + i)(-0.4 + 0.2 i) / 15 = 2/15 m towards the deeper edge, on the face.
  const Vec3 centre(2.0 / 15, 0, 0);
  for (int k = 1; k <= 2; ++k) {
    EXPECT_EQ(rows[k].normal_row, 7);
    EXPECT_EQ(rows[k].mu, 0.5);  // at rest: static
    EXPECT_TRUE(rows[k].follows);
    EXPECT_NEAR(rows[k].jb_lin.dot(Vec3(0, 1, 0)), 0.0, 1e-12);  // in the tangent plane
    // J u is the velocity of b's point at the centre: its angular part is (centre - x_b) x t.
    EXPECT_LT((rows[k].jb_ang - (centre - r.bodies[1].position).cross(rows[k].jb_lin)).norm(), 1e-12);
  }
  // Twist: about the normal, bounded by mu times the pressure's mean lever about the centre.
  double lever = 0.0;
  for (const PenetratingPoint& p : r.points) {
    const Vec3 at = r.bodies[1].position + p.r_b - centre;
    lever += -p.d * Vec3(at.x(), 0, at.z()).norm();
  }
  lever /= 75e-3;
  EXPECT_LT((rows[3].jb_ang - Vec3(0, 1, 0)).norm(), 1e-12);
  EXPECT_LT(rows[3].jb_lin.norm() + rows[3].ja_lin.norm(), 1e-12);
  EXPECT_NEAR(rows[3].mu, 0.5 * lever, 1e-12);
}

TEST(PatchFriction, ASlidingPatchTakesTheDynamicCoefficientAlongItsSliding) {
  Resting r(Vec3(2, 0, 1), Vec3::Zero());
  const PatchSide side{&r.points, 0, 1};
  Row rows[kPatchRows];
  ASSERT_TRUE(patch_friction_rows(0, 1, std::span<const PatchSide>(&side, 1), r.bodies, settings(0.5), masses(r.bodies),
                                  0, rows));
  EXPECT_NEAR(rows[1].mu, 0.4, 1e-15);
  EXPECT_LT((rows[1].jb_lin - Vec3(2, 0, 1).normalized()).norm(), 1e-12);
  EXPECT_NEAR(rows[2].jb_lin.dot(Vec3(2, 0, 1)), 0.0, 1e-12);
  // Not turning: the twist keeps the static coefficient, as at rest.
  Resting still(Vec3::Zero(), Vec3::Zero());
  const PatchSide still_side{&still.points, 0, 1};
  Row resting[kPatchRows];
  ASSERT_TRUE(patch_friction_rows(0, 1, std::span<const PatchSide>(&still_side, 1), still.bodies, settings(0.5),
                                  masses(still.bodies), 0, resting));
  EXPECT_EQ(rows[3].mu, resting[3].mu);
  // Turning about the normal at 1 rad/s (0.3 m/s at the mean lever): the dynamic coefficient.
  Resting turning(Vec3::Zero(), Vec3(0, 1, 0));
  const PatchSide turning_side{&turning.points, 0, 1};
  Row turned[kPatchRows];
  ASSERT_TRUE(patch_friction_rows(0, 1, std::span<const PatchSide>(&turning_side, 1), turning.bodies, settings(0.5),
                                  masses(turning.bodies), 0, turned));
  EXPECT_NEAR(turned[3].mu, 0.8 * resting[3].mu, 1e-15);
}

TEST(PatchFriction, PointsLeavingOrSideOnGiveNoFriction) {
  // Leaving faster than the spring pushes (f = k |d| - k h v_n <= 0): no patch.
  Resting leaving(Vec3(0, 10, 0), Vec3::Zero());
  PatchSide side{&leaving.points, 0, 1};
  Row rows[kPatchRows];
  EXPECT_FALSE(patch_friction_rows(0, 1, std::span<const PatchSide>(&side, 1), leaving.bodies, settings(0.5),
                                   masses(leaving.bodies), 0, rows));
  // A side face dipping in (its normal 90 degrees from the gradient): no patch.
  Resting side_on(Vec3::Zero(), Vec3::Zero());
  for (PenetratingPoint& p : side_on.points) p.n_b = Vec3(1, 0, 0);
  side.points = &side_on.points;
  EXPECT_FALSE(patch_friction_rows(0, 1, std::span<const PatchSide>(&side, 1), side_on.bodies, settings(0.5),
                                   masses(side_on.bodies), 0, rows));
}

}  // namespace
}  // namespace cl::implicit_penalty
