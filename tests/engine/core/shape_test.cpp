#include "core/shape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numbers>
#include <random>

#include "core/body.h"

namespace cl {

namespace {
// Monte Carlo volume and inertia of a shape given by an inside test, over its bounding box.
template <class Inside>
void monte_carlo(const Vec3& half, Inside inside, double& volume, Mat3& unit_inertia) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 400000;
  int hits = 0;
  Mat3 sum = Mat3::Zero();
  for (int i = 0; i < n; ++i) {
    const Vec3 x(u(rng) * half.x(), u(rng) * half.y(), u(rng) * half.z());
    if (!inside(x)) continue;
    ++hits;
    sum += x.squaredNorm() * Mat3::Identity() - x * x.transpose();
  }
  volume = 8.0 * half.prod() * hits / n;
  unit_inertia = sum / hits;
}
}  // namespace

TEST(Shape, SphereVolumeAndInertia) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.radius = 0.7;
  EXPECT_NEAR(shape_volume(s), 4.0 / 3.0 * std::numbers::pi * 0.343, 1e-12);
  EXPECT_TRUE(shape_unit_inertia(s).isApprox(Mat3::Identity() * 0.4 * 0.49));
}

TEST(Shape, BoxInertiaClosedForm) {
  Body b;
  b.shape.type = ShapeType::Box;
  b.shape.half_extents = Vec3(0.5, 1.0, 1.5);
  b.set_mass_properties(1000.0, 0.0);
  EXPECT_NEAR(b.mass, 6000.0, 1e-9);
  // I = m/12 (b^2 + c^2) etc. with full sizes 1, 2, 3.
  EXPECT_NEAR(b.inertia_body(0, 0), 6000.0 / 12.0 * (4 + 9), 1e-9);
  EXPECT_NEAR(b.inertia_body(1, 1), 6000.0 / 12.0 * (1 + 9), 1e-9);
  EXPECT_NEAR(b.inertia_body(2, 2), 6000.0 / 12.0 * (1 + 4), 1e-9);
}

TEST(Shape, CapsuleMatchesMonteCarlo) {
  Shape s;
  s.type = ShapeType::Capsule;
  s.radius = 0.3;
  s.half_height = 0.5;
  double volume;
  Mat3 inertia;
  monte_carlo(Vec3(0.3, 0.8, 0.3),
              [&](const Vec3& x) {
                const double y = std::clamp(x.y(), -0.5, 0.5);
                return (x - Vec3(0, y, 0)).norm() <= 0.3;
              },
              volume, inertia);
  EXPECT_NEAR(shape_volume(s), volume, 0.005 * volume);
  const Mat3 exact = shape_unit_inertia(s);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(exact(k, k), inertia(k, k), 0.01 * exact(k, k)) << k;
}

TEST(Shape, MassGivenDirectlyScalesInertia) {
  Body b;
  b.shape.type = ShapeType::Sphere;
  b.shape.radius = 2.0;
  b.set_mass_properties(0.0, 3.0);
  EXPECT_DOUBLE_EQ(b.mass, 3.0);
  EXPECT_NEAR(b.inertia_body(1, 1), 0.4 * 3.0 * 4.0, 1e-12);
}

TEST(Shape, FixedBodiesHaveInfiniteMass) {
  Body b;
  b.kind = BodyKind::Fixed;
  b.shape.type = ShapeType::Box;
  b.set_mass_properties(1000.0, 0.0);
  EXPECT_EQ(b.inv_mass, 0.0);
  EXPECT_TRUE(b.inv_inertia_world.isZero());
}

TEST(Shape, AabbContainsRotatedBox) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = Vec3(1, 2, 3);
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, 1, 0).normalized()));
  const Aabb box = shape_aabb(s, Vec3(1, 2, 3), q);
  for (int c = 0; c < 8; ++c) {
    const Vec3 local((c & 1) ? 1 : -1, (c & 2) ? 2 : -2, (c & 4) ? 3 : -3);
    const Vec3 x = Vec3(1, 2, 3) + q * local;
    EXPECT_TRUE((x.array() >= box.lo.array() - 1e-12).all() && (x.array() <= box.hi.array() + 1e-12).all());
  }
}

// The point speed bounds the speed of every corner of a spinning, moving box, and a corner of one whose spin is
// perpendicular to the corner's direction reaches it.
TEST(Shape, PointSpeedBoundsEveryCorner) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = Vec3(1, 2, 3);
  const Vec3 v(0.3, -0.2, 0.1), w(0.5, 1.5, -0.7);
  const double bound = shape_point_speed(s, v, w);
  for (int c = 0; c < 8; ++c) {
    const Vec3 r((c & 1) ? 1 : -1, (c & 2) ? 2 : -2, (c & 4) ? 3 : -3);
    EXPECT_LE((v + w.cross(r)).norm(), bound + 1e-12);
  }
  const Vec3 corner(1, 2, 3), spin = corner.unitOrthogonal();
  EXPECT_NEAR(shape_point_speed(s, Vec3::Zero(), spin), (spin.cross(corner)).norm(), 1e-12);
  // Not turning, every point moves at v; a turning plane's points, unbounded, have no bound on their speed.
  EXPECT_EQ(shape_point_speed(s, v, Vec3::Zero()), v.norm());
  Shape plane;
  plane.type = ShapeType::Plane;
  EXPECT_EQ(shape_point_speed(plane, v, w), std::numeric_limits<double>::infinity());
}

}  // namespace cl
