// The bottom of the penetration volume (Drumwright sect. III-A): points outside the polygon of the deeper points
// are kept, interior ones dropped, deepest first, deterministically.
#include "solvers/pid_penalty/bottom_polygon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

namespace cl::pid_penalty {
namespace {

// A 5 x 5 grid of points on a face lying flat (all equally deep): the corners, farthest from the centre, come
// first; every other point lies inside their square or on its edges and is dropped.
TEST(BottomPolygon, DropsTheInteriorOfAFlatFace) {
  std::vector<Vec3> points;
  std::vector<double> depth;
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 5; ++k) {
      points.emplace_back(i * 0.1, 0.0, k * 0.1);
      depth.push_back(0.01);
    }
  const std::vector<int> kept = bottom_of_penetration(points, depth, Vec3(0, 1, 0));
  EXPECT_EQ(kept, (std::vector<int>{0, 4, 20, 24}));
}

// A face tilted by a hair (0.01 mm per row, well within a level) is one level wherever its depths lie: its corners
// are kept and nothing else, also when its depths straddle a multiple of the level (0.2 mm), so the points that
// carry force do not change as the face rocks by a few microns.
TEST(BottomPolygon, ASlightlyTiltedFaceKeepsItsCornersWhereverItsDepthsLie) {
  for (const double base : {0.01, 0.00402, 0.00399, 0.0002}) {
    std::vector<Vec3> points;
    std::vector<double> depth;
    for (int i = 0; i < 5; ++i)
      for (int k = 0; k < 5; ++k) {
        points.emplace_back(i * 0.1, 0.0, k * 0.1);
        depth.push_back(base - 1e-5 * i);
      }
    EXPECT_EQ(bottom_of_penetration(points, depth, Vec3(0, 1, 0)), (std::vector<int>{0, 4, 20, 24})) << base;
  }
}

// A face tilted along x (0.5 mm per row, more than a depth level) and flat along z: row by row, deepest first,
// each row's two ends extend the polygon and its middle points lie on the polygon's edge and are dropped. The
// result does not depend on the order the points are given in.
TEST(BottomPolygon, TakesTheDeepestFirstAndIsDeterministic) {
  std::vector<Vec3> points;
  std::vector<double> depth;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) {
      points.emplace_back(i * 0.1, 0.0, k * 0.1);
      depth.push_back(0.02 - 0.0005 * i);
    }
  const std::vector<int> kept = bottom_of_penetration(points, depth, Vec3(0, 1, 0));
  EXPECT_EQ(kept, (std::vector<int>{0, 3, 4, 7, 8, 11, 12, 15}));
  std::vector<Vec3> rp(points.rbegin(), points.rend());
  std::vector<double> rd(depth.rbegin(), depth.rend());
  std::vector<int> again = bottom_of_penetration(rp, rd, Vec3(0, 1, 0));
  for (int& i : again) i = int(points.size()) - 1 - i;
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, kept);
}

// A spherical cap: each ring of shallower points lies outside the polygon of the deeper rings, so all are kept
// (as the paper's algorithm keeps them).
TEST(BottomPolygon, KeepsEveryRingOfACap) {
  std::vector<Vec3> points{Vec3(0, 0, 0)};
  std::vector<double> depth{0.01};
  for (int ring = 1; ring <= 3; ++ring)
    for (int j = 0; j < 8; ++j) {
      const double a = 2.0 * std::numbers::pi * j / 8.0 + 0.1 * ring;
      points.emplace_back(0.02 * ring * std::cos(a), 0.0, 0.02 * ring * std::sin(a));
      depth.push_back(0.01 - 0.002 * ring);
    }
  // The centre is inside the first ring's polygon but was taken first (deepest).
  EXPECT_EQ(bottom_of_penetration(points, depth, Vec3(0, 1, 0)).size(), points.size());
}

// A cap of a 0.5 m ball 1 mm deep sampled finely: its rings lie 0.1 mm apart in depth, so they chain into one
// level of the depth order (as a ball's shell rows do, 0.16 mm apart), yet the cap is no face. Taken outermost
// first, the rim's polygon dropped every deeper ring, the deepest point too, and a resting ball sank; a curved
// level keeps the paper's order, deepest first: the deepest point and every ring keep points.
TEST(BottomPolygon, KeepsTheDeepestPointsOfACapWhoseRingsChainIntoOneLevel) {
  const double r = 0.5, step = 1e-4;
  std::vector<Vec3> points{Vec3(0, 0, 0)};
  std::vector<double> depth{0.001};
  std::vector<int> ring_of{0};
  for (int ring = 1; ring <= 15; ++ring)
    for (int j = 0; j < 8; ++j) {
      const double a = 2.0 * std::numbers::pi * j / 8.0 + 0.1 * ring;
      const double rho = std::sqrt(2.0 * r * step * ring);  // depth 1 mm - rho^2 / 2r on the sphere
      points.emplace_back(rho * std::cos(a), 0.0, rho * std::sin(a));
      depth.push_back(0.001 - step * ring);
      ring_of.push_back(ring);
    }
  const std::vector<int> kept = bottom_of_penetration(points, depth, Vec3(0, 1, 0));
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front(), 0);  // the deepest
  std::vector<int> per_ring(16, 0);
  for (int i : kept) ++per_ring[size_t(ring_of[size_t(i)])];
  for (int ring = 0; ring <= 15; ++ring) EXPECT_GT(per_ring[size_t(ring)], 0) << "ring " << ring;
}

// The polygon grows one point at a time from its last hull; whatever the order, a dropped point must lie in the
// convex hull of the kept ones (it was inside the polygon of the points kept before it), on the contact plane. Grids
// of collinear rows turned by odd angles (points nearly on an edge's line, where the insertion is most fragile),
// deepest first on a random tilt and on a cap, checked against a hull built from scratch here.
TEST(BottomPolygon, EveryDroppedPointLiesInTheHullOfTheKeptOnes) {
  using P2 = std::pair<double, double>;
  const auto cross = [](const P2& o, const P2& a, const P2& b) {
    return (a.first - o.first) * (b.second - o.second) - (a.second - o.second) * (b.first - o.first);
  };
  uint32_t seed = 12345;
  const auto uniform = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return double(seed >> 8) / double(1u << 24);
  };
  for (int trial = 0; trial < 40; ++trial) {
    const double turn = 0.7 * trial + 0.013;
    const double c = std::cos(turn), s = std::sin(turn);
    const bool cap = trial % 2 == 1;
    const double tilt_u = 0.002 * (uniform() - 0.5), tilt_v = 0.002 * (uniform() - 0.5);
    std::vector<Vec3> points;
    std::vector<double> depth;
    for (int i = 0; i < 15; ++i)
      for (int k = 0; k < 15; ++k) {
        const double u = 0.02 * (i - 7), v = 0.02 * (k - 7);
        points.emplace_back(c * u - s * v, 0.0, s * u + c * v);
        depth.push_back(cap ? 0.001 - (u * u + v * v) / (2.0 * 0.3) : 0.001 + tilt_u * u / 0.14 + tilt_v * v / 0.14 +
                                                                          1e-3 * (i % 3 == 0 ? uniform() : 0.0));
      }
    const std::vector<int> kept = bottom_of_penetration(points, depth, Vec3(0, 1, 0), 1e-6);
    // The hull of the kept points (x, z), counter-clockwise (Andrew's monotone chain).
    std::vector<P2> q;
    for (int i : kept) q.emplace_back(points[size_t(i)].x(), points[size_t(i)].z());
    std::sort(q.begin(), q.end());
    std::vector<P2> h(2 * q.size() + 1);
    size_t n = 0;
    for (size_t i = 0; i < q.size(); ++i) {
      while (n >= 2 && cross(h[n - 2], h[n - 1], q[i]) <= 0.0) --n;
      h[n++] = q[i];
    }
    for (size_t i = q.size() - 1, t = n + 1; i > 0; --i) {
      while (n >= t && cross(h[n - 2], h[n - 1], q[i - 1]) <= 0.0) --n;
      h[n++] = q[i - 1];
    }
    h.resize(n - 1);
    ASSERT_GE(h.size(), 3u) << "trial " << trial;
    for (size_t i = 0; i < points.size(); ++i) {
      if (std::binary_search(kept.begin(), kept.end(), int(i))) continue;
      const P2 p(points[i].x(), points[i].z());
      for (size_t e = 0; e < h.size(); ++e) {
        const P2& a = h[e];
        const P2& b = h[(e + 1) % h.size()];
        const double length = std::hypot(b.first - a.first, b.second - a.second);
        EXPECT_GE(cross(a, b, p) / length, -1e-6 - 1e-12) << "trial " << trial << ", point " << i;
      }
    }
  }
}

// A cylinder's face resting on the ground, tilted by a hair, with the lowest points of its side 0.4 mm shallower
// under its rim in the same level: with the side points flagged, the face is a face (its interior dropped, its rim
// kept, the side points after it); unflagged, the side points spoil the face's fit and the level is taken deepest
// first, keeping most of the face.
TEST(BottomPolygon, SidePointsUnderAFaceLeaveItAFace) {
  const double radius = 0.1;
  std::vector<Vec3> points;
  std::vector<double> depth;
  std::vector<char> flags;
  for (int i = -10; i <= 10; ++i)
    for (int k = -10; k <= 10; ++k) {
      const double u = 0.0099 * i, v = 0.0099 * k;
      if (u * u + v * v > radius * radius) continue;
      points.emplace_back(u, 0.0, v);
      depth.push_back(0.001 + 0.002 * u);  // 0.4 mm across the face: one level
      flags.push_back(0);
    }
  const size_t face = points.size();
  for (int j = 0; j < 24; ++j) {
    const double a = 2.0 * std::numbers::pi * (j + 0.5) / 24.0;
    points.emplace_back(radius * std::cos(a), 0.0, radius * std::sin(a));
    depth.push_back(0.001 + 0.002 * radius * std::cos(a) - 0.0004);
    flags.push_back(1);
  }
  std::unique_ptr<bool[]> side(new bool[points.size()]);
  for (size_t i = 0; i < points.size(); ++i) side[i] = flags[i] != 0;
  const std::vector<int> kept =
      bottom_of_penetration(points, depth, Vec3(0, 1, 0), 1e-6, std::span<const bool>(side.get(), points.size()));
  size_t kept_face = 0;
  for (int i : kept)
    if (size_t(i) < face) {
      ++kept_face;
      // Only the face's rim: every kept face point lies within a grid step of the outermost ring.
      EXPECT_GT(std::hypot(points[size_t(i)].x(), points[size_t(i)].z()), radius - 0.03) << i;
    }
  EXPECT_GE(kept_face, 8u);
  EXPECT_LT(kept_face, face / 3);
  const std::vector<int> unflagged = bottom_of_penetration(points, depth, Vec3(0, 1, 0), 1e-6);
  EXPECT_GT(unflagged.size(), face / 2);  // the level taken deepest first: most of the face kept
}

TEST(BottomPolygon, EmptyAndSinglePoints) {
  EXPECT_TRUE(bottom_of_penetration({}, {}, Vec3(0, 1, 0)).empty());
  const std::vector<Vec3> one{Vec3(1, 2, 3)};
  const std::vector<double> d{0.1};
  EXPECT_EQ(bottom_of_penetration(one, d, Vec3(0, 0, 1)), std::vector<int>{0});
}

}  // namespace
}  // namespace cl::pid_penalty
