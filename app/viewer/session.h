// The simulation side of the viewer (no GL, no ImGui): finding, loading, resetting and saving scenes,
// stepping the world in real time, and feeding the statistics and the recorder.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "solvers/volume/volume_solver.h"
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
// Points the camera at the selected body, or with none at every body (planes excluded), from its current
// direction (key F; every scene is framed so on load).
void frame_scene(AppState& app);
// Opens the scene `offset` places after the current one in the scenes/ list (wrapping; -1 the previous). A scene
// outside the list opens the first (or last). False with *error when it fails to load (the current one stays).
bool open_neighbour_scene(AppState& app, int offset, std::string* error);
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

// --- volume contacts (the `volume` solver's debug capture) ------------------------------------------------
// The world's solver as the `volume` solver, or null under another method.
const VolumeSolver* active_volume_solver(const World& world);
// True while a View panel toggle needs the volume solver's capture (volumes, gradients or cells).
bool wants_volume_capture(const ViewState& view);
// Before each step (step_once calls it): the solver records its collision stage (set_debug_capture) only while
// a volume toggle is on and the view asks for the last collision stage (ViewState::volume_last_stage); off
// otherwise, which drops its records. For every comparison lane under `volume`; nothing under other solvers.
void sync_volume_capture(AppState& app);
// Once per frame, after stepping: every pair the next step would collide that has no current record is recorded
// at the drawn poses (VolumeSolver::capture_now), so a paused view shows the volumes at once and, with
// volume_last_stage off, the drawing follows the bodies (one more depth image per pair and frame). With every
// volume toggle off, all records are dropped and nothing is computed. For every lane under `volume`.
void refresh_volume_capture(AppState& app);
// The records that describe the world as drawn, in pair order: those of the last collision stage for pairs the
// world still has an edge for, and those taken at the current poses and parameters. Empty under other solvers.
std::vector<const VolumeSolver::DebugPair*> current_volume_captures(const World& world, const ViewState& view);

// A file name (without extension) for what the viewer writes: <scene>[-<what>]-<date>-<time>, the names made
// safe for a file name (anything but letters, digits, '-' and '_' becomes '_').
std::string output_name(const AppState& app, const std::string& what);
// Creates the output folder (UiState::output_dir) when it does not exist yet; false with *error if it cannot.
bool make_output_dir(const AppState& app, std::string* error);
// The file whose presence says the welcome was shown: $XDG_CONFIG_HOME/contactlab/welcomed (else
// $HOME/.config/contactlab/welcomed); "" without either variable (then it is never shown).
std::string welcome_marker_path();
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
// Removes lane i (>= 1: lane 1 is the scene itself).
void remove_lane(AppState& app, int lane);
// Switches lane i's method while it runs (as the Solver panel does for lane 1); its curves start afresh.
bool switch_lane_solver(AppState& app, int lane, const std::string& name, std::string* error);
// The lanes as the scene's "lanes" key saves them: each extra lane's method and the parameters it sets on top
// of the scene's for that method.
std::vector<LaneSpec> lane_specs(const AppState& app);
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

// --- selection ---------------------------------------------------------------------------------------
// Selects a body (-1: nothing) and drops any joint selection. A sleeping body is woken: the user is about
// to look at it or pull it, and a frozen body would look broken.
void select_body(AppState& app, int body);
// Selects a joint (-1: nothing) and drops any body selection.
void select_joint(AppState& app, int joint);
// Window position (ImGui units, from the top-left corner) of a world point; false if behind the camera.
bool project_to_window(const AppState& app, const Vec3& point, float* x, float* y);
// World position of a joint's anchor on its body a (side 0) or b (side 1), and its first axis (carried by
// body a) or second axis (carried by body b). A body index of -1 is the world frame.
Vec3 joint_anchor_world(const World& world, const Joint& joint, int side);
Vec3 joint_axis_world(const World& world, const Joint& joint, bool second);
// For joints with an angle about the first axis (hinge, hinge-2, universal): unit directions across the
// axis at the angle 0 (*zero) and at the current angle (*needle), so that the needle lies at
// joint_coordinate from zero, right-handed about joint_axis_world(first). False for other types.
bool joint_angle_frame(const World& world, const Joint& joint, Vec3* zero, Vec3* needle);
// The joint whose anchor is drawn nearest to window point (x, y), within `radius` (ImGui units); -1 if none.
int pick_joint(const AppState& app, float x, float y, float radius);
// Changes a joint's limit, motor, ERP and CFM in the running world and in the reset state (like the
// solver's parameters, these are settings the user tunes, so Reset keeps them), and wakes its bodies.
void set_joint_settings(AppState& app, int joint, const JointLimit& limit, const JointMotor& motor, double erp,
                        double cfm);

// --- joint servos: keyboard and panel control ------------------------------------------------------------
// Indices of the joints that have a servo (hinges and sliders with "servo" in the scene), in order.
std::vector<int> servo_joints(const World& world);
// The values a servo's target may take: its range, within [-pi, pi] for a hinge (the angles scene files
// accept, so that a driven target still saves into a loadable file).
void servo_target_bounds(const Joint& joint, double* lower, double* upper);
// Sets the running world's servo target of `joint`, clamped to servo_target_bounds, and wakes the joint's
// bodies when it changed (a sleeping arm would otherwise ignore its new target). Reset goes back to the
// target of the file, like the bodies' poses. False if the joint has no servo or the target did not change.
bool set_joint_servo_target(AppState& app, int joint, double target);
// Moves a servo's target by direction * rate * seconds (direction > 0 raises it, < 0 lowers it, 0 nothing),
// clamped like set_joint_servo_target, and wakes the bodies when it moved.
bool drive_servo(AppState& app, int joint, int direction, double seconds);
// Drives every servo whose keys are in app.servos.held for `seconds` (a key pair held together cancels).
// step_once calls it before each step with the step's dt, so a held key moves the target at `rate` per
// simulated second while the simulation runs.
void drive_held_servos(AppState& app, double seconds);
// The key bindings of a servo for display: "U / J" (raise / lower); "" when it has none.
std::string servo_key_label(const JointServo& servo);
// The letter and digit keys the viewer uses itself (lower case), which servos may not take: the scene
// loader refuses them (kServoReservedKeys in joints/joint.h must list them all).
std::string viewer_shortcut_keys();

// --- scripted motion ---------------------------------------------------------------------------------
// Index into World::scripts of the script driving `body`, -1 if none.
int find_script(const World& world, int body);
// Makes app.script the draft of `body`: a copy of its script if it has one, else empty. Does nothing if
// the draft already belongs to that body in this scene.
void load_script_draft(AppState& app, int body);
// "Script path" mode for the selected body: clicks add points. A new path starts at the body's centre.
bool begin_script_path(AppState& app, std::string* error);
void end_script_path(AppState& app);
// Where a click along the ray puts the body's centre: on the first surface hit (the body itself
// excluded), lifted along the surface normal by the body's extent so that it rests on that surface;
// on the horizontal plane through the body's centre when nothing is hit or `plane_only`.
std::optional<Vec3> script_point_from_ray(const World& world, int body, const Vec3& origin, const Vec3& dir,
                                          bool plane_only);
bool add_script_point(AppState& app, const Vec3& origin, const Vec3& dir);
void remove_last_script_point(AppState& app);
// The draft as a script starting at `start_time`.
Script draft_script(const ScriptEditState& draft, double start_time);
// Commits the draft: the body becomes kinematic (infinite mass; its original mass is remembered), goes to
// the first point and follows the path from now + delay. The reset state gets the same script starting
// at `delay`, so Reset replays it and Save writes it. False (and *error) without 2 points or a speed > 0.
bool apply_script(AppState& app, std::string* error);
// Removes the draft body's script from the running world and the reset state; with `make_dynamic` the
// body gets back the kind and mass it had before Apply (or draft.restore_density if it was scripted in
// the file).
void clear_script(AppState& app, bool make_dynamic);
// Changes a running script's speed without making the body jump: the start time moves so that the body
// keeps its place along the path. Also changes the reset state's copy.
void set_script_speed(AppState& app, int body, double speed);

// --- view settings without the mouse (screenshots, CONTACTLAB_VIEW) ---------------------------------------
// A comma-separated list such as "graph,heights,layer=2,-sleeping,select=box3,joint=0,path,panel":
// overlay names (contacts, normals, impulses, grid, shadows, wireframe, graph, proximity, sleeping, joints,
// scripts) turn on, with a leading '-' off; "color=body|group|height|layer" (or groups, heights, layers)
// picks the body colouring; "layer=N" highlights stack layer N; "select=NAME" selects a body, "joint=N"
// a joint; "path" starts Script path mode for the selected body, "point=X:Y:Z" adds a point to it as a
// click would, "apply" applies it; "tab=script" / "tab=settings" shows the Inspector's Script tab or a
// joint's settings tab; "panel" opens the View panel;
// "zoom=F" moves the camera F times closer, "yaw=DEG" / "pitch=DEG" turn it, "focus=NAME" aims it at a body;
// the volume solver's views: "volumes" (or "volumes=xz": only those image axes), "gradients", "cells",
// "laststage" (as of the last collision stage instead of at the drawn poses).
// Applied in order; false (and *error naming the token) at the first unknown or bad token.
bool apply_view_spec(AppState& app, const std::string& spec, std::string* error);

}  // namespace cl::viewer
