#include "conformance/cpu_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>

namespace cl::conformance {
namespace {

// Spends CPU on the calling thread until `budget` reports it exceeded, or `limit` s have passed; returns the time.
double spend_until_exceeded(CpuBudget& budget, double limit) {
  const double start = thread_cpu_seconds();
  volatile double x = 1.0;
  while (!budget.exceeded() && thread_cpu_seconds() - start < limit)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  return thread_cpu_seconds() - start;
}

TEST(CpuBudget, TheSlownessIsTheWorkloadsTimeOverTheReferenceMachines) {
  const double seconds = machine_workload_seconds();
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 2.0);  // about 20 ms on the reference machine
  // The workload's times just before and just after machine_slowness() bracket the conditions it measured in: a
  // shared machine's load changes from one second to the next (under ctest -j2 two medians of 9 runs taken back to
  // back differed 2.3 times). The median of its 9 runs, over the reference machine's time, lies between the
  // fastest and the slowest of the 18 around it.
  std::array<double, 18> runs{};
  for (size_t i = 0; i < 9; ++i) runs[i] = machine_workload_seconds();
  const double slowness = machine_slowness();
  for (size_t i = 9; i < runs.size(); ++i) runs[i] = machine_workload_seconds();
  const auto [fastest, slowest] = std::minmax_element(runs.begin(), runs.end());
  const double lowest = std::clamp(*fastest / kReferenceWorkloadSeconds, kMinSlowness, kMaxSlowness);
  const double highest = std::clamp(*slowest / kReferenceWorkloadSeconds, kMinSlowness, kMaxSlowness);
  EXPECT_GE(slowness, lowest);
  EXPECT_LE(slowness, highest);
}

TEST(CpuBudget, NoLimitIsNeverExceeded) {
  CpuBudget none(0.0);
  EXPECT_GE(spend_until_exceeded(none, 0.05), 0.05);
  EXPECT_FALSE(none.exceeded());
}

TEST(CpuBudget, AShortRunMeasuresNothing) {
  CpuBudget budget(1000.0);
  EXPECT_FALSE(budget.exceeded());
  EXPECT_EQ(budget.slowness(), 1.0);
  EXPECT_EQ(budget.describe(), "1000 s of CPU on the reference machine");
}

TEST(CpuBudget, ARaiseLengthensABudgetButNeverLimitsAnUnlimitedRun) {
  CpuBudget budget(1.0);
  budget.raise_to(5.0);
  EXPECT_EQ(budget.reference_seconds(), 5.0);
  budget.raise_to(0.5);
  EXPECT_EQ(budget.reference_seconds(), 5.0);
  CpuBudget none(0.0);
  none.raise_to(5.0);
  EXPECT_EQ(none.reference_seconds(), 0.0);
  EXPECT_FALSE(none.exceeded());
}

TEST(CpuBudget, ARunOverItsBudgetOnThisMachineIsStopped) {
  CpuBudget budget(0.02);  // 20 ms on the reference machine: between 5 and 80 ms here
  const double spent = spend_until_exceeded(budget, 5.0);
  ASSERT_TRUE(budget.exceeded()) << "not exceeded after " << spent << " s";
  // It stops once the run passes the budget scaled by the slowness; the measurement itself (9 runs of the
  // workload) is counted in the run's time, so the stop comes at most that much later.
  EXPECT_GT(budget.used_seconds(), budget.allowed_seconds());
  EXPECT_NE(budget.describe().find("times slower"), std::string::npos) << budget.describe();
}

}  // namespace
}  // namespace cl::conformance
