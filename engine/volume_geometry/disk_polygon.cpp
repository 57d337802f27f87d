#include "volume_geometry/disk_polygon.h"

#include <algorithm>
#include <cmath>

namespace cl::vg {

namespace {

inline double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// The signed area and moment of the triangle (0, p, q) cut by the disk of radius r about the origin.
void add_edge(const Vec2& p, const Vec2& q, double r, PlaneArea& out) {
  // The edge's pieces by the circle: |p + t (q - p)|^2 = r^2.
  const Vec2 d = q - p;
  const double a = d.squaredNorm(), b = p.dot(d), c = p.squaredNorm() - r * r;
  double t[4] = {0.0, 0.0, 0.0, 0.0};
  int ends = 0;
  t[ends++] = 0.0;
  if (a > 0 && b * b - a * c > 0) {
    const double s = std::sqrt(b * b - a * c);
    t[ends++] = std::clamp((-b - s) / a, 0.0, 1.0);
    t[ends++] = std::clamp((-b + s) / a, 0.0, 1.0);
  }
  t[ends++] = 1.0;
  for (int k = 0; k + 1 < ends; ++k) {
    const double t0 = t[k], t1 = t[k + 1];
    if (t1 <= t0) continue;
    const Vec2 u = p + t0 * d, v = p + t1 * d;
    const Vec2 mid = p + (0.5 * (t0 + t1)) * d;
    if (mid.squaredNorm() <= r * r) {
      // Inside: the triangle (0, u, v).
      const double area = 0.5 * cross2(u, v);
      out.area += area;
      out.moment += area * (u + v) / 3.0;
    } else {
      // Outside: the sector between the directions of u and v.
      const double a0 = std::atan2(u.y(), u.x());
      const double sweep = std::atan2(cross2(u, v), u.dot(v));
      const double a1 = a0 + sweep;
      out.area += 0.5 * r * r * sweep;
      out.moment += (r * r * r / 3.0) * Vec2(std::sin(a1) - std::sin(a0), std::cos(a0) - std::cos(a1));
    }
  }
}

}  // namespace

PlaneArea polygon_in_disk(std::span<const Vec2> polygon, const Vec2& centre, double radius) {
  PlaneArea out;
  if (!(radius > 0) || polygon.size() < 3) return out;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Vec2 p = polygon[i] - centre, q = polygon[i + 1 == polygon.size() ? 0 : i + 1] - centre;
    add_edge(p, q, radius, out);
  }
  // Back to the caller's origin: the moment about the centre plus the area times the centre.
  out.moment += out.area * centre;
  return out;
}

PlaneArea rectangle_in_disk(double hu, double hv, const Vec2& centre, double radius) {
  // Disjoint or inside without a cut, quickly.
  const double dx = std::max(std::abs(centre.x()) - hu, 0.0), dy = std::max(std::abs(centre.y()) - hv, 0.0);
  PlaneArea out;
  if (dx * dx + dy * dy >= radius * radius) return out;
  if (std::abs(centre.x()) + radius <= hu && std::abs(centre.y()) + radius <= hv) {
    out.area = M_PI * radius * radius;
    out.moment = out.area * centre;
    return out;
  }
  const Vec2 corners[4] = {Vec2(-hu, -hv), Vec2(hu, -hv), Vec2(hu, hv), Vec2(-hu, hv)};
  return polygon_in_disk(corners, centre, radius);
}

}  // namespace cl::vg
