#include "viewer/panels.h"
#include "solvers/registry.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdarg>
#include <cctype>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "scene/mesh_source.h"
#include "viewer/capture.h"
#include "viewer/colors.h"
#include "viewer/overlays.h"
#include "viewer/plot.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"
#include "viewer/debug_view.h"

namespace cl::viewer {

namespace {

const ImVec4 kErrorColor{1.0f, 0.42f, 0.38f, 1.0f};
const ImVec4 kWarningColor{1.0f, 0.80f, 0.35f, 1.0f};
const ImVec4 kOkColor{0.55f, 0.90f, 0.55f, 1.0f};

constexpr float kPanelWidth = 340.0f;

// In StepProfile order, as StatsState::stage_ms stores them.
constexpr const char* kStageNames[StatsState::kStages] = {"broad phase", "narrow phase", "graph",
                                                          "solve",       "integrate",    "total step"};
constexpr float kMargin = 8.0f;

// The Compare panel's height: its title bar while collapsed, room for the lane table and the plots with lanes,
// for the add-lane row alone without.
float compare_panel_height(const AppState& app) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (lane_count(app) > 1) return std::min(0.42f * display.y, 330.0f);
  return app.compare.panel_open ? 4.0f * ImGui::GetFrameHeightWithSpacing() : ImGui::GetFrameHeight();
}

// Wrapped coloured text (errors can be long paths and JSON pointers).
// Wrapped text in a colour; with `help_after`, wrapped short of the right edge by the width of the help marker
// that follows it on its last line, so that the marker is not cut off.
void colored_wrapped(const ImVec4& color, const std::string& text, bool help_after = false) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  const float reserve = help_after ? ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemSpacing.x : 0.0f;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - reserve);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

// printf formats treat '%' specially; units such as "%" must be doubled to print literally.
std::string escape_percent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

std::string format_number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Tooltip for a solver parameter: its help line, unit, range and default.
std::string param_tooltip(const ParamSpec& spec) {
  std::string t = spec.help.empty() ? spec.name : spec.help;
  if (!spec.unit.empty()) t += "\nUnit: " + spec.unit;
  switch (spec.kind) {
    case ParamKind::Real:
    case ParamKind::Integer:
      t += "\nRange: " + format_number(spec.min) + " .. " + format_number(spec.max);
      t += "\nDefault: " + format_number(spec.default_value);
      break;
    case ParamKind::Bool: t += std::string("\nDefault: ") + (spec.default_value != 0.0 ? "on" : "off"); break;
    case ParamKind::Choice: {
      const auto i = static_cast<size_t>(spec.default_value);
      if (i < spec.choices.size()) t += "\nDefault: " + spec.choices[i];
      break;
    }
  }
  return t;
}

// Draws the widget for one parameter. Returns true with the new value in *out when the user edits it.
bool param_widget(const ParamSpec& spec, double value, double* out) {
  std::string unit;  // appended to the number format (built with += : GCC 12 misreports " " + string)
  if (!spec.unit.empty()) unit.append(" ").append(escape_percent(spec.unit));
  const char* label = spec.name.c_str();
  bool changed = false;
  switch (spec.kind) {
    case ParamKind::Real: {
      double v = value;
      const std::string fmt = "%.4g" + unit;
      if (std::isfinite(spec.min) && std::isfinite(spec.max) && spec.max > spec.min) {
        // Ranges over several decades (tolerances, stiffnesses) need a logarithmic slider to be usable.
        const bool log = spec.min > 0.0 ? spec.max / spec.min >= 100.0 : spec.max >= 1000.0;
        ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp;
        if (log) flags |= ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
        changed = ImGui::SliderScalar(label, ImGuiDataType_Double, &v, &spec.min, &spec.max, fmt.c_str(), flags);
      } else {
        changed = ImGui::InputDouble(label, &v, 0.0, 0.0, fmt.c_str(), ImGuiInputTextFlags_EnterReturnsTrue);
      }
      *out = v;
      break;
    }
    case ParamKind::Integer: {
      const double lo = std::max(spec.min, static_cast<double>(INT_MIN / 2));
      const double hi = std::min(spec.max, static_cast<double>(INT_MAX / 2));
      int v = static_cast<int>(value);
      const std::string fmt = "%d" + unit;
      if (hi - lo <= 10000.0) {
        changed = ImGui::SliderInt(label, &v, static_cast<int>(lo), static_cast<int>(hi), fmt.c_str(),
                                   ImGuiSliderFlags_AlwaysClamp);
      } else {
        changed = ImGui::InputInt(label, &v, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue);
      }
      *out = v;
      break;
    }
    case ParamKind::Bool: {
      bool v = value != 0.0;
      changed = ImGui::Checkbox(label, &v);
      *out = v ? 1.0 : 0.0;
      break;
    }
    case ParamKind::Choice: {
      const int current = static_cast<int>(value);
      const char* preview =
          current >= 0 && current < static_cast<int>(spec.choices.size()) ? spec.choices[current].c_str() : "?";
      // Wide enough for the longest choice ("semi_implicit_euler" was cut at the panel's item width), as long as
      // the label still fits beside it.
      float longest = 0.0f;
      for (const std::string& c : spec.choices) longest = std::max(longest, ImGui::CalcTextSize(c.c_str()).x);
      const ImGuiStyle& style = ImGui::GetStyle();
      const float needed = longest + 2.0f * style.FramePadding.x + ImGui::GetFrameHeight();
      const float room = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(label).x - 2.0f * style.ItemInnerSpacing.x -
                         ImGui::CalcTextSize("(?)").x - style.ItemSpacing.x;
      ImGui::SetNextItemWidth(std::max(ImGui::CalcItemWidth(), std::min(needed, room)));
      if (ImGui::BeginCombo(label, preview)) {
        for (int i = 0; i < static_cast<int>(spec.choices.size()); ++i) {
          if (ImGui::Selectable(spec.choices[i].c_str(), i == current)) {
            *out = i;
            changed = i != current;
          }
          if (i == current) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
      }
      break;
    }
  }
  return changed;
}

// A two-column row of the inspector and counter tables.
void table_row(const char* name, const char* fmt, ...) IM_FMTARGS(2);
void table_row(const char* name, const char* fmt, ...) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextUnformatted(name);
  ImGui::TableSetColumnIndex(1);
  va_list args;
  va_start(args, fmt);
  ImGui::TextV(fmt, args);
  va_end(args);
}

void vec_row(const char* name, const Vec3& v, const char* unit) {
  table_row(name, "%.3f, %.3f, %.3f %s", v.x(), v.y(), v.z(), unit);
}

// Name column sized for the longest label, values take the rest.
bool begin_two_column_table(const char* id, const char* longest_name) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp)) return false;
  const float name_width = ImGui::CalcTextSize(longest_name).x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, name_width);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  return true;
}

void open_and_report(AppState& app, const std::string& path) {
  std::string error;
  if (!open_scene(app, path, nullptr, &error)) app.scene.error = error;
}

// The panels' and the menu's actions, each with its error shown where its panel shows errors (and cleared when
// it succeeds).
void reload_and_report(AppState& app) {
  std::string error;
  if (!reload_scene(app, &error)) app.scene.error = error;
  else app.scene.error.clear();
}

void save_and_report(AppState& app) {
  std::string error;
  if (!save_scene_as(app, app.scene.save_path, &error)) app.scene.error = error;
  else app.scene.error.clear();
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

}  // namespace

void compare_every_method_and_report(AppState& app) {
  std::string error;
  if (!compare_every_method(app, &error)) app.compare.error = error;
}

namespace {

// Moves the current window up when its bottom is below the display (a collapsed panel at the bottom
// of the screen that gets expanded, or a window that shrank), so no panel is ever out of reach.
void keep_on_screen() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  if (pos.y + size.y > display.y && pos.y > 0.0f) {
    ImGui::SetWindowPos(ImVec2(pos.x, std::max(0.0f, display.y - size.y - kMargin)));
  }
}

// One line naming the servo keys of the scene (nothing without servos).
void servo_hint(const World& world) {
  const std::vector<int> servos = servo_joints(world);
  if (servos.empty()) return;
  std::string keys;
  for (int j : servos) {
    std::string label = servo_key_label(world.joints[j].servo);
    if (label.empty()) continue;
    label.erase(std::remove(label.begin(), label.end(), ' '), label.end());  // "U / J" -> "U/J"
    if (!keys.empty()) keys += ' ';
    keys += label;
  }
  const std::string count = std::to_string(servos.size()) + (servos.size() == 1 ? " servo" : " servos");
  // Up to 4 key pairs fit the panel's width; more are named in the Servos panel.
  const std::string line = keys.empty() ? count + " (no keys): set the targets in the Servos panel"
                           : keys.size() <= 15 ? "Servos: hold " + keys + " to drive them"
                                               : count + ": hold their keys (Servos panel)";
  ImGui::TextColored(kOkColor, "%s", line.c_str());
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("While the simulation runs, the first key of a pair raises the servo's target and the "
                      "second lowers it. The Servos panel lists them all with a slider per target.");
  }
}

}  // namespace

void open_neighbour_and_report(AppState& app, int offset) {
  std::string error;
  if (!open_neighbour_scene(app, offset, &error)) app.scene.error = error;
  else app.scene.error.clear();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  // Also inside BeginDisabled blocks: the help matters most when a control is greyed out.
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// ---------------------------------------------------------------------------------------------------
void draw_scene_panel(AppState& app) {
  SceneState& scene = app.scene;
  if (!ImGui::Begin("Scene")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  ImGui::Text("%s  (%zu bodies)", scene.world.name.c_str(), scene.world.bodies.size());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", scene.path.c_str());
  servo_hint(scene.world);

  ImGui::PushItemWidth(-95.0f);
  const std::string current = std::filesystem::path(scene.path).filename().string();
  if (ImGui::BeginCombo("##scenes", current.c_str())) {
    if (scene.files.empty()) ImGui::TextDisabled("no .json files in %s/scenes", scene.root.c_str());
    for (const std::string& name : scene.files) {
      if (ImGui::Selectable(name.c_str(), name == current)) {
        open_and_report(app, (std::filesystem::path(scene.root) / "scenes" / name).string());
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Browse")) app.ui.browser = !app.ui.browser;
  help_marker("The scene files in the scenes/ directory. Picking one loads it at once; if it fails to "
              "load, the error shows below and the current scene stays. Browse: every scene by the method it is "
              "written for, with a picture and its description (Scene menu, Browse scenes).");

  const bool open = ImGui::InputText("##open", &scene.open_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || open) open_and_report(app, resolve_scene_path(scene.root, scene.open_path));
  help_marker("Open a scene file by path: relative to the current directory, or a name in scenes/.");

  const bool save = ImGui::InputText("##save", &scene.save_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Save as") || save) save_and_report(app);
  help_marker("Write the current state of the world (bodies where they are now, the solver and its "
              "parameters) as a scene file. An existing file is overwritten.");
  ImGui::PopItemWidth();

  if (ImGui::Button("Reload")) reload_and_report(app);
  help_marker("Read the scene file again from disk (picks up edits made in a text editor).");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) reset_scene(app);
  help_marker("Back to the state the scene had when it was loaded (key R).");
  ImGui::SameLine();
  ImGui::Checkbox("keep solver", &scene.keep_settings_on_reset);
  help_marker("On Reset and Reload, keep the solver, its parameters and dt chosen in the panels, so "
              "methods can be compared from the same start. Untick to also restore the scene's settings.");

  if (!scene.error.empty()) colored_wrapped(kErrorColor, scene.error);
  if (!scene.message.empty()) colored_wrapped(kOkColor, scene.message);
  for (const std::string& w : scene.warnings) colored_wrapped(kWarningColor, w);
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_simulation_panel(AppState& app) {
  SimState& sim = app.sim;
  World& world = app.scene.world;
  if (!ImGui::Begin("Simulation")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const bool failed = !sim.step_error.empty();
  ImGui::BeginDisabled(failed);
  if (ImGui::Button(sim.playing ? "Pause" : "Play", ImVec2(60, 0))) sim.playing = !sim.playing;
  help_marker("Run or pause the simulation (key Space).");
  ImGui::SameLine();
  ImGui::BeginDisabled(sim.playing);
  if (ImGui::Button("Step")) step_once(app);
  ImGui::EndDisabled();
  help_marker("Advance one time step of dt while paused (key '.').");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Reset")) reset_scene(app);
  help_marker("Back to the loaded state (key R).");
  ImGui::Text("t = %.3f s   step %" PRId64, world.time(), world.step_count());

  ImGui::PushItemWidth(-110.0f);
  ImGui::SliderFloat("speed", &sim.speed, 0.05f, 4.0f, "%.2fx",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  help_marker("Simulated seconds per real second. The step size stays dt; only the number of steps per "
              "frame changes (at most 'max steps' per frame, beyond that the simulation slows down).");
  double dt = world.settings.dt;
  const double dt_min = 1e-4, dt_max = 0.05;
  if (ImGui::SliderScalar("dt", ImGuiDataType_Double, &dt, &dt_min, &dt_max, "%.5f s",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoRoundToFormat)) {
    if (dt > 0.0 && std::isfinite(dt)) world.settings.dt = dt;
  }
  help_marker("Time step h of each World::step, in seconds (1/60 = 0.01667). Smaller steps are more accurate "
              "and cost more steps per second of simulated time.");
  ImGui::SliderInt("max steps", &sim.max_steps_per_frame, 1, 16, "%d / frame", ImGuiSliderFlags_AlwaysClamp);
  help_marker("Most steps taken in one frame to catch up with real time.");
  ImGui::PopItemWidth();

  // Materials, live: a contact's friction is the geometric mean of its two bodies' materials, its restitution
  // the larger (taken by every contact at the next step). Save as writes them; Reset restores the file's.
  if (ImGui::CollapsingHeader("Materials")) {
    ImGui::PushItemWidth(-150.0f);
    for (size_t m = 0; m < world.materials.size(); ++m) {
      Material& mat = world.materials[m];
      ImGui::PushID(int(m));
      const double zero = 0.0, friction_max = 2.0, one = 1.0;
      bool changed = ImGui::SliderScalar(("friction " + mat.name).c_str(), ImGuiDataType_Double, &mat.friction, &zero,
                                         &friction_max, "%.3f", ImGuiSliderFlags_AlwaysClamp);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Coulomb friction coefficient of material \"%s\" (a contact takes the geometric mean "
                          "of its two bodies' materials). Ctrl+click to type a value.", mat.name.c_str());
      }
      changed |= ImGui::SliderScalar(("restitution " + mat.name).c_str(), ImGuiDataType_Double, &mat.restitution,
                                     &zero, &one, "%.2f", ImGuiSliderFlags_AlwaysClamp);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Restitution of material \"%s\" (a contact takes the larger).", mat.name.c_str());
      if (changed) {
        for (size_t b = 0; b < world.bodies.size(); ++b)
          if (world.bodies[b].material == int(m)) world.wake(int(b));
      }
      ImGui::PopID();
    }
    ImGui::PopItemWidth();
  }

  if (failed) {
    colored_wrapped(kErrorColor, "Simulation stopped: " + sim.step_error);
    if (ImGui::Button("Reset to recover")) reset_scene(app);
  }
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_solver_panel(AppState& app) {
  World& world = app.scene.world;
  if (!ImGui::Begin("Solver")) {
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

// ---------------------------------------------------------------------------------------------------
namespace {

ImU32 to_imgui(const glm::vec3& c) { return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, 1.0f)); }

// A small colour square followed by a label on the same line.
void swatch(const glm::vec3& color, const char* label) {
  const float size = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + size, p.y + size), to_imgui(color), 2.0f);
  ImGui::Dummy(ImVec2(size, size));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

// The stack height legend: the ramp with its end heights, then the two kinds of unreached bodies.
void height_legend(const World& world) {
  const int top = max_stack_height(world);
  if (top == 0) {
    ImGui::TextDisabled("no stacks (nothing rests on a fixed body)");
  } else {
    const float width = ImGui::GetContentRegionAvail().x - 60.0f, height = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const int steps = std::max(top, 1);
    for (int h = 1; h <= steps; ++h) {  // one block per height: the ramp is discrete like the heights
      const float x0 = p.x + width * (h - 1) / steps, x1 = p.x + width * h / steps;
      draw->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + height), to_imgui(height_color(h, top)));
    }
    ImGui::Dummy(ImVec2(width, height));
    ImGui::SameLine();
    ImGui::Text("1..%d", top);
  }
  swatch(kFloatingColor, "floating (no fixed support)");
  swatch(kNoGroupColor, "touching nothing");
  ImGui::TextDisabled("fixed and kinematic bodies: height 0, grey");
}

}  // namespace

void draw_view_panel(AppState& app) {
  ViewState& view = app.view;
  const World& world = app.scene.world;
  if (view.expand_view_panel) {  // asked for once (CONTACTLAB_VIEW=panel), then the user decides
    ImGui::SetNextWindowCollapsed(false);
    view.expand_view_panel = false;
  }
  app.ui.view_open = ImGui::Begin("View");
  if (!app.ui.view_open) {
    ImGui::End();
    return;
  }
  ImGui::PushItemWidth(-150.0f);
  if (ImGui::CollapsingHeader("Contacts", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("contact points", &view.show_contacts);
    help_marker("Yellow dots at the contact points of the last step (faint where hidden behind a body). Beyond "
                "3,000 contacts every k-th is drawn (with its normal and impulses), so dense sets stay legible; the "
                "Stats panel says 1 in how many.");
    ImGui::Checkbox("contact normals", &view.show_normals);
    help_marker("Cyan lines along each contact normal, from body a towards body b.");
    if (view.show_normals) {
      ImGui::SliderFloat("normal length", &view.normal_length, 0.01f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
      help_marker("Drawn length of the normals, in metres.");
    }
    ImGui::Checkbox("impulses", &view.show_impulses);
    help_marker("Red: normal impulse of each contact in the last step, along the normal. Orange: friction "
                "impulse. Length proportional to the impulse (N s).");
    if (view.show_impulses) {
      ImGui::Checkbox("auto scale", &view.auto_impulse_scale);
      help_marker("Scale so that the largest recent impulse is drawn 'longest' metres long.");
      if (view.auto_impulse_scale) {
        ImGui::SliderFloat("longest", &view.impulse_length, 0.05f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest recent impulse.");
      } else {
        ImGui::SliderFloat("scale", &view.impulse_scale, 1e-3f, 1e3f, "%.3g m/(N s)", ImGuiSliderFlags_Logarithmic);
        help_marker("Metres of line per N s of impulse.");
      }
    }
  }

  ImGui::Checkbox("method's own drawing", &view.show_method);
  help_marker("What the solver draws of its own last step. pid-penalty: each touching pair's bottom polygon, "
              "green in penalty (resting) mode, red in impact mode; at each of its points the P, I and D parts "
              "of the point's force stacked along the normal (blue, yellow, magenta; the largest point force "
              "0.3 m long) and the pair's friction force at the centre (orange). Other solvers draw nothing here.");

  {
    // The volume layers of the solver's drawing; the toggles stay usable under solvers that do not draw them.
    const bool volume = (world.solver().debug_layers() & (kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells)) != 0;
    const char* header = volume ? "Volume contacts###volume" : "Volume contacts (solver 'volume')###volume";
    if (ImGui::CollapsingHeader(header, volume ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
      if (!volume) ImGui::TextDisabled("only the 'volume' solver draws these (Solver panel)");
      ImGui::Checkbox("intersection volumes", &view.show_volumes);
      help_marker("The intersection volume of each colliding pair as the layered depth images see it (Allard et "
                  "al. 2010, sect. 3.2, eq. 11; their Fig. 1): for each image axis, every pixel ray's interval "
                  "inside both meshes as a line along that axis, from the lower contact surface to the upper "
                  "one. x red, y green, z blue. Drawn on top of the bodies. While any of these views is on, the "
                  "images are computed once more per pair and frame for the drawing.");
      if (view.show_volumes) {
        const char* kAxisNames[3] = {"x", "y", "z"};
        for (int w = 0; w < 3; ++w) {
          if (w > 0) ImGui::SameLine();
          const glm::vec3& c = kVolumeAxisColors[static_cast<size_t>(w)];
          ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(c.r, c.g, c.b, 1.0f));
          bool on = view.volume_axes[static_cast<size_t>(w)];
          if (ImGui::Checkbox(kAxisNames[w], &on)) view.volume_axes[static_cast<size_t>(w)] = on;
          ImGui::PopStyleColor();
        }
        ImGui::SameLine();
        ImGui::TextUnformatted("image axes");
        help_marker("Which images' intervals to draw: the image along x (rays parallel to x), y or z.");
        ImGui::SliderInt("most per axis", &view.volume_interval_limit, 100, 200000, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        help_marker("Intervals drawn per pair and image axis. Beyond this only every k-th pixel row and column "
                    "(in world pixel indices, so the pattern does not flicker) is drawn, the smallest k that "
                    "fits.");
      }
      ImGui::Checkbox("volume gradients", &view.show_volume_gradients);
      help_marker("dV/dp_k, the gradient of each pair's intersection volume with respect to every mesh vertex "
                  "(eq. 12-14: each component from its own axis image), as an arrow from the vertex: the way "
                  "moving that vertex grows the volume, hence into the other body. Magenta: the pair's first "
                  "body, amber: its second; the two sum to zero (equal and opposite forces). A coarse mesh "
                  "(a box) has its gradient on the corners of the triangles the contact surfaces lie on.");
      if (view.show_volume_gradients) {
        ImGui::SliderFloat("longest arrow", &view.gradient_length, 0.005f, 2.0f, "%.3f m",
                           ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest gradient of each pair; the pair's others in proportion (a "
                    "box's corner can carry a whole face's share, a fine mesh spreads it over many vertices). "
                    "Planes' gradients are left out (their mesh is the solver's stand-in box).");
        swatch(kGradientColorA, "first body of the pair");
        swatch(kGradientColorB, "second body");
      }
      ImGui::Checkbox("cells, frames and forces", &view.show_volume_cells);
      help_marker("With multi_volume: the grid cells (cubes of side cell_size, anchored at the world origin) "
                  "that hold a volume constraint (sect. 5, eq. 22-24), as white boxes. For every constraint: "
                  "its position (dot; midway between the two contact surfaces' barycentres, sect. 4.2), its "
                  "contact frame (normal cyan, tangents grey) and its impulse in the last step (normal red, "
                  "friction orange; scaled like 'impulses' above). With one volume per pair there are no cells.");
      ImGui::Checkbox("as of the last collision stage", &view.volume_last_stage);
      help_marker("Off: all of the above is computed at the poses drawn, after the frame's steps: what the next "
                  "step's collision stage will see (the forces are still the last step's). On: as the solver "
                  "used it in the last step, at the poses before that step moved the bodies, matching the "
                  "forces; drawn where the bodies were, which lags a step behind (far, in a step that separates "
                  "deeply interpenetrating bodies).");
      const DebugRecording& drawn = debug_recording(app, 0);
      if (volume && wants_volume_layers(view) && drawn.valid) {
        // The totals the solver noted with its drawing.
        ImGui::TextDisabled(drawn.at_collision_stage ? "as of the last step's collision stage" : "at the drawn poses");
        for (const auto& [label, value] : drawn.notes) ImGui::Text("%s %.6g", label.c_str(), value);
      }
    }
  }

  if (ImGui::CollapsingHeader("Contact graph", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("graph edges", &view.show_graph);
    help_marker("The contact graph of the last step (thesis ch. 5): a white line between the centres of every "
                "two bodies that touch. An edge to a fixed or kinematic body ends at the middle of the pair's "
                "contacts (a dot), since the ground's centre means nothing. Drawn on top of the bodies. "
                "With 'stack height' colouring the edges take the colour of their stack layer.");
    if (view.show_graph) {
      ImGui::Checkbox("near pairs too", &view.show_proximity);
      help_marker("Also the faint edges of pairs whose bounding boxes overlap (within the contact margin) "
                  "but have no contact yet: what the broad phase hands to the narrow phase.");
    }
    const char* kColorings[kBodyColoringCount] = {"own colour", "contact group", "stack height", "stack layer"};
    int coloring = static_cast<int>(view.coloring);
    if (ImGui::Combo("body colours", &coloring, kColorings, kBodyColoringCount)) {
      view.coloring = static_cast<BodyColoring>(coloring);
    }
    help_marker("Repaint the bodies by a property of the contact graph:\n"
                "- contact group: dynamic bodies connected through contacts (and joints), which the solver "
                "treats together; fixed and kinematic bodies separate groups. One colour per group, grey for "
                "bodies touching nothing.\n"
                "- stack height: fewest contacts from a fixed (or kinematic) body, found by breadth-first "
                "search (thesis 6.4.2).\n"
                "- stack layer: the bodies of heights i and i+1 and the contacts between them, which shock "
                "propagation solves bottom-up with the lower bodies held fixed.");
    if (view.coloring == BodyColoring::Group) {
      ImGui::Text("%zu contact groups", world.graph().groups().size());
      swatch(kNoGroupColor, "in no group (touching nothing)");
    } else if (view.coloring == BodyColoring::Height) {
      height_legend(world);
    } else if (view.coloring == BodyColoring::Layer) {
      const int layers = world.graph().max_layer_count();
      if (layers == 0) {
        ImGui::TextDisabled("no stack layers in this step");
      } else {
        view.layer = std::clamp(view.layer, 0, layers - 1);
        ImGui::SliderInt("layer", &view.layer, 0, layers - 1, "%d", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Which stack layer to show, counted from the bottom (layer i joins heights i and i+1). "
                    "Every contact group with that many layers shows its layer i. Other bodies are dimmed. "
                    "Shock propagation solves layer by layer from the bottom, holding each layer's bottom "
                    "bodies fixed (infinite mass) while it solves the layer.");
      }
      swatch(kLayerBottomColor, "bottom (held fixed)");
      swatch(kLayerTopColor, "top");
      swatch(kLayerEdgeColor, "its contact edges");
    }
    ImGui::Checkbox("sleeping bodies", &view.show_sleeping);
    help_marker("Shade sleeping bodies darker, bluish and faintly striped. A body falls asleep after it has "
                "been calm for a while (thesis 6.5) and is not simulated until something touches it, the "
                "mouse picks it, or a joint motor changes.");
  }

  if (ImGui::CollapsingHeader("Joints and scripts", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("joint frames", &view.show_joints);
    help_marker("At each joint: its anchor (white dot; click near it to select the joint), lines to the "
                "centres of its bodies, its axes (orange first, blue second) and, for hinges, the allowed "
                "angle range (green arc; a faint circle without limits) with the current angle (yellow "
                "needle). Sliders show their travel range. A red line means the two anchors have drifted "
                "apart (constraint error).");
    if (view.show_joints) {
      ImGui::SliderFloat("axis length", &view.joint_axis_length, 0.0f, 3.0f,
                         view.joint_axis_length > 0.0f ? "%.2f m" : "auto");
      help_marker("Drawn length of the joint axes. 'auto' (0) uses the size of the smaller body of each joint.");
    }
    ImGui::Checkbox("script paths", &view.show_scripts);
    help_marker("The path of every scripted body (blue; the selected body's brighter) through its control "
                "points. A path being laid in the Inspector is green.");
  }

  if (ImGui::CollapsingHeader("Meshes", ImGuiTreeNodeFlags_DefaultOpen)) {
    const int selected = app.pick.selected;
    const bool selected_mesh = selected >= 0 && selected < static_cast<int>(world.bodies.size()) &&
                               world.bodies[selected].shape.type == ShapeType::Mesh && world.bodies[selected].shape.mesh;
    const bool any_mesh = std::any_of(world.bodies.begin(), world.bodies.end(),
                                      [](const Body& b) { return b.shape.type == ShapeType::Mesh; });
    if (!any_mesh) ImGui::TextDisabled("no triangle-mesh bodies in this scene");
    const char* kMeshColorings[] = {"body colour", "normals"};
    int mesh_coloring = static_cast<int>(view.mesh_coloring);
    if (ImGui::Combo("mesh colouring", &mesh_coloring, kMeshColorings, 2)) {
      view.mesh_coloring = static_cast<MeshColoring>(mesh_coloring);
    }
    help_marker("How triangle-mesh bodies are shaded: like the other bodies, or by their surface normal in the "
                "body frame (+x red, +y green, +z blue), which shows the shading normals and the facets of the "
                "mesh.");
    ImGui::Checkbox("point shells", &view.show_point_shells);
    help_marker("Green dots at the shell points of the selected mesh body: the surface samples (vertices, points "
                "along sharp edges, centres of large triangles) that are tested against the other body's "
                "distance field to find contacts.");
    if (view.show_point_shells) {
      ImGui::SameLine();
      ImGui::Checkbox("all mesh bodies", &view.point_shells_all);
    }
    ImGui::Checkbox("distance field slice", &view.show_sdf_slice);
    help_marker("A plane through the selected mesh body, perpendicular to one of its body axes, coloured by the "
                "signed distance grid: blue inside, red outside, white at the surface. The outline is the "
                "grid's extent.");
    if (view.show_sdf_slice) {
      ImGui::RadioButton("x", &view.sdf_axis, 0);
      ImGui::SameLine();
      ImGui::RadioButton("y", &view.sdf_axis, 1);
      ImGui::SameLine();
      ImGui::RadioButton("z", &view.sdf_axis, 2);
      ImGui::SameLine();
      ImGui::TextUnformatted("body axis");
      if (selected_mesh) {
        const Aabb box = world.bodies[selected].shape.mesh->sdf.box();
        const int a = std::clamp(view.sdf_axis, 0, 2);
        const float lo = static_cast<float>(box.lo[a]), hi = static_cast<float>(box.hi[a]);
        view.sdf_offset = std::clamp(view.sdf_offset, lo, hi);
        ImGui::SliderFloat("offset", &view.sdf_offset, lo, hi, "%.3f m", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Where the plane cuts the axis, from the body's centre of mass (0).");
      } else {
        ImGui::TextDisabled("select a mesh body to see its slice");
      }
    }
  }

  if (ImGui::CollapsingHeader("Mouse drag")) {
    ImGui::SliderFloat("stiffness", &view.drag_stiffness, 1.0f, 2000.0f, "%.0f N/m/kg", ImGuiSliderFlags_Logarithmic);
    help_marker("Spring stiffness of the mouse drag per kg of the dragged body (so light and heavy bodies "
                "feel alike). 100 gives a natural frequency of 10 rad/s.");
    ImGui::SliderFloat("damping", &view.drag_damping, 0.0f, 100.0f, "%.1f N s/m/kg");
    help_marker("Damping of the drag spring per kg; 2 sqrt(stiffness) is critical damping.");
  }
  ImGui::PopItemWidth();

  ImGui::Checkbox("grid", &view.show_grid);
  help_marker("Grid lines on planes: minor lines at a power-of-ten spacing suited to the scene size, "
              "darker major lines every ten.");
  ImGui::SameLine();
  ImGui::Checkbox("shadows", &view.show_shadows);
  help_marker("Soft blob shadows under the bodies on planes (a depth cue, not a light simulation).");
  ImGui::SameLine();
  ImGui::Checkbox("wireframe", &view.wireframe);
  help_marker("Draw the body meshes as wireframes.");

  if (ImGui::Button("Frame scene")) frame_scene(app);
  help_marker("Point the camera at all bodies (key F).");
  ImGui::TextDisabled("Right-drag orbit, middle-drag (or Shift+right) pan,\nwheel zoom, left-click select,"
                      " left-drag pull\n(wheel while pulling: nearer / farther).");
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_stats_panel(AppState& app) {
  StatsState& stats = app.stats;
  const World& world = app.scene.world;
  app.ui.stats_open = ImGui::Begin("Stats");
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
  for (int i = 0; i < StatsState::kStages; ++i)
    stage_series.push_back({kStageNames[i], kStageColors[size_t(i)], &stats.stage_ms[size_t(i)]});
  for (int k = 0; k < stats.sub_stage_count; ++k) {
    const SubStage& sub = stats.sub_stage_names[size_t(k)];
    const ImU32 parent = kStageColors[sub.parent == StepStage::NarrowPhase ? 1 : sub.parent == StepStage::Solve ? 3 : 4];
    stage_series.push_back({std::string(step_stage_name(sub.parent)) + "/" + sub.name, (parent & 0x00FFFFFF) | 0x90000000u,
                            &stats.sub_stage_ms[size_t(k)]});
  }
  plot_lines("stages", "wall time per stage", "ms", stage_series, 80.0f);
  help_marker("Milliseconds spent in each stage of World::step (StepStats.profile) over the last steps, and the "
              "solver's own stages inside narrow phase, solve and integrate (StepStats.sub_stages; the CSV's "
              "<name>_ms columns), fainter in their stage's colour. Hover for the values at a step.");

  // The solver's own counters over the last steps, each on its own axes (their units differ).
  static constexpr std::array<ImU32, 4> kCounterColors = {IM_COL32(255, 210, 90, 255), IM_COL32(120, 220, 255, 255),
                                                          IM_COL32(255, 130, 200, 255), IM_COL32(160, 240, 140, 255)};
  for (int k = 0; k < stats.counter_count; ++k) {
    const SolverCounter& c = stats.counter_names[size_t(k)];
    const PlotSeries series[] = {{c.name, kCounterColors[size_t(k) % kCounterColors.size()], &stats.counter_values[size_t(k)]}};
    plot_lines(c.name, c.name, c.unit, series, 34.0f);
  }

  // The convergence of the last step's main iterative solve (lcp's and volume's velocity PGS, implicit-penalty's
  // friction PGS): the residual after each sweep, log scale.
  const std::span<const double> convergence = world.solver().convergence();
  if (!convergence.empty()) {
    const char* residual_unit = world.solver().name() == "volume" ? "N s/m^2" : "N s";
    // The read-out under the mouse names the sweep and its residual (the largest change of an impulse in it).
    plot_log_sequence("convergence", "residual per sweep, last step", residual_unit, "sweep", convergence,
                      IM_COL32(255, 160, 90, 255), 50.0f);
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
    table_row("iterations", "%d", s.iterations);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("lcp, volume: projected Gauss-Seidel sweeps; implicit-penalty: direct solves, friction "
                        "sweeps and joint projection steps (docs/solvers.md).");
    const bool volume = world.solver().name() == "volume";
    if (volume) table_row("residual", "%.3g N s/m^2", s.residual);
    else table_row("residual", "%.3g N s", s.residual);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("lcp: largest impulse change in the last velocity sweep; volume: of a multiplier (pressure "
                        "times time); implicit-penalty: the larger of the linear solve's and the friction sweep's.");
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

// ---------------------------------------------------------------------------------------------------
namespace {

std::string body_label(const World& world, int body) {
  if (body < 0 || body >= static_cast<int>(world.bodies.size())) return "(world)";
  const Body& b = world.bodies[body];
  return (b.name.empty() ? std::string("(unnamed)") : b.name) + "  (#" + std::to_string(body) + ", " +
         body_kind_name(b.kind) + ")";
}

// The joint coordinate is an angle for these types (shown in degrees), a length for the slider.
bool angular_joint(JointType t) { return t != JointType::Slider; }
bool has_limit_and_motor(JointType t) { return joint_type_has_coordinate(t); }

constexpr double kDeg = 180.0 / 3.14159265358979323846;

// What the selected joint is and where it stands.
void draw_joint_state_tab(AppState& app, int j) {
  const World& world = app.scene.world;
  const Joint& joint = world.joints[j];
  const bool angular = angular_joint(joint.type);
  if (begin_two_column_table("joint", "servo target")) {
    table_row("joint", "%s  (#%d)", joint.name.empty() ? "(unnamed)" : joint.name.c_str(), j);
    const std::string_view type = joint_type_name(joint.type);
    table_row("type", "%.*s", static_cast<int>(type.size()), type.data());
    table_row("body a", "%s", body_label(world, joint.body_a).c_str());
    table_row("body b", "%s", body_label(world, joint.body_b).c_str());
    vec_row("anchor", joint_anchor_world(world, joint, 0), "m");
    if (joint.type != JointType::Ball && joint.type != JointType::Fixed) {
      vec_row("axis", joint_axis_world(world, joint, false), "");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("First axis in the world frame, carried by body a.");
    }
    if (joint.type == JointType::Hinge2 || joint.type == JointType::Universal) {
      vec_row("axis 2", joint_axis_world(world, joint, true), "");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Second axis in the world frame, carried by body b.");
    }
    if (has_limit_and_motor(joint.type)) {
      const double c = joint_coordinate(joint, world.bodies);
      if (angular) table_row("coordinate", "%.2f deg  (%.4f rad)", c * kDeg, c);
      else table_row("coordinate", "%.4f m", c);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(joint.type == JointType::Slider ? "Displacement of b along the axis relative to a (what the limit acts on)."
                          : joint.type == JointType::Hinge ? "Angle of b about the axis relative to a (what the limit acts on)."
                                                           : "Angle of b's second axis about the first axis, seen from a (what the limit acts on).");
      }
      const double rate = joint_rate(joint, world.bodies);
      table_row("rate", angular ? "%.3f rad/s" : "%.3f m/s", rate);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(joint.type == JointType::Hinge || joint.type == JointType::Slider
                              ? "Rate of the coordinate: what the motor drives."
                              : "Relative spin about the second axis: what the motor drives.");
      }
    }
    if (joint.servo.enabled && joint_type_has_servo(joint.type)) {
      const std::string keys = servo_key_label(joint.servo);
      if (angular) table_row("servo target", "%.2f deg  %s", joint.servo.target * kDeg, keys.c_str());
      else table_row("servo target", "%.4f m  %s", joint.servo.target, keys.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("The servo's target and its keys (raise / lower); set it in the Servos panel.");
    }
    table_row("error", "%.3g", joint_error(joint, world.bodies));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("How far the constraint is from satisfied (m at the anchor, rad for the axes).");
    ImGui::EndTable();
  }
  if (ImGui::Button("Deselect")) select_joint(app, -1);
}

// The selected joint's limit, motor and softness, editable live.
void draw_joint_settings_tab(AppState& app, int j) {
  const World& world = app.scene.world;
  const Joint& joint = world.joints[j];
  const bool angular = angular_joint(joint.type);
  // Edits work on a copy and go through set_joint_settings, which also updates the reset state and wakes
  // the bodies.
  JointLimit limit = joint.limit;
  JointMotor motor = joint.motor;
  double erp = joint.erp, cfm = joint.cfm;
  bool changed = false;
  ImGui::PushItemWidth(-150.0f);
  if (has_limit_and_motor(joint.type)) {
    changed |= ImGui::Checkbox("limited", &limit.enabled);
    help_marker(joint.type == JointType::Slider
                    ? "Keep the displacement along the axis between lower and upper (green ticks in the scene)."
                    : "Keep the angle about the (first) axis between lower and upper (the green arc in the scene).");
    ImGui::BeginDisabled(!limit.enabled);
    const double scale = angular ? kDeg : 1.0;
    double range[2] = {limit.lower * scale, limit.upper * scale};
    const char* fmt = angular ? "%.1f deg" : "%.3f m";
    if (ImGui::InputScalarN("lower, upper", ImGuiDataType_Double, range, 2, nullptr, nullptr, fmt,
                            ImGuiInputTextFlags_EnterReturnsTrue)) {
      if (std::isfinite(range[0]) && std::isfinite(range[1])) {
        // Angles stay within [-180, 180] degrees, the range scene files accept.
        const double bound = angular ? 180.0 : std::numeric_limits<double>::max();
        limit.lower = std::clamp(std::min(range[0], range[1]), -bound, bound) / scale;
        limit.upper = std::clamp(std::max(range[0], range[1]), -bound, bound) / scale;
        changed = true;
      }
    }
    help_marker(angular ? "Lower and upper angle in degrees, within -180..180 (stored in radians); press Enter to "
                          "apply. Swapped if given the wrong way round."
                        : "Lower and upper displacement in metres; press Enter to apply.");
    ImGui::EndDisabled();

    ImGui::Separator();
    ImGui::TextDisabled("Motor");
    // A servo already drives the coordinate (a scene may not have both: saving would write a file that
    // does not load), so the motor stays off on servo joints.
    const bool servo = joint.servo.enabled && joint_type_has_servo(joint.type);
    ImGui::BeginDisabled(servo);
    changed |= ImGui::Checkbox("motor on", &motor.enabled);
    ImGui::EndDisabled();
    help_marker(servo ? "This joint has a servo (Servos panel), which drives its coordinate; a motor cannot be added."
                : joint.type == JointType::Hinge2 || joint.type == JointType::Universal
                    ? "Drive the relative spin about the second (wheel) axis to 'speed' with at most 'max force' of torque."
                    : "Drive the coordinate's rate to 'speed' with at most 'max force'.");
    ImGui::BeginDisabled(!motor.enabled);
    const double speed_min = angular ? -50.0 : -10.0, speed_max = -speed_min;
    changed |= ImGui::SliderScalar("speed", ImGuiDataType_Double, &motor.speed, &speed_min, &speed_max,
                                   angular ? "%.2f rad/s" : "%.3f m/s");
    help_marker(angular ? "Target angular velocity in rad/s (1 rad/s = 57.3 deg/s); the sign follows the axis "
                          "(right-hand rule). Ctrl+click to type a value."
                        : "Target speed along the axis in m/s. Ctrl+click to type a value.");
    const double force_min = 0.0, force_max = 1e5;
    changed |= ImGui::SliderScalar("max force", ImGuiDataType_Double, &motor.max_force, &force_min, &force_max,
                                   angular ? "%.4g N m" : "%.4g N",
                                   ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("Largest torque (N m) or force (N) the motor may use to reach its speed; 0 disables it in effect.");
    ImGui::EndDisabled();
  }
  ImGui::Separator();
    ImGui::TextDisabled("Softness");
  const double zero = 0.0, one = 1.0, cfm_max = 1.0;
  changed |= ImGui::SliderScalar("ERP", ImGuiDataType_Double, &erp, &zero, &one, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  help_marker("Error reduction parameter: the fraction of the joint's position error removed per step "
              "(thesis 4.7). 0 lets errors drift, 1 removes them at once (can be jittery); 0.2 is typical.");
  changed |= ImGui::SliderScalar("CFM", ImGuiDataType_Double, &cfm, &zero, &cfm_max, "%.3g",
                                 ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  help_marker("Constraint force mixing: added to the diagonal of the joint's rows (thesis 4.13), making the "
              "joint soft (springy). 0 is rigid.");
  ImGui::PopItemWidth();
  if (changed) set_joint_settings(app, j, limit, motor, erp, cfm);
  ImGui::TextDisabled("Edits also apply after Reset and to Save as.");
}

void draw_joint_inspector(AppState& app, int j) {
  if (!ImGui::BeginTabBar("joint tabs")) return;
  if (ImGui::BeginTabItem("Joint")) {
    draw_joint_state_tab(app, j);
    ImGui::EndTabItem();
  }
  const ImGuiTabItemFlags flags = app.pick.focus_joint_settings ? ImGuiTabItemFlags_SetSelected : 0;
  app.pick.focus_joint_settings = false;
  const bool limits = has_limit_and_motor(app.scene.world.joints[j].type);
  if (ImGui::BeginTabItem(limits ? "Limit, motor###settings" : "Softness###settings", nullptr, flags)) {
    draw_joint_settings_tab(app, j);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

// The Inspector's Script tab: lay a path for the selected body, set its timing, apply, clear.
void draw_script_tab(AppState& app, int body) {
  World& world = app.scene.world;
  ScriptEditState& d = app.script;
  if (world.bodies[body].shape.type == ShapeType::Plane) {
    ImGui::TextDisabled("Planes cannot follow a path.");
    return;
  }
  const int applied = find_script(world, body);
  if (applied >= 0) {
    const Script& s = world.scripts[applied];
    ImGui::Text("follows a path: %zu points, %.3g m", s.points.size(), script_length(s));
  } else {
    ImGui::TextDisabled("no script");
  }

  if (d.laying) {
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.25f, 0.55f, 0.2f, 1.0f));
    if (ImGui::Button("Stop laying")) end_script_path(app);
    ImGui::PopStyleColor();
  } else if (ImGui::Button("Script path")) {
    std::string error;
    if (!begin_script_path(app, &error)) d.error = error;
  }
  help_marker("Lay the body's path: while on, each left click in the scene adds a point (green). A click on "
              "a surface puts the body's centre where the body would rest on it; a click on empty space uses "
              "the horizontal plane through the body's centre. A new path starts at the body. Keys while on: "
              "Backspace removes the last point, Enter applies, Esc stops. The camera still orbits (right "
              "drag) and zooms.");
  ImGui::SameLine();
  ImGui::Checkbox("at body height", &d.plane_only);
  help_marker("Put every clicked point on the horizontal plane through the body's centre, ignoring the "
              "surfaces under the cursor (a path across a floor at constant height).");
  ImGui::Text("draft: %zu points", d.points.size());
  ImGui::SameLine();
  ImGui::BeginDisabled(d.points.empty());
  if (ImGui::SmallButton("Undo point")) remove_last_script_point(app);
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear points")) {
    d.points.clear();
    if (d.laying) d.points.push_back(world.bodies[body].position);
  }
  ImGui::EndDisabled();

  ImGui::PushItemWidth(-150.0f);
  double speed = d.speed;
  const double speed_min = 0.01, speed_max = 50.0;
  if (ImGui::SliderScalar("speed", ImGuiDataType_Double, &speed, &speed_min, &speed_max, "%.3g m/s",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
    if (applied >= 0) set_script_speed(app, body, speed);  // live, without a jump
    d.speed = speed;
  }
  help_marker("Speed along the path in m/s (the mean speed with 'ease'). Changing it on a body that already "
              "follows a path takes effect at once, and the body keeps its place on the path.");
  const char* kTimings[] = {"constant", "ease"};
  int timing = static_cast<int>(d.timing);
  ImGui::SetNextItemWidth(110.0f);  // with "loop" on the same line: the Inspector is short at 720 lines
  if (ImGui::Combo("timing", &timing, kTimings, 2)) d.timing = static_cast<ScriptTiming>(timing);
  help_marker("constant: the same speed all along. ease: starts and stops gently (ease-in / ease-out), "
              "faster in the middle. Takes effect on Apply.");
  ImGui::SameLine();
  ImGui::Checkbox("loop", &d.loop);
  help_marker("Go round again and again: the path closes from the last point back to the first. Takes "
              "effect on Apply.");
  const double delay_min = 0.0, delay_max = 60.0;
  ImGui::SliderScalar("start after", ImGuiDataType_Double, &d.delay, &delay_min, &delay_max, "%.2f s",
                      ImGuiSliderFlags_AlwaysClamp);
  help_marker("Seconds the body waits at the first point: after Apply in the running simulation, and from "
              "the start after Reset and in the saved scene (the script's start_time). Takes effect on Apply.");
  ImGui::PopItemWidth();

  ImGui::BeginDisabled(d.points.size() < 2);
  if (ImGui::Button("Apply")) {
    std::string error;
    if (!apply_script(app, &error)) d.error = error;
  }
  ImGui::EndDisabled();
  help_marker("Give the body this path: it becomes kinematic (infinite mass: it pushes dynamic bodies and is "
              "never pushed back), moves to the first point and follows the path. Reset replays it from the "
              "start and Save as writes it into the scene file. The body's mass is remembered for Clear.");
  ImGui::SameLine();
  ImGui::BeginDisabled(applied < 0);
  if (ImGui::Button("Clear script")) clear_script(app, d.restore_on_clear);
  ImGui::EndDisabled();
  help_marker("Remove the body's script (also from the reset state). With 'make dynamic' the body gets back "
              "the kind and mass it had before Apply and falls or flies on with its last velocity.");
  ImGui::SameLine();
  ImGui::Checkbox("make dynamic", &d.restore_on_clear);
  help_marker("On Clear, make the body dynamic again (or fixed, if it was fixed before Apply). Unticked, "
              "it stays kinematic and stops where it is.");
  const bool original_known = std::any_of(d.originals.begin(), d.originals.end(),
                                          [&](const OriginalMass& o) { return o.body == body; });
  if (applied >= 0 && d.restore_on_clear && !original_known) {
    ImGui::PushItemWidth(-150.0f);
    const double dmin = 1.0, dmax = 20000.0;
    ImGui::SliderScalar("density", ImGuiDataType_Double, &d.restore_density, &dmin, &dmax, "%.0f kg/m^3",
                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("The scene made this body kinematic, so it has no mass to go back to: Clear gives it this "
                "density (water 1000, wood ~600, steel ~7800).");
    ImGui::PopItemWidth();
  }
  if (!d.error.empty()) colored_wrapped(kErrorColor, d.error);
  else if (!d.message.empty()) colored_wrapped(kOkColor, d.message);
}

// The state of the selected body.
void draw_body_tab(AppState& app, int i) {
  const World& world = app.scene.world;
  const Body& b = world.bodies[i];
  const Shape& s = b.shape;
  if (begin_two_column_table("body", "orientation")) {
    table_row("name", "%s  (#%d)", b.name.empty() ? "(unnamed)" : b.name.c_str(), i);
    table_row("kind", "%s", body_kind_name(b.kind));
    switch (s.type) {
      case ShapeType::Plane:
        table_row("shape", "plane n (%.2f, %.2f, %.2f), offset %.3g m", s.normal.x(), s.normal.y(), s.normal.z(),
                  s.offset);
        break;
      case ShapeType::Sphere: table_row("shape", "sphere r %.3g m", s.radius); break;
      case ShapeType::Box:
        table_row("shape", "box %.3g x %.3g x %.3g m", 2 * s.half_extents.x(), 2 * s.half_extents.y(),
                  2 * s.half_extents.z());
        break;
      case ShapeType::Capsule:
        table_row("shape", "capsule r %.3g m, segment %.3g m", s.radius, 2 * s.half_height);
        break;
      case ShapeType::Mesh: {
        if (!s.mesh) {
          table_row("shape", "mesh (missing)");
          break;
        }
        const MeshShape& m = *s.mesh;
        const MeshSource source = mesh_source(s.mesh).value_or(MeshSource{});
        table_row("shape", "mesh %s", source.generator.empty() ? source.file.c_str() : source.generator.c_str());
        if (m.options.scale != 1.0) table_row("scale", "%.4g", m.options.scale);
        table_row("triangles", "%zu  (%zu vertices)", m.mesh.triangles.size(), m.mesh.vertices.size());
        table_row("shell points", "%zu", m.points.size());
        const auto nodes = m.sdf.node_counts();
        table_row("distance grid", "%d x %d x %d nodes, cell %.3g m", nodes[0], nodes[1], nodes[2], m.sdf.cell_size());
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("Signed distance grid of the mesh (negative inside), %d cells along the longest side.",
                            m.options.sdf_resolution);
        }
        const Vec3 size = m.properties.local_bounds.hi - m.properties.local_bounds.lo;
        table_row("size", "%.3g x %.3g x %.3g m (radius %.3g m)", size.x(), size.y(), size.z(), m.properties.bounding_radius);
        table_row("volume", "%.4g m^3", m.properties.volume);
        break;
      }
    }
    const bool has_material = b.material >= 0 && b.material < static_cast<int>(world.materials.size());
    table_row("material", "%s", has_material ? world.materials[b.material].name.c_str() : "?");
    if (b.is_dynamic()) table_row("mass", "%.4g kg", b.mass);
    else table_row("mass", "infinite (%s)", body_kind_name(b.kind));
    vec_row("position", b.position, "m");
    const Quat& q = b.orientation;
    table_row("orientation", "%.3f, %.3f, %.3f, %.3f", q.w(), q.x(), q.y(), q.z());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Unit quaternion (w, x, y, z), body to world.");
    vec_row("velocity", b.linear_velocity, "m/s");
    vec_row("angular vel.", b.angular_velocity, "rad/s");
    table_row("speed", "%.3f m/s", b.linear_velocity.norm());
    if (b.is_dynamic()) {
      const ContactGraph& graph = world.graph();
      const auto k = static_cast<size_t>(i);
      const int g = k < graph.group_of_body().size() ? graph.group_of_body()[k] : -1;
      const int h = k < graph.height_of_body().size() ? graph.height_of_body()[k] : ContactGraph::kUnreached;
      table_row("state", "%s", b.sleeping ? "asleep" : "awake");
      if (g < 0) table_row("group", "none (touching nothing)");
      else table_row("group", "%d  (%zu bodies)", g, graph.groups()[g].bodies.size());
      if (h != ContactGraph::kUnreached) table_row("stack height", "%d", h);
      else table_row("stack height", "%s", g >= 0 ? "floating (no fixed support)" : "-");
    }
    // The scene's applied forces on this body, as the next step applies them.
    for (size_t k = 0; k < world.forces.size(); ++k) {
      const AppliedForce& f = world.forces[k];
      if (f.body != i) continue;
      const ForceSample now = sample_applied_force(f, b, world.step_count(), world.time(), world.settings.dt);
      const std::string label = "force #" + std::to_string(k);
      if (now.active) {
        table_row(label.c_str(), "%.3g, %.3g, %.3g N", now.force.x(), now.force.y(), now.force.z());
      } else {
        table_row(label.c_str(), "off");
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Scene \"forces\" entry %zu: the force the next step applies (world frame) at the point "
                          "(%.3g, %.3g, %.3g) m of the body, with a moment about the centre of (%.3g, %.3g, %.3g) N m. "
                          "Acts in [%.4g, %.4g) s%s%s.",
                          k, now.point.x(), now.point.y(), now.point.z(), now.torque.x(), now.torque.y(),
                          now.torque.z(), f.start, f.end, f.period > 0 ? ", repeating" : "",
                          f.is_random() ? ", drawn at random" : "");
      }
    }
    ImGui::EndTable();
  }
  if (ImGui::Button("Deselect")) select_body(app, -1);
}

// Two tabs, so that the path editor gets the whole (small, at 720 lines) Inspector: the body's state, and
// its script. Starting Script path mode brings the Script tab forward.
void draw_body_inspector(AppState& app, int i) {
  load_script_draft(app, i);
  if (!ImGui::BeginTabBar("body tabs")) return;
  if (ImGui::BeginTabItem("Body")) {
    draw_body_tab(app, i);
    ImGui::EndTabItem();
  }
  const bool scripted = find_script(app.scene.world, i) >= 0;
  const ImGuiTabItemFlags flags = app.script.focus_tab ? ImGuiTabItemFlags_SetSelected : 0;
  app.script.focus_tab = false;
  if (ImGui::BeginTabItem(scripted ? "Script (on)###script" : "Script###script", nullptr, flags)) {
    draw_script_tab(app, i);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}


}  // namespace

void draw_inspector_panel(AppState& app) {
  const World& world = app.scene.world;
  app.ui.inspector_open = ImGui::Begin("Inspector");
  if (!app.ui.inspector_open) {
    ImGui::End();
    return;
  }
  const int joint = app.pick.selected_joint;
  const int body = app.pick.selected;
  if (joint >= 0 && joint < static_cast<int>(world.joints.size())) {
    draw_joint_inspector(app, joint);
  } else if (body >= 0 && body < static_cast<int>(world.bodies.size())) {
    draw_body_inspector(app, body);
  } else {
    ImGui::TextDisabled(world.joints.empty() ? "Left-click a body to select it."
                                             : "Left-click a body to select it, or near a joint's\n"
                                               "anchor (white dot) to select the joint.");
  }
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_servos_panel(AppState& app) {
  constexpr size_t kServoRowsShown = 8;  // beyond this many servos the table scrolls
  const std::vector<int> servos = servo_joints(app.scene.world);
  if (servos.empty()) return;
  if (!ImGui::Begin("Servos")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  ImGui::TextDisabled("Hold a servo's keys while the simulation runs to move its target.");
  help_marker("Each servo drives its joint coordinate (hinge angle, slider displacement) to its target. "
              "While the simulation runs, holding the first key raises the target and the second lowers it, at "
              "the servo's rate (scene \"keys\" and \"rate\"), within its range; the slider sets it with the "
              "mouse (Ctrl+click to type a value). The joint's bodies wake when the target changes. Reset goes "
              "back to the targets of the file; Save as writes the current ones.");
  ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV;
  if (servos.size() > kServoRowsShown) flags |= ImGuiTableFlags_ScrollY;  // the header stays, the rows scroll
  if (ImGui::BeginTable("servos", 6, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("joint");
    ImGui::TableSetupColumn("type");
    ImGui::TableSetupColumn("keys");
    // As wide as a long value from the start: fitted to the first frame's "0.0 deg", it cut "-0.1 deg" later.
    ImGui::TableSetupColumn("now", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("-00000.0 deg").x);
    ImGui::TableSetupColumn("target", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("max force");
    ImGui::TableHeadersRow();
    for (int j : servos) {
      const Joint& joint = app.scene.world.joints[j];
      const JointServo& servo = joint.servo;
      const bool slider = joint.type == JointType::Slider;
      const double scale = slider ? 1.0 : kDeg;  // hinge angles are shown in degrees, stored in radians
      const char* unit = slider ? "m" : "deg";
      ImGui::PushID(j);
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::AlignTextToFramePadding();
      if (ImGui::Selectable(joint.name.empty() ? ("#" + std::to_string(j)).c_str() : joint.name.c_str(),
                            app.pick.selected_joint == j)) {
        select_joint(app, j);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Joint #%d; click to show it in the Inspector.", j);
      ImGui::TableSetColumnIndex(1);
      const std::string_view type = joint_type_name(joint.type);
      ImGui::Text("%.*s", static_cast<int>(type.size()), type.data());
      ImGui::TableSetColumnIndex(2);
      const std::string keys = servo_key_label(servo);
      if (keys.empty()) {
        ImGui::TextDisabled("none");
      } else {
        const std::string& held = app.servos.held;
        const bool active = held.find(servo.key_raise) != std::string::npos ||
                            held.find(servo.key_lower) != std::string::npos;
        if (active) ImGui::TextColored(kOkColor, "%s", keys.c_str());
        else ImGui::TextUnformatted(keys.c_str());
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("Hold %c to raise the target, %c to lower it, by %.3g %s per second.",
                            keys.front(), keys.back(), servo.rate * scale, slider ? "m" : "deg");
        }
      }
      ImGui::TableSetColumnIndex(3);
      // A hinge servo's angle counts whole turns (JointServo::coordinate).
      const double wrapped = joint_coordinate(joint, app.scene.world.bodies);
      double now = (slider ? wrapped : unwrap_servo_angle(servo, wrapped)) * scale;
      if (std::abs(now) < (slider ? 5e-4 : 5e-2)) now = 0.0;  // "0.000", not "-0.000"
      ImGui::Text(slider ? "%.3f %s" : "%.1f %s", now, unit);
      if (ImGui::IsItemHovered()) {
        if (slider) ImGui::SetTooltip("The current displacement along the axis (m).");
        else ImGui::SetTooltip("The current hinge angle (deg), counting whole turns: %.2f turns.", now / 360.0);
      }
      ImGui::TableSetColumnIndex(4);
      double lo = 0.0, hi = 0.0;
      servo_target_bounds(joint, &lo, &hi);
      double value = servo.target * scale;
      const std::string fmt = std::string(slider ? "%.3f " : "%.1f ") + unit;
      bool changed = false;
      ImGui::SetNextItemWidth(-FLT_MIN);
      if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
        const double lo_shown = lo * scale, hi_shown = hi * scale;
        changed = ImGui::SliderScalar("##target", ImGuiDataType_Double, &value, &lo_shown, &hi_shown, fmt.c_str(),
                                      ImGuiSliderFlags_AlwaysClamp);
      } else {  // an unbounded range: drag instead (a slider needs both ends)
        changed = ImGui::DragScalar("##target", ImGuiDataType_Double, &value, slider ? 0.005f : 0.5f, nullptr,
                                    nullptr, fmt.c_str());
      }
      if (ImGui::IsItemHovered()) {
        const std::string range = std::isfinite(lo) || std::isfinite(hi)
                                      ? "Range " + format_number(lo * scale) + " .. " + format_number(hi * scale) + " " + unit + "."
                                      : std::string("No range: drag to set it.");
        ImGui::SetTooltip("Target %s. %s", slider ? "displacement" : "angle", range.c_str());
      }
      if (changed) set_joint_servo_target(app, j, value / scale);
      ImGui::TableSetColumnIndex(5);
      if (servo_is_pd(joint)) {
        // The bound on the PD force or torque, live: below the load (friction, weight) the joint is stuck.
        Joint& edit = app.scene.world.joints[j];
        const bool bounded = std::isfinite(edit.servo.max_force);
        double bound = bounded ? edit.servo.max_force : 0.0;
        ImGui::SetNextItemWidth(110.0f);
        if (ImGui::DragScalar("##max_force", ImGuiDataType_Double, &bound, slider ? 1.0f : 0.2f, nullptr, nullptr,
                              bounded ? (slider ? "%.1f N" : "%.2f N m") : "none") &&
            bound > 0 && std::isfinite(bound)) {
          edit.servo.max_force = bound;
          app.scene.world.wake(edit.body_a);
          app.scene.world.wake(edit.body_b);
        }
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("The most %s the servo applies (scene \"max_force\"); drag to change it live. Below the "
                            "load it has to overcome (friction, weight) the joint stops while its target runs on.",
                            slider ? "force (N)" : "torque (N m)");
        }
      } else {
        ImGui::TextDisabled("rigid");
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("A hinge servo without gains holds its angle as a constraint, with whatever torque that "
                            "takes (scene: give it \"stiffness\" and \"damping\" for a bounded PD torque).");
        }
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
// What the active solver does not honour in this scene, on top of the scene at the bottom centre, so that a
// comparison never silently runs a different scene than the file describes (the Solver panel says the same).
void draw_unsupported_banner(AppState& app) {
  const std::vector<std::string> unsupported = app.scene.world.unsupported_features();
  if (unsupported.empty()) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float width = std::min(640.0f, std::max(display.x - 2.0f * (kPanelWidth + 2.0f * kMargin), 300.0f));
  // Above the Compare panel at the bottom of the middle.
  const float above = compare_panel_height(app);
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, display.y - above - 2.0f * kMargin), ImGuiCond_Always, ImVec2(0.5f, 1.0f));
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.75f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##unsupported", nullptr, flags)) {
    for (const std::string& w : unsupported) colored_wrapped(kWarningColor, "Not honoured by " + w);
  }
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
namespace {

ImU32 lane_u32(int lane, float alpha = 1.0f) {
  const std::array<float, 3> c = lane_color(lane);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], alpha));
}

// The text shortened with "..." to fit `width` pixels.
std::string fit_text(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string cut = text;
  while (!cut.empty() && ImGui::CalcTextSize((cut + "...").c_str()).x > width) cut.pop_back();
  return cut + "...";
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

// ---------------------------------------------------------------------------------------------------
void draw_help_overlay(AppState& app) {
  if (!app.ui.help) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, 0.5f * display.y), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(display.x - 2 * kMargin, display.y - 2 * kMargin));
  ImGui::SetNextWindowBgAlpha(0.95f);
  ImGui::SetNextWindowFocus();
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("Keys and mouse (F1 or Esc closes)", &app.ui.help, flags)) {
    static constexpr std::pair<const char*, const char*> kControls[] = {
        {"left click", "select a body (or, within 10 px of its anchor, a joint)"},
        {"left drag", "pull the body with a spring (in every comparison lane); the wheel moves it nearer or farther"},
        {"right drag", "orbit the camera"},
        {"middle drag, shift + right drag", "pan"},
        {"wheel", "zoom"},
        {"space", "play / pause"},
        {".", "one step (while paused)"},
        {"R", "reset the scene (every lane)"},
        {"F", "frame the selected body (with none selected, the scene)"},
        {"F2", "compare every method: a lane for each, side by side from the scene's start"},
        {"V", "comparison: split cells or ghosts over lane 1"},
        {"Tab", "hide / show the panels"},
        {"F1", "this help"},
        {"F12", "save a screenshot <scene>-<date>-<time>.png in the output folder (File menu)"},
        {"F9", "start / stop a video of the window (.mp4 through ffmpeg, else PNG frames) in the output folder"},
        {"Page Down, Page Up", "open the next / previous scene of scenes/"},
        {"servo keys", "hold a servo's keys (Servos panel) to move its target"},
        {"Script path mode", "click points, Backspace removes the last, Enter applies, Esc stops"},
    };
    if (ImGui::BeginTable("controls", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const auto& [key, what] : kControls) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(kWarningColor, "%s", key);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(what);
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Every panel item has a (?) with what it does; docs/ has the rest.");
  }
  ImGui::End();
}

// The first launch's welcome: what the tool is for and where to start. Closing it writes the marker
// (welcome_marker_path) so that it does not come back.
void draw_welcome(AppState& app) {
  if (!app.ui.welcome) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, 0.5f * display.y), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(560.0f, display.x - 2.0f * kMargin), 0.0f), ImGuiCond_Always);
  bool open = true;
  if (ImGui::Begin("Welcome to ContactLab", &open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove |
                                                       ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::TextWrapped("Four published contact methods for rigid bodies on one scene: lcp (velocity LCP), "
                       "implicit-penalty, volume and pid-penalty. Watch them, drag bodies, and compare.");
    ImGui::Spacing();
    ImGui::BulletText("Scene menu or Page Down: another scene (its description shows at the top).");
    ImGui::BulletText("Solver menu: the same scene under another method.");
    ImGui::BulletText("F2 (Compare menu, Every method): every method side by side; V overlays them.");
    ImGui::BulletText("Left-drag a body to pull it; right-drag orbits, the wheel zooms.");
    ImGui::BulletText("F1: every key and mouse control. Tab hides the panels.");
    ImGui::Spacing();
    if (ImGui::Button("Start")) open = false;
  }
  ImGui::End();
  if (!open) {
    app.ui.welcome = false;
    mark_welcomed();
  }
}

void draw_error_toast(AppState& app) {
  // Every current error of the panels, whole and wrapped, at the bottom of the middle above the Compare panel,
  // until closed (a new message shows again). The panel that caused it keeps showing it too.
  const std::pair<const char*, const std::string*> sources[] = {
      {"Scene", &app.scene.error},     {"Simulation stopped", &app.sim.step_error}, {"Solver", &app.solver.error},
      {"Compare", &app.compare.error}, {"Stats", &app.stats.error},                   {"Script", &app.script.error}};
  std::vector<std::pair<const char*, const std::string*>> shown;
  for (const auto& s : sources)
    if (!s.second->empty() &&
        std::find(app.ui.dismissed.begin(), app.ui.dismissed.end(), *s.second) == app.ui.dismissed.end())
      shown.push_back(s);
  if (shown.empty()) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float middle_x = kPanelWidth + 2.0f * kMargin;
  const float width = std::min(620.0f, std::max(display.x - 2.0f * middle_x, 260.0f));
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, display.y - compare_panel_height(app) - 3.0f * kMargin - 60.0f),
                          ImGuiCond_Always, ImVec2(0.5f, 1.0f));
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0.0f), ImVec2(width, 0.6f * display.y));
  ImGui::SetNextWindowBgAlpha(0.92f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoTitleBar;
  if (ImGui::Begin("##errors", nullptr, flags)) {
    for (size_t i = 0; i < shown.size(); ++i) {
      ImGui::PushID(int(i));
      ImGui::TextColored(kErrorColor, "%s", shown[i].first);
      ImGui::SameLine(ImGui::GetContentRegionAvail().x - 20.0f);
      if (ImGui::SmallButton("x")) app.ui.dismissed.push_back(*shown[i].second);
      colored_wrapped(kErrorColor, *shown[i].second);
      ImGui::PopID();
    }
  }
  ImGui::End();
}

void draw_scene_description(AppState& app) {
  UiState& ui = app.ui;
  const World& world = app.scene.world;
  // The window's lower edge as drawn: a scene framed on load (the camera as frame_scene left it) is framed again
  // whenever it changes, so that the bodies fit below the window, and fill the view once it is closed.
  auto set_bottom = [&app](float bottom) {
    if (bottom == app.ui.description_bottom) return;
    app.ui.description_bottom = bottom;
    if (app.camera == app.ui.auto_framed) frame_scene(app);
  };
  if (ui.description_shown == app.scene.generation || world.description.empty()) {
    set_bottom(0.0f);
    return;
  }
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float middle_x = kPanelWidth + 2.0f * kMargin;
  const float width = std::min(560.0f, std::max(display.x - 2.0f * middle_x, 260.0f));
  // Below the Servos panel when the scene has one (it holds the top of the middle).
  const size_t servos = servo_joints(world).size();
  const float y = app.ui.menu_height + kMargin + (servos > 0 ? 3.0f * ImGui::GetFrameHeightWithSpacing() +
                                              float(std::min<size_t>(servos, 8)) * ImGui::GetFrameHeight() + 24.0f
                                        : 0.0f);
  // Below the lane labels at the top of the split cells.
  const float below_labels = split_view(app) ? ImGui::GetTextLineHeight() + 14.0f : 0.0f;
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, y + below_labels), ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.85f);
  bool open = true;
  const std::string title = world.name + "##description";
  if (ImGui::Begin(title.c_str(), &open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                             ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize)) {
    ImGui::TextWrapped("%s", world.description.c_str());
    ImGui::TextDisabled("F1: keys and mouse. Close with the x; Scene panel: other scenes.");
  }
  const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y;
  ImGui::End();
  if (!open) ui.description_shown = app.scene.generation;
  set_bottom(open ? bottom : 0.0f);
}

// The main menu bar along the top: File, Scene, Solver, View, Compare, Help; each item does what its panel
// control or key does. Returns the bar's height, which the panels start below.
float draw_main_menu(AppState& app) {
  if (!ImGui::BeginMainMenuBar()) return 0.0f;
  SceneState& scene = app.scene;
  World& world = scene.world;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Reload scene")) reload_and_report(app);
    if (ImGui::MenuItem(("Save as " + scene.save_path).c_str(), nullptr, false, !scene.save_path.empty()))
      save_and_report(app);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The path is the Scene panel's; change it there.");
    ImGui::Separator();
    if (ImGui::MenuItem("Screenshot", "F12")) app.ui.screenshot_requested = true;
    ImGui::MenuItem(FrameCapture::ffmpeg_available() ? "Record video (ffmpeg)" : "Record video (PNG sequence)", "F9",
                    &app.ui.recording_video);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Every drawn frame of the window, from now until F9 again, into <scene>-video-<time>.mp4 "
                        "(ffmpeg from Debian's ffmpeg package, when it is installed) or the folder "
                        "<scene>-video-<time>/ of numbered PNGs, in the output folder.");
    if (FrameCapture::ffmpeg_available()) ImGui::MenuItem("  as PNG frames instead", nullptr, &app.ui.video_png);
    ImGui::SetNextItemWidth(220.0f);
    ImGui::InputText("output folder", &app.ui.output_dir);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Where screenshots, videos and recordings go (created when missing; '.' is the folder the "
                        "viewer was started in).");
    if (ImGui::MenuItem(app.stats.recording ? "Stop recording" : "Record step statistics")) {
      if (app.stats.recording) stop_recording(app);
      else start_recording(app);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Scene")) {
    const std::string current = std::filesystem::path(scene.path).filename().string();
    if (ImGui::BeginMenu("Open")) {
      if (scene.files.empty()) ImGui::TextDisabled("no .json files in %s/scenes", scene.root.c_str());
      // Narrowed by the search text (any part of the file name, any case).
      ImGui::SetNextItemWidth(200.0f);
      ImGui::InputTextWithHint("##search", "search", &scene.search);
      auto lower = [](std::string t) {
        for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
        return t;
      };
      const std::string wanted = lower(scene.search);
      for (const std::string& name : scene.files) {
        if (!wanted.empty() && lower(name).find(wanted) == std::string::npos) continue;
        if (ImGui::MenuItem(name.c_str(), nullptr, name == current))
          open_and_report(app, (std::filesystem::path(scene.root) / "scenes" / name).string());
      }
      ImGui::EndMenu();
    }
    ImGui::MenuItem("Browse scenes", nullptr, &app.ui.browser);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Every scene of scenes/ by the method it is written for, with a picture and its description.");
    if (ImGui::MenuItem("Next scene", "Page Down")) open_neighbour_and_report(app, 1);
    if (ImGui::MenuItem("Previous scene", "Page Up")) open_neighbour_and_report(app, -1);
    if (ImGui::MenuItem("Reset", "R")) reset_scene(app);
    if (ImGui::MenuItem("Frame the scene", "F")) frame_scene(app);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Solver")) {
    const std::string current(world.solver().name());
    for (const SolverInfo& info : solver_registry()) {
      const bool allowed = world.allows_solver(info.name);
      if (ImGui::MenuItem(info.name.c_str(), allowed ? nullptr : "not for this scene", info.name == current, allowed) &&
          info.name != current)
        switch_solver_and_report(app, info.name);
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s\n(%s)", info.method.c_str(), info.paper.c_str());
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (const OverlayToggle& o : overlay_toggles()) {
      ImGui::MenuItem(o.label, nullptr, &(app.view.*o.field));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (--view %s)", o.help, o.token);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Hide the panels", "Tab")) app.ui.hidden = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Compare")) {
    const int lanes = lane_count(app);
    if (ImGui::MenuItem("Every method", "F2", false, addable_lane_solvers(app).size() > 1))
      compare_every_method_and_report(app);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("A lane for every method on this scene, side by side from the scene's start");
    if (ImGui::BeginMenu("Add a lane", lanes < kMaxLanes)) {
      for (const SolverInfo& info : solver_registry()) {
        if (ImGui::MenuItem(info.name.c_str(), nullptr, false, world.allows_solver(info.name)))
          add_lane_and_report(app, info.name);
      }
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Split", "V", app.compare.layout == CompareLayout::Split, lanes > 1))
      app.compare.layout = CompareLayout::Split;
    if (ImGui::MenuItem("Overlaid", "V", app.compare.layout == CompareLayout::Overlay, lanes > 1))
      app.compare.layout = CompareLayout::Overlay;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keys and mouse", "F1")) app.ui.help = true;
    ImGui::EndMenu();
  }
  const float height = ImGui::GetWindowSize().y;
  ImGui::EndMainMenuBar();
  return height;
}

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

// ---------------------------------------------------------------------------------------------------
void draw_scene_browser(AppState& app, const std::function<uint32_t(const SceneEntry&)>& thumbnail) {
  SceneState& scene = app.scene;
  if (!app.ui.browser) scene.catalogue.clear();  // read again at the next opening: the files may have changed
  if (!app.ui.browser || app.ui.hidden) return;
  if (scene.catalogue.empty()) scene.catalogue = scan_scenes(scene.root);
  // Between the two panel columns, from below the menu bar down to the Compare panel.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float middle_x = kPanelWidth + 2.0f * kMargin;
  const float width = std::max(display.x - 2.0f * middle_x, 320.0f);
  const float top = app.ui.menu_height + kMargin;
  const float height = std::max(display.y - top - compare_panel_height(app) - 2.0f * kMargin, 200.0f);
  ImGui::SetNextWindowPos(ImVec2(0.5f * (display.x - width), top), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, height), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize;
  if (ImGui::Begin("Scenes###browser", &app.ui.browser, flags)) {
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputTextWithHint("##browser_search", "search names, descriptions and topics", &scene.search);
    std::error_code ec;
    const std::filesystem::path current = std::filesystem::weakly_canonical(scene.path, ec);
    const std::vector<SceneGroup> groups = group_scenes(scene.catalogue, scene.search);
    if (groups.empty()) ImGui::TextDisabled("no scene matches");
    ImGui::BeginChild("entries");
    const ImVec2 thumb{float(kThumbWidth), float(kThumbHeight)};
    std::string to_open;
    for (const SceneGroup& g : groups) {
      const std::string header = g.topic + "  (" + std::to_string(g.entries.size()) + ")###" + g.topic;
      if (!ImGui::CollapsingHeader(header.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
      for (const int i : g.entries) {
        const SceneEntry& e = scene.catalogue[size_t(i)];
        ImGui::PushID(e.file.c_str());
        // Only the thumbnails on screen are asked for, so that scrolling draws them in the order they are seen.
        const uint32_t texture = ImGui::IsRectVisible(thumb) ? thumbnail(e) : 0;
        bool clicked = false;
        if (texture != 0)
          clicked = ImGui::ImageButton(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture)), thumb,
                                       ImVec2(0, 0), ImVec2(1, 1), 0);
        else
          clicked = ImGui::Button(e.error.empty() ? "drawing..." : "unreadable", thumb);
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(0.0f);
        const bool shown = !current.empty() && std::filesystem::weakly_canonical(e.path, ec) == current;
        if (ImGui::Selectable(e.name.c_str(), shown)) clicked = true;
        std::string line = e.file + "   starts with: " + e.method;
        for (size_t m = 0; m < e.methods.size(); ++m) line += (m == 0 ? "   only for: " : ", ") + e.methods[m];
        ImGui::TextDisabled("%s", line.c_str());
        if (!e.error.empty()) colored_wrapped(kErrorColor, e.error);
        else if (e.description.empty()) ImGui::TextDisabled("(no description)");
        else ImGui::TextUnformatted(e.description.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
        ImGui::PopID();
        ImGui::Spacing();
        if (clicked) to_open = e.path;
      }
    }
    ImGui::EndChild();
    if (!to_open.empty()) {
      open_and_report(app, to_open);
      if (app.scene.error.empty()) app.ui.browser = false;  // the scene is what the user wants to see now
    }
  }
  ImGui::End();
}

}  // namespace cl::viewer
