// Replays: what a run needs to take its steps again, bit for bit. A replay file ("contactlab_replay": 1, JSON)
// holds
//   - the scene: its file's text as the run loaded it (the scene's own start keyframe included), and the file's
//     name, which meshes are found beside;
//   - the methods: each lane's solver (lane 1 is the scene's own);
//   - the edits: what the user changed in each lane before each step (the mouse spring, servo keys, materials,
//     joints, scripts, parameters, the method, dt; replay/edits.h), including those of the command line and of
//     the keyframe the run was restored from, at step 0;
//   - the steps taken, and the state each lane ended in (its state_hash), which a replay checks.
// A replay starts from the scene as loaded, each lane made as a comparison lane of it (make_lane) and, when the
// run was restored from one of the scene's keyframes, set to it; then before each step each lane takes its edits.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/task_pool.h"
#include "replay/edits.h"
#include "scene/scene.h"
#include "world/world.h"

namespace cl {

// The replay format this version writes and reads. 1: the first (body, joint, settings and spring fields as
// edits.cpp lists them).
inline constexpr int kReplayFormat = 1;

struct ReplayStart {
  std::string scene_file;  // the scene file's name as the run gave it
  std::string scene_text;  // its text as loaded
  std::vector<std::string> solvers;  // each lane's method, lane 1 first
  std::string keyframe;    // the scene keyframe the run restarted from ("": the scene's start)
};

struct LaneEnd {
  int64_t step = 0;
  double time = 0.0;
  uint64_t hash = 0;   // state_hash of the lane's last state
  std::string error;   // why the lane stopped, "" if it ran to the end
};

struct Replay {
  ReplayStart start;
  std::vector<Edit> edits;   // in the order of their steps, lane by lane
  int64_t steps = 0;         // lane 1's steps
  std::vector<LaneEnd> ends;  // by lane
};

std::string replay_to_text(const Replay& replay);
// Reads a replay file. Refuses (false with *error naming the file) anything but format kReplayFormat, with a
// message that says which version wrote it and what to do.
bool read_replay_file(const std::string& path, Replay& out, std::string* error);
bool parse_replay_text(std::string_view text, const std::string& label, Replay& out, std::string* error);

// The lanes a replay starts from: each a lane of `scene` (make_lane) under its solver, set to the scene keyframe
// `start.keyframe` when it names one. `keyframes` are the scene's (SceneLoadResult::keyframes).
bool make_start_lanes(const World& scene, const std::vector<SceneKeyframe>& keyframes, const ReplayStart& start,
                      std::vector<World>& lanes, std::string* error);

// --- recording --------------------------------------------------------------------------------------------------
// The edits that make the lanes a replay of `start` begins with (make_start_lanes of `scene`, the scene as loaded
// before any command-line option) into the lanes the run actually starts from (its --solver, --set, --dt, the
// parameters kept across a reset, a keyframe), at the lanes' step. False with *error when the start lanes cannot
// be made.
bool start_edits(const World& scene, const std::vector<SceneKeyframe>& keyframes, const ReplayStart& start,
                 std::span<const World* const> lanes, std::vector<Edit>& out, std::string* error);
// Appends the edits that make each lane of `now` from the same lane of `before` (the lanes as their last step left
// them), at lane 1's step; lanes that have stopped (a non-empty error) are skipped. Returns how many it appended.
int record_edits(std::span<const World> before, std::span<World* const> now, const std::vector<std::string>& errors,
                 std::vector<Edit>& edits);
// Drops the edits of step `step` and later (the run resumed from step `step`).
void drop_edits_from(std::vector<Edit>& edits, int64_t step);
// Fills in the steps and each lane's end from the lanes as the run leaves them.
void finish_replay(Replay& replay, std::span<const World* const> lanes, const std::vector<std::string>& errors);

// Steps a replay: loads its scene, makes its lanes, and before each step puts on each lane the edits of that step.
class ReplayPlayer {
 public:
  // False with *error when the scene does not load or a lane cannot be made.
  bool begin(const Replay& replay, std::string* error);
  // One step of every lane still running, after its edits; false when lane 1 has stopped or the replay's steps are
  // all taken. *error tells an edit that did not fit (a broken file).
  bool step(TaskPool& pool, std::string* error);
  bool done() const;

  std::vector<World>& lanes() { return lanes_; }
  const std::vector<World>& lanes() const { return lanes_; }
  const std::vector<std::string>& errors() const { return errors_; }
  const SceneLoadResult& scene() const { return scene_; }
  // Whether each lane ended where the recording did (step, time and state hash), with a line per lane that differs.
  bool matches_recording(std::string* differences) const;

 private:
  const Replay* replay_ = nullptr;
  SceneLoadResult scene_;
  std::vector<World> lanes_;
  std::vector<std::string> errors_;
  size_t next_edit_ = 0;
};

// Puts on `lanes` every edit of `edits` for the step the lanes are at (lane 1's step count), from `next` on (edits
// are in step order); advances `next` past them. Lanes that have stopped (a non-empty error) are skipped.
bool apply_edits_of_step(const std::vector<Edit>& edits, size_t& next, std::vector<World*> lanes,
                         const std::vector<std::string>& errors, std::string* error);

}  // namespace cl
