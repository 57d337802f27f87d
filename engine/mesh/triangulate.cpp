#include "mesh/triangulate.h"

#include <cmath>

namespace cl {

namespace {

using P2 = std::array<double, 2>;

double cross(const P2& o, const P2& a, const P2& b) { return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]); }

// True if p lies inside or on the triangle abc (counter-clockwise).
bool in_triangle(const P2& p, const P2& a, const P2& b, const P2& c) {
  return cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0;
}

// True if the closed polygon p has two edges that cross or touch, other than neighbours at their shared corner.
bool self_intersecting(const std::vector<P2>& p) {
  const size_t n = p.size();
  const auto sign = [](double x) { return (x > 0) - (x < 0); };
  for (size_t i = 0; i < n; ++i) {
    const P2 &a = p[i], &b = p[(i + 1) % n];
    for (size_t j = i + 2; j < n; ++j) {
      if (i == 0 && j == n - 1) continue;  // the last edge meets the first at corner 0
      const P2 &c = p[j], &d = p[(j + 1) % n];
      const int d1 = sign(cross(a, b, c)), d2 = sign(cross(a, b, d)), d3 = sign(cross(c, d, a)), d4 = sign(cross(c, d, b));
      if (d1 * d2 < 0 && d3 * d4 < 0) return true;  // a proper crossing
      const auto on = [](const P2& s, const P2& e, const P2& q) {  // q on segment s-e, known collinear
        return std::min(s[0], e[0]) <= q[0] && q[0] <= std::max(s[0], e[0]) && std::min(s[1], e[1]) <= q[1] &&
               q[1] <= std::max(s[1], e[1]);
      };
      if ((d1 == 0 && on(a, b, c)) || (d2 == 0 && on(a, b, d)) || (d3 == 0 && on(c, d, a)) || (d4 == 0 && on(c, d, b)))
        return true;
    }
  }
  return false;
}

}  // namespace

std::string triangulate_polygon(const std::vector<Vec3>& vertices, const std::vector<int>& corners,
                                std::vector<std::array<int, 3>>& out) {
  if (corners.size() > size_t(kMaxPolygonCorners))
    return "this " + std::to_string(corners.size()) + "-vertex polygon has more than the " +
           std::to_string(kMaxPolygonCorners) + " corners a face may have: triangulate the mesh before export";
  const int n = int(corners.size());
  if (n < 3) return "a face needs at least 3 vertices";
  if (n == 3) {
    out.push_back({corners[0], corners[1], corners[2]});
    return {};
  }
  const auto at = [&](int k) -> const Vec3& { return vertices[size_t(corners[size_t(k)])]; };
  if (n == 4) {
    // Along the shorter diagonal: the better-shaped pair of triangles, and the flatter split of a bent quad.
    if ((at(1) - at(3)).squaredNorm() < (at(0) - at(2)).squaredNorm()) {
      out.push_back({corners[0], corners[1], corners[3]});
      out.push_back({corners[1], corners[2], corners[3]});
    } else {
      out.push_back({corners[0], corners[1], corners[2]});
      out.push_back({corners[0], corners[2], corners[3]});
    }
    return {};
  }

  // Newell's normal; project onto the plane of its largest component, keeping the winding counter-clockwise.
  Vec3 normal(0, 0, 0);
  for (int k = 0; k < n; ++k) {
    const Vec3& a = at(k);
    const Vec3& b = at((k + 1) % n);
    normal += Vec3((a.y() - b.y()) * (a.z() + b.z()), (a.z() - b.z()) * (a.x() + b.x()), (a.x() - b.x()) * (a.y() + b.y()));
  }
  int axis = 0;
  for (int d = 1; d < 3; ++d)
    if (std::abs(normal[d]) > std::abs(normal[axis])) axis = d;
  if (!(std::abs(normal[axis]) > 0)) return "this " + std::to_string(n) + "-vertex polygon has no area";
  int u = (axis + 1) % 3, v = (axis + 2) % 3;
  if (normal[axis] < 0) std::swap(u, v);
  std::vector<P2> p(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) p[size_t(k)] = {at(k)[u], at(k)[v]};

  // A fan from the first corner, in linear time, when it is a triangulation: every fan triangle turns left
  // (up to rounding) and together they sweep less than a full turn about that corner, so none overlaps another.
  // That holds for every convex polygon and for any polygon star-shaped about its first corner.
  bool fan = true;
  double sweep = 0.0;
  for (int k = 1; k + 1 < n && fan; ++k) {
    const P2& o = p[0];
    const P2& a = p[static_cast<size_t>(k)];
    const P2& b = p[static_cast<size_t>(k + 1)];
    const double ax = a[0] - o[0], ay = a[1] - o[1], bx = b[0] - o[0], by = b[1] - o[1];
    const double turn = ax * by - ay * bx;
    fan = turn >= -1e-12 * std::hypot(ax, ay) * std::hypot(bx, by);
    sweep += std::atan2(turn, ax * bx + ay * by);
  }
  if (fan && sweep < 2 * M_PI - 1e-9) {
    for (int k = 1; k + 1 < n; ++k)
      out.push_back({corners[0], corners[static_cast<size_t>(k)], corners[static_cast<size_t>(k + 1)]});
    return {};
  }
  if (n > kMaxConcavePolygonCorners)
    return "this " + std::to_string(n) + "-vertex polygon is not star-shaped about its first corner, and ear clipping takes at most " +
           std::to_string(kMaxConcavePolygonCorners) + " corners: triangulate the mesh before export";

  // Ear clipping is only right for a simple polygon: one whose edges cross (a pentagram, a bow tie) could
  // still be cut into ears that overlap.
  if (self_intersecting(p))
    return "this " + std::to_string(n) + "-vertex polygon intersects itself and cannot be triangulated";

  // Ear clipping over a ring of the remaining corners: a corner is an ear when it turns left and no other
  // remaining corner lies in its triangle.
  std::vector<int> prev(static_cast<size_t>(n)), next(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    prev[size_t(k)] = (k + n - 1) % n;
    next[size_t(k)] = (k + 1) % n;
  }
  const auto is_ear = [&](int k) {
    const int a = prev[size_t(k)], c = next[size_t(k)];
    if (cross(p[size_t(a)], p[size_t(k)], p[size_t(c)]) <= 0) return false;
    for (int m = next[size_t(c)]; m != a; m = next[size_t(m)]) {
      const P2& q = p[size_t(m)];
      if (q == p[size_t(a)] || q == p[size_t(k)] || q == p[size_t(c)]) continue;
      if (in_triangle(q, p[size_t(a)], p[size_t(k)], p[size_t(c)])) return false;
    }
    return true;
  };
  const size_t first = out.size();
  int left = n, k = 0, tried = 0;
  while (left > 3) {
    if (is_ear(k)) {
      const int a = prev[size_t(k)], c = next[size_t(k)];
      out.push_back({corners[size_t(a)], corners[size_t(k)], corners[size_t(c)]});
      next[size_t(a)] = c;
      prev[size_t(c)] = a;
      --left;
      k = a;  // the corners beside a clipped ear may have become ears
      tried = 0;
    } else {
      k = next[size_t(k)];
      if (++tried > left) {
        out.resize(first);
        return "this " + std::to_string(n) +
               "-vertex polygon cannot be triangulated (it folds back on itself)";
      }
    }
  }
  out.push_back({corners[size_t(prev[size_t(k)])], corners[size_t(k)], corners[size_t(next[size_t(k)])]});
  return {};
}

}  // namespace cl
