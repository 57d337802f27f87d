// The scale of the viewer's sliders, from a parameter's published range: logarithmic where the range spans two
// decades or more (iterations 1..1000, tolerances, stiffnesses), and where the handle sits for a value, so that
// the value's text can be drawn beside the handle rather than under it (slider.h). No GL, no ImGui.
#pragma once

namespace cl::viewer {

// True when a slider over [lo, hi] should be logarithmic: hi / lo >= 100 for lo > 0, hi >= 1000 for lo = 0.
bool logarithmic_range(double lo, double hi);

// The handle's position for `v` on a slider over [lo, hi], from 0 (left) to 1 (right), on a log scale with `log`
// (for lo = 0, as from a thousandth of hi).
double slider_fraction(double v, double lo, double hi, bool log);

}  // namespace cl::viewer
