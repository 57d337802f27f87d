// Intersection volumes from layered depth images (Allard et al. 2010, sect. 3.2 and 5): volumes against closed
// forms, gradients against derivatives of closed forms and finite differences, balance of forces and torques,
// multi-volume cells against the mono volume, watertight rasterisation, determinism across thread counts.
#include "ldi/intersection_volume.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <span>
#include <string>

#include "mesh/bvh.h"
#include "mesh/generate.h"
#include "mesh/mesh.h"
#include "support/builders.h"

namespace cl::ldi {
namespace {

using test::kPi;

MeshInput input(const TriangleMesh& m, const Vec3& centre = Vec3::Zero()) {
  return MeshInput{m.vertices, m.triangles, centre};
}

TriangleMesh posed(TriangleMesh m, const Quat& q, const Vec3& t) {
  transform_mesh(m, q, t);
  return m;
}

double mesh_volume(const TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]]));
  return v / 6.0;
}

VolumeOptions pixels(double s, int threads = 1) {
  VolumeOptions o;
  o.pixel_size = s;
  o.threads = threads;
  return o;
}

double relative_error(double value, double exact) { return std::abs(value - exact) / std::abs(exact); }

// ---- closed forms ------------------------------------------------------------------------------------------

// Convex polygon clipping (Sutherland-Hodgman), both counter-clockwise.
using Polygon = std::vector<Vec2>;
double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }
Polygon clip(const Polygon& subject, const Polygon& clipper) {
  Polygon out = subject;
  for (std::size_t e = 0; e < clipper.size() && !out.empty(); ++e) {
    const Vec2 a = clipper[e], b = clipper[(e + 1) % clipper.size()];
    Polygon in = out;
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
      const Vec2 p = in[i], q = in[(i + 1) % in.size()];
      const double dp = cross2(b - a, p - a), dq = cross2(b - a, q - a);
      if (dp >= 0) out.push_back(p);
      if ((dp >= 0) != (dq >= 0)) out.push_back(p + (q - p) * (dp / (dp - dq)));
    }
  }
  return out;
}
double polygon_area(const Polygon& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) a += cross2(p[i], p[(i + 1) % p.size()]);
  return 0.5 * a;
}
Polygon square(double half, double phi, const Vec2& centre) {
  Polygon p;
  const double c = std::cos(phi), s = std::sin(phi);
  for (const Vec2& k : {Vec2(-1, -1), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)})
    p.push_back(centre + half * Vec2(c * k.x() - s * k.y(), s * k.x() + c * k.y()));
  return p;
}
// Unit cube at the origin and a unit cube turned by phi about z and centred at t (frame of A).
double cubes_volume(double phi, const Vec3& t) {
  const double dz = std::max(0.0, std::min(0.5, t.z() + 0.5) - std::max(-0.5, t.z() - 0.5));
  return dz * polygon_area(clip(square(0.5, phi, Vec2(t.x(), t.y())), square(0.5, 0, Vec2(0, 0))));
}
// Two balls of radius r at distance d (lens), and its derivative with respect to d: -pi (r^2 - d^2 / 4), minus
// the area of the circle where the spheres meet.
double lens_volume(double r, double d) { return kPi / 12.0 * (4 * r + d) * (2 * r - d) * (2 * r - d); }
double lens_slope(double r, double d) { return -kPi * (r * r - d * d / 4); }

// A generic orientation for the images not to line up with anything.
Quat tilt() { return Quat(Eigen::AngleAxisd(0.7, Vec3(0.3, -0.8, 0.52).normalized())); }

// The pair of turned cubes of the tests: A at the origin, B turned by phi about A's z axis and shifted by t, both
// then turned by R (so the images see generic orientations).
struct CubePair {
  TriangleMesh a, b;
  Vec3 centre_b;
};
CubePair cube_pair(const Quat& R, double phi, const Vec3& t) {
  CubePair p;
  p.a = posed(make_box(Vec3(0.5, 0.5, 0.5)), R, Vec3::Zero());
  p.b = posed(make_box(Vec3(0.5, 0.5, 0.5)), R * Quat(Eigen::AngleAxisd(phi, Vec3::UnitZ())), R * t);
  p.centre_b = R * t;
  return p;
}

// ---- rasterisation ------------------------------------------------------------------------------------------

// Walks one ray's crossings of `mesh`: the winding count stays 0 or 1 (a convex mesh is entered and left once),
// once crossings within 1e-12 m of each other are taken together (a ray grazing a silhouette edge leaves and
// re-enters at the same depth, in either order after rounding); ends at 0 when the mesh lies inside the image's
// depth range (`closes`). Returns the number of crossings of the mesh.
int check_ray(std::span<const Crossing> ray, int mesh, bool from_above, bool closes, const char* where) {
  int wind = 0, count = 0;
  if (from_above)
    for (const Crossing& c : ray)
      if (c.mesh == mesh) wind -= c.direction;
  for (std::size_t k = 0; k < ray.size(); ++k) {
    if (k > 0) {
      EXPECT_GE(ray[k].depth, ray[k - 1].depth) << where;
    }
    EXPECT_NEAR(ray[k].bary[0] + ray[k].bary[1] + ray[k].bary[2], 1.0, 1e-12) << where;
    if (ray[k].mesh != mesh) continue;
    wind += ray[k].direction;
    ++count;
    if (k + 1 < ray.size() && ray[k + 1].depth - ray[k].depth < 1e-12) continue;
    EXPECT_TRUE(wind == 0 || wind == 1) << where;
  }
  if (closes) {
    EXPECT_EQ(wind, 0) << where;
  }
  return count;
}

// Vertices, edges and faces of a 0.9 m box lie exactly on pixel centres (s = 0.1): every ray still crosses each
// sheet once (crossings per mesh alternate enter / leave and the winding returns to 0), and the box's boundary
// pixels are half in, half out by the tie rule, so its volume inside a larger box is exact.
TEST(LdiImage, RaysThroughVerticesAndEdgesCrossOnce) {
  // Vertices at -0.45, -0.15, 0.15, 0.45 on each axis: all on pixel centres 0.05 + 0.1 k, and so are the faces'
  // diagonals where they cross.
  const TriangleMesh small = make_box(Vec3(0.45, 0.45, 0.45), 3);
  const TriangleMesh big = posed(make_box(Vec3(1, 1, 1)), Quat::Identity(), Vec3(0.05, 0.05, 0.05));
  IntersectionVolume iv;
  VolumeResult r;
  iv.compute(input(small), input(big), pixels(0.1), r);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.mono.volume, 0.729, 1e-12);
  for (int w = 0; w < 3; ++w) {
    EXPECT_NEAR(r.mono.axis_volume[w], 0.729, 1e-12) << "axis " << w;
    const LayeredDepthImage& img = iv.image(w);
    ASSERT_FALSE(img.empty());
    int covered = 0;
    for (int j = 0; j < img.height; ++j)
      for (int i = 0; i < img.width; ++i) {
        const std::string where = "axis " + std::to_string(w) + " pixel " + std::to_string(i) + "," + std::to_string(j);
        const int count = check_ray(img.pixel(i, j), 0, img.from_above[0], true, where.c_str());
        // The big box's far side is beyond the image: its count need not return to 0.
        check_ray(img.pixel(i, j), 1, img.from_above[1], false, where.c_str());
        EXPECT_TRUE(count == 0 || count == 2) << where;
        if (count == 2) ++covered;
      }
    EXPECT_EQ(covered, 81) << "axis " << w;  // 9 x 9 pixel centres of the 0.9 m face, one boundary side each
  }
}

// A UV sphere with its poles (vertices shared by 24 triangles) and its seam on pixel centres, in all three images.
TEST(LdiImage, PolesOnPixelCentresCrossOnce) {
  // Poles at (0.05, 0.05, +-0.5), seam in the plane y = 0.05: pixel centres are at 0.05 + 0.1 k.
  const TriangleMesh ball = posed(make_uv_sphere(0.5, 24, 12), Quat::Identity(), Vec3(0.05, 0.05, 0));
  // A cube around it, so that every triangle of the ball is in the images.
  const TriangleMesh cube = posed(make_box(Vec3(0.6, 0.6, 0.6)), Quat::Identity(), Vec3(0.01, 0.01, 0.02));
  IntersectionVolume iv;
  VolumeResult r;
  iv.compute(input(ball), input(cube), pixels(0.1), r);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.mono.volume, mesh_volume(ball), 0.05 * mesh_volume(ball));
  for (int w = 0; w < 3; ++w) {
    const LayeredDepthImage& img = iv.image(w);
    for (int j = 0; j < img.height; ++j)
      for (int i = 0; i < img.width; ++i) {
        const std::string where = "axis " + std::to_string(w) + " pixel " + std::to_string(i) + "," + std::to_string(j);
        const int count = check_ray(img.pixel(i, j), 0, img.from_above[0], true, where.c_str());
        EXPECT_TRUE(count == 0 || count == 2) << where;
      }
  }
}

// ---- volumes -------------------------------------------------------------------------------------------------

// Axis-aligned boxes are the worst case of point sampling: every pixel along an edge of the footprint errs the
// same way, so an image's count of pixels across a side of length L is off by up to one pixel, a relative error
// up to s / L per side (about 2.5% at s = L / 70 in the worst offset). Over random offsets the mean error is
// under 1% from 50 pixels across the cube on, every offset is within 1% at 200, and the mean error falls as the
// pixels shrink.
TEST(LdiVolume, OffsetCubesAxisAligned) {
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.5));
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<Vec3> offsets;
  for (int k = 0; k < 8; ++k) offsets.emplace_back(0.3 + 0.2 * U(rng), 0.2 + 0.2 * U(rng), 0.1 * U(rng));
  std::vector<double> mean;
  for (double s : {0.04, 0.02, 0.01, 0.005}) {
    double sum = 0, worst = 0;
    for (const Vec3& t : offsets) {
      const TriangleMesh b = posed(a, Quat::Identity(), t);
      const VolumeResult r = intersection_volume(input(a), input(b, t), pixels(s));
      ASSERT_TRUE(r.ok());
      const double exact = (1 - std::abs(t.x())) * (1 - std::abs(t.y())) * (1 - std::abs(t.z()));
      const double err = relative_error(r.mono.volume, exact);
      sum += err;
      worst = std::max(worst, err);
    }
    mean.push_back(sum / double(offsets.size()));
    std::printf("  aligned cubes  s = %-6g  error mean %.3f%%  max %.3f%%\n", s, 100 * mean.back(), 100 * worst);
    if (s <= 0.02) {
      EXPECT_LT(mean.back(), 0.01);
    }
    if (s <= 0.005) {
      EXPECT_LT(worst, 0.01);
    }
  }
  EXPECT_LT(mean[1], mean[0]);
  EXPECT_LT(mean[2], mean[1]);
}

// Turned cubes in a generic orientation (the footprints' edges cross the pixel grid at angles, so their
// sampling errors average out along them) against the polygon-clipping closed form.
TEST(LdiVolume, TurnedCubesAgainstPolygonClipping) {
  const std::array<std::pair<double, Vec3>, 3> cases = {std::pair{0.37, Vec3(0.55, 0.21, 0.13)},
                                                        std::pair{1.1, Vec3(-0.3, 0.6, -0.25)},
                                                        std::pair{0.05, Vec3(0.2, -0.1, 0.7)}};
  std::vector<double> mean;
  for (double s : {0.04, 0.02, 0.01}) {
    double sum = 0;
    for (const auto& [phi, t] : cases) {
      const double exact = cubes_volume(phi, t);
      const CubePair p = cube_pair(tilt(), phi, t);
      const VolumeResult r = intersection_volume(input(p.a), input(p.b, p.centre_b), pixels(s));
      ASSERT_TRUE(r.ok());
      const double err = relative_error(r.mono.volume, exact);
      EXPECT_LT(err, 0.01) << "s = " << s << " phi = " << phi;
      sum += err;
    }
    mean.push_back(sum / double(cases.size()));
    std::printf("  turned cubes   s = %-6g  error mean %.3f%%\n", s, 100 * mean.back());
  }
  EXPECT_LT(mean[2], mean[0]);
}

// Two balls of radius 0.5 at distance 0.6 in random orientations against the lens. The UV spheres (96 x 48) are
// inscribed polyhedra: scaled to the ball's volume, their lens differs from the exact one by about 0.02%, the
// floor of the error at small pixels.
TEST(LdiVolume, SpheresLens) {
  const double r = 0.5, d = 0.6;
  TriangleMesh ball = make_uv_sphere(r, 96, 48);
  scale_mesh(ball, std::cbrt(4.0 / 3.0 * kPi * r * r * r / mesh_volume(ball)));
  const double exact = lens_volume(r, d);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<std::pair<TriangleMesh, TriangleMesh>> pairs;
  for (int k = 0; k < 4; ++k) {
    const Quat q(Eigen::AngleAxisd(3 * U(rng), Vec3(U(rng), U(rng), U(rng)).normalized()));
    const Vec3 dir = Vec3(U(rng), U(rng), U(rng)).normalized();
    pairs.emplace_back(posed(ball, q, Vec3::Zero()), posed(ball, q, d * dir));
  }
  std::vector<double> mean;
  for (double s : {0.04, 0.02, 0.01}) {
    double sum = 0;
    for (const auto& [a, b] : pairs) {
      const VolumeResult res = intersection_volume(input(a), input(b), pixels(s));
      ASSERT_TRUE(res.ok());
      const double err = relative_error(res.mono.volume, exact);
      EXPECT_LT(err, 0.01);
      sum += err;
    }
    mean.push_back(sum / double(pairs.size()));
    std::printf("  spheres        s = %-6g  error mean %.3f%%\n", s, 100 * mean.back());
  }
  EXPECT_LT(mean[1], mean[0]);
  EXPECT_LT(mean[2], mean[1]);
}

// A plate resting 0.5 pixel deep on a larger one, faces aligned with the images: the image along the normal
// measures the layer exactly; the two others see it only through the rows whose centres fall inside it (here
// one row in two pixels, so they read twice the volume, or zero). The mean of the three reads 5/3 of the volume;
// the normal-weighted combination reads it exactly.
TEST(LdiVolume, ThinAlignedLayerMeanAndNormalWeighted) {
  const double s = 0.01, depth = 0.005;
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.1));
  const TriangleMesh b = posed(make_box(Vec3(0.3, 0.3, 0.1)), Quat::Identity(), Vec3(0.1, 0.05, 0.2 - depth));
  const double exact = 0.36 * depth;
  VolumeOptions o = pixels(s);
  VolumeResult r = intersection_volume(input(a), input(b), o);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.mono.axis_volume[2], exact, 1e-12);
  EXPECT_NEAR(r.mono.volume, 5.0 / 3.0 * exact, 1e-3 * exact);
  o.combine = AxisCombination::NormalWeighted;
  r = intersection_volume(input(a), input(b), o);
  EXPECT_NEAR(r.mono.volume, exact, 1e-3 * exact);
  // Generic shapes: the same expectation as the mean.
  const CubePair p = cube_pair(tilt(), 0.37, Vec3(0.55, 0.21, 0.13));
  r = intersection_volume(input(p.a), input(p.b), o);
  EXPECT_LT(relative_error(r.mono.volume, cubes_volume(0.37, Vec3(0.55, 0.21, 0.13))), 0.002);
}

// The intervals given for drawing add up to each image's volume.
TEST(LdiImage, IntervalsAddUpToTheAxisVolumes) {
  const TriangleMesh a = make_torus(0.4, 0.15, 48, 24);
  const TriangleMesh b = posed(make_torus(0.4, 0.15, 48, 24), tilt(), Vec3(0.35, 0.1, 0.05));
  IntersectionVolume iv;
  VolumeResult r;
  iv.compute(input(a), input(b), pixels(0.01), r);
  ASSERT_TRUE(r.ok());
  std::vector<RayInterval> intervals;
  for (int w = 0; w < 3; ++w) {
    intersection_intervals(iv.image(w), intervals);
    double length = 0;
    for (const RayInterval& k : intervals) {
      EXPECT_GT(k.upper, k.lower);
      EXPECT_GE(k.lower, r.overlap.lo[w] - 1e-12);
      EXPECT_LE(k.upper, r.overlap.hi[w] + 1e-12);
      length += k.upper - k.lower;
    }
    EXPECT_EQ(long(intervals.size()), r.stats.intervals[w]);
    EXPECT_NEAR(length * 0.01 * 0.01, r.mono.axis_volume[w], 1e-12);
  }
}

TEST(LdiVolume, DisjointMeshesGiveZero) {
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.5));
  const TriangleMesh far = posed(make_box(Vec3(0.5, 0.5, 0.5)), Quat::Identity(), Vec3(1.2, 0, 0));
  VolumeResult r = intersection_volume(input(a), input(far), pixels(0.02));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.boxes_overlap);
  EXPECT_EQ(r.mono.volume, 0);
  EXPECT_TRUE(r.mono.body[0].gradient.empty());
  // Bounding boxes overlap but the meshes do not: a ball in the hole of a torus.
  const TriangleMesh torus = make_torus(1.0, 0.3, 48, 24);
  const TriangleMesh ball = make_uv_sphere(0.5, 32, 16);
  VolumeOptions o = pixels(0.02);
  o.multi_volume = true;
  o.cell_size = 0.2;
  r = intersection_volume(input(torus), input(ball), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.boxes_overlap);
  EXPECT_EQ(r.mono.volume, 0);
  EXPECT_TRUE(r.mono.body[0].gradient.empty());
  EXPECT_TRUE(r.mono.body[1].gradient.empty());
  EXPECT_TRUE(r.cells().empty());
  EXPECT_EQ(r.mono.normal, Vec3::Zero());
}

// A ball entirely inside a box: the volume is the ball's; translating it changes nothing, so its net force is
// zero (and the normal undefined: zero); inflating it would grow the volume, so its vertices have gradients.
TEST(LdiVolume, MeshEntirelyInsideAnother) {
  const TriangleMesh box = make_box(Vec3(1, 0.8, 0.9));
  const TriangleMesh ball = posed(make_uv_sphere(0.4, 48, 24), tilt(), Vec3(0.1, -0.2, 0.05));
  const double exact = mesh_volume(ball);
  const VolumeResult r = intersection_volume(input(box), input(ball, Vec3(0.1, -0.2, 0.05)), pixels(0.01));
  ASSERT_TRUE(r.ok());
  EXPECT_LT(relative_error(r.mono.volume, exact), 0.005) << r.mono.volume << " vs " << exact;
  EXPECT_TRUE(r.mono.body[0].gradient.empty());
  EXPECT_FALSE(r.mono.body[1].gradient.empty());
  EXPECT_LT(r.mono.body[1].linear.norm(), 1e-12);
  // Its torque cancels too, up to the vertices' snapping (2^-16 pixel) times the forces on its surface.
  double surface = 0;
  for (const auto& g : r.mono.body[1].gradient) surface += g.gradient.norm();
  EXPECT_LT(r.mono.body[1].angular.norm(), 1e-6 * 0.4 * surface);
  EXPECT_EQ(r.mono.normal, Vec3::Zero());
  // Growing the ball by a factor (1 + e) grows its volume by 3 e V: sum_k p_k . dV/dp_k = 3 V about its centre.
  double dilation = 0;
  for (const auto& g : r.mono.body[1].gradient)
    dilation += (ball.vertices[g.vertex] - Vec3(0.1, -0.2, 0.05)).dot(g.gradient);
  EXPECT_NEAR(dilation, 3 * r.mono.volume, 0.01 * 3 * r.mono.volume);
}

// ---- gradients ---------------------------------------------------------------------------------------------

// Along its own axis an image's volume is piecewise linear in the vertices' coordinates (moving a vertex along
// w does not change which pixels its triangles cover), and eq. 12 is its exact derivative: check each axis's
// component against central differences of that axis's volume with a step far below any change of order.
TEST(LdiGradient, EachAxisIsTheExactDerivativeOfItsImage) {
  const CubePair p = cube_pair(tilt(), 0.37, Vec3(0.55, 0.21, 0.13));
  const VolumeOptions o = pixels(0.02);
  const VolumeResult r = intersection_volume(input(p.a), input(p.b, p.centre_b), o);
  ASSERT_TRUE(r.ok());
  const double eps = 1e-7;
  for (int w = 0; w < 3; ++w) {
    // Rigid translation of B along w.
    TriangleMesh plus = p.b, minus = p.b;
    for (auto& v : plus.vertices) v[w] += eps;
    for (auto& v : minus.vertices) v[w] -= eps;
    const double fd = (intersection_volume(input(p.a), input(plus), o).mono.axis_volume[w] -
                       intersection_volume(input(p.a), input(minus), o).mono.axis_volume[w]) /
                      (2 * eps);
    EXPECT_NEAR(r.mono.body[1].linear[w], fd, 1e-6 * std::abs(fd) + 1e-9) << "axis " << w;
    // Single vertices of both meshes.
    for (int mesh = 0; mesh < 2; ++mesh)
      for (std::size_t k = 0; k < r.mono.body[mesh].gradient.size(); k += 3) {
        const int vtx = r.mono.body[mesh].gradient[k].vertex;
        TriangleMesh mp = mesh == 0 ? p.a : p.b, mm = mp;
        mp.vertices[vtx][w] += eps;
        mm.vertices[vtx][w] -= eps;
        const double vp = mesh == 0 ? intersection_volume(input(mp), input(p.b), o).mono.axis_volume[w]
                                    : intersection_volume(input(p.a), input(mp), o).mono.axis_volume[w];
        const double vm = mesh == 0 ? intersection_volume(input(mm), input(p.b), o).mono.axis_volume[w]
                                    : intersection_volume(input(p.a), input(mm), o).mono.axis_volume[w];
        EXPECT_NEAR(r.mono.body[mesh].gradient[k].gradient[w], (vp - vm) / (2 * eps), 1e-7)
            << "mesh " << mesh << " vertex " << vtx << " axis " << w;
      }
  }
}

// Rigid translation and rotation of B against the derivatives of the closed form (central differences of the
// exact volume, eps = 1e-6). The images' gradient is the area of the projected contact surface counted in pixels,
// so its error is that of the pixel count along the surface's outline: about (perimeter x s / 2) / area, a few
// percent at s = 0.02 on faces of 1 m; the tolerance is 3% of the gradient's size at s = 0.01.
TEST(LdiGradient, RigidDerivativesOfTurnedCubes) {
  const double phi = 0.37;
  const Vec3 t(0.55, 0.21, 0.13);
  const Quat R = tilt();
  const CubePair p = cube_pair(R, phi, t);
  const VolumeResult r = intersection_volume(input(p.a, Vec3::Zero()), input(p.b, p.centre_b), pixels(0.01));
  ASSERT_TRUE(r.ok());
  const double e = 1e-6;
  // Translation in A's frame, then turned to the world.
  Vec3 local;
  for (int d = 0; d < 3; ++d) {
    Vec3 dt = Vec3::Zero();
    dt[d] = e;
    local[d] = (cubes_volume(phi, t + dt) - cubes_volume(phi, t - dt)) / (2 * e);
  }
  const Vec3 exact_linear = R * local;
  EXPECT_LT((r.mono.body[1].linear - exact_linear).norm(), 0.03 * exact_linear.norm())
      << r.mono.body[1].linear.transpose() << " vs " << exact_linear.transpose();
  // Rotation about B's centre around the turned z axis: (dV/dtheta) . (R z) = dV/dphi.
  const double dphi = (cubes_volume(phi + e, t) - cubes_volume(phi - e, t)) / (2 * e);
  const double lever = 0.5 * std::sqrt(2.0);  // the lever arm of the forces about B's centre is at most this
  EXPECT_NEAR(r.mono.body[1].angular.dot(R * Vec3::UnitZ()), dphi, 0.03 * lever * exact_linear.norm())
      << r.mono.body[1].angular.dot(R * Vec3::UnitZ()) << " vs " << dphi;
  std::printf("  dV/dx_B = (%.4f %.4f %.4f), exact (%.4f %.4f %.4f); dV/dphi = %.4f, exact %.4f\n",
              r.mono.body[1].linear.x(), r.mono.body[1].linear.y(), r.mono.body[1].linear.z(), exact_linear.x(),
              exact_linear.y(), exact_linear.z(), r.mono.body[1].angular.dot(R * Vec3::UnitZ()), dphi);
}

// Spheres: the force on B is along the line of centres with size pi (r^2 - d^2/4) (the meeting circle's area),
// and turning B about its own centre changes nothing.
TEST(LdiGradient, SpheresAlongTheLineOfCentres) {
  const double r = 0.5, d = 0.6;
  TriangleMesh ball = make_uv_sphere(r, 96, 48);
  scale_mesh(ball, std::cbrt(4.0 / 3.0 * kPi * r * r * r / mesh_volume(ball)));
  const Vec3 dir = Vec3(0.3, 0.5, -0.8).normalized();
  const TriangleMesh a = posed(ball, tilt(), Vec3::Zero());
  const TriangleMesh b = posed(ball, tilt(), d * dir);
  const VolumeResult res = intersection_volume(input(a), input(b, d * dir), pixels(0.01));
  ASSERT_TRUE(res.ok());
  const Vec3 exact = lens_slope(r, d) * dir;
  EXPECT_LT((res.mono.body[1].linear - exact).norm(), 0.02 * exact.norm())
      << res.mono.body[1].linear.transpose() << " vs " << exact.transpose();
  EXPECT_LT(res.mono.body[1].angular.norm(), 0.02 * r * exact.norm());
  EXPECT_LT((res.mono.normal - dir).norm(), 0.01);
  std::printf("  spheres: |dV/dx_B| = %.5f, exact %.5f; |dV/dtheta_B| = %.2e; normal error %.2e\n",
              res.mono.body[1].linear.norm(), exact.norm(), res.mono.body[1].angular.norm(),
              (res.mono.normal - dir).norm());
}

// Central differences of the full (three-image mean) volume under a tilt of B about a generic axis, with a step
// large against the pixel (1.5 pixels of motion at the far corner) so that the pixel-count noise of the images
// across the motion averages out; the tolerance (5%) is that noise over the step.
TEST(LdiGradient, GenericRotationAgainstFiniteDifferences) {
  const CubePair p = cube_pair(tilt(), 0.37, Vec3(0.55, 0.21, 0.13));
  const VolumeOptions o = pixels(0.01);
  const VolumeResult r = intersection_volume(input(p.a), input(p.b, p.centre_b), o);
  ASSERT_TRUE(r.ok());
  const Vec3 axis = Vec3(0.6, -0.3, 0.74).normalized();
  const double e = 0.015;
  auto turned = [&](double angle) {
    TriangleMesh m = p.b;
    const Quat q(Eigen::AngleAxisd(angle, axis));
    for (auto& v : m.vertices) v = p.centre_b + q * (v - p.centre_b);
    return intersection_volume(input(p.a), input(m), o).mono.volume;
  };
  const double fd = (turned(e) - turned(-e)) / (2 * e);
  const double grad = r.mono.body[1].angular.dot(axis);
  EXPECT_NEAR(grad, fd, 0.05 * r.mono.body[1].angular.norm()) << grad << " vs " << fd;
  std::printf("  generic tilt: dV/dtheta . axis = %.5f, finite difference %.5f\n", grad, fd);
  // And a translation of B along the same generic direction.
  auto moved = [&](double s) {
    TriangleMesh m = p.b;
    for (auto& v : m.vertices) v += s * axis;
    return intersection_volume(input(p.a), input(m), o).mono.volume;
  };
  const double fdx = (moved(e) - moved(-e)) / (2 * e);
  EXPECT_NEAR(r.mono.body[1].linear.dot(axis), fdx, 0.05 * r.mono.body[1].linear.norm());
}

// F_A = -F_B exactly (each crossing's weights sum to 1, both ends of an interval are on one ray) and the torques
// about a common point cancel (up to the 2^-16 pixel snapping of the vertices).
TEST(LdiGradient, ForcesAndTorquesBalance) {
  const CubePair p = cube_pair(tilt(), 0.37, Vec3(0.55, 0.21, 0.13));
  const Vec3 ca(0.1, 0.2, 0.3);
  const VolumeResult r = intersection_volume(input(p.a, ca), input(p.b, p.centre_b), pixels(0.01));
  ASSERT_TRUE(r.ok());
  const BodyTerms& A = r.mono.body[0];
  const BodyTerms& B = r.mono.body[1];
  EXPECT_LT((A.linear + B.linear).norm(), 1e-12 * A.linear.norm());
  // Moments about the origin: tau_about_0 = tau_about_c + c x F.
  const Vec3 ta = A.angular + ca.cross(A.linear), tb = B.angular + p.centre_b.cross(B.linear);
  EXPECT_LT((ta + tb).norm(), 1e-6 * A.linear.norm());
  // Friction weights: sum A_k = 0 over both meshes, so a common translation has no relative velocity (eq. 20).
  EXPECT_NEAR(A.area_sum + B.area_sum, 0, 1e-12 * A.area_sum);
  EXPECT_GT(A.area_sum, 0);
  EXPECT_NEAR(r.mono.area, A.area_sum, 0.2 * A.area_sum);  // the positive A_k are mostly A's
}

// ---- multi-volume ------------------------------------------------------------------------------------------

void expect_cells_add_up(const VolumeResult& r, double rel, const Vec3& centre_a = Vec3::Zero(),
                         const Vec3& centre_b = Vec3::Zero()) {
  std::array<double, 3> axis{0, 0, 0};
  std::array<std::vector<Vec3>, 2> sum;
  for (int b = 0; b < 2; ++b) sum[b].assign(20000, Vec3::Zero());
  for (const VolumeContact& c : r.cells()) {
    for (int w = 0; w < 3; ++w) axis[w] += c.axis_volume[w];
    for (int b = 0; b < 2; ++b)
      for (const auto& g : c.body[b].gradient) sum[b][g.vertex] += g.gradient;
    // Each cell: equal and opposite forces, balanced torques (eq. 24's wall terms).
    const double scale = c.body[0].linear.norm() + c.body[1].linear.norm() + 1e-12;
    EXPECT_LT((c.body[0].linear + c.body[1].linear).norm(), 1e-9 * scale + 1e-15);
    // Torques about the origin cancel up to the vertices' snapping (2^-16 pixel) times the forces on the
    // vertices (meshes of about 1 m).
    const Vec3 torque = c.body[0].angular + centre_a.cross(c.body[0].linear) + c.body[1].angular +
                        centre_b.cross(c.body[1].linear);
    double forces = 0;
    for (int b = 0; b < 2; ++b)
      for (const auto& g : c.body[b].gradient) forces += g.gradient.norm();
    EXPECT_LT(torque.norm(), 1e-6 * forces);
    EXPECT_GT(c.volume, 0);
  }
  for (int w = 0; w < 3; ++w) EXPECT_NEAR(axis[w], r.mono.axis_volume[w], rel * r.mono.volume);
  double worst = 0, size = 0;
  for (int b = 0; b < 2; ++b)
    for (const auto& g : r.mono.body[b].gradient) {
      worst = std::max(worst, (sum[b][g.vertex] - g.gradient).norm());
      size = std::max(size, g.gradient.norm());
      sum[b][g.vertex].setZero();
    }
  for (int b = 0; b < 2; ++b)
    for (const Vec3& s : sum[b]) EXPECT_EQ(s.norm(), 0.0);  // no vertex in a cell that is not in the mono
  EXPECT_LT(worst, rel * size);
}

TEST(LdiMultiVolume, CellsAddUpToTheMonoVolume) {
  const CubePair p = cube_pair(tilt(), 0.37, Vec3(0.55, 0.21, 0.13));
  for (double h : {0.05, 0.13, 0.4}) {
    VolumeOptions o = pixels(0.01);
    o.multi_volume = true;
    o.cell_size = h;
    const VolumeResult r = intersection_volume(input(p.a), input(p.b, p.centre_b), o);
    ASSERT_TRUE(r.ok());
    EXPECT_GT(r.cells().size(), 1u);
    expect_cells_add_up(r, 1e-9, Vec3::Zero(), p.centre_b);
    std::printf("  cell size %.2f: %zu cells\n", h, r.cells().size());
  }
  // Spheres, where intervals end on curved surfaces across many walls.
  const TriangleMesh a = make_uv_sphere(0.5, 64, 32);
  const TriangleMesh b = posed(make_uv_sphere(0.5, 64, 32), tilt(), Vec3(0.3, 0.5, -0.2));
  VolumeOptions o = pixels(0.01);
  o.multi_volume = true;
  o.cell_size = 0.1;
  const VolumeResult r = intersection_volume(input(a), input(b), o);
  ASSERT_TRUE(r.ok());
  expect_cells_add_up(r, 1e-9);
}

// Cells are ordered by z, then y, then x, and cover only the intersection.
// Unit cubes offset by (0.3, 0.2, 0.1), in cells of 0.25 m, pixels of 1 cm.
VolumeResult aligned_cubes_in_cells() {
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.5));
  const TriangleMesh b = posed(make_box(Vec3(0.5, 0.5, 0.5)), Quat::Identity(), Vec3(0.3, 0.2, 0.1));
  VolumeOptions o = pixels(0.01);
  o.multi_volume = true;
  o.cell_size = 0.25;
  return intersection_volume(input(a), input(b), o);
}

TEST(LdiMultiVolume, CellsOfAlignedCubes) {
  const VolumeResult r = aligned_cubes_in_cells();
  ASSERT_TRUE(r.ok());
  // Intersection [-0.2, 0.5] x [-0.3, 0.5] x [-0.4, 0.5]: cells x -1..1, y -2..1, z -2..1.
  ASSERT_EQ(r.cells().size(), 48u);
  EXPECT_EQ(r.cells()[0].cell, (std::array<int, 3>{-1, -2, -2}));
  EXPECT_EQ(r.cells()[47].cell, (std::array<int, 3>{1, 1, 1}));
  for (const VolumeContact& c : r.cells()) {
    const double x = std::min(0.25 * (c.cell[0] + 1), 0.5) - std::max(0.25 * c.cell[0], -0.2);
    const double y = std::min(0.25 * (c.cell[1] + 1), 0.5) - std::max(0.25 * c.cell[1], -0.3);
    const double z = std::min(0.25 * (c.cell[2] + 1), 0.5) - std::max(0.25 * c.cell[2], -0.4);
    EXPECT_NEAR(c.volume, x * y * z, 1e-12);
  }
  expect_cells_add_up(r, 1e-12);
}

// The longest interval per axis, and the deepest point along a normal: cubes overlapping by [-0.2, 0.5] x
// [-0.3, 0.5] x [-0.4, 0.5] give intervals 0.7, 0.8 and 0.9 long; a cell keeps the whole interval it holds a piece
// of, not the piece. Along a normal the image most along it is read: its interval times |n_w|.
TEST(LdiVolume, LongestIntervalsAndDeepestPoint) {
  const VolumeResult r = aligned_cubes_in_cells();
  ASSERT_TRUE(r.ok());
  for (int w = 0; w < 3; ++w) EXPECT_NEAR(r.mono.axis_longest[w], 0.7 + 0.1 * w, 1e-12) << w;
  for (const VolumeContact& c : r.cells())
    for (int w = 0; w < 3; ++w) EXPECT_NEAR(c.axis_longest[w], 0.7 + 0.1 * w, 1e-12) << w;
  EXPECT_NEAR(r.mono.deepest(Vec3(1, 0, 0)), 0.7, 1e-12);
  EXPECT_NEAR(r.mono.deepest(Vec3(0, -1, 0)), 0.8, 1e-12);
  const Vec3 n = Vec3(0.2, 0.3, -0.9).normalized();  // most along z
  EXPECT_NEAR(r.mono.deepest(n), 0.9 * 0.9 / Vec3(0.2, 0.3, -0.9).norm(), 1e-12);
  EXPECT_EQ(r.mono.deepest(Vec3::Zero()), 0.0);
  // A layer between two parallel planes 1 cm apart, not aligned with the axes: a unit cube turned about z by
  // 20 degrees sunk 1 cm into a large box face: every ray along y crosses 1 cm / cos 20 degrees (where the layer
  // is whole), so the deepest point along the normal reads 1 cm.
  const double t = 20.0 * kPi / 180.0;
  const Quat q(Eigen::AngleAxisd(t, Vec3(0, 0, 1)));
  // The slab's top face is the plane through the origin with normal n = q (0, 1, 0); the cube's bottom face is
  // 1 cm below it.
  const Vec3 normal = q * Vec3(0, 1, 0);
  const TriangleMesh slab = posed(make_box(Vec3(3, 0.5, 3)), q, -0.5 * normal);
  const TriangleMesh cube = posed(make_box(Vec3(0.5, 0.5, 0.5)), q, (0.5 - 0.01) * normal);
  const VolumeResult layer = intersection_volume(input(slab), input(cube), pixels(0.01));
  ASSERT_TRUE(layer.ok());
  // Up to the vertices' sub-pixel snapping (2^-16 pixel = 1.5e-7 m sideways, times the faces' slope tan 20).
  EXPECT_NEAR(layer.mono.deepest(normal), 0.01, 0.36 * 0.01 / 65536.0);
  EXPECT_NEAR(layer.mono.deepest(layer.mono.normal), 0.01, 1e-4);  // with the normal the volumes give
}

// ---- friction terms ----------------------------------------------------------------------------------------

// A flat box pressed 1 cm into another: normal along +z (from A below to B above), S_A = the contact area,
// S_B = -S_A, the contact centres on the overlap, and depth = volume / area = 1 cm.
TEST(LdiFriction, FlatContactWeights) {
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.1));
  const Vec3 cb(0.3, 0.2, 0.19);
  const TriangleMesh b = posed(make_box(Vec3(0.5, 0.5, 0.1)), Quat::Identity(), cb);
  const VolumeResult r = intersection_volume(input(a), input(b, cb), pixels(0.005));
  ASSERT_TRUE(r.ok());
  const VolumeContact& c = r.mono;
  EXPECT_NEAR(c.volume, 0.7 * 0.8 * 0.01, 1e-9);
  EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 0.03);
  EXPECT_NEAR(c.body[0].area_sum, 0.56, 0.01);
  EXPECT_NEAR(c.body[1].area_sum, -c.body[0].area_sum, 1e-12);
  EXPECT_NEAR(c.area, 0.56, 0.02);
  EXPECT_NEAR(c.depth(), 0.01, 0.0005);
  const Vec3 centre_a = c.body[0].contact_centre(Vec3::Zero());
  const Vec3 centre_b = c.body[1].contact_centre(cb);
  EXPECT_NEAR(centre_a.x(), 0.15, 0.01);
  EXPECT_NEAR(centre_a.y(), 0.10, 0.01);
  EXPECT_NEAR(centre_b.x(), 0.15, 0.01);
  EXPECT_NEAR(centre_b.y(), 0.10, 0.01);
  // Weighted relative velocity (eq. 20) of a rigid motion of B alone: S_B v + omega x M_B, against the vertex sum.
  const Vec3 v(0.3, -0.2, 0.1), omega(0.5, 1.0, -2.0);
  Vec3 sum = Vec3::Zero();
  for (std::size_t k = 0; k < c.body[1].gradient.size(); ++k) {
    const Vec3& p = b.vertices[c.body[1].gradient[k].vertex];
    sum += c.vertex_area(1, k) * (v + omega.cross(p - cb));
  }
  EXPECT_LT((sum - (c.body[1].area_sum * v + omega.cross(c.body[1].area_moment))).norm(), 1e-12);
}

// ---- determinism and errors --------------------------------------------------------------------------------

// Every volume, cell, gradient and rigid term of two results, compared exactly.
void expect_identical(const VolumeResult& x, const VolumeResult& y, const std::string& where) {
  ASSERT_EQ(x.ok(), y.ok()) << where;
  EXPECT_EQ(x.boxes_overlap, y.boxes_overlap) << where;
  ASSERT_EQ(x.cells().size(), y.cells().size()) << where;
  EXPECT_EQ(x.stats.intervals, y.stats.intervals) << where;
  EXPECT_EQ(x.stats.candidate_triangles, y.stats.candidate_triangles) << where;
  for (std::size_t c = 0; c <= x.cells().size(); ++c) {
    const VolumeContact& p = c == 0 ? x.mono : x.cells()[c - 1];
    const VolumeContact& q = c == 0 ? y.mono : y.cells()[c - 1];
    EXPECT_EQ(p.volume, q.volume) << where;
    EXPECT_EQ(p.axis_volume, q.axis_volume) << where;
    EXPECT_EQ(p.axis_longest, q.axis_longest) << where;
    EXPECT_EQ(p.cell, q.cell) << where;
    EXPECT_EQ(p.normal, q.normal) << where;
    EXPECT_EQ(p.area, q.area) << where;
    for (int m = 0; m < 2; ++m) {
      ASSERT_EQ(p.body[m].gradient.size(), q.body[m].gradient.size()) << where;
      for (std::size_t k = 0; k < p.body[m].gradient.size(); ++k) {
        EXPECT_EQ(p.body[m].gradient[k].vertex, q.body[m].gradient[k].vertex) << where;
        EXPECT_EQ(p.body[m].gradient[k].gradient, q.body[m].gradient[k].gradient) << where;
      }
      EXPECT_EQ(p.body[m].linear, q.body[m].linear) << where;
      EXPECT_EQ(p.body[m].angular, q.body[m].angular) << where;
      EXPECT_EQ(p.body[m].area_sum, q.body[m].area_sum) << where;
      EXPECT_EQ(p.body[m].area_moment, q.body[m].area_moment) << where;
    }
  }
}

TEST(LdiVolume, IdenticalForAnyThreadCount) {
  const TriangleMesh a = make_torus(0.4, 0.15, 64, 32);
  const TriangleMesh b = posed(make_torus(0.4, 0.15, 64, 32), tilt(), Vec3(0.35, 0.1, 0.05));
  VolumeOptions o = pixels(0.01);
  o.multi_volume = true;
  o.cell_size = 0.07;
  IntersectionVolume iv1, iv2, iv3;
  VolumeResult r1, r2, r3;
  o.threads = 1;
  iv1.compute(input(a), input(b), o, r1);
  o.threads = 2;
  iv2.compute(input(a), input(b), o, r2);
  o.threads = 3;
  iv3.compute(input(a), input(b), o, r3);
  ASSERT_GT(r1.mono.volume, 0);
  expect_identical(r1, r2, "2 threads");
  expect_identical(r1, r3, "3 threads");
  // The workspace and result are reused: a second computation gives the same again.
  iv2.compute(input(a), input(b), o, r2);
  expect_identical(r1, r2, "again");
}

// Every crossing of two workspaces' images, compared exactly, pixel by pixel.
void expect_same_images(const IntersectionVolume& x, const IntersectionVolume& y, const std::string& where) {
  for (int w = 0; w < 3; ++w) {
    const LayeredDepthImage& p = x.image(w);
    const LayeredDepthImage& q = y.image(w);
    ASSERT_EQ(p.width, q.width) << where;
    ASSERT_EQ(p.height, q.height) << where;
    ASSERT_EQ(p.total_crossings(), q.total_crossings()) << where;
    for (int j = 0; j < p.height; ++j)
      for (int i = 0; i < p.width; ++i) {
        const auto a = p.pixel(i, j), b = q.pixel(i, j);
        ASSERT_EQ(a.size(), b.size()) << where << " axis " << w << " pixel " << i << ", " << j;
        for (std::size_t k = 0; k < a.size(); ++k) {
          EXPECT_EQ(a[k].depth, b[k].depth) << where;
          EXPECT_EQ(a[k].bary, b[k].bary) << where;
          EXPECT_EQ(a[k].triangle, b[k].triangle) << where;
          EXPECT_EQ(a[k].mesh, b[k].mesh) << where;
          EXPECT_EQ(a[k].direction, b[k].direction) << where;
        }
      }
  }
}

// With the meshes' BVHs (MeshInput::tree) only the triangles of tree nodes that reach the images are visited, and
// only those of leaves whose pixels the other mesh's leaves reach; without, each triangle is a leaf of its own. The
// results are the same bit for bit, and so are the images, crossing by crossing (the leaves only drop triangles that
// would not be rasterised): two tori placed by a pose as a body's world vertices are (p + R v), touching, crossing,
// deep in each other and apart, with one volume and with cells, on one and two threads; and a tree of another mesh is
// ignored.
TEST(LdiVolume, MeshTreesGiveTheSameResults) {
  const TriangleMesh body = make_torus(0.4, 0.15, 96, 48);
  const TriangleBvh tree(body);
  auto world = [&body](const Quat& q, const Vec3& t) {
    TriangleMesh m = body;
    const Mat3 r = q.toRotationMatrix();
    for (std::size_t k = 0; k < m.vertices.size(); ++k) m.vertices[k] = t + r * body.vertices[k];
    return m;
  };
  const Quat qa(Eigen::AngleAxisd(0.3, Vec3(1, 0.2, 0).normalized()));
  const Vec3 ta(0.02, -0.01, 0.03);
  const TriangleMesh a = world(qa, ta);
  const TriangleBvh other(make_torus(0.4, 0.15, 32, 16));
  int overlapping = 0;
  for (const Vec3& shift : {Vec3(0.83, 0.05, 0.0), Vec3(0.5, 0.2, 0.1), Vec3(0.1, 0.05, 0.02), Vec3(0.2, 0.3, 1.5)}) {
    const Quat qb = tilt();
    const TriangleMesh b = world(qb, shift);
    for (int mode = 0; mode < 4; ++mode) {
      VolumeOptions o = pixels(0.013, 1 + mode % 2);
      o.multi_volume = mode >= 2;
      o.cell_size = 0.06;
      MeshInput plain_a = input(a, ta), plain_b = input(b, shift);
      MeshInput with_a = plain_a, with_b = plain_b;
      with_a.tree = &tree;
      with_a.rotation = qa.toRotationMatrix();
      with_a.position = ta;
      with_b.tree = &tree;
      with_b.rotation = qb.toRotationMatrix();
      with_b.position = shift;
      IntersectionVolume iv, iv_plain;
      VolumeResult plain, with, mismatched;
      iv_plain.compute(plain_a, plain_b, o, plain);
      iv.compute(with_a, with_b, o, with);
      const std::string where = "shift " + std::to_string(shift.x()) + " mode " + std::to_string(mode);
      expect_identical(plain, with, where);
      EXPECT_EQ(plain.stats.crossings, with.stats.crossings) << where;
      expect_same_images(iv_plain, iv, where);
      with_b.tree = &other;  // another mesh's tree: ignored
      iv.compute(with_a, with_b, o, mismatched);
      expect_identical(plain, mismatched, where + " mismatched tree");
      if (plain.mono.volume > 0) ++overlapping;
    }
  }
  EXPECT_EQ(overlapping, 12);  // the last shift is apart
}

TEST(LdiVolume, BadInput) {
  const TriangleMesh a = make_box(Vec3(0.5, 0.5, 0.5));
  TriangleMesh b = posed(a, Quat::Identity(), Vec3(0.3, 0, 0));
  VolumeResult r = intersection_volume(input(a), input(b), pixels(0));
  EXPECT_FALSE(r.ok());
  VolumeOptions o = pixels(0.02);
  o.multi_volume = true;
  o.cell_size = 0.01;
  r = intersection_volume(input(a), input(b), o);
  EXPECT_NE(r.error.find("cell_size"), std::string::npos) << r.error;
  r = intersection_volume(input(a), input(b), pixels(1e-5));
  EXPECT_NE(r.error.find("max_image_side"), std::string::npos) << r.error;
  TriangleMesh nan = b;
  nan.vertices[2].y() = std::nan("");
  r = intersection_volume(input(a), input(nan), pixels(0.02));
  EXPECT_NE(r.error.find("non-finite"), std::string::npos) << r.error;
  b.triangles[3][1] = 99;
  r = intersection_volume(input(a), input(b), pixels(0.02));
  EXPECT_NE(r.error.find("index"), std::string::npos) << r.error;
  EXPECT_EQ(r.mono.volume, 0);
}

}  // namespace
}  // namespace cl::ldi
