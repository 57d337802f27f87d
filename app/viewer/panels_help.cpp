#include "viewer/panels.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "viewer/session.h"

namespace cl::viewer {

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
        {".", "one step forward (while paused): the next step held in the history, or a new one"},
        {",", "one step back through the history (every lane; the Timeline window scrubs)"},
        {"R", "reset the scene (every lane)"},
        {"F", "frame the selected body (with none selected, the scene)"},
        {"C", "the camera follows the selected body (C again, or with nothing selected, frees it)"},
        {"F2", "compare every method: a lane for each, side by side from the scene's start"},
        {"V", "comparison: split cells or ghosts over lane 1"},
        {"Tab", "hide / show the panels"},
        {"F1", "this help"},
        {"F12", "save a screenshot <scene>-<date>-<time>.png in the output folder (File menu)"},
        {"F9", "start / stop a video of the window (.mp4 through ffmpeg, else PNG frames) in the output folder, timed by "
                "simulated time"},
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
    // Bullets that wrap (BulletText does not: a long line ran past the window's edge at 1280x720).
    for (const char* line : {"Scene menu or Page Down: another scene (its description shows above the view).",
                             "Solver menu: the same scene under another method.",
                             "F2 (Compare menu, Every method): every method side by side; V overlays them.",
                             "Left-drag a body to pull it; right-drag orbits, the wheel zooms; C follows the "
                             "selected body.",
                             "F1: every key and mouse control. Tab hides the panels."}) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s", line);
    }
    ImGui::Spacing();
    if (ImGui::Button("Start")) open = false;
    ImGui::SameLine();
    ImGui::TextDisabled("(the scene waits at its start until then)");
  }
  ImGui::End();
  if (!open) {
    app.ui.welcome = false;
    if (app.sim.step_error.empty()) app.sim.playing = true;  // held at its start until now
    mark_welcomed();
  }
}

}  // namespace cl::viewer
