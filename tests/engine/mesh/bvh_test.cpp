#include "mesh/bvh.h"

#include "mesh/generate.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <set>

namespace cl {
namespace {

struct Brute {
  const TriangleMesh& m;
  MeshRayHit raycast(const Vec3& o, const Vec3& d, double max_t) const {
    MeshRayHit h;
    double best = max_t;
    for (int t = 0; t < (int)m.triangles.size(); ++t) {
      const auto& f = m.triangles[t];
      double tt, u, v;
      if (ray_triangle(o, d, m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]], 0, best, &tt, &u, &v) &&
          (!h.hit || tt < best)) {
        best = tt;
        h.hit = true;
        h.t = tt;
        h.triangle = t;
      }
    }
    return h;
  }
  std::pair<double, int> closest(const Vec3& p) const {
    double best = 1e300;
    int bt = -1;
    for (int t = 0; t < (int)m.triangles.size(); ++t) {
      const auto& f = m.triangles[t];
      const double d2 =
          (closest_point_on_triangle(p, m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]], nullptr, nullptr) - p)
              .squaredNorm();
      if (d2 < best) best = d2, bt = t;
    }
    return {std::sqrt(best), bt};
  }
};

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, 1);
  return Vec3(n(rng), n(rng), n(rng)).normalized();
}

void check_rays(const TriangleMesh& m, double extent, unsigned seed) {
  const TriangleBvh bvh(m);
  const Brute brute{m};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-extent, extent);
  int hits = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 o(u(rng), u(rng), u(rng));
    const Vec3 d = random_unit(rng) * (i % 3 == 0 ? 2.5 : 1.0);
    const double max_t = i % 5 == 0 ? 0.5 * extent : std::numeric_limits<double>::infinity();
    const MeshRayHit a = bvh.raycast(o, d, max_t);
    const MeshRayHit b = brute.raycast(o, d, max_t);
    ASSERT_EQ(a.hit, b.hit) << "ray " << i;
    EXPECT_EQ(a.hit, bvh.ray_hits(o, d, max_t));
    if (!a.hit) continue;
    ++hits;
    EXPECT_EQ(a.t, b.t) << "ray " << i;  // exact: the same triangle test
    if (a.triangle != b.triangle) {      // only on a shared edge or vertex, at exactly the same t
      EXPECT_EQ(a.t, b.t);
    }
    EXPECT_NEAR((a.point - (o + a.t * d)).norm(), 0, 1e-12);
    EXPECT_NEAR(a.normal.norm(), 1, 1e-12);
    EXPECT_NEAR((a.point - ((1 - a.u - a.v) * m.vertices[m.triangles[a.triangle][0]] +
                            a.u * m.vertices[m.triangles[a.triangle][1]] + a.v * m.vertices[m.triangles[a.triangle][2]]))
                    .norm(),
                0, 1e-9);
  }
  EXPECT_GT(hits, 200);
}

TEST(Bvh, RaycastMatchesBruteForceOnSphere) { check_rays(make_uv_sphere(1.0, 48, 24), 2.0, 1); }
TEST(Bvh, RaycastMatchesBruteForceOnTorus) { check_rays(make_torus(1.5, 0.5, 48, 24), 2.5, 2); }

TEST(Bvh, RaycastKnownHitsAndMisses) {
  const TriangleBvh bvh(make_box(Vec3(1, 1, 1), 4));
  const MeshRayHit h = bvh.raycast(Vec3(-5, 0.3, 0.2), Vec3(1, 0, 0));
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 4, 1e-14);
  EXPECT_NEAR((h.normal - Vec3(-1, 0, 0)).norm(), 0, 1e-14);
  const MeshRayHit inside = bvh.raycast(Vec3(0.1, 0.2, 0.3), Vec3(0, 0, -2));
  ASSERT_TRUE(inside.hit);
  EXPECT_NEAR(inside.t, 0.65, 1e-14);
  EXPECT_FALSE(bvh.raycast(Vec3(-5, 0.3, 0.2), Vec3(1, 0, 0), 3.9).hit);
  EXPECT_FALSE(bvh.raycast(Vec3(-5, 3, 0), Vec3(1, 0, 0)).hit);
  EXPECT_FALSE(bvh.raycast(Vec3(-5, 0, 0), Vec3(-1, 0, 0)).hit);
  EXPECT_FALSE(bvh.raycast(Vec3(-5, 0, 0), Vec3(0, 0, 0)).hit);
  EXPECT_FALSE(TriangleBvh(TriangleMesh{}).raycast(Vec3(0, 0, 0), Vec3(1, 0, 0)).hit);
}

void check_closest(const TriangleMesh& m, double extent, unsigned seed) {
  const TriangleBvh bvh(m);
  const Brute brute{m};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-extent, extent);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 p(u(rng), u(rng), u(rng));
    const ClosestPoint c = bvh.closest_point(p);
    const auto [d, t] = brute.closest(p);
    ASSERT_GE(c.triangle, 0);
    EXPECT_EQ(c.distance, d) << "point " << i;  // exact agreement
    EXPECT_NEAR((c.point - p).norm(), c.distance, 1e-12);
    EXPECT_NEAR(c.pseudo_normal.norm(), 1, 1e-12);
    // with pseudo-normals the sign is exact for a closed mesh: compare with the exact winding number
    const double w = bvh.winding_number_exact(p);
    EXPECT_NEAR(w, std::round(w), 1e-9);
    const bool inside = w > 0.5;
    EXPECT_EQ(bvh.signed_distance(p) < 0, inside) << "point " << i << " w=" << w << " d=" << c.distance;
    EXPECT_NEAR(bvh.winding_number(p), w, 0.01) << "point " << i;
    // bounded query
    const ClosestPoint near = bvh.closest_point(p, 0.5 * d);
    EXPECT_EQ(near.triangle, -1);
    EXPECT_EQ(bvh.closest_point(p, 2 * d + 1e-9).distance, d);
  }
}

TEST(Bvh, ClosestPointMatchesBruteForceOnSphere) { check_closest(make_uv_sphere(1.0, 40, 20), 2.0, 3); }
TEST(Bvh, ClosestPointMatchesBruteForceOnTorus) { check_closest(make_torus(1.5, 0.5, 40, 20), 2.5, 4); }

TEST(Bvh, ClosestPointFeaturesAndPseudoNormals) {
  const TriangleBvh bvh(make_box(Vec3(1, 1, 1), 1));
  const ClosestPoint face = bvh.closest_point(Vec3(0.2, 0.1, 3));
  EXPECT_NEAR(face.distance, 2, 1e-14);
  EXPECT_NEAR((face.pseudo_normal - Vec3(0, 0, 1)).norm(), 0, 1e-12);
  const ClosestPoint corner = bvh.closest_point(Vec3(2, 2, 2));
  EXPECT_EQ(corner.feature, TriangleFeature::Vertex);
  EXPECT_NEAR((corner.point - Vec3(1, 1, 1)).norm(), 0, 1e-14);
  EXPECT_NEAR((corner.pseudo_normal - Vec3(1, 1, 1).normalized()).norm(), 0, 1e-12);
  EXPECT_NEAR((bvh.mesh().vertices[corner.feature_index] - Vec3(1, 1, 1)).norm(), 0, 0);
  const ClosestPoint edge = bvh.closest_point(Vec3(2, 0.3, 2));
  EXPECT_NEAR((edge.point - Vec3(1, 0.3, 1)).norm(), 0, 1e-14);
  EXPECT_NEAR((edge.pseudo_normal - Vec3(1, 0, 1).normalized()).norm(), 0, 1e-12);
  // just inside near an edge and a corner: the sign must be negative
  EXPECT_LT(bvh.signed_distance(Vec3(0.999, 0.3, 0.9995)), 0);
  EXPECT_LT(bvh.signed_distance(Vec3(0.9999, 0.9998, 0.9997)), 0);
  EXPECT_GT(bvh.signed_distance(Vec3(1.0001, 0.3, 1.0001)), 0);
  EXPECT_NEAR(bvh.signed_distance(Vec3(0, 0, 0)), -1, 1e-14);
  const ClosestPoint none = TriangleBvh(TriangleMesh{}).closest_point(Vec3(0, 0, 0));
  EXPECT_EQ(none.triangle, -1);
  EXPECT_TRUE(std::isinf(none.distance));
}

// The search's boxes are floats: a small mesh far from the origin (where a float's step, 6e-5 m at 1 km, is
// several percent of a triangle) still gives the brute force's triangle and distance bit for bit, ties included
// (points on the torus's axis are equally far from a whole ring of triangles: the lowest index wins).
TEST(Bvh, ClosestPointIsExactForASmallMeshFarFromTheOrigin) {
  TriangleMesh m = make_torus(0.03, 0.01, 40, 20);
  const Vec3 offset(1000.0, -500.0, 250.0);
  for (Vec3& v : m.vertices) v += offset;
  const TriangleBvh bvh(m);
  const Brute brute{m};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.06, 0.06);
  for (int i = 0; i < 1500; ++i) {
    Vec3 p = offset + Vec3(u(rng), u(rng), u(rng));
    if (i % 5 == 0) p = offset + Vec3(0.0, 0.0, u(rng));  // on the axis (the torus lies in the xy-plane)
    const ClosestPoint c = bvh.closest_point(p);
    const auto [d, t] = brute.closest(p);
    EXPECT_EQ(c.triangle, t) << "point " << i;
    EXPECT_EQ(c.distance, d) << "point " << i;
    std::array<ClosestPoint, 4> from;
    bvh.closest_points_from({p, p, p, p}, {int(rng() % m.triangles.size()), -1, -1, -1}, from);
    EXPECT_EQ(from[0].triangle, t) << "point " << i;
  }
}

// Four points searched together (a distance grid's 2 x 2 blocks of nodes, points far apart, repeated points, a
// point that is not finite), from any hints, give each point what its own search gives, bit for bit, and the
// brute force's distance; the signed distances leave the closest triangles in the hints.
TEST(Bvh, FourPointsSearchedTogetherMatchOneByOne) {
  const TriangleMesh m = make_torus(1.5, 0.5, 40, 20);
  const TriangleBvh bvh(m);
  const Brute brute{m};
  const int nt = int(m.triangles.size());
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-2.5, 2.5);
  std::uniform_real_distribution<double> cell(0.001, 0.2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::array<int, 4> previous = {-1, -1, -1, -1};
  for (int trial = 0; trial < 600; ++trial) {
    std::array<Vec3, 4> p;
    const Vec3 corner(u(rng), u(rng), u(rng));
    const double h = cell(rng);
    switch (trial % 4) {
      case 0:  // a block of grid nodes
        p = {corner, corner + Vec3(h, 0, 0), corner + Vec3(0, h, 0), corner + Vec3(h, h, 0)};
        break;
      case 1:  // unrelated points
        p = {corner, Vec3(u(rng), u(rng), u(rng)), Vec3(u(rng), u(rng), u(rng)), Vec3(u(rng), u(rng), u(rng))};
        break;
      case 2:  // a block at the grid's edge: its last column repeated
        p = {corner, corner, corner + Vec3(0, h, 0), corner + Vec3(0, h, 0)};
        break;
      default:  // a point that is not finite among finite ones
        p = {corner, Vec3(nan, 0, 0), corner + Vec3(0, 0, h), Vec3(u(rng), u(rng), u(rng))};
        break;
    }
    std::array<int, 4> hints = previous;
    if (trial % 3 == 1) hints = {int(rng() % nt), -1, nt + 5, int(rng() % nt)};
    std::array<ClosestPoint, 4> together;
    bvh.closest_points_from(p, hints, together);
    std::array<int, 4> left = hints;
    std::array<double, 4> signed_together;
    bvh.signed_distances(p, left, signed_together);
    for (size_t l = 0; l < 4; ++l) {
      const ClosestPoint alone = bvh.closest_point(p[l]);
      EXPECT_EQ(together[l].triangle, alone.triangle) << "trial " << trial << " point " << l;
      EXPECT_EQ(together[l].distance, alone.distance);
      EXPECT_EQ(together[l].point, alone.point);
      EXPECT_EQ(together[l].pseudo_normal, alone.pseudo_normal);
      EXPECT_EQ(together[l].feature, alone.feature);
      EXPECT_EQ(together[l].feature_index, alone.feature_index);
      EXPECT_EQ(left[l], alone.triangle);
      if (!all_finite(p[l])) {
        EXPECT_EQ(alone.triangle, -1);
        EXPECT_TRUE(std::isinf(signed_together[l]));
        continue;
      }
      EXPECT_EQ(signed_together[l], bvh.signed_distance(p[l]));
      const auto [d, t] = brute.closest(p[l]);
      EXPECT_EQ(together[l].distance, d) << "trial " << trial << " point " << l;
      EXPECT_EQ(together[l].triangle, t) << "trial " << trial << " point " << l;
    }
    previous = left;
  }
}

TEST(Bvh, WindingNumberOfOpenAndNestedMeshes) {
  // hollow sphere: 0 in the cavity, 1 in the wall, 0 outside
  TriangleMesh outer = make_uv_sphere(2.0, 32, 16), inner = make_uv_sphere(1.0, 32, 16);
  const int off = (int)outer.vertices.size();
  for (const Vec3& v : inner.vertices) outer.vertices.push_back(v);
  for (auto f : inner.triangles) outer.triangles.push_back({f[0] + off, f[2] + off, f[1] + off});
  const TriangleBvh bvh(outer);
  EXPECT_NEAR(bvh.winding_number(Vec3(0.1, 0.2, 0)), 0, 1e-3);
  EXPECT_NEAR(bvh.winding_number(Vec3(1.5, 0.2, 0)), 1, 1e-3);
  EXPECT_NEAR(bvh.winding_number(Vec3(3, 0.2, 0)), 0, 1e-2);
  EXPECT_NEAR(bvh.winding_number(Vec3(3, 0.2, 0), 4.0), 0, 1e-3);  // tighter with a larger beta
  EXPECT_NEAR(bvh.winding_number_exact(Vec3(1.5, 0.2, 0)), 1, 1e-12);
  // a single triangle seen from far away along its normal: small positive solid angle from behind
  TriangleMesh tri;
  tri.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  tri.triangles = {{0, 1, 2}};
  EXPECT_GT(TriangleBvh(tri).winding_number_exact(Vec3(0.2, 0.2, -1)), 0);
  EXPECT_LT(TriangleBvh(tri).winding_number_exact(Vec3(0.2, 0.2, 1)), 0);
}

TEST(Bvh, MeshOverlapMatchesBruteForce) {
  const TriangleMesh torus = make_torus(1.0, 0.3, 32, 12), sphere = make_uv_sphere(0.5, 16, 8);
  const TriangleBvh ta(torus), tb(sphere);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  int overlapping = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Vec3 pa(u(rng), u(rng), u(rng)), pb = pa + Vec3(u(rng), u(rng), u(rng));
    const Quat qa(Eigen::AngleAxisd(u(rng) * 2, random_unit(rng))), qb(Eigen::AngleAxisd(u(rng) * 2, random_unit(rng)));
    const auto pairs = ta.overlapping_triangles(pa, qa, tb, pb, qb);
    // brute force in A's frame with the same transform
    const Mat3 R = (qa.conjugate() * qb).toRotationMatrix();
    const Vec3 t = qa.conjugate() * (pb - pa);
    std::vector<std::pair<int, int>> brute;
    for (int i = 0; i < (int)torus.triangles.size(); ++i)
      for (int j = 0; j < (int)sphere.triangles.size(); ++j) {
        const auto &fa = torus.triangles[i], &fb = sphere.triangles[j];
        if (triangles_overlap(torus.vertices[fa[0]], torus.vertices[fa[1]], torus.vertices[fa[2]],
                              R * sphere.vertices[fb[0]] + t, R * sphere.vertices[fb[1]] + t,
                              R * sphere.vertices[fb[2]] + t))
          brute.emplace_back(i, j);
      }
    EXPECT_EQ(pairs, brute) << "trial " << trial;
    EXPECT_EQ(ta.overlaps(pa, qa, tb, pb, qb), !brute.empty());
    overlapping += !brute.empty();
  }
  EXPECT_GT(overlapping, 5);
  EXPECT_LT(overlapping, 55);
  // a small sphere inside the torus tube touches nothing; one across the tube surface does
  const TriangleBvh small(make_uv_sphere(0.1, 12, 6));
  EXPECT_FALSE(ta.overlaps(Vec3(0, 0, 0), Quat::Identity(), small, Vec3(1, 0, 0), Quat::Identity()));
  EXPECT_TRUE(ta.overlaps(Vec3(0, 0, 0), Quat::Identity(), small, Vec3(1.3, 0, 0), Quat::Identity()));
}

TEST(Bvh, TreeIsWellFormed) {
  const TriangleMesh m = make_torus(1.5, 0.5, 64, 32);
  const TriangleBvh bvh(m);
  std::vector<int> seen(m.triangles.size(), 0);
  for (const auto& n : bvh.nodes()) {
    if (n.is_leaf()) {
      EXPECT_LE(n.count, 4);
    } else {
      for (int c : {n.left, n.right}) {
        EXPECT_TRUE((bvh.nodes()[c].box.lo.array() >= n.box.lo.array()).all());
        EXPECT_TRUE((bvh.nodes()[c].box.hi.array() <= n.box.hi.array()).all());
      }
    }
  }
  // every triangle once in some leaf
  std::vector<int> stack{0};
  int leaves_tris = 0;
  while (!stack.empty()) {
    const auto& n = bvh.nodes()[stack.back()];
    stack.pop_back();
    if (n.is_leaf()) leaves_tris += n.count;
    else stack.push_back(n.left), stack.push_back(n.right);
  }
  EXPECT_EQ(leaves_tris, (int)m.triangles.size());
}


// The compact boxes (box_nodes) are the nodes' boxes, every node covers the leaf slots of its children in order, the
// leaf slots hold each triangle once, and each node's box holds the vertices of the triangles of its slots.
TEST(Bvh, BoxNodesCoverTheirLeafSlots) {
  const TriangleMesh m = make_torus(1.5, 0.5, 48, 24);
  const TriangleBvh bvh(m);
  const auto& boxes = bvh.box_nodes();
  const auto& slots = bvh.leaf_triangles();
  ASSERT_EQ(boxes.size(), bvh.nodes().size());
  ASSERT_EQ(slots.size(), m.triangles.size());
  std::vector<int> seen(m.triangles.size(), 0);
  for (int t : slots) ++seen[std::size_t(t)];
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(boxes[0].first, 0);
  EXPECT_EQ(boxes[0].count, int(m.triangles.size()));
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto& b = boxes[i];
    EXPECT_EQ(b.lo, bvh.nodes()[i].box.lo);
    EXPECT_EQ(b.hi, bvh.nodes()[i].box.hi);
    EXPECT_EQ(b.left, bvh.nodes()[i].left);
    if (b.left >= 0) {
      const auto& l = boxes[std::size_t(b.left)];
      const auto& r = boxes[std::size_t(b.right)];
      EXPECT_EQ(l.first, b.first);
      EXPECT_EQ(r.first, l.first + l.count);
      EXPECT_EQ(l.count + r.count, b.count);
    }
    for (int s = b.first; s < b.first + b.count; ++s)
      for (int c = 0; c < 3; ++c) {
        const Vec3& p = m.vertices[std::size_t(m.triangles[std::size_t(slots[std::size_t(s)])][c])];
        EXPECT_TRUE((p.array() >= b.lo.array()).all() && (p.array() <= b.hi.array()).all()) << "node " << i;
      }
  }
}

}  // namespace
}  // namespace cl
