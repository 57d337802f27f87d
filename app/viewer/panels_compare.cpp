#include "viewer/panels.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <imgui.h>

#include "solvers/registry.h"
#include "viewer/panels_shared.h"
#include "viewer/param_widget.h"
#include "viewer/plot.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

ImU32 lane_u32(int lane, float alpha = 1.0f) {
  const std::array<float, 3> c = lane_color(lane);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], alpha));
}

// One plot with a curve per lane of the chosen LanePlots member.
void lane_plot(AppState& app, const char* id, const char* title, const char* unit, History LanePlots::*member,
               float height, bool skip_first = false) {
  std::vector<PlotSeries> series;
  for (int i = skip_first ? 1 : 0; i < lane_count(app); ++i)
    series.push_back({std::to_string(i + 1) + " " + std::string(lane_world(app, i).solver().name()), lane_u32(i),
                      &(app.compare.plots[size_t(i)].*member)});
  plot_lines(id, title, unit, series, height);
}

}  // namespace

void draw_lane_labels(AppState& app) {
  if (lane_count(app) < 2) return;
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  for (int i = 0; i < lane_count(app); ++i) {
    std::string label = std::to_string(i + 1) + "  " + lane_label(lane_world(app, i));
    const std::string& error = lane_error(app, i);
    if (split_view(app)) {
      const LaneCell c = lane_cell(app, i);
      label = fit_text(label, c.width - 20.0f);  // the whole label is in the Compare panel's tooltip
      draw->AddRect(ImVec2(c.x, c.y), ImVec2(c.x + c.width, c.y + c.height), lane_u32(i, 0.8f));
      const ImVec2 at(c.x + 6.0f, c.y + 4.0f);
      draw->AddRectFilled(at, ImVec2(at.x + ImGui::CalcTextSize(label.c_str()).x + 8.0f, at.y + line + 4.0f),
                          IM_COL32(20, 22, 28, 190), 3.0f);
      draw->AddText(ImVec2(at.x + 4.0f, at.y + 2.0f), lane_u32(i), label.c_str());
      if (!error.empty())
        draw->AddText(nullptr, 0.0f, ImVec2(at.x + 4.0f, at.y + line + 6.0f), IM_COL32(255, 110, 100, 255),
                      ("stopped: " + error).c_str(), nullptr, c.width - 12.0f);
    } else {
      // Overlaid: a legend at the top of the view, lane 1 solid and the others as ghosts in their colour.
      const float x = app.compare.area_x + 6.0f, y = app.compare.area_y + 4.0f + float(i) * (line + 2.0f);
      const std::string text = label + (i == 0 ? "  (solid)" : "  (ghost)") + (error.empty() ? "" : "  stopped");
      draw->AddRectFilled(ImVec2(x, y), ImVec2(x + ImGui::CalcTextSize(text.c_str()).x + 8.0f, y + line + 2.0f),
                          IM_COL32(20, 22, 28, 190), 3.0f);
      draw->AddText(ImVec2(x + 4.0f, y + 1.0f), lane_u32(i), text.c_str());
    }
  }
}

void draw_compare_panel(AppState& app) {
  CompareState& compare = app.compare;
  compare.panel_open = ImGui::Begin("Compare");
  if (!compare.panel_open) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const int lanes = lane_count(app);
  if (lanes > 1) {
    int layout = static_cast<int>(compare.layout);
    ImGui::RadioButton("split", &layout, static_cast<int>(CompareLayout::Split));
    ImGui::SameLine();
    ImGui::RadioButton("overlaid", &layout, static_cast<int>(CompareLayout::Overlay));
    compare.layout = static_cast<CompareLayout>(layout);
    help_marker("V switches. Split: a cell per lane, one camera. Overlaid: the other lanes' moving bodies as "
                "translucent ghosts in their lane colour over lane 1.");
    ImGui::SameLine();
  }
  // The choice offers only the methods the scene admits; a choice the scene refuses (another scene's) falls
  // back to the first admitted method that is not running yet.
  const std::vector<std::string> addable = addable_lane_solvers(app);
  if (std::find(addable.begin(), addable.end(), compare.add_solver) == addable.end() && !addable.empty()) {
    compare.add_solver = addable.front();
    for (const std::string& name : addable)
      if (name != app.scene.world.solver().name()) {
        compare.add_solver = name;
        break;
      }
  }
  ImGui::SetNextItemWidth(150.0f);
  if (ImGui::BeginCombo("##add", compare.add_solver.c_str())) {
    for (const std::string& name : addable)
      if (ImGui::Selectable(name.c_str(), name == compare.add_solver)) compare.add_solver = name;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(lanes >= kMaxLanes || addable.empty());
  if (ImGui::Button("Add lane")) add_lane_and_report(app, compare.add_solver);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(addable.size() < 2);
  if (ImGui::Button("Every method")) compare_every_method_and_report(app);
  ImGui::EndDisabled();
  help_marker("A copy of the scene under another method (or the same one at other settings), stepped in lockstep "
              "with the others. Adding a lane restarts every lane from the scene's start. Dragging, servo keys, "
              "scripts, pause, step and reset act on every lane. Save as (Scene panel) writes the lanes.");

  int remove = -1;
  if (ImGui::BeginTable("lanes", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("lane", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("method", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    for (int i = 0; i < lanes; ++i) {
      ImGui::PushID(i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(lane_u32(i)), "%d", i + 1);
      ImGui::TableNextColumn();
      World& w = lane_world(app, i);
      const std::string current(w.solver().name());
      ImGui::SetNextItemWidth(150.0f);
      if (ImGui::BeginCombo("##solver", current.c_str())) {
        for (const SolverInfo& info : solver_registry())
          if (w.allows_solver(info.name) && ImGui::Selectable(info.name.c_str(), info.name == current) &&
              info.name != current) {
            std::string error;
            if (!switch_lane_solver(app, i, info.name, &error)) compare.error = error;
          }
        ImGui::EndCombo();
      }
      ImGui::SameLine();
      const std::string& error = lane_error(app, i);
      if (!error.empty()) ImGui::TextColored(kErrorColor, "stopped");
      else ImGui::TextDisabled("%s", fit_text(lane_label(w).substr(current.size()), ImGui::GetContentRegionAvail().x).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", error.empty() ? lane_label(w).c_str() : error.c_str());
      ImGui::TableNextColumn();
      if (i > 0 && ImGui::SmallButton("remove")) remove = i;
      if (i == 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("Lane 1 is the scene itself (Solver panel).");
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (remove > 0) remove_lane(app, remove);
  // The extra lanes' parameters (lane 1's are in the Solver panel).
  for (int i = 1; i < lane_count(app); ++i) {
    ImGui::PushID(1000 + i);
    const std::string header = "lane " + std::to_string(i + 1) + " parameters";
    if (ImGui::TreeNode(header.c_str())) {
      ParamSet& params = lane_world(app, i).solver().params();
      ImGui::PushItemWidth(-190.0f);
      for (size_t k = 0; k < params.specs().size(); ++k) {
        const ParamSpec& spec = params.specs()[k];
        ImGui::PushID(static_cast<int>(k));
        double edited = params.value(k);
        if (param_widget(spec, params.value(k), &edited)) {
          std::string error;
          if (!params.set(spec.name, edited, &error)) compare.error = error;
        }
        help_marker(param_tooltip(spec).c_str());
        ImGui::PopID();
      }
      ImGui::PopItemWidth();
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
  if (!compare.error.empty()) colored_wrapped(kErrorColor, compare.error);

  if (lanes > 1 && ImGui::CollapsingHeader("Plots", ImGuiTreeNodeFlags_DefaultOpen)) {
    constexpr float kHeight = 70.0f;
    lane_plot(app, "ms", "step time", "ms", &LanePlots::step_ms, kHeight);
    lane_plot(app, "pen", "max penetration", "m", &LanePlots::max_penetration, kHeight);
    lane_plot(app, "mpen", "mean penetration", "m", &LanePlots::mean_penetration, kHeight);
    lane_plot(app, "ke", "kinetic energy", "J", &LanePlots::kinetic_energy, kHeight);
    lane_plot(app, "contacts", "contacts", "", &LanePlots::contacts, kHeight);
    lane_plot(app, "it", "iterations", "", &LanePlots::iterations, kHeight);
    lane_plot(app, "res", "residual (unit per solver)", "", &LanePlots::residual, kHeight);
    lane_plot(app, "div", "divergence from lane 1, max", "m", &LanePlots::divergence_max, kHeight, true);
    lane_plot(app, "divm", "divergence from lane 1, mean", "m", &LanePlots::divergence_mean, kHeight, true);
  }
  ImGui::End();
}

}  // namespace cl::viewer
