// Scripted motion drawn in the viewer: a draft path of clicked points, applied as a body's script.
#pragma once

#include <optional>
#include <string>

#include "viewer/viewer_state.h"

namespace cl::viewer {

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

}  // namespace cl::viewer
