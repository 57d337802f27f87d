#include "solvers/registry.h"

#include <array>

#include "solvers/implicit_penalty/implicit_penalty_solver.h"
#include "solvers/lcp/lcp_solver.h"
#include "solvers/pid_penalty/pid_penalty_solver.h"
#include "solvers/volume/volume_solver.h"

namespace cl {

std::span<const SolverInfo> solver_registry() {
  // Each contact method registers here once it is implemented; the others are planned.
  static const std::array<SolverInfo, 4> registry = {{
      {"lcp", "velocity-level LCP, projected Gauss-Seidel, Coulomb friction cone, error correction by projection",
       "Erleben 2004, Stable, Robust, and Versatile Multibody Dynamics Animation (PhD thesis)",
       "PGS sweeps", "N s", LcpSolver::param_specs(),
       [] { return std::unique_ptr<Solver>(new LcpSolver()); }},
      {"implicit-penalty",
       "point shells against signed distance fields, exact contact gradients, semi-implicit backward Euler "
       "per contact group, joints by Lagrange multipliers with an SVD Schur complement, PD servos",
       "Xu, Zhao, Barbic 2014, Implicit Multibody Penalty-Based Distributed Contact",
       "solves + PGS sweeps", "N s", ImplicitPenaltySolver::param_specs(),
       [] { return std::unique_ptr<Solver>(new ImplicitPenaltySolver()); }},
      {"volume",
       "intersection volumes as unilateral constraints (mono, or per cell), exact for box, sphere and plane pairs "
       "and from layered depth images for meshes and capsules, friction on the volume contact, velocity MLCP by "
       "projected Gauss-Seidel, position post-stabilisation to a regulated volume",
       "Allard et al. 2010, Volume Contact Constraints at Arbitrary Resolution",
       "PGS sweeps", "N s/m^2", VolumeSolver::param_specs(),
       [] { return std::unique_ptr<Solver>(new VolumeSolver()); }},
      {"pid-penalty",
       "impulses for impacts, PID penalty forces on the bottom of the penetration volume for resting contact "
       "(point shells against signed distance fields), substeps of 1 ms, joints by the shared rows",
       "Drumwright 2008, A Fast and Stable Penalty Method for Rigid Body Simulation",
       "substeps", "m/s", PidPenaltySolver::param_specs(),
       [] { return std::unique_ptr<Solver>(new PidPenaltySolver()); }},
  }};
  return registry;
}

const SolverInfo* find_solver(std::string_view name) {
  for (const SolverInfo& info : solver_registry())
    if (info.name == name) return &info;
  return nullptr;
}

std::string solver_names() {
  std::string names;
  for (const SolverInfo& info : solver_registry()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

}  // namespace cl
