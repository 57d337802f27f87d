// The tests on single triangles (mesh/triangle.h); the BVH's queries built on them are tested in bvh_test.cpp.
#include "mesh/triangle.h"

#include <gtest/gtest.h>

#include <random>

namespace cl {
namespace {

// Independent test for non-coplanar triangles: they meet iff an edge of one crosses the other.
bool edges_cross(const Vec3 a[3], const Vec3 b[3]) {
  for (int s = 0; s < 2; ++s) {
    const Vec3* p = s ? b : a;
    const Vec3* q = s ? a : b;
    for (int k = 0; k < 3; ++k) {
      double t;
      if (ray_triangle(p[k], p[(k + 1) % 3] - p[k], q[0], q[1], q[2], 0, 1, &t, nullptr, nullptr)) return true;
    }
  }
  return false;
}

TEST(Triangle, OverlapAgreesWithEdgeCrossingTest) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int overlaps = 0;
  for (int i = 0; i < 20000; ++i) {
    Vec3 a[3], b[3];
    for (auto& x : a) x = Vec3(u(rng), u(rng), u(rng));
    for (auto& x : b) x = Vec3(u(rng), u(rng), u(rng)) + Vec3(0.5, 0, 0);
    const bool o = triangles_overlap(a[0], a[1], a[2], b[0], b[1], b[2]);
    ASSERT_EQ(o, edges_cross(a, b)) << "pair " << i;
    overlaps += o;
  }
  EXPECT_GT(overlaps, 1000);
  EXPECT_LT(overlaps, 19000);
  // coplanar cases
  const Vec3 a0(0, 0, 0), a1(1, 0, 0), a2(0, 1, 0);
  EXPECT_TRUE(triangles_overlap(a0, a1, a2, Vec3(0.2, 0.2, 0), Vec3(2, 0.2, 0), Vec3(0.2, 2, 0)));
  EXPECT_TRUE(triangles_overlap(a0, a1, a2, Vec3(0.1, 0.1, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.2, 0)));  // contained
  EXPECT_FALSE(triangles_overlap(a0, a1, a2, Vec3(0.6, 0.6, 0), Vec3(2, 0.6, 0), Vec3(0.6, 2, 0)));
  EXPECT_TRUE(triangles_overlap(a0, a1, a2, Vec3(0.5, 0.5, 0), Vec3(2, 0.5, 0), Vec3(0.5, 2, 0)));  // touching
  EXPECT_FALSE(triangles_overlap(a0, a1, a2, Vec3(0.2, 0.2, 1e-9), Vec3(2, 0.2, 1e-9), Vec3(0.2, 2, 1e-9)));
  // vertex touching a face, edge crossing an edge
  EXPECT_TRUE(triangles_overlap(a0, a1, a2, Vec3(0.2, 0.2, 0), Vec3(0.2, 0.3, 1), Vec3(0.3, 0.2, 1)));
  EXPECT_TRUE(triangles_overlap(a0, a1, a2, Vec3(0.5, -0.5, -1), Vec3(0.5, -0.5, 1), Vec3(0.5, 0.5, 0)));
}

}  // namespace
}  // namespace cl
