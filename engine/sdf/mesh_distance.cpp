#include "sdf/mesh_distance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace cl::sdf_detail {

namespace {

constexpr int kLeafSize = 4;

// Closest point on triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5), with the feature:
// 0..2 vertices a, b, c; 3..5 edges ab, bc, ca; 6 face interior.
inline Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, int& feature) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) {
    feature = 0;
    return a;
  }
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) {
    feature = 1;
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    feature = 3;
    return a + (d1 / (d1 - d3)) * ab;
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) {
    feature = 2;
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    feature = 5;
    return a + (d2 / (d2 - d6)) * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    feature = 4;
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  }
  const double denom = 1.0 / (va + vb + vc);
  feature = 6;
  return a + ab * (vb * denom) + ac * (vc * denom);
}

inline double box_distance2(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  const double dx = std::max({lo.x() - p.x(), 0.0, p.x() - hi.x()});
  const double dy = std::max({lo.y() - p.y(), 0.0, p.y() - hi.y()});
  const double dz = std::max({lo.z() - p.z(), 0.0, p.z() - hi.z()});
  return dx * dx + dy * dy + dz * dz;
}

}  // namespace

MeshDistance::MeshDistance(std::span<const Vec3> vertices, std::span<const std::array<int, 3>> triangles) {
  if (vertices.empty() || triangles.empty()) throw std::invalid_argument("signed distance: empty mesh");
  for (const Vec3& v : vertices)
    if (!all_finite(v)) throw std::invalid_argument("signed distance: mesh has a non-finite vertex");
  const int nv = static_cast<int>(vertices.size());
  for (const auto& t : triangles)
    for (int k = 0; k < 3; ++k)
      if (t[k] < 0 || t[k] >= nv)
        throw std::invalid_argument("signed distance: triangle vertex index " + std::to_string(t[k]) +
                                    " out of range");

  // Angle-weighted pseudo-normals (Baerentzen & Aanaes 2005): faces use their unit normal, edges the sum of
  // the two incident face normals, vertices the incident face normals weighted by the incident angle.
  const std::size_t nt = triangles.size();
  std::vector<Vec3> face_n(nt);
  std::vector<Vec3> vertex_n(vertices.size(), Vec3::Zero());
  std::map<std::pair<int, int>, Vec3> edge_n;
  for (std::size_t i = 0; i < nt; ++i) {
    const auto& t = triangles[i];
    const Vec3 &a = vertices[t[0]], &b = vertices[t[1]], &c = vertices[t[2]];
    const Vec3 n = (b - a).cross(c - a);
    const double len = n.norm();
    face_n[i] = len > 0 ? Vec3(n / len) : Vec3::Zero();
    for (int k = 0; k < 3; ++k) {
      const Vec3& p0 = vertices[t[k]];
      const Vec3 e1 = vertices[t[(k + 1) % 3]] - p0, e2 = vertices[t[(k + 2) % 3]] - p0;
      const double angle = std::atan2(e1.cross(e2).norm(), e1.dot(e2));
      vertex_n[t[k]] += angle * face_n[i];
      const std::pair<int, int> key(std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3]));
      auto [it, inserted] = edge_n.try_emplace(key, Vec3::Zero());
      it->second += face_n[i];
    }
  }

  tri_.resize(nt);
  normals_.resize(nt);
  std::vector<Vec3> centroids(nt);
  bounds_.lo = vertices[triangles[0][0]];
  bounds_.hi = bounds_.lo;
  for (std::size_t i = 0; i < nt; ++i) {
    const auto& t = triangles[i];
    tri_[i].a = vertices[t[0]];
    tri_[i].b = vertices[t[1]];
    tri_[i].c = vertices[t[2]];
    tri_[i].lo = tri_[i].a.cwiseMin(tri_[i].b).cwiseMin(tri_[i].c);
    tri_[i].hi = tri_[i].a.cwiseMax(tri_[i].b).cwiseMax(tri_[i].c);
    TriNormals& tn = normals_[i];
    for (int k = 0; k < 3; ++k) {
      tn.n[k] = vertex_n[t[k]];
      const std::pair<int, int> key(std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3]));
      tn.n[3 + k] = edge_n.at(key);
      bounds_.lo = bounds_.lo.cwiseMin(vertices[t[k]]);
      bounds_.hi = bounds_.hi.cwiseMax(vertices[t[k]]);
    }
    tn.n[6] = face_n[i];
    centroids[i] = (tri_[i].a + tri_[i].b + tri_[i].c) / 3.0;
  }
  nodes_.reserve(2 * nt / kLeafSize + 2);
  nodes_.push_back({});
  build(0, static_cast<int>(nt), centroids, 0);
}

// Builds the subtree over tri_[begin, end) into nodes_[index] (already allocated); returns index.
int MeshDistance::build(int begin, int end, std::vector<Vec3>& centroids, int /*depth*/) {
  // Iterative over an explicit work list, so deep trees cannot overflow the stack.
  struct Work {
    int node, begin, end;
  };
  std::vector<Work> work{{0, begin, end}};
  std::vector<int> order;
  while (!work.empty()) {
    const Work w = work.back();
    work.pop_back();
    Vec3 lo = tri_[w.begin].a, hi = lo, clo = centroids[w.begin], chi = clo;
    for (int i = w.begin; i < w.end; ++i) {
      for (const Vec3* v : {&tri_[i].a, &tri_[i].b, &tri_[i].c}) {
        lo = lo.cwiseMin(*v);
        hi = hi.cwiseMax(*v);
      }
      clo = clo.cwiseMin(centroids[i]);
      chi = chi.cwiseMax(centroids[i]);
    }
    nodes_[w.node].lo = lo;
    nodes_[w.node].hi = hi;
    const int n = w.end - w.begin;
    if (n <= kLeafSize) {
      nodes_[w.node].first = w.begin;
      nodes_[w.node].count = n;
      continue;
    }
    int axis = 0;
    const Vec3 ext = chi - clo;
    if (ext.y() > ext[axis]) axis = 1;
    if (ext.z() > ext[axis]) axis = 2;
    const int mid = w.begin + n / 2;
    // Sort a permutation of [begin, end) by centroid (ties by index, so the tree is deterministic).
    order.resize(n);
    std::iota(order.begin(), order.end(), w.begin);
    std::nth_element(order.begin(), order.begin() + n / 2, order.end(), [&](int x, int y) {
      return centroids[x][axis] < centroids[y][axis] || (centroids[x][axis] == centroids[y][axis] && x < y);
    });
    std::vector<Tri> tris(n);
    std::vector<TriNormals> norms(n);
    std::vector<Vec3> cents(n);
    for (int i = 0; i < n; ++i) {
      tris[i] = tri_[order[i]];
      norms[i] = normals_[order[i]];
      cents[i] = centroids[order[i]];
    }
    std::copy(tris.begin(), tris.end(), tri_.begin() + w.begin);
    std::copy(norms.begin(), norms.end(), normals_.begin() + w.begin);
    std::copy(cents.begin(), cents.end(), centroids.begin() + w.begin);
    const int left = static_cast<int>(nodes_.size());
    nodes_.push_back({});
    nodes_.push_back({});
    nodes_[w.node].first = left;
    nodes_[w.node].count = 0;
    work.push_back({left + 1, mid, w.end});
    work.push_back({left, w.begin, mid});
  }
  return 0;
}

ClosestFeature MeshDistance::closest(const Vec3& p, double bound2) const {
  ClosestFeature best;
  best.distance2 = bound2;
  return search(p, best, -1);
}

ClosestFeature MeshDistance::closest_from(const Vec3& p, int hint) const {
  ClosestFeature best;
  best.distance2 = std::numeric_limits<double>::infinity();
  int feature = -1;
  if (hint >= 0 && hint < static_cast<int>(tri_.size())) {
    best.point = closest_on_triangle(p, tri_[hint].a, tri_[hint].b, tri_[hint].c, feature);
    best.distance2 = (p - best.point).squaredNorm();
    best.triangle = hint;
  }
  return search(p, best, feature);
}

ClosestFeature MeshDistance::search(const Vec3& p, ClosestFeature best, int best_feature) const {
  struct Entry {
    int node;
    double d2;
  };
  Entry stack[128];
  int top = 0;
  const double root_d2 = box_distance2(p, nodes_[0].lo, nodes_[0].hi);
  if (root_d2 > best.distance2) return best;
  stack[top++] = {0, root_d2};
  while (top > 0) {
    const Entry e = stack[--top];
    if (e.d2 > best.distance2) continue;
    const Node& node = nodes_[e.node];
    if (node.count > 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        if (box_distance2(p, tri_[i].lo, tri_[i].hi) > best.distance2) continue;
        int feature;
        const Vec3 q = closest_on_triangle(p, tri_[i].a, tri_[i].b, tri_[i].c, feature);
        const double d2 = (p - q).squaredNorm();
        if (d2 < best.distance2 || (d2 == best.distance2 && best.triangle >= 0 && i < best.triangle)) {
          best.distance2 = d2;
          best.point = q;
          best.triangle = i;
          best_feature = feature;
        }
      }
      continue;
    }
    const int l = node.first, r = node.first + 1;
    const double dl = box_distance2(p, nodes_[l].lo, nodes_[l].hi);
    const double dr = box_distance2(p, nodes_[r].lo, nodes_[r].hi);
    // Push the farther child first so the nearer one is visited first.
    if (dl <= dr) {
      if (dr <= best.distance2) stack[top++] = {r, dr};
      if (dl <= best.distance2) stack[top++] = {l, dl};
    } else {
      if (dl <= best.distance2) stack[top++] = {l, dl};
      if (dr <= best.distance2) stack[top++] = {r, dr};
    }
  }
  if (best.triangle >= 0) best.pseudo_normal = normals_[best.triangle].n[best_feature];
  return best;
}

double MeshDistance::signed_distance(const Vec3& p, int* hint) const {
  const ClosestFeature f = closest_from(p, hint ? *hint : -1);
  if (hint) *hint = f.triangle;
  const double d = std::sqrt(f.distance2);
  return (p - f.point).dot(f.pseudo_normal) < 0 ? -d : d;
}

}  // namespace cl::sdf_detail
