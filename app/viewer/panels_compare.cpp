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

std::vector<PlotSpec> lane_plot_specs(AppState& app) {
  std::vector<PlotSpec> out;
  for (const LanePlotKind& kind : kLanePlots) {
    PlotSpec spec{kind.id, kind.title, kind.unit, {}};
    for (int i = kind.skip_first ? 1 : 0; i < lane_count(app); ++i)
      spec.series.push_back({std::to_string(i + 1) + " " + std::string(lane_world(app, i).solver().name()), lane_u32(i),
                             &(app.compare.plots[size_t(i)].*kind.member)});
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace

void draw_lane_labels(AppState& app) {
  if (!split_view(app)) return;  // overlaid: the legend is in the header (panels_header.cpp)
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  for (int i = 0; i < lane_count(app); ++i) {
    const LaneCell c = lane_cell(app, i);
    const float strip = app.ui.lane_label_height, top = c.y - strip;
    draw->AddRectFilled(ImVec2(c.x, top), ImVec2(c.x + c.width, c.y), IM_COL32(20, 22, 28, 255));
    draw->AddRect(ImVec2(c.x, top), ImVec2(c.x + c.width, c.y + c.height), lane_u32(i, 0.8f));
    // The whole label is in the Compare panel's tooltip; a stopped lane says so after it.
    const std::string& error = lane_error(app, i);
    const std::string stopped = error.empty() ? "" : "  stopped: " + error;
    std::string label = std::to_string(i + 1) + "  " + lane_label(lane_world(app, i));
    label = fit_text(label, c.width - 12.0f);
    const float y = top + 0.5f * (strip - line);
    draw->AddText(ImVec2(c.x + 6.0f, y), lane_u32(i), label.c_str());
    if (!stopped.empty()) {
      const float x = c.x + 6.0f + ImGui::CalcTextSize(label.c_str()).x;
      const std::string fitted = fit_text(stopped, c.x + c.width - 6.0f - x);
      draw->AddText(ImVec2(x, y), IM_COL32(255, 110, 100, 255), fitted.c_str());
    }
  }
}

void draw_compare_panel(AppState& app, float height) {
  CompareState& compare = app.compare;
  compare.panel_open = begin_panel("Compare");
  if (!compare.panel_open) {
    ImGui::End();
    return;
  }
  const int lanes = lane_count(app);
  // The user dragged its top edge: that height from now on.
  if (lanes > 1 && ImGui::IsMouseDown(ImGuiMouseButton_Left) && std::abs(ImGui::GetWindowSize().y - height) > 0.5f)
    compare.panel_height = ImGui::GetWindowSize().y;
  // One row of controls ending in the lanes' table and parameters folded (open with the arrow), the plots below.
  if (lanes > 1) {
    int layout = static_cast<int>(compare.layout);
    ImGui::RadioButton("split", &layout, static_cast<int>(CompareLayout::Split));
    ImGui::SameLine();
    ImGui::RadioButton("overlaid", &layout, static_cast<int>(CompareLayout::Overlay));
    compare.layout = static_cast<CompareLayout>(layout);
    help_marker("V switches. Split: a cell per lane, one camera. Overlaid: the other lanes' moving bodies as "
                "translucent ghosts in their lane colour over lane 1.");
    ImGui::SameLine(0.0f, 24.0f);
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
  ImGui::SetNextItemWidth(140.0f);
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
  std::string names;  // the folded node's title: every lane's number and method
  for (int i = 0; i < lanes; ++i)
    names += (i == 0 ? "" : ",  ") + std::to_string(i + 1) + " " + std::string(lane_world(app, i).solver().name());
  // Folded, the lanes' names end the row of controls (the plots keep the line); where they do not fit, their
  // number, with the names in the tooltip (never a name cut short).
  if (lanes > 1) ImGui::SameLine(0.0f, 24.0f);
  const std::string full = "Lanes:  " + names;
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetTreeNodeToLabelSpacing();
  const std::string title = ImGui::CalcTextSize(full.c_str()).x <= room ? full : std::to_string(lanes) + " lanes";
  const bool table = lanes < 2 || ImGui::TreeNodeEx("##lanes", ImGuiTreeNodeFlags_SpanAvailWidth, "%s", title.c_str());
  if (lanes > 1 && title != full && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", names.c_str());
  if (table && ImGui::BeginTable("lanes", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
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
  for (int i = 1; table && i < lane_count(app); ++i) {
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
  if (table && lanes > 1) ImGui::TreePop();
  if (!compare.error.empty()) colored_wrapped(kErrorColor, compare.error);

  if (lanes > 1) {
    const std::vector<PlotSpec> plots = lane_plot_specs(app);
    plot_grid(plots, ImGui::GetContentRegionAvail());
  }
  ImGui::End();
}

}  // namespace cl::viewer
