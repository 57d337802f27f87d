// The plots' arithmetic (app/viewer/plot_math.cpp): a spike does not flatten the axis, the summaries, the unit
// prefixes and the grid that fits the Compare panel.
#include "viewer/plot_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cl::viewer {
namespace {

TEST(PlotMath, OneSpikeDoesNotFlattenTheAxis) {
  std::vector<double> v(240);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + 0.1 * std::sin(double(i));  // about 1 ms per step
  PlotRange r = robust_range(v);
  EXPECT_FALSE(r.clipped);
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_NEAR(r.hi, 1.1, 1e-3);
  v[100] = 250.0;  // one step took 250 times as long
  r = robust_range(v);
  EXPECT_TRUE(r.clipped);
  EXPECT_LT(r.hi, 1.5);  // the other 239 still fill the plot
  EXPECT_GT(r.hi, 1.09);
  // A few high samples in a steady climb are data, not spikes: not clipped.
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  r = robust_range(v);
  EXPECT_FALSE(r.clipped);
  EXPECT_EQ(r.hi, 239.0);
}

TEST(PlotMath, FlatEmptyAndNegativeRanges) {
  EXPECT_EQ(robust_range(std::vector<double>{}).hi, 1.0);
  const PlotRange zero = robust_range(std::vector<double>(50, 0.0));
  EXPECT_EQ(zero.lo, 0.0);
  EXPECT_EQ(zero.hi, 1.0);
  const PlotRange negative = robust_range(std::vector<double>{-2.0, -1.0, NAN, -3.0});
  EXPECT_EQ(negative.lo, -3.0);
  EXPECT_EQ(negative.hi, -1.0);
}

TEST(PlotMath, SummaryAndConstantCounters) {
  History h;
  EXPECT_FALSE(summarize(h).constant());  // nothing yet
  for (int i = 0; i < 300; ++i) h.push(0.0f);  // threaded_rows on a small lcp scene
  EXPECT_TRUE(summarize(h).constant());
  h.push(4.0f);
  h.push(2.0f);
  const SeriesSummary s = summarize(h);
  EXPECT_FALSE(s.constant());
  EXPECT_EQ(s.count, History::kLength);
  EXPECT_EQ(s.max, 4.0);
  EXPECT_NEAR(s.mean, 6.0 / History::kLength, 1e-12);
}

TEST(PlotMath, UnitsTakeThePrefixOfTheirValues) {
  ScaledUnit u = scale_unit("m", 0.0042);
  EXPECT_EQ(u.unit, "mm");
  EXPECT_DOUBLE_EQ(u.factor, 1e3);
  u = scale_unit("ms", 0.0003);
  EXPECT_EQ(u.unit, "ns");
  EXPECT_DOUBLE_EQ(u.factor, 1e6);
  u = scale_unit("ms", 0.5);
  EXPECT_EQ(u.unit, "\u00b5s");
  u = scale_unit("ms", 4500.0);
  EXPECT_EQ(u.unit, "s");
  EXPECT_DOUBLE_EQ(u.factor, 1e-3);
  u = scale_unit("J", 25000.0);
  EXPECT_EQ(u.unit, "kJ");
  for (const char* kept : {"", "N s", "%"}) EXPECT_EQ(scale_unit(kept, 1e-5).unit, kept);
  EXPECT_EQ(scale_unit("m", 3.0).factor, 1.0);  // in range already
  EXPECT_EQ(scale_unit("m", 0.0).unit, "m");
}

TEST(PlotMath, FifteenPlotsFitTheComparePanelAtBothSizes) {
  // The plot area of the Compare panel at 1280x720 and at 1920x1080 (panels_shared.cpp: 40% of the height, less
  // the row of controls; the width between the left column and the window's edge; measured in the viewer: 900 x
  // 230 and 1540 x 374), less the grid's note line (17 pixels). Every plot of the panel without scrolling.
  for (const auto& [w, h] : {std::pair{900.0f, 213.0f}, std::pair{1540.0f, 357.0f}}) {
    for (int n : {13, 14, 15}) {
      const GridShape g = plot_grid_shape(n, w, h, 165.0f, 60.0f, 3.0f);
      EXPECT_GE(g.columns * g.rows, n);
      EXPECT_LE(float(g.rows) * g.cell_height, h + 1e-3f) << n << " plots in " << w << " x " << h;
      EXPECT_GE(g.cell_width, 165.0f);
      EXPECT_GE(g.cell_height, 60.0f);
    }
  }
  // Too little room: the rows keep their least height and the grid scrolls.
  const GridShape tall = plot_grid_shape(9, 300.0f, 100.0f, 200.0f, 56.0f, 3.0f);
  EXPECT_EQ(tall.columns, 1);
  EXPECT_EQ(tall.cell_height, 56.0f);
  EXPECT_EQ(plot_grid_shape(0, 300.0f, 100.0f, 200.0f, 56.0f, 3.0f).rows, 0);
}

// Beside a plot: "avg / max" where the plot keeps its least width, else the maxima, else nothing.
TEST(PlotMath, SummaryColumnGivesWayToThePlot) {
  // A cell of 176 pixels at 1280x720, tick labels 30 wide: "0.00437 / 0.0932" (118) leaves 28, "0.0932" (48) 98.
  EXPECT_EQ(fit_summary_column(176.0f, 30.0f, 118.0f, 48.0f, 70.0f), SummaryColumn::MaxOnly);
  EXPECT_EQ(fit_summary_column(304.0f, 30.0f, 118.0f, 48.0f, 70.0f), SummaryColumn::Both);  // at 1920x1080
  EXPECT_EQ(fit_summary_column(140.0f, 30.0f, 118.0f, 48.0f, 70.0f), SummaryColumn::None);
  EXPECT_EQ(fit_summary_column(218.0f, 30.0f, 118.0f, 48.0f, 70.0f), SummaryColumn::Both);  // exactly 70 left
  // The grid takes the sparsest of its cells' columns for all of them.
  EXPECT_EQ(std::max(SummaryColumn::Both, SummaryColumn::MaxOnly), SummaryColumn::MaxOnly);
  EXPECT_EQ(std::max(SummaryColumn::None, SummaryColumn::MaxOnly), SummaryColumn::None);
}

// A plot is named instead of drawn only when every series holds one value throughout, the same in all of them.
TEST(PlotMath, SameConstantAcrossSeries) {
  History zero, zero2, moving, other;
  for (int i = 0; i < 30; ++i) {
    zero.push(0.0);
    zero2.push(0.0);
    moving.push(i == 29 ? 1e-9 : 0.0);
    other.push(2.0);
  }
  double value = -1.0;
  const History* const both_zero[] = {&zero, &zero2};
  EXPECT_TRUE(same_constant(both_zero, &value));
  EXPECT_EQ(value, 0.0);
  const History* const one_moves[] = {&zero, &moving};
  EXPECT_FALSE(same_constant(one_moves, &value));
  const History* const two_values[] = {&zero, &other};
  EXPECT_FALSE(same_constant(two_values, &value));
  const History* const single[] = {&other};
  EXPECT_TRUE(same_constant(single, &value));
  EXPECT_EQ(value, 2.0);
  History empty;
  const History* const none[] = {&empty};
  EXPECT_FALSE(same_constant(none, &value));  // no samples yet: plotted (empty), not named
  EXPECT_FALSE(same_constant(std::span<const History* const>{}, &value));
}

// Summaries beside a plot: 3 significant digits, counts in the thousands without an exponent.
TEST(PlotMath, ShortNumbers) {
  EXPECT_EQ(short_number(0.25), "0.25");
  EXPECT_EQ(short_number(29.7), "29.7");
  EXPECT_EQ(short_number(365.0), "365");
  EXPECT_EQ(short_number(43612.0), "43600");
  EXPECT_EQ(short_number(48249.0), "48200");
  EXPECT_EQ(short_number(-1234.0), "-1230");
  EXPECT_EQ(short_number(999999.0), "1000000");
  EXPECT_EQ(short_number(7.7e9), "7.7e+09");
  EXPECT_EQ(short_number(0.000388), "0.000388");
}

}  // namespace
}  // namespace cl::viewer
