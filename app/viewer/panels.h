// The Dear ImGui panels, one function per panel. Each reads and edits only the AppState it is given.
// One file per window or group of windows: panels.cpp (where they go), menu_bar.cpp, panels_scene.cpp (Scene,
// Simulation, the scene's description, the scene browser), panels_solver.cpp (Solver, the unsupported banner),
// panels_view.cpp, panels_stats.cpp, panels_inspector.cpp, panels_servos.cpp, panels_compare.cpp (Compare, the lane
// labels), panels_header.cpp (the header above the view), panels_help.cpp (F1 help, welcome), panels_timeline.cpp
// (Timeline, REC); what they share in panels_shared.h, param_widget.h and slider.h.
#pragma once

#include <cstdint>
#include <functional>

#include "viewer/viewer_state.h"

namespace cl::viewer {

// Places and draws every panel (call between ImGui::NewFrame and ImGui::Render).
void draw_panels(AppState& app);

void draw_scene_panel(AppState& app);       // choose / open / reload / reset / save scenes
void draw_simulation_panel(AppState& app);  // play, pause, step, speed, dt
void draw_solver_panel(AppState& app);      // contact method and its published parameters
void draw_view_panel(AppState& app);        // overlays (contacts, contact graph, body colourings, sleeping,
                                            // joints, script paths), grid, wireframe, mouse drag spring
void draw_stats_panel(AppState& app);       // fps, stage timings, counters (groups, layers, sleeping), recording
void draw_inspector_panel(AppState& app);   // the selected body (Body and Script tabs) or joint (state and
                                            // live limit / motor / softness edits)
float draw_servos_panel(AppState& app);     // every joint servo: coordinate, target slider, key bindings
                                            // (only drawn when the scene has servos); returns its height (0: none)
// Comparison lanes: add, remove, method and parameters per lane, split or overlaid view; their plots as a grid
// that fits the panel's `height`.
void draw_compare_panel(AppState& app, float height);
void draw_lane_labels(AppState& app);       // each lane's solver and settings in the strip above its split cell
// The header above the 3D view at (x, y), `width` wide: the scene's description (whole, or folded to one line), the
// hint while the panels are hidden, what the active solver does not honour, the overlaid comparison's legend, every
// current error until closed, the last screenshot message. Returns its height (0 when it has nothing to show).
float draw_header(AppState& app, float x, float y, float width);
// The Timeline (panels_timeline.cpp): scrubber, step back / forward, keyframes, replays, real-time factor, at
// (x, y) `width` wide and timeline_panel_height() tall; and "REC ..." over the view while anything records.
float timeline_panel_height();
void draw_timeline_panel(AppState& app, float x, float y, float width);
void draw_recording_indicator(AppState& app);
void draw_help_overlay(AppState& app);      // F1: every key and mouse control
void draw_welcome(AppState& app);           // the first launch's welcome, until closed
// The scene browser (UiState::browser): the scenes of scenes/ grouped by the method they start with, each with its
// thumbnail (`thumbnail` gives its GL texture, 0 while it is being drawn), name, description and methods, narrowed
// by the search box; a click opens the scene. Between the panel columns, over the 3D view.
void draw_scene_browser(AppState& app, const std::function<uint32_t(const SceneEntry&)>& thumbnail);

// A lane for every method on the open scene (Compare menu, F2); a refusal shows in the Compare panel.
void compare_every_method_and_report(AppState& app);

// Opens the next (offset 1) or previous (-1) scene of scenes/; a failure shows in the Scene panel.
void open_neighbour_and_report(AppState& app, int offset);

// A greyed "(?)" after the last item that shows `text` as a tooltip.
void help_marker(const char* text);

}  // namespace cl::viewer
