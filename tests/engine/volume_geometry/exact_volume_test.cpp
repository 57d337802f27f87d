// Exact intersection volumes of primitive pairs (volume_geometry/exact_volume.h): volumes against closed forms,
// gradients (dV/dx, dV/dtheta of each body) against central finite differences of the volume for every pair type
// at random poses, against the layered depth images at a fine pixel (the paper's V and J_V, sect. 3.2), equal and
// opposite forces, the pair taken either way round, and the multi-volume cells (sect. 5) against the whole.
#include "volume_geometry/exact_volume.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "ldi/intersection_volume.h"
#include "mesh/generate.h"
#include "support/builders.h"
#include "volume_geometry/sphere_volume.h"

namespace cl::vg {
namespace {

using cl::test::box;
using cl::test::plane_shape;
using cl::test::sphere;

struct Body {
  Shape shape;
  Vec3 position = Vec3::Zero();
  Mat3 rotation = Mat3::Identity();
  PosedShape posed() const { return PosedShape{&shape, position, rotation}; }
};

ExactResult compute(const Body& a, const Body& b, bool multi = false, double rim = 0.1) {
  ExactVolume kernel;
  ExactResult out;
  EXPECT_TRUE(kernel.compute(a.posed(), b.posed(), ExactOptions{multi, rim}, out));
  return out;
}
double volume(const Body& a, const Body& b) { return compute(a, b).mono.volume; }

Mat3 turned(double angle, const Vec3& axis) { return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix(); }

TEST(ExactVolume, ClosedForms) {
  // Axis-aligned boxes: the product of the overlaps.
  Body a{box(Vec3(0.5, 0.4, 0.3))}, b{box(Vec3(0.2, 0.3, 0.4)), Vec3(0.6, -0.2, 0.1)};
  EXPECT_NEAR(volume(a, b), 0.1 * 0.5 * 0.6, 1e-15);
  // A sphere r in a half space to the height delta: the cap of height r - delta.
  Body ground{plane_shape(), Vec3(0, -1, 0)};
  Body ball{sphere(0.3), Vec3(2, -1 + 0.1, 3)};
  ExactResult cap = compute(ground, ball);
  EXPECT_NEAR(cap.mono.volume, M_PI * 0.2 * 0.2 * (0.9 - 0.2) / 3, 1e-15);
  EXPECT_NEAR(cap.mono.exact_deepest, 0.2, 1e-15);
  EXPECT_NEAR((cap.mono.body[1].linear - Vec3(0, -1, 0) * M_PI * (0.09 - 0.01)).norm(), 0.0, 1e-15);
  // Two spheres: the lens, sum of two caps.
  Body s0{sphere(0.5)}, s1{sphere(0.3), Vec3(0.7, 0, 0)};
  const double x0 = (0.49 + 0.25 - 0.09) / 1.4, x1 = 0.7 - x0;
  EXPECT_NEAR(volume(s0, s1), cap_volume(0.5, 0.5 - x0) + cap_volume(0.3, 0.3 - x1), 1e-15);
  // A sphere centred on a box's corner, edge and face: an eighth, a quarter, a half of it (by quadrature, to
  // about 1e-12), or all of it.
  Body cube{box(Vec3(1, 1, 1)), Vec3(0.2, 0.1, 0.3), turned(0.5, Vec3(1, 2, 3))};
  const double whole = 4.0 / 3.0 * M_PI * 0.125;
  for (const auto& [corner, fraction] : {std::pair{Vec3(1, 1, 1), 0.125}, std::pair{Vec3(1, 0.2, -1), 0.25},
                                         std::pair{Vec3(0.1, -1, 0.3), 0.5}, std::pair{Vec3(0.2, 0.1, 0), 1.0}}) {
    Body ball2{sphere(0.5), cube.position + cube.rotation * corner};
    EXPECT_NEAR(volume(ball2, cube), fraction * whole, 1e-10 * whole) << corner.transpose();
  }
  // A box inside a sphere: the box's volume, and no normal.
  Body small{box(Vec3(0.1, 0.1, 0.1)), Vec3(0.05, 0, 0)};
  const ExactResult inside = compute(Body{sphere(1)}, small);
  EXPECT_NEAR(inside.mono.volume, 0.008, 1e-14);
  EXPECT_TRUE(inside.mono.normal.isZero(0.0));
}

// The sphere-box volume by quadrature against a brute-force sum of chords over a fine grid of lines.
TEST(ExactVolume, SphereBoxVolumeAgainstChords) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 6; ++trial) {
    Body block{box(Vec3(0.3, 0.2, 0.25)), Vec3::Zero(), turned(3 * u(rng), Vec3(u(rng), u(rng), u(rng)))};
    Body ball{sphere(0.25), Vec3(0.3 * u(rng), 0.3 * u(rng), 0.3 * u(rng))};
    const double v = volume(ball, block);
    const int n = 1200;
    const double lo = -0.6, step = 1.2 / n;
    double sum = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const Vec3 origin(lo + (i + 0.5) * step, lo + (j + 0.5) * step, 0);
        double a0, a1, b0, b1;
        if (line_inside(ball.posed(), origin, 2, a0, a1) && line_inside(block.posed(), origin, 2, b0, b1))
          sum += std::max(0.0, std::min(a1, b1) - std::max(a0, b0)) * step * step;
      }
    EXPECT_NEAR(v, sum, 2e-3 * std::max(sum, 1e-3)) << "trial " << trial;
  }
}

// dV/dx and dV/dtheta of both bodies against central differences of V, translating each body along each axis and
// turning it about its centre, for every pair type at random poses.
TEST(ExactVolume, GradientsAreTheVolumesDerivatives) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const auto random_rotation = [&] { return turned(3 * u(rng), Vec3(u(rng), u(rng), u(rng) + 1e-3)); };
  struct Case {
    std::string name;
    Shape a, b;
    double reach;  // centre distance range
  };
  const Case cases[] = {
      {"box-box", box(Vec3(0.3, 0.2, 0.25)), box(Vec3(0.2, 0.25, 0.15)), 0.45},
      {"plane-box", plane_shape(), box(Vec3(0.3, 0.2, 0.25)), 0.3},
      {"plane-sphere", plane_shape(), sphere(0.3), 0.25},
      {"sphere-sphere", sphere(0.3), sphere(0.2), 0.45},
      {"sphere-box", sphere(0.25), box(Vec3(0.3, 0.2, 0.25)), 0.45},
      {"box-sphere", box(Vec3(0.3, 0.2, 0.25)), sphere(0.25), 0.45},
  };
  for (const Case& c : cases) {
    int tested = 0;
    for (int trial = 0; trial < 40 && tested < 8; ++trial) {
      Body a{c.a, Vec3(0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)), random_rotation()};
      Body b{c.b, a.position + c.reach * Vec3(u(rng), u(rng), u(rng)).normalized() * (0.5 + 0.5 * std::abs(u(rng))),
             random_rotation()};
      if (c.a.type == ShapeType::Plane) b.position.y() = c.reach * 0.8 * u(rng);
      const ExactResult r = compute(a, b);
      if (!r.overlap || r.mono.normal.isZero(0.0) || r.mono.volume < 1e-4) continue;
      ++tested;
      const double eps = 1e-5, scale = r.mono.body[0].linear.norm() + r.mono.body[1].linear.norm();
      Body* bodies[2] = {&a, &b};
      for (int s = 0; s < 2; ++s) {
        for (int k = 0; k < 3; ++k) {
          Body& m = *bodies[s];
          const Vec3 p0 = m.position;
          const Mat3 r0 = m.rotation;
          m.position = p0 + eps * Vec3::Unit(k);
          const double vp = volume(a, b);
          m.position = p0 - eps * Vec3::Unit(k);
          const double vm = volume(a, b);
          m.position = p0;
          EXPECT_NEAR((vp - vm) / (2 * eps), r.mono.body[s].linear[k], 2e-5 * scale)
              << c.name << " body " << s << " dV/dx_" << k << " trial " << trial;
          m.rotation = turned(eps, Vec3::Unit(k)) * r0;
          const double wp = volume(a, b);
          m.rotation = turned(-eps, Vec3::Unit(k)) * r0;
          const double wm = volume(a, b);
          m.rotation = r0;
          EXPECT_NEAR((wp - wm) / (2 * eps), r.mono.body[s].angular[k], 2e-5 * scale)
              << c.name << " body " << s << " dV/dtheta_" << k << " trial " << trial;
        }
      }
      // Equal and opposite: translating both together leaves V, turning both about a common point too.
      EXPECT_NEAR((r.mono.body[0].linear + r.mono.body[1].linear).norm(), 0.0, 1e-12 * scale) << c.name;
      const Vec3 torque = r.mono.body[0].angular + r.mono.body[1].angular +
                          (a.position - b.position).cross(r.mono.body[0].linear);
      EXPECT_NEAR(torque.norm(), 0.0, 1e-9 * scale) << c.name;
      // The normal is the repulsion on b; eq. 20's weights sum to n . dV/dx per body.
      EXPECT_NEAR((r.mono.normal + r.mono.body[1].linear.normalized()).norm(), 0.0, 1e-12) << c.name;
      for (int s = 0; s < 2; ++s)
        EXPECT_NEAR(r.mono.body[s].area_sum, r.mono.normal.dot(r.mono.body[s].linear), 1e-12 * scale) << c.name;
    }
    EXPECT_GE(tested, 4) << c.name;
  }
}

// The pair the other way round: the same volume, the bodies' terms swapped, the normal reversed.
TEST(ExactVolume, EitherOrderGivesTheSameContact) {
  Body plane{plane_shape(), Vec3(0, 0.1, 0)};
  Body block{box(Vec3(0.3, 0.2, 0.25)), Vec3(0.1, 0.15, 0), turned(0.3, Vec3(1, 0, 1))};
  Body ball{sphere(0.2), Vec3(0.2, 0.25, 0.1)};
  for (auto [a, b] : {std::pair{&plane, &block}, std::pair{&plane, &ball}, std::pair{&ball, &block}}) {
    const ExactResult ab = compute(*a, *b), ba = compute(*b, *a);
    ASSERT_TRUE(ab.overlap && ba.overlap);
    EXPECT_EQ(ab.mono.volume, ba.mono.volume);
    EXPECT_NEAR((ab.mono.normal + ba.mono.normal).norm(), 0.0, 1e-15);
    for (int s = 0; s < 2; ++s) {
      EXPECT_NEAR((ab.mono.body[s].linear - ba.mono.body[1 - s].linear).norm(), 0.0, 1e-15);
      EXPECT_NEAR(ab.mono.body[s].area_sum, -ba.mono.body[1 - s].area_sum, 1e-15);
      EXPECT_NEAR((ab.mono.body[s].contact_centre(Vec3::Zero()) - ba.mono.body[1 - s].contact_centre(Vec3::Zero())).norm(),
                  0.0, 1e-14);
    }
  }
}

// Against the layered depth images of the same boxes at a pixel of 1/200 of their size: volume and dV/dx agree to
// the images' resolution.
TEST(ExactVolume, AgreesWithTheDepthImagesAtAFinePixel) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  ldi::IntersectionVolume images;
  ldi::VolumeOptions options;
  options.pixel_size = 0.002;
  options.threads = 1;
  for (int trial = 0; trial < 4; ++trial) {
    Body a{box(Vec3(0.3, 0.2, 0.25)), Vec3::Zero(), turned(3 * u(rng), Vec3(u(rng), u(rng), u(rng)))};
    Body b{box(Vec3(0.2, 0.25, 0.15)), 0.35 * Vec3(u(rng), u(rng), u(rng)).normalized(),
           turned(3 * u(rng), Vec3(u(rng), u(rng), u(rng)))};
    const ExactResult exact = compute(a, b);
    if (exact.mono.volume < 2e-3) continue;
    TriangleMesh meshes[2];
    const Body* bodies[2] = {&a, &b};
    ldi::MeshInput in[2];
    for (int s = 0; s < 2; ++s) {
      meshes[s] = make_box(bodies[s]->shape.half_extents, 1);
      for (Vec3& v : meshes[s].vertices) v = bodies[s]->position + bodies[s]->rotation * v;
      in[s] = ldi::MeshInput{meshes[s].vertices, meshes[s].triangles, bodies[s]->position};
    }
    ldi::VolumeResult lr;
    images.compute(in[0], in[1], options, lr);
    ASSERT_TRUE(lr.ok());
    EXPECT_NEAR(lr.mono.volume, exact.mono.volume, 0.01 * exact.mono.volume) << "trial " << trial;
    for (int s = 0; s < 2; ++s)
      EXPECT_NEAR((lr.mono.body[s].linear - exact.mono.body[s].linear).norm(), 0.0,
                  0.02 * exact.mono.body[s].linear.norm())
          << "trial " << trial << " body " << s;
  }
}

// Multi-volume (sect. 5): the columns of a resting box's layer and of a tilted box's wedge add up to the whole
// volume and push; each pushes a and b equally and oppositely along the normal at its centroid; a flat layer's
// nine columns are the rectangles of its footprint cut at the rim, whose pushes hold the whole push's moment.
TEST(ExactVolume, ColumnsAddUpToTheWhole) {
  Body ground{plane_shape()};
  for (const Mat3& tilt : {Mat3(Mat3::Identity()), turned(0.2, Vec3(1, 0, 0.3))}) {
    Body block{box(Vec3(0.35, 0.2, 0.27)), Vec3(0.013, 0.0, -0.021), tilt};
    block.position.y() = 0.2 * std::abs(tilt(1, 1)) + 0.35 * std::abs(tilt(1, 0)) + 0.27 * std::abs(tilt(1, 2)) -
                       (tilt.isIdentity() ? 0.006 : 0.05);
    const ExactResult r = compute(ground, block, true, 0.1);
    ASSERT_TRUE(r.overlap);
    ASSERT_EQ(r.cells().size(), tilt.isIdentity() ? 9u : r.cells().size());
    ASSERT_GE(r.cells().size(), 4u);
    double v = 0, push = 0;
    Vec3 moment = Vec3::Zero();
    for (const ldi::VolumeContact& c : r.cells()) {
      v += c.volume;
      push += c.area;
      moment += c.body[1].angular;
      EXPECT_NEAR((c.body[0].linear + c.body[1].linear).norm(), 0.0, 1e-15);
      EXPECT_EQ(c.normal, r.mono.normal);
      EXPECT_GT(c.area, 0.0);
    }
    EXPECT_NEAR(v, r.mono.volume, 1e-12 * r.mono.volume);
    EXPECT_NEAR(push, r.mono.normal.dot(r.mono.body[0].linear), 1e-12 * push);
    if (tilt.isIdentity()) {
      EXPECT_NEAR(push, 0.7 * 0.54, 1e-12);
      EXPECT_NEAR((moment - r.mono.body[1].angular).norm(), 0.0, 1e-12);
      // The corner columns: 10 % of each side, at its corners.
      double smallest = 1;
      for (const ldi::VolumeContact& c : r.cells()) smallest = std::min(smallest, c.area);
      EXPECT_NEAR(smallest, 0.07 * 0.054, 1e-12);
    }
  }
}

}  // namespace
}  // namespace cl::vg
