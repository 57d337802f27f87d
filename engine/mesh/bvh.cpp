#include "mesh/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <unordered_map>

namespace cl {

// ---------------------------------------------------------------------------------------------------------------
// Primitive tests

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

bool TriangleBvh::ray_hits(const Vec3& o, const Vec3& d, double max_t) const {
  if (nodes_.empty() || !all_finite(o) || !all_finite(d) || d.squaredNorm() == 0) return false;
  const Vec3 inv(1.0 / d.x(), 1.0 / d.y(), 1.0 / d.z());
  std::vector<int> stack;
  stack.reserve(64);
  stack.push_back(0);
  while (!stack.empty()) {
    const Node& n = nodes_[stack.back()];
    stack.pop_back();
    if (ray_box(n.box, o, inv, max_t) > max_t) continue;
    if (n.is_leaf()) {
      for (int i = n.first; i < n.first + n.count; ++i) {
        const auto& f = mesh_.triangles[order_[i]];
        double tt;
        if (ray_triangle(o, d, mesh_.vertices[f[0]], mesh_.vertices[f[1]], mesh_.vertices[f[2]], 0.0, max_t, &tt,
                         nullptr, nullptr))
          return true;
      }
    } else {
      stack.push_back(n.right);
      stack.push_back(n.left);
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Closest points: four points per walk of the tree

namespace {
// The search's lanes as GCC/Clang vectors (one instruction per operation where the target's registers are that
// wide, else two or four): a child box's float distance to each of the four points (F4), the four children's
// distances to the four points (F16, child fastest: [4 * point + child]), the points' coordinates and squared
// distances in double (D4), and the masks their comparisons give (I4, I16, L4).
typedef float F4 __attribute__((vector_size(16)));
typedef int I4 __attribute__((vector_size(16)));
typedef float F16 __attribute__((vector_size(64)));
typedef int I16 __attribute__((vector_size(64)));
typedef double D4 __attribute__((vector_size(32)));
typedef long long L4 __attribute__((vector_size(32)));

inline bool any(const I4& m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
inline bool any(const L4& m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }

// Which case of closest_point_on_triangle a lane took: the vertices a, b, c (0, 1, 3), the edges ab, ca, bc
// (2, 4, 5) and the face (6), numbered in the order the scalar function tries them.
constexpr long long kRegionFace = 6;

// The best triangle so far of each of the four points: squared distance, triangle (kNone for none: any tie
// goes to a triangle), the case of closest_point_on_triangle it took, and the closest point.
constexpr long long kNone = std::numeric_limits<long long>::max();
struct LaneBest {
  D4 d2;
  L4 triangle;
  L4 region;
  D4 q[3];
};

// Closest points of triangle (a, b, c) to the four points p: lane by lane the operations of
// closest_point_on_triangle (Ericson 5.1.5), in the same order, each of its seven cases computed and the first
// that holds chosen by masks instead of branches. So each lane's point and squared distance are the scalar
// function's bit for bit (mesh/bvh.cpp is compiled without fused multiply-adds, CMakeLists.txt). A lane whose
// `allow` is clear, or whose distance is larger than its best's (or equal with a larger index: ties go to the
// lower triangle index), keeps its best. Returns whether any lane's best changed.
[[gnu::always_inline]] inline bool closest_on_triangle_lanes(const Vec3& a, const Vec3& b, const Vec3& c, long long t,
                                                             const D4 (&p)[3], const L4& allow, LaneBest& best) {
  const double abx = b.x() - a.x(), aby = b.y() - a.y(), abz = b.z() - a.z();
  const double acx = c.x() - a.x(), acy = c.y() - a.y(), acz = c.z() - a.z();
  const D4 apx = p[0] - a.x(), apy = p[1] - a.y(), apz = p[2] - a.z();
  const D4 d1 = abx * apx + aby * apy + abz * apz;
  const D4 d2 = acx * apx + acy * apy + acz * apz;
  const D4 bpx = p[0] - b.x(), bpy = p[1] - b.y(), bpz = p[2] - b.z();
  const D4 d3 = abx * bpx + aby * bpy + abz * bpz;
  const D4 d4 = acx * bpx + acy * bpy + acz * bpz;
  const D4 vc = d1 * d4 - d3 * d2;
  const D4 cpx = p[0] - c.x(), cpy = p[1] - c.y(), cpz = p[2] - c.z();
  const D4 d5 = abx * cpx + aby * cpy + abz * cpz;
  const D4 d6 = acx * cpx + acy * cpy + acz * cpz;
  const D4 vb = d5 * d2 - d1 * d6;
  const D4 va = d3 * d6 - d5 * d4;
  const D4 zero = D4{};
  // The face: (a + ab v) + ac w.
  const D4 denom = 1.0 / (va + vb + vc);
  const D4 fv = vb * denom, fw = vc * denom;
  D4 qx = (a.x() + abx * fv) + acx * fw;
  D4 qy = (a.y() + aby * fv) + acy * fw;
  D4 qz = (a.z() + abz * fv) + acz * fw;
  L4 region = L4{} + kRegionFace;
  // The cases from the last tried to the first, each overriding the ones after it where it holds.
  auto take = [&](const L4& holds, const D4& x, const D4& y, const D4& z, long long code) {
    qx = holds ? x : qx;
    qy = holds ? y : qy;
    qz = holds ? z : qz;
    region = holds ? L4{} + code : region;
  };
  const L4 on_bc = (va <= zero) & ((d4 - d3) >= zero) & ((d5 - d6) >= zero);
  const D4 w_bc = (d4 - d3) / ((d4 - d3) + (d5 - d6));
  take(on_bc, b.x() + w_bc * (c.x() - b.x()), b.y() + w_bc * (c.y() - b.y()), b.z() + w_bc * (c.z() - b.z()), 5);
  const L4 on_ca = (vb <= zero) & (d2 >= zero) & (d6 <= zero);
  const D4 w_ca = d2 / (d2 - d6);
  take(on_ca, a.x() + w_ca * acx, a.y() + w_ca * acy, a.z() + w_ca * acz, 4);
  take((d6 >= zero) & (d5 <= d6), D4{} + c.x(), D4{} + c.y(), D4{} + c.z(), 3);  // at c
  const L4 on_ab = (vc <= zero) & (d1 >= zero) & (d3 <= zero);
  const D4 v_ab = d1 / (d1 - d3);
  take(on_ab, a.x() + v_ab * abx, a.y() + v_ab * aby, a.z() + v_ab * abz, 2);
  take((d3 >= zero) & (d4 <= d3), D4{} + b.x(), D4{} + b.y(), D4{} + b.z(), 1);  // at b
  take((d1 <= zero) & (d2 <= zero), D4{} + a.x(), D4{} + a.y(), D4{} + a.z(), 0);  // at a
  // (q - p).squaredNorm()
  const D4 ex = qx - p[0], ey = qy - p[1], ez = qz - p[2];
  const D4 dist2 = ex * ex + ey * ey + ez * ez;
  const L4 tv = L4{} + t;
  const L4 better = allow & ((dist2 < best.d2) | ((dist2 == best.d2) & (tv < best.triangle)));
  if (!any(better)) return false;
  best.d2 = better ? dist2 : best.d2;
  best.triangle = better ? tv : best.triangle;
  best.region = better ? region : best.region;
  best.q[0] = better ? qx : best.q[0];
  best.q[1] = better ? qy : best.q[1];
  best.q[2] = better ? qz : best.q[2];
  return true;
}

// The walk is compiled for x86-64-v3 (AVX2) and v4 (AVX-512) as well where GCC can pick the version at load
// time; all versions compute the same values (no fused multiply-adds in this file).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CL_BVH_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CL_BVH_CLONES
#endif
}  // namespace

// The search's loop, a friend of TriangleBvh for its four-wide nodes and leaf slots.
struct ClosestWalk {
  using Node = TriangleBvh::DistanceNode;
  using Slot = TriangleBvh::DistanceSlot;
  // The search's state in and out, in plain arrays (the vectors stay inside the compiled versions of the walk).
  struct Lanes {
    double d2[4];
    long long triangle[4];
    long long region[4];
    double q[3][4];
  };
  static void walk(const Node* nodes, const Slot* slots, int depth, const std::array<Vec3, 4>& p,
                   const Slot* hints, int hint_count, Lanes& lanes);
};

namespace {
// Nearer children first; a subtree whose box is farther from every point than that point's best so far is
// skipped (a box at exactly that distance is searched: it may hold a tie with a lower triangle index). Which
// triangle wins for a point does not depend on the visiting order: the least distance, ties to the lower index.
//
// The boxes are floats rounded outwards and the points are rounded to floats, so a box's computed squared
// distance may exceed its exact one by the rounding of p (at most 2^-24 |p| per coordinate) and of the float
// arithmetic (a few 2^-24 relative). A subtree is skipped for a point only when its computed distance is beyond
// the point's best distance grown by `slack` (1e-6 (1 + |p|), over five times that rounding) and by a factor
// 1 + 1e-6 on the square: never a box the exact test would search. A triangle is tested for the points whose
// best its box (in double) does not exceed, and in double, so every result is exact.
CL_BVH_CLONES void closest_walk(const ClosestWalk::Node* nodes, const ClosestWalk::Slot* slots, int depth,
                                const std::array<Vec3, 4>& p, const ClosestWalk::Slot* hints, int hint_count,
                                ClosestWalk::Lanes& lanes) {
  struct Entry {
    F4 d2;             // the box's squared distance to each point
    float key;         // the least of them: the order of the search
    int child, count;  // count 0: interior node `child`; else leaf slots [child, child + count)
  };
  // Each step pops one entry and pushes at most four: the stack holds at most three per level plus one.
  constexpr int kLocal = 160;
  Entry local[kLocal];
  thread_local std::vector<Entry> heap;
  Entry* stack = local;
  if (3 * depth + 4 > kLocal) {
    heap.resize(3 * size_t(depth) + 4);
    stack = heap.data();
  }
  const D4 pd[3] = {D4{p[0].x(), p[1].x(), p[2].x(), p[3].x()}, D4{p[0].y(), p[1].y(), p[2].y(), p[3].y()},
                    D4{p[0].z(), p[1].z(), p[2].z(), p[3].z()}};
  F16 pf[3];  // [4 * point + child]: the points' coordinates as floats, each repeated for the four children
  for (int a = 0; a < 3; ++a)
    for (int l = 0; l < 4; ++l)
      for (int k = 0; k < 4; ++k) pf[a][4 * l + k] = float(p[size_t(l)][a]);
  double slack[4];
  for (int l = 0; l < 4; ++l) slack[l] = 1e-6 * (1.0 + p[size_t(l)].cwiseAbs().maxCoeff());

  LaneBest best;
  std::memcpy(&best.d2, lanes.d2, sizeof best.d2);
  std::memcpy(&best.triangle, lanes.triangle, sizeof best.triangle);
  std::memcpy(&best.region, lanes.region, sizeof best.region);
  for (int a = 0; a < 3; ++a) std::memcpy(&best.q[a], lanes.q[a], sizeof best.q[a]);
  const L4 all = L4{} - 1;
  for (int h = 0; h < hint_count; ++h)
    closest_on_triangle_lanes(hints[h].a, hints[h].b, hints[h].c, hints[h].triangle, pd, all, best);

  const double inf = std::numeric_limits<double>::infinity();
  F4 bound{};
  F16 bound16{};
  bool stale = true;  // `bound` is out of date with best.d2
  const F16 zero16 = F16{};
  int top = 0;
  stack[top++] = {F4{}, 0.0f, 0, 0};
  while (top > 0) {
    const Entry e = stack[--top];
    if (stale) {
      for (int l = 0; l < 4; ++l) {
        const double r = std::sqrt(best.d2[l]) + slack[l];
        bound[l] = best.d2[l] < inf ? float_up(r * r * (1.0 + 1e-6)) : std::numeric_limits<float>::infinity();
      }
      bound16 = __builtin_shufflevector(bound, bound, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
      stale = false;
    }
    if (!any(e.d2 <= bound)) continue;
    if (e.count > 0) {
      for (int i = e.child; i < e.child + e.count; ++i) {
        const ClosestWalk::Slot& s = slots[i];
        // The squared distance of the triangle's box (double) to each point, max(lo - p, p - hi, 0) squared
        // and summed x, y, z: a lower bound of the triangle's that spares the triangle test.
        D4 box2 = D4{};
        for (int a = 0; a < 3; ++a) {
          const D4 below = s.lo[a] - pd[a], above = pd[a] - s.hi[a];
          D4 d = below < above ? above : below;
          d = d < D4{} ? D4{} : d;
          box2 = a == 0 ? d * d : box2 + d * d;
        }
        const L4 allow = box2 <= best.d2;
        if (any(allow) && closest_on_triangle_lanes(s.a, s.b, s.c, s.triangle, pd, allow, best)) stale = true;
      }
      continue;
    }
    const ClosestWalk::Node& n = nodes[e.child];
    // The four children's squared box distances to the four points, axis by axis.
    F16 d2 = zero16;
    for (int a = 0; a < 3; ++a) {
      const float* l = n.lo[a];
      const float* h = n.hi[a];
      const F16 lo = {l[0], l[1], l[2], l[3], l[0], l[1], l[2], l[3], l[0], l[1], l[2], l[3], l[0], l[1], l[2], l[3]};
      const F16 hi = {h[0], h[1], h[2], h[3], h[0], h[1], h[2], h[3], h[0], h[1], h[2], h[3], h[0], h[1], h[2], h[3]};
      F16 d = lo - pf[a] > pf[a] - hi ? lo - pf[a] : pf[a] - hi;
      d = d > zero16 ? d : zero16;
      d2 += d * d;
    }
    const I16 near16 = d2 <= bound16;
    const I4 near = __builtin_shufflevector(near16, near16, 0, 1, 2, 3) |
                    __builtin_shufflevector(near16, near16, 4, 5, 6, 7) |
                    __builtin_shufflevector(near16, near16, 8, 9, 10, 11) |
                    __builtin_shufflevector(near16, near16, 12, 13, 14, 15);
    const F4 by_child[4] = {__builtin_shufflevector(d2, d2, 0, 4, 8, 12),
                            __builtin_shufflevector(d2, d2, 1, 5, 9, 13),
                            __builtin_shufflevector(d2, d2, 2, 6, 10, 14),
                            __builtin_shufflevector(d2, d2, 3, 7, 11, 15)};
    // The children near any point, pushed farthest first so that the nearest is searched first.
    Entry kids[4];
    int m = 0;
    for (int k = 0; k < 4; ++k) {
      if (!(n.valid >> k & 1) || !near[k]) continue;
      const F4 dk = by_child[k];
      const Entry x{dk, std::min(std::min(dk[0], dk[1]), std::min(dk[2], dk[3])), n.child[k], n.count[k]};
      int at = m++;
      while (at > 0 && kids[at - 1].key < x.key) {
        kids[at] = kids[at - 1];
        --at;
      }
      kids[at] = x;
    }
    for (int k = 0; k < m; ++k) {
      // The memory the entry's search reads first, asked for now: its node or its leaf's triangles.
      const char* at = kids[k].count > 0 ? reinterpret_cast<const char*>(slots + kids[k].child)
                                         : reinterpret_cast<const char*>(nodes + kids[k].child);
      const int bytes =
          kids[k].count > 0 ? kids[k].count * int(sizeof(ClosestWalk::Slot)) : int(sizeof(ClosestWalk::Node));
      for (int b = 0; b < bytes; b += 64) __builtin_prefetch(at + b);
      stack[top++] = kids[k];
    }
  }

  std::memcpy(lanes.d2, &best.d2, sizeof best.d2);
  std::memcpy(lanes.triangle, &best.triangle, sizeof best.triangle);
  std::memcpy(lanes.region, &best.region, sizeof best.region);
  for (int a = 0; a < 3; ++a) std::memcpy(lanes.q[a], &best.q[a], sizeof best.q[a]);
}
}  // namespace

void ClosestWalk::walk(const Node* nodes, const Slot* slots, int depth, const std::array<Vec3, 4>& p,
                       const Slot* hints, int hint_count, Lanes& lanes) {
  closest_walk(nodes, slots, depth, p, hints, hint_count, lanes);
}

void TriangleBvh::closest_search(const std::array<Vec3, 4>& p, const std::array<double, 4>& max_d2,
                                 const std::array<int, 4>& hints, std::array<ClosestPoint, 4>& out) const {
  for (ClosestPoint& c : out) {
    c = ClosestPoint{};
    c.distance = std::numeric_limits<double>::infinity();
  }
  // A point that is not finite finds nothing; its lane searches for a finite point's instead.
  int finite = -1;
  for (int l = 3; l >= 0; --l)
    if (all_finite(p[size_t(l)])) finite = l;
  if (nodes_.empty() || finite < 0) return;
  std::array<Vec3, 4> q = p;
  for (Vec3& x : q)
    if (!all_finite(x)) x = p[size_t(finite)];
  // The hint triangles (each once), tested for every point before the walk.
  DistanceSlot start[4];
  int starts = 0;
  const int nt = int(mesh_.triangles.size());
  for (int h : hints) {
    if (h < 0 || h >= nt) continue;
    bool seen = false;
    for (int k = 0; k < starts; ++k) seen = seen || start[k].triangle == h;
    if (seen) continue;
    const auto& f = mesh_.triangles[size_t(h)];
    start[starts++] = {mesh_.vertices[size_t(f[0])], mesh_.vertices[size_t(f[1])], mesh_.vertices[size_t(f[2])],
                       Vec3::Zero(), Vec3::Zero(), h};
  }
  ClosestWalk::Lanes lanes;
  for (int l = 0; l < 4; ++l) {
    lanes.d2[l] = max_d2[size_t(l)];
    lanes.triangle[l] = kNone;
    lanes.region[l] = 0;
    for (int a = 0; a < 3; ++a) lanes.q[a][l] = 0;
  }
  ClosestWalk::walk(distance_nodes_.data(), distance_slots_.data(), distance_depth_, q, start, starts, lanes);
  for (int l = 0; l < 4; ++l) {
    if (!all_finite(p[size_t(l)]) || lanes.triangle[l] == kNone) continue;
    ClosestPoint& c = out[size_t(l)];
    const int t = int(lanes.triangle[l]);
    c.triangle = t;
    c.point = Vec3(lanes.q[0][l], lanes.q[1][l], lanes.q[2][l]);
    c.distance = std::sqrt(lanes.d2[l]);
    // The case closest_point_on_triangle took: 0, 1, 3 the corners 0, 1, 2; 2, 5, 4 the edges 0, 1, 2.
    switch (lanes.region[l]) {
      case 0: c.feature = TriangleFeature::Vertex, c.feature_index = mesh_.triangles[size_t(t)][0]; break;
      case 1: c.feature = TriangleFeature::Vertex, c.feature_index = mesh_.triangles[size_t(t)][1]; break;
      case 3: c.feature = TriangleFeature::Vertex, c.feature_index = mesh_.triangles[size_t(t)][2]; break;
      case 2: c.feature = TriangleFeature::Edge, c.feature_index = 0; break;
      case 5: c.feature = TriangleFeature::Edge, c.feature_index = 1; break;
      case 4: c.feature = TriangleFeature::Edge, c.feature_index = 2; break;
      default: c.feature = TriangleFeature::Face, c.feature_index = -1; break;
    }
    switch (c.feature) {
      case TriangleFeature::Face: c.pseudo_normal = face_normals_[size_t(t)]; break;
      case TriangleFeature::Edge: c.pseudo_normal = edge_normals_[size_t(t)][size_t(c.feature_index)]; break;
      case TriangleFeature::Vertex: c.pseudo_normal = vertex_normals_[size_t(c.feature_index)]; break;
    }
  }
}

namespace {
// The sign from the pseudo-normal at the closest feature: negative inside a closed outward mesh.
double signed_of(const Vec3& p, const ClosestPoint& c) {
  if (c.triangle < 0) return c.distance;
  return (p - c.point).dot(c.pseudo_normal) < 0 ? -c.distance : c.distance;
}
}  // namespace

ClosestPoint TriangleBvh::closest_point(const Vec3& p) const {
  return closest_point(p, std::numeric_limits<double>::infinity());
}

ClosestPoint TriangleBvh::closest_point(const Vec3& p, double max_distance) const {
  std::array<ClosestPoint, 4> out;
  const double m2 = max_distance * max_distance;
  closest_search({p, p, p, p}, {m2, m2, m2, m2}, {-1, -1, -1, -1}, out);
  return out[0];
}

void TriangleBvh::closest_points_from(const std::array<Vec3, 4>& p, const std::array<int, 4>& hints,
                                      std::array<ClosestPoint, 4>& out) const {
  const double inf = std::numeric_limits<double>::infinity();
  closest_search(p, {inf, inf, inf, inf}, hints, out);
}

double TriangleBvh::signed_distance(const Vec3& p) const { return signed_of(p, closest_point(p)); }

void TriangleBvh::signed_distances(const std::array<Vec3, 4>& p, std::array<int, 4>& hints,
                                   std::array<double, 4>& out) const {
  std::array<ClosestPoint, 4> c;
  closest_points_from(p, hints, c);
  for (size_t l = 0; l < 4; ++l) {
    hints[l] = c[l].triangle;
    out[l] = signed_of(p[l], c[l]);
  }
}

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
