#include "mesh/mass_properties.h"

#include <Eigen/Eigenvalues>

namespace cl {

namespace {
inline void subexpressions(double w0, double w1, double w2, double& f1, double& f2, double& f3, double& g0,
                           double& g1, double& g2) {
  const double t0 = w0 + w1;
  f1 = t0 + w2;
  const double t1 = w0 * w0;
  const double t2 = t1 + w1 * t0;
  f2 = t2 + w2 * f1;
  f3 = w0 * t1 + w1 * t2 + w2 * f2;
  g0 = f2 + w0 * (f1 + w0);
  g1 = f2 + w1 * (f1 + w1);
  g2 = f2 + w2 * (f1 + w2);
}
}  // namespace

MassProperties mass_properties(const TriangleMesh& mesh, double density) {
  // Integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over the volume. To limit cancellation for meshes far from
  // the origin, integrate about the vertex centroid and shift back.
  Vec3 shift(0, 0, 0);
  if (!mesh.vertices.empty()) {
    for (const Vec3& v : mesh.vertices) shift += v;
    shift /= double(mesh.vertices.size());
  }
  double integral[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (const auto& f : mesh.triangles) {
    const Vec3 p0 = mesh.vertices[f[0]] - shift, p1 = mesh.vertices[f[1]] - shift, p2 = mesh.vertices[f[2]] - shift;
    const Vec3 d = (p1 - p0).cross(p2 - p0);
    double f1x, f2x, f3x, g0x, g1x, g2x, f1y, f2y, f3y, g0y, g1y, g2y, f1z, f2z, f3z, g0z, g1z, g2z;
    subexpressions(p0.x(), p1.x(), p2.x(), f1x, f2x, f3x, g0x, g1x, g2x);
    subexpressions(p0.y(), p1.y(), p2.y(), f1y, f2y, f3y, g0y, g1y, g2y);
    subexpressions(p0.z(), p1.z(), p2.z(), f1z, f2z, f3z, g0z, g1z, g2z);
    integral[0] += d.x() * f1x;
    integral[1] += d.x() * f2x;
    integral[2] += d.y() * f2y;
    integral[3] += d.z() * f2z;
    integral[4] += d.x() * f3x;
    integral[5] += d.y() * f3y;
    integral[6] += d.z() * f3z;
    integral[7] += d.x() * (p0.y() * g0x + p1.y() * g1x + p2.y() * g2x);
    integral[8] += d.y() * (p0.z() * g0y + p1.z() * g1y + p2.z() * g2y);
    integral[9] += d.z() * (p0.x() * g0z + p1.x() * g1z + p2.x() * g2z);
  }
  const double mult[10] = {1.0 / 6, 1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 60, 1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120,
                           1.0 / 120};
  for (int i = 0; i < 10; ++i) integral[i] *= mult[i];
  MassProperties r;
  r.volume = integral[0];
  if (!(r.volume > 0)) return r;  // open, inside-out, flat or non-finite
  r.mass = density * r.volume;
  const Vec3 c(integral[1] / r.volume, integral[2] / r.volume, integral[3] / r.volume);
  // second moments about the centre of mass (unit density, then scaled)
  const double xx = integral[4] - r.volume * c.x() * c.x();
  const double yy = integral[5] - r.volume * c.y() * c.y();
  const double zz = integral[6] - r.volume * c.z() * c.z();
  const double xy = integral[7] - r.volume * c.x() * c.y();
  const double yz = integral[8] - r.volume * c.y() * c.z();
  const double zx = integral[9] - r.volume * c.z() * c.x();
  Mat3 I;
  I << yy + zz, -xy, -zx, -xy, xx + zz, -yz, -zx, -yz, xx + yy;
  r.inertia = density * I;
  r.centre_of_mass = c + shift;
  r.valid = true;
  return r;
}

void principal_axes(const Mat3& inertia, Vec3& moments, Mat3& axes) {
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  moments = es.eigenvalues();
  axes = es.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
}

}  // namespace cl
