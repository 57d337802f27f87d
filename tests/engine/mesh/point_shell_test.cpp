#include "mesh/point_shell.h"

#include "mesh/bvh.h"
#include "mesh/generate.h"

#include <gtest/gtest.h>

#include <random>

namespace cl {
namespace {

TEST(PointShell, VertexShellHasRadialNormalsOnASphere) {
  const TriangleMesh m = make_uv_sphere(2.0, 32, 16);
  const PointShell s = vertex_point_shell(m);
  ASSERT_EQ(s.size(), m.vertices.size());
  ASSERT_EQ(s.normals.size(), s.points.size());
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_NEAR(s.normals[i].norm(), 1, 1e-12);
    EXPECT_GT(s.normals[i].dot(s.points[i].normalized()), 0.995) << i;
  }
  // box corner: area-weighted mean of the incident faces, pointing out of the box
  const PointShell b = vertex_point_shell(make_box(Vec3(1, 1, 1)));
  for (size_t i = 0; i < b.size(); ++i) EXPECT_GT(b.normals[i].dot(b.points[i]), 0.5);
}

TEST(PointShell, PoissonSamplesAreSpacedOnTheSurfaceAndCoverIt) {
  const TriangleMesh m = make_torus(1.0, 0.35, 48, 24);
  const double spacing = 0.1;
  const PointShell s = poisson_point_shell(m, spacing, 42);
  ASSERT_GT(s.size(), 100u);
  const TriangleBvh bvh(m);
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_LT(bvh.closest_point(s.points[i]).distance, 1e-12);
    EXPECT_NEAR(s.normals[i].norm(), 1, 1e-12);
    for (size_t j = i + 1; j < s.size(); ++j) ASSERT_GE((s.points[i] - s.points[j]).norm(), spacing) << i << " " << j;
  }
  // coverage: random surface points have a sample within 2 spacings (maximal packing gives < spacing mostly)
  const PointShell probe = poisson_point_shell(m, 0.05, 7, 1.0);
  int far = 0;
  for (const Vec3& p : probe.points) {
    double best = 1e9;
    for (const Vec3& q : s.points) best = std::min(best, (p - q).norm());
    far += best > 2 * spacing;
    EXPECT_LT(best, 3 * spacing);
  }
  EXPECT_EQ(far, 0);
  // expected count: the area divided by a disk packing density, roughly
  const double area = m.surface_area();
  EXPECT_GT(double(s.size()), 0.5 * area / (spacing * spacing));
  EXPECT_LT(double(s.size()), 1.5 * area / (spacing * spacing));
  // deterministic per seed
  const PointShell again = poisson_point_shell(m, spacing, 42);
  ASSERT_EQ(again.size(), s.size());
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(again.points[i], s.points[i]);
  EXPECT_NE(poisson_point_shell(m, spacing, 43).points[0], s.points[0]);
  EXPECT_EQ(poisson_point_shell(m, 0.0).size(), 0u);
  EXPECT_EQ(poisson_point_shell(TriangleMesh{}, 0.1).size(), 0u);
}

TEST(PointShell, ThesisResamplingOfABox) {
  // 2x2x2 box, faces split 4x4: vertices on the 12 box edges are kept (8 corners + 12*3), flat ones dropped
  const TriangleMesh m = make_box(Vec3(1, 1, 1), 4);
  const PointShell verts_only = thesis_point_shell(m, 10.0);  // spacing above every edge and face: vertices only
  EXPECT_EQ(verts_only.size(), 8u + 12u * 3u);
  for (size_t i = 0; i < verts_only.size(); ++i) {
    const Vec3 a = verts_only.points[i].cwiseAbs();
    EXPECT_GE((a.array() > 0.999).count(), 2) << verts_only.points[i].transpose();  // on a box edge
    EXPECT_GT(verts_only.normals[i].dot(verts_only.points[i]), 0);
  }
  // spacing 0.2: mesh edges on box edges have length 0.5 -> 2 interior samples each (3 segments), 48 mesh edges
  const PointShell s = thesis_point_shell(m, 0.2);
  const size_t edge_samples = 12 * 4 * 2;
  const size_t face_samples = 6;  // each 2x2 face region has area 4 > 0.04
  EXPECT_EQ(s.size(), 44u + edge_samples + face_samples);
  int centres = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_NEAR(s.normals[i].norm(), 1, 1e-12);
    const Vec3 a = s.points[i].cwiseAbs();
    if ((a.array() < 1e-12).count() == 2) {  // a face centre: normal along its axis
      ++centres;
      EXPECT_NEAR(s.normals[i].dot(s.points[i]), 1, 1e-12);
    }
  }
  EXPECT_EQ(centres, 6);
  // big face_area_factor: no face samples
  EXPECT_EQ(thesis_point_shell(m, 0.2, 1.0, 1000.0).size(), 44u + edge_samples);
}

TEST(PointShell, ThesisResamplingOfASmoothSurfaceKeepsCurvedVertices) {
  const TriangleMesh m = make_uv_sphere(1.0, 16, 8);
  const PointShell s = thesis_point_shell(m, 0.05);
  EXPECT_GE(s.size(), m.vertices.size());  // every vertex has a non-coplanar edge on a sphere
  for (size_t i = 0; i < s.size(); ++i) EXPECT_GT(s.normals[i].dot(s.points[i].normalized()), 0.95);
}

TEST(PointShell, SphereTreeBallsContainTheirPoints) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n(0, 1);
  const PointShell s = poisson_point_shell(make_torus(1.0, 0.3, 32, 16), 0.05, 5);
  std::vector<Vec3> pts = s.points;
  pts.push_back(pts[0]);  // a duplicate point must not break the split
  pts.push_back(pts[0]);
  const SphereTree tree = build_sphere_tree(pts);
  ASSERT_FALSE(tree.nodes.empty());
  std::vector<int> seen(pts.size(), 0);
  // walk: every leaf point lies in all its ancestors' balls
  struct Item {
    int node;
    std::vector<int> ancestors;
  };
  std::vector<Item> stack{{0, {}}};
  size_t max_children = 0;
  while (!stack.empty()) {
    Item it = std::move(stack.back());
    stack.pop_back();
    const auto& nd = tree.nodes[it.node];
    if (nd.is_leaf()) {
      ASSERT_GE(nd.point, 0);
      ++seen[nd.point];
      EXPECT_EQ(nd.radius, 0);
      for (int a : it.ancestors)
        EXPECT_LE((pts[nd.point] - tree.nodes[a].centre).norm(), tree.nodes[a].radius) << "ancestor " << a;
      continue;
    }
    max_children = std::max(max_children, (size_t)nd.child_count);
    EXPECT_LE(nd.child_count, 8);
    it.ancestors.push_back(it.node);
    for (int c = nd.first_child; c < nd.first_child + nd.child_count; ++c) stack.push_back({c, it.ancestors});
  }
  for (int k : seen) EXPECT_EQ(k, 1);
  EXPECT_GT(max_children, 2u);
  // Ritter's ball is near-minimal: for points on a sphere it is close to that sphere
  std::vector<Vec3> sphere;
  for (int i = 0; i < 500; ++i) sphere.push_back(Vec3(n(rng), n(rng), n(rng)).normalized());
  Vec3 c;
  double r;
  ritter_ball(sphere, {}, c, r);
  EXPECT_LT(r, 1.15);
  EXPECT_GE(r, 0.99);
  EXPECT_TRUE(build_sphere_tree({}).nodes.empty());
  EXPECT_EQ(build_sphere_tree({Vec3(1, 2, 3)}).nodes.size(), 1u);
}

}  // namespace
}  // namespace cl
