// Per-step telemetry and a recorder that writes it as CSV (one row per step) and Chrome trace JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cl {

// Wall time of each stage of World::step, in milliseconds.
struct StepProfile {
  double broad_phase = 0, narrow_phase = 0, graph = 0, solve = 0, integrate = 0, total = 0;
};

struct StepStats {
  int64_t step = 0;          // index of the step just taken (1 for the first)
  double time = 0.0;         // simulated time after the step, s
  StepProfile profile;
  int pairs = 0;             // broad-phase pairs
  int contacts = 0;
  int groups = 0;             // contact groups
  int layers = 0;             // stack layers of the tallest stack
  int sleeping = 0;           // bodies asleep
  int iterations = 0;        // solver sweeps
  double residual = 0.0;     // solver's last-sweep impulse change, N s
  double max_penetration = 0.0;  // m
  double kinetic_energy = 0.0;   // J
  double potential_energy = 0.0; // J
};

// Wall time since t0, in seconds (solvers accumulate their stage profiles with it).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Measures wall time into a double (ms) when it goes out of scope.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& out_ms) : out_(out_ms), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    out_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
 private:
  double& out_;
  std::chrono::steady_clock::time_point start_;
};

class Recorder {
 public:
  void add(const StepStats& s) { rows_.push_back(s); }
  void clear() { rows_.clear(); }
  size_t size() const { return rows_.size(); }
  const std::vector<StepStats>& rows() const { return rows_; }

  // Columns: step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,
  //          pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,kinetic_energy,
  //          potential_energy
  bool write_csv(const std::string& path, std::string* error) const;
  // Chrome trace-event JSON (complete events per stage, opens in Perfetto / chrome://tracing).
  bool write_trace(const std::string& path, std::string* error) const;

 private:
  std::vector<StepStats> rows_;
};

}  // namespace cl
