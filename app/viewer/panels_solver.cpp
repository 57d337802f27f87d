#include "viewer/panels.h"

#include <algorithm>
#include <string>
#include <vector>

#include <imgui.h>

#include "solvers/registry.h"
#include "viewer/panels_shared.h"
#include "viewer/param_widget.h"
#include "viewer/session.h"

namespace cl::viewer {

void draw_solver_panel(AppState& app) {
  World& world = app.scene.world;
  if (!begin_panel("Solver")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const std::string current(world.solver().name());
  // Room right of the fields for the longest parameter name and its help marker.
  float longest = ImGui::CalcTextSize("method").x;
  for (const ParamSpec& spec : world.solver().params().specs())
    longest = std::max(longest, ImGui::CalcTextSize(spec.name.c_str()).x);
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::PushItemWidth(-(longest + ImGui::CalcTextSize("(?)").x + style.ItemInnerSpacing.x + style.ItemSpacing.x + 4.0f));
  if (ImGui::BeginCombo("method", current.c_str())) {
    for (const SolverInfo& info : solver_registry()) {
      // A method the scene is not meant for stays listed, so that choosing it explains why it is refused.
      const bool allowed = world.allows_solver(info.name);
      const std::string label = allowed ? info.name : info.name + " (not for this scene)";
      if (!allowed) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      if (ImGui::Selectable(label.c_str(), info.name == current) && info.name != current)
        switch_solver_and_report(app, info.name);
      if (!allowed) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(%s)", info.method.c_str(), info.paper.c_str());
    }
    ImGui::EndCombo();
  }
  const SolverInfo* info = find_solver(current);
  help_marker(info != nullptr ? (info->method + "\nPaper: " + info->paper +
                                 "\nSwitching keeps the bodies moving; each method keeps its parameters as last set "
                                 "(at first the scene file's, else the defaults).")
                                    .c_str()
                              : "The contact method.");
  if (!world.methods.empty()) {
    std::string listed;
    for (const std::string& m : world.methods) listed += (listed.empty() ? "" : ", ") + m;
    colored_wrapped(kWarningColor, "This scene is for: " + listed, true);
    help_marker("The scene's \"methods\": the other solvers are refused (they blow up on it, cannot run it in "
                "reasonable time, or it was built for these).");
  }
  for (const std::string& w : world.unsupported_features()) colored_wrapped(kWarningColor, "Not honoured by " + w);
  ImGui::Separator();

  ParamSet& params = world.solver().params();
  const auto specs = params.specs();
  if (specs.empty()) ImGui::TextDisabled("This method has no parameters.");
  for (size_t i = 0; i < specs.size(); ++i) {
    const ParamSpec& spec = specs[i];
    ImGui::PushID(static_cast<int>(i));
    double edited = params.value(i);
    if (param_widget(spec, params.value(i), &edited)) {
      std::string error;
      if (!params.set(spec.name, edited, &error)) app.solver.error = error;
      else app.solver.error.clear();
    }
    help_marker(param_tooltip(spec).c_str());
    ImGui::PopID();
  }
  ImGui::PopItemWidth();
  if (!specs.empty() && ImGui::Button("Defaults")) {
    std::string error;
    for (const ParamSpec& spec : specs) params.set(spec.name, spec.default_value, &error);
  }
  if (!specs.empty()) help_marker("Set every parameter of this method back to its default.");
  if (!app.solver.error.empty()) colored_wrapped(kErrorColor, app.solver.error);
  ImGui::End();
}

// What the active solver does not honour in this scene, on top of the scene at the bottom centre, so that a
// comparison never silently runs a different scene than the file describes (the Solver panel says the same).
}  // namespace cl::viewer
