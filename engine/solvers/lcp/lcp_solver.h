// `lcp`: the velocity-level complementarity method of Erleben's thesis (ch. 4-6; digest sections 4-8).
//
// Per step, for each contact group that is awake:
//   u*      = u + h M^-1 (f_ext - w x I w)                       free velocity (eqs. 4.19, 4.12)
//   lambda  = PGS(J M^-1 J^T, J u* - b)                           contact rows (normal + 2 friction, bounds
//                                                                 +-mu lambda_n) and joint rows (digest 6.5)
//   u(t+h)  = u* + M^-1 J^T lambda                                (eq. 6.76d)
//   s(t+h)  = s + h S u(t+h)                                      position update with the new velocity (6.76)
//   s      += M^-1 J_n^T lcp(J_n M^-1 J_n^T, d_pen)               error correction by projection (digest 4.14)
// With shock propagation (thesis 6.4, digest 8.5) the velocity solve is split: a dynamics step of
// fraction f over the whole group, then the remaining (1 - f) h layer by layer bottom-up with each layer's
// bottom bodies held fixed; the projection also runs layer by layer. Groups that are asleep are skipped.
#pragma once

#include <vector>

#include "graph/sleep.h"
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
  void reset() override { joint_lambda_.clear(); }

  // One row in matrix-free form (digest 6.6): J = [-dir, -ang_a | dir, ang_b] (contact rows use the j - i
  // convention, eqs. 4.165-4.166) and B = M^-1 J^T, kept as inv_ang_* = I^-1 ang_* and the inverse masses.
  struct Axis {
    Vec3 dir = Vec3::Zero(), ang_a = Vec3::Zero(), ang_b = Vec3::Zero(), inv_ang_a = Vec3::Zero(),
         inv_ang_b = Vec3::Zero();
    double inv_diag = 0;  // 1 / (J M^-1 J^T)_ii
    double bias = 0;      // w = J u + bias, >= 0 at the lower bound
    double lambda = 0;    // impulse, N s
  };
  // A contact's rows, solved together so the two bodies' velocities are loaded once per contact:
  // the normal row with bounds [0, inf), then up to two friction rows with bounds +-mu lambda_n.
  struct ContactRows {
    int a, b;
    int contact;  // index into the step's contacts
    double inv_mass_a, inv_mass_b, mu;
    int friction_rows;
    Axis normal, friction[2];
  };
  // A joint row (digest 4.11): general Jacobian blocks, boxed bounds, CFM; w = J u - target + cfm lambda.
  struct JointRow {
    int a, b;
    Vec3 ja_lin, ja_ang, jb_lin, jb_ang;  // J
    Vec3 ba_lin, ba_ang, bb_lin, bb_ang;  // M^-1 J^T
    double inv_diag, target, lo, hi, cfm, lambda;
    int joint, kind, slot;
  };

 private:
  // The parameters as plain fields, read once per step.
  struct Settings {
    int iterations, correction_iterations, friction_directions, sleep_steps;
    bool warm_start, shock_propagation, sleeping;
    double restitution_threshold, allowed_penetration, tolerance, shock_fraction, sleep_energy;
    void read(const ParamSet& p);
  };
  Settings set_{};
  struct Velocity {
    Vec3 v, w;
  };
  // Inverse mass and inertia of every body (zero for fixed and kinematic ones); hold() zeroes them for
  // bodies a layer keeps fixed, release() restores them.
  void load_masses(const StepContext& ctx);
  void hold(const std::vector<int>& bodies);
  void release(const StepContext& ctx, const std::vector<int>& bodies);
  Axis make_axis(const StepContext& ctx, const Contact& c, const Vec3& dir) const;
  // Whole: a group without shock propagation; First: its dynamics step of fraction f; Layers: the rest.
  enum class Phase { Whole, First, Layers };
  ContactRows make_contact_rows(const StepContext& ctx, int k, Phase phase);
  JointRow make_joint_row(const ConstraintRow& row) const;
  // Returns the number of sweeps done (fewer than `iterations` when the tolerance is met).
  int sweep(std::vector<ContactRows>& contacts, std::vector<JointRow>& joints, int iterations, double& residual);
  void add_free_velocity(const std::vector<int>& bodies, double fraction);
  void solve_group(StepContext& ctx, const ContactGroup& group, int group_index);
  void project_group(StepContext& ctx, const ContactGroup& group, int group_index);
  void classify_groups(const StepContext& ctx);
  bool frozen(const StepContext& ctx, int body) const;
  void collect_joint_rows(const StepContext& ctx);

  // Per body: velocities during the solve, inverse mass properties of the current phase.
  std::vector<Velocity> vel_;
  std::vector<double> inv_mass_;
  std::vector<Mat3> inv_inertia_;
  // Rows of the current phase.
  std::vector<ContactRows> rows_;
  std::vector<JointRow> joint_rows_;
  // Joint rows of this step (built once), by group, and their impulses for warm starting the next step.
  std::vector<ConstraintRow> constraint_rows_;
  std::vector<int> constraint_group_;
  std::vector<std::vector<double>> joint_lambda_;  // per joint, per row slot (ConstraintRow::slot)
  // Contact impulses accumulated over the phases of this step, per contact.
  std::vector<double> normal_total_;
  std::vector<Vec3> friction_total_;
  std::vector<double> layer_normal_;  // the part solved in the layers (shock propagation)
  std::vector<Vec3> layer_friction_;
  std::vector<char> solved_;  // per contact: solved this step (its group was awake)
  std::vector<double> bounce_;  // per contact: the restitution target of this step (0: none)
  // Per body: the free velocity increments of the whole step (gravity, forces, gyroscopic term).
  std::vector<Vec3> free_linear_, free_angular_;
  int group_sweeps_ = 0;
  // Per contact group, decided once per step by classify_groups.
  std::vector<char> group_awake_, group_shock_;  // most PGS sweeps any group needed this step (telemetry)
};

}  // namespace cl
