#include "viewer/slider.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <imgui_internal.h>

#include "viewer/slider_scale.h"

namespace cl::viewer {

namespace {

// The slider with its value text hidden, then the text drawn beside the handle and the label after the frame.
bool slider(const char* label, ImGuiDataType type, void* v, const void* lo, const void* hi, const char* format,
            ImGuiSliderFlags flags, double value, double lo_value, double hi_value) {
  const char* end = ImGui::FindRenderedTextEnd(label);
  const ImGuiID id = ImGui::GetID(label);
  if (ImGui::TempInputIsActive(id))  // Ctrl+click: ImGui's own text field, as typed
    return ImGui::SliderScalar(label, type, v, lo, hi, format, flags);

  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
  const bool changed = ImGui::SliderScalar(label, type, v, lo, hi, format, flags);
  ImGui::PopStyleColor();
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float frame_right = b.x - ((end != label) ? ImGui::CalcTextSize(label, end).x + style.ItemInnerSpacing.x : 0.0f);
  char text[64];
  if (type == ImGuiDataType_S32) std::snprintf(text, sizeof text, format, *static_cast<const int*>(v));
  else if (type == ImGuiDataType_Float) std::snprintf(text, sizeof text, format, double(*static_cast<const float*>(v)));
  else std::snprintf(text, sizeof text, format, *static_cast<const double*>(v));
  const bool log = (flags & ImGuiSliderFlags_Logarithmic) != 0;
  const double t = slider_fraction(value, lo_value, hi_value, log);
  // The handle's centre, and the text on the side with more room.
  const float grab = style.GrabMinSize, inner_l = a.x + style.FramePadding.x, inner_r = frame_right - style.FramePadding.x;
  const float handle = a.x + 2.0f + grab * 0.5f + float(t) * (frame_right - a.x - 4.0f - grab);
  const ImVec2 size = ImGui::CalcTextSize(text);
  const float y = a.y + style.FramePadding.y;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 color = ImGui::GetColorU32(ImGuiCol_Text);
  if (handle - a.x > frame_right - handle) {  // the handle on the right: the text left of it
    const float x_end = handle - grab * 0.5f - 3.0f;
    const float x = std::max(inner_l, std::min(x_end - size.x, 0.5f * (a.x + frame_right - size.x)));
    draw->PushClipRect(ImVec2(a.x, a.y), ImVec2(x_end, b.y), true);
    draw->AddText(ImVec2(x, y), color, text);
    draw->PopClipRect();
  } else {
    const float x_start = handle + grab * 0.5f + 3.0f;
    const float x = std::min(inner_r - size.x, std::max(x_start, 0.5f * (a.x + frame_right - size.x)));
    draw->PushClipRect(ImVec2(x_start, a.y), ImVec2(frame_right, b.y), true);
    draw->AddText(ImVec2(std::max(x, x_start), y), color, text);
    draw->PopClipRect();
  }
  if (end != label) draw->AddText(ImVec2(frame_right + style.ItemInnerSpacing.x, y), color, label, end);
  return changed;
}

}  // namespace

bool slider_double(const char* label, double* v, double lo, double hi, const char* format, ImGuiSliderFlags flags) {
  if (logarithmic_range(lo, hi)) flags |= ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
  return slider(label, ImGuiDataType_Double, v, &lo, &hi, format, flags, *v, lo, hi);
}

bool slider_float(const char* label, float* v, float lo, float hi, const char* format, ImGuiSliderFlags flags) {
  if (logarithmic_range(lo, hi)) flags |= ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
  return slider(label, ImGuiDataType_Float, v, &lo, &hi, format, flags, double(*v), double(lo), double(hi));
}

bool slider_int(const char* label, int* v, int lo, int hi, const char* format, ImGuiSliderFlags flags) {
  if (logarithmic_range(lo, hi)) flags |= ImGuiSliderFlags_Logarithmic;
  return slider(label, ImGuiDataType_S32, v, &lo, &hi, format, flags, double(*v), double(lo), double(hi));
}

}  // namespace cl::viewer
