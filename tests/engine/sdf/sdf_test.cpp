#include "sdf/sdf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>

#include "mesh/mesh.h"
#include "mesh/generate.h"
#include "support/scratch.h"

namespace cl {
namespace {

// ---------------------------------------------------------------------------------------------------------
// Test meshes. The oracle of each is its analytic distance, so the torus may be mesh/generate.h's (whose own tests
// are in tests/engine/mesh/); the sphere and the boxes are generated here.

double signed_volume(const TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]]));
  return v / 6.0;
}

void make_outward(TriangleMesh& m) {
  if (signed_volume(m) < 0)
    for (auto& t : m.triangles) std::swap(t[1], t[2]);
}

TriangleMesh uv_sphere(double r, int slices, int stacks) {
  TriangleMesh m;
  m.vertices.push_back({0, 0, r});
  for (int i = 1; i < stacks; ++i) {
    const double th = std::numbers::pi * i / stacks;
    for (int j = 0; j < slices; ++j) {
      const double ph = 2 * std::numbers::pi * j / slices;
      m.vertices.push_back({r * std::sin(th) * std::cos(ph), r * std::sin(th) * std::sin(ph), r * std::cos(th)});
    }
  }
  m.vertices.push_back({0, 0, -r});
  const int bottom = static_cast<int>(m.vertices.size()) - 1;
  auto ring = [&](int i, int j) { return 1 + (i - 1) * slices + (j % slices); };
  for (int j = 0; j < slices; ++j) {
    m.triangles.push_back({0, ring(1, j), ring(1, j + 1)});
    for (int i = 1; i + 1 < stacks; ++i) {
      m.triangles.push_back({ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)});
      m.triangles.push_back({ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)});
    }
    m.triangles.push_back({bottom, ring(stacks - 1, j + 1), ring(stacks - 1, j)});
  }
  make_outward(m);
  return m;
}

// Appends an axis-aligned box [lo, hi], faces outward (or inward for a cavity).
void add_box(TriangleMesh& m, const Vec3& lo, const Vec3& hi, bool inward) {
  const int base = static_cast<int>(m.vertices.size());
  for (int k = 0; k < 8; ++k) m.vertices.push_back({k & 1 ? hi.x() : lo.x(), k & 2 ? hi.y() : lo.y(), k & 4 ? hi.z() : lo.z()});
  const Vec3 centre = 0.5 * (lo + hi);
  // Faces as corner index quads (in cyclic order), oriented afterwards by their centre offset.
  const int faces[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  for (const auto& f : faces) {
    std::array<int, 4> q = {base + f[0], base + f[1], base + f[2], base + f[3]};
    const Vec3 n = (m.vertices[q[1]] - m.vertices[q[0]]).cross(m.vertices[q[2]] - m.vertices[q[0]]);
    const Vec3 fc = 0.25 * (m.vertices[q[0]] + m.vertices[q[1]] + m.vertices[q[2]] + m.vertices[q[3]]);
    const bool out = n.dot(fc - centre) > 0;
    if (out == inward) std::reverse(q.begin(), q.end());
    m.triangles.push_back({q[0], q[1], q[2]});
    m.triangles.push_back({q[0], q[2], q[3]});
  }
}

// ---------------------------------------------------------------------------------------------------------
// Brute-force oracle: exact distance to every triangle (projection + segment distances, a different algorithm
// from the engine's Voronoi-region one) and the sign from the exact generalized winding number.

double segment_distance2(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double t = std::clamp((p - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0);
  return (p - (a + t * ab)).squaredNorm();
}

double triangle_distance2(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 q = p - n.dot(p - a) * n;  // projection onto the plane
  const bool inside = (b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 &&
                      (a - c).cross(q - c).dot(n) >= 0;
  if (inside) return (p - q).squaredNorm();
  return std::min({segment_distance2(p, a, b), segment_distance2(p, b, c), segment_distance2(p, c, a)});
}

double mesh_winding_number(const TriangleMesh& m, const Vec3& p) {
  double w = 0;
  for (const auto& t : m.triangles) {
    const Vec3 a = m.vertices[t[0]] - p, b = m.vertices[t[1]] - p, c = m.vertices[t[2]] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    w += 2 * std::atan2(a.dot(b.cross(c)), la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la);
  }
  return w / (4 * std::numbers::pi);
}

double brute_sdf(const TriangleMesh& m, const Vec3& p) {
  double d2 = std::numeric_limits<double>::infinity();
  for (const auto& t : m.triangles)
    d2 = std::min(d2, triangle_distance2(p, m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]]));
  const double d = std::sqrt(d2);
  return mesh_winding_number(m, p) > 0.5 ? -d : d;
}

// How far the tessellation deviates from the analytic surface: max |analytic sdf| over points of every triangle
// (corners, edge midpoints, centroid), with a safety factor for points in between.
template <class F>
double sagitta(const TriangleMesh& m, F&& analytic) {
  double s = 0;
  for (const auto& t : m.triangles) {
    const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    for (const Vec3& p : {Vec3((a + b + c) / 3), Vec3((a + b) / 2), Vec3((b + c) / 2), Vec3((c + a) / 2)})
      s = std::max(s, std::abs(analytic(p)));
  }
  return 1.25 * s;
}

SdfOptions no_cache(int resolution) {
  SdfOptions o;
  o.resolution = resolution;
  o.use_cache = false;
  return o;
}

struct SdfCase {
  const char* name;
  TriangleMesh mesh;
  std::function<double(const Vec3&)> analytic;
  // Distance to the shape's medial-axis singularities (sphere centre, torus core circle and axis), where the
  // exact SDF has a cone-like kink and any trilinear interpolant errs by up to ~0.9 cell.
  std::function<double(const Vec3&)> kink_distance;
};

std::vector<SdfCase> shapes() {
  std::vector<SdfCase> s;
  s.push_back({"sphere", uv_sphere(1.0, 96, 48), [](const Vec3& p) { return p.norm() - 1.0; },
               [](const Vec3& p) { return p.norm(); }});
  const Vec3 half(0.8, 0.5, 0.3);
  TriangleMesh box;
  add_box(box, -half, half, false);
  s.push_back({"box", box,
               [half](const Vec3& p) {
                 const Vec3 q = p.cwiseAbs() - half;
                 return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
               },
               // The box's interior medial surfaces are planar kinks (trilinear error <= 0.375 cell): none excluded.
               [](const Vec3&) { return 1e9; }});
  const double R = 1.0, r = 0.35;
  s.push_back({"torus", make_torus(R, r, 128, 48),
               [R, r](const Vec3& p) { return std::hypot(std::hypot(p.x(), p.y()) - R, p.z()) - r; },
               [R](const Vec3& p) {
                 return std::min(std::hypot(std::hypot(p.x(), p.y()) - R, p.z()), std::hypot(p.x(), p.y()));
               }});
  return s;
}

// ---------------------------------------------------------------------------------------------------------

TEST(SdfMeshDistance, NodeValuesMatchBruteForce) {
  for (const SdfCase& shape : shapes()) {
    const SignedDistanceGrid g = SignedDistanceGrid::build(shape.mesh, no_cache(32));
    std::mt19937 rng(1);
    const auto n = g.node_counts();
    for (int trial = 0; trial < 300; ++trial) {
      const int i = rng() % n[0], j = rng() % n[1], k = rng() % n[2];
      const double expected = brute_sdf(shape.mesh, g.node_position(i, j, k));
      EXPECT_NEAR(g.node_value(i, j, k), expected, 1e-6 * (1 + std::abs(expected)))
          << shape.name << " node " << i << " " << j << " " << k;
    }
  }
}

TEST(SdfGrid, GeometryFollowsResolutionAndPadding) {
  TriangleMesh box;
  add_box(box, Vec3(-1, -0.5, -0.25), Vec3(1, 0.5, 0.25), false);
  SdfOptions o = no_cache(40);
  o.padding = 0.1;
  const SignedDistanceGrid g = SignedDistanceGrid::build(box, o);
  EXPECT_NEAR(g.cell_size(), 2.4 / 40, 1e-12);
  EXPECT_EQ(g.node_counts()[0], 41);
  const Aabb b = g.box();
  EXPECT_LE(b.lo.x(), -1.2 + 1e-9);
  EXPECT_LE(b.lo.y(), -0.7 + 1e-9);
  EXPECT_GE(b.hi.z(), 0.45 - 1e-9);
  o.padding_cells = 3;
  const SignedDistanceGrid g2 = SignedDistanceGrid::build(box, o);
  EXPECT_NEAR(g2.cell_size(), 2.0 / 34, 1e-12);
  EXPECT_EQ(g2.node_counts()[0], 41);
  EXPECT_NEAR(g2.box().lo.x(), -1 - 3 * g2.cell_size(), 1e-9);
}

// Random points in the grid: within half a cell of the exact SDF of the tessellated mesh (away from the
// cone-like medial singularities), within half a cell plus the sagitta of the analytic SDF, and everywhere
// within the Lipschitz bound (cell diagonal).
TEST(SdfGrid, InterpolatedValuesWithinHalfACell) {
  for (const SdfCase& shape : shapes()) {
    const SignedDistanceGrid g = SignedDistanceGrid::build(shape.mesh, no_cache(48));
    const double h = g.cell_size();
    const double sag = sagitta(shape.mesh, shape.analytic);
    ASSERT_LT(sag, 0.25 * h) << shape.name << ": tessellation too coarse for the test";
    std::mt19937 rng(2);
    const Aabb b = g.box();
    std::uniform_real_distribution<double> ux(b.lo.x(), b.hi.x()), uy(b.lo.y(), b.hi.y()), uz(b.lo.z(), b.hi.z());
    double worst_mesh = 0, worst_analytic = 0;
    int checked = 0;
    for (int trial = 0; trial < 1500; ++trial) {
      const Vec3 p(ux(rng), uy(rng), uz(rng));
      const double v = g.value(p);
      const double exact = brute_sdf(shape.mesh, p);
      EXPECT_LE(std::abs(v - exact), std::sqrt(3.0) * h) << shape.name;
      if (shape.kink_distance(p) < 2 * h) continue;
      ++checked;
      worst_mesh = std::max(worst_mesh, std::abs(v - exact));
      worst_analytic = std::max(worst_analytic, std::abs(v - shape.analytic(p)));
      EXPECT_LE(std::abs(v - exact), 0.5 * h) << shape.name << " at " << p.transpose();
      EXPECT_LE(std::abs(v - shape.analytic(p)), 0.5 * h + sag) << shape.name << " at " << p.transpose();
    }
    EXPECT_GT(checked, 1000) << shape.name;
    RecordProperty(std::string(shape.name) + "_worst_over_h", std::to_string(worst_mesh / h));
    std::printf("[ sdf ] %-6s h=%.4f sagitta=%.5f worst |grid-mesh|=%.3f h, |grid-analytic|=%.3f h\n", shape.name, h,
                sag, worst_mesh / h, worst_analytic / h);
  }
}

// A hollow box (cavity faces inward) with walls two cells thick: every node in the wall is inside, every node
// in the cavity or outside is outside, and the wall's mid-surface interpolates to negative values.
TEST(SdfGrid, SignCorrectInsideThinWalls) {
  const int resolution = 40;
  const double outer = 1.0;
  SdfOptions o = no_cache(resolution);
  o.padding_cells = 2;
  const double h = 2 * outer / (resolution - 4);
  const double wall = 2 * h;
  TriangleMesh m;
  add_box(m, Vec3::Constant(-outer), Vec3::Constant(outer), false);
  add_box(m, Vec3::Constant(-outer + wall), Vec3::Constant(outer - wall), true);
  const SignedDistanceGrid g = SignedDistanceGrid::build(m, o);
  ASSERT_NEAR(g.cell_size(), h, 1e-12);
  auto inside_wall = [&](const Vec3& p) {
    return p.cwiseAbs().maxCoeff() < outer && p.cwiseAbs().maxCoeff() > outer - wall;
  };
  const auto n = g.node_counts();
  int wall_nodes = 0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const Vec3 p = g.node_position(i, j, k);
        const double c = p.cwiseAbs().maxCoeff();
        if (std::abs(c - outer) < 1e-9 || std::abs(c - (outer - wall)) < 1e-9) continue;  // on a surface
        if (inside_wall(p)) {
          ++wall_nodes;
          EXPECT_LT(g.node_value(i, j, k), 0) << p.transpose();
        } else {
          EXPECT_GT(g.node_value(i, j, k), 0) << p.transpose();
        }
      }
  EXPECT_GT(wall_nodes, 1000);
  // Mid-wall points (random, on all six walls) interpolate to about -wall/2.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-outer + wall, outer - wall);
  for (int trial = 0; trial < 600; ++trial) {
    Vec3 p(u(rng), u(rng), u(rng));
    const int axis = trial % 3;
    p[axis] = (trial / 3) % 2 ? outer - wall / 2 : -outer + wall / 2;
    EXPECT_LT(g.value(p), 0) << p.transpose();
    EXPECT_NEAR(g.value(p), -wall / 2, 0.5 * h) << p.transpose();
  }
}

// Central differences of value() at points away from cell faces (where the trilinear interpolant is smooth),
// inside and outside the grid box.
TEST(SdfGrid, GradientMatchesFiniteDifferences) {
  const SdfCase shape = shapes()[2];
  const SignedDistanceGrid g = SignedDistanceGrid::build(shape.mesh, no_cache(32));
  const double h = g.cell_size();
  const Aabb b = g.box();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-0.3, 1.3);
  int tested = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Vec3 p;
    for (int a = 0; a < 3; ++a) p[a] = b.lo[a] + u(rng) * (b.hi[a] - b.lo[a]);
    const Vec3 f = (p - b.lo) / h;
    bool near_face = false;
    for (int a = 0; a < 3; ++a) {
      const double fr = f[a] - std::floor(f[a]);
      near_face |= (fr < 1e-3 || fr > 1 - 1e-3) && p[a] > b.lo[a] - 1e-3 * h && p[a] < b.hi[a] + 1e-3 * h;
    }
    if (near_face) continue;
    ++tested;
    const double eps = 1e-6 * h;
    Vec3 fd;
    for (int a = 0; a < 3; ++a) {
      Vec3 e = Vec3::Zero();
      e[a] = eps;
      fd[a] = (g.value(p + e) - g.value(p - e)) / (2 * eps);
    }
    Vec3 grad;
    const double v = g.value_and_gradient(p, grad);
    EXPECT_DOUBLE_EQ(v, g.value(p));
    EXPECT_TRUE(grad.isApprox(g.gradient(p), 1e-15));
    EXPECT_NEAR((grad - fd).norm(), 0.0, 1e-5) << p.transpose() << " grad " << grad.transpose() << " fd "
                                                << fd.transpose();
  }
  EXPECT_GT(tested, 1500);
}

// Outside the grid box the value is continuous across the box, grows like the distance to the box, and the
// gradient points away along clamped axes.
TEST(SdfGrid, OutsideGridContinuousAndGrowing) {
  const SignedDistanceGrid g = SignedDistanceGrid::build(shapes()[0].mesh, no_cache(24));
  const Aabb b = g.box();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    Vec3 p;
    for (int a = 0; a < 3; ++a) p[a] = b.lo[a] + u(rng) * (b.hi[a] - b.lo[a]);
    const int axis = trial % 3;
    const double sign = (trial / 3) % 2 ? 1 : -1;
    p[axis] = sign > 0 ? b.hi[axis] : b.lo[axis];
    Vec3 e = Vec3::Zero();
    e[axis] = sign;
    // Continuity across the face.
    EXPECT_NEAR(g.value(p + 1e-9 * e), g.value(p - 1e-9 * e), 1e-7);
    // Linear growth along the outward normal.
    for (double t : {0.1, 1.0, 10.0}) EXPECT_NEAR(g.value(p + t * e), g.value(p) + t, 1e-9);
    const Vec3 grad = g.gradient(p + 2.0 * e);
    EXPECT_NEAR(grad[axis], sign, 1e-12);
  }
  // Far away along a diagonal: value ~ distance, gradient unit and pointing away.
  const Vec3 far(100, -80, 60);
  EXPECT_NEAR(g.value(far), far.norm() - 1.0, 0.05 * far.norm());
  EXPECT_GT(g.value(far), 100.0);
  Vec3 grad;
  g.value_and_gradient(far, grad);
  EXPECT_NEAR(grad.norm(), 1.0, 1e-9);
  EXPECT_GT(grad.normalized().dot(far.normalized()), 0.99);
}

TEST(SdfGrid, BatchMatchesSinglePointQueries) {
  const SignedDistanceGrid g = SignedDistanceGrid::build(shapes()[2].mesh, no_cache(32));
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, -0.5).normalized()).toRotationMatrix();
  const Vec3 t(0.2, -0.1, 0.3);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<Vec3> pts(777);
  for (Vec3& p : pts) p = Vec3(u(rng), u(rng), u(rng));
  std::vector<double> values(pts.size()), values_only(pts.size());
  std::vector<Vec3> grads(pts.size());
  g.value_and_gradient(R, t, pts, values, grads);
  g.value_and_gradient(R, t, pts, values_only, {});
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Vec3 q = R * pts[i] + t;
    EXPECT_NEAR(values[i], g.value(q), 1e-12);
    EXPECT_EQ(values[i], values_only[i]);
    EXPECT_LT((grads[i] - g.gradient(q)).norm(), 1e-12);
  }
  std::vector<double> short_values(3);
  EXPECT_THROW(g.value_and_gradient(R, t, pts, short_values, {}), std::invalid_argument);
}

TEST(SdfGrid, DeterministicAcrossThreadCounts) {
  const TriangleMesh m = shapes()[2].mesh;
  SdfOptions o = no_cache(40);
  o.threads = 1;
  SdfBuildInfo info;
  const SignedDistanceGrid g1 = SignedDistanceGrid::build(m, o, &info);
  EXPECT_EQ(info.threads, 1);
  for (int threads : {2, 3, 7}) {
    o.threads = threads;
    const SignedDistanceGrid gt = SignedDistanceGrid::build(m, o, &info);
    EXPECT_EQ(info.threads, threads);
    ASSERT_EQ(gt.node_values().size(), g1.node_values().size());
    EXPECT_TRUE(std::equal(gt.node_values().begin(), gt.node_values().end(), g1.node_values().begin()))
        << threads << " threads";
  }
}

class SdfCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = cl::test::scratch_dir() / "cache";
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  SdfOptions options(int resolution) const {
    SdfOptions o;
    o.resolution = resolution;
    o.cache_dir = dir_;
    return o;
  }
  std::filesystem::path dir_;
};

TEST_F(SdfCache, SecondBuildLoadsIdenticalGrid) {
  const TriangleMesh m = shapes()[0].mesh;
  SdfBuildInfo info;
  const SignedDistanceGrid a = SignedDistanceGrid::build(m, options(24), &info);
  EXPECT_FALSE(info.loaded_from_cache);
  EXPECT_TRUE(info.stored_in_cache);
  ASSERT_TRUE(std::filesystem::exists(info.cache_file));
  const SignedDistanceGrid b = SignedDistanceGrid::build(m, options(24), &info);
  EXPECT_TRUE(info.loaded_from_cache);
  EXPECT_FALSE(info.cache_rejected);
  EXPECT_EQ(a.node_values(), b.node_values());
  EXPECT_EQ(a.origin(), b.origin());
  EXPECT_EQ(a.cell_size(), b.cell_size());
  EXPECT_EQ(a.node_counts(), b.node_counts());
  EXPECT_EQ(a.value(Vec3(0.3, 0.2, -0.1)), b.value(Vec3(0.3, 0.2, -0.1)));
  // Other inputs are other keys: resolution, padding, a moved vertex.
  const SignedDistanceGrid c = SignedDistanceGrid::build(m, options(25), &info);
  EXPECT_FALSE(info.loaded_from_cache);
  SdfOptions padded = options(24);
  padded.padding = 0.2;
  SignedDistanceGrid::build(m, padded, &info);
  EXPECT_FALSE(info.loaded_from_cache);
  TriangleMesh moved = m;
  moved.vertices[5].x() += 1e-12;
  SignedDistanceGrid::build(moved, options(24), &info);
  EXPECT_FALSE(info.loaded_from_cache);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator{}), 4);
}

TEST_F(SdfCache, CorruptOrMismatchedFileIsRebuilt) {
  const TriangleMesh m = shapes()[1].mesh;
  SdfBuildInfo info;
  const SignedDistanceGrid a = SignedDistanceGrid::build(m, options(20), &info);
  const std::filesystem::path file = info.cache_file;
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto size = std::filesystem::file_size(file);

  auto flip_byte = [&](std::uintmax_t at) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char c;
    f.read(&c, 1);
    c ^= 0x5a;
    f.seekp(static_cast<std::streamoff>(at));
    f.write(&c, 1);
  };
  // A flipped bit in the values, in the header, in the checksum.
  for (std::uintmax_t at : {size / 2, std::uintmax_t{40}, size - 3}) {
    flip_byte(at);
    const SignedDistanceGrid b = SignedDistanceGrid::build(m, options(20), &info);
    EXPECT_TRUE(info.cache_rejected) << "byte " << at;
    EXPECT_FALSE(info.loaded_from_cache);
    EXPECT_TRUE(info.stored_in_cache);
    EXPECT_EQ(a.node_values(), b.node_values());
    SignedDistanceGrid::build(m, options(20), &info);
    EXPECT_TRUE(info.loaded_from_cache) << "the rebuilt file is valid again";
  }
  // Truncated, empty and garbage files.
  std::filesystem::resize_file(file, size - 100);
  SignedDistanceGrid::build(m, options(20), &info);
  EXPECT_TRUE(info.cache_rejected);
  { std::ofstream(file, std::ios::trunc); }
  SignedDistanceGrid::build(m, options(20), &info);
  EXPECT_TRUE(info.cache_rejected);
  { std::ofstream(file, std::ios::trunc) << std::string(size, 'x'); }
  const SignedDistanceGrid c = SignedDistanceGrid::build(m, options(20), &info);
  EXPECT_TRUE(info.cache_rejected);
  EXPECT_EQ(a.node_values(), c.node_values());
  // A valid file read under another key is refused.
  SignedDistanceGrid d;
  EXPECT_TRUE(d.read(file, SignedDistanceGrid::cache_key(m.vertices, m.triangles, options(20))));
  EXPECT_FALSE(d.read(file, 12345));
}

// The cache holds its grids to the size limit: after a store, the least recently used (stored or read) go.
TEST_F(SdfCache, KeepsToItsLimitByEvictingTheLeastRecentlyUsed) {
  const TriangleMesh m = shapes()[1].mesh;
  SdfBuildInfo info;
  SdfOptions o = options(16);
  SignedDistanceGrid::build(m, o, &info);
  const std::filesystem::path first = info.cache_file;
  const auto one = std::filesystem::file_size(first);
  // Room for two grids of about this size.
  o.cache_limit = 2 * one + one / 2;
  o.resolution = 17;
  SignedDistanceGrid::build(m, o, &info);
  const std::filesystem::path second = info.cache_file;
  // Reading the first marks it used: the second is now the least recently used.
  struct timespec past[2] = {{1000, 0}, {1000, 0}};
  ::utimensat(AT_FDCWD, second.c_str(), past, 0);
  o.resolution = 16;
  SignedDistanceGrid::build(m, o, &info);
  EXPECT_TRUE(info.loaded_from_cache);
  o.resolution = 15;
  SignedDistanceGrid::build(m, o, &info);
  EXPECT_TRUE(info.stored_in_cache);
  EXPECT_TRUE(std::filesystem::exists(first));
  EXPECT_TRUE(std::filesystem::exists(info.cache_file));
  EXPECT_FALSE(std::filesystem::exists(second)) << "the least recently used grid stays";
  // A grid larger than the whole limit is not stored at all.
  o.cache_limit = 100;
  o.resolution = 20;
  SignedDistanceGrid::build(m, o, &info);
  EXPECT_FALSE(info.stored_in_cache);
  EXPECT_FALSE(std::filesystem::exists(info.cache_file));
}

// Only regular files are read, without blocking: a named pipe at a cache path (nobody writing it) is skipped at
// once and replaced by the grid, never waited on.
TEST_F(SdfCache, ANamedPipeAtTheCachePathIsNotWaitedOn) {
  const TriangleMesh m = shapes()[1].mesh;
  std::filesystem::create_directories(dir_);
  const SdfOptions o = options(12);
  const std::filesystem::path file =
      SignedDistanceGrid::cache_file(dir_, SignedDistanceGrid::cache_key(m.vertices, m.triangles, o));
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  SdfBuildInfo info;
  const SignedDistanceGrid g = SignedDistanceGrid::build(m, o, &info);
  EXPECT_FALSE(g.empty());
  EXPECT_FALSE(info.loaded_from_cache);
  EXPECT_TRUE(info.cache_rejected);
  EXPECT_TRUE(std::filesystem::is_regular_file(file));
}

TEST_F(SdfCache, UnwritableDirectoryFallsBackToNoCache) {
  const TriangleMesh m = shapes()[1].mesh;
  SdfOptions o = options(16);
  o.cache_dir = "/proc/contactlab_no_such_dir";
  SdfBuildInfo info;
  const SignedDistanceGrid g = SignedDistanceGrid::build(m, o, &info);
  EXPECT_FALSE(info.stored_in_cache);
  EXPECT_FALSE(info.loaded_from_cache);
  EXPECT_FALSE(g.empty());
}

TEST(SdfGrid, MalformedInputsThrow) {
  TriangleMesh empty;
  EXPECT_THROW(SignedDistanceGrid::build(empty, no_cache(16)), std::invalid_argument);
  TriangleMesh bad = shapes()[1].mesh;
  bad.triangles[3][1] = 99;
  EXPECT_THROW(SignedDistanceGrid::build(bad, no_cache(16)), std::invalid_argument);
  TriangleMesh nan = shapes()[1].mesh;
  nan.vertices[2].y() = std::nan("");
  EXPECT_THROW(SignedDistanceGrid::build(nan, no_cache(16)), std::invalid_argument);
  EXPECT_THROW(SignedDistanceGrid::build(shapes()[1].mesh, no_cache(1)), std::invalid_argument);
  SdfOptions o = no_cache(8);
  o.padding_cells = 4;
  EXPECT_THROW(SignedDistanceGrid::build(shapes()[1].mesh, o), std::invalid_argument);
}

}  // namespace
}  // namespace cl
