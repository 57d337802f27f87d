// Line plots drawn on the ImGui draw list (Debian's Dear ImGui 1.86 comes without ImPlot): several series on
// shared axes, with a title and unit (with an SI prefix that suits the values), y ticks at round values, a range
// that a spike does not flatten (its samples marked at the top edge), each series' average and maximum beside the
// plot, a legend, and a read-out of every series at the step under the mouse; and a list of such plots as a grid
// that fits an area (plot_math.h does the arithmetic). Every plot of the viewer uses it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <imgui.h>

#include "viewer/plot_math.h"
#include "viewer/viewer_state.h"

namespace cl::viewer {

struct PlotSeries {
  std::string label;        // in the legend and the read-out
  ImU32 color = 0;
  const History* history = nullptr;  // its last History::count samples, oldest on the left
  bool summary = true;               // its average and maximum beside the plot
};

// One plot of a grid.
struct PlotSpec {
  std::string id, title, unit;
  std::vector<PlotSeries> series;
};

// Round tick values covering [lo, hi] with about `target` ticks (1, 2 or 5 times a power of ten apart).
std::vector<double> nice_ticks(double lo, double hi, int target);
// A value as a tick label: 3 significant digits, no trailing zeros ("0.25", "1.5e+03").
std::string tick_label(double v);

// Draws one plot `height` pixels high across the available width. `unit` follows the title ("step time, ms").
// The y range is robust_range's (plot_math.h); the x axis is the step, counted back from the newest (0 at the
// right edge). The series' average and maximum ("avg / max") stand right of the plot, one line each for those with
// `summary` (only their maxima, or nothing, where the plot would otherwise be narrower than 70 pixels, and never
// more than `most`); with `legend`, the series' labels follow the title. A title longer than the width ends in
// "...". Returns true while the mouse is over it.
bool plot_lines(const char* id, const char* title, const char* unit, std::span<const PlotSeries> series, float height,
                bool legend = true, SummaryColumn most = SummaryColumn::Both);

// Draws `plots` as a grid in an area `size` (ImGui units) at the cursor, cells about twice as wide as tall and at
// least 165 x 60 pixels (beyond that the area scrolls), without legends (the caller shows what the colours are).
// Every cell has the same summary column (avg / max, else the maxima: the fullest that leaves every plot
// readable), but for a cell too narrow even for the maxima, which goes without.
// Plots whose series never change and all hold one value are left out and named on a last line instead.
void plot_grid(std::span<const PlotSpec> plots, ImVec2 size);

// One sequence against its index from 1 (`x_unit` names it, e.g. "sweep"), y on a log10 scale with a tick at
// every power of ten (values below 1e-16, zeros included, drawn at 1e-16): a convergence history. Returns true
// while the mouse is over it (the read-out names the index and the value).
bool plot_log_sequence(const char* id, const char* title, const char* unit, const char* x_unit,
                       std::span<const double> values, ImU32 color, float height);

}  // namespace cl::viewer
