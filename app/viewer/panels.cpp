#include "viewer/panels.h"

#include <algorithm>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"

namespace cl::viewer {

void draw_panels(AppState& app) {
  if (app.ui.hidden) {  // Tab: the view alone, with what it must not hide (lane labels, warnings, errors)
    app.ui.menu_height = 0.0f;
    draw_lane_labels(app);
    draw_unsupported_banner(app);
    draw_error_toast(app);
    ImGui::GetForegroundDrawList()->AddText(ImVec2(kMargin, kMargin), IM_COL32(200, 200, 200, 160),
                                            "Tab: show the panels   F1: help");
    draw_help_overlay(app);
    return;
  }
  // The menu bar, then two columns along the window edges below it, leaving the middle for the scene.
  // FirstUseEver: the user may move and resize them afterwards.
  const float menu = app.ui.menu_height = draw_main_menu(app);
  const ImVec2 display = ImGui::GetIO().DisplaySize;
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

  // The right column: Stats, Inspector and View stacked from the top, never over each other. A collapsed panel
  // takes its title bar; an open View takes up to half the column, the Stats up to 444 pixels, the Inspector
  // the rest (at least 120). Laid out every frame from which panels were open in the last one.
  {
    const float title = ImGui::GetFrameHeight();
    const float gap = kMargin;
    const float column = display.y - top - kMargin - 2.0f * gap;
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

  // Servos: at the top between the two columns, as tall as their rows (at most 8 before the table scrolls).
  const auto rows = static_cast<float>(std::min<size_t>(servo_count, 8));
  const float row = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float servo_width = std::min(560.0f, std::max(display.x - 2.0f * (kPanelWidth + 2.0f * kMargin), 300.0f));
  ImGui::SetNextWindowPos(ImVec2(0.5f * (display.x - servo_width), top), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(servo_width, ImGui::GetFrameHeightWithSpacing() * 2.0f + ImGui::GetTextLineHeightWithSpacing() +
                                                   row * rows + 2.0f * ImGui::GetStyle().WindowPadding.y),
                           ImGuiCond_FirstUseEver);
  if (!app.ui.browser) draw_servos_panel(app);  // the browser holds the middle while it is open

  // Compare: along the bottom between the columns, open once there are lanes. The split layout divides the
  // middle above it among the lanes.
  const float middle_x = kPanelWidth + 2.0f * kMargin, middle_width = std::max(display.x - 2.0f * middle_x, 200.0f);
  const float compare_height = compare_panel_height(app);
  ImGui::SetNextWindowPos(ImVec2(middle_x, display.y - compare_height - kMargin), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(middle_width, compare_height), ImGuiCond_Always);
  ImGui::SetNextWindowCollapsed(lane_count(app) < 2, ImGuiCond_FirstUseEver);
  if ((lane_count(app) > 1 && app.compare.area_width == 0) || app.view.expand_compare_panel) {
    ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always);  // lanes from the file or --lanes, or --view compare
    app.view.expand_compare_panel = false;
  }
  draw_compare_panel(app);
  app.compare.area_x = middle_x;
  app.compare.area_y = menu;
  app.compare.area_width = middle_width;
  app.compare.area_height = std::max(display.y - menu - compare_height - 2.0f * kMargin, 100.0f);
  draw_lane_labels(app);
  draw_unsupported_banner(app);
  if (!app.ui.browser) draw_scene_description(app);
  draw_error_toast(app);
  draw_welcome(app);
  draw_help_overlay(app);  // last: on top of every panel
  if (!app.ui.screenshot_message.empty()) {
    ImGui::GetForegroundDrawList()->AddText(ImVec2(middle_x + kMargin, display.y - compare_height - 3.0f * kMargin -
                                                   2.0f * ImGui::GetTextLineHeight()),
                                            IM_COL32(210, 230, 210, 230), app.ui.screenshot_message.c_str());
  }
}

}  // namespace cl::viewer
