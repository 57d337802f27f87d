#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <cmath>

#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

namespace {

// What the exact kernels integrate, drawn as the images would see it (Fig. 1): along each axis, the part inside
// both shapes of every ray through a pixel centre of the world-anchored grid over the shapes' common bounding
// box, kept as IntervalCapture keeps the images' (every stride-th pixel, the smallest stride under the limit).
void capture_exact(const vg::PosedShape& a, const vg::PosedShape& b, const Aabb& box, double s, long limit,
                   ldi::IntervalCapture& out) {
  out.clear();
  out.pixel_size = s;
  for (int w = 0; w < 3; ++w) {
    const int u = ldi::u_axis(w), v = ldi::v_axis(w);
    const long i0 = long(std::ceil(box.lo[u] / s - 0.5)), i1 = long(std::floor(box.hi[u] / s - 0.5));
    const long j0 = long(std::ceil(box.lo[v] / s - 0.5)), j1 = long(std::floor(box.hi[v] / s - 0.5));
    std::vector<std::array<Vec3, 2>> all;
    std::vector<std::array<long, 2>> index;
    for (long j = j0; j <= j1; ++j)
      for (long i = i0; i <= i1; ++i) {
        Vec3 origin = Vec3::Zero();
        origin[u] = (double(i) + 0.5) * s;
        origin[v] = (double(j) + 0.5) * s;
        double a0, a1, b0, b1;
        if (!vg::line_inside(a, origin, w, a0, a1) || !vg::line_inside(b, origin, w, b0, b1)) continue;
        const double lo = std::max(a0, b0), hi = std::min(a1, b1);
        if (!(hi > lo)) continue;
        Vec3 p = origin, q = origin;
        p[w] = lo;
        q[w] = hi;
        all.push_back({p, q});
        index.push_back({i, j});
      }
    const long total = long(all.size());
    int stride = 1;
    while (total / (long(stride) * stride) > limit) ++stride;
    out.total[size_t(w)] = total;
    out.stride[size_t(w)] = stride;
    for (size_t k = 0; k < all.size(); ++k)
      if (index[k][0] % stride == 0 && index[k][1] % stride == 0) out.segments[size_t(w)].push_back(all[k]);
  }
}

}  // namespace

// The pair's volumes again, in the caller's workspace with the intervals captured, at the given poses and with
// the settings compute_pair() uses; the constraints made from them exactly as compute_pair() makes them.
void VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib, const Settings& set, long limit,
                                 MeshCache& meshes, Workspace& ws, PairGeometry& out) {
  out = PairGeometry{};
  limit = std::max<long>(1, limit);
  const PairVolumes v = pair_volumes(bodies, ia, ib, set, limit, meshes, ws);
  if (!v.mono) return;
  const Body& A = bodies[size_t(ia)];
  const Body& B = bodies[size_t(ib)];
  if (v.exact) {
    // The intervals sampled at pixel centres; the gradient's terms of the pieces of each body's part of the
    // boundary (a face of a polyhedron, a disk, a cap), at their centroids.
    const vg::PosedShape a{&A.shape, A.position, A.rotation()}, b{&B.shape, B.position, B.rotation()};
    Aabb box = shape_aabb(A.shape, A.position, A.orientation);
    const Aabb other = shape_aabb(B.shape, B.position, B.orientation);
    box.lo = box.lo.cwiseMax(other.lo);
    box.hi = box.hi.cwiseMin(other.hi);
    capture_exact(a, b, box, set.pixel_size, limit, out.intervals);
    for (int s = 0; s < 2; ++s)
      for (const vg::BoundaryTerm& t : ws.exact_result.boundary[size_t(s)])
        if (!t.gradient.isZero(0.0)) out.gradients[size_t(s)].push_back({t.position, t.gradient});
  } else {
    out.intervals = ws.images.capture;
    for (int s = 0; s < 2; ++s)
      for (const ldi::VertexGradient& g : ws.images.mono.body[s].gradient)
        if (!g.gradient.isZero(0.0))
          out.gradients[size_t(s)].push_back({ws.vertices[size_t(s)][size_t(g.vertex)], g.gradient});
  }
  make_constraints(v, set, A.position, B.position, ws, out.constraints, &out);
}

VolumeSolver::PairGeometry VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib,
                                                       long max_intervals_per_axis) const {
  PairGeometry out;
  if (ia < 0 || ia >= ib || ib >= int(bodies.size())) return out;
  MeshCache meshes;  // the call's own: nothing the solver keeps changes
  Workspace ws;
  pair_geometry(bodies, ia, ib, settings(), max_intervals_per_axis, meshes, ws, out);
  return out;
}

namespace {
DebugColor with_alpha(DebugColor c, float alpha) {
  c[3] = alpha;
  return c;
}
}  // namespace

void VolumeSolver::draw_debug(const DebugScene& scene, DebugDraw& draw) const {
  const DebugRequest& request = draw.request;
  const bool volumes = request.wants(kDebugVolumes), gradients = request.wants(kDebugVolumeGradients),
             cells = request.wants(kDebugVolumeCells);
  if (!volumes && !gradients && !cells) return;
  const Settings set = settings();
  const long limit = std::max<long>(1, request.max_intervals_per_axis);
  MeshCache meshes;  // the call's own workspace: nothing the solver keeps changes
  Workspace ws;
  // Every pair's geometry first, then each layer over all pairs, so that a later layer is drawn over the
  // earlier ones everywhere.
  const int n = int(scene.bodies.size());
  std::vector<BodyPair> pairs;
  std::vector<PairGeometry> geometry;
  for (const BodyPair& pair : scene.pairs) {
    if (pair.a < 0 || pair.a >= pair.b || pair.b >= n) continue;
    pairs.push_back(pair);
    pair_geometry(scene.bodies, pair.a, pair.b, set, limit, meshes, ws, geometry.emplace_back());
  }
  std::array<long, 3> total{0, 0, 0}, drawn{0, 0, 0};
  int stride = 1;
  size_t constraints = 0, cell_count = 0;
  for (const PairGeometry& g : geometry) {
    constraints += g.constraints.size();
    cell_count += g.cells.size();
    for (size_t w = 0; w < 3; ++w) {
      total[w] += g.intervals.total[w];
      drawn[w] += long(g.intervals.segments[w].size());
      stride = std::max(stride, g.intervals.stride[w]);
    }
  }
  // 1. Intersection volumes (eq. 11, Fig. 1): every interval as a segment along its image axis. The axes'
  // segments are interleaved and half transparent, so where they overlap the colours mix instead of the last
  // axis covering the others.
  if (volumes) {
    const int axes = int(request.volume_axes[0]) + request.volume_axes[1] + request.volume_axes[2];
    const float alpha = axes > 1 ? 0.5f : 0.8f;
    for (const PairGeometry& g : geometry) {
      const auto& segments = g.intervals.segments;
      const size_t most = std::max({segments[0].size(), segments[1].size(), segments[2].size()});
      for (size_t k = 0; k < most; ++k)
        for (size_t w = 0; w < 3; ++w)
          if (request.volume_axes[w] && k < segments[w].size())
            draw.line(segments[w][k][0], segments[w][k][1], with_alpha(debug_colors::kAxes[w], alpha));
    }
  }
  // 2. Vertex gradients dV/dp_k of the pair's whole volume (eq. 12-14): the largest of the pair drawn
  // gradient_length long, the others in proportion (a coarse box puts a whole face's share on a corner, a fine
  // mesh spreads it over many vertices: one scale for all pairs would shrink the fine ones to dots). A plane's
  // are left out: its mesh is the stand-in box, whose far corners would carry the largest arrows and mean
  // nothing (the plane never moves).
  if (gradients) {
    for (size_t k = 0; k < pairs.size(); ++k) {
      const PairGeometry& g = geometry[k];
      bool shown[2];
      double largest = 0.0;
      for (int s = 0; s < 2; ++s) {
        shown[s] = scene.bodies[size_t(s == 0 ? pairs[k].a : pairs[k].b)].shape.type != ShapeType::Plane;
        if (shown[s])
          for (const DebugArrow& a : g.gradients[size_t(s)]) largest = std::max(largest, a.gradient.norm());
      }
      if (!(largest > 0.0) || !std::isfinite(largest)) continue;
      const double scale = request.gradient_length / largest;
      for (int s = 0; s < 2; ++s) {
        if (!shown[s]) continue;
        const DebugColor& color = s == 0 ? debug_colors::kFirstBody : debug_colors::kSecondBody;
        for (const DebugArrow& a : g.gradients[size_t(s)]) {
          draw.arrow(a.position, a.position + scale * a.gradient, color);
          draw.point(a.position, with_alpha(color, 0.8f));
        }
      }
    }
  }
  // 3. The grid cells that hold a constraint (sect. 5), each constraint's frame at its position (normal, and
  // tangents), and the normal and friction impulses of the pair's contacts in the last step.
  if (cells) {
    const DebugColor cell_color = with_alpha(debug_colors::kCell, 0.55f);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const PairGeometry& g = geometry[k];
      for (const Aabb& box : g.cell_boxes) {
        const Vec3 size = box.hi - box.lo;
        auto corner = [&](int i) {
          return Vec3(box.lo + Vec3((i & 1) ? size.x() : 0, (i & 2) ? size.y() : 0, (i & 4) ? size.z() : 0));
        };
        for (int i = 0; i < 8; ++i)
          for (int bit = 1; bit < 8; bit <<= 1)
            if ((i & bit) == 0) draw.line(corner(i), corner(i | bit), cell_color);
      }
      for (const Constraint& c : g.constraints) {
        const double frame = std::clamp(0.5 * std::sqrt(std::max(c.area, 0.0)), 0.02, 1.0);
        Vec3 t1, t2;
        tangent_basis(c.normal, t1, t2);
        draw.line(c.position, c.position + frame * c.normal, debug_colors::kNormal);
        draw.line(c.position, c.position + 0.6 * frame * t1, debug_colors::kTangent);
        draw.line(c.position, c.position + 0.6 * frame * t2, debug_colors::kTangent);
        draw.point(c.position, debug_colors::kCell);
      }
      // The impulses of the pair's contacts in the last step, at the contacts (sorted by pair).
      auto it = std::lower_bound(scene.contacts.begin(), scene.contacts.end(), pairs[k],
                                 [](const Contact& x, const BodyPair& key) { return BodyPair{x.a, x.b} < key; });
      for (; it != scene.contacts.end() && it->a == pairs[k].a && it->b == pairs[k].b; ++it) {
        draw.arrow(it->position, it->position + request.impulse_scale * it->normal_impulse * it->normal,
                   debug_colors::kNormalImpulse);
        if (it->friction_impulse.norm() * request.impulse_scale > 1e-6)
          draw.arrow(it->position, it->position + request.impulse_scale * it->friction_impulse,
                     debug_colors::kFrictionImpulse);
      }
    }
  }
  draw.note("pairs", double(pairs.size()));
  draw.note("constraints", double(constraints));
  draw.note("cells", double(cell_count));
  draw.note("intervals x", double(total[0]));
  draw.note("intervals y", double(total[1]));
  draw.note("intervals z", double(total[2]));
  if (stride > 1) {
    draw.note("drawn x", double(drawn[0]));
    draw.note("drawn y", double(drawn[1]));
    draw.note("drawn z", double(drawn[2]));
    draw.note("pixel stride", double(stride));
  }
}

}  // namespace cl
