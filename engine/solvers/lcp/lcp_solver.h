// `lcp`: the velocity-level complementarity method of Erleben's thesis (ch. 4 and 6; digest sections 4, 6).
//
// Per step:
//   u*       = u + h M^-1 (f_ext - w x I w)                      free velocity (eq. 4.19, 4.12)
//   lambda   = PGS(J M^-1 J^T, J u* - b)                          normal + 2 friction rows per contact,
//                                                                 friction bounds +-mu lambda_n (digest 6.5)
//   u(t+h)   = u* + M^-1 J^T lambda                               (eq. 6.76d)
//   s(t+h)   = s + h S u(t+h)                                     position update with the new velocity (6.76)
//   s       += M^-1 J_n^T lcp(J_n M^-1 J_n^T, d_pen)              error correction by projection (digest 4.14)
#pragma once

#include <vector>

#include "solvers/solver.h"

namespace cl {

class LcpSolver final : public Solver {
 public:
  LcpSolver();
  static std::span<const ParamSpec> param_specs();

  std::string_view name() const override { return "lcp"; }
  std::unique_ptr<Solver> clone() const override { return std::make_unique<LcpSolver>(*this); }
  void solve_velocities(StepContext& ctx) override;
  void integrate_positions(StepContext& ctx) override;

  // One row in matrix-free form (digest 6.6): J = [-dir, -ang_a | dir, ang_b] (contact rows use the j - i
  // convention, eqs. 4.165-4.166) and B = M^-1 J^T, kept as inv_ang_* = I^-1 ang_* and the inverse masses.
  struct Axis {
    Vec3 dir = Vec3::Zero(), ang_a = Vec3::Zero(), ang_b = Vec3::Zero(), inv_ang_a = Vec3::Zero(), inv_ang_b = Vec3::Zero();
    double inv_diag = 0;  // 1 / (J M^-1 J^T)_ii
    double bias = 0;      // w = J u + bias, >= 0 at the lower bound
    double lambda = 0;    // impulse, N s
  };
  // A contact's rows, solved together so the two bodies' velocities are loaded once per contact:
  // the normal row with bounds [0, inf), then up to two friction rows with bounds +-mu lambda_n.
  struct ContactRows {
    int a, b;
    double inv_mass_a, inv_mass_b, mu;
    int friction_rows;
    Axis normal, friction[2];
  };

 private:
  Axis make_axis(const StepContext& ctx, const Contact& c, const Vec3& dir) const;
  void build_rows(StepContext& ctx);
  void sweep(int iterations, double& residual);

  // Solver bodies: velocities during the solve, inverse mass properties (zero for fixed and kinematic).
  struct Velocity {
    Vec3 v, w;
  };
  std::vector<Velocity> vel_;
  std::vector<double> inv_mass_;
  std::vector<Mat3> inv_inertia_;
  std::vector<ContactRows> rows_;
};

}  // namespace cl
