#include "solvers/implicit_penalty/implicit_penalty_solver.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <chrono>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <string>

#include "solvers/implicit_penalty/definite_stiffness.h"
#include "solvers/implicit_penalty/patch_friction.h"
#include "solvers/implicit_penalty/plane_ball.h"
#include "solvers/implicit_penalty/penalty_joints.h"
#include "solvers/implicit_penalty/point_runs.h"
#include "solvers/implicit_penalty/round_pair.h"
#include "telemetry/telemetry.h"
#include <cmath>

namespace cl {

using namespace implicit_penalty;

namespace {

// The method's own stages (Solver::sub_stages), in step order.
enum Stage { kShellQueries, kForces, kAssembly, kLinearSolve, kFrictionPgs, kJointProjection };
constexpr SubStage kStages[] = {
    {"shell_queries", StepStage::NarrowPhase},    // point shells against the distance fields (sec. 4.1)
    {"forces", StepStage::Solve},                 // contact, friction and servo forces with their gradients
    {"assembly", StepStage::Solve},               // G and Z per contact group, and the joint rows (eq. 16-17)
    {"linear_solve", StepStage::Solve},           // the groups' direct solves (eq. 15, 62-64)
    {"friction_pgs", StepStage::Solve},           // contact_model physical: the Coulomb friction rows
    {"joint_projection", StepStage::Integrate},   // parameter joint_projection: Newton steps onto the joints
};

// Points on each side of a pair from which its two sides' forces are summed on two threads.
constexpr size_t kLeastSplitSidePoints = 1024;


}  // namespace

// Shrinks the skin of a pair's points to `skin`: their depths move by the difference and the points left outside
// are dropped.
void ImplicitPenaltySolver::trim_skin(PairPoints& points, double skin) {
  if (skin >= points.skin) return;
  const double shift = points.skin - skin;
  for (std::vector<PenetratingPoint>* side : {&points.a_in_b, &points.b_in_a}) {
    for (PenetratingPoint& q : *side) q.d += shift;
    std::erase_if(*side, [](const PenetratingPoint& q) { return q.d >= 0.0; });
  }
  points.skin = skin;
}

const ParamTable<ImplicitPenaltySolver::Settings>& ImplicitPenaltySolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::model, {"contact_model", ParamKind::Choice, "", 0, 1, 0,
       "physical: each touching pair has stiffness K = m g0 / penetration (m the weight it carries, at least the "
       "pair's reduced mass, g0 = 9.81 m/s^2) and the damping that gives its material's restitution e (the "
       "damping with which the contact as backward Euler steps it, force K times the mean depth, leaves at e "
       "times its speed at first touch), both shared among its penetrating points, damping on the depth rate only "
       "(a sphere's spin left out), one Coulomb friction patch per pair after the implicit step; per_point: the "
       "paper's stiffness, damping and friction_stiffness per point",
       {"physical", "per_point"}}),
      T::bind(&S::penetration, {"penetration", ParamKind::Real, "m", kLeastPenetration, 0.1, 1e-3,
       "physical model: the mean depth at which a body resting on a fixed one under standard gravity is held "
       "(sets K = m g0 / penetration; at most penetration_ratio of the smaller body)"}),
      T::bind(&S::penetration_ratio, {"penetration_ratio", ParamKind::Real, "", 1e-4, 0.1, 0.005,
       "physical model: the resting depth is at most this fraction of the smaller body's least extent (a box's "
       "shortest edge, a ball's diameter), so that a small body sinks and tilts under friction no more, for its "
       "size, than a large one"}),
      T::bind(&S::skin, {"skin", ParamKind::Real, "m", 0, 0.01, 2e-4,
       "physical model: the springs act from this gap on, as if each body's distance field were grown by it: a "
       "pair placed exactly touching (its nearest shell points a fraction of a millimetre apart) carries its "
       "load from its first step instead of falling freely for one (at most the world's contact_margin; 0: "
       "from penetration on, as the paper)"}),
      T::bind(&S::stack_margin, {"stack_margin", ParamKind::Real, "", 0, 100, 2,
       "physical model: c of the stacks' stiffness: a contact of a stack of n layers that carries a load whose "
       "centre lies H above it on a patch of second moment J (m^2, about its centre, least over the tangent "
       "directions) holds it at a mean depth of at most J / (c H n) (at least the least penetration, 1e-5 m), so "
       "its stiffness against tilting is c n times the load's toppling moment per radian and the column of "
       "compliant contacts cannot buckle (README, How implicit-penalty steps); 0: penetration everywhere"}),
      T::bind(&S::friction_iterations, {"friction_iterations", ParamKind::Integer, "", 1, 1000, 20,
       "physical model: projected Gauss-Seidel sweeps of the Coulomb friction rows after the implicit step"}),
      T::bind(&S::stiffness, {"stiffness", ParamKind::Real, "N/m", 1, 1e9, 1e5,
       "per_point model: k, penalty stiffness of each penetrating point, F = k d N (eq. 19); the total grows "
       "with the contact area"}),
      T::bind(&S::damping, {"damping", ParamKind::Real, "N s/m", 0, 1e7, 100,
       "per_point model: k_d, damping of each penetrating point on the relative velocity, normal and "
       "tangential (eq. 41-42)"}),
      T::bind(&S::gradients, {"gradients", ParamKind::Choice, "", 0, 1, 0,
       "exact: the paper's contact gradients with rotating normals (eq. 22-51); approximate: the symmetric "
       "gradients of Barbic and James that the paper's Fig. 12 compares against (physical model: points pushed "
       "along a plane's or a round body's normal, a ball pushed through its centre, two round bodies and the "
       "points of a pair with a mesh take the approximate ones under either)",
       {"exact", "approximate"}}),
      T::bind(&S::integrator, {"integrator", ParamKind::Choice, "", 0, 1, 0,
       "implicit: semi-implicit backward Euler on the 6n x 6n system (eq. 15-18); explicit: symplectic Euler on "
       "the same forces (compare their largest stable time steps)",
       {"implicit", "explicit"}}),
      T::bind(&S::threshold, {"stiffness_threshold", ParamKind::Integer, "", 0, 1e7, 0,
       "per_point model: N0 of eq. 77: a pair with N >= N0 penetrating points gets stiffness k N0 / N (0: no scaling, the "
       "paper's N0 = infinity)"}),
      T::bind(&S::friction_stiffness, {"friction_stiffness", ParamKind::Real, "N/m", 0, 1e9, 10,
       "per_point model: stiffness of each point's static friction anchor spring (explicit; the paper uses "
       "about 1/10000 of k)"}),
      T::bind(&S::dynamic_ratio, {"dynamic_friction", ParamKind::Real, "", 0, 1, 1,
       "Dynamic friction coefficient as a fraction of the static one (the material's friction)"}),
      T::bind(&S::slip_speed, {"slip_speed", ParamKind::Real, "m/s", 0, 10, 0.01,
       "A sliding contact point whose tangential speed falls below this is anchored again (static friction)"}),
      T::bind(&S::point_spacing, {"point_spacing", ParamKind::Real, "m", kLeastShellSpacing, 1, 0.04,
       "Spacing of the point shells of spheres, boxes and capsules (a mesh is resampled evenly at its distance "
       "grid's cell size, set by its `resolution`); physical model: spheres and capsules of radius R at most "
       "sqrt(R penetration), so about 12 points hold a resting ball"}),
      T::bind(&S::box_points, {"box_points", ParamKind::Integer, "", 3, 64, 8,
       "physical model: a box's point shell has at most this many points along its longest edge (its spacing "
       "widened beyond point_spacing to fit) and at least 3 along its shortest (narrowed to fit)"}),
      T::bind(&S::projection, {"joint_projection", ParamKind::Integer, "", 0, 10, 2,
       "Newton steps of a mass-weighted projection of the positions back onto the joint constraints after each "
       "step (0: Baumgarte stabilisation alone, as the paper)"}),
      T::bind(&S::baumgarte, {"baumgarte", ParamKind::Real, "", 0, 1.8, 1,
       "alpha h of the joints' Baumgarte stabilisation with critical damping beta = alpha^2 / 4 (eq. 56), at the "
       "velocity level: the step asks W v(t+h) = (1 - alpha h) Cdot - h beta C; 1 removes drift fastest (a quarter "
       "left per step), above 1.8 it diverges"}),
      T::bind(&S::limit_stiffness, {"limit_stiffness", ParamKind::Real, "", 0, 1e6, 1000,
       "Joint limits as penalty springs (our addition; the paper has none): past a hinge's or slider's bound a "
       "spring pushes the coordinate back, integrated implicitly with its gradients; its stiffness k "
       "in units of I / h^2 (I the inertia of the coordinate under the joint, h the step), so a load tau rests "
       "tau h^2 / (limit_stiffness I) past the bound at every mass, size and step (0: limits ignored)"}),
      T::bind(&S::limit_damping, {"limit_damping", ParamKind::Real, "", 0, 100, 1,
       "Damping ratio of the joint-limit springs, c = 2 limit_damping sqrt(k I): at 1 the step's map of the "
       "depth has a double eigenvalue 1 / (1 + sqrt(limit_stiffness)), so a coordinate comes to rest on its "
       "limit without bouncing, the damper also holding a coordinate that leaves past its bound; within the "
       "bounds nothing acts"})
  });
  return table;
}

std::span<const ParamSpec> ImplicitPenaltySolver::param_specs() { return table().specs(); }

namespace {
// The method's own counters (StepStats::counters).
enum Counter { kCountLinearSolves, kCountLinearResidual, kCountFrictionSweeps, kCountJointNewtonSteps, kCountShellPoints };
constexpr SolverCounter kCounters[] = {
    {"linear_solves", ""},           // direct solves of the backward Euler system (one per contact group)
    {"linear_residual", "N s"},      // the largest |G dS - rhs| of those solves
    {"friction_sweeps", ""},         // projected Gauss-Seidel sweeps of the Coulomb rows
    {"joint_newton_steps", ""},      // Newton steps of the joint projection
    {"shell_points", ""},            // penetrating shell points acting (the world counts one contact per pair)
};
}  // namespace

ImplicitPenaltySolver::ImplicitPenaltySolver() : Solver(param_specs(), kStages, kCounters) { begin_step(); }

void ImplicitPenaltySolver::read_settings() { set_ = table().read(params_); }

void ImplicitPenaltySolver::reset() {
  points_.clear();
  factors_.groups.clear();
  shell_caches_.clear();
  anchors_.clear();
  touches_.clear();
}

// Narrow phase of this method: each body's points inside the other's signed distance (sec. 4.1, 6). The points
// are kept for the solve; the world gets one contact per touching pair (below).
// Reentrant (concurrent_collide): the pair's points are found into this thread's lists and stored in points_ under
// the solver's lock; points_ is ordered by pair, so what the solve reads does not depend on the order pairs came in.
void ImplicitPenaltySolver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  collide_pair(bodies, ia, ib, margin, out, nullptr);
}

void ImplicitPenaltySolver::collide_on_threads(TaskPool& pool, const std::vector<Body>& bodies, int ia, int ib,
                                               double margin, ContactList& out) {
  collide_pair(bodies, ia, ib, margin, out, &pool);
}

void ImplicitPenaltySolver::collide_pair(const std::vector<Body>& bodies, int ia, int ib, double margin,
                                         ContactList& out, TaskPool* pool) {
  const auto start = std::chrono::steady_clock::now();
  const Body& a = bodies[ia];
  const Body& b = bodies[ib];
  thread_local PairPoints pp;  // found here, then swapped into points_ (both keep their capacity)
  pp.a_in_b.clear();
  pp.b_in_a.clear();
  const Mat3 ra = a.rotation(), rb = b.rotation();
  // The physical model's springs act from the gap `skin` on (each field grown by it); the world collides only
  // the pairs within its contact margin. Pairs with a mesh keep their points inside only: with the skin,
  // scenes/volume_pile.json blew up at step 453 (README, How implicit-penalty steps).
  const bool meshes = a.shape.type == ShapeType::Mesh || b.shape.type == ShapeType::Mesh;
  // Collided with the larger of `skin` and `penetration`: a pair that comes to rest on its first touch keeps
  // up to its penetration of it (contact_forces).
  // A ball on a plane takes its exact depth (plane_ball.h) from a gap of up to twice `penetration` (a resting one,
  // whose cap's mean depth is half its deepest): it is collided from there, so that its points are found wherever
  // its exact depth acts.
  const bool exact = set_.model == ContactModel::Physical && plane_ball_pair(a.shape, b.shape);
  const double skin = set_.model == ContactModel::Physical && !meshes && set_.skin > 0.0
                          ? std::min((exact ? 2.0 : 1.0) * std::max(set_.skin, set_.penetration), margin)
                          : 0.0;
  pp.skin = skin;
  // The pair's caches: found under the lock (std::map keeps an entry in place), then used by this thread alone (a
  // pair is collided once per narrow phase).
  ShellCaches* caches;
  {
    std::lock_guard<std::mutex> lock(collide_lock_.mutex);
    caches = &shell_caches_[{ia, ib}];
    caches->used = true;
  }
  // Between a round body and a box (physical model), the round body's points alone: its shell is the finer (a
  // ball's at most sqrt(R penetration), a box's fitted to at most box_points along its longest edge) and the box's
  // distance is exact, while the box's coarse points enter the ball already deep by its curvature, the force
  // jumping as each does (a 0.4 m ball dropped on a 1 m box's edge gained 445 J of its 9.9 kJ at 8 points per edge).
  const bool one_sided = set_.model == ContactModel::Physical &&
                         ((round_shape(a.shape) && b.shape.type == ShapeType::Box) ||
                          (round_shape(b.shape) && a.shape.type == ShapeType::Box));
  if (auto shell = penalty_shell(a.shape, shell_spacing(a.shape)); shell && !(one_sided && a.shape.type == ShapeType::Box))
    find_penetrating_points(b.shape, b.position, rb, *shell, a.position, ra, pp.a_in_b, skin, &caches->a_in_b, pool);
  if (auto shell = penalty_shell(b.shape, shell_spacing(b.shape)); shell && !(one_sided && b.shape.type == ShapeType::Box))
    find_penetrating_points(a.shape, a.position, ra, *shell, b.position, rb, pp.b_in_a, skin, &caches->b_in_a, pool);
  // The world gets one contact per touching pair, not one per point (pair_contact.h).
  if (!pp.a_in_b.empty() || !pp.b_in_a.empty()) out.push_back(pair_contact(ia, ib, a, ra, pp.a_in_b, b, rb, pp.b_in_a, skin));
  const bool touching = !pp.a_in_b.empty() || !pp.b_in_a.empty();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(collide_lock_.mutex);
  if (touching) {
    // Swapped, not copied: this thread's lists take the kept ones' storage for the next pair it collides.
    PairPoints& kept = points_[{ia, ib}];
    kept.a_in_b.swap(pp.a_in_b);
    kept.b_in_a.swap(pp.b_in_a);
    kept.skin = pp.skin;
  } else {
    points_.erase({ia, ib});
  }
  sub_stages_.add(kShellQueries, ms);  // summed over the pairs (on several threads: their CPU time)
}

void ImplicitPenaltySolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  state_.resize(n);
  rotation_.assign(n, Vec3::Zero());
  momentum_.assign(n, Vec3::Zero());
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    b.sleeping = false;  // this method does not sleep bodies (another method may have left some asleep)
    IntegratorBody& s = state_[i];
    s.pose = body_pose(b);
    s.mass = b.is_dynamic() ? b.mass : 0.0;
    s.rotation_map = b.is_dynamic() ? rotation_map(s.pose, ctx.dt, set_.integrator) : Mat3::Identity();
    s.force = b.is_dynamic() ? Vec3(b.force + b.mass * ctx.gravity) : Vec3::Zero();
    s.torque = b.is_dynamic() ? b.torque : Vec3::Zero();
  }
  auto t0 = std::chrono::steady_clock::now();
  contact_forces(ctx);
  profile_.forces = seconds_since(t0);
  sub_stages_.add(kForces, 1e3 * profile_.forces);
  solve_groups(ctx);
  if (set_.model == ContactModel::Physical) {
    ScopedSubStage timer(sub_stages_, kFrictionPgs);
    counters_.add(kCountFrictionSweeps, coulomb_friction(ctx));
  }
  ctx.stats.sleeping = 0;
}

ImplicitPenaltySolver::PairGains ImplicitPenaltySolver::pair_gains(const PairKey& pair, int count, double restitution,
                                                                   double dt, double resting_speed, const PairNormal& contact,
                                                                   double approach, const Touch& touch) const {
  PairGains g;
  if (set_.model == ContactModel::PerPoint) {
    // The paper's per-point gains, k scaled down past N0 points (eq. 77).
    g.k = set_.threshold > 0 && count >= set_.threshold ? set_.stiffness * set_.threshold / count : set_.stiffness;
    g.k_d = set_.damping;
    g.anchor_k = set_.friction_stiffness;
    return g;
  }
  // Physical: the pair as one spring-damper of total stiffness K (pair_stiffness), shared among the
  // penetrating points (eq. 77 with N0 = 1), so the force is K times their mean depth: it does not change with
  // the point spacing or a mesh's grid resolution, and depends on the configuration only (no energy is lost to
  // a history of the point count).
  constexpr double g0 = kStandardGravity;
  const double inv_mass = state_[pair.first].mass_inverse() + state_[pair.second].mass_inverse();
  if (inv_mass <= 0.0 || count == 0) return g;
  const double m = 1.0 / inv_mass;
  const double K = touch.stiffness;
  const double impact = touch.impact;
  const int n = count;
  g.k = K / n;
  // The damping that gives the material's restitution e on this contact as backward Euler steps it
  // (rebound_speed: the spring K times the mean depth, its gradient K at fixed points). After an impact at
  // speed v_in (the pair's approach speed at first touch) the damping is the one that leaves at e v_in from
  // where the contact is now, asked again every step; contacts that began slower than one step of gravity
  // (resting ones) take the mean over the phases of an impact.
  // The impact is that of the bodies' points at the pair's centre along its normal: their effective mass there
  // (the reduced mass for a central impact, less where the bodies turn about the point).
  double c = std::numeric_limits<double>::quiet_NaN();
  if (impact > resting_speed && restitution * impact > resting_speed && contact.count > 0) {
    double inv_effective = 0.0;
    for (int i : {pair.first, pair.second}) {
      const IntegratorBody& body = state_[size_t(i)];
      const Vec3 arm = (contact.point - body.pose.x).cross(contact.normal);
      inv_effective += body.mass_inverse() + arm.dot(body.pose.inv_inertia * arm);
    }
    // The other forces' part of the approach (gravity on a body falling onto a fixed one): the normal pushes b out
    // of a, so they drive the contact deeper at N . (a_a - a_b).
    const IntegratorBody& sa = state_[size_t(pair.first)];
    const IntegratorBody& sb = state_[size_t(pair.second)];
    const double pull = contact.normal.dot(sa.force * sa.mass_inverse() - sb.force * sb.mass_inverse());
    c = impact_damping(K, contact.secant, 1.0 / inv_effective, dt, contact.deepest, approach, restitution * impact,
                       pull, touch.held, &g.holding);
  }
  // A resting contact (or an impact whose rebound is spent, or too slow to lift against gravity) has no rebound
  // to keep: its damping never falls below zero.
  if (std::isnan(c)) c = std::max(0.0, restitution_damping(K, m, dt, restitution, contact.secant));
  // Damping below zero is the part of backward Euler's own damping taken back: the step with damping c < 0 on
  // the pair's approach coordinate is the step with no damping and the penalty gradient scaled by 1 + c / (K h)
  // (both give (m + h c + h^2 K) v' = m v - h K_s x in the reduced model), which is what the solver steps: a
  // negative damping along the distance gradients would outweigh a gradient that is smaller along them (a
  // ball's cap: its points push along their own normals) and amplify the step.
  g.implicitness = c < 0.0 ? 1.0 + c / (K * dt) : 1.0;
  g.k_d = std::max(c, 0.0) / n;
  g.depth_damping = true;
  // Anchors are explicit (as the paper's): a spring of angular frequency omega with critical damping, omega
  // the contact's own sqrt(g0 / penetration) but at most 0.5 / h so that the explicit spring stays stable
  // (omega h + the damping's 2 omega h stays within symplectic Euler's bound).
  const double omega = std::min(std::sqrt(g0 / set_.penetration), 0.5 / dt);
  g.anchor_k = m * omega * omega / n;
  g.anchor_c = 2.0 * m * omega / n;
  return g;
}

namespace {

// Which of the points of a body of shape `points` inside a body of shape `field` the physical model pushes along
// the field's gradient, the field body's own normal there, instead of their own normal (eq. 19; our change, see
// add_point_forces). The paper takes the point's normal so that the force stays continuous where a deep point
// crosses the field's medial axis (sec. 6). A plane has none, and a sphere's or capsule's is its centre or axis,
// deep inside: their points all take the field's direction (two round bodies: round_pair.h). A box's medial
// planes reach its edges: there a point takes the field's direction while it is within 45 degrees of its own inward normal, that is
// while it is on the face's side of the medial plane, and its own beyond, so that the direction does not turn
// by 90 degrees where the gradient turns from one face to the next. A mesh's field keeps the paper's.
// Along its own normal, a box tilted by the pitch of a push over a floor (1.8 degrees) was pushed forward by 3 N
// of its 98 N weight, and slid a third too fast; a ball on a box's edge was pushed off its centre and spun.
// A round points body on a plane or a box (Centre) is pushed along the field's direction through its centre (or
// axis), as a ball's contact force is: each point's force acts at the ball's surface point facing the field,
// centre - R G (see through_centre). Along its own normals (which pass through the centre too) the forces of the
// cap's sampled points do not sum to the face's normal: a 1.4 kg ball under a 56 kg box landing at 2.3 m/s
// (scenes/pile.json's light ball under a heavy box) was shot out sideways at 8 m/s within one step, and with
// friction the pair gained 2.4 kJ. At its own points along the field's direction the sampling's asymmetry spun it.
// On a plane likewise: the 0.5 m ball of scenes/two_balls.json, pressed into the ground by a ball 8000 times its
// mass, was pushed sideways by its cap's few points (1.3 m/s in two steps with the balls' pair along its centres).
enum class FieldDirection { None, All, Agreeing, Centre };

FieldDirection field_direction(const Shape& field, const Shape& points) {
  if (round_shape(points))
    return field.type == ShapeType::Box || field.type == ShapeType::Plane ? FieldDirection::Centre : FieldDirection::None;
  if (field.type == ShapeType::Plane || round_shape(field)) return FieldDirection::All;
  if (field.type == ShapeType::Box) return FieldDirection::Agreeing;
  return FieldDirection::None;
}

// The points of a round body (radius `radius`) moved to where their forces act through its centre or axis: the point
// of its surface facing the field, axis - radius G (G the field's unit gradient at the point, the axis point its
// own P - radius n), keeping each point's depth and gradient. Its normal becomes -G, so the lever arm on the round
// body is parallel to the force and it takes no torque from the field's push; under the approximate gradients its
// spin then moves none of the force, as a ball's does not (a capsule's axis point still turns with it).
void through_centre(const BodyPose& field, const BodyPose& points, double radius,
                    std::span<const PenetratingPoint> list, std::vector<PenetratingPoint>& out) {
  out.clear();
  for (const PenetratingPoint& p : list) {
    const Vec3 G = field.R * p.g_a;
    const double len = G.norm();
    PenetratingPoint q = p;
    if (len > 1e-12) {
      const Vec3 g = G / len;
      const Vec3 s = points.R * p.r_b, n = points.R * p.n_b;
      q.r_b = points.R.transpose() * (s - radius * n - radius * g);
      q.n_b = points.R.transpose() * (-g);
    }
    out.push_back(q);
  }
}

// The field's gradient at the point lies within 45 degrees of the point's inward normal.
bool agrees_with_field(const BodyPose& field, const BodyPose& points, const PenetratingPoint& p) {
  const Vec3 G = field.R * p.g_a;
  return -(points.R * p.n_b).dot(G) >= std::sqrt(0.5) * G.norm();
}

}  // namespace

// Contact forces of every touching pair: b's points in a's field and a's points in b's field, added into one
// PairForce (sec. 4.1: "compute contact forces and gradients twice ... and add the results").
void ImplicitPenaltySolver::contact_forces(const StepContext& ctx) {
  forces_.clear();
  gains_.clear();
  find_loads(ctx);
  int rows = 0;
  // Drop the points of pairs that no longer touch (the world keeps the contacts of unmoved pairs as they were;
  // those pairs keep their points too). The pair's material comes with its contacts.
  struct PairMaterial {
    double friction, restitution;
  };
  std::map<PairKey, PairMaterial> material_of;
  for (const Contact& c : ctx.contacts) material_of.emplace(PairKey{c.a, c.b}, PairMaterial{c.friction, c.restitution});
  for (auto it = points_.begin(); it != points_.end();)
    it = material_of.count(it->first) ? std::next(it) : points_.erase(it);
  for (auto it = anchors_.begin(); it != anchors_.end();)
    it = points_.count(it->first) ? std::next(it) : anchors_.erase(it);
  for (auto it = touches_.begin(); it != touches_.end();)
    it = points_.count(it->first) ? std::next(it) : touches_.erase(it);
  // Shell query bounds are kept for the pairs collided since the last stage (in the margin, touching or not).
  for (auto it = shell_caches_.begin(); it != shell_caches_.end();) {
    if (!it->second.used) {
      it = shell_caches_.erase(it);
    } else {
      it->second.used = false;
      ++it;
    }
  }

  // A pair that first touched slower than one step of the world's gravity gives is resting, not impacting.
  const double resting_speed = ctx.gravity.norm() * ctx.dt;
  for (auto& [pair, pp] : points_) {
    const auto [ia, ib] = pair;
    if (pp.a_in_b.empty() && pp.b_in_a.empty()) continue;
    // The approach speed at first touch, the skin and the stiffness, kept while the pair touches. A pair that
    // comes to touch resting (slower than one step of gravity) springs from its penetration's gap on, so that a
    // body placed touching carries its whole load from its first step (K times that depth is its load): with
    // the 0.2 mm skin alone it carried a fifth of it, and a box placed on a plane of tan 0.5 with mu 0.51 slid
    // in the steps its contact took to settle (friction bounded by a fifth of its load) and went on creeping.
    // An impact keeps `skin`: where in a step an impact begins moves its rebound.
    std::optional<PlaneBall> exact;  // a ball on a plane (physical model): its exact depth
    auto found = touches_.find(pair);
    if (found == touches_.end()) {
      const auto known = normals_.find(pair);
      const PairNormal first =
          known != normals_.end() ? known->second : pair_normal(state_[ia].pose, state_[ib].pose, pp.a_in_b, pp.b_in_a);
      const double speed = first.count > 0 ? approach_speed(state_[ia].pose, state_[ib].pose, first) : 0.0;
      Touch t;
      t.impact = std::max(0.0, speed);
      t.skin = t.impact > resting_speed ? set_.skin : pp.skin;
      // A resting pair's load is the part of its weight along its normal (m g cos theta on an incline): its
      // springs act from the gap at which K (set for m g0, pair_stiffness) carries that part. On a flat face the
      // points' mean depth is that gap; a round body's cap holds a mean depth of about half its deepest, so it
      // carries less than its load from that gap anyway and keeps the whole of it (a ball placed on a 30 degree
      // plane still sinks into its contact for its first steps, see docs/methods/implicit-penalty.md).
      if (t.impact <= resting_speed && first.count > 0)
        t.load_share = std::min(1.0, std::abs(first.normal.dot(ctx.gravity)) / kStandardGravity);
      found = touches_.emplace(pair, t).first;
    }
    Touch& touch = found->second;
    double penetration = set_.penetration;
    if (set_.model == ContactModel::Physical) {
      // A skin deeper than the pair's penetration would push a pair placed touching with more than its load.
      penetration = pair_penetration(ctx, pair, pp);
      const bool round_pair = round_shape(ctx.bodies[size_t(ia)].shape) || round_shape(ctx.bodies[size_t(ib)].shape);
      const double skin = std::min({pp.skin, penetration * (round_pair ? 1.0 : touch.load_share), touch.skin});
      // A ball on a plane: its exact depth below the plane grown by the skin, the mean depth of its cap half of it
      // (plane_ball.h); a resting ball springs from the gap at which K carries its load. Its points stay as found
      // (they place its friction patch). It touches while that depth is positive, and while it does not (within
      // its points' gap) nothing acts and it is forgotten, so that its next touch is a new impact: the restitution's
      // damping (impact_damping) is planned on the steps that start inside, and a step more at a depth of nothing
      // (found by the points, or not, by how the shell lies) moved a 2 cm ball's rebound by a third.
      exact = plane_ball(ctx.bodies[size_t(ia)].shape, state_[ia].pose, ctx.bodies[size_t(ib)].shape, state_[ib].pose,
                         touch.impact > resting_speed ? skin : 2.0 * penetration * touch.load_share);
      if (exact && !(exact->depth > 0.0)) {
        touches_.erase(found);
        continue;
      }
      if (!exact && skin < pp.skin) {
        trim_skin(pp, skin);
        normals_.erase(pair);  // its points moved
      }
    }
    const int count = int(pp.a_in_b.size() + pp.b_in_a.size());
    if (count == 0) continue;
    counters_.add(kCountShellPoints, count);
    const PairMaterial& material = material_of.at(pair);
    const auto known = normals_.find(pair);  // find_loads's, while the skin left the points as they were
    PairNormal contact =
        known != normals_.end() ? known->second : pair_normal(state_[ia].pose, state_[ib].pose, pp.a_in_b, pp.b_in_a);
    const double approach = contact.count > 0 ? approach_speed(state_[ia].pose, state_[ib].pose, contact) : 0.0;
    if (exact) {
      contact.deepest = exact->depth;
      contact.secant = kCapSecant;
      contact.normal = exact->normal;
    }
    touch.normal = contact.normal;
    if (set_.model == ContactModel::Physical) pair_stiffness(pair, contact, penetration, touch);
    PairGains gains = pair_gains(pair, count, material.restitution, ctx.dt, resting_speed, contact, approach, touch);
    touch.held = gains.holding;
    if (exact) gains.exact = *exact;
    const double k_d = gains.depth_damping ? 0.0 : gains.k_d;  // eq. 41's damping, or none here
    const BodyPose& pa = state_[ia].pose;
    const BodyPose& pb = state_[ib].pose;
    // A sphere's spin moves none of its surface, so it does not change the depths the damping resists.
    const bool round_a = ctx.bodies[size_t(ia)].shape.type == ShapeType::Sphere;
    const bool round_b = ctx.bodies[size_t(ib)].shape.type == ShapeType::Sphere;
    // Which of a side's points the physical model pushes along the field's gradient (field_directed).
    const bool physical = set_.model == ContactModel::Physical;
    const Shape& shape_a = ctx.bodies[size_t(ia)].shape;
    const Shape& shape_b = ctx.bodies[size_t(ib)].shape;
    const FieldDirection direction_in_a = physical ? field_direction(shape_a, shape_b) : FieldDirection::None;
    const FieldDirection direction_in_b = physical ? field_direction(shape_b, shape_a) : FieldDirection::None;
    // b's points in a's field into f, a's in b's into g (each as its own sum), then g added to f: the two sums
    // are independent, so a pair with many points on both sides has them summed on two of the world's threads.
    const std::vector<PenetratingPoint>& b_in_a = pp.b_in_a;
    const std::vector<PenetratingPoint>& a_in_b = pp.a_in_b;
    PairForce f, g;
    f.a = g.b = ia;
    f.b = g.a = ib;
    // One side's penalty forces: its points split by their force's direction, each part summed on its own. Those
    // pushed along the field's direction take the approximate gradients: the exact ones (eq. 31-40: the moving
    // lever arms, not symmetric) made a single box tumbling onto its corner on a plane gain energy at h = 1/60
    // (74 kg at 12 rad/s: 310 J to 850 J within 80 steps; scenes/pile.json's box_14: 1.8 kJ to 31 kJ in a step),
    // the approximate ones never; a round field's normal also turns with its curvature, which they leave out.
    // Points along their own normals (eq. 19) take the parameter's gradients, but in a pair with a mesh (physical
    // model) the approximate ones: with the exact ones scenes/mesh_pile.json gained 30 kJ (one piece thrown at
    // 142 m/s within a step), scenes/volume_pile.json 6 kJ, nested bowls and stacked tori blew up; with the
    // approximate ones none of them gains energy.
    const bool mesh_pair = shape_a.type == ShapeType::Mesh || shape_b.type == ShapeType::Mesh;
    const GradientMode own_gradients = physical && mesh_pair ? GradientMode::Approximate : set_.gradients;
    auto penalty = [&](const BodyPose& field, const BodyPose& points, const std::vector<PenetratingPoint>& list,
                       FieldDirection direction, const Shape& field_shape, const Shape& points_shape,
                       PairForce& sum, RunMomentsMemo& memo) {
      if (direction == FieldDirection::None) {
        add_point_forces(field, points, list, gains.k, k_d, own_gradients, sum, false, &memo);
        return;
      }
      thread_local std::vector<PenetratingPoint> along, own;
      if (direction == FieldDirection::Centre) {
        through_centre(field, points, points_shape.radius, list, along);
        add_point_forces(field, points, along, gains.k, k_d, GradientMode::Approximate, sum, true);
        return;
      }
      // The points of a run (point_runs.h) share g_a and n_b, so a run agrees or not as a whole; when every point
      // takes the field's direction (a face flat on a face) the list is summed as it is, not copied.
      bool all_along = direction == FieldDirection::All;
      if (!all_along) {
        all_along = true;
        for (size_t i = 0; i < list.size() && all_along; i += point_run_length(list, i))
          all_along = agrees_with_field(field, points, list[i]);
      }
      along.clear();
      own.clear();
      if (!all_along)
        for (const PenetratingPoint& p : list) (agrees_with_field(field, points, p) ? along : own).push_back(p);
      const bool flat_or_round = field_shape.type == ShapeType::Plane || round_shape(field_shape);
      add_point_forces(field, points, all_along ? std::span<const PenetratingPoint>(list) : std::span<const PenetratingPoint>(along),
                       gains.k, k_d, flat_or_round ? GradientMode::Approximate : set_.gradients, sum, true,
                       all_along ? &memo : nullptr);
      add_point_forces(field, points, own, gains.k, k_d, own_gradients, sum);
    };
    // A side's penalty forces and its depth damping share its runs' moments (point_runs.h). Each thread its own.
    auto side = [&](int which) {
      thread_local RunMomentsMemo memo;
      memo.clear();
      if (which == 0) {
        penalty(pa, pb, b_in_a, direction_in_a, shape_a, shape_b, f, memo);
        if (gains.depth_damping)
          add_depth_damping(pa, pb, b_in_a, gains.k_d, f, round_a, round_b, contact.normal, &memo);
      } else if (!a_in_b.empty()) {
        penalty(pb, pa, a_in_b, direction_in_b, shape_b, shape_a, g, memo);
        if (gains.depth_damping)
          add_depth_damping(pb, pa, a_in_b, gains.k_d, g, round_b, round_a, -contact.normal, &memo);
      }
    };
    const bool box_ball = (shape_a.type == ShapeType::Sphere && shape_b.type == ShapeType::Box) ||
                          (shape_a.type == ShapeType::Box && shape_b.type == ShapeType::Sphere);
    if (exact) {
      // A ball on a plane: K times its cap's mean depth, through its centre along the plane's normal.
      add_round_pair_force(pa, pb, exact->axes, gains.k * count * kCapSecant * exact->depth,
                           gains.k * count, gains.k_d * count, GradientMode::Approximate, exact->normal, f);
      f.points = count;  // g stays empty
    } else if (physical && pushed_along_one_line(shape_a, shape_b)) {
      // Two round bodies: the points' K times mean depth along the line of their centres or axes (round_pair.h),
      // with the approximate gradients: the exact ones' turning line (negative stiffness force / D) outweighed a
      // 4 mg ball's m / h^2 off-centre under a 2 cm ball (h = 1/100 s): 1.25 J from 0.013 J in a step. A ball and a
      // box: along the line from the box's closest point to the ball's centre (add_box_ball_force).
      double depth = 0.0;
      for (const auto* list : {&a_in_b, &b_in_a})
        for (const PenetratingPoint& p : *list) depth -= p.d;
      const Vec3 pushed =
          box_ball ? add_box_ball_force(shape_a, pa, shape_b, pb, gains.k * depth, gains.k * count, gains.k_d * count, f)
                   : add_round_pair_force(pa, pb, round_axes(shape_a, pa, shape_b, pb), gains.k * depth, gains.k * count,
                                          gains.k_d * count, GradientMode::Approximate, contact.normal, f);
      if (!pushed.isZero()) touch.normal = pushed;  // the report's normal: the line the force acts along
      f.points = count;  // g stays empty
    } else if (ctx.pool && ctx.pool->threads() > 1 && std::min(a_in_b.size(), b_in_a.size()) >= kLeastSplitSidePoints) {
      ctx.pool->run(2, [&](int task, int) { side(task); });
    } else {
      side(0);
      side(1);
    }
    if (!a_in_b.empty()) {
      const PairForce s = swapped(g);
      f.wrench += s.wrench;
      f.d_pos += s.d_pos;
      f.d_vel += s.d_vel;
      f.points += s.points;
    }
    if (physical && set_.gradients == GradientMode::Exact)  // their geometric stiffness made definite
      make_definite(f.d_pos, end_metric(state_[ia], state_[ib]), end_metric(state_[ib], state_[ia]));
    if (gains.implicitness < 1.0) f.d_pos *= gains.implicitness;  // the depth damping has no position gradient
    rows += count;
    forces_.push_back(f);
    if (set_.model == ContactModel::PerPoint) friction_forces(ctx, pair, material.friction, gains);
    else gains_[pair] = gains;
  }
  ctx.stats.rows = rows;
}

// The paper's contact islands are the world's contact groups (dynamic bodies joined by touching pairs and joints;
// fixed and kinematic bodies insulate); every dynamic body outside any of them is a group of its own here.
void ImplicitPenaltySolver::solve_groups(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  std::vector<std::vector<int>> groups;
  for (const ContactGroup& g : ctx.graph.groups()) groups.push_back(g.bodies);
  const std::vector<int>& graph_group_of = ctx.graph.group_of_body();
  for (size_t i = 0; i < n; ++i)
    if (ctx.bodies[i].is_dynamic() && (i >= graph_group_of.size() || graph_group_of[i] < 0)) groups.push_back({int(i)});

  std::vector<int> group_of(n, -1);
  for (size_t k = 0; k < groups.size(); ++k)
    for (int b : groups[k]) group_of[b] = int(k);
  // Joints by group (the world's groups already join jointed bodies), and the servos' PD forces and torques
  // (eq. 65) and the limits' penalty springs, which enter the system with their gradients like contact forces.
  std::vector<std::vector<int>> group_joints(groups.size());
  for (size_t j = 0; j < ctx.joints.size(); ++j) {
    const Joint& joint = ctx.joints[j];
    const int k = joint.body_a >= 0 && group_of[joint.body_a] >= 0 ? group_of[joint.body_a]
                  : joint.body_b >= 0                             ? group_of[joint.body_b]
                                                                  : -1;
    if (k < 0) continue;
    group_joints[k].push_back(int(j));
    PairForce servo;
    const BodyPose& pa = state_[joint.body_a].pose;
    const BodyPose& pb = state_[joint.body_b].pose;
    if (servo_force(joint, pa, pb, servo)) forces_.push_back(servo);
    PairForce motor;
    if (motor_force(joint, ctx.bodies, ctx.dt, kMotorGain, motor)) forces_.push_back(motor);
    PairForce limit;
    double stiffness = 0.0, damping = 0.0;
    if (joint.limit.enabled &&
        limit_gains(joint, pa, pb, ctx.bodies, ctx.dt, set_.limit_stiffness, set_.limit_damping, stiffness, damping) &&
        limit_force(joint, pa, pb, stiffness, damping, limit))
      forces_.push_back(limit);
  }
  // Forces by group: a force belongs to the group of whichever of its bodies is dynamic.
  std::vector<std::vector<int>> group_forces(groups.size());
  for (size_t f = 0; f < forces_.size(); ++f) {
    const int ka = group_of[forces_[f].a];
    const int kb = forces_[f].b >= 0 ? group_of[forces_[f].b] : -1;
    if (ka >= 0) group_forces[ka].push_back(int(f));
    if (kb >= 0 && kb != ka) group_forces[kb].push_back(int(f));
  }

  groups_ = groups;
  group_joints_ = group_joints;

  std::vector<int> slot(n, -1);
  factors_.groups.resize(groups.size());
  for (auto& factor : factors_.groups)
    if (!factor) factor = std::make_unique<GroupFactor>();
  GroupSystem system;
  Eigen::VectorXd dS;
  profile_.assembly = profile_.solve = 0.0;
  int joint_rows = 0;
  const double h = ctx.dt;
  for (size_t k = 0; k < groups.size(); ++k) {
    const std::vector<int>& group = groups[k];
    for (size_t s = 0; s < group.size(); ++s) slot[group[s]] = int(s);
    auto t0 = std::chrono::steady_clock::now();
    assemble_group(group, state_, forces_, group_forces[k], slot, h, set_.integrator, system);
    JointSystem rows;
    if (!group_joints[k].empty()) {
      std::string why;
      if (!assemble_joint_system(ctx.joints, group_joints[k], ctx.bodies, slot, int(group.size()), set_.baumgarte / h,
                                 rows, &why))
        rows = JointSystem{};  // an unsupported joint was refused when the scene loaded; never here
    }
    profile_.assembly += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    // One direct solve per group; its residual |G dS - h (Z + W^T lambda)|_inf (N s, N m s) is the rounding
    // of the factorisation, or the whole right-hand side when G was singular and the explicit step was taken.
    Eigen::VectorXd rhs = h * system.Z;
    GroupFactor& factor = *factors_.groups[k];
    if (rows.rows() == 0) {
      solve_group(system, h, dS, &factor);
    } else {
      // With joints: [G -h W^T; J 0] [dS; lambda] = [h Z; -h d] through the Schur complement (eq. 62-64).
      Eigen::VectorXd lambda;
      if (!factor.factorize(system.G) || !solve_with_constraints(factor.lu, rows, h * system.Z, h, dS, lambda))
        dS = h * system.Z;
      else
        rhs += h * (rows.W.transpose() * lambda);
      joint_rows += rows.rows();
    }
    ++ctx.stats.iterations;
    const double linear_residual = (system.G * dS - rhs).lpNorm<Eigen::Infinity>();
    ctx.stats.residual = std::max(ctx.stats.residual, linear_residual);
    counters_.add(kCountLinearSolves, 1);
    counters_.raise(kCountLinearResidual, linear_residual);
    profile_.solve += seconds_since(t0);
    for (size_t s = 0; s < group.size(); ++s) {
      Body& b = ctx.bodies[group[s]];
      const IntegratorBody& st = state_[group[s]];
      const Vec3 P = b.mass * b.linear_velocity + dS.segment<3>(6 * s);
      const Vec3 L = st.pose.L + dS.segment<3>(6 * s + 3);
      b.linear_velocity = P / b.mass;
      const Vec3 w_new = st.pose.inv_inertia * L;  // w(t+h) at the current rotation
      rotation_[group[s]] = h * (st.rotation_map * w_new);
      b.angular_velocity = w_new;
      momentum_[group[s]] = L;
      slot[group[s]] = -1;
    }
  }
  ctx.stats.rows += joint_rows;
  sub_stages_.add(kAssembly, 1e3 * profile_.assembly);
  sub_stages_.add(kLinearSolve, 1e3 * profile_.solve);
}

// x += h v(t+h); the rotation turns by dtheta = h V w(t+h), then w = I_world^-1 L at the new rotation (L is
// the state, eq. 1).
void ImplicitPenaltySolver::integrate_positions(StepContext& ctx) {
  for (size_t i = 0; i < ctx.bodies.size(); ++i) {
    Body& b = ctx.bodies[i];
    if (b.kind == BodyKind::Fixed) continue;
    b.position += ctx.dt * b.linear_velocity;
    if (b.is_dynamic()) {
      const Vec3& L = momentum_[i];
      const Vec3& dtheta = rotation_[i];
      b.orientation = integrate_orientation(b.orientation, dtheta, 1.0);
      b.update_world_inertia();
      b.angular_velocity = b.inv_inertia_world * L;
    } else {
      b.orientation = integrate_orientation(b.orientation, b.angular_velocity, ctx.dt);
      b.update_world_inertia();
    }
  }
  if (set_.projection > 0) {
    ScopedSubStage timer(sub_stages_, kJointProjection);
    project_joints(ctx);
  }
}

// Post-stabilisation of the joints (our addition; the paper relies on Baumgarte alone): Newton steps on
// C(x, R) = 0 with the least mass-weighted correction, dq = M^-1 W^T (W M^-1 W^T)^+ (-C), the pseudo-inverse
// dropping singular values below 1e-10 of the largest as in eq. 64. Velocities are left as they are.
void ImplicitPenaltySolver::project_joints(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  std::vector<int> slot(n, -1);
  for (size_t k = 0; k < groups_.size(); ++k) {
    if (group_joints_[k].empty()) continue;
    const std::vector<int>& group = groups_[k];
    for (size_t s = 0; s < group.size(); ++s) slot[group[s]] = int(s);
    for (int it = 0; it < set_.projection; ++it) {
      JointSystem rows;
      if (!assemble_joint_system(ctx.joints, group_joints_[k], ctx.bodies, slot, int(group.size()), 0.0, rows) ||
          rows.rows() == 0 || rows.C.norm() < 1e-14)
        break;
      ++ctx.stats.iterations;  // one Newton step (an SVD solve)
      counters_.add(kCountJointNewtonSteps, 1);
      // M^-1 W^T: W's columns are [x, theta] per body.
      Eigen::MatrixXd MinvWt = rows.W.transpose();
      for (size_t s = 0; s < group.size(); ++s) {
        const Body& b = ctx.bodies[group[s]];
        MinvWt.middleRows<3>(6 * s) *= b.inv_mass;
        MinvWt.middleRows<3>(6 * s + 3) = b.inv_inertia_world * MinvWt.middleRows<3>(6 * s + 3);
      }
      const Eigen::MatrixXd S = rows.W * MinvWt;
      // A system that overflowed (a joint anchored absurdly far out, or bodies already blown up) has no
      // correction, and Eigen's SVD must not see it (it reads out of bounds on non-finite input): the correction
      // is NaN, so the world's finite check after this stage stops the run (exit 3) instead of going on with
      // joints silently unprojected. C.norm() may overflow to inf, so the guard above does not catch this.
      Eigen::VectorXd dq = Eigen::VectorXd::Constant(MinvWt.rows(), std::numeric_limits<double>::quiet_NaN());
      if (S.allFinite() && rows.C.allFinite()) {
        Eigen::JacobiSVD<Eigen::MatrixXd> svd(S, Eigen::ComputeThinU | Eigen::ComputeThinV);
        svd.setThreshold(1e-10);
        dq = MinvWt * svd.solve(-rows.C);
      }
      for (size_t s = 0; s < group.size(); ++s) {
        Body& b = ctx.bodies[group[s]];
        b.position += dq.segment<3>(6 * s);
        b.orientation = integrate_orientation(b.orientation, dq.segment<3>(6 * s + 3), 1.0);
        const Vec3 L = b.inertia_world() * b.angular_velocity;
        b.update_world_inertia();
        b.angular_velocity = b.inv_inertia_world * L;  // L is the state
      }
    }
    for (int b : group) slot[b] = -1;
  }
}

// What the implicit assembly leaves out: joints are stabilised by Baumgarte and projection (its own parameters),
// not by each joint's ERP and CFM; limits are penalty springs on hinge and slider coordinates only; the
// per-point contact model's damping is a parameter, not the material's restitution.
std::vector<std::string> ImplicitPenaltySolver::unsupported(const SceneFeatures& scene) const {
  std::vector<std::string> out;
  const Settings s = table().read(params_);
  const std::vector<std::string> soft = joints_where(scene, [](const Joint& j) {
    return j.erp != Joint{}.erp || j.cfm != Joint{}.cfm;
  });
  if (!soft.empty())
    out.push_back("implicit-penalty: the ERP and CFM of joint " + name_list(soft) +
                  " are ignored (joints are stabilised by the parameters baumgarte and joint_projection)");
  const std::vector<std::string> other_limits = joints_where(scene, [](const Joint& j) {
    return j.limit.enabled && j.type != JointType::Hinge && j.type != JointType::Slider;
  });
  if (!other_limits.empty())
    out.push_back("implicit-penalty: the limits of joint " + name_list(other_limits) +
                  " are ignored (limits are penalty springs on hinge and slider coordinates only)");
  const std::vector<std::string> limits = joints_where(scene, [](const Joint& j) {
    return j.limit.enabled && (j.type == JointType::Hinge || j.type == JointType::Slider);
  });
  if (s.limit_stiffness <= 0.0 && !limits.empty())
    out.push_back("implicit-penalty: limit_stiffness = 0: the limits of joint " + name_list(limits) + " are ignored");
  const std::vector<std::string> bouncy = materials_using(scene, &Material::restitution);
  if (s.model == ContactModel::PerPoint && !bouncy.empty())
    out.push_back("implicit-penalty: contact_model = per_point: the restitution of material " + name_list(bouncy) +
                  " is ignored (the per-point damping is the parameter damping)");
  return out;
}

}  // namespace cl
