// What the viewer's timeline remembers (timeline.h): the history of every lane's states, the keyframes, the replay
// being recorded or played, and the real-time factor achieved.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/history.h"
#include "replay/replay_file.h"
#include "world/world.h"

namespace cl::viewer {

// A keyframe in memory: a whole copy of every lane (contacts and warm starts included), so that a run restored
// from it goes on bit for bit. Saved into the scene as the scene format keeps keyframes (scene_keyframes.h).
struct ViewerKeyframe {
  std::string name;
  int64_t step = 0;
  double time = 0.0;
  std::vector<World> lanes;
  std::vector<std::string> errors;
};

struct TimelineState {
  StateHistory history;  // every lane after each step, to its budget (the newest frame always kept)
  int shown = -1;        // the history frame on screen; -1 the newest (the run itself)
  int generation = -1;   // the scene generation the history belongs to
  float budget_mb = float(StateHistory::kDefaultBudget >> 20);  // the setting (MiB)

  std::vector<ViewerKeyframe> keyframes;
  int start_keyframe = -1;  // the keyframe a saved scene starts from ("start"), -1: its bodies as given

  // --record FILE: the run as a replay, written when the viewer closes (or Stop in the timeline window).
  std::string record_path;
  bool recording = false;
  Replay record;
  size_t record_start_edits = 0;  // the edits at the recording's start (the options), kept when resuming earlier
  int record_generation = -1;     // the scene generation the recording belongs to

  // --replay FILE: the replay being played; its edits go on the lanes before their steps.
  std::string replay_path;
  bool replaying = false;
  Replay replay;
  size_t replay_next = 0;
  bool replay_checked = false;  // the end of the replay was reached and compared with the recording

  // The real-time factor: simulated seconds per wall second over the last half second or more of running.
  double rtf = 0.0;
  double rtf_sim = 0.0, rtf_wall = 0.0;
  double rtf_last_time = -1.0;

  std::string message, error;
};

}  // namespace cl::viewer
