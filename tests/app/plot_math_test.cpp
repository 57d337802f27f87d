// The plots' arithmetic (app/viewer/plot_math.cpp): a spike does not flatten the axis, the summaries, the unit
// prefixes and the grid that fits the Compare panel.
#include "viewer/plot_math.h"

#include <gtest/gtest.h>

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

TEST(PlotMath, EightPlotsFitTheComparePanelAtBothSizes) {
  // The plot area of the Compare panel at 1280x720 and at 1920x1080 (panels.cpp: 40% of the height, less the
  // controls; the width between the left column and the window's edge).
  for (const auto& [w, h] : {std::pair{890.0f, 205.0f}, std::pair{1550.0f, 360.0f}}) {
    for (int n : {8, 9}) {
      const GridShape g = plot_grid_shape(n, w, h, 200.0f, 56.0f, 3.0f);
      EXPECT_GE(g.columns * g.rows, n);
      EXPECT_LE(float(g.rows) * g.cell_height, h + 1e-3f) << n << " plots in " << w << " x " << h;
      EXPECT_GE(g.cell_width, 200.0f);
      EXPECT_GE(g.cell_height, 56.0f);
    }
  }
  // Too little room: the rows keep their least height and the grid scrolls.
  const GridShape tall = plot_grid_shape(9, 300.0f, 100.0f, 200.0f, 56.0f, 3.0f);
  EXPECT_EQ(tall.columns, 1);
  EXPECT_EQ(tall.cell_height, 56.0f);
  EXPECT_EQ(plot_grid_shape(0, 300.0f, 100.0f, 200.0f, 56.0f, 3.0f).rows, 0);
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
