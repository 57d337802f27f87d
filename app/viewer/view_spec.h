// The starting view set without the mouse (--view, CONTACTLAB_VIEW): overlays, selection, camera, panels.
#pragma once

#include <string>

#include "viewer/viewer_state.h"

namespace cl::viewer {

// A comma-separated list such as "graph,heights,layer=2,-sleeping,select=box3,joint=0,path,panel":
// overlay names (contacts, normals, impulses, grid, shadows, wireframe, graph, proximity, sleeping, joints,
// scripts) turn on, with a leading '-' off; "color=body|group|height|layer" (or groups, heights, layers)
// picks the body colouring; "layer=N" highlights stack layer N; "select=NAME" selects a body, "joint=N"
// a joint; "path" starts Script path mode for the selected body, "point=X:Y:Z" adds a point to it as a
// click would, "apply" applies it; "tab=script" / "tab=settings" shows the Inspector's Script tab or a
// joint's settings tab; "panel" opens the View panel, "compare" the Compare panel, "browser" the scene browser,
// "help" the F1 overlay, "welcome" the welcome, "hideui" hides the panels;
// "zoom=F" moves the camera F times closer, "yaw=DEG" / "pitch=DEG" turn it, "focus=NAME" aims it at a body;
// the volume solver's views: "volumes" (or "volumes=xz": only those image axes), "gradients", "cells",
// "laststage" (as of the last collision stage instead of at the drawn poses).
// Applied in order; false (and *error naming the token) at the first unknown or bad token.
bool apply_view_spec(AppState& app, const std::string& spec, std::string* error);

}  // namespace cl::viewer
