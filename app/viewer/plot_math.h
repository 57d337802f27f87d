// The arithmetic of the viewer's plots (plot.cpp draws them with ImGui): an axis range that a spike does not
// flatten, the average and maximum of a series, whether a series never changes, a unit scaled to its values, and
// how a list of plots is laid out as a grid in a given area. No GL, no ImGui.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "viewer/viewer_state.h"

namespace cl::viewer {

// The y range of a plot of `samples` (non-finite ones ignored): from min(0, lowest) up to the highest sample, unless
// a few samples stand far above the rest (a spike of one step): then up to a little above the 98th percentile, and
// `clipped` says that samples above `hi` are drawn at the top edge as outliers. A flat or empty set gets [lo, lo+1].
struct PlotRange {
  double lo = 0.0, hi = 1.0;
  bool clipped = false;
};
PlotRange robust_range(std::span<const double> samples);

// The average and the maximum of a history's samples (count 0: none yet), and whether every sample is the same.
struct SeriesSummary {
  int count = 0;
  double mean = 0.0, max = 0.0, min = 0.0;
  bool constant() const { return count > 0 && min == max; }
};
SeriesSummary summarize(const History& h);

// A unit with an SI prefix that brings `largest` (the largest magnitude to be shown) into [1, 1000): "m" with 0.0042
// gives "mm" and factor 1000, "ms" with 0.0003 gives "ns" (factor 1e6). Units that are not a plain SI unit ("N s",
// "", "%") and magnitudes already in range keep factor 1 and their unit.
struct ScaledUnit {
  double factor = 1.0;  // multiply a value by it to show it in `unit`
  std::string unit;
};
ScaledUnit scale_unit(const std::string& unit, double largest);

// A value with 3 significant digits, no trailing zeros ("0.25", "43600", "1.5e+06").
std::string short_number(double v);

// A grid for `count` plots in an area `width` x `height`: the number of columns whose cells come closest to
// `aspect` (width over height) while each is at least `min_width` wide and `min_height` tall; where even one column
// of cells that tall does not fit the height, the rows keep `min_height` and the grid scrolls.
struct GridShape {
  int columns = 1, rows = 0;
  float cell_width = 0, cell_height = 0;
};
GridShape plot_grid_shape(int count, float width, float height, float min_width, float min_height, float aspect);

// What stands right of a plot `width` wide: every series' "avg / max" (`both` wide), else only its maximum
// (`max_only` wide), else nothing, whichever is the fullest that leaves at least `min_plot` for the plot after its
// tick labels (`labels` wide). A narrow cell of a grid keeps its plot readable; the read-out under the mouse
// still gives both.
enum class SummaryColumn { Both, MaxOnly, None };  // in this order: std::max gives the sparser
SummaryColumn fit_summary_column(float width, float labels, float both, float max_only, float min_plot);

// Whether the histories (at least one) never change and all hold the same value (`*value`): a plot of them shows
// a flat line that says less than its value in words.
bool same_constant(std::span<const History* const> histories, double* value);

}  // namespace cl::viewer
