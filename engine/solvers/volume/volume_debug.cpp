#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <cmath>

#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

// The pair's images again, in the caller's workspace with the intervals captured, at the given poses and with
// the options compute_pair() uses; the constraints made from them exactly as compute_pair() makes them.
void VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib, const Settings& set, long limit,
                                 MeshCache& meshes, ldi::IntersectionVolume& ldi, ldi::VolumeResult& result,
                                 PairGeometry& out) {
  out = PairGeometry{};
  const Body& A = bodies[size_t(ia)];
  const Body& B = bodies[size_t(ib)];
  std::array<std::vector<Vec3>, 2> vertices;
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return;
  ldi::MeshInput ma, mb;
  if (!world_mesh(bodies, ia, ib, meshes, vertices[0], ma) || !world_mesh(bodies, ib, ia, meshes, vertices[1], mb))
    return;
  ldi::VolumeOptions options = set.ldi_options();
  options.capture_intervals = true;
  options.capture_limit = std::max<long>(1, limit);
  ldi.compute(ma, mb, options, result);
  if (!result.ok() || !result.boxes_overlap) return;
  out.intervals = result.capture;
  for (int s = 0; s < 2; ++s)
    for (const ldi::VertexGradient& g : result.mono.body[s].gradient)
      if (!g.gradient.isZero(0.0)) out.gradients[size_t(s)].push_back({vertices[size_t(s)][size_t(g.vertex)], g.gradient});
  // The volumes that become constraints, in the kernel's order; their cells with multi-volume.
  std::span<const ldi::VolumeContact> list = set.multi_volume ? result.cells() : std::span(&result.mono, 1);
  std::vector<Vec3> normals;
  std::vector<int> scratch;
  if (set.multi_volume) region_normals(list, result.mono, normals, scratch);
  Constraint c;
  for (size_t k = 0; k < list.size(); ++k) {
    const ldi::VolumeContact& vc = list[k];
    if (!make_constraint(vc, set.multi_volume ? &normals[k] : nullptr, set.combine == 1, A.position, B.position, c))
      continue;
    out.constraints.push_back(c);
    if (set.multi_volume) out.cells.push_back(vc.cell);
  }
}

VolumeSolver::PairGeometry VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib,
                                                       long max_intervals_per_axis) const {
  PairGeometry out;
  if (ia < 0 || ia >= ib || ib >= int(bodies.size())) return out;
  MeshCache meshes;  // the call's own: nothing the solver keeps changes
  ldi::IntersectionVolume ldi;
  ldi::VolumeResult result;
  pair_geometry(bodies, ia, ib, settings(), max_intervals_per_axis, meshes, ldi, result, out);
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
  ldi::IntersectionVolume ldi;
  ldi::VolumeResult result;
  // Every pair's geometry first, then each layer over all pairs, so that a later layer is drawn over the
  // earlier ones everywhere.
  const int n = int(scene.bodies.size());
  std::vector<BodyPair> pairs;
  std::vector<PairGeometry> geometry;
  for (const BodyPair& pair : scene.pairs) {
    if (pair.a < 0 || pair.a >= pair.b || pair.b >= n) continue;
    pairs.push_back(pair);
    pair_geometry(scene.bodies, pair.a, pair.b, set, limit, meshes, ldi, result, geometry.emplace_back());
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
    const double h = set.cell_size;
    const DebugColor cell_color = with_alpha(debug_colors::kCell, 0.55f);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const PairGeometry& g = geometry[k];
      for (const std::array<int, 3>& c : g.cells) {
        const Vec3 lo(c[0] * h, c[1] * h, c[2] * h);
        auto corner = [&](int i) { return Vec3(lo + h * Vec3((i & 1) ? 1 : 0, (i & 2) ? 1 : 0, (i & 4) ? 1 : 0)); };
        for (int i = 0; i < 8; ++i)
          for (int bit = 1; bit < 8; bit <<= 1)
            if ((i & bit) == 0) draw.line(corner(i), corner(i | bit), cell_color);
      }
      for (const Constraint& c : g.constraints) {
        const double frame = set.multi_volume ? 0.45 * h : std::clamp(0.5 * std::sqrt(std::max(c.area, 0.0)), 0.02, 1.0);
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
