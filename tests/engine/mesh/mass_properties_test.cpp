#include "mesh/mass_properties.h"

#include "mesh/generate.h"

#include <gtest/gtest.h>

#include <numbers>
#include <random>
#include "support/builders.h"

namespace cl {
namespace {

using test::kPi;

TEST(MassProperties, RotatedTranslatedBox) {
  const Vec3 h(0.5, 1.0, 1.5);
  const double density = 7.0;
  const Quat q(Eigen::AngleAxisd(0.9, Vec3(1, -2, 0.5).normalized()));
  const Vec3 t(3, -1, 2);
  TriangleMesh m = make_box(h, 3);
  transform_mesh(m, q, t);
  const MassProperties mp = mass_properties(m, density);
  ASSERT_TRUE(mp.valid);
  const double V = 8 * h.x() * h.y() * h.z();
  EXPECT_NEAR(mp.volume, V, 1e-12);
  EXPECT_NEAR(mp.mass, density * V, 1e-11);
  EXPECT_NEAR((mp.centre_of_mass - t).norm(), 0, 1e-12);
  const double M = density * V;
  const Vec3 d(M / 3 * (h.y() * h.y() + h.z() * h.z()), M / 3 * (h.x() * h.x() + h.z() * h.z()),
               M / 3 * (h.x() * h.x() + h.y() * h.y()));
  const Mat3 R = q.toRotationMatrix();
  const Mat3 expected = R * d.asDiagonal() * R.transpose();
  EXPECT_LT((mp.inertia - expected).norm(), 1e-11 * expected.norm()) << mp.inertia << "\n" << expected;
  Vec3 moments;
  Mat3 axes;
  principal_axes(mp.inertia, moments, axes);
  EXPECT_NEAR(moments.x(), d.z(), 1e-10);  // smallest moment: about the longest (z) axis
  EXPECT_NEAR(moments.z(), d.x(), 1e-10);
  EXPECT_NEAR(axes.determinant(), 1.0, 1e-12);
}

// Independent closed form for a tetrahedron (Tonon 2004): covariance about the origin
// C = V/20 (sum v_i v_i^T + s s^T), s = sum v_i; inertia = tr(C) I - C.
TEST(MassProperties, RandomTetrahedraMatchCovarianceFormula) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 50; ++trial) {
    Vec3 p[4];
    for (auto& x : p) x = Vec3(u(rng), u(rng), u(rng));
    const TriangleMesh m = make_tetrahedron(p[0], p[1], p[2], p[3]);
    ASSERT_FALSE(m.empty());
    const double V = std::abs((p[1] - p[0]).cross(p[2] - p[0]).dot(p[3] - p[0])) / 6;
    const Vec3 s = p[0] + p[1] + p[2] + p[3];
    Mat3 C = s * s.transpose();
    for (const auto& x : p) C += x * x.transpose();
    C *= V / 20;
    const Vec3 c = s / 4;
    C -= V * c * c.transpose();
    const Mat3 I = C.trace() * Mat3::Identity() - C;
    const MassProperties mp = mass_properties(m);
    ASSERT_TRUE(mp.valid);
    EXPECT_NEAR(mp.volume, V, 1e-12 * std::max(1.0, V));
    EXPECT_NEAR((mp.centre_of_mass - c).norm(), 0, 1e-12);
    EXPECT_LT((mp.inertia - I).norm(), 1e-12 * std::max(1.0, I.norm())) << "trial " << trial;
  }
  // the unit corner tetrahedron: V = 1/6, centre (1/4, 1/4, 1/4), I_xx about the centre = 1/80, I_xy = 1/480
  const MassProperties mp =
      mass_properties(make_tetrahedron(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)));
  EXPECT_NEAR(mp.volume, 1.0 / 6, 1e-15);
  EXPECT_NEAR(mp.inertia(0, 0), 1.0 / 80, 1e-15);
  EXPECT_NEAR(mp.inertia(0, 1), 1.0 / 480, 1e-15);
}

TEST(MassProperties, SphereConvergesToClosedForm) {
  const double r = 1.3;
  const double V = 4.0 / 3 * kPi * r * r * r;
  double prev_err = 1;
  for (int n : {16, 32, 64, 128, 256}) {
    const MassProperties mp = mass_properties(make_uv_sphere(r, 2 * n, n), 2.0);
    ASSERT_TRUE(mp.valid);
    const double err = std::abs(mp.volume - V) / V;
    EXPECT_LT(mp.volume, V);  // inscribed polyhedron
    if (n > 16) { EXPECT_NEAR(prev_err / err, 4.0, 0.3) << n; }  // second-order convergence
    prev_err = err;
    EXPECT_NEAR(mp.centre_of_mass.norm(), 0, 1e-13);
    const double I = 0.4 * mp.mass * r * r;
    const double tol = 3 * err;
    EXPECT_NEAR(mp.inertia(0, 0) / I, 1, tol) << n;
    EXPECT_NEAR(mp.inertia(1, 1) / I, 1, tol) << n;
    EXPECT_NEAR(mp.inertia(2, 2) / I, 1, tol) << n;
    EXPECT_NEAR(mp.inertia(0, 1) / I, 0, 1e-12);
  }
  EXPECT_LT(prev_err, 1e-4);
}

// The inscribed prism's volume is (n / 2 pi) sin(2 pi / n) of the cylinder's: it converges as 1 / n^2.
TEST(MassProperties, CylinderConvergesToClosedForm) {
  const double r = 0.3, h = 0.5, density = 7.0;  // half height h: length 2 h
  const double V = kPi * r * r * 2 * h, M = density * V;
  const double Iy = 0.5 * M * r * r, Ix = M * (3 * r * r + 4 * h * h) / 12;
  for (int n : {16, 64, 256, 1024}) {
    const TriangleMesh m = make_cylinder(r, h, n);
    EXPECT_TRUE(validate_mesh(m).ok()) << n;
    const MassProperties mp = mass_properties(m, density);
    ASSERT_TRUE(mp.valid) << n;  // outward: a positive volume
    const double exact_prism = V * n / (2 * kPi) * std::sin(2 * kPi / n);
    EXPECT_NEAR(mp.volume / exact_prism, 1, 1e-12) << n;
    const double err = 1 - exact_prism / V;
    EXPECT_NEAR(mp.inertia(1, 1) / Iy, 1, 3 * err) << n;
    EXPECT_NEAR(mp.inertia(0, 0) / Ix, 1, 3 * err) << n;
    EXPECT_NEAR(mp.inertia(2, 2) / Ix, 1, 3 * err) << n;
    EXPECT_NEAR(mp.centre_of_mass.norm(), 0, 1e-12);
  }
  EXPECT_TRUE(make_cylinder(0, 1, 8).triangles.empty());
  EXPECT_TRUE(make_cylinder(1, 1, 2).triangles.empty());
}

TEST(MassProperties, TorusConvergesToClosedForm) {
  const double R = 2.0, r = 0.6, density = 3.0;
  const double V = 2 * kPi * kPi * R * r * r;
  double err_prev = 1;
  for (int n : {32, 64, 128, 256}) {
    const MassProperties mp = mass_properties(make_torus(R, r, 2 * n, n), density);
    ASSERT_TRUE(mp.valid);
    const double err = std::abs(mp.volume - V) / V;
    if (n > 32) { EXPECT_NEAR(err_prev / err, 4.0, 0.3) << n; }
    err_prev = err;
    const double M = density * V;
    const double Iz = M * (R * R + 0.75 * r * r), Ix = M * (0.5 * R * R + 0.625 * r * r);
    EXPECT_NEAR(mp.inertia(2, 2) / Iz, 1, 3 * err) << n;
    EXPECT_NEAR(mp.inertia(0, 0) / Ix, 1, 3 * err) << n;
    EXPECT_NEAR(mp.inertia(1, 1) / Ix, 1, 3 * err) << n;
    EXPECT_NEAR(mp.centre_of_mass.norm(), 0, 1e-12);
  }
  EXPECT_LT(err_prev, 2e-4);
}

TEST(MassProperties, FarFromOriginStaysAccurate) {
  TriangleMesh m = make_box(Vec3(0.5, 0.5, 0.5));
  transform_mesh(m, Quat::Identity(), Vec3(1e6, -2e6, 3e5));
  const MassProperties mp = mass_properties(m);
  EXPECT_NEAR(mp.volume, 1.0, 1e-9);
  EXPECT_NEAR(mp.inertia(0, 0), 1.0 / 6, 1e-8);
  EXPECT_NEAR(mp.inertia(0, 1), 0.0, 1e-8);
}

TEST(MassProperties, OpenOrInsideOutMeshIsInvalid) {
  TriangleMesh m = make_box(Vec3(1, 1, 1));
  TriangleMesh flipped = m;
  for (auto& f : flipped.triangles) std::swap(f[1], f[2]);
  const MassProperties a = mass_properties(flipped);
  EXPECT_FALSE(a.valid);
  EXPECT_LT(a.volume, 0);
  EXPECT_EQ(a.mass, 0);
  EXPECT_FALSE(mass_properties(TriangleMesh{}).valid);
}

}  // namespace
}  // namespace cl
