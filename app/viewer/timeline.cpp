#include "viewer/timeline.h"

#include <algorithm>
#include <cmath>

#include "core/output_file.h"
#include "scene/scene.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

std::vector<const World*> const_lanes(const AppState& app) {
  std::vector<const World*> lanes;
  for (int i = 0; i < lane_count(app); ++i) lanes.push_back(&lane_world(app, i));
  return lanes;
}

std::vector<World*> lane_pointers(AppState& app) {
  std::vector<World*> lanes;
  for (int i = 0; i < lane_count(app); ++i) lanes.push_back(&lane_world(app, i));
  return lanes;
}

std::vector<std::string> lane_errors(const AppState& app) {
  std::vector<std::string> errors;
  for (int i = 0; i < lane_count(app); ++i) errors.push_back(lane_error(app, i));
  return errors;
}

// Puts copies of `lanes` (lane 1 first) in the viewer's lanes, with why each had stopped.
void put_lanes(AppState& app, const std::vector<World>& lanes, const std::vector<std::string>& errors) {
  if (lanes.empty()) return;
  app.scene.world = lanes[0];
  app.compare.lanes.assign(lanes.begin() + 1, lanes.end());
  app.sim.step_error = errors.empty() ? std::string() : errors[0];
  app.compare.lane_errors.assign(app.compare.lanes.size(), std::string());
  for (size_t i = 1; i < errors.size() && i - 1 < app.compare.lane_errors.size(); ++i) app.compare.lane_errors[i - 1] = errors[i];
  app.sim.accumulator = 0.0;
  app.pick.dragging = false;
}

void push_frame(AppState& app) {
  const std::vector<const World*> lanes = const_lanes(app);
  const std::vector<std::string> errors = lane_errors(app);
  app.timeline.history.push(lanes, errors);
}

// Whether the lanes are where the newest frame left them (no reset, new scene or change of lanes since).
bool continues_history(const AppState& app) {
  const TimelineState& t = app.timeline;
  if (t.history.empty() || t.generation != app.scene.generation) return false;
  if (t.shown >= 0) return true;  // a frame shown: its copies are in the lanes
  const HistoryFrame& back = t.history.back();
  return int(back.lanes.size()) == lane_count(app) && back.step == app.scene.world.step_count() &&
         back.time == app.scene.world.time();
}

// Begins a replay of the run from the lanes as they are (at their scene's start): false when they are not there.
bool begin_recording(AppState& app, std::string* error) {
  TimelineState& t = app.timeline;
  Replay r;
  r.start.scene_file = app.scene.path;
  r.start.scene_text = app.scene.text;
  for (int i = 0; i < lane_count(app); ++i) r.start.solvers.emplace_back(lane_world(app, i).solver().name());
  const SceneLoadResult scene = load_scene_text(app.scene.text, app.scene.path);
  if (!scene.ok()) {
    *error = scene.error;
    return false;
  }
  const std::vector<const World*> lanes = const_lanes(app);
  if (!start_edits(scene.world, scene.keyframes, r.start, lanes, r.edits, error)) return false;
  t.record = std::move(r);
  t.record_start_edits = t.record.edits.size();
  t.record_generation = app.scene.generation;
  t.recording = true;
  return true;
}

// The keyframes of the scene file, as copies of the lanes set to them.
void keyframes_from_scene(AppState& app) {
  TimelineState& t = app.timeline;
  t.keyframes.clear();
  t.start_keyframe = -1;
  for (const SceneKeyframe& k : app.scene.keyframes) {
    ViewerKeyframe v;
    v.name = k.name;
    for (int i = 0; i < lane_count(app); ++i) {
      World lane = lane_world(app, i);
      apply_keyframe_lane(lane, k.lanes[std::min(size_t(i), k.lanes.size() - 1)]);
      v.lanes.push_back(std::move(lane));
    }
    v.errors.assign(v.lanes.size(), std::string());
    v.step = v.lanes[0].step_count();
    v.time = v.lanes[0].time();
    t.keyframes.push_back(std::move(v));
  }
}

// The history starts again from the lanes as they are; a recording is written up to where it was, and starts again
// when the lanes are at their scene's start (a reset), else ends there.
void restart_history(AppState& app) {
  TimelineState& t = app.timeline;
  const bool new_scene = t.generation != app.scene.generation;
  if (t.recording && !t.history.empty()) {
    std::string why;
    if (!write_replay_recording(app, &why)) t.error = why;
    if (begin_recording(app, &why)) {
      if (t.record_generation != app.scene.generation) t.message = "recording " + app.scene.world.name + " into " + t.record_path;
    } else {
      t.recording = false;
      t.message = "the replay " + t.record_path + " ends at step " + std::to_string(t.record.steps) +
                  " (the run left its start: " + why + ")";
    }
  }
  if (new_scene) {
    t.replaying = t.replaying && t.replay.start.scene_file == app.scene.path && app.scene.world.step_count() == 0;
    keyframes_from_scene(app);
  }
  t.history.clear();
  t.shown = -1;
  t.generation = app.scene.generation;
  push_frame(app);
}

// A replay being played: its edits of this step go on the lanes.
void apply_replay_edits(AppState& app) {
  TimelineState& t = app.timeline;
  if (!t.replaying || app.scene.world.step_count() >= t.replay.steps) return;
  std::string error;
  if (!apply_edits_of_step(t.replay.edits, t.replay_next, lane_pointers(app), lane_errors(app), &error)) {
    t.replaying = false;
    t.error = "replay stopped: " + error;
  }
}

// At the replay's last step: the lanes compared with the states the recording ended in.
void check_replay_end(AppState& app) {
  TimelineState& t = app.timeline;
  if (!t.replaying || t.replay_checked || app.scene.world.step_count() < t.replay.steps) return;
  t.replay_checked = true;
  app.sim.playing = false;
  std::string differences;
  bool same = int(t.replay.ends.size()) == lane_count(app);
  for (int i = 0; same && i < lane_count(app); ++i) {
    const World& w = lane_world(app, i);
    const LaneEnd& end = t.replay.ends[size_t(i)];
    same = w.step_count() == end.step && w.time() == end.time && state_hash(w) == end.hash;
  }
  t.message = "replay ended at step " + std::to_string(t.replay.steps) +
              (same ? ": every lane in the recorded state, bit for bit" : ": NOT the recorded state (see the lanes)");
}

}  // namespace

// --- stepping -----------------------------------------------------------------------------------------------------

void timeline_before_step(AppState& app) {
  TimelineState& t = app.timeline;
  if (!continues_history(app)) restart_history(app);
  if (t.shown >= 0 && t.shown < t.history.size() - 1) {
    // Resuming from a past step: the steps after it are gone, and so are the edits recorded before them.
    const int64_t step = t.history.at(t.shown).step;
    t.history.truncate_after(t.shown);
    if (t.recording) {
      while (t.record.edits.size() > t.record_start_edits && t.record.edits.back().step >= step) t.record.edits.pop_back();
    }
    t.replay_next = 0;
    t.replay_checked = false;
    if (!app.pick.dragging)  // a spring held at that step is let go (the mouse is not holding it now)
      for (World* w : lane_pointers(app)) w->clear_drag();
  }
  t.shown = -1;
  apply_replay_edits(app);
  if (t.recording) {
    std::vector<World*> lanes = lane_pointers(app);
    record_edits(t.history.back().lanes, lanes, lane_errors(app), t.record.edits);
  }
}

void timeline_after_step(AppState& app) {
  push_frame(app);
  check_replay_end(app);
}

void timeline_frame(AppState& app, double real_seconds) {
  TimelineState& t = app.timeline;
  t.history.set_budget(uint64_t(std::max(1.0f, t.budget_mb)) << 20);
  if (!continues_history(app)) restart_history(app);
  // Simulated seconds per wall second, over windows of half a second or more while the run itself advances.
  const double now = app.scene.world.time();
  const bool running = app.sim.playing && app.sim.step_error.empty() && t.shown < 0;
  if (running && t.rtf_last_time >= 0.0 && now >= t.rtf_last_time) {
    t.rtf_sim += now - t.rtf_last_time;
    t.rtf_wall += real_seconds;
    if (t.rtf_wall >= 0.5) {
      t.rtf = t.rtf_sim / t.rtf_wall;
      t.rtf_sim = t.rtf_wall = 0.0;
    }
  } else if (!running) {
    t.rtf_sim = t.rtf_wall = 0.0;
  }
  t.rtf_last_time = now;
}

// --- history ------------------------------------------------------------------------------------------------------

void show_frame(AppState& app, int frame) {
  TimelineState& t = app.timeline;
  if (t.history.empty()) return;
  frame = std::clamp(frame, 0, t.history.size() - 1);
  const HistoryFrame& f = t.history.at(frame);
  put_lanes(app, f.lanes, f.errors);
  t.shown = frame == t.history.size() - 1 ? -1 : frame;
  app.sim.playing = false;
}

int shown_frame(const AppState& app) {
  const TimelineState& t = app.timeline;
  return t.shown >= 0 ? t.shown : t.history.size() - 1;
}

bool step_back(AppState& app) {
  if (!continues_history(app)) restart_history(app);
  const int at = shown_frame(app);
  if (at <= 0) return false;
  show_frame(app, at - 1);
  return true;
}

bool step_forward(AppState& app) {
  if (!continues_history(app)) restart_history(app);
  app.sim.playing = false;
  if (app.timeline.shown >= 0) {
    show_frame(app, app.timeline.shown + 1);
    return true;
  }
  return step_once(app);
}

// --- keyframes ----------------------------------------------------------------------------------------------------

int save_keyframe(AppState& app) {
  TimelineState& t = app.timeline;
  ViewerKeyframe k;
  for (int i = 0; i < lane_count(app); ++i) k.lanes.push_back(lane_world(app, i));
  k.errors = lane_errors(app);
  k.step = app.scene.world.step_count();
  k.time = app.scene.world.time();
  // A name not taken yet (the scene file's keyframes keep theirs).
  for (int n = int(t.keyframes.size()) + 1;; ++n) {
    const std::string name = "key " + std::to_string(n);
    if (std::none_of(t.keyframes.begin(), t.keyframes.end(), [&](const ViewerKeyframe& o) { return o.name == name; })) {
      k.name = name;
      break;
    }
  }
  t.keyframes.push_back(std::move(k));
  t.message = "kept " + t.keyframes.back().name + " at step " + std::to_string(t.keyframes.back().step);
  return int(t.keyframes.size()) - 1;
}

bool restore_keyframe(AppState& app, int i, std::string* error) {
  TimelineState& t = app.timeline;
  if (i < 0 || i >= int(t.keyframes.size())) {
    *error = "no such keyframe";
    return false;
  }
  const ViewerKeyframe& k = t.keyframes[size_t(i)];
  if (int(k.lanes.size()) != lane_count(app)) {
    *error = k.name + " holds " + std::to_string(k.lanes.size()) + " lanes, the comparison has " +
             std::to_string(lane_count(app)) + ": restore it with as many lanes";
    return false;
  }
  put_lanes(app, k.lanes, k.errors);
  app.sim.playing = false;
  t.replaying = false;
  restart_history(app);
  t.message = "restored " + k.name + " (step " + std::to_string(k.step) + ")";
  return true;
}

std::vector<SceneKeyframe> keyframes_for_saving(const AppState& app, const World& saved, std::string* start) {
  const TimelineState& t = app.timeline;
  std::vector<SceneKeyframe> keys;
  for (const ViewerKeyframe& k : t.keyframes) {
    SceneKeyframe s;
    s.name = k.name;
    for (const World& lane : k.lanes) s.lanes.push_back(keyframe_lane_of(lane, saved.time(), saved.step_count()));
    keys.push_back(std::move(s));
  }
  start->clear();
  if (t.start_keyframe >= 0 && t.start_keyframe < int(t.keyframes.size())) *start = t.keyframes[size_t(t.start_keyframe)].name;
  return keys;
}

// --- replays ------------------------------------------------------------------------------------------------------

bool start_replay_recording(AppState& app, const std::string& path, std::string* error) {
  if (const std::string why = check_output(app, path, "--record"); !why.empty()) {
    *error = why;
    return false;
  }
  TimelineState& t = app.timeline;
  if (!continues_history(app)) restart_history(app);
  t.record_path = path;
  if (!begin_recording(app, error)) {
    *error = "cannot record: " + *error + " (a replay starts at the scene's start: Reset, then Record)";
    return false;
  }
  t.message = "recording into " + path;
  return true;
}

bool write_replay_recording(AppState& app, std::string* error) {
  TimelineState& t = app.timeline;
  if (t.record_path.empty() || t.record.start.solvers.empty() || t.history.empty()) return true;
  // The run up to its newest step (a past frame on screen does not cut it).
  const HistoryFrame& back = t.history.back();
  std::vector<const World*> lanes;
  for (const World& w : back.lanes) lanes.push_back(&w);
  if (lanes.size() != t.record.start.solvers.size()) return true;  // lanes changed since: written before
  finish_replay(t.record, lanes, back.errors);
  if (const std::string why = check_output(app, t.record_path, "--record"); !why.empty()) {
    *error = why;
    return false;
  }
  return write_output_file(t.record_path, replay_to_text(t.record), "replay file", *error);
}

bool open_replay(AppState& app, const std::string& path, std::string* error) {
  Replay replay;
  if (!read_replay_file(path, replay, error)) return false;
  if (!open_scene(app, replay.start.scene_file, nullptr, error, &replay.start.scene_text)) {
    *error = path + ": " + *error;
    return false;
  }
  std::vector<World> lanes;
  if (!make_start_lanes(app.scene.loaded, app.scene.keyframes, replay.start, lanes, error)) {
    *error = path + ": " + *error;
    return false;
  }
  put_lanes(app, lanes, std::vector<std::string>(lanes.size()));
  TimelineState& t = app.timeline;
  t.replay = std::move(replay);
  t.replay_path = path;
  t.replay_next = 0;
  t.replay_checked = false;
  t.generation = -1;  // a new history from the replay's start
  restart_history(app);
  t.replaying = true;
  t.message = "playing " + path + " (" + std::to_string(t.replay.steps) + " steps, " +
              std::to_string(t.replay.edits.size()) + " edits)";
  return true;
}

}  // namespace cl::viewer
