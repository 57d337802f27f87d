// Per-step telemetry and a recorder that writes it as CSV (one row per step) and Chrome trace JSON.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/output_file.h"
#include "telemetry/residuals.h"

namespace cl {

// Wall time of each stage of World::step, in milliseconds.
struct StepProfile {
  double broad_phase = 0, narrow_phase = 0, graph = 0, solve = 0, integrate = 0, total = 0;
};

// The stages of World::step that a solver's own stages run inside (Solver::collide runs in the narrow phase,
// solve_velocities in solve, integrate_positions in integrate).
enum class StepStage : uint8_t { NarrowPhase, Solve, Integrate };
const char* step_stage_name(StepStage stage);  // "narrow_phase", "solve", "integrate"
double stage_ms(const StepProfile& profile, StepStage stage);

// One of a solver's own stages in one step: wall time spent in it, inside the world stage `parent`.
struct SubStage {
  const char* name = "";  // a string literal; the CSV column is <name>_ms, so it differs from the fixed columns
  StepStage parent = StepStage::Solve;
  double ms = 0.0;
};

// A solver's declared items of one step (its stages, its counters) in a fixed array, each with the number it
// accumulates in the member Value: declaring, updating and copying them allocates nothing. Updates to an index
// past the declared ones are ignored.
template <class Item, double Item::*Value>
class DeclaredItems {
 public:
  static constexpr int kCapacity = 8;
  // Starts a step: these items (at most kCapacity, in this order), each at 0.
  void declare(std::span<const Item> items) {
    count_ = 0;
    for (const Item& item : items)
      if (count_ < kCapacity) {
        Item& slot = items_[size_t(count_++)];
        slot = item;
        slot.*Value = 0.0;
      }
  }
  void clear() { count_ = 0; }
  void add(int i, double v) {
    if (i >= 0 && i < count_) items_[size_t(i)].*Value += v;
  }
  void set(int i, double v) {
    if (i >= 0 && i < count_) items_[size_t(i)].*Value = v;
  }
  void raise(int i, double v) {  // keeps the largest
    if (i >= 0 && i < count_ && v > items_[size_t(i)].*Value) items_[size_t(i)].*Value = v;
  }
  int size() const { return count_; }

 protected:
  std::span<const Item> items() const { return {items_.data(), size_t(count_)}; }

 private:
  std::array<Item, kCapacity> items_{};
  int count_ = 0;
};

// A solver's own stages of one step: wall time, ms (add from ScopedSubStage).
class SubStages : public DeclaredItems<SubStage, &SubStage::ms> {
 public:
  std::span<const SubStage> stages() const { return items(); }
};

// One of a solver's own counters in one step (what it did or reached: pairs in a state, passes, a residual).
struct SolverCounter {
  const char* name = "";  // a string literal; the CSV column, so it differs from the fixed columns and stages
  const char* unit = "";  // "" when dimensionless
  double value = 0.0;
};

// A solver's own counters of one step: declared in begin_step, set, added to or raised as it goes.
class SolverCounters : public DeclaredItems<SolverCounter, &SolverCounter::value> {
 public:
  std::span<const SolverCounter> counters() const { return items(); }
};

// A column of the CSV that depends on the solver: a sub-stage's time (<name>_ms) or a counter (<name>).
struct SolverColumn {
  std::string_view name;
  bool stage = true;
  bool operator==(const SolverColumn&) const = default;
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
  int iterations = 0;        // the solver's iterations (SolverStats::iterations: what they count is per method)
  double residual = 0.0;     // the solver's residual (SolverStats::residual: its unit is per method)
  double max_penetration = 0.0;  // m: the deepest point of any contact (World::max_penetration)
  double mean_penetration = 0.0; // m: the mean depth of the penetrating contacts (World::mean_penetration)
  double kinetic_energy = 0.0;   // J
  double potential_energy = 0.0; // J
  // The physics residuals of the step, from the method's contact report (docs/residuals.md).
  ContactResiduals residuals;
  double energy_change = 0.0;    // J: kinetic plus potential energy after the step minus before
  // |P(t+h) - P(t)|, N s, and |L(t+h) - L(t)| about the origin, N m s, when no external force acts on the
  // bodies in the step (no gravity, applied force, drag, fixed or kinematic contact, joint to one); else NaN.
  double momentum_error = kNotMeasured;
  double angular_momentum_error = kNotMeasured;
  SubStages sub_stages;          // the solver's own stages, nested in profile's narrow_phase, solve and integrate
  SolverCounters counters;       // the solver's own counters (docs/solvers.md, "What the solvers report")
};

// Appends the columns of the step's sub-stages and counters not yet in `columns`, in their order.
void add_solver_columns(std::vector<SolverColumn>& columns, const StepStats& s);

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

// Adds the wall time of its scope to sub-stage i of `stages` (ms) when it goes out of scope.
class ScopedSubStage {
 public:
  ScopedSubStage(SubStages& stages, int i) : stages_(stages), i_(i), start_(std::chrono::steady_clock::now()) {}
  ~ScopedSubStage() {
    stages_.add(i_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
  }
  ScopedSubStage(const ScopedSubStage&) = delete;
  ScopedSubStage& operator=(const ScopedSubStage&) = delete;
 private:
  SubStages& stages_;
  int i_;
  std::chrono::steady_clock::time_point start_;
};

// The whole history of a recording, kept in memory (the viewer's Record button): written as CSV and trace at the
// end. A run of any length that only needs the files uses StepWriter instead.
class Recorder {
 public:
  void add(const StepStats& s) { rows_.push_back(s); }
  void clear() { rows_.clear(); }
  size_t size() const { return rows_.size(); }
  const std::vector<StepStats>& rows() const { return rows_; }

  // Columns: step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,
  //          pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,mean_penetration,
  //          kinetic_energy,potential_energy,signorini_m,adhesion_N,cone_N,dissipation_W,complementarity_W,
  //          normal_force_N,energy_change_J,momentum_error_Ns,angular_momentum_error_Nms (empty when not measured)
  // then <name>_ms for every solver sub-stage and <name> for every solver counter of any row, in order of first
  // appearance (empty in rows whose solver has no such stage or counter).
  bool write_csv(const std::string& path, std::string* error) const;
  // Chrome trace-event JSON (complete events per stage, opens in Perfetto / chrome://tracing); the solver's
  // sub-stages nest inside their stage, laid end to end from its start.
  bool write_trace(const std::string& path, std::string* error) const;

 private:
  std::vector<StepStats> rows_;
};

// Writes steps to a CSV file and a trace file (either may be left out) as they are taken, in the formats of
// Recorder, holding nothing per step: memory stays flat however long the run. The CSV's solver columns are
// those of the first step (a run without a window keeps one solver). Every failure, including a write that
// only fails when the file is flushed (a full disk), is reported with the path.
class StepWriter {
 public:
  bool open(const std::string& csv_path, const std::string& trace_path, std::string* error);
  // For several runs in one CSV (comparison lanes), before the first add: the names of columns written before
  // the step's own ("lane,solver,scene"), whose values each add() then gives, and the solver columns of every
  // run (each call adds the stages not yet there; without a call they are those of the first step).
  void set_leading_columns(std::string names);
  void add_solver_columns(const StepStats& s);
  bool add(const StepStats& s, std::string* error, std::string_view leading_values = {});
  // Ends the trace and puts both files in place: each is written to a temporary file beside it until then, so
  // the earlier files stay as they were. A run cut short still closes, so that its steps so far are kept. After
  // a failure neither file is put in place.
  bool close(std::string* error);
  // Drops both files: the earlier ones stay as they were.
  void discard();
  int steps() const { return steps_; }  // steps added so far

 private:
  std::string csv_path_, trace_path_;
  OutputFile csv_file_, trace_file_;
  std::ostringstream csv_, trace_;  // what is not in the files yet
  std::vector<SolverColumn> extra_;      // the CSV's solver columns (string literals), from the first step
  bool extra_given_ = false;             // add_solver_columns named them
  std::string leading_;                  // names of the leading columns, "" for none
  bool header_ = false;
  double t_ = 0.0;  // the trace's clock, us
  int steps_ = 0;
};

}  // namespace cl
