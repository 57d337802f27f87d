// The header above the 3D view: what the view must not be covered by gets its own place here, between the panel
// columns, and the view starts below it (UiState::scene_area). In order: the scene's description (whole after a
// load, folded to one line when closed), the hint while the panels are hidden, what the active solver does not
// honour, the overlaid comparison's legend, every current error (until closed), the last screenshot or video
// message.
#include "viewer/panels.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

// The errors of the panels not closed yet, with the panel each came from.
std::vector<std::pair<const char*, std::string*>> open_errors(AppState& app) {
  std::vector<std::pair<const char*, std::string*>> out;
  const std::pair<const char*, std::string*> sources[] = {
      {"Scene", &app.scene.error},     {"Simulation stopped", &app.sim.step_error}, {"Solver", &app.solver.error},
      {"Compare", &app.compare.error}, {"Stats", &app.stats.error},                   {"Script", &app.script.error}};
  for (const auto& s : sources)
    if (!s.second->empty() &&
        std::find(app.ui.dismissed.begin(), app.ui.dismissed.end(), *s.second) == app.ui.dismissed.end())
      out.push_back(s);
  return out;
}

// A small "x" at the right end of the current line; true when clicked.
bool close_button(const char* id) {
  ImGui::SameLine(std::max(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("x").x -
                               2.0f * ImGui::GetStyle().FramePadding.x, 0.0f));
  ImGui::PushID(id);
  const bool clicked = ImGui::SmallButton("x");
  ImGui::PopID();
  return clicked;
}

// The overlaid comparison's legend: each lane's number, method and settings in its colour, lane 1 solid and the
// others ghosts, wrapped to the width.
void lane_legend(AppState& app) {
  const float right = ImGui::GetWindowContentRegionMax().x;
  for (int i = 0; i < lane_count(app); ++i) {
    const std::array<float, 3> c = lane_color(i);
    const std::string text = std::to_string(i + 1) + " " + lane_label(lane_world(app, i)) +
                             (i == 0 ? " (solid)" : " (ghost)") + (lane_error(app, i).empty() ? "" : " stopped");
    const float w = ImGui::CalcTextSize(text.c_str()).x;
    if (i > 0) {
      ImGui::SameLine(0.0f, 16.0f);
      if (ImGui::GetCursorPosX() + w > right) ImGui::NewLine();
    }
    ImGui::TextColored(ImVec4(c[0], c[1], c[2], 1.0f), "%s", fit_text(text, right).c_str());
    if (ImGui::IsItemHovered() && !lane_error(app, i).empty()) wrapped_tooltip(lane_error(app, i).c_str());
  }
}

}  // namespace

float draw_header(AppState& app, float x, float y, float width) {
  UiState& ui = app.ui;
  const World& world = app.scene.world;
  const bool description = !ui.hidden && !ui.browser && !world.description.empty();
  const bool folded = ui.description_shown == app.scene.generation;
  const std::vector<std::string> unsupported = world.unsupported_features();
  const bool legend = lane_count(app) > 1 && !split_view(app);
  const auto errors = open_errors(app);
  const bool message = !ui.screenshot_message.empty() &&
                       std::find(ui.dismissed.begin(), ui.dismissed.end(), ui.screenshot_message) == ui.dismissed.end();
  if (!description && !ui.hidden && unsupported.empty() && !legend && errors.empty() && !message) return 0.0f;

  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);  // as tall as its lines
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0.0f), ImVec2(width, 0.45f * display.y));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
  float height = 0.0f;
  if (ImGui::Begin("##header", nullptr, flags)) {
    if (description && folded) {
      // One line, the whole of it in a click (and in the tooltip).
      const std::string line = fit_text(world.name + ":  " + world.description, ImGui::GetContentRegionAvail().x - 20.0f);
      if (ImGui::Selectable(("+ " + line).c_str())) ui.description_shown = -1;
      if (ImGui::IsItemHovered()) wrapped_tooltip("The scene's description: click to read it whole.");
    } else if (description) {
      ImGui::TextColored(kOkColor, "%s", world.name.c_str());
      if (close_button("fold")) ui.description_shown = app.scene.generation;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fold the description to one line (click it to read it again).");
      // At most six lines; a longer one scrolls (the header must leave the view most of the window).
      const float wrap = ImGui::GetContentRegionAvail().x;
      const float text_h = ImGui::CalcTextSize(world.description.c_str(), nullptr, false, wrap).y;
      const float most = 6.0f * ImGui::GetTextLineHeight();
      if (text_h > most) ImGui::BeginChild("##description", ImVec2(0.0f, most), false);
      ImGui::PushTextWrapPos(text_h > most ? ImGui::GetContentRegionAvail().x : 0.0f);
      ImGui::TextUnformatted(world.description.c_str());
      ImGui::PopTextWrapPos();
      if (text_h > most) ImGui::EndChild();
    }
    if (ui.hidden) ImGui::TextDisabled("Tab: show the panels   F1: help");
    for (const std::string& w : unsupported) colored_wrapped(kWarningColor, "Not honoured by " + w);
    if (legend) lane_legend(app);
    for (size_t i = 0; i < errors.size(); ++i) {
      ImGui::PushID(int(i));
      ImGui::TextColored(kErrorColor, "%s", errors[i].first);
      if (close_button("close")) ui.dismissed.push_back(*errors[i].second);
      colored_wrapped(kErrorColor, *errors[i].second);
      ImGui::PopID();
    }
    if (message) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.80f, 0.90f, 0.80f, 1.0f));
      ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - 24.0f);
      ImGui::TextUnformatted(ui.screenshot_message.c_str());
      ImGui::PopTextWrapPos();
      ImGui::PopStyleColor();
      if (close_button("message")) ui.dismissed.push_back(ui.screenshot_message);
    }
    height = ImGui::GetWindowSize().y;
  }
  ImGui::End();
  return height;
}

}  // namespace cl::viewer
