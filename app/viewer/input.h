// Mouse and keyboard in the 3D view: orbit/pan/zoom the camera, click to select a body (or a joint near
// its anchor), drag it with a spring, lay script paths point by point, and a few shortcut keys. Input
// that ImGui wants (over a panel, typing) is left to ImGui.
#pragma once

#include "viewer/viewer_state.h"

namespace cl::viewer {

// Call once per frame between ImGui::NewFrame and the simulation step.
void handle_view_input(AppState& app);

// Picking pieces, separate so that they can be driven without a mouse.
// Selects the body under the ray (waking it) and, if it is dynamic, starts dragging it at the hit point.
void begin_pick(AppState& app, const Ray& ray, int lane = 0);
// Moves the drag target to where the ray meets the drag plane and updates the world's spring.
void update_drag(AppState& app, const Ray& ray);
void end_drag(AppState& app);

}  // namespace cl::viewer
