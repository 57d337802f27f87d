#include "solvers/pid_penalty/bottom_polygon.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/QR>

#include "core/math.h"

namespace cl::pid_penalty {

namespace {

// m: depths closer than this count as one level of the order (a face lying flat within it is taken as flat).
constexpr double kDepthLevel = 2e-4;

using Vec2 = Eigen::Vector2d;

double cross(const Vec2& o, const Vec2& a, const Vec2& b) {
  return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
}

// Convex hull (Andrew's monotone chain), counter-clockwise, collinear points left out.
std::vector<Vec2> hull(std::vector<Vec2> p) {
  std::sort(p.begin(), p.end(), [](const Vec2& a, const Vec2& b) { return a.x() != b.x() ? a.x() < b.x() : a.y() < b.y(); });
  p.erase(std::unique(p.begin(), p.end()), p.end());
  if (p.size() < 3) return p;
  std::vector<Vec2> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, t = k + 1; i > 0; --i) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i - 1]) <= 0.0) --k;
    h[k++] = p[i - 1];
  }
  h.resize(k - 1);
  return h;
}

// Adds p, outside the convex polygon h (counter-clockwise, at least 3 vertices), to it: the vertices between the
// two tangents from p (the chain of edges p sees, or lies on the line of) give way to p. That is the hull of h and
// p, as hull() would build it (collinear vertices left out), in the hull's size rather than a sort.
void insert_outside(std::vector<Vec2>& h, const Vec2& p) {
  const size_t n = h.size();
  // visible(i): p lies right of, or on the line of, edge i -> i + 1.
  auto visible = [&](size_t i) { return cross(h[i], h[(i + 1) % n], p) <= 0.0; };
  size_t first = n;  // the first visible edge after an invisible one
  int starts = 0;    // chains of visible edges: one, unless rounding splits it where p is nearly on an edge's line
  for (size_t i = 0; i < n; ++i)
    if (visible(i) && !visible((i + n - 1) % n)) {
      if (first == n) first = i;
      ++starts;
    }
  if (starts != 1) {  // no chain or a split one: the hull of h and p from scratch
    h.push_back(p);
    h = hull(std::move(h));
    return;
  }
  size_t last = first;  // the last visible edge of the chain
  while (visible((last + 1) % n)) last = (last + 1) % n;
  // The chain's edges run from vertex `first` to vertex last + 1; the vertices strictly between go, p goes in.
  std::vector<Vec2> out;
  out.reserve(n + 1);
  for (size_t k = (last + 1) % n;; k = (k + 1) % n) {
    out.push_back(h[k]);
    if (k == first) break;
  }
  out.push_back(p);
  h = std::move(out);
}

double segment_distance(const Vec2& p, const Vec2& a, const Vec2& b) {
  const Vec2 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0.0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (p - (a + t * ab)).norm();
}

// Whether p lies inside or within `tolerance` of the convex polygon h (counter-clockwise; 1 or 2 points: a point
// or a segment).
bool inside(const std::vector<Vec2>& h, const Vec2& p, double tolerance) {
  if (h.empty()) return false;
  if (h.size() == 1) return (p - h[0]).norm() <= tolerance;
  if (h.size() == 2) return segment_distance(p, h[0], h[1]) <= tolerance;
  // Outside an edge's line by more than the tolerance is outside the polygon by more (the polygon lies on the line's
  // inner side): most points a polygon keeps are found so, without a distance to every edge. Twice the tolerance,
  // so that no point near the tolerance is decided by this test's rounding rather than the distance's below.
  bool strictly = true;
  for (size_t i = 0; i < h.size(); ++i) {
    const Vec2& a = h[i];
    const Vec2& b = h[(i + 1) % h.size()];
    const double c = cross(a, b, p);
    if (c < 0.0) {
      strictly = false;
      if (-c > 2.0 * tolerance * (b - a).norm()) return false;
    }
  }
  if (strictly) return true;
  for (size_t i = 0; i < h.size(); ++i)
    if (segment_distance(p, h[i], h[(i + 1) % h.size()]) <= tolerance) return true;
  return false;
}

// Whether the points `which` (at least 4) lie on a face: depth = a + b u + c v over their place (u, v) on the
// contact plane, by least squares, leaves no point more than kDepthLevel off. Fewer than 4 points always fit.
bool is_face(std::span<const Vec3> points, std::span<const double> depth, std::span<const int> which, const Vec3& t1,
             const Vec3& t2) {
  if (which.size() < 4) return true;
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();  // u, v, depth
  for (const int i : which) mean += Eigen::Vector3d(points[i].dot(t1), points[i].dot(t2), depth[i]);
  mean /= double(which.size());
  Eigen::Matrix2d A = Eigen::Matrix2d::Zero();
  Vec2 b = Vec2::Zero();
  for (const int i : which) {
    const Vec2 r(points[i].dot(t1) - mean.x(), points[i].dot(t2) - mean.y());
    A += r * r.transpose();
    b += r * (depth[i] - mean.z());
  }
  // Points along a line leave A singular: the fit is then along the line alone (the least-norm solution).
  const Vec2 slope = A.completeOrthogonalDecomposition().solve(b);
  for (const int i : which) {
    const Vec2 r(points[i].dot(t1) - mean.x(), points[i].dot(t2) - mean.y());
    if (std::abs(depth[i] - mean.z() - slope.dot(r)) > kDepthLevel) return false;
  }
  return true;
}

}  // namespace

std::vector<int> bottom_of_penetration(std::span<const Vec3> points, std::span<const double> depth, const Vec3& normal,
                                       double tolerance, std::span<const bool> side) {
  Vec3 t1, t2;
  tangent_basis(normal, t1, t2);
  // Depth order, by levels: a level runs on while each next point is within kDepthLevel of the one before it, so a
  // face lying flat or slightly tilted is one level (a fixed grid of depths, floor(depth / kDepthLevel), cut a
  // tilted face wherever a grid line crossed it, kept the points along the cut as extra vertices, and as the
  // face rocked the cut moved and the points carrying force changed from step to step: a resting box kept
  // rocking at 0.1 rad/s). Within a level the points farthest from the points' centre come first, so that a face
  // gives its corners and drops its edges and interior instead of keeping each point that happens to extend the
  // polygon of the ones before it.
  Vec3 centre = Vec3::Zero();
  for (const Vec3& p : points) centre += p;
  if (!points.empty()) centre /= double(points.size());
  std::vector<int> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int i, int j) { return depth[i] > depth[j]; });
  std::vector<int> level(points.size(), 0);
  std::vector<double> spread(points.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    if (k > 0) level[i] = level[order[k - 1]] + (depth[order[k - 1]] - depth[i] > kDepthLevel ? 1 : 0);
    const Vec3 r = points[i] - centre;
    spread[i] = (r - r.dot(normal) * normal).squaredNorm();
  }
  // A level is taken outermost first only where it is a face: its depths an affine function of the place on the
  // contact plane to within kDepthLevel. There a point inside the polygon of the outer ones is no deeper than they
  // (a linear function on a convex polygon is largest at a vertex), so dropping it loses no depth. A curved
  // surface chains into one level too (a sphere's shell rows lie 2 r / n = 0.16 mm apart in depth at the spacing
  // sqrt(r x 1 mm)), but its deepest points lie inside the rim: taken outermost first, the rim's polygon dropped
  // the whole cap and a 0.5 m ball resting on the ground sank 0.29 m in 1 s, held by its shallow rim alone. Such
  // a level keeps the paper's order, deepest first, which keeps every ring of the cap.
  // Points on a side of the volume (`side`) are left out of the face test when the level has others, and come after
  // the face's own points: a side's lowest points lie under the face's rim, shallower, and taken first they would
  // hold the polygon that drops the face's deeper rim.
  const auto is_side = [&](int i) { return !side.empty() && side[size_t(i)]; };
  std::vector<double> key(spread);
  std::vector<int> bottom;
  for (size_t first = 0; first < order.size();) {
    size_t last = first + 1;
    while (last < order.size() && level[order[last]] == level[order[first]]) ++last;
    bottom.clear();
    for (size_t k = first; k < last; ++k)
      if (!is_side(order[k])) bottom.push_back(order[k]);
    const bool mixed = !bottom.empty() && bottom.size() < last - first;
    const std::span<const int> fit = mixed ? std::span<const int>(bottom) : std::span<const int>(order).subspan(first, last - first);
    if (!is_face(points, depth, fit, t1, t2)) {
      for (size_t k = first; k < last; ++k) key[order[k]] = depth[order[k]];
    } else if (mixed) {
      // After every bottom point of the level (keys are squared distances, >= 0), outermost first among themselves.
      for (size_t k = first; k < last; ++k)
        if (is_side(order[k])) key[order[k]] = -1.0 / (1.0 + spread[order[k]]);
    }
    first = last;
  }
  std::stable_sort(order.begin(), order.end(), [&](int i, int j) {
    if (level[i] != level[j]) return level[i] < level[j];
    return key[i] > key[j];
  });
  // The polygon grows by one point at a time: the hull of the kept points is the hull of the last hull's vertices
  // and the new point (a kept point that fell inside is never a vertex again), so each insertion costs the hull's
  // size, not the number of points kept so far (a curved cap keeps hundreds of points, and rebuilding from all of
  // them for each made the polygon quadratic in the cap's size).
  std::vector<Vec2> polygon;
  std::vector<int> kept;
  for (int i : order) {
    const Vec2 p(points[i].dot(t1), points[i].dot(t2));
    if (inside(polygon, p, tolerance)) continue;
    kept.push_back(i);
    if (polygon.size() < 3) {
      polygon.push_back(p);
      polygon = hull(std::move(polygon));
    } else {
      insert_outside(polygon, p);
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace cl::pid_penalty
