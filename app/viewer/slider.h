// Sliders whose value stays readable: ImGui draws a slider's value in the middle of its frame, where the handle
// covers it ("0.0▮5 m"); these draw it in the larger part of the frame beside the handle instead (the typed value
// while Ctrl+click edits it). Logarithmic where the range spans two decades (slider_scale.h).
#pragma once

#include <imgui.h>

namespace cl::viewer {

bool slider_double(const char* label, double* v, double lo, double hi, const char* format,
                   ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp);
bool slider_float(const char* label, float* v, float lo, float hi, const char* format,
                  ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp);
bool slider_int(const char* label, int* v, int lo, int hi, const char* format,
                ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp);

}  // namespace cl::viewer
