// The cross-method conformance suite: closed-form mechanics cases (an incline, a bounce, a pendulum, ...), each
// a scene in scenes/conformance/, run under any registered solver at that solver's default parameters and
// compared with its exact value within a tolerance that each case justifies.
//
// Every case is swept over conditions (sweep.h): time steps from 1/30 to 1/1000 s and, for a case with a scale,
// sizes from 2 cm to 4 m and masses from 10 g to 100 t. A case reads one figure from the simulation (a speed
// after 1 s, a stop distance, a period, ...). A point (case x solver x condition) passes when the figure lies
// within the tolerance of the exact value at that condition and no secondary check of the case failed (e.g.
// momentum kept in a collision). A case may mark a solver whose *method* cannot pass it, with the paper's
// argument; such a point shows its figure as "method" instead of a failure. A bug is never marked so.
// `contactlab --conformance` prints the sweep (conformance/matrix.h).
#pragma once

#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/cpu_budget.h"
#include "conformance/sweep.h"
#include "world/world.h"

namespace cl::conformance {

// What a case read from its run.
struct Reading {
  double value = std::numeric_limits<double>::quiet_NaN();  // the figure compared with the exact value
  std::string violation;  // a failed secondary check, empty if none (e.g. "momentum changed by 0.3 N s")
};

// The world of one point while a case measures it: steps it and finds its bodies and joints. Times and lengths
// a case names are those of its nominal scene; at another size they scale as the condition says (sweep.h:
// times by sqrt(L), lengths by L). Every failure (a step that reports a non-finite value, a missing body, a run
// over its CPU budget) throws std::runtime_error with a message for the matrix; run_case catches it.
class CaseRun {
 public:
  // `cpu_budget`: CPU seconds (of the calling thread) the stepping may take on the reference machine
  // (cpu_budget.h); 0: no limit.
  CaseRun(World& world, const Scale& scale, double cpu_budget = 0.0);
  World& world() { return world_; }
  const World& world() const { return world_; }
  const Scale& scale() const { return scale_; }
  double time() const { return world_.time(); }

  const Body& body(std::string_view name) const;
  const Joint& joint(std::string_view name) const;
  // Steps until the world's time reaches the nominal time `t` (t sqrt(L) s since the start, to the nearest step),
  // calling `each` after every step.
  void until(double t, const std::function<void(const World&)>& each = {});

 private:
  World& world_;
  Scale scale_;
  CpuBudget budget_;
};

// A solver whose method cannot pass a case, and why (the paper's argument, one sentence).
struct MethodLimit {
  std::string solver;
  std::string reason;
};

struct Case {
  std::string name;       // identifier: [a-z0-9_]+
  std::string scene;      // file in scenes/conformance/
  std::string measured;   // what the figure is, e.g. "speed after 1 s"
  std::string unit;       // of the figure, exact value and tolerance, e.g. "m/s" ("" when dimensionless)
  double exact = 0.0;     // the closed-form value at the nominal size (the scene as it is), at any step
  // The tolerance at a condition (a point passes when |figure - exact| <= tolerance): from the physics and the
  // step (the condition's dt), never from what a method gives.
  std::function<double(const Condition&, const Scale&)> tolerance;
  std::string exact_source;      // where the exact value comes from (formula and its source)
  std::string tolerance_reason;  // why the tolerance is what it is
  std::function<Reading(CaseRun&)> measure;
  std::vector<MethodLimit> limits;
  // The sweep: the case's nominal size and mass and how its figure scales with the size (sweep.h). Without a
  // scale a case sweeps the time step only.
  CaseScale scale;
};

// Every case, in the order of the matrix.
std::span<const Case> cases();
const Case* find_case(std::string_view name);  // nullptr if there is none of that name

// The exact value and the tolerance of a case at a condition.
double exact_at(const Case& c, const Condition& condition);
double tolerance_at(const Case& c, const Condition& condition);

enum class Verdict {
  Pass,         // within the tolerance, no violation
  Fail,         // outside it, a violation, a failed step or an error
  MethodLimit,  // fails, and the case marks this solver's method as unable to pass it
};
const char* verdict_name(Verdict v);  // "pass", "FAIL", "method"

// One point of the sweep: a case under a solver at a condition.
struct CellResult {
  std::string case_name;
  std::string solver;
  Condition condition;
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN when the run gave no figure
  double exact = 0.0, tolerance = 0.0;                       // at the condition
  Verdict verdict = Verdict::Fail;
  std::string message;  // why it failed (the deviation, a violation, the step's error), or the method's limit
  bool violated = false;  // a secondary check of the case failed
  double cpu_seconds = 0.0;  // CPU time of the run (its thread's)
  int steps = 0;             // steps the run took (0 when it did not load)
  // How far off the figure is, in tolerances: |value - exact| / tolerance; infinite for a run that stopped, gave
  // no figure or broke a secondary check.
  double badness() const;
};

// Solver parameters set on top of the defaults, name and value as --set takes them (e.g. {"sleeping", "false"},
// lcp's {"solver_precision", "float"}), to compare or sweep a setting.
using ParamOverrides = std::vector<std::pair<std::string, std::string>>;

// The CPU time a point may take, s of the reference machine (cpu_budget.h: scaled by this machine's slowness): 30 s,
// or as long as the simulated time it covers if that is longer, since a method that keeps up with real time on the
// reference machine does not crawl. A method that needs more for a case gives no figure there, which fails the
// point, so that a sweep's time is bounded whatever the method costs. The slowest points take 15 to 22 s (the
// 20-box tower at 4 m for 63 s at h = 1 ms under volume, at 1/500 s under implicit-penalty) and 35 to 40 s (the
// same at 1 ms under implicit-penalty, against its 63 s).
// Under AddressSanitizer and UndefinedBehaviorSanitizer the engine runs 2 to 10 times slower (tests/CMakeLists.txt),
// so the budgets are ten times larger there: a point that crawls still fails, one that is merely instrumented does not.
#ifdef CONTACTLAB_SANITIZED
inline constexpr double kSanitizerSlowdown = 10.0;
#else
inline constexpr double kSanitizerSlowdown = 1.0;
#endif
inline constexpr double kPointCpuBudget = 30.0 * kSanitizerSlowdown;
// CPU seconds a point may take per simulated second, when that is more than kPointCpuBudget.
inline constexpr double kRealTimeBudget = 1.0 * kSanitizerSlowdown;

// Runs one point: loads `scene_dir`/case.scene scaled to `condition`, switches the world to `solver` at its
// default parameters (then `params`), measures and judges. Never throws: an unknown solver or parameter, a
// scene that does not load, a step that fails, a run over `cpu_budget` CPU seconds (0: none) or an exception
// during the run is a failed point whose message says so.
CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir, const Condition& condition,
                    const ParamOverrides& params = {}, double cpu_budget = kPointCpuBudget);
// At the case's nominal condition at h = 1/60 s.
CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir);

}  // namespace cl::conformance
