#include "viewer/panels.h"

#include <algorithm>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

// The 3D view's part of the window as laid out this frame; a scene framed on load (the camera as frame_scene left
// it) is framed again when it changes, so that the bodies fill what is visible in every view mode.
void set_scene_area(AppState& app, const ScreenRect& area) {
  if (area == app.ui.scene_area) return;
  app.ui.scene_area = area;
  if (app.camera == app.ui.auto_framed) frame_scene(app);
}

}  // namespace

void draw_panels(AppState& app) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  app.ui.lane_label_height = ImGui::GetTextLineHeight() + 6.0f;
  if (app.ui.hidden) {  // Tab: the view alone, below what it must not hide (warnings, the legend, errors)
    app.ui.menu_height = 0.0f;
    const float header = draw_header(app, 0.0f, 0.0f, display.x);
    set_scene_area(app, {0.0f, header, display.x, std::max(display.y - header, 50.0f)});
    draw_lane_labels(app);
    draw_recording_indicator(app);
    draw_help_overlay(app);
    return;
  }
  // The menu bar, then two columns along the window edges below it and the Compare panel along the bottom under the
  // middle and the right column, leaving the middle to the 3D view. The left column's panels are placed once
  // (FirstUseEver: the user may move and resize them); everything else is laid out every frame.
  const float menu = app.ui.menu_height = draw_main_menu(app);
  const float right = display.x - kPanelWidth - kMargin;
  const float top = menu + kMargin;  // where the panels start
  auto place = [](float x, float y, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(kPanelWidth, h), ImGuiCond_FirstUseEver);
  };
  const size_t servo_count = servo_joints(app.scene.world).size();
  const float hint = servo_count > 0 ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;  // the Scene panel's servo line
  place(kMargin, top, 150.0f + hint);
  draw_scene_panel(app);
  place(kMargin, top + 158.0f + hint, 140.0f);
  draw_simulation_panel(app);
  place(kMargin, top + 306.0f + hint, std::max(display.y - top - 314.0f - hint, 150.0f));
  draw_solver_panel(app);

  // Compare: along the bottom from the left column to the window's right edge; with lanes as tall as the user drags
  // its top edge (compare_panel_height).
  const float middle_x = kPanelWidth + 2.0f * kMargin, middle_width = std::max(display.x - 2.0f * middle_x, 200.0f);
  const float compare_height = compare_panel_height(app);
  const float compare_top = display.y - compare_height - kMargin;
  ImGui::SetNextWindowPos(ImVec2(middle_x, compare_top), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(display.x - middle_x - kMargin, compare_height), ImGuiCond_Always);
  ImGui::SetNextWindowCollapsed(lane_count(app) < 2, ImGuiCond_FirstUseEver);
  if ((lane_count(app) > 1 && app.ui.scene_area.width == 0) || app.view.expand_compare_panel) {
    ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always);  // lanes from the file or --lanes, or --view compare
    app.view.expand_compare_panel = false;
  }
  draw_compare_panel(app, compare_height);

  // The right column above it: Stats, Inspector and View stacked from the top, never over each other. A collapsed
  // panel takes its title bar; an open View takes up to half the column, the Stats up to 444 pixels, the Inspector
  // the rest (at least 120). Laid out every frame from which panels were open in the last one.
  {
    const float title = ImGui::GetFrameHeight();
    const float gap = kMargin;
    const float column = compare_top - top - gap - 2.0f * gap;
    const UiState& ui = app.ui;
    const float view_h = ui.view_open ? std::max(title, std::min(372.0f, 0.5f * column)) : title;
    const float inspector_min = ui.inspector_open ? 120.0f : title;
    const float stats_h = ui.stats_open ? std::max(title, std::min(444.0f, column - view_h - inspector_min)) : title;
    const float inspector_h = ui.inspector_open ? std::max(title, column - view_h - stats_h) : title;
    auto stack = [&](float y, float h) {
      ImGui::SetNextWindowPos(ImVec2(right, y), ImGuiCond_Always);
      ImGui::SetNextWindowSize(ImVec2(kPanelWidth, h), ImGuiCond_Always);
    };
    stack(top, stats_h);
    draw_stats_panel(app);
    stack(top + stats_h + gap, inspector_h);
    draw_inspector_panel(app);
    stack(top + stats_h + inspector_h + 2.0f * gap, view_h);
    ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);
    draw_view_panel(app);
  }

  // The middle, from the top: the Servos panel (as tall as its rows, at most 8 before the table scrolls), the header
  // (description, banners, legend, errors), then the 3D view down to the Compare panel.
  float y = top;
  if (!app.ui.browser && servo_count > 0) {  // the browser holds the middle while it is open
    const auto rows = static_cast<float>(std::min<size_t>(servo_count, 8));
    const float row = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
    const float servo_height = ImGui::GetFrameHeightWithSpacing() * 2.0f + ImGui::GetTextLineHeightWithSpacing() +
                               row * rows + 2.0f * ImGui::GetStyle().WindowPadding.y;
    ImGui::SetNextWindowPos(ImVec2(middle_x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(middle_width, servo_height), ImGuiCond_Always);
    y += draw_servos_panel(app) + kMargin;
  }
  // The Timeline (panels_timeline.cpp) between the view and the Compare panel, as wide as the view.
  const float timeline_top = compare_top - kMargin - timeline_panel_height();
  draw_timeline_panel(app, middle_x, timeline_top, middle_width);
  const float header = draw_header(app, middle_x, y, middle_width);
  if (header > 0.0f) y += header + kMargin;
  set_scene_area(app, {middle_x, y, middle_width, std::max(timeline_top - kMargin - y, 60.0f)});
  draw_lane_labels(app);
  draw_welcome(app);
  draw_recording_indicator(app);
  draw_help_overlay(app);  // last: on top of every panel
}

}  // namespace cl::viewer
