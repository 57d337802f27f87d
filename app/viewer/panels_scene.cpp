#include "viewer/panels.h"

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "viewer/panels_shared.h"
#include "viewer/slider.h"
#include "viewer/scene_browser.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"
#include "viewer/thumbnails.h"

namespace cl::viewer {

namespace {

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

void draw_scene_panel(AppState& app) {
  SceneState& scene = app.scene;
  if (!begin_panel("Scene")) {
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

  // A path longer than its field shows whole in a tooltip (the field scrolls only while it is edited).
  auto whole_on_hover = [](const std::string& path) {
    if (ImGui::IsItemHovered() && !ImGui::IsItemActive() &&
        ImGui::CalcTextSize(path.c_str()).x > ImGui::GetItemRectSize().x - 2.0f * ImGui::GetStyle().FramePadding.x)
      wrapped_tooltip(path.c_str());
  };
  const bool open = ImGui::InputText("##open", &scene.open_path, ImGuiInputTextFlags_EnterReturnsTrue);
  whole_on_hover(scene.open_path);
  ImGui::SameLine();
  if (ImGui::Button("Open") || open) open_and_report(app, resolve_scene_path(scene.root, scene.open_path));
  help_marker("Open a scene file by path: relative to the current directory, or a name in scenes/.");

  const bool save = ImGui::InputText("##save", &scene.save_path, ImGuiInputTextFlags_EnterReturnsTrue);
  whole_on_hover(scene.save_path);
  ImGui::SameLine();
  if (ImGui::Button("Save as") || save) save_and_report(app);
  help_marker("Write the current state of the world (bodies where they are now, the solver and its "
              "parameters) as a scene file. An existing file is replaced once the new one is complete; over the "
              "open scene you are asked first, and its old text is kept in a .bak file.");
  draw_overwrite_question(app);
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

  if (!scene.error.empty()) {
    // One line: the panel is too short for a whole message, which the header above the view shows (and the tooltip).
    ImGui::TextColored(kErrorColor, "%s", fit_text(scene.error, ImGui::GetContentRegionAvail().x).c_str());
    if (ImGui::IsItemHovered()) wrapped_tooltip(scene.error.c_str());
  }
  if (!scene.message.empty()) colored_wrapped(kOkColor, scene.message);
  for (const std::string& w : scene.warnings) colored_wrapped(kWarningColor, w);
  ImGui::End();
}

void draw_simulation_panel(AppState& app) {
  SimState& sim = app.sim;
  World& world = app.scene.world;
  if (!begin_panel("Simulation")) {
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
  slider_float("speed", &sim.speed, 0.05f, 4.0f, "%.2fx",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  help_marker("Simulated seconds per real second. The step size stays dt; only the number of steps per "
              "frame changes (at most 'max steps' per frame, beyond that the simulation slows down).");
  double dt = world.settings.dt;
  const double dt_min = 1e-4, dt_max = 0.05;
  if (slider_double("dt", &dt, dt_min, dt_max, "%.5f s",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoRoundToFormat)) {
    if (dt > 0.0 && std::isfinite(dt)) world.settings.dt = dt;
  }
  help_marker("Time step h of each World::step, in seconds (1/60 = 0.01667). Smaller steps are more accurate "
              "and cost more steps per second of simulated time.");
  slider_int("max steps", &sim.max_steps_per_frame, 1, 16, "%d / frame", ImGuiSliderFlags_AlwaysClamp);
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
      bool changed = slider_double(("friction " + mat.name).c_str(), &mat.friction, zero, friction_max, "%.3f", ImGuiSliderFlags_AlwaysClamp);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Coulomb friction coefficient of material \"%s\" (a contact takes the geometric mean "
                          "of its two bodies' materials). Ctrl+click to type a value.", mat.name.c_str());
      }
      changed |= slider_double(("restitution " + mat.name).c_str(), &mat.restitution, zero, one, "%.2f", ImGuiSliderFlags_AlwaysClamp);
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
        // A click anywhere on the entry (its description too) opens the scene, as one on its picture or name does.
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(lo, hi)) {
          ImGui::GetWindowDrawList()->AddRect(ImVec2(lo.x - 2.0f, lo.y - 2.0f), ImVec2(hi.x + 2.0f, hi.y + 2.0f),
                                              ImGui::GetColorU32(ImGuiCol_HeaderHovered), 3.0f);
          if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetIO().MouseDragMaxDistanceSqr[0] < 16.0f)
            clicked = true;
        }
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
