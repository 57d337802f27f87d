#include "viewer/volume_view.h"

#include <algorithm>
#include <utility>

#include "core/shape.h"
#include "viewer/session.h"

namespace cl::viewer {

const VolumeSolver* active_volume_solver(const World& world) {
  return dynamic_cast<const VolumeSolver*>(&world.solver());
}

bool wants_volume_capture(const ViewState& view) {
  return view.show_volumes || view.show_volume_gradients || view.show_volume_cells;
}

namespace {
// Pairs the world's next step would collide, found without stepping: bounding boxes overlapping within the
// contact margin, not both fixed or kinematic, not joined by a joint (as World::find_contacts).
std::vector<std::pair<int, int>> overlapping_pairs(const World& world) {
  std::vector<std::pair<int, int>> pairs;
  const int n = static_cast<int>(world.bodies.size());
  std::vector<Aabb> boxes(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Body& b = world.bodies[static_cast<size_t>(i)];
    boxes[static_cast<size_t>(i)] = shape_aabb(b.shape, b.position, b.orientation);
    boxes[static_cast<size_t>(i)].lo.array() -= 0.5 * world.settings.contact_margin;
    boxes[static_cast<size_t>(i)].hi.array() += 0.5 * world.settings.contact_margin;
  }
  const std::vector<BodyPair> joined = joined_pairs(world.joints);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (!world.bodies[static_cast<size_t>(a)].is_dynamic() && !world.bodies[static_cast<size_t>(b)].is_dynamic()) continue;
      if (!boxes[static_cast<size_t>(a)].overlaps(boxes[static_cast<size_t>(b)])) continue;
      if (!std::binary_search(joined.begin(), joined.end(), BodyPair{a, b})) pairs.emplace_back(a, b);
    }
  }
  return pairs;
}
}  // namespace

namespace {
void sync_volume_capture_of(World& world, const ViewState& view) {
  auto* solver = dynamic_cast<VolumeSolver*>(&world.solver());
  if (solver == nullptr) return;
  const bool stage = wants_volume_capture(view) && view.volume_last_stage;
  if (stage) solver->set_debug_capture(true, std::max(1, view.volume_interval_limit));
  else if (solver->debug_capture()) solver->set_debug_capture(false);  // drops the records
}
}  // namespace

void sync_volume_capture(AppState& app) {
  for (int lane = 0; lane < lane_count(app); ++lane) sync_volume_capture_of(lane_world(app, lane), app.view);
}

namespace {
// Whether a capture record describes the world as it is and as the view asks for it.
bool record_is_current(const World& world, const VolumeSolver& solver, const ViewState& view,
                       const VolumeSolver::DebugPair& d, const std::vector<std::pair<int, int>>& edges) {
  const int n = static_cast<int>(world.bodies.size());
  if (d.a < 0 || d.b >= n || d.a >= d.b) return false;
  // Recorded by the last collision stage of this pair: current while the pair is still an edge (the world does
  // not collide pairs that have not moved, whose records then still hold).
  if (d.collision_stage) return std::binary_search(edges.begin(), edges.end(), std::pair(d.a, d.b));
  // Recorded without a step: current while neither body has moved and the parameters are the same.
  const Body& a = world.bodies[static_cast<size_t>(d.a)];
  const Body& b = world.bodies[static_cast<size_t>(d.b)];
  if (a.position != d.positions[0] || b.position != d.positions[1] ||
      a.orientation.coeffs() != d.orientations[0].coeffs() || b.orientation.coeffs() != d.orientations[1].coeffs())
    return false;
  const VolumeSolver::Settings s = solver.settings();
  return d.pixel_size == s.pixel_size && d.multi_volume == s.multi_volume && d.cell_size == s.cell_size &&
         d.interval_limit == std::max(1, view.volume_interval_limit);
}

std::vector<std::pair<int, int>> live_edges(const World& world) {
  std::vector<std::pair<int, int>> edges;
  for (const GraphEdge& e : world.graph().edges())
    if (!(e.events & kVanishedProximity)) edges.emplace_back(e.a, e.b);
  std::sort(edges.begin(), edges.end());
  return edges;
}
}  // namespace

namespace {
void refresh_volume_capture_of(World& world, const ViewState& view) {
  auto* solver = dynamic_cast<VolumeSolver*>(&world.solver());
  if (solver == nullptr) return;
  if (!wants_volume_capture(view)) {
    if (solver->debug_capture() || !solver->debug_pairs().empty()) solver->set_debug_capture(false);  // drops all
    return;
  }
  sync_volume_capture_of(world, view);
  // The pairs the next step would collide that no current record describes: recorded now, at the drawn poses.
  const std::vector<std::pair<int, int>> edges = live_edges(world);
  std::vector<std::pair<int, int>> missing;
  for (const auto& pair : overlapping_pairs(world)) {
    const auto it = solver->debug_pairs().find(pair);
    if (it == solver->debug_pairs().end() || !record_is_current(world, *solver, view, it->second, edges))
      missing.push_back(pair);
  }
  if (!missing.empty()) solver->capture_now(world.bodies, missing, std::max(1, view.volume_interval_limit));
}
}  // namespace

void refresh_volume_capture(AppState& app) {
  // Every lane under `volume` (each cell of the split view draws its own lane's volumes).
  for (int lane = 0; lane < lane_count(app); ++lane) refresh_volume_capture_of(lane_world(app, lane), app.view);
}

std::vector<const VolumeSolver::DebugPair*> current_volume_captures(const World& world, const ViewState& view) {
  std::vector<const VolumeSolver::DebugPair*> out;
  const VolumeSolver* solver = active_volume_solver(world);
  if (solver == nullptr || solver->debug_pairs().empty()) return out;
  const std::vector<std::pair<int, int>> edges = live_edges(world);
  for (const auto& [pair, d] : solver->debug_pairs())
    if (record_is_current(world, *solver, view, d, edges)) out.push_back(&d);
  return out;  // in pair order (the map's)
}

}  // namespace cl::viewer
