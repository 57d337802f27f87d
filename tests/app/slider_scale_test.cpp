// The sliders' scale (app/viewer/slider_scale.cpp): logarithmic from two decades of range, and where the handle sits.
#include "viewer/slider_scale.h"

#include <gtest/gtest.h>

#include <cmath>

#include "solvers/registry.h"

namespace cl::viewer {
namespace {

TEST(SliderScale, TwoDecadesMakeASliderLogarithmic) {
  EXPECT_TRUE(logarithmic_range(1.0, 1000.0));  // lcp's iterations
  EXPECT_TRUE(logarithmic_range(1e-12, 1e-3));
  EXPECT_TRUE(logarithmic_range(0.01, 1.0));
  EXPECT_FALSE(logarithmic_range(0.0, 1.0));
  EXPECT_FALSE(logarithmic_range(1.0, 16.0));
  EXPECT_TRUE(logarithmic_range(0.0, 1000.0));
  EXPECT_FALSE(logarithmic_range(-1.0, 1000.0));
  EXPECT_FALSE(logarithmic_range(5.0, 5.0));
}

TEST(SliderScale, HandlePosition) {
  EXPECT_DOUBLE_EQ(slider_fraction(5.0, 0.0, 10.0, false), 0.5);
  EXPECT_NEAR(slider_fraction(10.0, 1.0, 1000.0, true), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(slider_fraction(1.0, 1.0, 1000.0, true), 0.0);
  EXPECT_DOUBLE_EQ(slider_fraction(5000.0, 1.0, 1000.0, true), 1.0);
  EXPECT_DOUBLE_EQ(slider_fraction(0.0, 0.0, 1000.0, true), 0.0);
  EXPECT_DOUBLE_EQ(slider_fraction(NAN, 0.0, 1.0, false), 0.0);
}

// Every published parameter whose range spans two decades gets a logarithmic slider: the range is data.
TEST(SliderScale, PublishedRangesOfTwoDecadesAreLogarithmic) {
  int logarithmic = 0;
  bool iterations = false;
  for (const SolverInfo& info : solver_registry()) {
    for (const ParamSpec& spec : info.params) {
      if (spec.kind != ParamKind::Real && spec.kind != ParamKind::Integer) continue;
      if (spec.min > 0.0 && spec.max / spec.min >= 100.0) {
        EXPECT_TRUE(logarithmic_range(spec.min, spec.max)) << info.name << "." << spec.name;
        ++logarithmic;
      }
      if (info.name == "lcp" && spec.name == "iterations") {
        iterations = true;
        ASSERT_TRUE(logarithmic_range(spec.min, spec.max));
        // The handle at 10 sits a third along; a quarter of the slider's width (46 of 200 pixels) further is
        // 10 * 1000^0.23, about 49, where a linear slider reached 240.
        const double t = slider_fraction(10.0, spec.min, spec.max, true);
        const double after = spec.min * std::pow(spec.max / spec.min, t + 0.23);
        EXPECT_NEAR(after, 49.0, 1.0);
      }
    }
  }
  EXPECT_TRUE(iterations);
  EXPECT_GT(logarithmic, 4);
}

}  // namespace
}  // namespace cl::viewer
