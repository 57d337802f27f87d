#include "viewer/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <limits>
#include <system_error>

#include "core/shape.h"
#include "scene/scene.h"
#include "viewer/convert.h"

#ifndef CONTACTLAB_SOURCE_DIR
#define CONTACTLAB_SOURCE_DIR "."
#endif

namespace cl::viewer {

namespace fs = std::filesystem;

std::string resolve_root() {
  const char* home = std::getenv("CONTACTLAB_HOME");
  if (home != nullptr && home[0] != '\0') return home;
  return CONTACTLAB_SOURCE_DIR;
}

std::vector<std::string> list_scene_files(const std::string& root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(root) / "scenes", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".json") names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_scene_path(const std::string& root, const std::string& typed) {
  std::error_code ec;
  if (typed.empty() || fs::exists(typed, ec) || fs::path(typed).is_absolute()) return typed;
  for (const fs::path& candidate : {fs::path(root) / "scenes" / typed, fs::path(root) / typed}) {
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return typed;
}

namespace {

// Bounds of the bodies that have a size (planes are infinite and would swamp the camera framing),
// grown to at least three times the largest body so that a lone body is seen with its surroundings.
void compute_bounds(const World& world, Vec3& lo, Vec3& hi) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  lo = Vec3::Constant(kInf);
  hi = Vec3::Constant(-kInf);
  double largest = 0.0;
  for (const Body& b : world.bodies) {
    if (b.shape.type == ShapeType::Plane) continue;
    const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
    if (!all_finite(box.lo) || !all_finite(box.hi)) continue;
    lo = lo.cwiseMin(box.lo);
    hi = hi.cwiseMax(box.hi);
    largest = std::max(largest, (box.hi - box.lo).maxCoeff());
  }
  if (!(lo.array() <= hi.array()).all()) {  // nothing but planes: look at the origin
    lo = Vec3(-2, 0, -2);
    hi = Vec3(2, 2, 2);
    return;
  }
  const Vec3 center = 0.5 * (lo + hi);
  const Vec3 half = (0.5 * (hi - lo)).cwiseMax(Vec3::Constant(1.5 * largest));
  lo = center - half;
  hi = center + half;
}

bool apply_overrides(World& world, const ViewerOptions& o, std::string* error) {
  if (!o.solver.empty() && !world.set_solver(o.solver, error)) {
    *error = "--solver " + o.solver + ": " + *error;
    return false;
  }
  for (const auto& [name, value] : o.params) {
    if (!world.solver().params().set_from_string(name, value, error)) {
      *error = "--set " + name + "=" + value + ": " + *error;
      return false;
    }
  }
  if (o.dt != 0.0) {
    if (!(o.dt > 0.0) || !std::isfinite(o.dt)) {
      *error = "--dt must be a positive number of seconds";
      return false;
    }
    world.settings.dt = o.dt;
  }
  return true;
}

// Copies the solver choice, its parameter values and dt from one world to another.
void copy_settings(const World& from, World& to) {
  std::string ignored;
  if (to.solver().name() != from.solver().name()) to.set_solver(std::string(from.solver().name()), &ignored);
  const ParamSet& src = from.solver().params();
  for (size_t i = 0; i < src.specs().size(); ++i) {
    to.solver().params().set(src.specs()[i].name, src.value(i), &ignored);
  }
  to.settings.dt = from.settings.dt;
}

// Everything derived from the running world that a new or reset world invalidates.
void forget_runtime_state(AppState& app) {
  app.sim.accumulator = 0.0;
  app.sim.step_error.clear();
  app.pick.dragging = false;
  app.scene.world.clear_drag();
  if (app.pick.selected >= static_cast<int>(app.scene.world.bodies.size())) app.pick.selected = -1;
  app.view.impulse_reference = 0.0f;
}

void record_step(AppState& app) {
  const StepStats& s = app.scene.world.last_stats();
  const StepProfile& p = s.profile;
  const double stages[StatsState::kStages] = {p.broad_phase, p.narrow_phase, p.graph, p.solve, p.integrate, p.total};
  for (int i = 0; i < StatsState::kStages; ++i) app.stats.stage_ms[i].push(static_cast<float>(stages[i]));
  if (app.stats.recording) app.stats.recorder.add(s);
}

std::string timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
  return text;
}

}  // namespace

bool open_scene(AppState& app, const std::string& path, const ViewerOptions* overrides, std::string* error) {
  SceneLoadResult result = load_scene_file(path);
  if (!result.ok()) {
    *error = result.error;
    // The loader names the file in its message; make sure of it for errors from the file system.
    if (error->find(path) == std::string::npos) *error = path + ": " + *error;
    return false;
  }
  if (overrides != nullptr && !apply_overrides(result.world, *overrides, error)) return false;

  SceneState& scene = app.scene;
  scene.path = path;
  scene.loaded = result.world;
  scene.world = std::move(result.world);
  scene.warnings = std::move(result.warnings);
  scene.error.clear();
  scene.message.clear();
  scene.save_path = fs::path(path).stem().string() + "-saved.json";
  scene.open_path = path;
  ++scene.generation;

  app.pick.selected = -1;
  forget_runtime_state(app);
  frame_scene(app);
  return true;
}

void frame_scene(AppState& app) {
  Vec3 lo, hi;
  compute_bounds(app.scene.world, lo, hi);
  // The panels cover the sides of the window: fit the bodies into the middle part.
  constexpr float kFreeWidth = 0.55f;
  app.camera.frame(to_glm(lo), to_glm(hi), kFreeWidth * app.viewport_width / std::max(app.viewport_height, 1.0f));
}

bool reload_scene(AppState& app, std::string* error) {
  const World previous = app.scene.world;
  const OrbitCamera camera = app.camera;  // same file: keep looking where the user was looking
  const int selected = app.pick.selected;
  if (!open_scene(app, app.scene.path, nullptr, error)) return false;
  if (app.scene.keep_settings_on_reset) copy_settings(previous, app.scene.world);
  app.camera = camera;
  if (selected < static_cast<int>(app.scene.world.bodies.size())) app.pick.selected = selected;
  return true;
}

void reset_scene(AppState& app) {
  World fresh = app.scene.loaded;
  if (app.scene.keep_settings_on_reset) copy_settings(app.scene.world, fresh);
  app.scene.world = std::move(fresh);
  forget_runtime_state(app);
}

bool save_scene_as(AppState& app, const std::string& path, std::string* error) {
  if (path.empty()) {
    *error = "type a file name to save to";
    return false;
  }
  if (!save_scene_file(app.scene.world, path, error)) return false;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  app.scene.message = "saved to " + (ec ? path : absolute.string());
  app.scene.files = list_scene_files(app.scene.root);  // it may have gone into scenes/
  return true;
}

bool step_once(AppState& app) {
  if (!app.sim.step_error.empty()) return false;
  const StepResult r = app.scene.world.step();
  record_step(app);
  if (!r.ok) {
    app.sim.playing = false;
    app.sim.accumulator = 0.0;
    app.sim.step_error = r.error.empty() ? "the step produced non-finite values" : r.error;
    app.pick.dragging = false;
    app.scene.world.clear_drag();
    return false;
  }
  return true;
}

void advance_simulation(AppState& app, double real_seconds) {
  SimState& sim = app.sim;
  if (!sim.playing || !sim.step_error.empty()) {
    sim.accumulator = 0.0;
    return;
  }
  // A long stall (window dragged, debugger) must not turn into a burst of catch-up steps.
  sim.accumulator += std::min(real_seconds, 0.25) * sim.speed;
  const double dt = app.scene.world.settings.dt;
  int steps = 0;
  while (sim.accumulator >= dt && steps < sim.max_steps_per_frame) {
    if (!step_once(app)) return;
    sim.accumulator -= dt;
    ++steps;
  }
  // Could not keep up: drop the debt so the simulation runs slower than real time rather than lagging.
  if (sim.accumulator >= dt) sim.accumulator = 0.0;
}

bool switch_solver(AppState& app, const std::string& name, std::string* error) {
  if (!app.scene.world.set_solver(name, error)) return false;
  app.view.impulse_reference = 0.0f;
  return true;
}

void start_recording(AppState& app) {
  app.stats.recorder.clear();
  app.stats.recording = true;
  app.stats.error.clear();
  app.stats.csv_path.clear();
  app.stats.trace_path.clear();
}

void stop_recording(AppState& app) {
  StatsState& stats = app.stats;
  stats.recording = false;
  const std::string base = "contactlab-" + timestamp();
  const std::string csv = base + ".csv", trace = base + ".trace.json";
  std::string error;
  std::error_code ec;
  if (!stats.recorder.write_csv(csv, &error)) {
    stats.error = "cannot write " + csv + ": " + error;
  } else if (!stats.recorder.write_trace(trace, &error)) {
    stats.error = "cannot write " + trace + ": " + error;
  } else {
    stats.csv_path = fs::absolute(csv, ec).string();
    stats.trace_path = fs::absolute(trace, ec).string();
  }
}

}  // namespace cl::viewer
