#include "mesh/triangulate.h"

#include <chrono>
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

namespace cl {
namespace {

// Signed area of the triangles in the xy plane (counter-clockwise positive).
double area_xy(const std::vector<Vec3>& v, const std::vector<std::array<int, 3>>& tris) {
  double a = 0;
  for (const auto& t : tris) a += 0.5 * (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]).z();
  return a;
}

std::vector<int> all(size_t n) {
  std::vector<int> c(n);
  for (size_t i = 0; i < n; ++i) c[i] = int(i);
  return c;
}

TEST(Triangulate, QuadAlongItsShorterDiagonal) {
  const std::vector<Vec3> v{{0, 0, 0}, {3, 0, 0}, {3.5, 1, 0}, {0.5, 1, 0}};  // 1-3 is shorter than 0-2
  std::vector<std::array<int, 3>> tris;
  ASSERT_EQ(triangulate_polygon(v, all(4), tris), "");
  ASSERT_EQ(tris.size(), 2u);
  EXPECT_EQ(tris[0], (std::array<int, 3>{0, 1, 3}));
  EXPECT_EQ(tris[1], (std::array<int, 3>{1, 2, 3}));
  EXPECT_NEAR(area_xy(v, tris), 3.0, 1e-12);
}

TEST(Triangulate, ConvexPolygonIsAFanInItsPlaneAndWinding) {
  // A regular 12-gon in a tilted plane, clockwise when seen from +z: the triangles keep the winding.
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  std::vector<Vec3> v;
  for (int i = 0; i < 12; ++i) v.push_back(q * Vec3(std::cos(-i * std::numbers::pi / 6), std::sin(-i * std::numbers::pi / 6), 0) + Vec3(5, -2, 1));
  std::vector<std::array<int, 3>> tris;
  ASSERT_EQ(triangulate_polygon(v, all(12), tris), "");
  ASSERT_EQ(tris.size(), 10u);
  const Vec3 n = q * Vec3(0, 0, -1);
  double area = 0;
  for (const auto& t : tris) {
    EXPECT_EQ(t[0], 0);  // a fan from the first corner
    area += 0.5 * (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]).dot(n);
  }
  EXPECT_NEAR(area, 0.5 * 12 * std::sin(std::numbers::pi / 6), 1e-12);
}

TEST(Triangulate, ConcavePolygonsAreEarClipped) {
  // An L away from the origin, and a comb with five teeth: the area is kept and every triangle turns left.
  const std::vector<Vec3> l{{0, 0, 0}, {2, 0, 0}, {2, 1, 0}, {1, 1, 0}, {1, 2, 0}, {0, 2, 0}};
  std::vector<Vec3> shifted = l;
  for (Vec3& p : shifted) p += Vec3(-5, 3, 0);
  std::vector<std::array<int, 3>> tris;
  ASSERT_EQ(triangulate_polygon(shifted, all(6), tris), "");
  EXPECT_EQ(tris.size(), 4u);
  EXPECT_NEAR(area_xy(shifted, tris), 3.0, 1e-12);

  std::vector<Vec3> comb{{0, 0, 0}, {10, 0, 0}};
  for (int t = 4; t >= 0; --t) {
    comb.push_back(Vec3(2 * t + 2, 3, 0));
    comb.push_back(Vec3(2 * t + 1, 3, 0));
    comb.push_back(Vec3(2 * t + 1, 1, 0));
    comb.push_back(Vec3(2 * t, 1, 0));
  }
  tris.clear();
  ASSERT_EQ(triangulate_polygon(comb, all(comb.size()), tris), "");
  EXPECT_EQ(tris.size(), comb.size() - 2);
  EXPECT_NEAR(area_xy(comb, tris), 10 * 1 + 5 * 2, 1e-12);
  for (const auto& t : tris) EXPECT_GT((comb[t[1]] - comb[t[0]]).cross(comb[t[2]] - comb[t[0]]).z(), 0);
}

TEST(Triangulate, SelfIntersectingAndFlatPolygonsAreRefused) {
  // A pentagram (every turn to the left, but it winds twice: ear clipping alone would cut it into overlapping
  // ears), a crossed hexagon with area, a bow tie (equal areas either way: none in all) and a polygon on a line.
  std::vector<std::array<int, 3>> tris;
  std::vector<Vec3> star;
  for (int i = 0; i < 5; ++i) star.push_back(Vec3(std::cos(i * 4 * std::numbers::pi / 5), std::sin(i * 4 * std::numbers::pi / 5), 0));
  const std::string why = triangulate_polygon(star, all(5), tris);
  EXPECT_NE(why.find("intersects itself"), std::string::npos) << why;
  const std::vector<Vec3> crossed{{0, 0, 0}, {4, 0, 0}, {4, 3, 0}, {1, 3, 0}, {3, -1, 0}, {0, 2, 0}};
  EXPECT_NE(triangulate_polygon(crossed, all(6), tris).find("intersects itself"), std::string::npos);
  const std::vector<Vec3> bow{{0, 0, 0}, {1, 1, 0}, {2, 0, 0}, {2, 1, 0}, {1, 0, 0}, {0, 1, 0}};
  EXPECT_NE(triangulate_polygon(bow, all(6), tris), "");
  const std::vector<Vec3> line{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}};
  EXPECT_NE(triangulate_polygon(line, all(5), tris).find("no area"), std::string::npos);
  EXPECT_TRUE(tris.empty());  // nothing is appended for a refused polygon
}

TEST(Triangulate, LargeConvexPolygonInLinearTimeLargeConcaveRefused) {
  // 60,000 sides: the fan is linear (tinyobjloader's ear clipping took 4.8 s on 20,000).
  const int n = 60000;
  std::vector<Vec3> v;
  for (int i = 0; i < n; ++i) v.push_back(Vec3(std::cos(2 * std::numbers::pi * i / n), std::sin(2 * std::numbers::pi * i / n), 0));
  std::vector<std::array<int, 3>> tris;
  ASSERT_EQ(triangulate_polygon(v, all(n), tris), "");
  EXPECT_EQ(tris.size(), size_t(n - 2));
  EXPECT_NEAR(area_xy(v, tris), std::numbers::pi, 1e-6);
  // A non-convex polygon past the ear-clipping limit is refused with the limit named.
  v.push_back(Vec3(0, 0, 0));
  tris.clear();
  const std::string why = triangulate_polygon(v, all(v.size()), tris);
  EXPECT_NE(why.find("not star-shaped"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(kMaxConcavePolygonCorners)), std::string::npos) << why;
  // Past the most corners a face may have, any polygon is refused at once.
  std::vector<Vec3> big;
  for (int i = 0; i <= kMaxPolygonCorners; ++i) big.push_back(Vec3(std::cos(1e-5 * i), std::sin(1e-5 * i), 0));
  EXPECT_NE(triangulate_polygon(big, all(big.size()), tris).find("more than the 65536 corners"), std::string::npos);
}

}  // namespace
}  // namespace cl
