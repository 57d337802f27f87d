// The `volume` solver's views in the viewer (intersection volumes, vertex gradients, cells): when the solver
// records its debug capture, and which of its records describe the world as drawn.
#pragma once

#include <vector>

#include "solvers/volume/volume_solver.h"
#include "viewer/viewer_state.h"

namespace cl::viewer {

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

}  // namespace cl::viewer
