// The Timeline window under the view: the history of every lane (scrubbed together), stepping back and forward,
// keyframes, the replay being recorded or played, and the real-time factor achieved next to the speed asked for;
// and the recording indicator over the view while a video, stats or a replay is being recorded.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "viewer/capture.h"
#include "viewer/panels.h"
#include "viewer/panels_shared.h"
#include "viewer/session.h"
#include "viewer/timeline.h"

namespace cl::viewer {

namespace {

std::string mebibytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
  return text;
}

void draw_history_popup(AppState& app) {
  TimelineState& t = app.timeline;
  if (!ImGui::BeginPopup("history")) return;
  const StateHistory& h = t.history;
  ImGui::Text("%d steps held (%s), %lld dropped", h.size(), mebibytes(h.bytes()).c_str(), (long long)h.dropped());
  if (!h.empty()) {
    ImGui::Text("one step of every lane: %s", mebibytes(h.back().bytes).c_str());
    ImGui::Text("from step %lld (t = %.3f s) to %lld", (long long)h.at(0).step, h.at(0).time, (long long)h.back().step);
  }
  ImGui::SetNextItemWidth(160.0f);
  ImGui::DragFloat("budget (MiB)", &t.budget_mb, 4.0f, 1.0f, 65536.0f, "%.0f");
  ImGui::SameLine();
  help_marker("The most memory the history takes: each step keeps a whole copy of every lane (bodies, contacts, "
              "the method's warm starts). Past the budget the oldest steps go.");
  ImGui::Separator();
  ImGui::TextUnformatted("Keyframes (saved into the scene by Save as)");
  std::string error;
  for (int i = 0; i < int(t.keyframes.size()); ++i) {
    ImGui::PushID(i);
    const ViewerKeyframe& k = t.keyframes[size_t(i)];
    if (ImGui::SmallButton("restore") && !restore_keyframe(app, i, &error)) t.error = error;
    ImGui::SameLine();
    bool start = t.start_keyframe == i;
    if (ImGui::Checkbox("scene starts here", &start)) t.start_keyframe = start ? i : -1;
    ImGui::SameLine();
    ImGui::Text("%s: step %lld, t = %.3f s", k.name.c_str(), (long long)k.step, k.time);
    ImGui::PopID();
  }
  if (t.keyframes.empty()) ImGui::TextDisabled("none: \"Key +\" keeps every lane as shown");
  ImGui::EndPopup();
}

// Record (a replay of the run from its start, as --record) or, while recording, Write.
void draw_replay_line(AppState& app) {
  TimelineState& t = app.timeline;
  ImGui::SameLine();
  if (t.recording) {
    if (ImGui::SmallButton("Write")) {
      std::string error;
      if (write_replay_recording(app, &error)) t.message = "wrote " + t.record_path;
      else t.error = error;
    }
    if (ImGui::IsItemHovered())
      wrapped_tooltip(("Writes the run so far to " + t.record_path + " (also done when the viewer closes); the recording goes on.").c_str());
  } else if (ImGui::SmallButton("Record")) {
    std::string error;
    const std::string path = output_name(app, "replay") + ".json";
    if (!make_output_dir(app, &error) || !start_replay_recording(app, path, &error)) t.error = error;
  }
  if (!t.recording && ImGui::IsItemHovered())
    wrapped_tooltip("Records the run from its start as a replay, <scene>-replay-<time>.json in the output folder (as "
                    "--record FILE does): contactlab --replay FILE plays it again.");
}

}  // namespace

void draw_recording_indicator(AppState& app) {
  std::string what;
  if (app.ui.recording_video) what += "video";
  if (app.stats.recording) what += std::string(what.empty() ? "" : ", ") + "stats";
  if (app.timeline.recording) what += std::string(what.empty() ? "" : ", ") + "replay";
  if (what.empty()) return;
  const std::string text = "REC " + what;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  // At the bottom right of the 3D view, just above the Timeline (the window's corner with the panels hidden).
  const ScreenRect& area = app.ui.scene_area;
  const float right = area.x + area.width - kMargin;
  const float bottom = area.y + area.height - kMargin;
  const float top = bottom - size.y - 8.0f;
  const float r = 0.5f * size.y;
  const ImVec2 box_min(right - size.x - 2.0f * r - 14.0f, top), box_max(right, top + size.y + 8.0f);
  draw->AddRectFilled(box_min, box_max, IM_COL32(20, 20, 20, 200), 4.0f);
  // Blinking once a second, as recorders do.
  const bool on = std::fmod(ImGui::GetTime(), 1.0) < 0.6;
  draw->AddCircleFilled(ImVec2(box_min.x + 5.0f + r, top + 4.0f + r), r, on ? IM_COL32(230, 40, 40, 255) : IM_COL32(110, 30, 30, 255));
  draw->AddText(ImVec2(box_min.x + 9.0f + 2.0f * r, top + 4.0f), IM_COL32(240, 240, 240, 255), text.c_str());
}

float timeline_panel_height() {
  // The title bar, two rows of buttons and a line of text.
  return ImGui::GetFrameHeight() + 2.0f * ImGui::GetFrameHeightWithSpacing() + ImGui::GetTextLineHeightWithSpacing() +
         2.0f * ImGui::GetStyle().WindowPadding.y;
}

void draw_timeline_panel(AppState& app, float x, float y, float width) {
  TimelineState& t = app.timeline;
  const float height = timeline_panel_height();
  ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, height), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoSavedSettings;
  if (!ImGui::Begin("Timeline", nullptr, flags)) {
    ImGui::End();
    return;
  }
  const StateHistory& h = t.history;
  const int last = std::max(h.size() - 1, 0);
  int at = shown_frame(app);
  // Row 1: the transport and the scrubber over the steps held.
  if (ImGui::SmallButton("|<")) show_frame(app, 0);
  if (ImGui::IsItemHovered()) wrapped_tooltip("The oldest step held");
  ImGui::SameLine();
  if (ImGui::SmallButton("<")) step_back(app);
  if (ImGui::IsItemHovered()) wrapped_tooltip("One step back (key ,)");
  ImGui::SameLine();
  if (ImGui::SmallButton(app.sim.playing ? "||" : "|>") && app.sim.step_error.empty()) app.sim.playing = !app.sim.playing;
  if (ImGui::IsItemHovered())
    wrapped_tooltip("Play / pause (space). Playing from a past step goes on from there: the steps after it are dropped.");
  ImGui::SameLine();
  if (ImGui::SmallButton(">")) step_forward(app);
  if (ImGui::IsItemHovered()) wrapped_tooltip("One step forward (key .): the next step held, or a new one");
  ImGui::SameLine();
  if (ImGui::SmallButton(">|")) show_frame(app, last);
  if (ImGui::IsItemHovered()) wrapped_tooltip("The newest step: the run itself");
  ImGui::SameLine();
  char time_text[48];
  std::snprintf(time_text, sizeof time_text, "t = %.3f s", app.scene.world.time());
  const float time_width = ImGui::CalcTextSize("t = 000.000 s").x;
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - time_width - ImGui::GetStyle().ItemSpacing.x));
  char step_text[48];
  std::snprintf(step_text, sizeof step_text, "step %lld of %lld", (long long)app.scene.world.step_count(),
                (long long)(h.empty() ? 0 : h.back().step));
  if (ImGui::SliderInt("##scrub", &at, 0, last, step_text, ImGuiSliderFlags_AlwaysClamp) && !h.empty()) show_frame(app, at);
  if (ImGui::IsItemHovered())
    wrapped_tooltip("Every lane at one step: drag to scrub. The overlays are those of the step shown; the plots keep "
                    "their recent steps.");
  ImGui::SameLine();
  ImGui::TextUnformatted(time_text);

  // Row 2: honest time, keyframes, the history's settings, replays.
  const bool shown_past = t.shown >= 0;
  if (shown_past) ImGui::TextColored(kWarningColor, "past step");
  else if (!app.sim.playing) ImGui::TextDisabled("paused");
  else ImGui::Text("%.2fx", t.rtf);
  if (ImGui::IsItemHovered())
    wrapped_tooltip("The real-time factor achieved: simulated seconds per wall second, over the last half second.");
  ImGui::SameLine();
  ImGui::TextDisabled("of %.2fx asked", app.sim.speed);
  ImGui::SameLine();
  if (ImGui::SmallButton("Key +")) save_keyframe(app);
  if (ImGui::IsItemHovered())
    wrapped_tooltip("Keeps every lane as shown as a keyframe; restore it from History. Save as writes the keyframes "
                    "into the scene.");
  ImGui::SameLine();
  char history_label[48];
  std::snprintf(history_label, sizeof history_label, "History, %zu keys", t.keyframes.size());
  if (ImGui::SmallButton(history_label)) ImGui::OpenPopup("history");
  draw_history_popup(app);
  draw_replay_line(app);

  // Row 3: the replay being played, and the last message (or error) of the timeline.
  if (t.replaying) {
    const float done = t.replay.steps > 0 ? float(app.scene.world.step_count()) / float(t.replay.steps) : 1.0f;
    char label[64];
    std::snprintf(label, sizeof label, "replay %lld / %lld", (long long)app.scene.world.step_count(), (long long)t.replay.steps);
    ImGui::ProgressBar(std::clamp(done, 0.0f, 1.0f), ImVec2(150.0f, ImGui::GetTextLineHeight()), label);
    ImGui::SameLine();
  }
  if (!t.error.empty()) ImGui::TextColored(kErrorColor, "%s", fit_text(t.error, ImGui::GetContentRegionAvail().x).c_str());
  else ImGui::TextDisabled("%s", fit_text(t.message, ImGui::GetContentRegionAvail().x).c_str());
  if (ImGui::IsItemHovered() && !(t.error.empty() && t.message.empty())) wrapped_tooltip((t.error.empty() ? t.message : t.error).c_str());
  if (ImGui::IsItemClicked()) t.error.clear();
  ImGui::End();
}

}  // namespace cl::viewer
