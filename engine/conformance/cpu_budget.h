// CPU budgets that mean the same on every machine. A budget is given in seconds of the reference machine (the
// 2-core machine the budgets were set on) and scaled by how much slower this machine runs a fixed workload, measured
// when it matters: on a shared or slower machine a run that would fit on the reference machine is not failed for
// the machine's sake, and a run that crawls fails everywhere (docs/testing.md, "CPU budgets").
#pragma once

#include <span>
#include <string>

namespace cl::conformance {

// CPU time of the calling thread, s.
double thread_cpu_seconds();

// The fixed workload's CPU time on the reference machine, s (the median of machine_workload_seconds() there).
inline constexpr double kReferenceWorkloadSeconds = 0.021;

// Runs the fixed workload once, on the calling thread, and returns its CPU time, s: sweeps of projected
// Gauss-Seidel over a sparse system of 2^16 rows (floating point, dependent updates and scattered loads from 2 MB,
// the mix of a contact solver's inner loop). Always the same work.
double machine_workload_seconds();

// How many times slower than the reference machine this machine runs the workload now (under whatever else runs
// beside it): the median of 9 runs over kReferenceWorkloadSeconds, kept within [kMinSlowness, kMaxSlowness] so that
// a wild measurement neither fails every run nor lets one crawl for ever.
inline constexpr double kMinSlowness = 0.25, kMaxSlowness = 4.0;
double machine_slowness();

// The slowness that runs of the workload give: the median of their times, s, over kReferenceWorkloadSeconds, kept
// within [kMinSlowness, kMaxSlowness] (an even count takes the upper of the two middle times). 1 for no runs.
double slowness_of_runs(std::span<const double> run_seconds);

// The CPU time a run may take, counted on the calling thread from construction. The machine's slowness is measured
// once the run has taken kMinSlowness times the budget, so that short runs pay nothing for it.
class CpuBudget {
 public:
  explicit CpuBudget(double reference_seconds);  // 0: no limit
  // Makes the budget at least `reference_seconds` (a budget of no limit stays so).
  void raise_to(double reference_seconds);
  // True once the run has taken more than the budget on this machine.
  bool exceeded();
  double reference_seconds() const { return reference_; }
  double slowness() const { return slowness_; }  // 1 until measured
  double allowed_seconds() const { return reference_ * slowness_; }
  double used_seconds() const { return thread_cpu_seconds() - start_; }
  // "30 s of CPU on the reference machine (36.9 s here, 1.23 times slower)".
  std::string describe() const;

 private:
  double reference_ = 0.0, start_ = 0.0, slowness_ = 1.0;
  bool measured_ = false;
};

}  // namespace cl::conformance
