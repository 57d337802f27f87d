// What a comparison run measured per lane, step by step, and the table `contactlab --compare` prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare/lanes.h"

namespace cl {

// The q-quantile of the samples (nearest rank), 0 without samples: the median and 95th percentile of step times
// in the comparison table and in the benchmarks.
double quantile(std::vector<double> samples, double q);

// One lane's figures over a run.
struct LaneSummary {
  std::string label;               // lane_label: the solver and the parameters it changes
  int64_t steps = 0;               // steps taken
  bool stopped = false;            // the lane stopped (non-finite value, blow-up, too many contacts)
  std::string error;               // why, naming the body, the stage and the step
  double ms_median = 0.0;          // wall time of a step, ms: median over the steps taken
  double ms_p95 = 0.0;             // and 95th percentile
  double max_penetration = 0.0;    // m: the deepest contact over the run
  double mean_penetration = 0.0;   // m: the mean over the steps of each step's mean penetration
  double energy_start = 0.0;       // J: kinetic plus potential energy before the first step
  double energy_end = 0.0;         // J: after the last step taken
  Divergence divergence;           // m: at the end, against lane 1 (0 for lane 1 itself)
  double iterations_mean = 0.0;    // the solver's iterations per step (what they count: iterations_unit)
  double residual_last = 0.0;      // the solver's residual at the last step (in residual_unit)
  std::string iterations_unit, residual_unit;  // SolverInfo's, for the lane's method
  // The physics residuals (docs/residuals.md), each the mean over the steps of its value per step.
  double signorini = 0.0;          // m
  double cone = 0.0;               // N
  double dissipation = 0.0;        // W
  double complementarity = 0.0;    // W
  // The largest momentum errors over the steps where they were measured (NaN: none was).
  double momentum_error = 0.0;          // N s
  double angular_momentum_error = 0.0;  // N m s
};

// Collects the lanes' figures as they step. Call begin() before the first step and add() after each.
class ComparisonSummary {
 public:
  void begin(const Lanes& lanes);
  void add(const Lanes& lanes);
  // The figures so far (divergence as of the lanes' current state).
  std::vector<LaneSummary> lanes(const Lanes& lanes) const;

 private:
  struct Acc {
    std::vector<double> ms;
    double max_pen = 0.0, sum_mean_pen = 0.0, sum_iterations = 0.0, residual = 0.0, energy_start = 0.0;
    ContactResiduals sum_residuals;
    double momentum = -1.0, angular_momentum = -1.0;  // -1: not measured
    int64_t steps = 0;
  };
  std::vector<Acc> acc_;
};

// The comparison as a text table, one row per lane, with units; a stopped lane's error under the table.
std::string comparison_table(const std::string& scene, double dt, int64_t steps,
                             const std::vector<LaneSummary>& lanes);

}  // namespace cl
