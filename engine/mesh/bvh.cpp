#include "mesh/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <unordered_map>

namespace cl {

// ---------------------------------------------------------------------------------------------------------------
// Build

namespace {
Aabb merge(const Aabb& a, const Aabb& b) { return {a.lo.cwiseMin(b.lo), a.hi.cwiseMax(b.hi)}; }
double half_area(const Aabb& b) {
  const Vec3 d = (b.hi - b.lo).cwiseMax(0.0);
  return d.x() * d.y() + d.y() * d.z() + d.z() * d.x();
}
Aabb empty_box() {
  const double inf = std::numeric_limits<double>::infinity();
  return {Vec3(inf, inf, inf), Vec3(-inf, -inf, -inf)};
}
// Slab test; returns entry t or +inf if missed within [0, tmax].
double ray_box(const Aabb& b, const Vec3& o, const Vec3& inv, double tmax) {
  double t0 = 0, t1 = tmax;
  for (int k = 0; k < 3; ++k) {
    double ta = (b.lo[k] - o[k]) * inv[k], tb = (b.hi[k] - o[k]) * inv[k];
    if (std::isnan(ta) || std::isnan(tb)) {  // dir component 0 and origin on the slab plane
      if (o[k] < b.lo[k] || o[k] > b.hi[k]) return std::numeric_limits<double>::infinity();
      continue;
    }
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 > t1) return std::numeric_limits<double>::infinity();
  }
  return t0;
}
}  // namespace

TriangleBvh::TriangleBvh(const TriangleMesh& mesh, int max_leaf_size) : mesh_(mesh) {
  const int nt = (int)mesh_.triangles.size();
  const int nv = (int)mesh_.vertices.size();
  face_normals_.resize(nt);
  vertex_normals_.assign(nv, Vec3::Zero());
  edge_normals_.resize(nt);
  std::unordered_map<std::uint64_t, Vec3> edge_sum;
  edge_sum.reserve(nt * 2);
  auto key = [](int a, int b) {
    if (a > b) std::swap(a, b);
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
  };
  for (int t = 0; t < nt; ++t) {
    const auto& f = mesh_.triangles[t];
    const Vec3 n = mesh_.normal(t);
    face_normals_[t] = n;
    for (int k = 0; k < 3; ++k) {
      const Vec3& p = mesh_.vertices[f[k]];
      const Vec3 e1 = mesh_.vertices[f[(k + 1) % 3]] - p, e2 = mesh_.vertices[f[(k + 2) % 3]] - p;
      const double l = e1.norm() * e2.norm();
      const double angle = l > 0 ? std::acos(std::clamp(e1.dot(e2) / l, -1.0, 1.0)) : 0.0;
      vertex_normals_[f[k]] += angle * n;
      auto it = edge_sum.try_emplace(key(f[k], f[(k + 1) % 3]), Vec3::Zero()).first;  // Eigen does not zero
      it->second += n;
    }
  }
  for (Vec3& n : vertex_normals_) {
    const double l = n.norm();
    n = l > 0 ? Vec3(n / l) : Vec3::Zero();
  }
  for (int t = 0; t < nt; ++t) {
    const auto& f = mesh_.triangles[t];
    for (int k = 0; k < 3; ++k) {
      const Vec3 s = edge_sum[key(f[k], f[(k + 1) % 3])];
      const double l = s.norm();
      edge_normals_[t][k] = l > 0 ? Vec3(s / l) : face_normals_[t];
    }
  }
  if (nt == 0) return;
  order_.resize(nt);
  std::vector<Aabb> boxes(nt);
  std::vector<Vec3> centres(nt);
  for (int t = 0; t < nt; ++t) {
    order_[t] = t;
    const auto& f = mesh_.triangles[t];
    const Vec3 &a = mesh_.vertices[f[0]], &b = mesh_.vertices[f[1]], &c = mesh_.vertices[f[2]];
    boxes[t] = {a.cwiseMin(b).cwiseMin(c), a.cwiseMax(b).cwiseMax(c)};
    centres[t] = (a + b + c) / 3.0;
  }
  nodes_.reserve(2 * nt / std::max(1, max_leaf_size) + 2);
  build(0, nt, std::max(1, max_leaf_size), boxes, centres);
  box_nodes_.resize(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    box_nodes_[i] = {n.box.lo, n.box.hi, n.left, n.right, n.first, n.count};
  }
  distance_nodes_.clear();
  distance_nodes_.reserve(nodes_.size() / 2 + 1);
  distance_depth_ = 0;
  collapse(0, 0);
  distance_slots_.resize(size_t(nt));
  for (int i = 0; i < nt; ++i) {
    const int t = order_[size_t(i)];
    const auto& f = mesh_.triangles[size_t(t)];
    const Vec3 &a = mesh_.vertices[size_t(f[0])], &b = mesh_.vertices[size_t(f[1])], &c = mesh_.vertices[size_t(f[2])];
    distance_slots_[size_t(i)] = {a, b, c, boxes[size_t(t)].lo, boxes[size_t(t)].hi, t};
  }
}

int TriangleBvh::collapse(int b, int depth) {
  distance_depth_ = std::max(distance_depth_, depth);
  const int id = int(distance_nodes_.size());
  distance_nodes_.emplace_back();
  // The node's children: its two binary children, then, while fewer than four, the interior one with the
  // largest box opened into its two.
  int kids[4];
  int n = 0;
  const Node& node = nodes_[size_t(b)];
  if (node.is_leaf()) {
    kids[n++] = b;
  } else {
    kids[n++] = node.left;
    kids[n++] = node.right;
    while (n < 4) {
      int pick = -1;
      double largest = -1.0;
      for (int k = 0; k < n; ++k) {
        const Node& c = nodes_[size_t(kids[k])];
        if (!c.is_leaf() && half_area(c.box) > largest) largest = half_area(c.box), pick = k;
      }
      if (pick < 0) break;
      const Node& c = nodes_[size_t(kids[pick])];
      kids[pick] = c.left;
      kids[n++] = c.right;
    }
  }
  DistanceNode out{};
  for (int k = 0; k < n; ++k) {
    const Node& c = nodes_[size_t(kids[k])];
    for (int a = 0; a < 3; ++a) {
      out.lo[a][k] = float_down(c.box.lo[a]);
      out.hi[a][k] = float_up(c.box.hi[a]);
    }
    if (c.is_leaf()) {
      out.child[k] = c.first;
      out.count[k] = c.count;
    } else {
      out.child[k] = collapse(kids[k], depth + 1);  // may move distance_nodes_: `out` is stored after
      out.count[k] = 0;
    }
    out.valid |= 1 << k;
  }
  distance_nodes_[size_t(id)] = out;
  return id;
}

int TriangleBvh::build(int first, int count, int max_leaf, std::vector<Aabb>& boxes, std::vector<Vec3>& centres) {
  const int id = (int)nodes_.size();
  nodes_.emplace_back();
  Aabb box = empty_box(), cbox = empty_box();
  Vec3 an(0, 0, 0), ac(0, 0, 0);
  double area = 0;
  for (int i = first; i < first + count; ++i) {
    const int t = order_[i];
    box = merge(box, boxes[t]);
    cbox = merge(cbox, {centres[t], centres[t]});
    const Vec3 n2 = mesh_.area_normal(t);
    an += 0.5 * n2;
    const double a = 0.5 * n2.norm();
    ac += a * centres[t];
    area += a;
  }
  Node node;
  node.box = box;
  node.area_normal = an;
  node.centroid = area > 0 ? Vec3(ac / area) : Vec3(0.5 * (box.lo + box.hi));
  double r2 = 0;
  for (int i = first; i < first + count; ++i)
    for (int v : mesh_.triangles[order_[i]]) r2 = std::max(r2, (mesh_.vertices[v] - node.centroid).squaredNorm());
  node.radius = std::sqrt(r2);
  for (int i = first; i < first + count; ++i) {
    const int t = order_[i];
    const Vec3 an2 = 0.5 * mesh_.area_normal(t);
    const double a = an2.norm();
    node.moment += (centres[t] - node.centroid) * an2.transpose();
    if (a == 0) continue;
    const Vec3 n = an2 / a;
    // integral over the triangle of (x - c)(x - c)^T dA = A/12 (sum d_i d_i^T + 9 g g^T), d_i = v_i - c, g = centroid - c
    Mat3 C = Mat3::Zero();
    const Vec3 g = centres[t] - node.centroid;
    for (int v : mesh_.triangles[t]) {
      const Vec3 dv = mesh_.vertices[v] - node.centroid;
      C += dv * dv.transpose();
    }
    C = (a / 12.0) * (C + 9.0 * g * g.transpose());
    for (int k = 0; k < 3; ++k) node.moment2[k] += n[k] * C;
  }
  node.first = first;
  node.count = count;
  int split = -1;
  if (count > max_leaf) {
    // binned SAH on the longest centroid axis
    const Vec3 ext = cbox.hi - cbox.lo;
    int axis = 0;
    if (ext.y() > ext[axis]) axis = 1;
    if (ext.z() > ext[axis]) axis = 2;
    if (ext[axis] > 0) {
      constexpr int kBins = 16;
      Aabb bin_box[kBins];
      int bin_count[kBins] = {};
      for (auto& b : bin_box) b = empty_box();
      const double scale = kBins / ext[axis];
      auto bin_of = [&](int t) { return std::min(kBins - 1, (int)((centres[t][axis] - cbox.lo[axis]) * scale)); };
      for (int i = first; i < first + count; ++i) {
        const int b = bin_of(order_[i]);
        ++bin_count[b];
        bin_box[b] = merge(bin_box[b], boxes[order_[i]]);
      }
      double right_area[kBins];
      int right_count[kBins];
      Aabb acc = empty_box();
      int n = 0;
      for (int b = kBins - 1; b > 0; --b) {
        acc = merge(acc, bin_box[b]);
        n += bin_count[b];
        right_area[b] = n ? half_area(acc) : 0;
        right_count[b] = n;
      }
      acc = empty_box();
      n = 0;
      double best = std::numeric_limits<double>::infinity();
      int best_b = -1;
      for (int b = 1; b < kBins; ++b) {
        acc = merge(acc, bin_box[b - 1]);
        n += bin_count[b - 1];
        if (n == 0 || right_count[b] == 0) continue;
        const double cost = n * half_area(acc) + right_count[b] * right_area[b];
        if (cost < best) best = cost, best_b = b;
      }
      if (best_b > 0) {
        auto mid = std::partition(order_.begin() + first, order_.begin() + first + count,
                                  [&](int t) { return bin_of(t) < best_b; });
        split = (int)(mid - order_.begin());
      }
    }
    if (split <= first || split >= first + count) {  // all centroids equal: median split by index
      split = first + count / 2;
    }
  }
  nodes_[id] = node;
  if (split > 0 && count > max_leaf) {
    const int l = build(first, split - first, max_leaf, boxes, centres);
    const int r = build(split, first + count - split, max_leaf, boxes, centres);
    nodes_[id].left = l;
    nodes_[id].right = r;
  }
  return id;
}

// ---------------------------------------------------------------------------------------------------------------
// Queries

MeshRayHit TriangleBvh::raycast(const Vec3& o, const Vec3& d, double max_t) const {
  MeshRayHit hit;
  if (nodes_.empty() || !all_finite(o) || !all_finite(d) || d.squaredNorm() == 0) return hit;
  const Vec3 inv(1.0 / d.x(), 1.0 / d.y(), 1.0 / d.z());
  double best = max_t;
  std::vector<int> stack;
  stack.reserve(64);
  stack.push_back(0);
  while (!stack.empty()) {
    const Node& n = nodes_[stack.back()];
    stack.pop_back();
    if (ray_box(n.box, o, inv, best) > best) continue;
    if (n.is_leaf()) {
      for (int i = n.first; i < n.first + n.count; ++i) {
        const int t = order_[i];
        const auto& f = mesh_.triangles[t];
        double tt, u, v;
        if (ray_triangle(o, d, mesh_.vertices[f[0]], mesh_.vertices[f[1]], mesh_.vertices[f[2]], 0.0, best, &tt, &u,
                         &v)) {
          if (tt < best || !hit.hit || (tt == best && t < hit.triangle)) {
            best = tt;
            hit.hit = true;
            hit.t = tt;
            hit.triangle = t;
            hit.u = u;
            hit.v = v;
          }
        }
      }
    } else {
      const double tl = ray_box(nodes_[n.left].box, o, inv, best);
      const double tr = ray_box(nodes_[n.right].box, o, inv, best);
      // push the farther first so the nearer is popped first
      if (tl <= tr) {
        if (tr <= best) stack.push_back(n.right);
        if (tl <= best) stack.push_back(n.left);
      } else {
        if (tl <= best) stack.push_back(n.left);
        if (tr <= best) stack.push_back(n.right);
      }
    }
  }
  if (hit.hit) {
    hit.point = o + hit.t * d;
    hit.normal = face_normals_[hit.triangle];
  }
  return hit;
}

// The walk of raycast: a second walk that stopped at the first hit found saved work only for a caller that needs no
// nearest hit, and there is none in the engine or the viewer.
bool TriangleBvh::ray_hits(const Vec3& o, const Vec3& d, double max_t) const { return raycast(o, d, max_t).hit; }

double TriangleBvh::winding_rec(int ni, const Vec3& p, double beta) const {
  const Node& n = nodes_[ni];
  if (beta > 0) {
    const Vec3 r = n.centroid - p;
    const double d = r.norm();
    if (d > beta * n.radius && d > 0) {
      const double d2 = d * d, d3 = d2 * d;
      const double d5 = d3 * d2, d7 = d5 * d2;
      // Taylor expansion of (x - p).n / |x - p|^3 about the centroid, to second order in (x - centroid)
      double third = 0;
      Vec3 u(0, 0, 0), w(0, 0, 0);
      for (int k = 0; k < 3; ++k) {
        third += r[k] * r.dot(n.moment2[k] * r);
        u += n.moment2[k].col(k);
        w[k] = n.moment2[k].trace();
      }
      return r.dot(n.area_normal) / d3 + n.moment.trace() / d3 - 3.0 * r.dot(n.moment * r) / d5 +
             0.5 * (-6.0 * u.dot(r) / d5 - 3.0 * w.dot(r) / d5 + 15.0 * third / d7);
    }
  }
  if (n.is_leaf()) {
    double s = 0;
    for (int i = n.first; i < n.first + n.count; ++i) {
      const auto& f = mesh_.triangles[order_[i]];
      s += triangle_solid_angle(p, mesh_.vertices[f[0]], mesh_.vertices[f[1]], mesh_.vertices[f[2]]);
    }
    return s;
  }
  return winding_rec(n.left, p, beta) + winding_rec(n.right, p, beta);
}

double TriangleBvh::winding_number(const Vec3& p, double beta) const {
  if (nodes_.empty()) return 0;
  return winding_rec(0, p, beta) / (4.0 * std::numbers::pi);
}

std::vector<std::pair<int, int>> TriangleBvh::overlapping_triangles(const Vec3& pos_a, const Quat& rot_a,
                                                                    const TriangleBvh& other, const Vec3& pos_b,
                                                                    const Quat& rot_b, bool first_only) const {
  std::vector<std::pair<int, int>> out;
  if (nodes_.empty() || other.nodes_.empty()) return out;
  // B's model frame into A's model frame: x_a = R x_b + t
  const Quat qa = rot_a.normalized(), qb = rot_b.normalized();
  const Mat3 R = (qa.conjugate() * qb).toRotationMatrix();
  const Vec3 t = qa.conjugate() * (pos_b - pos_a);
  const Mat3 absR = R.cwiseAbs();
  const auto& mb = other.mesh_;
  std::vector<std::pair<int, int>> stack{{0, 0}};
  while (!stack.empty()) {
    const auto [ia, ib] = stack.back();
    stack.pop_back();
    const Node& na = nodes_[ia];
    const Node& nb = other.nodes_[ib];
    const Vec3 c = R * (0.5 * (nb.box.lo + nb.box.hi)) + t;
    const Vec3 h = absR * (0.5 * (nb.box.hi - nb.box.lo));
    const Aabb bb{c - h, c + h};
    if (!na.box.overlaps(bb)) continue;
    if (na.is_leaf() && nb.is_leaf()) {
      for (int i = na.first; i < na.first + na.count; ++i) {
        const auto& fa = mesh_.triangles[order_[i]];
        for (int j = nb.first; j < nb.first + nb.count; ++j) {
          const auto& fb = mb.triangles[other.order_[j]];
          const Vec3 b0 = R * mb.vertices[fb[0]] + t, b1 = R * mb.vertices[fb[1]] + t, b2 = R * mb.vertices[fb[2]] + t;
          if (triangles_overlap(mesh_.vertices[fa[0]], mesh_.vertices[fa[1]], mesh_.vertices[fa[2]], b0, b1, b2)) {
            out.emplace_back(order_[i], other.order_[j]);
            if (first_only) return out;
          }
        }
      }
    } else if (nb.is_leaf() || (!na.is_leaf() && half_area(na.box) >= half_area(nb.box))) {
      stack.emplace_back(na.right, ib);
      stack.emplace_back(na.left, ib);
    } else {
      stack.emplace_back(ia, nb.right);
      stack.emplace_back(ia, nb.left);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cl
