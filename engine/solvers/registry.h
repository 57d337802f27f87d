// The contact methods known by name: what the scene format, --solver, the viewer and the docs list.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "solvers/solver.h"

namespace cl {

// A contact method known by name. `make` returns a solver with default parameters.
struct SolverInfo {
  std::string name;
  std::string method;  // one line: what the method is
  std::string paper;   // the paper, short citation (docs/references.md gives the full one)
  // What SolverStats::iterations counts and the unit of SolverStats::residual (the labels of the --compare
  // columns; docs/solvers.md's "What the solvers report" says them in full).
  std::string iterations_unit;
  std::string residual_unit;
  std::span<const ParamSpec> params;
  std::function<std::unique_ptr<Solver>()> make;
};

std::span<const SolverInfo> solver_registry();
const SolverInfo* find_solver(std::string_view name);
// Comma-separated list of registered names, for error messages.
std::string solver_names();

}  // namespace cl
