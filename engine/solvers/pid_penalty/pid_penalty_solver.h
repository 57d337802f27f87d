// `pid-penalty`: Drumwright, "A fast and stable penalty method for rigid body simulation": impulses for impacts,
// multi-point PID penalty forces for resting contact.
//
// Narrow phase (appendix I-A), contact_points.cpp, at the world's step and again within it for a pair whose bodies
// have moved relative to each other by more than the contact margin since (reread_moved_pairs). Pairs with a mesh: every body carries a point shell
// (collision/shell_points.h, shared with `implicit-penalty`); a pair's candidate points are each body's points
// inside, or within the world's contact margin of, the other's signed distance; the normal is eq. 4's
// minimum-translation facet normal. Pairs of primitives (our change, for speed): the candidates are the shared
// narrow phase's exact contact points (box corners, the clipped face polygon of two boxes, a ball's centre with
// its radius), depths read against the reference face's plane or the other body's exact distance. Either way
// the bottom of the penetration volume (sect. III-A, bottom_polygon.h) is built from the candidates.
//
// The world's step h_w is split into substeps no longer than `substep` (the paper: 1e-3 s); under the explicit
// integrators shorter where a pair's stiffness needs it for the explicit springs to stay stable (stable_substep).
// Per substep:
//   state     each touching pair is Separated, Impact or Penalty (Fig. 2): a pair that comes into touch approaching
//             faster than eps = `impact_speed` is an impact, else a resting (penalty) contact; a penalty pair stays
//             one until it separates, or until a third body strikes one of its bodies (impacts.cpp)
//   impacts   sequential frictional impulses with restitution at the centroid of each impacting pair's touching
//             points (Baraff; sliding impulses as Moore-Wilhelms and Guendelman et al.), repeated until no impacting
//             pair approaches; an impact the passes leave at rest or approaching is resting from then on
//   forces    at each bottom point rho of a penalty pair, along the contact normal (eq. 3):
//               |f(rho)| = max{(k_p d(rho) - k_v v(rho) + k_i I) / r, 0}
//             r the number of points that carry force, d the point's depth, v the normal relative velocity,
//             I = sum_i lambda^(t-i-1) max_y d(y, i) (eq. 2) the pair's forgetting integral of its deepest
//             penetration; gains k = gain M, M the mass the contact carries (`gains` load) or m_1 + m_2 (`gains`
//             masses, sect. III-C); `deepest_point` mode: the deepest point alone (the paper's baseline). The
//             implicit integrator (default) takes the whole of eq. 3 linearly implicitly (solve_springs), semi-
//             implicit Euler the k_v term alone (damp_implicitly), RK4 none of it. Friction: a tangential
//             spring-damper on the pair's accumulated slip (static friction), saturated at mu times the pair's
//             normal force (Coulomb sliding) (penalty_forces.cpp)
//   joints    the shared joint rows (joints/joint.h) by the shared projected Gauss-Seidel on the new velocities
//   update    x += h v with the new velocities (implicit_springs.cpp, integrate.cpp), or the paper's RK4 on the forces
#pragma once

#include <map>
#include <span>
#include <vector>

#include "collision/shell_points.h"
#include "joints/joint.h"
#include "solvers/pid_penalty/spring_system.h"
#include "solvers/solver.h"

namespace cl {

class PidPenaltySolver final : public Solver {
 public:
  PidPenaltySolver();
  static std::span<const ParamSpec> param_specs();

  std::string_view name() const override { return "pid-penalty"; }
  std::unique_ptr<Solver> clone() const override { return std::make_unique<PidPenaltySolver>(*this); }
  void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) override;
  // collide() updates each pair's state machine (impact or penalty, the integral term) in place: pairs one at a
  // time.
  bool concurrent_collide() const override { return false; }
  void solve_velocities(StepContext& ctx) override;
  void integrate_positions(StepContext& ctx) override;
  // The depth at which a resting load is held (by k_p alone: g / proportional_gain), so that the world's continuous
  // collision lets a contact deepen that much in a step. At 0 a 0.2 mm sheet landing tilted, which pivots on its
  // edge, was put back at the start of the step, step after step: the straight line between its poses dips its
  // edge 30 um below the ground, past the quarter of its half thickness allowed without.
  double continuous_depth() const override;
  void report_contacts(const StepContext& ctx, ContactReport& out) const override;
  void reset() override;
  // unsupported(): the default, nothing: materials (restitution through the impacts) and joints (the shared rows).

  enum class Mode { Separated, Impact, Penalty };  // a pair's contact phase (Fig. 2)

  // What the last step left of one touching pair, for the viewer and the tests.
  struct PairView {
    int a = -1, b = -1;
    Mode mode = Mode::Separated;
    Vec3 normal{0, 1, 0};   // from a to b
    double integral = 0.0;  // I of eq. 2, m
    double deepest = 0.0;   // max_y d(y), m
    struct Point {
      Vec3 position{0, 0, 0};           // world
      double depth = 0.0;               // m
      double p = 0.0, i = 0.0, d = 0.0;  // N: k_p d / r, k_i I / r and -k_v v / r (before the max with 0)
      bool loaded = false;              // carries force (r counts it)
    };
    std::vector<Point> bottom;          // the points forces act at (the bottom polygon, or the deepest point)
    Vec3 friction{0, 0, 0};             // N, on b, at the centre of the normal forces
    Vec3 centre{0, 0, 0};               // world: the centre of the normal forces
  };
  const std::vector<PairView>& pair_views() const { return views_; }
  // Each pair's bottom polygon in its state's colour (penalty green, impact red), and at each of its points the
  // P, I and D parts of its force stacked along the normal (blue, yellow, magenta; the largest point force of
  // the step drawn 0.3 m long), and the friction force at the centre (orange).
  // Drawn on kDebugMethod.
  void draw_debug(const DebugScene& scene, DebugDraw& draw) const override;
  unsigned debug_layers() const override { return kDebugMethod; }

 private:
  enum class PointMode { MultiPoint, DeepestPoint };
  enum class Integrator { ImplicitEuler, SemiImplicitEuler, Rk4 };
  enum class GainModel { Load, Masses };
  enum class FrictionModel { Spring, Rows };
  struct Settings {
    PointMode points;
    GainModel gains;
    double kp, kv, ki, forgetting, impact_speed, substep, least_substep, point_spacing, point_damping;
    Integrator integrator;
    FrictionModel friction;
    double friction_lock, tilt_lock;
    int impact_passes, joint_iterations;
  };
  static const ParamTable<Settings>& table();
  void read_settings() override;

  // A candidate point of a pair: a point of one body's shell, in that body's frame.
  struct Candidate {
    bool of_b = false;   // a point of b inside a's field (else of a inside b's)
    Vec3 local{0, 0, 0};
    // m: 0 for a surface point; for a primitive pair's sphere or capsule, `local` is its centre or a point of its
    // axis and the surface lies this far from it towards the other body: the depth is radius - phi, which stays
    // exact while the ball rolls (a point of its surface turns away from the contact).
    double radius = 0.0;
    // At the narrow phase: its depth (m, > 0 inside), its distance from its own body's centre and from the other
    // body's centre (m). With how far the two bodies have moved since (Drift), they bound its depth without a
    // distance query (may_touch).
    double depth0 = 0.0, reach = 0.0, field_reach = 0.0;
  };
  // How far each body of a pair has moved since the narrow phase: its centre's displacement (m) and the angle it
  // has turned (rad).
  struct Drift {
    double move_a = 0.0, turn_a = 0.0, move_b = 0.0, turn_b = 0.0;
    double slope_a = 1.0, slope_b = 1.0;  // the Lipschitz bounds of a's and b's distances (distance_slope)
    double speed_a = 0.0, spin_a = 0.0, speed_b = 0.0, spin_b = 0.0;  // |v| (m/s) and |w| (rad/s) now
  };
  struct Pair {
    Mode mode = Mode::Separated;
    std::vector<Candidate> points;  // within the margin at the last narrow phase
    std::vector<int> bottom;        // into points: the bottom polygon (multi-point mode)
    Vec3 xa0{0, 0, 0}, xb0{0, 0, 0};                // the bodies' poses at the narrow phase
    Quat qa0 = Quat::Identity(), qb0 = Quat::Identity();
    bool normal_of_b = false;       // the contact normal turns with b (a facet of b), else with a
    Vec3 normal_local{0, 1, 0};     // in that body's frame, from a to b
    // Into points: a round candidate whose centre's distance gradient in the other body's field is the normal
    // (a pair with a sphere or capsule: the normal follows the line between the centres); -1: normal_local.
    int normal_point = -1;
    // A flat primitive pair (boxes and planes): each candidate's depth is read against the plane of the face the
    // normal belongs to (sect. III-A: depths are distances to the contact plane), that face lying `plane_level`
    // along the normal from its body's centre; a box's corner on another box's edge has no depth in its
    // distance field. Otherwise depths come from the other body's signed distance.
    bool shells = false;  // its candidates are shell points (a pair with a mesh), else the narrow phase's
    bool planar = false;
    double plane_level = 0.0;  // m
    double gain_mass = 0.0;  // kg: gain_mass() of the step (set before its substeps)
    // Of a flat primitive pair's bottom polygon at the narrow phase: its centre (world) and its second moment
    // about it, least over the tangent directions (m^2; 0 for fewer than three points): the stack rule of
    // gain_mass.
    Vec3 patch_centre{0, 0, 0};
    double patch_moment = 0.0;
    double integral = 0.0;          // I (eq. 2), m
    double deepest = 0.0;           // max_y d(y) of the last force evaluation, m
    Vec3 stretch{0, 0, 0};          // m: the friction spring's stretch, the pair's tangential slip in penalty mode
    double twist = 0.0;             // rad: the torsional friction spring's stretch, the pair's turn about n
    double friction = 0.0, restitution = 0.0;
    bool present = false;           // the world has contacts for it this step
    bool struck = false;            // one of its bodies took an impulse from another pair this substep
    // Of the last recorded force evaluation, for the friction stretch's update at the end of the substep.
    Vec3 centre{0, 0, 0};
    double normal_force = 0.0;
    // N: what the last substep's implicit solve added to its springs' start values (damp_implicitly: its damping's
    // impulse over h; solve_springs: its normal force less the springs' sum s)
    double damping_force = 0.0;
    double twist_stiffness = 0.0, twist_limit = 0.0;  // N m/rad and N m of the torsional spring
    // The rows solve_springs held at their bound in the last substep (SpringRow::point, ascending): the next
    // substep's solve starts from them.
    std::vector<int> held;
    bool friction_rows = false;  // its friction is solved with its springs (solve_springs), else a spring on its slip
    double pressed = 0.0;  // N: what the joints' contact rows pressed in the last substep (solve_joints)
    Vec3 friction_force{0, 0, 0};   // N, on b, of the last recorded force evaluation
    // The step's impulse on b (impacts' impulses, penalty forces times their substeps), N s, and the sum of the
    // points it acted at weighted by its normal part, for the contact report (pid_penalty_report.cpp).
    Vec3 step_impulse{0, 0, 0};
    Vec3 step_point_sum{0, 0, 0};
    double step_weight = 0.0;
  };
  // Adds an impulse on b acting at `point` to the pair's step total (the contact report's).
  static void add_to_report(Pair& pair, const Vec3& normal, const Vec3& impulse, const Vec3& point);
  using PairKey = std::pair<int, int>;

  // The state the forces are evaluated at (a substep's start, or an RK4 stage).
  struct Motion {
    Vec3 x{0, 0, 0};
    Quat q = Quat::Identity();
    Vec3 v{0, 0, 0}, w{0, 0, 0};
    Mat3 R = Mat3::Identity();
    Vec3 point(const Vec3& local) const { return x + R * local; }
    Vec3 velocity_at(const Vec3& p) const { return v + w.cross(p - x); }
  };
  struct Gains {
    double kp = 0.0, kv = 0.0, ki = 0.0;  // N/m, N s/m, N/m
    double kv_normal = 0.0;  // N s/m: k_v without the explicit bound (the normal damping, integrated implicitly)
    double kt = 0.0;         // N/m: the friction spring's stiffness, k_p within the explicit bound
  };
  // A point where the derivative term of eq. 1 acts, damped implicitly after the substep's velocity update.
  struct DampedPoint {
    Pair* pair = nullptr;
    int a = -1, b = -1;
    Vec3 at{0, 0, 0}, n{0, 1, 0};  // world; n from a to b
    double c = 0.0;       // N s/m: its damping coefficient
    double spring = 0.0;  // N: the point's spring force (P + I of eq. 3), which the damping may not turn into a pull
  };
  // Eq. 1's derivative term, backward Euler, as impulses at the recorded points one after another: each sets the
  // point's normal relative velocity to v / (1 + c h / m_eff) (m_eff the pair's effective mass there), at most
  // cancelling the spring's impulse h f (no pull, as the max of eq. 3).
  void damp_implicitly(std::vector<Body>& work, double h) const;
  // A normal force of a penalty pair under the implicit integrator: F = s - e u along n at `at` (N), u the normal
  // relative velocity there at the end of the substep (m/s, b's point's less a's, > 0 separating), F >= lower.
  struct SpringRow {
    Pair* pair = nullptr;
    int a = -1, b = -1;
    Vec3 at{0, 0, 0}, n{0, 1, 0};  // world; n from a to b
    double s = 0.0;      // N: the force at the substep's start, (k_p d + k_i I) / r (0 for the centre's damping)
    double e = 0.0;      // N s/m: how much it drops per m/s of separation, (k_v + h k_p) / r
    double lower = 0.0;  // N: the least force (0 at a point: no pull, the max of eq. 3)
    int point = -1;      // into the pair's candidates; -1: the damping at the centre of its points
    // A tilt row (kTiltRow): on the pair's relative turn about n, s and e in N m and N m s, its moment within
    // `reach` (m) times the pair's normal force.
    bool angular = false;
    double reach = 0.0;
  };
  // Eq. 3's springs and dampers at the recorded rows (springs_), linearly implicit: the new velocities solve
  // (M + h J^T E J) v' = M v + h J^T (s - e u_0), u_0 a kinematic side's known part of u, one sparse symmetric system over the bodies the rows move
  // (implicit_springs.cpp).
  void solve_springs(std::vector<Body>& work, double h);
  // solve_springs' finish where its active set did not settle: projected Gauss-Seidel sweeps on the same rows
  // (finishing_sweeps.cpp). slot: each body's block of unknowns in v (-1: none); system: the rows' Jacobians; force:
  // each row's force (N) at the last solve, then after the sweeps; v: the unknowns' velocities, likewise.
  void finish_springs(const std::vector<Body>& work, double h, std::span<const int> slot,
                      std::span<const pid_penalty::SystemRow> system, Eigen::VectorXd& v,
                      std::vector<double>& force) const;

  double shell_spacing(const Shape& shape) const;
  Gains pair_gains(const PairKey& key, const Pair& pair, const Body& a, const Body& b, double h) const;
  // kg: what the pair's gains are per kilogram of (the `gains` parameter): the load it carries, or m1 + m2.
  double gain_mass(const PairKey& key, const Body& a, const Body& b) const;
  // s: the world step's substep (at most `substep`), short enough for the pairs' gains to integrate stably.
  double stable_substep(const std::vector<Body>& bodies);
  // How many ways the pair's stability bounds are split: the most penalty pairs either dynamic body is in (>= 1).
  double bound_share(const PairKey& key) const;
  void count_penalty_pairs(const std::vector<Body>& bodies);  // penalty_pairs_ from the pairs' modes
  Vec3 contact_normal(const std::vector<Body>& bodies, const Pair& pair, const std::vector<Motion>& m,
                      const PairKey& key) const;
  // collide() for pairs of primitives (no mesh): the candidates from the shared narrow phase's contact geometry.
  void collide_primitives(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out);
  // collide() for pairs with a mesh: point shells against distance fields (appendix I).
  void collide_shells(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out);
  // kg: the pair's least effective mass along the tangent plane of n at `at` (world), the bodies' turning included
  // (the stability bounds of the explicit friction spring and damper).
  static double tangent_mass(const Body& a, const Body& b, const Motion& A, const Motion& B, const Vec3& at,
                             const Vec3& n);
  static Vec3 line_of_action(const std::vector<Body>& bodies, const std::vector<Motion>& m, const PairKey& key,
                             const Vec3& n, const Vec3& p);
  Drift drift(const std::vector<Body>& bodies, const std::vector<Motion>& m, const PairKey& key,
              const Pair& pair) const;
  // False only where candidate c is certainly outside the other body at the motions d was taken at, and stays so
  // for `ahead` (s) at the bodies' present speeds: its depth at the narrow phase plus the distance's slope times how
  // far the point can have moved relative to the other body since (the bodies' displacements plus their turns times
  // the point's distances from their centres), plus `ahead` times its largest speed relative to the other body.
  static bool may_touch(const Candidate& c, const Drift& d, double ahead);
  // The depth (m, > 0 inside) of candidate c at the motions m, false where the field has no gradient.
  // The same with the owner's and the field body's motions given.
  static bool depth_at(const Shape& field_shape, const Motion& owner, const Motion& field, const Pair& pair,
                       const Candidate& c, Vec3& point, double& depth);
  bool depth_of(const std::vector<Body>& bodies, const std::vector<Motion>& m, const PairKey& key, const Pair& pair,
                const Candidate& c,
                Vec3& point, double& depth) const;
  void load_motions(const std::vector<Body>& bodies, std::vector<Motion>& out) const;
  void impacts(std::vector<Body>& work, double h);
  // Adds each penalty pair's forces (eq. 3 and friction) at the motions m to force and torque; `record` keeps
  // them in the pairs and views.
  // `elapsed`: the time since the substep's start of the state m (an RK4 stage), s.
  void penalty_forces(const std::vector<Body>& bodies, const std::vector<Motion>& m, double h, double elapsed,
                      std::vector<Vec3>& force, std::vector<Vec3>& torque, bool record);
  void solve_joints(StepContext& ctx, std::vector<Body>& work, double h);
  void substep_euler(StepContext& ctx, std::vector<Body>& work, double h);
  // v += h M^-1 (f_applied + m g + f_contact(t)), the explicit part of a substep under semi-implicit and implicit
  // Euler (penalty_forces records the rows the integrator then treats implicitly).
  void push_forces(const StepContext& ctx, std::vector<Body>& work, double h);
  // A pair's state for a new narrow phase: its candidates cleared, the bodies' poses they are measured from.
  Pair& renew_pair(const PairKey& key, const Body& a, const Body& b);
  // The narrow phase again, at the substep's poses, for each pair whose bodies have moved relative to each other by
  // more than the contact margin since its candidates were found (contact_points.cpp).
  void reread_moved_pairs(const std::vector<Body>& work);
  void substep_implicit(StepContext& ctx, std::vector<Body>& work, double h);
  void substep_rk4(StepContext& ctx, std::vector<Body>& work, double h);
  void end_substep(const std::vector<Body>& work, double h);
  void begin_views(const std::vector<Body>& bodies);

  Settings set_{};
  double margin_ = 0.0;  // m: the world's contact margin, as the step's collide() was given it
  std::map<PairKey, Pair> pairs_;
  std::vector<PairKey> moved_pairs_;  // reread_moved_pairs' pairs of the substep
  std::vector<DampedPoint> damped_;  // of the substep's force evaluation
  std::vector<SpringRow> springs_;   // of the substep's force evaluation (implicit integrator)
  pid_penalty::SpringSystem spring_system_;  // solve_springs' system and its factorization
  std::vector<double> loads_;  // kg per body: stack_loads of the step (graph/stack_loads.h)
  std::vector<double> shares_;  // kg per body: its share of its stack height's load (stack_loads)
  std::vector<Vec3> load_centres_;  // per body: the centre of mass of its load
  std::vector<int> layers_;  // per body: the stack layers of its contact group (0 outside a stack)
  std::vector<char> jointed_;  // per body: a joint holds it (its pairs' friction stays the explicit spring)
  std::vector<int> penalty_pairs_;  // per body: its pairs in penalty mode this substep (dynamic bodies only)
  std::vector<Body> work_;  // the bodies as the substeps move them (the world's keep the start of the step)
  // Per body: the displacement (m, rad) that an impact met ahead within the substep adds after it (impacts).
  std::vector<std::pair<Vec3, Vec3>> late_shift_;
  std::vector<Motion> motions_;
  std::vector<Vec3> force_, torque_;
  std::vector<JointRow> joint_rows_;
  std::vector<int> motor_rows_;  // indices of the motor rows in rows_ (joints/joint_solve.h)
  std::vector<Row> rows_;
  std::vector<BodyVelocity> velocities_;
  std::vector<InverseMass> masses_;
  JointWarmStart joint_warm_;
  std::vector<PairView> views_;
  double residual_ = 0.0;
};

}  // namespace cl
