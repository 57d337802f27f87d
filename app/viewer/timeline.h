// The viewer's timeline (no GL, no ImGui): the history of every lane's states, stepping back and forward through
// it, resuming from a past step, keyframes, recording the run as a replay (--record) and playing one (--replay),
// and the real-time factor achieved. The Timeline window (panels_timeline.cpp) draws it.
//
// A World is a value: each history frame and keyframe is a whole copy of every lane, contacts and the solvers'
// warm starts included, so a run resumed from one goes on bit for bit as it went the first time. Showing a frame
// puts its copies in the lanes, so every overlay (contacts, graph, layers, forces, the method's drawing) is that of
// the step shown; the newest frame is always the run itself.
#pragma once

#include <string>

#include "viewer/viewer_state.h"

namespace cl::viewer {

// --- stepping: hooks of step_once (session.cpp) -------------------------------------------------------------------
// Before a step, with every lane as it is about to step (the user's changes made, lane 1's synced to the others):
// resuming from a past frame drops the frames (and recorded edits) after it; a replay being played puts its edits
// of this step on the lanes; a recording takes what the user changed since the last step as edits.
void timeline_before_step(AppState& app);
// After a step (also one that failed): the lanes as the newest frame of the history.
void timeline_after_step(AppState& app);
// Once a frame: notices a new scene, a reset or a change of lanes (the history starts again from the lanes as they
// are), keeps the history's budget as set, and measures the real-time factor over `real_seconds` of wall time.
void timeline_frame(AppState& app, double real_seconds);

// --- history ----------------------------------------------------------------------------------------------------
// Puts history frame i (0 the oldest held) in the lanes and pauses; the newest frame is the run itself.
void show_frame(AppState& app, int frame);
// The frame on screen (the newest when the run itself is shown).
int shown_frame(const AppState& app);
// One step back through the history (false at the oldest frame held).
bool step_back(AppState& app);
// One step forward: the next frame held, or at the newest a new step (false when it fails).
bool step_forward(AppState& app);

// --- keyframes ----------------------------------------------------------------------------------------------------
// Keeps every lane as it is shown as a keyframe ("key N"); returns its index.
int save_keyframe(AppState& app);
// Puts keyframe i in the lanes (paused); the history starts again from it. A recording ends there (a replay starts
// from a scene or one of its file's keyframes).
bool restore_keyframe(AppState& app, int i, std::string* error);
// The keyframes as the scene file keeps them, relative to `saved` (the world being saved: its clock becomes the
// file's 0), and the name of the one the scene starts from ("" for none).
std::vector<SceneKeyframe> keyframes_for_saving(const AppState& app, const World& saved, std::string* start);

// --- replays ----------------------------------------------------------------------------------------------------
// Starts recording the run as it is from its start (the lanes at step 0 or at a scene keyframe), into `path` when
// stopped. False with *error (the file cannot be written there, the lanes are not at a start).
bool start_replay_recording(AppState& app, const std::string& path, std::string* error);
// Writes the recording (the steps up to the newest frame) to its file through a temporary file; false with
// *error. The recording goes on.
bool write_replay_recording(AppState& app, std::string* error);
// Opens a replay file: its scene, lanes and edits, paused at its start, to be played by the timeline.
bool open_replay(AppState& app, const std::string& path, std::string* error);

}  // namespace cl::viewer
