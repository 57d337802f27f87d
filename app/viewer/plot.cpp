#include "viewer/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::viewer {

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return out;
  const double raw = (hi - lo) / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
  return out;
}

std::string tick_label(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

namespace {

// Where a plot starts and what it draws with: the window's draw list at the cursor, the available width, the
// text height, the theme's text, disabled-text and border colours, and where its heading ends.
struct PlotFrame {
  ImDrawList* draw;
  ImVec2 origin;
  float width, line;
  ImU32 text, dim, grid;
  float heading_end;  // x after the heading
};

// Starts a plot (PushID(id); the caller pops it) and draws its heading, "title, unit", at the cursor.
PlotFrame begin_plot(const char* id, const char* title, const char* unit) {
  ImGui::PushID(id);
  PlotFrame f{ImGui::GetWindowDrawList(),
              ImGui::GetCursorScreenPos(),
              std::max(ImGui::GetContentRegionAvail().x, 120.0f),
              ImGui::GetTextLineHeight(),
              ImGui::GetColorU32(ImGuiCol_Text),
              ImGui::GetColorU32(ImGuiCol_TextDisabled),
              ImGui::GetColorU32(ImGuiCol_Border),
              0.0f};
  const std::string heading = std::string(title) + (unit[0] != '\0' ? std::string(", ") + unit : std::string());
  f.draw->AddText(f.origin, f.text, heading.c_str());
  f.heading_end = f.origin.x + ImGui::CalcTextSize(heading.c_str()).x;
  return f;
}

}  // namespace

bool plot_lines(const char* id, const char* title, const char* unit, std::span<const PlotSeries> series, float height) {
  // Title and unit, then the legend on the same line as far as it fits, else below.
  const PlotFrame f = begin_plot(id, title, unit);
  ImDrawList* draw = f.draw;
  const ImVec2 origin = f.origin;
  const float width = f.width, line = f.line;
  const ImU32 dim = f.dim, grid = f.grid;
  float lx = f.heading_end + 12.0f, ly = origin.y;
  for (const PlotSeries& s : series) {
    const float w = ImGui::CalcTextSize(s.label.c_str()).x + 18.0f;
    if (lx + w > origin.x + width) {
      lx = origin.x;
      ly += line;
    }
    draw->AddRectFilled(ImVec2(lx, ly + line * 0.3f), ImVec2(lx + 10.0f, ly + line * 0.7f), s.color);
    draw->AddText(ImVec2(lx + 13.0f, ly), dim, s.label.c_str());
    lx += w;
  }
  const float top = ly + line + 4.0f;

  // The range of every series' samples.
  int n = 0;
  double lo = 0.0, hi = 0.0;
  bool any = false;
  for (const PlotSeries& s : series) {
    if (s.history == nullptr) continue;
    n = std::max(n, s.history->count);
    for (int i = 0; i < s.history->count; ++i) {
      const double v = s.history->at(i);
      if (!std::isfinite(v)) continue;
      lo = any ? std::min(lo, v) : std::min(0.0, v);
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  }
  if (!(hi > lo)) hi = lo + 1.0;
  const std::vector<double> ticks = nice_ticks(lo, hi, 3);
  hi = std::max(hi, ticks.empty() ? hi : ticks.back());

  // Axes: tick labels on the left, the plot area to their right.
  float label_width = 0.0f;
  for (double t : ticks) label_width = std::max(label_width, ImGui::CalcTextSize(tick_label(t).c_str()).x);
  const ImVec2 a(origin.x + label_width + 6.0f, top), b(origin.x + width, top + height);
  draw->AddRect(a, b, grid);
  const auto y_of = [&](double v) { return float(b.y - (v - lo) / (hi - lo) * (b.y - a.y)); };
  for (double t : ticks) {
    const float y = y_of(t);
    draw->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid & 0x60FFFFFF);
    const std::string label = tick_label(t);
    draw->AddText(ImVec2(a.x - 4.0f - ImGui::CalcTextSize(label.c_str()).x, y - line * 0.5f), dim, label.c_str());
  }
  const auto x_of = [&](int i) {  // sample i of n, the newest at the right edge
    return float(b.x - (double(n - 1 - i) / std::max(History::kLength - 1, 1)) * (b.x - a.x));
  };
  draw->PushClipRect(a, b, true);
  for (const PlotSeries& s : series) {
    if (s.history == nullptr || s.history->count < 1) continue;
    const int offset = n - s.history->count;  // a shorter series ends at the right edge too
    for (int i = 1; i < s.history->count; ++i) {
      const double v0 = s.history->at(i - 1), v1 = s.history->at(i);
      if (!std::isfinite(v0) || !std::isfinite(v1)) continue;
      draw->AddLine(ImVec2(x_of(offset + i - 1), y_of(v0)), ImVec2(x_of(offset + i), y_of(v1)), s.color, 1.5f);
    }
  }
  draw->PopClipRect();
  draw->AddText(ImVec2(a.x + 2.0f, b.y + 1.0f), dim, ("-" + std::to_string(History::kLength - 1) + " steps").c_str());
  const char* now = "now";
  draw->AddText(ImVec2(b.x - ImGui::CalcTextSize(now).x, b.y + 1.0f), dim, now);

  // The space the plot took, and the read-out under the mouse.
  ImGui::Dummy(ImVec2(width, b.y - origin.y + line + 2.0f));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && mouse.x >= a.x && mouse.x <= b.x && n > 0) {
    const int back = int(std::lround((b.x - mouse.x) / (b.x - a.x) * (History::kLength - 1)));
    draw->AddLine(ImVec2(b.x - float(back) / (History::kLength - 1) * (b.x - a.x), a.y),
                  ImVec2(b.x - float(back) / (History::kLength - 1) * (b.x - a.x), b.y), dim);
    ImGui::BeginTooltip();
    ImGui::Text("%d steps ago", back);
    for (const PlotSeries& s : series) {
      if (s.history == nullptr) continue;
      const int i = s.history->count - 1 - back;
      ImGui::ColorButton(("##" + s.label).c_str(), ImGui::ColorConvertU32ToFloat4(s.color),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(line, line));
      ImGui::SameLine();
      if (i >= 0) ImGui::Text("%s: %.4g %s", s.label.c_str(), s.history->at(i), unit);
      else ImGui::TextDisabled("%s: -", s.label.c_str());
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
  return hovered;
}

bool plot_log_sequence(const char* id, const char* title, const char* unit, const char* x_unit,
                       std::span<const double> values, ImU32 color, float height) {
  const PlotFrame f = begin_plot(id, title, unit);
  ImDrawList* draw = f.draw;
  const ImVec2 origin = f.origin;
  const float width = f.width, line = f.line;
  const ImU32 dim = f.dim, grid = f.grid;

  // The decades the values span (at least one).
  static constexpr double kFloor = 1e-16;
  const auto exponent = [](double v) { return std::log10(std::max(v, kFloor)); };
  double lo = 0.0, hi = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double e = exponent(values[i]);
    lo = i == 0 ? e : std::min(lo, e);
    hi = i == 0 ? e : std::max(hi, e);
  }
  lo = std::floor(lo);
  hi = std::max(std::ceil(hi), lo + 1.0);
  const int decades = int(hi - lo);
  const int stride = std::max(1, (decades + 3) / 4);  // at most about 4 tick labels
  float label_width = 0.0f;
  for (int k = 0; k <= decades; k += stride)
    label_width = std::max(label_width, ImGui::CalcTextSize(tick_label(std::pow(10.0, lo + k)).c_str()).x);
  const float top = origin.y + line + 4.0f;
  const ImVec2 a(origin.x + label_width + 6.0f, top), b(origin.x + width, top + height);
  draw->AddRect(a, b, grid);
  const auto y_of = [&](double v) { return float(b.y - (exponent(v) - lo) / (hi - lo) * (b.y - a.y)); };
  for (int k = 0; k <= decades; k += stride) {
    const double v = std::pow(10.0, lo + k);
    const float y = y_of(v);
    draw->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid & 0x60FFFFFF);
    const std::string label = tick_label(v);
    draw->AddText(ImVec2(a.x - 4.0f - ImGui::CalcTextSize(label.c_str()).x, y - line * 0.5f), dim, label.c_str());
  }
  const size_t n = values.size();
  const auto x_of = [&](size_t i) {  // index i of n: 1 at the left edge, n at the right
    return n < 2 ? a.x : float(a.x + double(i) / double(n - 1) * (b.x - a.x));
  };
  draw->PushClipRect(a, b, true);
  for (size_t i = 1; i < n; ++i)
    draw->AddLine(ImVec2(x_of(i - 1), y_of(values[i - 1])), ImVec2(x_of(i), y_of(values[i])), color, 1.5f);
  if (n == 1) draw->AddCircleFilled(ImVec2(x_of(0), y_of(values[0])), 2.5f, color);
  draw->PopClipRect();
  const std::string first = std::string(x_unit) + " 1", last = std::to_string(n);
  draw->AddText(ImVec2(a.x + 2.0f, b.y + 1.0f), dim, first.c_str());
  draw->AddText(ImVec2(b.x - ImGui::CalcTextSize(last.c_str()).x, b.y + 1.0f), dim, last.c_str());

  ImGui::Dummy(ImVec2(width, b.y - origin.y + line + 2.0f));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && n > 0 && mouse.x >= a.x && mouse.x <= b.x) {
    const size_t i = n < 2 ? 0 : size_t(std::lround((mouse.x - a.x) / (b.x - a.x) * double(n - 1)));
    draw->AddLine(ImVec2(x_of(i), a.y), ImVec2(x_of(i), b.y), dim);
    ImGui::SetTooltip("%s %zu: %.4g %s", x_unit, i + 1, values[i], unit);
  }
  ImGui::PopID();
  return hovered;
}

}  // namespace cl::viewer
