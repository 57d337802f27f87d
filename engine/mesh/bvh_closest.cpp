#include "mesh/bvh.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cl {

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
// function's bit for bit (mesh/bvh_closest.cpp and mesh/triangle.cpp are compiled without fused multiply-adds,
// engine/CMakeLists.txt). A lane whose
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

}  // namespace cl
