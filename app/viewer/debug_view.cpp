#include "viewer/debug_view.h"

#include <algorithm>

#include "viewer/session.h"

namespace cl::viewer {

bool wants_volume_layers(const ViewState& view) {
  return view.show_volumes || view.show_volume_gradients || view.show_volume_cells;
}

DebugRequest debug_request(const ViewState& view, double dt) {
  DebugRequest r;
  r.layers = (view.show_method ? kDebugMethod : 0u) | (view.show_volumes ? kDebugVolumes : 0u) |
             (view.show_volume_gradients ? kDebugVolumeGradients : 0u) |
             (view.show_volume_cells ? kDebugVolumeCells : 0u);
  r.volume_axes = view.volume_axes;
  r.max_intervals_per_axis = std::max(1, view.volume_interval_limit);
  r.gradient_length = view.gradient_length;
  // The Contacts section's force scale over the step, so that the volume cells' impulses read like the contact
  // forces (an impulse J over the step h is the force J / h).
  r.impulse_scale = dt > 0.0 ? view.force_arrow_scale() / dt : 0.0;
  return r;
}

void remember_collision_poses(AppState& app, int lane, const World& world) {
  std::vector<CollisionPoses>& stage = app.debug.stage;
  if (stage.size() < size_t(lane_count(app))) stage.resize(size_t(lane_count(app)));
  if (lane < 0 || size_t(lane) >= stage.size()) return;
  CollisionPoses& s = stage[size_t(lane)];
  if (!wants_volume_layers(app.view) || !app.view.volume_last_stage) {
    s = CollisionPoses{};
    return;
  }
  s.step = world.step_count();
  s.solver = std::string(world.solver().name());
  s.bodies = world.bodies;
  // World::step first moves the scripted bodies to their pose at the step's time, then collides.
  apply_scripts(world.scripts, s.bodies, world.time(), world.settings.dt);
}

namespace {
// A DebugDraw that records into a DebugRecording, leaving out what is not finite.
struct DrawRecorder final : DebugDraw {
  DebugRecording& out;
  explicit DrawRecorder(DebugRecording& recording) : out(recording) {}
  static bool finite(const Vec3& v) { return v.allFinite(); }
  void line(const Vec3& a, const Vec3& b, const DebugColor& c) override {
    if (finite(a) && finite(b)) out.lines.push_back({a, b, c, false});
  }
  void arrow(const Vec3& a, const Vec3& b, const DebugColor& c) override {
    if (finite(a) && finite(b)) out.lines.push_back({a, b, c, true});
  }
  void point(const Vec3& p, const DebugColor& c) override {
    if (finite(p)) out.points.push_back({p, c});
  }
  void note(std::string_view label, double value) override { out.notes.emplace_back(std::string(label), value); }
};

void refresh_lane(AppState& app, int lane, DebugRecording& rec) {
  const World& world = lane_world(app, lane);
  const DebugRequest request = debug_request(app.view, app.scene.world.settings.dt);
  // The poses to draw at: the last step's collision stage when asked for and kept for that very step.
  const std::vector<Body>* poses = &world.bodies;
  bool stage = false;
  if (app.view.volume_last_stage && size_t(lane) < app.debug.stage.size()) {
    const CollisionPoses& s = app.debug.stage[size_t(lane)];
    if (s.step >= 0 && s.step + 1 == world.step_count() && s.solver == world.solver().name() &&
        s.bodies.size() == world.bodies.size()) {
      poses = &s.bodies;
      stage = true;
    }
  }
  const ParamSet& params = world.solver().params();
  std::vector<double> values(params.specs().size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = params.value(i);
  bool same = rec.valid && rec.request == request && rec.solver == world.solver().name() && rec.params == values &&
              rec.step == world.step_count() && rec.at_collision_stage == stage &&
              rec.positions.size() == poses->size();
  for (size_t i = 0; same && i < poses->size(); ++i)
    same = rec.positions[i] == (*poses)[i].position &&
           rec.orientations[i].coeffs() == (*poses)[i].orientation.coeffs();
  if (same) return;
  rec = DebugRecording{};
  rec.valid = true;
  rec.request = request;
  rec.solver = std::string(world.solver().name());
  rec.params = std::move(values);
  rec.step = world.step_count();
  rec.at_collision_stage = stage;
  for (const Body& b : *poses) {
    rec.positions.push_back(b.position);
    rec.orientations.push_back(b.orientation);
  }
  if (request.layers == 0) return;
  DrawRecorder recorder(rec);
  recorder.request = request;
  world.draw_debug(recorder, poses);
}
}  // namespace

void refresh_debug_drawing(AppState& app) {
  const int lanes = lane_count(app);
  app.debug.lanes.resize(size_t(lanes));
  if (app.debug.stage.size() > size_t(lanes)) app.debug.stage.resize(size_t(lanes));
  for (int lane = 0; lane < lanes; ++lane) refresh_lane(app, lane, app.debug.lanes[size_t(lane)]);
}

const DebugRecording& debug_recording(const AppState& app, int lane) {
  static const DebugRecording kEmpty;
  if (lane < 0 || size_t(lane) >= app.debug.lanes.size()) return kEmpty;
  return app.debug.lanes[size_t(lane)];
}

}  // namespace cl::viewer
