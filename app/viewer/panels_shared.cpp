#include "viewer/panels_shared.h"

#include <algorithm>
#include <cstdarg>

#include "viewer/panels.h"
#include "viewer/session.h"

namespace cl::viewer {

float compare_panel_height(const AppState& app) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (!app.compare.panel_open) return ImGui::GetFrameHeight();
  if (lane_count(app) < 2) return 4.0f * ImGui::GetFrameHeightWithSpacing();
  const float chosen = app.compare.panel_height > 0.0f ? app.compare.panel_height
                                                       : std::clamp(0.4f * display.y, 250.0f, 460.0f);
  return std::clamp(chosen, 8.0f * ImGui::GetFrameHeight(), std::max(0.75f * display.y, 200.0f));
}

bool begin_panel(const char* name, bool* open, ImGuiWindowFlags flags) {
  const bool expanded = ImGui::Begin(name, open, flags);
  // A click (released where it was pressed) on the title bar, not on its arrow or close button.
  if (!expanded && ImGui::IsWindowHovered() && !ImGui::IsAnyItemHovered() &&
      ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetIO().MouseDragMaxDistanceSqr[0] < 16.0f)
    ImGui::SetWindowCollapsed(false);
  return expanded;
}

void colored_wrapped(const ImVec4& color, const std::string& text, bool help_after) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  const float reserve = help_after ? ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemSpacing.x : 0.0f;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - reserve);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  // Also inside BeginDisabled blocks: the help matters most when a control is greyed out.
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) wrapped_tooltip(text);
}

void wrapped_tooltip(const char* text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void table_row(const char* name, const char* fmt, ...) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextUnformatted(name);
  ImGui::TableSetColumnIndex(1);
  va_list args;
  va_start(args, fmt);
  ImGui::TextWrappedV(fmt, args);  // a long value wraps within its column rather than being cut at the panel's edge
  va_end(args);
}

void vec_row(const char* name, const Vec3& v, const char* unit) {
  table_row(name, "%.3f, %.3f, %.3f %s", v.x(), v.y(), v.z(), unit);
}

bool begin_two_column_table(const char* id, const char* longest_name) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp)) return false;
  const float name_width = ImGui::CalcTextSize(longest_name).x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, name_width);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  return true;
}

void keep_on_screen() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  if (pos.y + size.y > display.y && pos.y > 0.0f) {
    ImGui::SetWindowPos(ImVec2(pos.x, std::max(0.0f, display.y - size.y - kMargin)));
  }
}

std::string fit_text(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string cut = text;
  while (!cut.empty() && ImGui::CalcTextSize((cut + "...").c_str()).x > width) cut.pop_back();
  return cut + "...";
}

void open_and_report(AppState& app, const std::string& path) {
  std::string error;
  if (!open_scene_keeping_lanes(app, path, &error)) app.scene.error = error;
}

void reload_and_report(AppState& app) {
  std::string error;
  if (!reload_scene(app, &error)) app.scene.error = error;
  else app.scene.error.clear();
}

// Saving over the open scene asks first (draw_overwrite_question); the old text is kept in a .bak file.
void save_and_report(AppState& app, bool confirmed) {
  if (!confirmed && saving_over_open_scene(app, app.scene.save_path)) {
    app.scene.confirm_overwrite = true;
    return;
  }
  std::string error;
  if (!save_scene_as(app, app.scene.save_path, &error, confirmed)) app.scene.error = error;
  else app.scene.error.clear();
}

void draw_overwrite_question(AppState& app) {
  if (app.scene.confirm_overwrite) {
    ImGui::OpenPopup("Overwrite the open scene?");
    app.scene.confirm_overwrite = false;
  }
  if (ImGui::BeginPopupModal("Overwrite the open scene?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::Text("%s is the scene file that is open.", app.scene.save_path.c_str());
    ImGui::Text("Its old text is kept in %s.bak.", app.scene.save_path.c_str());
    if (ImGui::Button("Overwrite")) {
      save_and_report(app, true);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

void switch_solver_and_report(AppState& app, const std::string& name) {
  std::string error;
  if (!switch_solver(app, name, &error)) app.solver.error = error;
  else app.solver.error.clear();
}

void add_lane_and_report(AppState& app, const std::string& solver) {
  std::string error;
  if (!add_lane(app, LaneSpec{solver, {}}, &error)) app.compare.error = error;
}

void compare_every_method_and_report(AppState& app) {
  std::string error;
  if (!compare_every_method(app, &error)) app.compare.error = error;
}

void open_neighbour_and_report(AppState& app, int offset) {
  std::string error;
  if (!open_neighbour_scene(app, offset, &error)) app.scene.error = error;
  else app.scene.error.clear();
}

}  // namespace cl::viewer
