#include "viewer/panels.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "solvers/registry.h"
#include "viewer/plot.h"
#include "viewer/plot_math.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

// In StepProfile order, as StatsState::stage_ms stores them.
constexpr const char* kStageNames[StatsState::kStages] = {"broad phase", "narrow phase", "graph",
                                                          "solve",       "integrate",    "total step"};

}  // namespace

void draw_stats_panel(AppState& app) {
  StatsState& stats = app.stats;
  const World& world = app.scene.world;
  app.ui.stats_open = begin_panel("Stats");
  if (!app.ui.stats_open) {
    ImGui::End();
    return;
  }
  const float fps = stats.fps.latest();
  const PlotSeries fps_series[] = {{"fps", IM_COL32(150, 200, 255, 255), &stats.fps}};
  char title[64];
  std::snprintf(title, sizeof title, "frame rate %.0f fps (%.1f ms)", fps, fps > 0.0f ? 1000.0f / fps : 0.0f);
  plot_lines("fps", title, "", fps_series, 34.0f);

  // Every stage of World::step on shared axes, and the solver's own stages (named after the stage that holds them).
  static constexpr std::array<ImU32, StatsState::kStages> kStageColors = {
      IM_COL32(120, 200, 255, 255), IM_COL32(255, 170, 80, 255), IM_COL32(170, 130, 255, 255),
      IM_COL32(255, 100, 110, 255), IM_COL32(120, 230, 140, 255), IM_COL32(235, 235, 235, 255)};
  std::vector<PlotSeries> stage_series;
  // The average and maximum of the whole step only (the stages' are in the read-out under the mouse).
  for (int i = 0; i < StatsState::kStages; ++i)
    stage_series.push_back({kStageNames[i], kStageColors[size_t(i)], &stats.stage_ms[size_t(i)], i + 1 == StatsState::kStages});
  for (int k = 0; k < stats.sub_stage_count; ++k) {
    const SubStage& sub = stats.sub_stage_names[size_t(k)];
    const ImU32 parent = kStageColors[sub.parent == StepStage::NarrowPhase ? 1 : sub.parent == StepStage::Solve ? 3 : 4];
    stage_series.push_back({std::string(step_stage_name(sub.parent)) + "/" + sub.name, (parent & 0x00FFFFFF) | 0x90000000u,
                            &stats.sub_stage_ms[size_t(k)], false});
  }
  plot_lines("stages", "wall time per stage", "ms", stage_series, 80.0f);
  help_marker("Milliseconds spent in each stage of World::step (StepStats.profile) over the last steps, and the "
              "solver's own stages inside narrow phase, solve and integrate (StepStats.sub_stages; the CSV's "
              "<name>_ms columns), fainter in their stage's colour. Hover for the values at a step.");

  // The solver's own counters over the last steps, each on its own axes (their units differ); one that has not
  // changed over them (lcp's threaded_rows on a small scene) is not plotted: the table below gives its value.
  static constexpr std::array<ImU32, 4> kCounterColors = {IM_COL32(255, 210, 90, 255), IM_COL32(120, 220, 255, 255),
                                                          IM_COL32(255, 130, 200, 255), IM_COL32(160, 240, 140, 255)};
  for (int k = 0; k < stats.counter_count; ++k) {
    const SolverCounter& c = stats.counter_names[size_t(k)];
    if (summarize(stats.counter_values[size_t(k)]).constant()) continue;
    const PlotSeries series[] = {{c.name, kCounterColors[size_t(k) % kCounterColors.size()], &stats.counter_values[size_t(k)]}};
    plot_lines(c.name, c.name, c.unit, series, 34.0f);
  }

  // The convergence of the last step's main iterative solve (lcp's and volume's velocity PGS, implicit-penalty's
  // friction PGS): the residual after each sweep, log scale.
  const std::span<const double> convergence = world.solver().convergence();
  if (!convergence.empty()) {
    const SolverInfo* info = find_solver(world.solver().name());
    const char* residual_unit = info ? info->residual_unit.c_str() : "";
    // The read-out under the mouse names the sweep and its residual (the largest change of an impulse in it).
    plot_log_sequence("convergence", "residual per sweep, last step", residual_unit, "sweep", convergence,
                      IM_COL32(255, 160, 90, 255), 50.0f);
  }

  // The physics residuals of the contact report (docs/residuals.md), the same for every method.
  if (!app.compare.plots.empty()) {
    const LanePlots& lp = app.compare.plots[0];
    // A residual that has held one value throughout (zero momentum error under gravity's steps, say) is named on a
    // line under the others, not plotted, so that it does not push the others out of the panel.
    std::string constant;
    for (const LanePlotKind& r : kLanePlots) {
      if (!r.residual) continue;
      double value = 0.0;
      const History* const history[] = {&(lp.*r.member)};
      if (same_constant(history, &value)) {
        constant += (constant.empty() ? "" : ", ") + std::string(r.title) + " " + short_number(value) + " " + r.unit;
        continue;
      }
      const PlotSeries series[] = {{r.title, IM_COL32(200, 170, 255, 255), history[0]}};
      plot_lines(r.id, r.title, r.unit, series, 34.0f, false);  // one series: the title names it
    }
    if (!constant.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("Constant throughout: %s", constant.c_str());
      ImGui::PopTextWrapPos();
    }
  }

  const StepStats& s = world.last_stats();
  if (begin_two_column_table("counters", "potential energy")) {
    const size_t stride = contact_draw_stride(size_t(std::max(s.contacts, 0)));
    if (stride > 1) table_row("contacts", "%d   (pairs %d; 1 in %zu drawn)", s.contacts, s.pairs, stride);
    else table_row("contacts", "%d   (pairs %d)", s.contacts, s.pairs);
    table_row("contact groups", "%d", s.groups);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Dynamic bodies connected through contacts and joints.");
    table_row("stack layers", "%d", s.layers);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Layers of the tallest stack (View panel: stack layer colouring).");
    const auto dynamic = std::count_if(world.bodies.begin(), world.bodies.end(), [](const Body& b) { return b.is_dynamic(); });
    table_row("sleeping", "%d of %d dynamic bodies", s.sleeping, static_cast<int>(dynamic));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Bodies the sleepy policy stopped simulating (View panel: sleeping bodies).");
    table_row("joints", "%zu   (scripts %zu)", world.joints.size(), world.scripts.size());
    // Each method counts its own iterations and measures its own residual, in its own unit (the registry's).
    const SolverInfo* method = find_solver(world.solver().name());
    table_row("iterations", "%d %s", s.iterations, method ? method->iterations_unit.c_str() : "");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("lcp, volume: projected Gauss-Seidel sweeps; implicit-penalty: direct solves, friction "
                        "sweeps and joint projection steps; pid-penalty: substeps (docs/solvers.md).");
    table_row("residual", "%.3g %s", s.residual, method ? method->residual_unit.c_str() : "");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("lcp: largest impulse change in the last velocity sweep; volume: of a multiplier (pressure "
                        "times time); implicit-penalty: the larger of the linear solve's and the friction sweep's; "
                        "pid-penalty: the largest approach speed an impact kept after its passes (docs/solvers.md).");
    for (const SolverCounter& c : s.counters.counters()) {
      table_row(c.name, "%.4g %s", c.value, c.unit);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The solver's own counter (StepStats.counters; docs/solvers.md, What the solvers report).");
    }
    table_row("max penetration", "%.3g mm", s.max_penetration * 1000.0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The deepest point of any contact, at the start of the step.");
    table_row("mean penetration", "%.3g mm", s.mean_penetration * 1000.0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The mean depth of the penetrating contacts, each counted once.");
    table_row("kinetic energy", "%.4g J", s.kinetic_energy);
    table_row("potential energy", "%.4g J", s.potential_energy);
    table_row("total energy", "%.4g J", s.kinetic_energy + s.potential_energy);
    ImGui::EndTable();
  }

  if (stats.recording) {
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.2f, 0.2f, 1.0f));
    if (ImGui::Button("Stop")) stop_recording(app);
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("recording: %zu steps", stats.recorder.size());
  } else if (ImGui::Button("Record")) {
    start_recording(app);
  }
  help_marker("Record the StepStats of every step. Stop writes <scene>-<solver>-<date>-<time>.csv (one row per "
              "step) and .trace.json (open in ui.perfetto.dev or chrome://tracing) in the current directory; with "
              "lanes, <scene>-lanes-<date>-<time>.csv (every lane, with lane, solver and scene columns), its "
              ".lanes.json sidecar (each lane's parameters) and one .laneN.trace.json per lane.");
  if (!stats.csv_path.empty()) {
    ImGui::TextWrapped("CSV: %s", stats.csv_path.c_str());
    ImGui::TextWrapped("%s: %s", stats.trace_path.find(".lanes.json") != std::string::npos ? "Lanes" : "Trace",
                       stats.trace_path.c_str());
  }
  if (!stats.error.empty()) colored_wrapped(kErrorColor, stats.error);
  ImGui::End();
}

}  // namespace cl::viewer
