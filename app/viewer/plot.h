// Line plots drawn on the ImGui draw list (Debian's Dear ImGui 1.86 comes without ImPlot): several series on
// shared axes, with a title and unit, y ticks at round values, a legend, and a read-out of every series at the
// step under the mouse. Every plot of the viewer uses it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <imgui.h>

#include "viewer/viewer_state.h"

namespace cl::viewer {

struct PlotSeries {
  std::string label;        // in the legend and the read-out
  ImU32 color = 0;
  const History* history = nullptr;  // its last History::count samples, oldest on the left
};

// Round tick values covering [lo, hi] with about `target` ticks (1, 2 or 5 times a power of ten apart).
std::vector<double> nice_ticks(double lo, double hi, int target);
// A value as a tick label: 3 significant digits, no trailing zeros ("0.25", "1.5e+03").
std::string tick_label(double v);

// Draws one plot `height` pixels high across the available width. `unit` follows the title ("step time, ms").
// The y range runs from min(0, lowest) to the highest sample (a flat series gets a unit range); the x axis is
// the step, counted back from the newest (0 at the right edge). Returns true while the mouse is over it.
bool plot_lines(const char* id, const char* title, const char* unit, std::span<const PlotSeries> series, float height);

// One sequence against its index from 1 (`x_unit` names it, e.g. "sweep"), y on a log10 scale with a tick at
// every power of ten (values below 1e-16, zeros included, drawn at 1e-16): a convergence history. Returns true
// while the mouse is over it (the read-out names the index and the value).
bool plot_log_sequence(const char* id, const char* title, const char* unit, const char* x_unit,
                       std::span<const double> values, ImU32 color, float height);

}  // namespace cl::viewer
