// The solvers' own drawing in the viewer (Solver::draw_debug, through World::draw_debug): the View panel's
// toggles as a DebugRequest, and per lane a recording of what the solver drew, made after each frame's steps
// and again after the panels, and kept while the poses, the step, the solver, its parameters and the request
// are unchanged (a paused view computes nothing more). The viewer never knows which solver draws what.
#pragma once

#include "viewer/viewer_state.h"

namespace cl::viewer {

// The request of the view's toggles: the method's own layer, the volume layers with their options, and the
// impulse scale of the Contacts section.
DebugRequest debug_request(const ViewState& view, double dt);
// True while a toggle asks for a volume layer (intersection volumes, gradients or cells).
bool wants_volume_layers(const ViewState& view);
// Before a lane's step (step_once calls it): keeps the poses of the step's collision stage while the view draws
// the volume layers as of the last collision stage (ViewState::volume_last_stage); drops them otherwise.
void remember_collision_poses(AppState& app, int lane, const World& world);
// Brings every lane's recording up to date (a solver draws again only when what it draws from changed). Drawn at
// the kept collision-stage poses when the view asks for them and they belong to the lane's last step, else at
// the current poses.
void refresh_debug_drawing(AppState& app);
// The recording of a lane (empty before its first refresh).
const DebugRecording& debug_recording(const AppState& app, int lane);

}  // namespace cl::viewer
