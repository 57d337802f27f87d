// The cross-method conformance suite: closed-form mechanics cases (an incline, a bounce, a pendulum, ...), each
// a scene in scenes/conformance/, run under any registered solver at that solver's default parameters and
// compared with its exact value within a tolerance that each case justifies.
//
// A case reads one figure from the simulation (a speed after 1 s, a stop distance, a period, ...). A cell
// (case x solver) passes when the figure lies within the tolerance of the exact value and no secondary check
// of the case failed (e.g. momentum kept in a collision). A case may mark a solver whose *method* cannot pass
// it, with the paper's argument; such a cell shows its figure as "method" instead of a failure. A bug is
// never marked so. `contactlab --conformance` prints the matrix (conformance/matrix.h).
#pragma once

#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "world/world.h"

namespace cl::conformance {

// What a case read from its run.
struct Reading {
  double value = std::numeric_limits<double>::quiet_NaN();  // the figure compared with the exact value
  std::string violation;  // a failed secondary check, empty if none (e.g. "momentum changed by 0.3 N s")
};

// The world of one cell while a case measures it: steps it and finds its bodies and joints. Every failure
// (a step that reports a non-finite value, a missing body) throws std::runtime_error with a message for the
// matrix; run_case catches it.
class CaseRun {
 public:
  explicit CaseRun(World& world) : world_(world) {}
  World& world() { return world_; }
  const World& world() const { return world_; }
  double time() const { return world_.time(); }

  const Body& body(std::string_view name) const;
  const Joint& joint(std::string_view name) const;
  // Steps until the world's time reaches `t` (s since the start, to the nearest step), calling `each` after
  // every step.
  void until(double t, const std::function<void(const World&)>& each = {});

 private:
  World& world_;
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
  double exact = 0.0;     // the closed-form value
  double tolerance = 0.0;  // a cell passes when |figure - exact| <= tolerance
  std::string exact_source;      // where the exact value comes from (formula and its source)
  std::string tolerance_reason;  // why the tolerance is what it is
  std::function<Reading(CaseRun&)> measure;
  std::vector<MethodLimit> limits;
};

// Every case, in the order of the matrix.
std::span<const Case> cases();
const Case* find_case(std::string_view name);  // nullptr if there is none of that name

enum class Verdict {
  Pass,         // within the tolerance, no violation
  Fail,         // outside it, a violation, a failed step or an error
  MethodLimit,  // fails, and the case marks this solver's method as unable to pass it
};
const char* verdict_name(Verdict v);  // "pass", "FAIL", "method"

struct CellResult {
  std::string case_name;
  std::string solver;
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN when the run gave no figure
  Verdict verdict = Verdict::Fail;
  std::string message;  // why it failed (the deviation, a violation, the step's error), or the method's limit
  double wall_seconds = 0.0;
};

// Runs one cell: loads `scene_dir`/case.scene, switches the world to `solver` at its default parameters (then
// `params`, name and value as --set takes them: e.g. lcp's solver_precision=float, to sweep the matrix at a
// setting), measures and judges. Never throws: an unknown solver or parameter, a scene that does not load, a step
// that fails or an exception during the run is a failed cell whose message says so.
CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir,
                    std::span<const std::pair<std::string, std::string>> params = {});

}  // namespace cl::conformance
