// Point shells and penetrating points shared by the penalty methods: primitive shells lie on their surfaces
// with outward normals, evenly spaced, about one point per spacing^2; a mesh is resampled evenly at its grid's
// cell size; the cache shares shells; the sphere-tree walk finds exactly the points a brute-force scan finds.
#include "collision/shell_points.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <thread>

#include "collision/mesh_shape.h"
#include "collision/narrowphase.h"
#include "core/task_pool.h"
#include "mesh/generate.h"
#include "support/builders.h"

namespace cl {

using namespace cl::test;

namespace {

Shape mesh(TriangleMesh m, int resolution = 24) {
  std::string error;
  Shape s = mesh_shape(std::move(m), resolution, &error);
  EXPECT_TRUE(s.mesh) << error;
  return s;
}

double area(const Shape& s) {
  switch (s.type) {
    case ShapeType::Sphere: return 4 * std::numbers::pi * s.radius * s.radius;
    case ShapeType::Box: {
      const Vec3& h = s.half_extents;
      return 8 * (h.x() * h.y() + h.y() * h.z() + h.z() * h.x());
    }
    case ShapeType::Capsule:
      return 4 * std::numbers::pi * s.radius * s.radius + 4 * std::numbers::pi * s.radius * s.half_height;
    default: return 0;
  }
}

std::vector<Shape> primitives() { return {sphere(0.4), box(Vec3(0.5, 0.2, 0.3)), capsule(0.15, 0.35)}; }

TEST(PenaltyGeometry, PrimitiveShellsLieOnTheSurfaceWithOutwardNormals) {
  for (const Shape& s : primitives()) {
    const auto shell = make_penalty_shell(s, 0.03);
    ASSERT_GT(shell->size(), 100u) << shape_type_name(s.type);
    ASSERT_EQ(shell->normals.size(), shell->size());
    ASSERT_FALSE(shell->tree->nodes.empty());
    for (size_t i = 0; i < shell->size(); ++i) {
      const Vec3& p = shell->points[i];
      const Vec3& n = shell->normals[i];
      double phi;
      Vec3 g;
      ASSERT_TRUE(shape_signed_distance(s, p, phi, g));
      EXPECT_NEAR(phi, 0.0, 1e-12) << shape_type_name(s.type) << " " << i;
      EXPECT_NEAR(n.norm(), 1.0, 1e-12);
      EXPECT_GT(n.dot(g), 0.5) << shape_type_name(s.type) << " " << i;  // box corners: 1/sqrt 3 to a face's
      // Outward: a step along the normal leaves the shape, a step against it enters.
      Vec3 ignored;
      shape_signed_distance(s, p + 1e-3 * n, phi, ignored);
      EXPECT_GT(phi, 0.0);
      shape_signed_distance(s, p - 1e-3 * n, phi, ignored);
      EXPECT_LT(phi, 0.0);
    }
  }
}

TEST(PenaltyGeometry, PrimitiveShellsAreEvenAndScaleWithInverseSpacingSquared) {
  for (const Shape& s : primitives()) {
    const double spacing = 0.04;
    const auto shell = make_penalty_shell(s, spacing);
    // Nearest neighbours about one spacing apart, nowhere much closer or farther.
    double closest = 1e300, farthest = 0, mean = 0;
    for (size_t i = 0; i < shell->size(); ++i) {
      double nearest = 1e300;
      for (size_t j = 0; j < shell->size(); ++j)
        if (j != i) nearest = std::min(nearest, (shell->points[i] - shell->points[j]).squaredNorm());
      nearest = std::sqrt(nearest);
      closest = std::min(closest, nearest);
      farthest = std::max(farthest, nearest);
      mean += nearest / shell->size();
    }
    EXPECT_GT(closest, 0.5 * spacing) << shape_type_name(s.type);
    EXPECT_LT(farthest, 1.5 * spacing) << shape_type_name(s.type);
    EXPECT_NEAR(mean, spacing, 0.25 * spacing) << shape_type_name(s.type);
    // About one point per spacing^2 of surface, so four times as many at half the spacing.
    EXPECT_NEAR(shell->size() * spacing * spacing / area(s), 1.0, 0.25) << shape_type_name(s.type);
    const auto finer = make_penalty_shell(s, spacing / 2);
    EXPECT_NEAR(double(finer->size()) / shell->size(), 4.0, 0.4) << shape_type_name(s.type);
  }
}

TEST(PenaltyGeometry, BoxShellIsTheCellCentresOfAGridOnEachFace) {
  const Vec3 h(0.5, 0.2, 0.3);
  const auto shell = make_penalty_shell(box(h), 0.1);
  // 10 x 4 x 6 cells along x, y, z: two faces of each pair of axes.
  EXPECT_EQ(shell->size(), size_t(2 * (10 * 4 + 4 * 6 + 6 * 10)));
  for (size_t i = 0; i < shell->size(); ++i) {
    const Vec3& p = shell->points[i];
    const Vec3& n = shell->normals[i];
    // A face normal, on that face, half a cell from any edge.
    int axis;
    n.cwiseAbs().maxCoeff(&axis);
    EXPECT_EQ(n.cwiseAbs().sum(), 1.0);
    EXPECT_EQ(p[axis], n[axis] * h[axis]);
    for (int k = 0; k < 3; ++k)
      if (k != axis) {
        EXPECT_LE(std::abs(p[k]), h[k] - 0.05 + 1e-12) << i;
      }
  }
}

TEST(PenaltyGeometry, PlanesHaveNoPointsAndMeshesAreResampledEvenly) {
  Shape plane;
  plane.type = ShapeType::Plane;
  EXPECT_TRUE(make_penalty_shell(plane, 0.01)->empty());
  // A box mesh: its own (thesis) shell has one point per flat face besides its edges; the penalty shell covers the
  // faces evenly at the grid's cell size (at least half a point per spacing^2), on the surface, face normals.
  const Vec3 h(0.3, 0.1, 0.2);
  const Shape m = mesh(make_box(h, 2));
  const auto shell = make_penalty_shell(m, 0.5);  // spacing ignored for meshes
  const double spacing = m.mesh->sdf.cell_size();
  EXPECT_EQ(shell->spacing, spacing);
  const double box_area = 8 * (h.x() * h.y() + h.y() * h.z() + h.z() * h.x());
  EXPECT_GT(double(shell->size()), 0.5 * box_area / (spacing * spacing));
  ASSERT_EQ(shell->tree->nodes.empty(), false);
  for (size_t i = 0; i < shell->size(); ++i) {
    Vec3 direction;
    EXPECT_NEAR(box_signed_distance(h, shell->points[i], &direction), 0.0, 1e-9) << i;
    EXPECT_NEAR(shell->normals[i].dot(direction), 1.0, 1e-9) << i;
    for (size_t j = 0; j < i; ++j)  // Poisson disks: no two points closer than the spacing
      EXPECT_GE((shell->points[i] - shell->points[j]).norm(), spacing * (1 - 1e-9));
  }
}

TEST(PenaltyGeometry, CacheSharesShellsPerShapeAndSpacing) {
  const Shape b = box(Vec3(0.25, 0.5, 0.125));
  std::vector<std::shared_ptr<const PenaltyShell>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { got[t] = penalty_shell(b, 0.05); });
  for (std::thread& t : threads) t.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(got[t], got[0]);
  EXPECT_NE(penalty_shell(b, 0.04), got[0]);
  EXPECT_NE(penalty_shell(box(Vec3(0.25, 0.5, 0.25)), 0.05), got[0]);
  EXPECT_NE(penalty_shell(sphere(0.25), 0.05), got[0]);
  const Shape m = mesh(make_box(Vec3(0.2, 0.1, 0.3), 2), 12);
  EXPECT_EQ(penalty_shell(m, 0.05), penalty_shell(m, 0.01));
}

// What find_penetrating_points must return: every point with d < 0 (and a defined gradient), in index order.
std::vector<PenetratingPoint> brute_force(const Shape& field, const Vec3& x_a, const Mat3& R_a,
                                          const PenaltyShell& shell, const Vec3& x_b, const Mat3& R_b) {
  std::vector<PenetratingPoint> out;
  // The same arithmetic as the walk (B's frame to A's), so the results are bit-identical.
  const Mat3 R = R_a.transpose() * R_b;
  const Vec3 t = R_a.transpose() * (x_b - x_a);
  for (size_t i = 0; i < shell.size(); ++i) {
    const Vec3 local = R * shell.points[i] + t;
    double d;
    Vec3 g;
    if (shape_signed_distance(field, local, d, g) && d < 0) out.push_back({int(i), shell.points[i], shell.normals[i], d, g});
  }
  return out;
}

Mat3 random_rotation_matrix(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Quat q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

// Random overlapping poses of B about A (offsets up to `reach`): the walk equals the brute force, and some
// trials do find points.
void expect_walk_matches_brute_force(const Shape& field, const Shape& points, double spacing, double reach,
                                     const char* what) {
  const auto shell = make_penalty_shell(points, spacing);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-reach, reach);
  std::vector<PenetratingPoint> found;
  int nonempty = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const Vec3 x_a(u(rng), u(rng), u(rng)), x_b = x_a + Vec3(u(rng), u(rng), u(rng));
    const Mat3 R_a = random_rotation_matrix(rng), R_b = random_rotation_matrix(rng);
    find_penetrating_points(field, x_a, R_a, *shell, x_b, R_b, found);
    const auto expected = brute_force(field, x_a, R_a, *shell, x_b, R_b);
    ASSERT_EQ(found.size(), expected.size()) << what << " trial " << trial;
    for (size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].index, expected[i].index);
      EXPECT_EQ(found[i].r_b, expected[i].r_b);
      EXPECT_EQ(found[i].n_b, expected[i].n_b);
      EXPECT_EQ(found[i].d, expected[i].d);
      EXPECT_EQ(found[i].g_a, expected[i].g_a);
    }
    nonempty += !found.empty() && found.size() < shell->size();
  }
  EXPECT_GT(nonempty, 5) << what;
}

TEST(PenaltyGeometry, PenetratingPointsOfABoxInABoxEqualBruteForce) {
  expect_walk_matches_brute_force(box(Vec3(0.5, 0.3, 0.4)), box(Vec3(0.3, 0.2, 0.25)), 0.03, 0.5, "box in box");
}

TEST(PenaltyGeometry, PenetratingPointsOfASphereInAMeshEqualBruteForce) {
  expect_walk_matches_brute_force(mesh(make_torus(0.4, 0.15, 32, 16)), sphere(0.2), 0.02, 0.4, "sphere in torus");
}

TEST(PenaltyGeometry, PenetratingPointsOfAMeshInAMeshEqualBruteForce) {
  // The torus's own (thesis) shell in a box mesh's grid: the walk must use the grid's sqrt 3 slope.
  expect_walk_matches_brute_force(mesh(make_box(Vec3(0.3, 0.2, 0.25), 3)), mesh(make_torus(0.3, 0.1, 48, 24), 32),
                                  0.0, 0.4, "torus in box mesh");
}

TEST(PenaltyGeometry, PenetratingPointsOfACapsuleInAPlaneEqualBruteForce) {
  Shape plane;
  plane.type = ShapeType::Plane;
  plane.normal = Vec3(0, 1, 0);
  expect_walk_matches_brute_force(plane, capsule(0.1, 0.3), 0.02, 0.3, "capsule in plane");
}

TEST(PenaltyGeometry, SeparatedBodiesHaveNoPenetratingPoints) {
  std::vector<PenetratingPoint> found(3);
  const Shape torus = mesh(make_torus(0.3, 0.1, 24, 12));
  const auto shell = make_penalty_shell(torus, 0.0);
  const Mat3 R = Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  // Just apart: the torus's outer rim 1 cm from the box's face.
  find_penetrating_points(box(Vec3(0.5, 0.5, 0.5)), Vec3::Zero(), Mat3::Identity(), *shell, Vec3(0.91, 0, 0),
                          Mat3::Identity(), found);
  EXPECT_TRUE(found.empty());
  find_penetrating_points(torus, Vec3::Zero(), R, *make_penalty_shell(sphere(0.1), 0.01), Vec3(0, 0.8, 0),
                          Mat3::Identity(), found);
  EXPECT_TRUE(found.empty());
  // And the sphere in the middle of the torus's hole touches nothing either.
  find_penetrating_points(torus, Vec3::Zero(), Mat3::Identity(), *make_penalty_shell(sphere(0.1), 0.01),
                          Vec3::Zero(), Mat3::Identity(), found);
  EXPECT_TRUE(found.empty());
}

// With a skin, the points within it outside the field count too, their depth measured from the grown surface:
// a box resting exactly on a plane has its bottom points at d = -skin, and none with skin 0.
TEST(PenaltyGeometry, SkinTakesThePointsWithinItFromTheGrownSurface) {
  Shape plane;
  plane.type = ShapeType::Plane;
  plane.normal = Vec3(0, 1, 0);
  const Shape cube = box(Vec3(0.05, 0.05, 0.05));
  const auto shell = make_penalty_shell(cube, 0.04);
  std::vector<PenetratingPoint> found;
  const Vec3 resting(0, 0.05, 0);
  find_penetrating_points(plane, Vec3::Zero(), Mat3::Identity(), *shell, resting, Mat3::Identity(), found);
  EXPECT_TRUE(found.empty());
  const double skin = 2e-4;
  find_penetrating_points(plane, Vec3::Zero(), Mat3::Identity(), *shell, resting, Mat3::Identity(), found, skin);
  ASSERT_EQ(found.size(), 9u);  // the bottom face's 3 x 3 cells
  for (const PenetratingPoint& p : found) EXPECT_NEAR(p.d, -skin, 1e-15);
  // Lifted by more than the skin: nothing; by half of it: the depth is the other half.
  find_penetrating_points(plane, Vec3::Zero(), Mat3::Identity(), *shell, resting + Vec3(0, 1.5 * skin, 0),
                          Mat3::Identity(), found, skin);
  EXPECT_TRUE(found.empty());
  find_penetrating_points(plane, Vec3::Zero(), Mat3::Identity(), *shell, resting + Vec3(0, 0.5 * skin, 0),
                          Mat3::Identity(), found, skin);
  ASSERT_EQ(found.size(), 9u);
  for (const PenetratingPoint& p : found) EXPECT_NEAR(p.d, -0.5 * skin, 1e-15);
}

// B's pose at query `step` of the tests' path in A's frame (x_a, R_a): resting until query `rest`, then drifting
// 0.5 mm and turning 1 mrad a query, with a jump of 5 cm from query `jump` on.
void path_pose(int step, int rest, int jump, const Vec3& x_a, const Mat3& R_a, Vec3& x_b, Mat3& R_b) {
  const double s = std::max(0, step - rest);
  x_b = x_a + R_a * Vec3(0.3 + 5e-4 * s, 0.02, -0.01);
  if (step >= jump) x_b += Vec3(-0.05, 0.0, 0.02);
  R_b = Eigen::AngleAxisd(0.2 + 1e-3 * s, Vec3(0, 1, 0.3).normalized()).toRotationMatrix();
}

// A cache carried from query to query skips balls its bounds show outside, and finds exactly what a query without
// it finds: along a path that rests, drifts and turns slowly, jumps, and changes field, with and without a skin.
void expect_cache_changes_nothing(const Shape& field, const Shape& other_field, const Shape& points, double spacing,
                                  double skin, const char* what) {
  const auto shell = make_penalty_shell(points, spacing);
  ShellQueryCache cache;
  std::vector<PenetratingPoint> cached, plain;
  const Vec3 x_a(0.1, -0.2, 0.05);
  const Mat3 R_a = Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()).toRotationMatrix();
  size_t skipped = 0, found = 0;
  for (int step = 0; step < 60; ++step) {
    // Resting for ten queries, a jump at query 40, the other field for queries 50 to 54.
    Vec3 x_b;
    Mat3 R_b;
    path_pose(step, 10, 40, x_a, R_a, x_b, R_b);
    const Shape& f = step >= 50 && step < 55 ? other_field : field;
    find_penetrating_points(f, x_a, R_a, *shell, x_b, R_b, cached, skin, &cache);
    find_penetrating_points(f, x_a, R_a, *shell, x_b, R_b, plain, skin);
    ASSERT_EQ(cached.size(), plain.size()) << what << " query " << step;
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(cached[i].index, plain[i].index);
      EXPECT_EQ(cached[i].d, plain[i].d);
      EXPECT_EQ(cached[i].g_a, plain[i].g_a);
    }
    if (step == 0 || step == 50 || step == 55) {
      EXPECT_EQ(cache.skipped, 0u) << what << " query " << step;  // refilled
    }
    if (step > 0 && step < 10) {
      EXPECT_GT(cache.skipped, 0u) << what << " query " << step;  // at rest
    }
    skipped += cache.skipped;
    found += plain.size();
  }
  EXPECT_GT(found, 0u) << what;
  EXPECT_GT(skipped, 0u) << what;
}

TEST(PenaltyGeometry, ShellQueryCacheFindsWhatAQueryWithoutItFinds) {
  const Shape block = mesh(make_box(Vec3(0.3, 0.2, 0.25), 3));
  const Shape torus = mesh(make_torus(0.3, 0.1, 48, 24), 32);
  expect_cache_changes_nothing(block, box(Vec3(0.3, 0.2, 0.25)), torus, 0.0, 0.0, "torus in box mesh");
  expect_cache_changes_nothing(box(Vec3(0.3, 0.2, 0.25)), block, sphere(0.15), 0.01, 2e-3, "sphere in box, skin");
}

// A shell large enough to be split walks on two threads exactly as on one: the same points (index, depth,
// gradient), the same bounds stored in the cache and the same balls skipped, along a path that rests, drifts and
// jumps, in a grid's field and in a box's.
void expect_two_threads_change_nothing(const Shape& field, const char* what) {
  const auto shell = make_penalty_shell(sphere(0.15), 0.004);
  ASSERT_GE(shell->tree->nodes.size(), kLeastSplitShellNodes) << what;  // split on two threads
  TaskPool pool(2);
  ShellQueryCache one_cache, two_cache;
  std::vector<PenetratingPoint> one, two;
  const Vec3 x_a(0.1, -0.2, 0.05);
  const Mat3 R_a = Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()).toRotationMatrix();
  size_t found = 0, skipped = 0;
  for (int step = 0; step < 30; ++step) {
    Vec3 x_b;
    Mat3 R_b;
    path_pose(step, 5, 20, x_a, R_a, x_b, R_b);
    find_penetrating_points(field, x_a, R_a, *shell, x_b, R_b, one, 1e-3, &one_cache);
    find_penetrating_points(field, x_a, R_a, *shell, x_b, R_b, two, 1e-3, &two_cache, &pool);
    ASSERT_EQ(one.size(), two.size()) << what << " query " << step;
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(one[i].index, two[i].index) << what << " query " << step;
      EXPECT_EQ(one[i].d, two[i].d);
      EXPECT_EQ(one[i].g_a, two[i].g_a);
    }
    ASSERT_EQ(one_cache.bound.size(), two_cache.bound.size());
    EXPECT_EQ(0, std::memcmp(one_cache.bound.data(), two_cache.bound.data(), sizeof(float) * one_cache.bound.size()))
        << what << " query " << step;
    EXPECT_EQ(one_cache.skipped, two_cache.skipped) << what << " query " << step;
    found += one.size();
    skipped += one_cache.skipped;
  }
  EXPECT_GT(found, 0u) << what;
  EXPECT_GT(skipped, 0u) << what;
}

TEST(PenaltyGeometry, ShellQueryOnTwoThreadsFindsWhatOneFinds) {
  expect_two_threads_change_nothing(mesh(make_box(Vec3(0.3, 0.2, 0.25), 3)), "sphere in box mesh");
  expect_two_threads_change_nothing(box(Vec3(0.3, 0.2, 0.25)), "sphere in box");
}

}  // namespace
}  // namespace cl
