#include "viewer/panels.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "core/shape.h"
#include "viewer/session.h"

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

// Wrapped coloured text (errors can be long paths and JSON pointers).
void colored_wrapped(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
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

const char* kind_name(BodyKind k) {
  switch (k) {
    case BodyKind::Fixed: return "fixed";
    case BodyKind::Dynamic: return "dynamic";
    case BodyKind::Kinematic: return "kinematic";
  }
  return "?";
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

// Moves the current window up when its bottom is below the display (a collapsed panel at the bottom
// of the screen that gets expanded, or a window that shrank), so no panel is ever out of reach.
void keep_on_screen() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  if (pos.y + size.y > display.y && pos.y > 0.0f) {
    ImGui::SetWindowPos(ImVec2(pos.x, std::max(0.0f, display.y - size.y - kMargin)));
  }
}

}  // namespace

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

  ImGui::PushItemWidth(-95.0f);
  const std::string current = std::filesystem::path(scene.path).filename().string();
  if (ImGui::BeginCombo("Scenes", current.c_str())) {
    if (scene.files.empty()) ImGui::TextDisabled("no .json files in %s/scenes", scene.root.c_str());
    for (const std::string& name : scene.files) {
      if (ImGui::Selectable(name.c_str(), name == current)) {
        open_and_report(app, (std::filesystem::path(scene.root) / "scenes" / name).string());
      }
    }
    ImGui::EndCombo();
  }
  help_marker("The scene files in the scenes/ directory. Picking one loads it at once; if it fails to "
              "load, the error shows below and the current scene stays.");

  const bool open = ImGui::InputText("##open", &scene.open_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || open) open_and_report(app, resolve_scene_path(scene.root, scene.open_path));
  help_marker("Open a scene file by path: relative to the current directory, or a name in scenes/.");

  const bool save = ImGui::InputText("##save", &scene.save_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Save as") || save) {
    std::string error;
    if (!save_scene_as(app, scene.save_path, &error)) scene.error = error;
    else scene.error.clear();
  }
  help_marker("Write the current state of the world (bodies where they are now, the solver and its "
              "parameters) as a scene file. An existing file is overwritten.");
  ImGui::PopItemWidth();

  if (ImGui::Button("Reload")) {
    std::string error;
    if (!reload_scene(app, &error)) scene.error = error;
  }
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
  ImGui::PushItemWidth(-190.0f);  // room for the longest parameter names
  if (ImGui::BeginCombo("method", current.c_str())) {
    for (const SolverInfo& info : solver_registry()) {
      if (ImGui::Selectable(info.name.c_str(), info.name == current) && info.name != current) {
        std::string error;
        if (!switch_solver(app, info.name, &error)) app.solver.error = error;
        else app.solver.error.clear();
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(%s)", info.method.c_str(), info.paper.c_str());
    }
    ImGui::EndCombo();
  }
  const SolverInfo* info = find_solver(current);
  help_marker(info != nullptr ? (info->method + "\nPaper: " + info->paper +
                                 "\nSwitching keeps the bodies moving; parameters start at their defaults.")
                                    .c_str()
                              : "The contact method.");
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
void draw_view_panel(AppState& app) {
  ViewState& view = app.view;
  if (!ImGui::Begin("View")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  ImGui::PushItemWidth(-150.0f);
  ImGui::Checkbox("contact points", &view.show_contacts);
  help_marker("Yellow dots at the contact points of the last step (faint where hidden behind a body).");
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
  ImGui::Checkbox("grid", &view.show_grid);
  help_marker("Grid lines on planes: minor lines at a power-of-ten spacing suited to the scene size, "
              "darker major lines every ten.");
  ImGui::Checkbox("shadows", &view.show_shadows);
  help_marker("Soft blob shadows under the bodies on planes (a depth cue, not a light simulation).");
  ImGui::Checkbox("wireframe", &view.wireframe);
  help_marker("Draw the body meshes as wireframes.");

  ImGui::Separator();
  ImGui::TextUnformatted("Mouse drag");
  ImGui::SliderFloat("stiffness", &view.drag_stiffness, 1.0f, 2000.0f, "%.0f N/m/kg", ImGuiSliderFlags_Logarithmic);
  help_marker("Spring stiffness of the mouse drag per kg of the dragged body (so light and heavy bodies "
              "feel alike). 100 gives a natural frequency of 10 rad/s.");
  ImGui::SliderFloat("damping", &view.drag_damping, 0.0f, 100.0f, "%.1f N s/m/kg");
  help_marker("Damping of the drag spring per kg; 2 sqrt(stiffness) is critical damping.");
  ImGui::PopItemWidth();

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
  if (!ImGui::Begin("Stats")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const float fps = stats.fps.latest();
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%.0f fps  (%.1f ms)", fps, fps > 0.0f ? 1000.0f / fps : 0.0f);
  ImGui::PlotLines("##fps", stats.fps.values.data(), History::kLength, stats.fps.next, overlay, 0.0f,
                   std::max(stats.fps.max() * 1.2f, 1.0f), ImVec2(ImGui::GetContentRegionAvail().x, 32.0f));

  ImGui::TextDisabled("Wall time per stage, last %d steps", History::kLength);
  help_marker("Milliseconds spent in each stage of World::step (StepStats.profile). The plots share the "
              "scale of the total so the stages compare at a glance.");
  const float scale = std::max(stats.stage_ms[StatsState::kStages - 1].max() * 1.1f, 1e-3f);
  for (int i = 0; i < StatsState::kStages; ++i) {
    const History& h = stats.stage_ms[i];
    std::snprintf(overlay, sizeof overlay, "%s  %.3f ms", kStageNames[i], h.latest());
    ImGui::PushID(i);
    ImGui::PlotLines("##stage", h.values.data(), History::kLength, h.next, overlay, 0.0f, scale,
                     ImVec2(ImGui::GetContentRegionAvail().x, 26.0f));
    ImGui::PopID();
  }

  const StepStats& s = world.last_stats();
  if (begin_two_column_table("counters", "potential energy")) {
    table_row("contacts", "%d   (pairs %d)", s.contacts, s.pairs);
    table_row("islands", "%d", s.islands);
    table_row("iterations", "%d", s.iterations);
    table_row("residual", "%.3g N s", s.residual);
    table_row("max penetration", "%.3g mm", s.max_penetration * 1000.0);
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
  help_marker("Record the StepStats of every step. Stop writes contactlab-<date>-<time>.csv (one row per "
              "step) and .trace.json (open in ui.perfetto.dev or chrome://tracing) in the current directory.");
  if (!stats.csv_path.empty()) {
    ImGui::TextWrapped("CSV: %s", stats.csv_path.c_str());
    ImGui::TextWrapped("Trace: %s", stats.trace_path.c_str());
  }
  if (!stats.error.empty()) colored_wrapped(kErrorColor, stats.error);
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_inspector_panel(AppState& app) {
  const World& world = app.scene.world;
  if (!ImGui::Begin("Inspector")) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const int i = app.pick.selected;
  if (i < 0 || i >= static_cast<int>(world.bodies.size())) {
    ImGui::TextDisabled("Left-click a body to select it.");
    ImGui::End();
    return;
  }
  const Body& b = world.bodies[i];
  const Shape& s = b.shape;
  if (begin_two_column_table("body", "orientation")) {
    table_row("name", "%s  (#%d)", b.name.empty() ? "(unnamed)" : b.name.c_str(), i);
    table_row("kind", "%s", kind_name(b.kind));
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
    }
    const bool has_material = b.material >= 0 && b.material < static_cast<int>(world.materials.size());
    table_row("material", "%s", has_material ? world.materials[b.material].name.c_str() : "?");
    if (b.is_dynamic()) table_row("mass", "%.4g kg", b.mass);
    else table_row("mass", "infinite (%s)", kind_name(b.kind));
    vec_row("position", b.position, "m");
    const Quat& q = b.orientation;
    table_row("orientation", "%.3f, %.3f, %.3f, %.3f", q.w(), q.x(), q.y(), q.z());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Unit quaternion (w, x, y, z), body to world.");
    vec_row("velocity", b.linear_velocity, "m/s");
    vec_row("angular vel.", b.angular_velocity, "rad/s");
    table_row("speed", "%.3f m/s", b.linear_velocity.norm());
    ImGui::EndTable();
  }
  if (ImGui::Button("Deselect")) app.pick.selected = -1;
  ImGui::End();
}

// ---------------------------------------------------------------------------------------------------
void draw_panels(AppState& app) {
  // Two columns along the window edges, leaving the middle for the scene. FirstUseEver: the user may
  // move and resize them afterwards.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float right = display.x - kPanelWidth - kMargin;
  auto place = [](float x, float y, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(kPanelWidth, h), ImGuiCond_FirstUseEver);
  };
  place(kMargin, kMargin, 150.0f);
  draw_scene_panel(app);
  place(kMargin, 166.0f, 140.0f);
  draw_simulation_panel(app);
  place(kMargin, 314.0f, std::max(display.y - 322.0f, 150.0f));
  draw_solver_panel(app);

  place(right, kMargin, 445.0f);
  draw_stats_panel(app);
  place(right, 461.0f, std::max(display.y - 461.0f - 42.0f, 120.0f));
  draw_inspector_panel(app);
  place(right, display.y - 34.0f, 372.0f);
  ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);
  draw_view_panel(app);
}

}  // namespace cl::viewer
