#include "viewer/panels.h"

#include <cctype>
#include <filesystem>
#include <string>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "solvers/registry.h"
#include "viewer/capture.h"
#include "viewer/overlays.h"
#include "viewer/panels_shared.h"
#include "viewer/session.h"

namespace cl::viewer {

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
      if (ImGui::IsItemHovered()) wrapped_tooltip((std::string(o.help) + "\n(--view " + o.token + ")").c_str());
    }
    ImGui::Separator();
    // The camera follows the selected body (session.h, toggle_follow); checked while it follows one.
    const int selected = app.pick.selected;
    const bool can_follow = app.view.follow >= 0 ||
                            (selected >= 0 && selected < int(world.bodies.size()) &&
                             world.bodies[size_t(selected)].shape.type != ShapeType::Plane);
    if (ImGui::MenuItem("Follow the selected body", "C", app.view.follow >= 0, can_follow)) toggle_follow(app);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      wrapped_tooltip("The camera moves with the selected body, keeping your orbit, zoom and pan (select a body "
                      "first; C does the same).");
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

}  // namespace cl::viewer
