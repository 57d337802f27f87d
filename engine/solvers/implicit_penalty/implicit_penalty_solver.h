// `implicit-penalty`: the method of Xu, Zhao and Barbic 2014, "Implicit Multibody Penalty-Based Distributed Contact"
// (docs/references.md).
//
// Per step:
//   contacts   every body carries a point shell and a signed distance; for each touching pair, the points of
//              each body inside the other's field give penalty forces F = k d N along the point's normal,
//              with damping, and their exact gradients                                 (sec. 4.1-4.2, eq. 19-51)
//              contact_model physical (default): depths from the other body's surface grown by `skin` (a pair
//              touching at rest: by its penetration), so that a pair placed touching carries its load from its
//              first step (pairs with a mesh: none); a box's shell fitted to its size (box_points); the pair's
//              stiffness K = m g0 / p (m the weight passed down through it from the stack above, at least the
//              reduced mass; p = penetration, at most penetration_ratio of the smaller body, or less in a stack
//              so that its column of compliant contacts cannot buckle (stack_margin; not for round or mesh
//              pairs); set at first touch, raised afterwards only while the contact is shallow) and its damping
//              from the restitution are shared among its penetrating points (eq. 77 with N0 = 1); damping acts
//              on the depth's rate only; forces on a plane, a round body or a box face act along the field
//              body's normal (field_direction). per_point: the paper's k and k_d per point, eq. 41's damping on
//              the whole relative velocity, k scaled down past N0 points (eq. 77)
//   friction   per_point: anchored springs per contact point, released into Coulomb sliding and re-anchored
//              when the sliding stops, integrated explicitly                           (sec. 4, [14])
//              physical: after the implicit step, one friction patch per pair (patch_friction.h): tangent and
//              twist rows bounded by mu times the pair's normal impulse in the step, tilt rows bounded by it
//              times the patch's reach, solved by the shared projected Gauss-Seidel (our change: explicit
//              anchors take their normal force from the depth at the start of the step, which overshoots after
//              an impact or a tilt; a box then stops short)
//   servos     PD forces along sliders, with gradients                                 (eq. 65)
//   groups     per contact group (joints join groups): G dS = h Z                      (eq. 15-18)
//              with joints, [G -h W^T; J 0] [dS; lambda] = [h Z; -h d] through the Schur complement and an
//              SVD pseudo-inverse, Baumgarte-stabilised constraints at the velocity level (eq. 52-64, 66;
//              without eq. 58's velocity products, see baumgarte_bias)
//   update     P += dP, L += dL, x += h v, rotation by h V w                             (eq. 2-13)
//   joints     optionally projected back onto their constraints (our addition, `joint_projection`)
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "solvers/implicit_penalty/implicit_integrator.h"
#include "solvers/implicit_penalty/pair_contact.h"
#include "solvers/implicit_penalty/plane_ball.h"
#include "solvers/implicit_penalty/penalty_contact.h"
#include "collision/shell_points.h"
#include "constraints/pgs.h"
#include "constraints/row.h"
#include "solvers/solver.h"

namespace cl {

class ImplicitPenaltySolver final : public Solver {
 public:
  ImplicitPenaltySolver();
  static std::span<const ParamSpec> param_specs();

  std::string_view name() const override { return "implicit-penalty"; }
  std::unique_ptr<Solver> clone() const override { return std::make_unique<ImplicitPenaltySolver>(*this); }
  void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) override;
  // The pair's shell queries walk their sphere trees on the pool's threads (find_penetrating_points).
  void collide_on_threads(TaskPool& pool, const std::vector<Body>& bodies, int ia, int ib, double margin,
                          ContactList& out) override;
  bool concurrent_collide() const override { return true; }
  void solve_velocities(StepContext& ctx) override;
  void integrate_positions(StepContext& ctx) override;
  void report_contacts(const StepContext& ctx, ContactReport& out) const override;
  // Touching, where the physical model's springs already act (from `skin` outside the surfaces on); without a
  // skin, or under the per-point model, the depth at which a resting load is held, `penetration`.
  double continuous_depth() const override {
    return set_.model == ContactModel::Physical && set_.skin > 0.0 ? 0.0 : set_.penetration;
  }
  // Not between dynamic bodies: a body put back to where it first touches another keeps its speed while the
  // springs of its other contacts are compressed anew; on the falling meshes of volume_pile.json, whose soft
  // contacts already gain energy (925 J in 200 steps without continuous collision), that blew the pile up
  // (674 kJ, past max_speed at step 149). Its pairs of dynamic bodies meet through their springs alone.
  bool continuous_between_dynamic_bodies() const override { return false; }
  // The touching bodies go back with a stopped one: a 6 m plank put back at its first touch of the ground while the
  // 125 kg box on it was not was left 2.6 cm into it, and its spring threw the box (scenes/seesaw.json: 1366 J to
  // 2118 J at step 37).
  bool continuous_moves_touching() const override { return true; }
  void reset() override;
  std::vector<std::string> unsupported(const SceneFeatures& scene) const override;

  // Timings of the last step's parts, for the per-stage split (collision is the world's narrow phase).
  struct Profile {
    double forces = 0.0;    // s: contact, friction and servo forces with their gradients
    double assembly = 0.0;  // s: G and Z (and the joint rows)
    double solve = 0.0;     // s: the sparse (and Schur) solves
  };
  const Profile& profile() const { return profile_; }

 private:
  // collide(), its shell queries on `pool`'s threads when given.
  void collide_pair(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out, TaskPool* pool);
  enum class ContactModel { Physical, PerPoint };
  static constexpr double kStandardGravity = 9.81;  // m/s^2: g0 of the physical model's stiffness
  // m: the least mean depth of the physical model, the parameter `penetration`'s lower bound and the floor of the
  // stacks' rule (pair_penetration).
  static constexpr double kLeastPenetration = 1e-5;
  struct Settings {
    ContactModel model;
    double penetration, penetration_ratio, skin, stack_margin;
    double stiffness, damping, friction_stiffness, dynamic_ratio, slip_speed, point_spacing, baumgarte;
    double limit_stiffness, limit_damping;
    int friction_iterations;
    int threshold, projection, box_points;
    implicit_penalty::GradientMode gradients;
    implicit_penalty::Integrator integrator;
  };
  static const ParamTable<Settings>& table();
  void read_settings() override;
  // The penetrating points of one pair a < b, as the narrow phase found them: a's points inside b's field
  // and b's points inside a's.
  struct PairPoints {
    std::vector<PenetratingPoint> a_in_b, b_in_a;
    double skin = 0.0;  // m: their depths are below the surfaces grown by this (collide, then trim_skin)
  };
  // A friction anchor (sec. 4): where the contact point was pinned, in the field body's frame.
  struct Anchor {
    Vec3 local{0, 0, 0};
    bool sliding = false;
  };
  using PairKey = std::pair<int, int>;
  // Key of one penetrating point's anchor: the point's index, with bit 31 set for b's points.
  static uint32_t anchor_key(bool b_points, int index) { return implicit_penalty::shell_point_key(b_points, index); }

  // The gains of one touching pair with `count` penetrating points, per point.
  struct PairGains {
    double k = 0.0;          // N/m: penalty stiffness
    double k_d = 0.0;        // N s/m: damping
    bool depth_damping = false;  // damping of the depth's rate only (add_depth_damping), else eq. 41
    double implicitness = 1.0;   // the share of the penalty gradient stepped implicitly (pair_gains)
    double anchor_k = 0.0;   // N/m: static friction anchor spring
    double anchor_c = 0.0;   // N s/m: damping of a held anchor on the tangential velocity
    std::optional<implicit_penalty::PlaneBall> exact;  // a ball on a plane: its exact depth (plane_ball.h)
    bool holding = false;    // the impact's damping holds the contact in for this step (impact_damping)
  };
  // What a touching pair keeps from step to step while it touches (forgotten when it separates).
  struct Touch {
    double impact = 0.0;     // m/s: its approach speed at first touch
    double stiffness = 0.0;  // N/m: its total stiffness K (pair_stiffness); 0 until the first set
    double skin = 0.0;       // m: the gap its springs act from (at most; contact_forces)
    // The share of its weight a pair that first touched at rest carries along its normal, |g . N| / g0 (at most
    // 1; 1 after an impact): its springs act from `penetration` times this, where K carries that share.
    double load_share = 1.0;
    bool held = false;  // the last step's impact damping held the contact in (impact_damping)
    // Unit, pushing b out of a: the direction of the pair's penalty pressure in its last step (pair_normal, or a
    // ball's on a plane exactly), which its contact report gives.
    Vec3 normal{0, 0, 0};
  };
  PairGains pair_gains(const PairKey& pair, int count, double restitution, double dt, double resting_speed,
                       const implicit_penalty::PairNormal& contact, double approach, const Touch& touch) const;
  // The pair's stiffness (pair_stiffness.cpp).
  // Sets touch.stiffness, the pair's total stiffness K of the physical model, for the mean depth `penetration`.
  void pair_stiffness(const PairKey& pair, const implicit_penalty::PairNormal& contact, double penetration,
                      Touch& touch) const;
  // m: the mean depth at which the physical model holds the pair's load: `penetration`, or less in a stack
  // whose contacts would otherwise let it buckle.
  double pair_penetration(const StepContext& ctx, const PairKey& pair, const PairPoints& points) const;
  static void trim_skin(PairPoints& points, double skin);
  double shell_spacing(const Shape& shape) const;  // m: the point shell spacing of a body of this shape
  double shape_penetration(const Shape& shape) const;  // m: the resting depth for a body of this shape
  void find_loads(const StepContext& ctx);
  void motor_loads(const StepContext& ctx);  // the motors' push on the contacts they drive, into carried_
  void contact_forces(const StepContext& ctx);
  void friction_forces(const StepContext& ctx, const PairKey& pair, double mu, const PairGains& gains);  // friction_stage.cpp
  void solve_groups(StepContext& ctx);
  int coulomb_friction(StepContext& ctx);  // the projected Gauss-Seidel sweeps it took (friction_stage.cpp)
  void add_joint_rows(const StepContext& ctx);  // the joints' rows of the friction solve (friction_stage.cpp)
  void project_joints(StepContext& ctx);

  Settings set_{};
  std::map<PairKey, PairPoints> points_;  // filled by collide(), read by the solve
  // Guards points_ and the sub-stage times while pairs are collided on several threads. A copy gets its own.
  struct CollideLock {
    std::mutex mutex;
    CollideLock() = default;
    CollideLock(const CollideLock&) {}
    CollideLock& operator=(const CollideLock&) { return *this; }
  };
  CollideLock collide_lock_;
  // Per pair collided in the last narrow phase: its two shell queries' bounds from step to step (a's points in
  // b's field, b's in a's), which let a query skip the points that cannot have come inside since.
  struct ShellCaches {
    ShellQueryCache a_in_b, b_in_a;
    bool used = false;  // collided since the last velocity stage
  };
  std::map<PairKey, ShellCaches> shell_caches_;
  std::map<PairKey, std::unordered_map<uint32_t, Anchor>> anchors_;
  std::map<PairKey, Touch> touches_;
  std::vector<implicit_penalty::IntegratorBody> state_;
  std::vector<implicit_penalty::PairForce> forces_;
  std::vector<Vec3> rotation_;  // dtheta of each body for the position stage
  std::vector<Vec3> momentum_;  // angular momentum L(t+h) of each dynamic body
  std::vector<double> load_;  // kg: the mass of each body's contact group at or above its stack height
  std::vector<Vec3> load_centre_;  // m: the centre of mass of those bodies
  std::map<PairKey, double> carried_;  // kg: the weight each touching pair holds up, and the motors' push (find_loads)
  // Each pair's normal from its points as collided, found once per velocity stage (find_loads) and read until the
  // pair's skin is trimmed.
  std::map<PairKey, implicit_penalty::PairNormal> normals_;
  std::map<PairKey, PairGains> gains_;  // of the last velocity stage, for the friction rows
  std::vector<Row> friction_rows_;
  std::vector<JointRow> joint_rows_;  // scratch: the joints' rows before they join friction_rows_
  std::vector<BodyVelocity> velocities_;
  std::vector<InverseMass> inverse_masses_;
  std::vector<std::vector<int>> groups_, group_joints_;  // of the last velocity stage
  // The groups' sparse LU factors by group index, kept from step to step (GroupFactor); a copy starts afresh.
  struct FactorCache {
    std::vector<std::unique_ptr<implicit_penalty::GroupFactor>> groups;
    FactorCache() = default;
    FactorCache(const FactorCache&) {}
    FactorCache& operator=(const FactorCache&) { return *this; }
  };
  FactorCache factors_;
  Profile profile_;
};

}  // namespace cl
