#include "volume_geometry/convex_polyhedron.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cl::vg {

void ConvexPolyhedron::set_box(const Vec3& centre, const Mat3& rotation, const Vec3& half, FaceOwner owner) {
  clear();
  tolerance_ = 1e-9 * 2.0 * half.norm();
  const auto corner = [&](double su, double sv, int k) {
    // su, sv on the face's axes u = k + 1, v = k + 2 (mod 3); the face's own axis k set by the caller.
    Vec3 local = Vec3::Zero();
    local[(k + 1) % 3] = su * half[(k + 1) % 3];
    local[(k + 2) % 3] = sv * half[(k + 2) % 3];
    return local;
  };
  for (int k = 0; k < 3; ++k)
    for (double side : {1.0, -1.0}) {
      PolyFace f;
      f.first = int(vertices_.size());
      f.count = 4;
      f.normal = side * rotation.col(k);
      f.owner = owner;
      // Counter-clockwise seen from outside: (u-, v-), (u+, v-), (u+, v+), (u-, v+) on the + face, reversed on the
      // - face ((u, v, k) is right-handed).
      const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
      for (int i = 0; i < 4; ++i) {
        const int m = side > 0 ? i : 3 - i;
        Vec3 local = corner(su[m], sv[m], k);
        local[k] = side * half[k];
        vertices_.push_back(centre + rotation * local);
      }
      f.offset = f.normal.dot(centre) + half[k];
      faces_.push_back(f);
    }
}

bool ConvexPolyhedron::clip(const Vec3& n, double d, FaceOwner owner, ConvexPolyhedron& out) const {
  out.tolerance_ = tolerance_;
  return clip_to(n, d, owner, out.vertices_, out.faces_);
}

bool ConvexPolyhedron::clip(const Vec3& n, double d, FaceOwner owner) {
  const bool left = clip_to(n, d, owner, next_vertices_, next_faces_);
  vertices_.swap(next_vertices_);
  faces_.swap(next_faces_);
  return left;
}

bool ConvexPolyhedron::clip_to(const Vec3& n, double d, FaceOwner owner, std::vector<Vec3>& vertices,
                               std::vector<PolyFace>& faces) const {
  vertices.clear();
  faces.clear();
  const double tol = tolerance_;
  side_.resize(vertices_.size());
  double most = -std::numeric_limits<double>::infinity(), least = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < vertices_.size(); ++i) {
    side_[i] = n.dot(vertices_[i]) - d;
    most = std::max(most, side_[i]);
    least = std::min(least, side_[i]);
  }
  if (vertices_.empty() || least >= -tol) return false;  // nothing, or at most a face touching the plane
  if (most <= tol) {                                     // nothing beyond the plane
    vertices = vertices_;
    faces = faces_;
    return true;
  }
  // Sutherland-Hodgman per face. A crossing point is computed from the edge's inside end towards its outside
  // end, so the two faces of an edge get the same point bit for bit.
  cut_.clear();
  for (const PolyFace& f : faces_) {
    const int start = int(vertices.size());
    for (int i = 0; i < f.count; ++i) {
      const int a = f.first + i, b = f.first + (i + 1 == f.count ? 0 : i + 1);
      const double sa = side_[std::size_t(a)], sb = side_[std::size_t(b)];
      if (sa <= tol) {
        vertices.push_back(vertices_[std::size_t(a)]);
        if (sa >= -tol) cut_.push_back(vertices_[std::size_t(a)]);
      }
      if ((sa < -tol && sb > tol) || (sa > tol && sb < -tol)) {
        const int in = sa < 0 ? a : b, out = sa < 0 ? b : a;
        const double s_in = side_[std::size_t(in)], s_out = side_[std::size_t(out)];
        const Vec3& p = vertices_[std::size_t(in)];
        const Vec3 x = p + (s_in / (s_in - s_out)) * (vertices_[std::size_t(out)] - p);
        vertices.push_back(x);
        cut_.push_back(x);
      }
    }
    const int count = int(vertices.size()) - start;
    if (count < 3) {
      vertices.resize(std::size_t(start));
      continue;
    }
    PolyFace g = f;
    g.first = start;
    g.count = count;
    faces.push_back(g);
  }
  // The cut face: the points on the plane, without repeats, ordered counter-clockwise about their mean as seen
  // from outside (along +n).
  const double merge = 16.0 * tol * tol;
  std::size_t unique = 0;
  for (std::size_t i = 0; i < cut_.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < unique && !seen; ++j) seen = (cut_[j] - cut_[i]).squaredNorm() <= merge;
    if (!seen) cut_[unique++] = cut_[i];
  }
  if (unique >= 3) {
    Vec3 mean = Vec3::Zero();
    for (std::size_t i = 0; i < unique; ++i) mean += cut_[i];
    mean /= double(unique);
    Vec3 t1, t2;
    tangent_basis(n, t1, t2);
    order_.clear();
    for (std::size_t i = 0; i < unique; ++i) {
      const Vec3 r = cut_[i] - mean;
      order_.emplace_back(std::atan2(r.dot(t2), r.dot(t1)), int(i));
    }
    std::sort(order_.begin(), order_.end());
    PolyFace cap;
    cap.first = int(vertices.size());
    cap.count = int(unique);
    cap.normal = n;
    cap.offset = d;
    cap.owner = owner;
    for (const auto& [angle, i] : order_) vertices.push_back(cut_[std::size_t(i)]);
    faces.push_back(cap);
  }
  if (faces.size() < 4) {  // not a solid: a sliver within the tolerance
    vertices.clear();
    faces.clear();
    return false;
  }
  return true;
}

FaceArea ConvexPolyhedron::face_area(const PolyFace& f) const {
  FaceArea out;
  const Vec3* v = vertices_.data() + f.first;
  Vec3 moment = Vec3::Zero();
  for (int i = 1; i + 1 < f.count; ++i) {
    const double a = 0.5 * f.normal.dot((v[i] - v[0]).cross(v[i + 1] - v[0]));
    out.area += a;
    moment += a * (v[0] + v[i] + v[i + 1]);
  }
  out.centroid = out.area > 0 ? Vec3(moment / (3.0 * out.area)) : v[0];
  return out;
}

double ConvexPolyhedron::volume(Vec3* centroid) const {
  if (faces_.empty()) {
    if (centroid) centroid->setZero();
    return 0.0;
  }
  // Tetrahedra from a vertex of the polyhedron (small coordinates, little cancellation) to each fan triangle.
  const Vec3 o = vertices_[0];
  double six_v = 0;
  Vec3 moment = Vec3::Zero();
  for (const PolyFace& f : faces_) {
    const Vec3* v = vertices_.data() + f.first;
    const Vec3 a = v[0] - o;
    for (int i = 1; i + 1 < f.count; ++i) {
      const Vec3 b = v[i] - o, c = v[i + 1] - o;
      const double t = a.dot(b.cross(c));
      six_v += t;
      moment += t * (a + b + c);
    }
  }
  const double volume = six_v / 6.0;
  if (centroid) *centroid = six_v != 0 ? Vec3(o + moment / (4.0 * six_v)) : o;
  return volume;
}

Aabb ConvexPolyhedron::bounds() const {
  Aabb box;
  box.lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  box.hi = -box.lo;
  for (const Vec3& p : vertices_) {
    box.lo = box.lo.cwiseMin(p);
    box.hi = box.hi.cwiseMax(p);
  }
  return box;
}

double ConvexPolyhedron::extent(const Vec3& n) const {
  if (vertices_.empty()) return 0.0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec3& p : vertices_) {
    const double s = n.dot(p);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return hi - lo;
}

double ConvexPolyhedron::chord(const Vec3& p, const Vec3& n) const {
  if (faces_.empty()) return 0.0;
  double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
  for (const PolyFace& f : faces_) {
    const double along = f.normal.dot(n), gap = f.offset - f.normal.dot(p);
    if (std::abs(along) < 1e-15) {
      if (gap < 0) return 0.0;  // parallel to the face and outside it
      continue;
    }
    const double t = gap / along;
    if (along > 0)
      hi = std::min(hi, t);
    else
      lo = std::max(lo, t);
  }
  return std::max(0.0, hi - lo);
}

}  // namespace cl::vg
