// The simulation side of the viewer (no GL, no ImGui): finding, loading, resetting and saving scenes,
// stepping the world in real time, and feeding the statistics and the recorder.
#pragma once

#include <string>
#include <vector>

#include "viewer/viewer.h"
#include "viewer/viewer_state.h"

namespace cl::viewer {

// Directory with scenes/ and shaders/: $CONTACTLAB_HOME if set, else the source tree.
std::string resolve_root();
// *.json file names in <root>/scenes, sorted.
std::vector<std::string> list_scene_files(const std::string& root);
// A typed path as given if it exists, else tried under <root>/scenes and <root>; unchanged otherwise
// (so that the loader's error names what the user typed).
std::string resolve_scene_path(const std::string& root, const std::string& typed);

// Loads a scene file and applies the command-line overrides (solver, --set, --dt) when `overrides` is
// given. On success replaces the current scene; on failure leaves it alone and returns the message.
bool open_scene(AppState& app, const std::string& path, const ViewerOptions* overrides, std::string* error);
// Reads the current file again (keeping the UI's solver settings if scene.keep_settings_on_reset).
bool reload_scene(AppState& app, std::string* error);
// Points the camera at the bodies (planes excluded) from its current direction.
void frame_scene(AppState& app);
// Back to the loaded state (keeping the UI's solver settings if scene.keep_settings_on_reset).
void reset_scene(AppState& app);
bool save_scene_as(AppState& app, const std::string& path, std::string* error);

// Advances the world by `real_seconds` of wall time times the speed factor, in whole steps of
// settings.dt, at most sim.max_steps_per_frame of them. Does nothing while paused or after an error.
void advance_simulation(AppState& app, double real_seconds);
// One step regardless of play/pause (the Step button and screenshot mode). False if the step failed.
bool step_once(AppState& app);

// Switches the running world's solver; false (and *error) if the name is unknown.
bool switch_solver(AppState& app, const std::string& name, std::string* error);

// Recording of per-step statistics; Stop writes <timestamp>.csv and .trace.json in the current directory.
void start_recording(AppState& app);
void stop_recording(AppState& app);

}  // namespace cl::viewer
