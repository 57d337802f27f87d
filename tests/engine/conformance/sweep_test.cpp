// The conditions of the conformance sweep: which points a case runs at and how they are named.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "conformance/sweep.h"

namespace cl::conformance {
namespace {

const CaseScale kCube{true, 1.0, 1000.0, "the box's edge", "the box", 0.5};

TEST(SweepConditions, EveryStepFrom30To1000PerSecond) {
  std::set<double> steps;
  for (const Condition& c : sweep_conditions(kCube)) steps.insert(c.dt);
  EXPECT_EQ(steps, (std::set<double>{1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 250, 1.0 / 500, 1.0 / 1000}));
}

// At each step: the nominal point, each other size at the same density (mass L^3), the nominal size at 10 g and
// 100 t; the sizes span 2 cm to 4 m.
TEST(SweepConditions, SizesAtTheSameDensityAndMassesAtTheNominalSize) {
  const std::vector<Condition> all = sweep_conditions(kCube);
  ASSERT_EQ(all.size(), 6u * 6u);
  const std::vector<Condition> first(all.begin(), all.begin() + 6);
  const double h = 1.0 / 30;
  EXPECT_EQ(first[0], (Condition{h, 1.0, 1000.0}));
  EXPECT_EQ(first[1].size, 0.02);
  EXPECT_NEAR(first[1].mass, 1000.0 * 0.02 * 0.02 * 0.02, 1e-12);
  EXPECT_EQ(first[2].size, 0.1);
  EXPECT_NEAR(first[2].mass, 1.0, 1e-12);
  EXPECT_EQ(first[3].size, 4.0);
  EXPECT_NEAR(first[3].mass, 64000.0, 1e-9);
  EXPECT_EQ(first[4], (Condition{h, 1.0, 0.01}));
  EXPECT_EQ(first[5], (Condition{h, 1.0, 1e5}));
  for (const Condition& c : all) {
    EXPECT_GE(c.size, 0.02);
    EXPECT_LE(c.size, 4.0);
  }
  EXPECT_EQ(nominal(kCube), (Condition{1.0 / 60, 1.0, 1000.0}));
}

// A nominal size off the list (a 50 cm ball) is a point of its own beside the four sizes; a case without a
// scale sweeps the step only.
TEST(SweepConditions, ANominalSizeOffTheListAndACaseWithoutAScale) {
  const CaseScale ball{true, 0.5, 1.0, "a ball's diameter", "a ball", 0.5};
  EXPECT_EQ(sweep_conditions(ball).size(), 6u * 7u);
  CaseScale free = kCube;
  free.sweeps = false;
  const std::vector<Condition> only_steps = sweep_conditions(free);
  ASSERT_EQ(only_steps.size(), 6u);
  for (const Condition& c : only_steps) {
    EXPECT_EQ(c.size, 1.0);
    EXPECT_EQ(c.mass, 1000.0);
  }
}

TEST(SweepConditions, ScaleIsRelativeToTheNominalPoint) {
  const Scale s = scale_of(kCube, {1.0 / 60, 0.04, 2.0});
  EXPECT_DOUBLE_EQ(s.length, 0.04);
  EXPECT_DOUBLE_EQ(s.mass, 0.002);
  EXPECT_DOUBLE_EQ(s.time(), 0.2);
  EXPECT_DOUBLE_EQ(s.speed(), 0.2);
}

TEST(ConditionName, StepSizeAndMassInReadableUnits) {
  EXPECT_EQ(condition_name({1.0 / 250, 0.02, 0.008}), "1/250 s, 2 cm, 8 g");
  EXPECT_EQ(condition_name({1.0 / 1000, 4.0, 64000.0}), "1/1000 s, 4 m, 64 t");
  EXPECT_EQ(condition_name({1.0 / 60, 1.0, 1000.0}), "1/60 s, 1 m, 1 t");
  EXPECT_EQ(condition_name({0.003, 0.5, 523.6}), "0.003 s, 50 cm, 524 kg");
  EXPECT_EQ(format_length(0.0005), "0.5 mm");
  EXPECT_EQ(format_mass(0.01), "10 g");
  EXPECT_EQ(format_mass(1e5), "100 t");
}

}  // namespace
}  // namespace cl::conformance
