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

  // One constraint row in matrix-free form (digest 6.6): J = [ja_lin ja_ang | jb_lin jb_ang] and
  // B = M^-1 J^T, with the row's bounds and right-hand side. Hot data, kept contiguous.
  struct Row {
    int a, b;
    Vec3 ja_lin, ja_ang, jb_lin, jb_ang;
    Vec3 ba_lin, ba_ang, bb_lin, bb_ang;
    double inv_diag;  // 1 / (J M^-1 J^T)_ii
    double bias;      // w = J u + bias must be >= 0 at the lower bound
    double lambda;    // impulse, N s
    double lo, hi;
    int normal_row;   // friction rows: index of their normal row (bounds +-mu lambda_n), else -1
    double mu;
  };

 private:
  void build_rows(StepContext& ctx, bool with_friction);
  int sweep(int iterations, double& residual);

  // Solver bodies: velocities during the solve, inverse mass properties (zero for fixed and kinematic).
  std::vector<Vec3> v_, w_;
  std::vector<double> inv_mass_;
  std::vector<Mat3> inv_inertia_;
  std::vector<Row> rows_;
};

}  // namespace cl
