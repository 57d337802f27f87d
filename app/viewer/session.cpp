#include "viewer/session.h"

#include <algorithm>
#include <iostream>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ctime>
#include <filesystem>
#include <limits>
#include <string_view>
#include <system_error>

#include "core/shape.h"
#include "core/output_file.h"
#include "core/output_plan.h"
#include "core/text.h"
#include "compare/lanes.h"
#include "scene/mesh_source.h"
#include "scene/scene.h"
#include "scene/scene_reader.h"
#include "solvers/registry.h"
#include "viewer/convert.h"
#include "viewer/servo_control.h"
#include "viewer/debug_view.h"
#include "viewer/timeline.h"

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

std::vector<std::string> list_json_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".json") names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_scene_files(const std::string& root) {
  return list_json_files((fs::path(root) / "scenes").string());
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

// Bounds of the bodies that have a size (planes are infinite and would swamp the camera framing). One body (the
// selection, or a scene of one) is grown to three times its size, so that it is seen with its surroundings; a
// scene of several gets a margin of a tenth of its size, so that it fills the view (a box of walls around a
// pile is the pile's frame, not a body to be seen from afar).
void compute_bounds(const World& world, Vec3& lo, Vec3& hi, int only_body = -1) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  lo = Vec3::Constant(kInf);
  hi = Vec3::Constant(-kInf);
  double largest = 0.0;
  int counted = 0;
  for (int i = 0; i < int(world.bodies.size()); ++i) {
    const Body& b = world.bodies[size_t(i)];
    if (b.shape.type == ShapeType::Plane || (only_body >= 0 && i != only_body)) continue;
    const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
    if (!all_finite(box.lo) || !all_finite(box.hi)) continue;
    lo = lo.cwiseMin(box.lo);
    hi = hi.cwiseMax(box.hi);
    largest = std::max(largest, (box.hi - box.lo).maxCoeff());
    ++counted;
  }
  // A scripted body's whole path (a gripper's lift, a pusher's stroke), so that it stays in the frame.
  for (const Script& script : world.scripts) {
    if (only_body >= 0 || script.body < 0 || script.body >= int(world.bodies.size())) continue;
    const Body& b = world.bodies[size_t(script.body)];
    const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
    if (!all_finite(box.lo) || !all_finite(box.hi)) continue;
    for (const Vec3& p : script.points) {
      if (!all_finite(p)) continue;
      lo = lo.cwiseMin(box.lo + (p - b.position));
      hi = hi.cwiseMax(box.hi + (p - b.position));
    }
  }
  if (!(lo.array() <= hi.array()).all()) {  // nothing but planes: look at the origin
    lo = Vec3(-2, 0, -2);
    hi = Vec3(2, 2, 2);
    return;
  }
  const Vec3 center = 0.5 * (lo + hi);
  const Vec3 half = 0.5 * (hi - lo);
  const Vec3 grown = counted == 1 && world.scripts.empty() ? Vec3(half.cwiseMax(Vec3::Constant(1.5 * largest)))
                                  : Vec3(half + Vec3::Constant(0.1 * half.maxCoeff()));
  lo = center - grown;
  hi = center + grown;
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

// Copies the solver choice, every method's parameter values and dt from one world to another (a solver the
// other world's scene is not meant for stays unchosen).
void copy_settings(const World& from, World& to) {
  for (const SolverInfo& info : solver_registry())
    if (ParamSet* params = to.solver_params(info.name)) *params = from.solver_params_copy(info.name);
  std::string ignored;
  if (to.solver().name() != from.solver().name()) to.set_solver(std::string(from.solver().name()), &ignored);
  to.settings.dt = from.settings.dt;
}

// Everything derived from the running world that a new or reset world invalidates.
void forget_runtime_state(AppState& app) {
  app.sim.accumulator = 0.0;
  app.sim.step_error.clear();
  app.pick.dragging = false;
  app.scene.world.clear_drag();
  if (app.pick.selected >= static_cast<int>(app.scene.world.bodies.size())) app.pick.selected = -1;
  if (app.pick.selected_joint >= static_cast<int>(app.scene.world.joints.size())) app.pick.selected_joint = -1;
  app.view.force_reference = 0.0f;
  app.compare.lane_errors.assign(app.compare.lanes.size(), std::string());
  for (World& lane : app.compare.lanes) lane.clear_drag();
  clear_lane_plots(app);
}

// The saved file starts its clock at 0 while the running world is at time(): script start times move back
// by time(), so a script still waiting keeps its remaining wait. Scene files have no "already under way"
// (start_time >= 0), so a script that has started is saved to start at once from its first point, and
// its body is saved there (where loading would put it anyway, with a warning if it were elsewhere).
World world_for_saving(const World& world) {
  World copy = world;
  for (Script& s : copy.scripts) {
    s.start_time = std::max(0.0, s.start_time - world.time());
    if (s.body >= 0 && s.body < static_cast<int>(copy.bodies.size()) && !s.points.empty()) {
      copy.bodies[s.body].position = s.points.front();
      copy.bodies[s.body].linear_velocity.setZero();
      copy.bodies[s.body].angular_velocity.setZero();
    }
  }
  return copy;
}

// What the user changes in lane 1 while it runs reaches the other lanes before each step: the drag spring,
// the servo targets and joint settings (joints hold no state of the solve), scripts and the bodies they made
// kinematic, materials and dt. Each lane keeps its own solver, parameters and motion.
void sync_lane(const World& first, World& lane) {
  lane.settings.dt = first.settings.dt;
  lane.materials = first.materials;
  for (size_t j = 0; j < lane.joints.size() && j < first.joints.size(); ++j) {
    const double coordinate = lane.joints[j].servo.coordinate;  // state of the lane's own motion
    lane.joints[j] = first.joints[j];
    lane.joints[j].servo.coordinate = coordinate;
  }
  if (lane.scripts.size() != first.scripts.size() || !std::equal(lane.scripts.begin(), lane.scripts.end(),
                                                                  first.scripts.begin(), [](const Script& a, const Script& b) {
                                                                    return a.body == b.body && a.start_time == b.start_time &&
                                                                           a.points == b.points && a.speed == b.speed &&
                                                                           a.timing == b.timing && a.loop == b.loop;
                                                                  })) {
    lane.scripts = first.scripts;
  }
  for (size_t i = 0; i < lane.bodies.size() && i < first.bodies.size(); ++i) {
    const Body& b = first.bodies[i];
    Body& l = lane.bodies[i];
    if (l.kind != b.kind || l.mass != b.mass) {  // a script made it kinematic, or Clear gave it its mass back
      l = b;
      lane.wake(int(i));
    }
  }
  if (first.drag().body >= 0) {
    lane.set_drag(first.drag());
  } else if (lane.drag().body >= 0) {
    lane.clear_drag();
  }
}

// Lane i's curves after its step (lane 0 also has the Stats panel's, record_step).
void record_lane_step(AppState& app, int lane) {
  const World& w = lane_world(app, lane);
  const StepStats& s = w.last_stats();
  LanePlots& p = app.compare.plots[size_t(lane)];
  p.step_ms.push(float(s.profile.total));
  p.max_penetration.push(float(s.max_penetration));
  p.mean_penetration.push(float(s.mean_penetration));
  p.kinetic_energy.push(float(s.kinetic_energy));
  p.contacts.push(float(s.contacts));
  p.iterations.push(float(s.iterations));
  p.residual.push(float(s.residual));
  p.signorini.push(float(s.residuals.signorini));
  p.cone.push(float(s.residuals.cone));
  p.dissipation.push(float(s.residuals.dissipation));
  p.complementarity.push(float(s.residuals.complementarity));
  p.energy_change.push(float(s.energy_change));
  p.momentum_error.push(std::isnan(s.momentum_error) ? 0.0f : float(s.momentum_error));
  if (lane > 0) {  // against lane 1 (lane 1's own would be 0)
    const Divergence d = divergence(w, app.scene.world);
    p.divergence_max.push(float(d.max));
    p.divergence_mean.push(float(d.mean));
  }
  if (lane > 0 && app.stats.recording) app.compare.recorders[size_t(lane - 1)].add(s);
}

void record_step(AppState& app) {
  const StepStats& s = app.scene.world.last_stats();
  const StepProfile& p = s.profile;
  const double stages[StatsState::kStages] = {p.broad_phase, p.narrow_phase, p.graph, p.solve, p.integrate, p.total};
  for (int i = 0; i < StatsState::kStages; ++i) app.stats.stage_ms[i].push(static_cast<float>(stages[i]));
  const auto sub = s.sub_stages.stages();
  for (size_t i = 0; i < sub.size(); ++i) {
    SubStage& slot = app.stats.sub_stage_names[i];
    if (std::string_view(slot.name) != sub[i].name || slot.parent != sub[i].parent) {
      app.stats.sub_stage_ms[i] = History{};  // another solver's stage: start its plot afresh
      slot = sub[i];
    }
    app.stats.sub_stage_ms[i].push(static_cast<float>(sub[i].ms));
  }
  app.stats.sub_stage_count = static_cast<int>(sub.size());
  const auto counters = s.counters.counters();
  for (size_t i = 0; i < counters.size(); ++i) {
    SolverCounter& slot = app.stats.counter_names[i];
    if (std::string_view(slot.name) != counters[i].name) {
      app.stats.counter_values[i] = History{};  // another solver's counter: start its plot afresh
      slot = counters[i];
    }
    app.stats.counter_values[i].push(static_cast<float>(counters[i].value));
  }
  app.stats.counter_count = static_cast<int>(counters.size());
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

bool open_scene(AppState& app, const std::string& path, const ViewerOptions* overrides, std::string* error,
                const std::string* text) {
  SceneLoadResult result = text ? load_scene_text(*text, path) : load_scene_file(path);
  if (!result.ok()) {
    *error = result.error;
    // The loader names the file in its message; make sure of it for errors from the file system.
    if (error->find(path) == std::string::npos) *error = path + ": " + *error;
    return false;
  }
  std::vector<LaneSpec> lanes = result.lanes;
  if (overrides != nullptr && !overrides->lanes.empty()) {
    // --lanes: the first lane replaces the scene's solver, the others come beside it; --set is LANE.name=value.
    std::vector<LaneSpec> specs;
    ViewerOptions rest = *overrides;
    rest.params.clear();
    if (!parse_lane_list(overrides->lanes, specs, error) || !assign_lane_params(overrides->params, specs, error) ||
        !apply_overrides(result.world, rest, error)) {
      *error = path + ": --lanes: " + *error;
      return false;
    }
    World first;
    if (!make_lane(result.world, specs[0], first, error)) {
      *error = path + ": --lanes lane 1: " + *error;
      return false;
    }
    result.world = std::move(first);
    lanes.assign(specs.begin() + 1, specs.end());
  } else if (overrides != nullptr && !apply_overrides(result.world, *overrides, error)) {
    *error = path + ": " + *error;
    return false;
  }
  std::vector<World> lane_worlds;
  for (size_t i = 0; i < lanes.size(); ++i) {
    World lane;
    if (!make_lane(result.world, lanes[i], lane, error)) {
      *error = path + ": lane " + std::to_string(i + 2) + ": " + *error;
      return false;
    }
    lane_worlds.push_back(std::move(lane));
  }

  SceneState& scene = app.scene;
  scene.path = path;
  scene.loaded = result.world;
  scene.world = std::move(result.world);
  scene.warnings = std::move(result.warnings);
  scene.keyframes = std::move(result.keyframes);
  std::string why;  // the text a replay records (read again: load_scene_file keeps none)
  if (text) scene.text = *text;
  else if (!read_text_file(path, scene_io::kMaxSceneBytes, "scene file", scene.text, why)) scene.text.clear();
  app.compare.lanes = std::move(lane_worlds);
  app.compare.lane_errors.assign(app.compare.lanes.size(), std::string());
  app.compare.error.clear();
  scene.error.clear();
  scene.message.clear();
  scene.save_path = fs::path(path).stem().string() + "-saved.json";
  scene.open_path = path;
  ++scene.generation;

  app.pick.selected = -1;
  app.pick.selected_joint = -1;
  app.view.follow = -1;
  // A draft belongs to the bodies of the previous scene; keep only the user's preference.
  const bool plane_only = app.script.plane_only;
  app.script = ScriptEditState{};
  app.script.plane_only = plane_only;
  forget_runtime_state(app);
  frame_scene(app);
  log_action(app, "opened " + path);
  return true;
}

void log_action(const AppState& app, const std::string& what) {
  if (app.ui.log_actions) std::cout << "frame " << app.ui.frame << ": " << what << std::endl;
}

bool open_neighbour_scene(AppState& app, int offset, std::string* error) {
  // The neighbours in the open scene's folder when that is a folder of scenes/ (such as scenes/conformance/),
  // else in scenes/ itself (the list the scene menu shows).
  const fs::path scenes = fs::path(app.scene.root) / "scenes";
  fs::path folder = scenes;
  std::vector<std::string> files = app.scene.files;
  std::error_code ec;
  const fs::path dir = fs::path(app.scene.path).parent_path();
  if (!dir.empty() && fs::equivalent(dir.parent_path(), scenes, ec) && !ec) {
    folder = dir;
    files = list_json_files(dir.string());
  }
  if (files.empty()) {
    *error = "no scene files in " + folder.string();
    return false;
  }
  const std::string current = fs::path(app.scene.path).filename().string();
  const auto it = std::find(files.begin(), files.end(), current);
  const int n = int(files.size());
  const int here = it == files.end() ? (offset > 0 ? -1 : n) : int(it - files.begin());
  const int next = ((here + offset) % n + n) % n;
  return open_scene_keeping_lanes(app, (folder / files[size_t(next)]).string(), error);
}

void frame_scene(AppState& app, bool whole_window) {
  Vec3 lo, hi;
  // The selected body and its surroundings (three times its size), else every body.
  const int selected = app.pick.selected;
  const bool body = selected >= 0 && selected < int(app.scene.world.bodies.size()) &&
                    app.scene.world.bodies[size_t(selected)].shape.type != ShapeType::Plane;
  compute_bounds(app.scene.world, lo, hi, body ? selected : -1);
  // Into the view's part of the window (lane 1's cell of the split comparison), or the whole of it (thumbnails).
  const LaneCell cell = whole_window ? LaneCell{0, 0, app.viewport_width, app.viewport_height} : lane_cell(app, 0);
  app.camera.frame(to_glm(lo), to_glm(hi), cell.width / std::max(cell.height, 1.0f));
  if (!whole_window) app.ui.auto_framed = app.camera;
}

void toggle_follow(AppState& app) {
  const World& world = app.scene.world;
  const int b = app.pick.selected;
  if (app.view.follow >= 0 && (b < 0 || b == app.view.follow)) {
    app.view.follow = -1;
    return;
  }
  if (b < 0 || b >= int(world.bodies.size()) || world.bodies[size_t(b)].shape.type == ShapeType::Plane) return;
  app.view.follow = b;
  app.view.follow_at = world.bodies[size_t(b)].position;
  app.camera.target = to_glm(app.view.follow_at);  // the body in the middle of the view from now on
}

void follow_camera(AppState& app) {
  const int b = app.view.follow;
  if (b < 0 || b >= int(app.scene.world.bodies.size())) return;
  const Vec3& p = app.scene.world.bodies[size_t(b)].position;
  if (!all_finite(p)) return;
  app.camera.target += to_glm(p - app.view.follow_at);
  app.view.follow_at = p;
}

bool reload_scene(AppState& app, std::string* error) {
  const World previous = app.scene.world;
  const std::vector<World> previous_lanes = app.compare.lanes;
  const OrbitCamera camera = app.camera;  // same file: keep looking where the user was looking
  const int selected = app.pick.selected;
  if (!open_scene(app, app.scene.path, nullptr, error)) return false;
  if (app.scene.keep_settings_on_reset) {
    copy_settings(previous, app.scene.world);
    // The lanes as they were, each from the file's new state (a method the file now refuses is dropped).
    app.compare.lanes.clear();
    for (const World& old_lane : previous_lanes) {
      World lane = app.scene.loaded;
      copy_settings(old_lane, lane);
      if (lane.solver().name() == old_lane.solver().name()) app.compare.lanes.push_back(std::move(lane));
      else app.compare.error = "lane under " + std::string(old_lane.solver().name()) + " dropped: the scene refuses it";
    }
    app.compare.lane_errors.assign(app.compare.lanes.size(), std::string());
  }
  app.camera = camera;
  if (selected < static_cast<int>(app.scene.world.bodies.size())) app.pick.selected = selected;
  return true;
}

void reset_scene(AppState& app) {
  World fresh = app.scene.loaded;
  if (app.scene.keep_settings_on_reset) copy_settings(app.scene.world, fresh);
  // Every lane restarts from the scene as loaded under its own method and parameters.
  for (World& lane : app.compare.lanes) {
    World copy = app.scene.loaded;
    copy_settings(lane, copy);
    copy.settings.dt = fresh.settings.dt;
    lane = std::move(copy);
  }
  app.scene.world = std::move(fresh);
  forget_runtime_state(app);
}

OutputPlan scene_reads(const AppState& app) {
  OutputPlan plan;
  plan.read("the open scene", app.scene.path);
  for (const ReadFile& f : mesh_files_read(app.scene.loaded, app.scene.path)) plan.read(f.role, f.path);
  return plan;
}

std::string check_output(const AppState& app, const std::string& path, const char* what) {
  OutputPlan plan = scene_reads(app);
  plan.write(what, path);
  std::string error;
  return plan.check(error) ? std::string() : error;
}

bool saving_over_open_scene(const AppState& app, const std::string& path) {
  return !path.empty() && !app.scene.path.empty() && same_file(path, app.scene.path);
}

bool save_scene_as(AppState& app, const std::string& path, std::string* error, bool overwrite_open_scene) {
  if (path.empty()) {
    *error = "type a file name to save to";
    return false;
  }
  const bool over_open = saving_over_open_scene(app, path);
  if (over_open && !overwrite_open_scene) {
    *error = path + " is the open scene: confirm to overwrite it (its old text is kept in " + path + ".bak)";
    return false;
  }
  // Never over a mesh the scene reads, a directory, or into a folder that takes no file.
  OutputPlan plan;
  for (const ReadFile& f : mesh_files_read(app.scene.loaded, app.scene.path)) plan.read(f.role, f.path);
  plan.write("Save as", path);
  if (!plan.check(*error)) return false;
  if (over_open) {
    // The open scene's text as it was on disk, kept beside it before it is replaced.
    std::string text, why;
    if (!read_text_file(path, scene_io::kMaxSceneBytes, "scene file", text, why) ||
        !write_output_file(path + ".bak", text, "backup of the scene", why)) {
      *error = "not saved: cannot keep a backup: " + why;
      return false;
    }
  }
  const World saved = world_for_saving(app.scene.world);
  const std::vector<LaneSpec> lanes = lane_specs(app);
  std::string start;
  const std::vector<SceneKeyframe> keyframes = keyframes_for_saving(app, saved, &start);
  if (!save_scene_file(saved, path, error, lanes, keyframes, start)) return false;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  app.scene.message = "saved to " + (ec ? path : absolute.string()) + (over_open ? " (the old text in " + path + ".bak)" : "");
  app.scene.files = list_scene_files(app.scene.root);  // it may have gone into scenes/
  return true;
}

bool step_once(AppState& app) {
  if (!app.sim.step_error.empty()) return false;
  drive_held_servos(app, app.scene.world.settings.dt);
  StepResult r;
  if (app.compare.lanes.empty()) {
    timeline_before_step(app);
    remember_collision_poses(app, 0, app.scene.world);
    r = app.scene.world.step();
  } else {
    // Every running lane in lockstep, one per task; what the user changed in lane 1 (drag, servo targets,
    // scripts, materials, joint settings, dt) first reaches the others.
    CompareState& compare = app.compare;
    std::vector<World*> worlds{&app.scene.world};
    std::vector<int> lane_of{0};
    for (size_t i = 0; i < compare.lanes.size(); ++i) {
      if (!compare.lane_errors[i].empty()) continue;
      sync_lane(app.scene.world, compare.lanes[i]);
      worlds.push_back(&compare.lanes[i]);
      lane_of.push_back(int(i) + 1);
    }
    timeline_before_step(app);  // after the sync: a replay records and replays each lane's edits as it steps
    for (size_t k = 0; k < worlds.size(); ++k) remember_collision_poses(app, lane_of[k], *worlds[k]);
    if (!compare.pool) compare.pool = std::make_shared<TaskPool>(0);
    std::vector<StepResult> results(worlds.size());
    step_lockstep(worlds, *compare.pool, results);
    r = results[0];
    for (size_t k = 1; k < results.size(); ++k) {
      const size_t i = size_t(lane_of[k] - 1);
      if (!results[k].ok) compare.lane_errors[i] = results[k].error.empty() ? "the step produced non-finite values" : results[k].error;
      record_lane_step(app, lane_of[k]);
    }
  }
  record_step(app);
  record_lane_step(app, 0);
  if (!r.ok) {
    app.sim.playing = false;
    app.sim.accumulator = 0.0;
    app.sim.step_error = r.error.empty() ? "the step produced non-finite values" : r.error;
    app.pick.dragging = false;
    app.scene.world.clear_drag();
  }
  timeline_after_step(app);
  return r.ok;
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
  app.view.force_reference = 0.0f;
  app.compare.plots[0] = LanePlots{};
  return true;
}

// --- comparison lanes ---------------------------------------------------------------------------------------

int lane_count(const AppState& app) { return 1 + int(app.compare.lanes.size()); }

const World& lane_world(const AppState& app, int lane) {
  return lane == 0 ? app.scene.world : app.compare.lanes[size_t(lane - 1)];
}

World& lane_world(AppState& app, int lane) { return lane == 0 ? app.scene.world : app.compare.lanes[size_t(lane - 1)]; }

const std::string& lane_error(const AppState& app, int lane) {
  return lane == 0 ? app.sim.step_error : app.compare.lane_errors[size_t(lane - 1)];
}

bool add_lane(AppState& app, const LaneSpec& spec, std::string* error) {
  if (lane_count(app) >= kMaxLanes) {
    *error = "at most " + std::to_string(kMaxLanes) + " lanes";
    return false;
  }
  World lane;
  if (!make_lane(app.scene.loaded, spec, lane, error)) return false;
  lane.settings.dt = app.scene.world.settings.dt;
  app.compare.lanes.push_back(std::move(lane));
  app.compare.error.clear();
  reset_scene(app);  // a comparison starts every lane from the same state
  return true;
}

bool compare_every_method(AppState& app, std::string* error) {
  const std::string own(app.scene.world.solver().name());
  std::vector<LaneSpec> specs;
  for (const std::string& name : addable_lane_solvers(app))
    if (name != own && 1 + int(specs.size()) < kMaxLanes) specs.push_back(LaneSpec{name, {}});
  if (specs.empty()) {
    *error = "this scene admits only " + own + " (its \"methods\")";
    return false;
  }
  std::vector<World> lanes(specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    if (!make_lane(app.scene.loaded, specs[i], lanes[i], error)) return false;
  for (World& lane : lanes) lane.settings.dt = app.scene.world.settings.dt;
  app.compare.lanes = std::move(lanes);
  app.compare.error.clear();
  reset_scene(app);  // a comparison starts every lane from the same state
  return true;
}

std::vector<std::string> addable_lane_solvers(const AppState& app) {
  std::vector<std::string> out;
  for (const SolverInfo& info : solver_registry())
    if (app.scene.world.allows_solver(info.name)) out.push_back(info.name);
  return out;
}

void remove_lane(AppState& app, int lane) {
  if (lane < 1 || lane >= lane_count(app)) return;
  app.compare.lanes.erase(app.compare.lanes.begin() + lane - 1);
  app.compare.lane_errors.erase(app.compare.lane_errors.begin() + lane - 1);
  clear_lane_plots(app);
}

bool switch_lane_solver(AppState& app, int lane, const std::string& name, std::string* error) {
  if (lane == 0) return switch_solver(app, name, error);
  if (!lane_world(app, lane).set_solver(name, error)) return false;
  app.compare.plots[size_t(lane)] = LanePlots{};
  return true;
}

std::vector<LaneSpec> lane_specs(const AppState& app) {
  std::vector<LaneSpec> out;
  for (const World& lane : app.compare.lanes) out.push_back(lane_spec_of(lane, &app.scene.world));
  return out;
}

bool open_scene_keeping_lanes(AppState& app, const std::string& path, std::string* error) {
  // The lanes' methods and parameters, lane 1's too (its method may not be the new scene's own).
  std::vector<LaneSpec> kept;
  if (lane_count(app) > 1) {
    kept.push_back(LaneSpec{std::string(app.scene.world.solver().name()), {}});
    for (const LaneSpec& spec : lane_specs(app)) kept.push_back(spec);
  }
  if (!open_scene(app, path, nullptr, error)) return false;
  if (kept.empty() || !app.compare.lanes.empty()) return true;  // the scene's own lanes win
  // Lane 1 is the scene under its own method: the first kept lane of that method at its defaults is already there.
  const std::string own(app.scene.world.solver().name());
  bool own_found = false;
  std::string refused;
  for (const LaneSpec& spec : kept) {
    if (!own_found && spec.solver == own && spec.params.empty()) {
      own_found = true;
      continue;
    }
    if (lane_count(app) >= kMaxLanes) break;
    std::string why;
    if (!add_lane(app, spec, &why)) refused += (refused.empty() ? "" : "; ") + spec.solver + ": " + why;
  }
  if (!refused.empty()) app.compare.error = "not every lane could be kept (" + refused + ")";
  log_action(app, "kept " + std::to_string(lane_count(app)) + " lanes");
  return true;
}

void clear_lane_plots(AppState& app) { app.compare.plots.fill(LanePlots{}); }

bool split_view(const AppState& app) { return lane_count(app) > 1 && app.compare.layout == CompareLayout::Split; }

LaneCell lane_cell(const AppState& app, int lane) {
  const ScreenRect& a = app.ui.scene_area;
  const bool set = a.width > 0 && a.height > 0;
  const float x = set ? a.x : 0, y = set ? a.y : 0;
  const float w = set ? a.width : app.viewport_width, h = set ? a.height : app.viewport_height;
  if (!split_view(app)) return {x, y, w, h};
  LaneCell c;
  if (lane_count(app) == 2) {  // side by side, or one above the other where the area is taller than wide
    c = h > w ? LaneCell{x, y + float(lane) * h / 2, w, h / 2} : LaneCell{x + float(lane) * w / 2, y, w / 2, h};
  } else {
    c = {x + float(lane % 2) * w / 2, y + float(lane / 2) * h / 2, w / 2, h / 2};  // 2 x 2
  }
  // The strip at the cell's top holds the lane's label, outside its view.
  const float label = std::min(app.ui.lane_label_height, 0.3f * c.height);
  c.y += label;
  c.height -= label;
  return c;
}

int lane_at(const AppState& app, float x, float y) {
  for (int i = 0; i < lane_count(app); ++i) {
    const LaneCell c = lane_cell(app, i);
    if (x >= c.x && x < c.x + c.width && y >= c.y && y < c.y + c.height) return i;
  }
  return 0;
}

std::array<float, 3> lane_color(int lane) {
  static constexpr std::array<std::array<float, 3>, kMaxLanes> kColors = {
      {{0.95f, 0.75f, 0.30f}, {0.35f, 0.75f, 1.00f}, {0.95f, 0.40f, 0.55f}, {0.50f, 0.90f, 0.50f}}};
  return kColors[size_t(std::clamp(lane, 0, kMaxLanes - 1))];
}

void start_recording(AppState& app) {
  app.stats.recorder.clear();
  for (Recorder& r : app.compare.recorders) r.clear();
  app.stats.recording = true;
  app.stats.error.clear();
  app.stats.csv_path.clear();
  app.stats.trace_path.clear();
}

namespace {

// A file name piece from a scene or solver name: letters, digits, '-' and '_' kept, anything else '_'.
std::string file_name_part(std::string_view name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? std::string("scene") : out;
}

// Every lane's recorded steps in one CSV (lane, solver and scene first), its sidecar, and a trace per lane.
bool write_lane_recording(AppState& app, const std::string& base, std::string* error) {
  const int lanes = lane_count(app);
  const std::string csv = base + ".csv";
  StepWriter writer;
  if (!writer.open(csv, "", error)) return false;
  writer.set_leading_columns("lane,solver,scene");
  const auto rows = [&](int lane) -> const std::vector<StepStats>& {
    return lane == 0 ? app.stats.recorder.rows() : app.compare.recorders[size_t(lane - 1)].rows();
  };
  for (int i = 0; i < lanes; ++i)
    for (const StepStats& st : rows(i)) writer.add_solver_columns(st);
  const std::string scene = csv_field(app.scene.world.name);
  for (int i = 0; i < lanes; ++i) {
    const std::string leading = std::to_string(i + 1) + "," + std::string(lane_world(app, i).solver().name()) + "," + scene;
    for (const StepStats& st : rows(i))
      if (!writer.add(st, error, leading)) return false;
  }
  if (!writer.close(error)) return false;
  std::vector<const World*> worlds;
  for (int i = 0; i < lanes; ++i) worlds.push_back(&lane_world(app, i));
  const std::string sidecar = base + ".lanes.json";
  std::string why;
  if (!write_output_file(sidecar, lanes_sidecar_json(app.scene.path, worlds, csv).dump(2) + "\n", "lanes sidecar", why)) {
    *error = why;
    return false;
  }
  for (int i = 0; i < lanes; ++i) {
    const Recorder& r = i == 0 ? app.stats.recorder : app.compare.recorders[size_t(i - 1)];
    if (!r.write_trace(base + ".lane" + std::to_string(i + 1) + ".trace.json", error)) return false;
  }
  return true;
}

}  // namespace

std::string output_name(const AppState& app, const std::string& what) {
  const std::string name =
      file_name_part(app.scene.world.name) + (what.empty() ? "" : "-" + file_name_part(what)) + "-" + timestamp();
  return app.ui.output_dir.empty() ? name : (fs::path(app.ui.output_dir) / name).string();
}

std::string welcome_marker_path() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (config && *config) return (fs::path(config) / "contactlab" / "welcomed").string();
  if (home && *home) return (fs::path(home) / ".config" / "contactlab" / "welcomed").string();
  return "";
}

void mark_welcomed() {
  const std::string path = welcome_marker_path();
  if (path.empty()) return;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream(path) << "ContactLab showed its welcome once; delete this file to see it again.\n";
}

bool make_output_dir(const AppState& app, std::string* error) {
  if (app.ui.output_dir.empty()) return true;
  std::error_code ec;
  fs::create_directories(app.ui.output_dir, ec);
  if (ec || !fs::is_directory(app.ui.output_dir, ec)) {
    *error = "cannot use the output folder " + app.ui.output_dir + (ec ? ": " + ec.message() : "");
    return false;
  }
  return true;
}

void stop_recording(AppState& app) {
  StatsState& stats = app.stats;
  stats.recording = false;
  // Named after what it holds: the scene, the solver (or "lanes"), the time.
  const std::string base =
      output_name(app, lane_count(app) > 1 ? std::string("lanes") : std::string(app.scene.world.solver().name()));
  std::string error;
  std::error_code ec;
  if (!make_output_dir(app, &error)) {
    stats.error = "cannot write the recording: " + error;
    return;
  }
  if (std::string why = check_output(app, base + ".csv", "the recording"); !why.empty()) {
    stats.error = "cannot write the recording: " + why;
    return;
  }
  if (lane_count(app) > 1) {
    if (!write_lane_recording(app, base, &error)) {
      stats.error = "cannot write the recording: " + error;
    } else {
      stats.csv_path = fs::absolute(base + ".csv", ec).string();
      stats.trace_path = fs::absolute(base + ".lanes.json", ec).string();
    }
    return;
  }
  const std::string csv = base + ".csv", trace = base + ".trace.json";
  if (!stats.recorder.write_csv(csv, &error)) {
    stats.error = "cannot write " + csv + ": " + error;
  } else if (!stats.recorder.write_trace(trace, &error)) {
    stats.error = "cannot write " + trace + ": " + error;
  } else {
    stats.csv_path = fs::absolute(csv, ec).string();
    stats.trace_path = fs::absolute(trace, ec).string();
  }
}

size_t contact_draw_stride(size_t contacts) { return std::max<size_t>(1, (contacts + kMaxDrawnContacts - 1) / kMaxDrawnContacts); }

int max_stack_height(const World& world) {
  int m = 0;
  for (int h : world.graph().height_of_body()) {
    if (h != ContactGraph::kUnreached) m = std::max(m, h);
  }
  return m;
}

}  // namespace cl::viewer
