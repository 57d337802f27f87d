// The simulation side of the viewer (no GL, no ImGui): finding, loading, resetting and saving scenes,
// stepping the world in real time, comparison lanes, and feeding the statistics and the recorder. Selection,
// servo control, script editing, the --view spec and the solvers' own drawing have their own files
// (selection.h, servo_control.h, script_edit.h, view_spec.h, debug_view.h).
#pragma once

#include <string>
#include <vector>

#include "viewer/viewer.h"
#include "viewer/viewer_state.h"

namespace cl::viewer {

// Directory with scenes/ and shaders/: $CONTACTLAB_HOME if set, else the source tree.
std::string resolve_root();
// *.json file names (regular files) in the folder `dir`, sorted; none when it cannot be read.
std::vector<std::string> list_json_files(const std::string& dir);
// *.json file names in <root>/scenes, sorted.
std::vector<std::string> list_scene_files(const std::string& root);
// A typed path as given if it exists, else tried under <root>/scenes and <root>; unchanged otherwise
// (so that the loader's error names what the user typed).
std::string resolve_scene_path(const std::string& root, const std::string& typed);

// Loads a scene file and applies the command-line overrides (solver, --set, --dt) when `overrides` is
// given. On success replaces the current scene; on failure leaves it alone and returns the message. With `text`
// the scene is that text (a replay's), `path` its file's name (meshes are found beside it).
bool open_scene(AppState& app, const std::string& path, const ViewerOptions* overrides, std::string* error,
                const std::string* text = nullptr);
// Reads the current file again (keeping the UI's solver settings if scene.keep_settings_on_reset).
bool reload_scene(AppState& app, std::string* error);
// Points the camera at the selected body, or with none at every body (planes excluded), from its current
// direction (key F; every scene is framed so on load). The bodies fit into the middle of the window, between
// the panel columns, or with `whole_window` into all of it (thumbnails, which have no panels).
void frame_scene(AppState& app, bool whole_window = false);
// Follows the selected body with the camera (key C): the camera's target moves with it, keeping the user's orbit,
// zoom and pan; with nothing selected, or the followed body selected, the camera is freed instead.
void toggle_follow(AppState& app);
// Moves the camera's target by how far the followed body moved since the last call (once per frame).
void follow_camera(AppState& app);
// Opens the scene `offset` places after the current one in the scenes/ list (wrapping; -1 the previous). A scene
// outside the list opens the first (or last). False with *error when it fails to load (the current one stays).
bool open_neighbour_scene(AppState& app, int offset, std::string* error);
// Back to the loaded state (keeping the UI's solver settings if scene.keep_settings_on_reset).
void reset_scene(AppState& app);
// Saves the running scene to `path` (written whole to a temporary file, then put in place). Refused with *error:
// a mesh file the scene reads, a directory, a folder that takes no file, and the open scene itself unless
// `overwrite_open_scene` (the user confirmed): then its old text is kept in <path>.bak first.
bool save_scene_as(AppState& app, const std::string& path, std::string* error, bool overwrite_open_scene = false);
// Whether `path` is the open scene's file (by identity: another name or link of it counts), for the question.
bool saving_over_open_scene(const AppState& app, const std::string& path);
// "" when the viewer may write `path` (`what` names it in the message): no file the open scene reads (the scene,
// its meshes), not a directory, in a folder that takes a new file.
std::string check_output(const AppState& app, const std::string& path, const char* what);

// Advances the world by `real_seconds` of wall time times the speed factor, in whole steps of
// settings.dt, at most sim.max_steps_per_frame of them. Does nothing while paused or after an error.
void advance_simulation(AppState& app, double real_seconds);
// One step regardless of play/pause (the Step button and screenshot mode). False if the step failed.
bool step_once(AppState& app);

// Switches the running world's solver; false (and *error) if the name is unknown.
bool switch_solver(AppState& app, const std::string& name, std::string* error);

// A file name (without extension) for what the viewer writes: <scene>[-<what>]-<date>-<time>, the names made
// safe for a file name (anything but letters, digits, '-' and '_' becomes '_').
std::string output_name(const AppState& app, const std::string& what);
// Creates the output folder (UiState::output_dir) when it does not exist yet; false with *error if it cannot.
bool make_output_dir(const AppState& app, std::string* error);
// The file whose presence says the welcome was shown: $XDG_CONFIG_HOME/contactlab/welcomed (else
// $HOME/.config/contactlab/welcomed); "" without either variable (then it is never shown).
std::string welcome_marker_path();
// With UiState::log_actions (test input), prints "frame N: what" on stdout: what a key, a click or a menu did.
void log_action(const AppState& app, const std::string& what);
// Writes the marker (best effort: a read-only home only means the welcome shows again).
void mark_welcomed();

// --- comparison lanes ---------------------------------------------------------------------------------------
// Lanes in the comparison: 1 (the scene alone) to kMaxLanes.
int lane_count(const AppState& app);
// Lane i's world, i from 0: lane 1 is the running scene (scene.world).
const World& lane_world(const AppState& app, int lane);
World& lane_world(AppState& app, int lane);
// Why lane i stopped ("" while it runs; lane 1's is sim.step_error).
const std::string& lane_error(const AppState& app, int lane);
// Adds a lane under `spec` and restarts every lane from the scene as loaded, so that they compare from one
// start. False (and *error) at kMaxLanes lanes, or for a solver the scene refuses or a bad parameter.
bool add_lane(AppState& app, const LaneSpec& spec, std::string* error);
// One lane per method the scene admits, lane 1 keeping the scene's own and the others in the registry's order
// (at most kMaxLanes), each at the parameters the scene gives that method; the lanes there were are replaced and
// every lane restarts from the scene's start (Compare menu, "Every method", F2). False (and *error) when the
// scene admits only its own method.
bool compare_every_method(AppState& app, std::string* error);
// The methods the Compare panel may still add as a lane: those the scene admits, in the registry's order.
std::vector<std::string> addable_lane_solvers(const AppState& app);
// Removes lane i (>= 1: lane 1 is the scene itself).
void remove_lane(AppState& app, int lane);
// Switches lane i's method while it runs (as the Solver panel does for lane 1); its curves start afresh.
bool switch_lane_solver(AppState& app, int lane, const std::string& name, std::string* error);
// The lanes as the scene's "lanes" key saves them: each extra lane's method and the parameters it sets on top
// of the scene's for that method.
std::vector<LaneSpec> lane_specs(const AppState& app);
// Opens another scene as open_scene does and keeps the comparison: the lanes' methods and parameters (lane 1's method
// too) become lanes of the new scene, from its start, unless the new file has lanes of its own. A method the new
// scene refuses is dropped and named in compare.error. The Scene panel, the menu, the browser and Page Down use it.
bool open_scene_keeping_lanes(AppState& app, const std::string& path, std::string* error);
// Clears every lane's plots (at a reset, a new scene, a lane added, removed or switched).
void clear_lane_plots(AppState& app);
// The lane whose split-view cell holds window point (x, y) (ImGui units), and that cell; lane 0 and the whole
// window outside the split layout.
struct LaneCell {
  float x = 0, y = 0, width = 0, height = 0;
};
LaneCell lane_cell(const AppState& app, int lane);
int lane_at(const AppState& app, float x, float y);
// True when the split layout is on screen (more than one lane and CompareLayout::Split).
bool split_view(const AppState& app);
// Colour of lane i (its plot curves, ghost bodies and label), rgb in [0, 1].
std::array<float, 3> lane_color(int lane);

// Recording of per-step statistics; Stop writes <scene>-<solver>-<timestamp>.csv and .trace.json in the current
// directory; with lanes <scene>-lanes-<timestamp>.csv (every lane, with lane, solver and scene columns), its
// .lanes.json sidecar and one .laneN.trace.json per lane.
void start_recording(AppState& app);
void stop_recording(AppState& app);

// Dense contact sets (a mesh pair under implicit-penalty has tens of thousands of points) would draw as solid
// bars: the contact overlay draws every k-th contact, k = contact_draw_stride(count), at most kMaxDrawnContacts.
inline constexpr size_t kMaxDrawnContacts = 3000;
size_t contact_draw_stride(size_t contacts);

// Tallest finite stack height of the world's last step (0 if none).
int max_stack_height(const World& world);

}  // namespace cl::viewer
