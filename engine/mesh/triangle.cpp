#include "mesh/triangle.h"

#include <algorithm>
#include <cmath>

namespace cl {

Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, TriangleFeature* feature,
                               int* local_index) {
  auto set = [&](TriangleFeature f, int i) {
    if (feature) *feature = f;
    if (local_index) *local_index = i;
  };
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return set(TriangleFeature::Vertex, 0), a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return set(TriangleFeature::Vertex, 1), b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return set(TriangleFeature::Edge, 0), Vec3(a + v * ab);
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return set(TriangleFeature::Vertex, 2), c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return set(TriangleFeature::Edge, 2), Vec3(a + w * ac);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return set(TriangleFeature::Edge, 1), Vec3(b + w * (c - b));
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  set(TriangleFeature::Face, -1);
  return a + ab * v + ac * w;
}

bool ray_triangle(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, const Vec3& c, double t_min,
                  double t_max, double* t_out, double* u_out, double* v_out) {
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 pv = d.cross(e2);
  const double det = e1.dot(pv);
  if (det == 0 || !std::isfinite(det)) return false;
  const double inv = 1.0 / det;
  const Vec3 tv = o - a;
  const double u = tv.dot(pv) * inv;
  if (u < 0 || u > 1) return false;
  const Vec3 qv = tv.cross(e1);
  const double v = d.dot(qv) * inv;
  if (v < 0 || u + v > 1) return false;
  const double t = e2.dot(qv) * inv;
  if (t < t_min || t > t_max) return false;
  *t_out = t;
  if (u_out) *u_out = u;
  if (v_out) *v_out = v;
  return true;
}

bool triangles_overlap(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                       const Vec3& b2) {
  const Vec3 A[3] = {a0, a1, a2}, B[3] = {b0, b1, b2};
  const Vec3 ea[3] = {a1 - a0, a2 - a1, a0 - a2}, eb[3] = {b1 - b0, b2 - b1, b0 - b2};
  double scale2 = 0;
  for (int i = 0; i < 3; ++i) scale2 = std::max({scale2, ea[i].squaredNorm(), eb[i].squaredNorm()});
  if (!(scale2 > 0)) scale2 = 1;
  const double tiny = 1e-24 * scale2 * scale2;  // axes are products of two edges
  auto separated = [&](const Vec3& L) {
    if (L.squaredNorm() <= tiny) return false;
    double amin = A[0].dot(L), amax = amin, bmin = B[0].dot(L), bmax = bmin;
    for (int i = 1; i < 3; ++i) {
      const double x = A[i].dot(L), y = B[i].dot(L);
      amin = std::min(amin, x), amax = std::max(amax, x);
      bmin = std::min(bmin, y), bmax = std::max(bmax, y);
    }
    return amax < bmin || bmax < amin;
  };
  const Vec3 na = ea[0].cross(ea[1]), nb = eb[0].cross(eb[1]);
  if (separated(na) || separated(nb)) return false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (separated(ea[i].cross(eb[j]))) return false;
  // in-plane edge normals: decisive for coplanar triangles, harmless otherwise
  for (int i = 0; i < 3; ++i) {
    if (separated(na.cross(ea[i])) || separated(nb.cross(eb[i]))) return false;
    if (separated(na.cross(eb[i])) || separated(nb.cross(ea[i]))) return false;
  }
  return true;
}

double triangle_solid_angle(const Vec3& p, const Vec3& a0, const Vec3& b0, const Vec3& c0) {
  const Vec3 a = a0 - p, b = b0 - p, c = c0 - p;
  const double la = a.norm(), lb = b.norm(), lc = c.norm();
  const double num = a.dot(b.cross(c));
  const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
  return 2.0 * std::atan2(num, den);
}

}  // namespace cl
