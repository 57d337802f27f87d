// Ray casts checked against closed-form cases and against sphere tracing of exact signed distance
// functions (an independent way to find the first surface point along a ray).
#include "collision/raycast.h"

#include "collision/mesh_shape.h"
#include "mesh/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "core/body.h"
#include "support/builders.h"

namespace cl {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Shape plane_shape_of(Vec3 n, double offset) {
  Shape s; s.type = ShapeType::Plane; s.normal = n.normalized(); s.offset = offset; return s;
}

// Exact signed distance in the body frame (negative inside).
double local_sdf(const Shape& s, const Vec3& p) {
  switch (s.type) {
    case ShapeType::Plane: return s.normal.dot(p) - s.offset;
    case ShapeType::Sphere: return p.norm() - s.radius;
    case ShapeType::Box: {
      const Vec3 q = p.cwiseAbs() - s.half_extents;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case ShapeType::Capsule: {
      const Vec3 c(0, std::clamp(p.y(), -s.half_height, s.half_height), 0);
      return (p - c).norm() - s.radius;
    }
    case ShapeType::Mesh: return kInf;  // not used: meshes have their own test
  }
  return kInf;
}

double world_sdf(const Shape& s, const Vec3& pos, const Quat& q, const Vec3& x) {
  return local_sdf(s, q.toRotationMatrix().transpose() * (x - pos));
}

// Sphere tracing: with an exact SDF each step is safe, so the first zero crossing is found.
// Returns the distance, kInf on a miss, or NaN when the ray grazes the surface (ambiguous).
double trace(const Shape& s, const Vec3& pos, const Quat& q, const Vec3& o, const Vec3& d, double t_max) {
  const Vec3 u = d.normalized();
  double t = 0.0, closest = kInf;
  for (int i = 0; i < 200000 && t <= t_max; ++i) {
    const double dist = world_sdf(s, pos, q, o + t * u);
    if (dist < 1e-11) return t;
    closest = std::min(closest, dist);
    t += dist;
  }
  return closest < 1e-5 ? std::nan("") : kInf;
}

// Draws in a fixed order: the order in which a call's arguments are evaluated is unspecified (GCC goes right to
// left, clang left to right), so Vec3(u(rng), u(rng), u(rng)) would give each compiler another sample.
template <class Dist>
Vec3 draw3(Dist& d, std::mt19937& rng) {
  const double x = d(rng);
  const double y = d(rng);
  const double z = d(rng);
  return {x, y, z};
}

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  const Vec3 v = draw3(g, rng);
  const double w = g(rng);
  Quat q(w, v.x(), v.y(), v.z());
  q.normalize();
  return q;
}

// --- closed-form cases ------------------------------------------------------------------------------

TEST(Raycast, SphereHeadOn) {
  const auto h = raycast_shape(test::sphere(2.0), Vec3(1, 0, 0), Quat::Identity(), Vec3(1, 0, 10), Vec3(0, 0, -3));
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->distance, 8.0, 1e-12);  // metres, even though dir has length 3
  EXPECT_TRUE(h->point.isApprox(Vec3(1, 0, 2), 1e-12));
  EXPECT_TRUE(h->normal.isApprox(Vec3(0, 0, 1), 1e-12));
}

TEST(Raycast, SphereMissesAndPointingAway) {
  const Shape s = test::sphere(1.0);
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 1.01, 5), Vec3(0, 0, -1)));
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 5), Vec3(0, 0, 1)));
  // Within reach only beyond max_distance.
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 5), Vec3(0, 0, -1), 3.9));
  EXPECT_TRUE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 5), Vec3(0, 0, -1), 4.0));
}

TEST(Raycast, StartingInsideHitsAtTheOrigin) {
  const Vec3 dir = Vec3(1, 2, -0.5).normalized();
  const Quat q = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 1, 0).normalized()));
  const Vec3 pos(3, -1, 2);
  for (const Shape& s : {test::sphere(1.0), test::box(Vec3(1, 0.5, 2)), test::capsule(0.4, 1.0),
                         plane_shape_of(Vec3(0, 1, 0), 0.5)}) {
    const Vec3 origin = pos + q * Vec3(0.1, 0.2, -0.1);
    const auto h = raycast_shape(s, pos, q, origin, dir);
    ASSERT_TRUE(h) << shape_type_name(s.type);
    EXPECT_EQ(h->distance, 0.0);
    EXPECT_TRUE(h->point.isApprox(origin));
    EXPECT_TRUE(h->normal.isApprox(-dir, 1e-12));
  }
}

TEST(Raycast, RotatedBoxFace) {
  // A box turned 90 degrees about y: its local x half extent (3) now lies along world z.
  const Quat q(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()));
  const auto h = raycast_shape(test::box(Vec3(3, 1, 0.5)), Vec3(0, 0, 0), q, Vec3(0, 0, 10), Vec3(0, 0, -1));
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->distance, 7.0, 1e-12);
  EXPECT_TRUE(h->normal.isApprox(Vec3(0, 0, 1), 1e-12));
  // Parallel to a slab and outside it: miss.
  EXPECT_FALSE(raycast_shape(test::box(Vec3(1, 1, 1)), Vec3::Zero(), Quat::Identity(), Vec3(-5, 1.5, 0),
                             Vec3(1, 0, 0)));
}

TEST(Raycast, CapsuleSideAndCap) {
  const Shape s = test::capsule(0.5, 1.0);
  auto side = raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(4, 0.3, 0), Vec3(-1, 0, 0));
  ASSERT_TRUE(side);
  EXPECT_NEAR(side->distance, 3.5, 1e-12);
  EXPECT_TRUE(side->normal.isApprox(Vec3(1, 0, 0), 1e-12));
  auto cap = raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 5, 0), Vec3(0, -1, 0));
  ASSERT_TRUE(cap);
  EXPECT_NEAR(cap->distance, 3.5, 1e-12);  // top of the cap at y = 1.5
  EXPECT_TRUE(cap->normal.isApprox(Vec3(0, 1, 0), 1e-12));
  // Beside the top sphere, above the cylinder: misses the cylinder and just misses the sphere.
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(4, 1.0 + 0.51, 0), Vec3(-1, 0, 0)));
}

TEST(Raycast, PlaneFromAboveParallelAndAway) {
  const Shape s = plane_shape_of(Vec3(0, 1, 0), 0.5);  // y <= 0.5 in the body frame
  const Vec3 pos(0, 1, 0);                          // so y <= 1.5 in the world
  auto h = raycast_shape(s, pos, Quat::Identity(), Vec3(2, 5.5, 0), Vec3(0, -2, 0));
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->distance, 4.0, 1e-12);
  EXPECT_TRUE(h->normal.isApprox(Vec3(0, 1, 0)));
  EXPECT_FALSE(raycast_shape(s, pos, Quat::Identity(), Vec3(0, 5, 0), Vec3(1, 0, 0)));
  EXPECT_FALSE(raycast_shape(s, pos, Quat::Identity(), Vec3(0, 5, 0), Vec3(0, 1, 0)));
}

TEST(Raycast, DegenerateDirectionNeverHits) {
  const Shape s = test::sphere(1.0);
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 5), Vec3::Zero()));
  EXPECT_FALSE(raycast_shape(s, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 5), Vec3(0, 0, std::nan(""))));
}

// --- against sphere tracing -------------------------------------------------------------------------

class RaycastRandom : public ::testing::TestWithParam<int> {};

TEST_P(RaycastRandom, MatchesSphereTracing) {
  std::mt19937 rng(1234 + GetParam());
  std::uniform_real_distribution<double> u(-1.0, 1.0), size(0.2, 1.5);
  Shape s;
  switch (static_cast<ShapeType>(GetParam())) {
    case ShapeType::Plane: {
      const Vec3 normal = draw3(u, rng);
      s = plane_shape_of(normal, u(rng));
      break;
    }
    case ShapeType::Sphere: s = test::sphere(size(rng)); break;
    case ShapeType::Box: s = test::box(draw3(size, rng)); break;
    case ShapeType::Capsule: {
      const double radius = size(rng);
      s = test::capsule(radius, size(rng));
      break;
    }
    case ShapeType::Mesh: break;
  }
  int hits = 0, misses = 0, inside = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec3 pos = draw3(u, rng);
    const Quat q = random_rotation(rng);
    const Vec3 origin = pos + 4.0 * draw3(u, rng);
    // Aim near the body so that about half of the rays hit.
    const Vec3 aim = pos + 2.0 * draw3(u, rng);
    Vec3 dir = (aim - origin) * (0.5 + u(rng) * u(rng));
    // An unbounded plane is met by nearly every ray aimed near it: half of its rays are turned around, so that
    // misses are sampled as well as hits.
    const double turn = u(rng);
    if (s.type == ShapeType::Plane && turn < 0.0) dir = -dir;
    const double t_max = 50.0;
    const double expected = trace(s, pos, q, origin, dir, t_max);
    if (std::isnan(expected)) continue;  // grazing: either answer is right
    const auto h = raycast_shape(s, pos, q, origin, dir, t_max);
    if (expected == kInf) {
      EXPECT_FALSE(h) << "trial " << trial << " distance " << h->distance;
      ++misses;
      continue;
    }
    ASSERT_TRUE(h) << "trial " << trial << " expected " << expected;
    EXPECT_NEAR(h->distance, expected, 1e-7) << "trial " << trial;
    EXPECT_TRUE(h->point.isApprox(origin + expected * dir.normalized(), 1e-6));
    EXPECT_NEAR(h->normal.norm(), 1.0, 1e-12);
    if (expected == 0.0) {
      ++inside;
      EXPECT_TRUE(h->normal.isApprox(-dir.normalized(), 1e-12));
      continue;
    }
    ++hits;
    // The normal points out of the surface: stepping along it leaves the shape at unit rate.
    const double eps = 1e-5;
    EXPECT_NEAR(world_sdf(s, pos, q, h->point + eps * h->normal), eps, 1e-8) << "trial " << trial;
    EXPECT_LT(h->normal.dot(dir), 1e-12);  // a ray enters against the normal
  }
  // The sample must exercise both outcomes (and inside starts for the solids).
  std::printf("%d hits, %d misses, %d inside\n", hits, misses, inside);
  EXPECT_GT(hits, 200);
  EXPECT_GT(misses, 200);
  if (s.type != ShapeType::Plane) {
    EXPECT_GT(inside, 0);
  }
}

// The analytic shapes (meshes are checked against the box they tessellate below).
INSTANTIATE_TEST_SUITE_P(AllShapes, RaycastRandom, ::testing::Range(0, int(ShapeType::Mesh)),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(shape_type_name(static_cast<ShapeType>(info.param)));
                         });

}  // namespace
}  // namespace cl

namespace cl {
// A mesh box hits where the primitive box does (the BVH path of raycast_shape).
TEST(Raycast, MeshAgreesWithTheBoxItTessellates) {
  std::string error;
  Shape mesh;
  mesh.type = ShapeType::Mesh;
  set_mesh(mesh, make_mesh_shape(make_box(Vec3(0.5, 0.25, 1.0), 3), MeshShapeOptions{16, 1.0}, &error));
  ASSERT_TRUE(mesh.mesh) << error;
  Shape box;
  box.type = ShapeType::Box;
  box.half_extents = Vec3(0.5, 0.25, 1.0);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Quat q(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  int hits = 0;
  for (int i = 0; i < 500; ++i) {
    const Vec3 origin = draw3(u, rng) * 4.0;
    const Vec3 dir = draw3(u, rng) * 0.8 - origin;  // mostly towards the box
    const auto a = raycast_shape(mesh, Vec3(0.1, 0.2, 0.3), q, origin, dir, 100.0);
    const auto b = raycast_shape(box, Vec3(0.1, 0.2, 0.3), q, origin, dir, 100.0);
    ASSERT_EQ(bool(a), bool(b)) << i;
    if (!a) continue;
    ++hits;
    EXPECT_NEAR(a->distance, b->distance, 1e-9) << i;
    if (a->distance > 0) {
      EXPECT_NEAR(a->normal.dot(b->normal), 1.0, 1e-9) << i;
    }
  }
  EXPECT_GT(hits, 100);
}
}  // namespace cl
