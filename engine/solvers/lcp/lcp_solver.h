// `lcp`: the velocity-level complementarity method of Erleben's thesis (ch. 4-6).
//
// Per step, for each contact group that is awake:
//   u*      = u + h M^-1 (f_ext - w x I w)                       free velocity (eqs. 4.19, 4.12)
//   lambda  = PGS(J M^-1 J^T, J u* - b)                           contact rows (normal + 2 friction, bounds
//                                                                 +-mu lambda_n) and joint rows (thesis sect. 6.1.4)
//   u(t+h)  = u* + M^-1 J^T lambda                                (eq. 6.76d)
//   s(t+h)  = s + h S u(t+h)                                      position update with the new velocity (6.76)
//   s      += M^-1 J_n^T lcp(J_n M^-1 J_n^T, d_pen)               error correction by projection (thesis sect. 4.16)
// With shock propagation (thesis sect. 6.4, Fig. 6.56) the velocity solve is split: a dynamics step of
// fraction f over the whole group, then the remaining (1 - f) h layer by layer bottom-up with each layer's
// bottom bodies held fixed (each layer's PGS with its own sweeps, layer_iterations); the projection also runs
// layer by layer. Groups that are asleep are skipped.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "constraints/friction_balance.h"
#include "constraints/pgs.h"
#include "constraints/pgs_contacts.h"
#include "core/step_cache.h"
#include "graph/sleep.h"
#include "solvers/lcp/stack_warm_start.h"
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
  void report_contacts(const StepContext& ctx, ContactReport& out) const override;
  // The penetration the error correction leaves in place: a contact there is found whatever the margin.
  double continuous_depth() const override { return set_.allowed_penetration; }
  double recycle_distance() const override { return set_.recycle_distance; }
  void reset() override {
    joint_warm_.clear();
    compact_->clear();
    projection_->clear();
    *lane_values_ = ContactLaneValues();
    *ahead_values_ = ContactLaneValues();
  }
  std::vector<std::string> unsupported(const SceneFeatures& scene) const override;

  // The parameters as plain fields (see param_specs for units and meaning), read once per step.
  struct Settings {
    int iterations, joint_sweeps, layer_iterations, correction_iterations, friction_directions, friction_cone;
    int sleep_steps, precision;
    bool warm_start, stack_warm_start, shock_propagation, global_correction, sleeping, vector_lanes, coloured;
    double restitution_threshold, allowed_penetration, tolerance, layer_tolerance, first_tolerance, shock_fraction;
    double sleep_energy, recycle_distance;
  };

 private:
  static const ParamTable<Settings>& table();
  void read_settings() override;
  Settings set_{};
  // Where a contact's rows sit in rows_: the normal row, then its friction rows.
  struct ContactBlock {
    int contact;    // index into the step's contacts
    int first_row;  // the normal row
    int friction_rows;
  };
  // Inverse masses of the current phase (or of `masses`): hold() zeroes them for bodies a layer keeps fixed,
  // release() restores them.
  void hold(const std::vector<int>& bodies) { hold(bodies, masses_); }
  void release(const StepContext& ctx, const std::vector<int>& bodies) { release(ctx, bodies, masses_); }
  static void hold(const std::vector<int>& bodies, std::vector<InverseMass>& masses);
  static void release(const StepContext& ctx, const std::vector<int>& bodies, std::vector<InverseMass>& masses);
  // Whole: a group without shock propagation; First: its dynamics step of fraction f; Layers: the rest.
  enum class Phase { Whole, First, Layers };
  // Rows of a contact: its normal row and its friction rows.
  int contact_row_count(const Contact& c) const;
  // Contact k as this phase solves it: lever arms, directions, normal target, warm start.
  void contact_point(const StepContext& ctx, int k, Phase phase, ContactPoint& p);
  // Hands contact k's rows (normal, then friction) to put, for rows_ from index `first` on.
  template <class Put>
  void write_contact_rows(const StepContext& ctx, int k, Phase phase, int first, Put&& put);
  // Appends the rows of these graph edges' contacts to rows_ and their blocks to blocks_.
  void add_contacts(const StepContext& ctx, const std::vector<int>& edges, Phase phase);
  // The change of a top body's velocity below which a stack layer's round of sweeps has settled it.
  double layer_stop_speed(const StepContext& ctx, PgsPrecision precision) const;
  // The change of a body's velocity below which a round of shock propagation's first phase has settled it.
  double first_stop_speed(const StepContext& ctx, PgsPrecision precision) const;
  // The speed below which a stack layer leaves a top body at rest.
  double rest_speed(const StepContext& ctx, PgsPrecision precision) const;
  // Solves these graph edges' contacts through the compact contact path; false when it does not take them.
  // `settle`: the bodies whose velocities end the sweeps (sweep_layer; a stack layer's top bodies, or the whole
  // group's in shock propagation's first phase), else null; `speed` the change of their velocities that settles them.
  bool solve_compact(const StepContext& ctx, const std::vector<int>& edges, Phase phase, const PgsSettings& pgs,
                     const std::vector<int>* settle, double speed, PgsResult& result);
  // The first half of solve_compact: the edges' contacts gathered into `set` and laid out in the next lanes (or
  // those at `slot` in compact_), which see these inverse masses and keep their values in `values`. Rows: the path
  // does not take them; Empty: there are none.
  enum class Layout { Rows, Empty, Lanes };
  // A compact solve's contacts (indices into the step's), their bodies, their points as its lanes take them, and
  // its lanes (an index into compact_, or projection_).
  struct CompactSet {
    std::vector<int> contacts;
    std::vector<ContactBodies> keys;
    std::vector<ContactPoint> points;
    size_t lanes = 0;
    Layout layout = Layout::Empty;
  };
  Layout lay_out_compact(const StepContext& ctx, const std::vector<int>& edges, Phase phase, const PgsSettings& pgs,
                         CompactSet& set, std::span<const InverseMass> masses, ContactLaneValues* values,
                         std::optional<size_t> slot = std::nullopt);
  // The second half: the contacts of `set`, laid out in its lanes, written, warm started and swept.
  void solve_laid_out(const StepContext& ctx, CompactSet& set, Phase phase, const PgsSettings& pgs,
                      const std::vector<int>* settle, double speed, PgsResult& result);
  // A contact's impulses as balance_friction reads them: its index, normal impulse and friction impulse.
  struct FrictionOf {
    int contact;
    double normal;
    Vec3 friction;
  };
  // Moves the friction impulses of one touching pair's contacts first..first + count - 1 of a solve to where they
  // leave the points' discs the most room, without changing their effect (constraints/friction_balance.h): get(i)
  // gives the i-th contact's FrictionOf, set(i, f) sets its friction impulse. Contacts whose normals differ (a
  // curved pair's) are left alone.
  template <class Get, class Set>
  void balance_friction(const StepContext& ctx, int first, int count, Get&& get, Set&& set);
  // The least speed a contact's whole friction must be worth for its pair to be balanced (near_disc_edge).
  double balance_speed(const StepContext& ctx) const;
  // A contact's friction impulse from its tangent rows: in rows_ (its block), or in the compact path's lanes (its
  // index i among their contacts, whose points are `points`).
  Vec3 block_friction(const ContactBlock& block) const;
  Vec3 lane_friction(const ContactPgs& lanes, std::span<const ContactPoint> points, int i) const;
  // Whether a solve's lanes keep values of their own, not lane_values_: a large first phase's on several threads,
  // whose impulses are read back on one while the stack's layers are solved on another (solve_group).
  static bool own_lane_values(const StepContext& ctx, Phase phase, int contacts);
  void add_free_velocity(const std::vector<int>& bodies, double fraction);
  // Leaves at rest every dynamic body of `bodies` whose points all move no faster than `speed` (rest_speed).
  void leave_at_rest(const StepContext& ctx, const std::vector<int>& bodies, double speed);
  void solve_group(StepContext& ctx, const ContactGroup& group, int group_index);
  // Returns the PGS sweeps it took (summed over its layers).
  int project_group(StepContext& ctx, const ContactGroup& group, int group_index);
  void classify_groups(const StepContext& ctx);
  bool frozen(const StepContext& ctx, int body) const;
  void collect_joint_rows(const StepContext& ctx);

  // Per body: velocities during the solve (displacements during the projection), inverse masses of the
  // current phase, and the free velocity change of the whole step (gravity, applied forces).
  std::vector<BodyVelocity> vel_;
  std::vector<InverseMass> masses_;
  std::vector<BodyVelocity> free_;
  std::vector<BodyVelocity> layer_start_;  // a stack layer's top bodies' velocities at the start of a round of sweeps
  // Per body: its pose at the start of the position update, so that the projection moves each contact point
  // with its body's whole rigid motion of the step.
  std::vector<Vec3> start_position_;
  std::vector<Mat3> turn_;  // its rotation in the position update (its orientation now times the start's inverse)
  // Per contact, in the projection: its excess depth before any displacement, once found (NaN until then).
  std::vector<double> excess_before_;
  // Rows of the current phase: the group's joint rows first, then its contacts' rows.
  std::vector<Row> rows_;
  std::vector<ContactBlock> blocks_;
  // The compact contact path's solves, in the order the step takes them (each keeps its layout for the same solve
  // of the next step; a copy of the solver starts without them), the next one's index, and the contacts of the
  // current one with their constraints as the lanes take them (and the tangents the impulses are added along).
  StepCache<std::vector<ContactPgs>> compact_, projection_;
  StepCache<ContactLaneValues> lane_values_;  // shared by every compact solve's lanes (one at a time)
  size_t compact_next_ = 0, projection_next_ = 0;
  CompactSet gathered_;  // the current solve's
  // The layout of the next solve_compact, when it was made ahead (the first phase's, beside the stack's balance).
  std::optional<Layout> laid_out_;
  // A large first phase's contacts and points, kept for reading its impulses back beside the layers.
  CompactSet first_;
  // A large stack's layers, taken in turn by two threads (solve_group): by the parity of the layer, its set, the
  // values of its lanes, and the inverse masses they see (its bottom held).
  CompactSet ahead_[2];
  StepCache<ContactLaneValues> ahead_values_;
  std::vector<InverseMass> ahead_masses_[2];
  std::vector<FrictionPoint> balance_points_;  // one pair's points in balance_friction
  std::vector<std::pair<int, int>> full_discs_;  // blocks of the compact path to balance
  // Joint rows of this step (built once), the contact group of each, and their impulses kept for warm starts.
  std::vector<JointRow> joint_rows_;
  std::vector<int> joint_row_group_;
  JointWarmStart joint_warm_;
  // Contact impulses accumulated over the phases of this step, per contact.
  std::vector<double> normal_total_;
  std::vector<Vec3> friction_total_;
  std::vector<double> layer_normal_;  // the part solved in the layers (shock propagation)
  std::vector<Vec3> layer_friction_;
  StackWarmStart stack_warm_;  // the first phase's normal impulses to start from, under shock propagation
  std::vector<char> solved_;  // per contact: solved this step (its group was awake)
  std::vector<double> bounce_;  // per contact: the restitution target of this step (0: none)
  int group_sweeps_ = 0;  // most PGS sweeps any group needed this step (telemetry)
  // Per contact group, decided once per step by classify_groups.
  std::vector<char> group_awake_, group_shock_, group_stacked_;
};

}  // namespace cl
