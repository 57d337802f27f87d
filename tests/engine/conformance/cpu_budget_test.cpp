#include "conformance/cpu_budget.h"

#include <gtest/gtest.h>

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

// How the slowness follows from the workload's times is tested on given times (below): a test that compared a live
// measurement with live runs around it failed whenever the machine's load changed between them.
TEST(CpuBudget, TheWorkloadTakesItsTime) {
  const double seconds = machine_workload_seconds();
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 2.0);  // about 20 ms on the reference machine
}

TEST(CpuBudget, TheSlownessIsTheMedianRunOverTheReferenceMachines) {
  const double ref = kReferenceWorkloadSeconds;
  // The median of 9 passes over two runs slowed by a load spike and one lucky run.
  const std::array<double, 9> runs{1.5 * ref, 1.1 * ref, 9 * ref, 1.2 * ref, 0.3 * ref,
                                   1.4 * ref, 1.3 * ref, 20 * ref, 1.0 * ref};
  EXPECT_DOUBLE_EQ(slowness_of_runs(runs), 1.3);
  const std::array<double, 4> even{2 * ref, 3 * ref, 1 * ref, 4 * ref};
  EXPECT_DOUBLE_EQ(slowness_of_runs(even), 3.0);  // the upper middle
  const std::array<double, 1> one{0.5 * ref};
  EXPECT_DOUBLE_EQ(slowness_of_runs(one), 0.5);
  EXPECT_EQ(slowness_of_runs({}), 1.0);
}

TEST(CpuBudget, AWildSlownessIsKeptWithinItsBounds) {
  const std::array<double, 3> fast{1e-6, 1e-6, 1e-6}, slow{10.0, 10.0, 10.0};
  EXPECT_EQ(slowness_of_runs(fast), kMinSlowness);
  EXPECT_EQ(slowness_of_runs(slow), kMaxSlowness);
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
