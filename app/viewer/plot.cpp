#include "viewer/plot.h"

#include "viewer/panels_shared.h"
#include "viewer/plot_math.h"

#include <algorithm>
#include <cmath>
#include <utility>

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

std::string tick_label(double v) { return short_number(v); }

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
  // A heading longer than the plot is wide ends in "..." (the read-out under the mouse names the plot in full).
  const std::string heading =
      fit_text(std::string(title) + (unit[0] != '\0' ? std::string(", ") + unit : std::string()), f.width);
  f.draw->AddText(f.origin, f.text, heading.c_str());
  f.heading_end = f.origin.x + ImGui::CalcTextSize(heading.c_str()).x;
  return f;
}

// What a plot shows besides its curves: the values in a unit with a prefix that suits them (m -> mm; the prefix
// suits the range shown, not a spike above it: a 1 s step among 0.4 ms ones keeps the plot in ms), the robust
// range and its ticks, the tick labels' width, and each summarised series' "average / maximum" and maximum alone.
using SummaryLines = std::vector<std::pair<std::string, ImU32>>;
struct PlotNumbers {
  std::vector<SeriesSummary> summaries;
  ScaledUnit scaled;
  PlotRange range;
  std::vector<double> ticks;
  float label_width = 0.0f;
  SummaryLines both, maxima;
  int n = 0;  // the longest series' samples
};

PlotNumbers plot_numbers(const char* unit, std::span<const PlotSeries> series) {
  PlotNumbers p;
  std::vector<double> all;
  for (const PlotSeries& s : series) {
    p.summaries.push_back(s.history != nullptr ? summarize(*s.history) : SeriesSummary{});
    if (s.history == nullptr) continue;
    p.n = std::max(p.n, s.history->count);
    for (int i = 0; i < s.history->count; ++i) all.push_back(s.history->at(i));
  }
  const PlotRange raw = robust_range(all);
  p.scaled = scale_unit(unit, std::max(std::abs(raw.lo), std::abs(raw.hi)));
  const double k = p.scaled.factor;
  for (double& v : all) v *= k;
  p.range = robust_range(all);
  p.ticks = nice_ticks(p.range.lo, p.range.hi, 3);
  if (!p.range.clipped && !p.ticks.empty()) p.range.hi = std::max(p.range.hi, p.ticks.back());
  for (double t : p.ticks) p.label_width = std::max(p.label_width, ImGui::CalcTextSize(tick_label(t).c_str()).x);
  for (size_t i = 0; i < series.size(); ++i)
    if (series[i].summary && p.summaries[i].count > 0) {
      const SeriesSummary& m = p.summaries[i];
      p.both.push_back({short_number(k * m.mean) + " / " + short_number(k * m.max), series[i].color});
      p.maxima.push_back({short_number(k * m.max), series[i].color});
    }
  return p;
}

const char* column_head(SummaryColumn c) { return c == SummaryColumn::Both ? "avg / max" : "max"; }

// The summary column's width: its widest line or its head, and a gap before it.
float column_width(const SummaryLines& lines, SummaryColumn c) {
  float w = 0.0f;
  for (const auto& [text, color] : lines) w = std::max(w, ImGui::CalcTextSize(text.c_str()).x);
  return lines.empty() || c == SummaryColumn::None ? 0.0f : std::max(w, ImGui::CalcTextSize(column_head(c)).x) + 6.0f;
}

// The fullest summary column that leaves the plot at least kMinPlot wide in `width` (fit_summary_column).
constexpr float kMinPlot = 70.0f;
SummaryColumn summary_fit(const PlotNumbers& p, float width) {
  return fit_summary_column(width, p.label_width + 6.0f, column_width(p.both, SummaryColumn::Both),
                            column_width(p.maxima, SummaryColumn::MaxOnly), kMinPlot);
}

}  // namespace

bool plot_lines(const char* id, const char* title, const char* unit, std::span<const PlotSeries> series, float height,
                bool legend, SummaryColumn most) {
  const PlotNumbers numbers = plot_numbers(unit, series);
  const std::vector<SeriesSummary>& summaries = numbers.summaries;
  const ScaledUnit& scaled = numbers.scaled;
  const double k = scaled.factor;
  const PlotRange& range = numbers.range;
  const std::vector<double>& ticks = numbers.ticks;
  const double lo = range.lo, hi = range.hi;
  const float label_width = numbers.label_width;
  const int n = numbers.n;
  // The summary column right of the plot, headed on the title's line: at most `most`, and no more than leaves the
  // plot kMinPlot wide.
  const SummaryColumn fit =
      std::max(most, summary_fit(numbers, std::max(ImGui::GetContentRegionAvail().x, 120.0f)));  // None > MaxOnly > Both
  const SummaryLines none;
  const SummaryLines& summary_lines = fit == SummaryColumn::Both ? numbers.both : fit == SummaryColumn::MaxOnly ? numbers.maxima : none;
  const float column = column_width(summary_lines, fit);

  // Title and unit, then the legend on the same line as far as it fits (short of the column's head), else below.
  const PlotFrame f = begin_plot(id, title, scaled.unit.c_str());
  ImDrawList* draw = f.draw;
  const ImVec2 origin = f.origin;
  const float width = f.width, line = f.line;
  const ImU32 dim = f.dim, grid = f.grid;
  float lx = f.heading_end + 12.0f, ly = origin.y;
  float right = origin.x + width - column;  // the first line's end
  for (const PlotSeries& s : series) {
    if (!legend) break;
    const float w = ImGui::CalcTextSize(s.label.c_str()).x + 18.0f;
    if (lx + w > right) {
      lx = origin.x;
      ly += line;
      right = origin.x + width;
    }
    draw->AddRectFilled(ImVec2(lx, ly + line * 0.3f), ImVec2(lx + 10.0f, ly + line * 0.7f), s.color);
    draw->AddText(ImVec2(lx + 13.0f, ly), dim, s.label.c_str());
    lx += w;
  }
  const float top = ly + line + (legend ? 4.0f : 2.0f);
  if (!summary_lines.empty() && f.heading_end + 6.0f < origin.x + width - column + 6.0f)
    draw->AddText(ImVec2(origin.x + width - column + 6.0f, origin.y), dim, column_head(fit));

  // Axes: tick labels on the left, the plot area to their right.
  const ImVec2 a(origin.x + label_width + 6.0f, top), b(origin.x + std::max(width - column, label_width + 40.0f), top + height);
  // The summary lines down to the plot's bottom edge (a grid's cell ends there), or a line below it.
  const float summary_end = legend ? b.y + line : b.y + 2.0f;
  size_t summarised = 0;
  for (; summarised < summary_lines.size(); ++summarised) {
    const float y = top + float(summarised) * line;
    if (y + line > summary_end) break;  // no room for more
    draw->AddText(ImVec2(b.x + 6.0f, y), summary_lines[summarised].second, summary_lines[summarised].first.c_str());
  }
  draw->AddRect(a, b, grid);
  const auto y_of = [&](double v) { return float(b.y - (std::min(v, hi) - lo) / (hi - lo) * (b.y - a.y)); };
  // Tick labels centred on their lines but kept within the plot's height (nothing above it or below it to clip),
  // from the bottom up, one that would overlap the one below it left out.
  float label_top = b.y + line;
  for (double t : ticks) {
    if (t > hi) continue;
    const float y = y_of(t);
    draw->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid & 0x60FFFFFF);
    const std::string label = tick_label(t);
    const float ly0 = std::clamp(y - line * 0.5f, a.y, std::max(a.y, b.y - line));
    if (ly0 + line > label_top) continue;
    draw->AddText(ImVec2(a.x - 4.0f - ImGui::CalcTextSize(label.c_str()).x, ly0), dim, label.c_str());
    label_top = ly0;
  }
  const auto x_of = [&](int i) {  // sample i of n, the newest at the right edge
    return float(b.x - (double(n - 1 - i) / std::max(History::kLength - 1, 1)) * (b.x - a.x));
  };
  draw->PushClipRect(a, b, true);
  for (const PlotSeries& s : series) {
    if (s.history == nullptr || s.history->count < 1) continue;
    const int offset = n - s.history->count;  // a shorter series ends at the right edge too
    for (int i = 1; i < s.history->count; ++i) {
      const double v0 = k * s.history->at(i - 1), v1 = k * s.history->at(i);
      if (!std::isfinite(v0) || !std::isfinite(v1)) continue;
      draw->AddLine(ImVec2(x_of(offset + i - 1), y_of(v0)), ImVec2(x_of(offset + i), y_of(v1)), s.color, 1.5f);
    }
    // Samples above the range (spikes): a mark at the top edge.
    if (range.clipped)
      for (int i = 0; i < s.history->count; ++i)
        if (k * s.history->at(i) > hi) {
          const float x = x_of(offset + i);
          draw->AddTriangleFilled(ImVec2(x - 3.0f, a.y + 6.0f), ImVec2(x + 3.0f, a.y + 6.0f), ImVec2(x, a.y), s.color);
        }
  }
  draw->PopClipRect();
  // The x axis' ends (in a grid, without a legend, only in the read-out, for room).
  if (legend) {
    draw->AddText(ImVec2(a.x + 2.0f, b.y + 1.0f), dim, ("-" + std::to_string(History::kLength - 1) + " steps").c_str());
    const char* now = "now";
    draw->AddText(ImVec2(b.x - ImGui::CalcTextSize(now).x, b.y + 1.0f), dim, now);
  }

  // The space the plot took, and the read-out under the mouse.
  const float below = std::max(legend ? line + 2.0f : 2.0f, top + float(summarised) * line - b.y);
  ImGui::Dummy(ImVec2(width, b.y - origin.y + below));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && mouse.x >= a.x && mouse.x <= b.x && n > 0) {
    const int back = int(std::lround((b.x - mouse.x) / (b.x - a.x) * (History::kLength - 1)));
    draw->AddLine(ImVec2(b.x - float(back) / (History::kLength - 1) * (b.x - a.x), a.y),
                  ImVec2(b.x - float(back) / (History::kLength - 1) * (b.x - a.x), b.y), dim);
    ImGui::BeginTooltip();
    ImGui::Text("%s, %d steps ago", title, back);
    if (range.clipped) ImGui::TextDisabled("Marks at the top: samples above the range shown (spikes).");
    for (size_t j = 0; j < series.size(); ++j) {
      const PlotSeries& s = series[j];
      if (s.history == nullptr) continue;
      const int i = s.history->count - 1 - back;
      ImGui::ColorButton(("##" + s.label).c_str(), ImGui::ColorConvertU32ToFloat4(s.color),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(line, line));
      ImGui::SameLine();
      const std::string u = scaled.unit;
      if (i >= 0)
        ImGui::Text("%s: %.4g %s   (avg %.3g, max %.3g)", s.label.c_str(), k * s.history->at(i), u.c_str(),
                    k * summaries[j].mean, k * summaries[j].max);
      else ImGui::TextDisabled("%s: -", s.label.c_str());
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
  return hovered;
}

void plot_grid(std::span<const PlotSpec> plots, ImVec2 size) {
  // The plots that show something, and the constant ones named instead.
  std::vector<const PlotSpec*> shown;
  std::string constant;
  for (const PlotSpec& p : plots) {
    std::vector<const History*> histories;
    for (const PlotSeries& s : p.series) histories.push_back(s.history);
    double value = 0.0;
    if (same_constant(histories, &value)) constant += (constant.empty() ? "" : ", ") + p.title + " " + short_number(value) + (p.unit.empty() ? "" : " " + p.unit);
    else shown.push_back(&p);
  }
  // The note below the grid (what stands beside the plots where they are only maxima, the constant plots), wrapped:
  // room for the lines its longest form takes, so that it is never cut and never makes the grid scroll.
  const std::string constant_text = constant.empty() ? "" : "Constant in every lane: " + constant + ".";
  const std::string longest = "Beside the plots: maxima (avg under the mouse).  " + constant_text;
  const float note_width = ImGui::CalcTextSize(longest.c_str()).x;
  const int note_lines = std::min(4, 1 + int(note_width / std::max(0.85f * size.x, 1.0f)));
  const float note = float(note_lines) * ImGui::GetTextLineHeightWithSpacing();
  const GridShape g = plot_grid_shape(int(shown.size()), size.x, size.y - note, 165.0f, 60.0f, 3.0f);
  const ImGuiStyle& style = ImGui::GetStyle();
  // A gap between the cells, so that one plot's average and maximum do not run into the next one's heading; the
  // last column leaves room for the scroll bar.
  constexpr float kGap = 14.0f, kIndent = 4.0f;
  const bool scrolls = float(g.rows) * g.cell_height > size.y - note + 0.5f;
  const auto cell_width = [&](size_t i) {
    const int column = int(i) % std::max(g.columns, 1);
    return g.cell_width - kGap - (scrolls && column + 1 == g.columns ? style.ScrollbarSize : 0.0f);
  };
  // One summary column for every cell: the fullest that leaves each plot readable; a cell too narrow even for the
  // maxima goes without (plot_lines), not every cell with it.
  SummaryColumn most = SummaryColumn::Both;
  for (size_t i = 0; i < shown.size(); ++i) {
    const SummaryColumn fit = summary_fit(plot_numbers(shown[i]->unit.c_str(), shown[i]->series), cell_width(i) - kIndent);
    most = std::max(most, std::min(fit, SummaryColumn::MaxOnly));
  }
  ImGui::BeginChild("##grid", size, false);
  for (size_t i = 0; i < shown.size(); ++i) {
    if (int(i) % std::max(g.columns, 1) > 0) ImGui::SameLine(0.0f, kGap);
    const float w = cell_width(i);
    ImGui::BeginChild(shown[i]->id.c_str(), ImVec2(w, g.cell_height - style.ItemSpacing.y), false,
                      ImGuiWindowFlags_NoScrollbar);
    // Heading and plot (without legend, the x axis has no labels): the plot takes what the heading leaves.
    const float plot_h = std::max(g.cell_height - style.ItemSpacing.y - ImGui::GetTextLineHeight() - 4.0f, 24.0f);
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + kIndent);
    ImGui::PushItemWidth(w - 12.0f);
    plot_lines(shown[i]->id.c_str(), shown[i]->title.c_str(), shown[i]->unit.c_str(), shown[i]->series, plot_h, false,
               most);
    ImGui::PopItemWidth();
    ImGui::EndChild();
  }
  std::string text;
  if (most == SummaryColumn::MaxOnly) text = "Beside the plots: maxima (avg under the mouse).";
  if (!constant_text.empty()) text += (text.empty() ? "" : "  ") + constant_text;
  if (!text.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(0.0f);  // at the panel's right edge
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  ImGui::EndChild();
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
