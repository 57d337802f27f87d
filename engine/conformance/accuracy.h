// Accuracy against cost (issue 34): every method over a list of time steps (and of iteration counts where the
// method has an `iterations` parameter), each run's error and wall time. The error is measured against
//   - a conformance case's closed form: run_case at the case's nominal size and mass and the sweep's step (the
//     conformance sweep's own run, with its measure and exact value), or
//   - for any other scene, a reference run of the same method at dt / 16: the RMS distance of the dynamic bodies'
//     centres from the reference's after the same simulated time. The same method's fine run, not lcp's, so that
//     the error is the method's discretisation error in time, the one a smaller step buys back; against lcp it
//     would include the difference between the contact models (a penalty method's compliance), which no step
//     removes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cl::conformance {

struct SweepSettings {
  std::string target;                // a conformance case's name, or a scene file
  std::vector<double> dts;           // s
  std::vector<int> iterations;       // values of the method's `iterations` parameter; empty: its default
  std::vector<std::string> solvers;  // empty: every registered one
  std::vector<std::pair<std::string, std::string>> params;  // --set name=value, applied where the method has it
  double duration = 2.0;             // s simulated, for a scene (a case runs for its own time)
  std::string scene_dir;             // scenes/conformance/
};

struct SweepPoint {
  std::string solver;
  double dt = 0.0;
  int iterations = -1;  // -1: the method has no `iterations` parameter, or its default was kept
  double error = 0.0;   // in `unit`; NaN when the run failed
  std::string unit;
  double wall_seconds = 0.0;  // the run's (not the reference's), loading excluded
  double cpu_seconds = 0.0;   // the process's CPU time over the run (all its threads): the cost on a busy machine
  int steps = 0;              // steps taken
  std::string message;        // why the run failed, empty if it did not
};

// The scene file a sweep runs: its conformance case's scene, or the target itself.
std::string sweep_scene_path(const SweepSettings& settings);

// Runs the sweep; `error` is set (and nothing returned) when the target neither names a case nor loads.
std::vector<SweepPoint> run_sweep(const SweepSettings& settings, std::string* error);

// Columns: target,reference,solver,dt,iterations,error,unit,wall_s,cpu_s,steps,message
std::string sweep_csv(const SweepSettings& settings, const std::vector<SweepPoint>& points);

}  // namespace cl::conformance
