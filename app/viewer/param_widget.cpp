#include "viewer/param_widget.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "viewer/slider.h"

namespace cl::viewer {

namespace {

// printf formats treat '%' specially; units such as "%" must be doubled to print literally.
std::string escape_percent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

std::string format_number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

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
        // Logarithmic where the published range spans two decades or more (tolerances, stiffnesses; slider.h).
        changed = slider_double(label, &v, spec.min, spec.max, fmt.c_str());
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
      // A slider up to 10,000 values (logarithmic where the range spans two decades, as iterations 1..1000 does).
      if (hi - lo <= 10000.0) {
        changed = slider_int(label, &v, static_cast<int>(lo), static_cast<int>(hi), fmt.c_str());
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

}  // namespace cl::viewer
