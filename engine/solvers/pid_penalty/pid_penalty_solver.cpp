#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>

#include "collision/continuous.h"
#include "graph/stack_loads.h"
#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

const ParamTable<PidPenaltySolver::Settings>& PidPenaltySolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::points, {"points", ParamKind::Choice, "", 0, 1, 0,
       "multi_point: forces on the bottom of the penetration volume (sect. III-A), shared among the points that "
       "carry force; deepest_point: the paper's baseline, the deepest point alone",
       {"multi_point", "deepest_point"}}),
      T::bind(&S::gains, {"gains", ParamKind::Choice, "", 0, 1, 0,
       "What the gains are per kilogram of. load: of the mass the contact carries, the upper body's share of "
       "everything at or above its stack height (from the contact graph's stack heights, shared among the bodies "
       "level with it there; m1 + m2 for pairs outside a stack), so that every contact of a stack is held about "
       "as deep as one box on the ground; masses: of m1 + m2, the "
       "paper's rule (sect. III-C), under which a contact low in a stack carries many times the mass its gains "
       "are sized for",
       {"load", "masses"}}),
      T::bind(&S::kp, {"proportional_gain", ParamKind::Real, "N/(m kg)", 0, 1e8, 1e4,
       "k_p per kilogram (of the carried mass, or of m1 + m2; fixed bodies count 0; see gains) (sect. III-C; "
       "the paper's examples use 100 per kilogram of m1 + m2). The default holds a load about g / this = 1 mm "
       "deep, less the integral's share"}),
      T::bind(&S::kv, {"derivative_gain", ParamKind::Real, "N s/(m kg)", 0, 1e6, 200,
       "k_v per kilogram (see gains): damping on the normal relative velocity (eq. 1; the paper's examples use "
       "50). The default is critical damping for a body on a fixed one, 2 sqrt(proportional_gain)"}),
      T::bind(&S::ki, {"integral_gain", ParamKind::Real, "N/(m kg)", 0, 1e8, 200,
       "k_i per kilogram (see gains): the weight of the pair's integral I of its deepest penetration (eq. 2-3; "
       "the paper's examples use 2, a fiftieth of k_p)"}),
      T::bind(&S::forgetting, {"forgetting", ParamKind::Real, "", 0.01, 0.99, 0.9,
       "lambda of eq. 2: the integral keeps this fraction of itself per `substep` of time (the paper: 0.8 to 0.9 "
       "works; must lie in (0, 1)); a shorter substep adds its depth in proportion and forgets lambda^(h / "
       "substep), so the integral is the same function of time at any substep"}),
      T::bind(&S::impact_speed, {"impact_speed", ParamKind::Real, "m/s", 0, 100, 0.01,
       "epsilon of Fig. 2: a pair that comes into touch approaching faster than this is an impact, resolved by "
       "impulses with the material's restitution; slower, it is a resting (penalty) contact until it separates"}),
      T::bind(&S::substep, {"substep", ParamKind::Real, "s", 1e-5, 0.01, 1e-3,
       "h: the integration step; the world's step is split into substeps no longer than this (the paper: 1e-3). "
       "Under the explicit integrators (semi_implicit_euler, rk4) shorter where a contact's gains need it to stay "
       "stable (see least_substep)"}),
      T::bind(&S::least_substep, {"least_substep", ParamKind::Real, "s", 1e-7, 0.01, 2e-5,
       "semi_implicit_euler and rk4: the shortest substep taken for stability. A stiff contact on a light body (a "
       "heavy load on a light box) needs h <= sqrt(m_reduced / (k_p n)) with n its body's resting pairs; below "
       "this the gains are cut to what the substep bears instead, and the contact is held deeper"}),
      T::bind(&S::integrator, {"integrator", ParamKind::Choice, "", 0, 2, 0,
       "implicit_euler: eq. 3's springs and dampers linearly implicit (backward Euler on the penalty forces, one "
       "sparse solve over the touching bodies per substep), stable at `substep` whatever the gains; "
       "semi_implicit_euler: v += h a with the springs explicit (the dampers implicit), the substep shortened "
       "where a contact's stiffness needs it; rk4: the paper's fourth-order Runge-Kutta on the penalty and applied "
       "forces (four force evaluations per substep; substeps shortened likewise)",
       {"implicit_euler", "semi_implicit_euler", "rk4"}}),
      T::bind(&S::friction, {"friction", ParamKind::Choice, "", 0, 1, 1,
       "rows (implicit_euler; the other integrators take the spring): two rows at the centre of each pair's normal "
       "forces solved with the normal springs, that stop the slip, held to mu times the same solve's normal force "
       "by the active set (Coulomb at the velocity level; pairs with a body of a joint keep the spring); spring: a "
       "tangential spring-damper on each pair's accumulated slip at that centre, saturated at mu times the normal "
       "force (explicit)",
       {"spring", "rows"}}),
      // The friction rows' damping (solve_springs): a sticking contact slips at its friction force over e.
      T::bind(&S::friction_lock, {"friction_lock", ParamKind::Real, "", 0.01, 1000, 10,
       "friction rows: how firmly a pair's two friction rows stop its slip; their damping h e is this times the "
       "pair's gain mass (kg, see gains). Too low lets part of a slip through, and a box that must slide is read "
       "as sticking: at 0.01 a 2 cm box at the edge of sliding slides 1.4 % fast"}),
      // The tilt rows' damping (solve_springs): the friction's moment at a sliding box's base is held by the pressure
      // shifting across the patch as on a rigid face, while the points' springs still level a body that rests tilted
      // within I / (k h), 0.07 s for a cube of tilt stiffness k on the ground (at 10 a box that slid to a stop crept
      // back 0.13 mm as its tilt relaxed over 0.7 s, and at 100 a tilted box landing was still turning after 10 s).
      T::bind(&S::tilt_lock, {"tilt_lock", ParamKind::Real, "", 0.01, 100, 1,
       "friction rows: how firmly a flat pair's two tilt rows hold its relative turn about the tangent axes, each "
       "within the normal force times the patch's reach; their damping h e is this times the pair's moment of "
       "inertia about the axis (1 halves a turn within the substep). Too low lets the friction's moment turn a "
       "sliding box over its base: at 0.01 a 1 m box at the edge of sliding slides 0.25 % fast"}),
      T::bind(&S::point_spacing, {"point_spacing", ParamKind::Real, "m", kLeastShellSpacing, 1, 0.05,
       "Pairs with a mesh: spacing of the point shells of the boxes and capsules they meet (at most a third of a "
       "box's shortest edge); spheres and capsules also at most sqrt(r x 1 mm) so a cap 1 mm deep holds a point; "
       "meshes use their grid cell. Pairs of primitives take their points from the narrow phase's exact contact "
       "geometry instead"}),
      T::bind(&S::point_damping, {"point_damping", ParamKind::Real, "", 0, 1, 1,
       "How much of the derivative term follows each point's own normal velocity v(rho) (1: eq. 1 as printed, "
       "which damps rocking) rather than the velocity at the centre of the pair's points (0). Pairs with a sphere "
       "or capsule always take the centre's: per-point damping of a rolling body's material acts as rolling "
       "resistance"}),
      T::bind(&S::impact_passes, {"impact_passes", ParamKind::Integer, "", 1, 1000, 20,
       "Most passes of sequential impulses over the impacting pairs of a substep"}),
      T::bind(&S::joint_iterations, {"joint_iterations", ParamKind::Integer, "", 1, 1000, 10,
       "Projected Gauss-Seidel sweeps over the joint rows per substep"}),
  });
  return table;
}

std::span<const ParamSpec> PidPenaltySolver::param_specs() { return table().specs(); }

PidPenaltySolver::PidPenaltySolver() : Solver(param_specs(), kStages, kCounters) { begin_step(); }

void PidPenaltySolver::read_settings() { set_ = table().read(params_); }

double PidPenaltySolver::continuous_depth() const { return set_.kp > 0.0 ? kStandardGravity / set_.kp : 0.0; }

void PidPenaltySolver::reset() {
  pairs_.clear();
  joint_warm_.clear();
  views_.clear();
}

double PidPenaltySolver::gain_mass(const PairKey& key, const Body& a, const Body& b) const {
  // Sect. III-C: gains proportional to m1 + m2; a fixed or kinematic body adds nothing.
  const double masses = (a.is_dynamic() ? a.mass : 0.0) + (b.is_dynamic() ? b.mass : 0.0);
  if (set_.gains == GainModel::Masses) return masses;
  // The load the pair carries: its upper body's (the smaller load of the two). Sect. III's integral term is
  // there so that stacks stand "without extensively tweaking the PD gains"; but its forgetting factor bounds it
  // at k_i d / (1 - lambda), and with gains of m1 + m2 the contact under a 100 kg box on a 1 kg box is held by
  // 1 kg's gains about 10 cm deep. Sized by the load, each contact of a stack is held about as deep as a box on
  // the ground. The load is the upper body's share of what its stack height carries (stack_loads): a pyramid's
  // bottom row carries the pyramid among its boxes, and gains sized by all of it on each held its 60-row pyramid
  // some 60 times stiffer than its load needs, which its implicit springs' solve could not settle (it blew up).
  const auto load = [&](int i) { return size_t(i) < loads_.size() ? loads_[size_t(i)] : 0.0; };
  const int upper = load(key.first) <= load(key.second) ? key.first : key.second;
  const double share = size_t(upper) < shares_.size() ? shares_[size_t(upper)] : 0.0;
  const double carried = std::isfinite(share) ? std::max(share, masses) : masses;
  if (set_.kp <= 0.0) return carried;
  // The depth the load would be held at, g / k_p per kilogram, is bounded twice over; where a bound is shallower
  // the pair takes the gains that hold its load that deep.
  // A small or thin body: at most kThinDepth of the thinner body's half thickness, so the resting depth scales with
  // the body (a 0.2 mm sheet held 1 mm deep is through the ground, and the world's continuous collision, which lets
  // a contact deepen by a quarter of that in a step, put a sheet landing on its edge back at the step's start, step
  // after step; a 2 cm box rested 4 % of its size deep).
  double depth = kThinDepth * thinner_half_thickness(a.shape, b.shape);  // m
  // A stack: a column of compliant contacts buckles under its own weight (Greenhill's heavy column) unless each
  // contact is stiff enough against tilting: a patch of second moment J (least over the tangent directions) held at
  // depth d resists a tilt with (W / d) J per radian while its load W, whose centre lies H above it, topples it
  // with W H. Summed over a stack of n layers the tilts stay bounded when each d <= J / (c H n) (c =
  // kStackMargin); 20 boxes of 10 cm at 1 mm each bent into an S and fell after 8 s.
  const auto it = pairs_.find(key);
  if (it != pairs_.end() && it->second.patch_moment > 0.0 && size_t(upper) < layers_.size() && carried > masses) {
    const Pair& pair = it->second;
    const int n = layers_[size_t(upper)];
    const double H = std::abs((load_centres_[size_t(upper)] - pair.patch_centre).dot(
        (pair.normal_of_b ? b : a).rotation() * pair.normal_local));
    if (n > 0 && H > 0.0) depth = std::min(depth, pair.patch_moment / (kStackMargin * H * n));
  }
  // Neither bound shallower than a load falls in one substep, g h^2: the linearly implicit springs keep the
  // points, lever arms and normal of the substep's start, and a depth passed within the substep puts their
  // stiffness on a geometry that is gone (per kilogram of the load at most 1 / h^2). In a pile a 9 kg box on the
  // edge of a 6 kg one (three bottom points nearly in a line, J = 2.3e-6 m^2; n = 6, H = 1.8 m) was to hold its
  // 2,800 kg load 1e-7 m deep, gains of 2.6e7 kg for 15 kg of bodies, and the pair was thrown at 1e15 m/s.
  depth = std::max(depth, kStandardGravity * set_.substep * set_.substep);
  return carried * std::max(1.0, kStandardGravity / (set_.kp * depth));
}

PidPenaltySolver::Gains PidPenaltySolver::pair_gains(const PairKey& key, const Pair& pair, const Body& a,
                                                     const Body& b, double h) const {
  const double mass = pair.gain_mass;
  const double inverse = (a.is_dynamic() ? a.inv_mass : 0.0) + (b.is_dynamic() ? b.inv_mass : 0.0);
  Gains g{set_.kp * mass, set_.kv * mass, set_.ki * mass, set_.kv * mass, set_.kp * mass};
  if (inverse <= 0.0) return g;
  // Our bound for the explicit integration: between a light and a heavy body, m1 + m2 is the heavy mass while
  // the light one moves; past these the substep would be unstable. A body held by several penalty pairs feels
  // the sum of their springs and dampers, so each pair gets its share of the bound: a 7 kg cylinder wedged
  // between 23 kg and 90 kg bodies and a wall took three dampers each at the bound, c h / m = 3 > 2, and was
  // thrown out of the pile (1.8 kJ at h = 1e-3).
  const double reduced = 1.0 / inverse;
  const double share = bound_share(key);
  const double k_max = kStiffnessBound * reduced / (h * h * share), c_max = kDampingBound * reduced / (h * share);
  // The implicit integrator steps the normal springs stably at any stiffness (solve_springs); the friction spring
  // and damper stay explicit under every integrator.
  if (g.kp > k_max && set_.integrator != Integrator::ImplicitEuler) {
    g.ki *= k_max / g.kp;
    g.kp = k_max;
  }
  g.kt = std::min(g.kp, k_max);
  g.kv = std::min(g.kv, c_max);
  // The integral term is a spring that lags the depth (by the forgetting time h0 / (1 - lambda)), which feeds the
  // load's oscillation; only damping holds it back, and through a light body the damping reaches a heavy load by
  // at most the light body's mass per substep, c = m / h. Routh-Hurwitz for the loop M x^(3) + c x'' + k_p x' +
  // k_i' x = 0 (k_i' = k_i / h0 per second) asks k_i' < c k_p / M, so k_i stays below (h0 / h) m k_p / M times the
  // load M: with the full k_i a 4,189 kg ball on a 0.52 kg ball rang up until it was thrown 30 m.
  g.ki = std::min(g.ki, (set_.substep / h) * reduced * set_.kp);
  // The implicit normal damping at most kDampingCap times critical for the pair's own relative motion,
  // 2 sqrt(k_p m): far above it the pair-by-pair solves lock a light body to its neighbours within each substep,
  // and with the explicit springs that pumped tall towers over (tower80 fell); at critical itself the light
  // bricks of a wall were too little damped and it blew up.
  g.kv_normal = std::min(g.kv_normal, kDampingCap * 2.0 * std::sqrt(g.kp * reduced));
  return g;
}

double PidPenaltySolver::bound_share(const PairKey& key) const {
  const auto pairs_of = [&](int body) {
    return body >= 0 && size_t(body) < penalty_pairs_.size() ? penalty_pairs_[size_t(body)] : 0;
  };
  return double(std::max({1, pairs_of(key.first), pairs_of(key.second)}));
}

void PidPenaltySolver::count_penalty_pairs(const std::vector<Body>& bodies) {
  penalty_pairs_.assign(bodies.size(), 0);
  for (const auto& [key, pair] : pairs_) {
    if (pair.mode != Mode::Penalty) continue;
    if (bodies[size_t(key.first)].is_dynamic()) ++penalty_pairs_[size_t(key.first)];
    if (bodies[size_t(key.second)].is_dynamic()) ++penalty_pairs_[size_t(key.second)];
  }
}

// The substep: `substep` (the paper's 1e-3 s), or shorter where a pair's stiffness k_p needs it for the explicit
// integration to stay stable on the pair's reduced mass m: k_p h^2 / m <= 1/4 (kStiffnessBound) with its share of
// the bound, the most pairs either of its dynamic bodies is in. Gains sized by the load put a stack's weight on its
// lowest light bodies: a 1 kg box under 100 kg needs h <= 0.35 ms. Not below least_substep: there pair_gains cuts
// the gains to the bound instead.
double PidPenaltySolver::stable_substep(const std::vector<Body>& bodies) {
  for (auto& entry : pairs_)
    entry.second.gain_mass = gain_mass(entry.first, bodies[size_t(entry.first.first)], bodies[size_t(entry.first.second)]);
  if (set_.integrator == Integrator::ImplicitEuler) return set_.substep;  // stable at any stiffness
  std::vector<int>& count = penalty_pairs_;  // reused: pairs per body here, penalty pairs per substep later
  count.assign(bodies.size(), 0);
  for (const auto& entry : pairs_) {
    if (bodies[size_t(entry.first.first)].is_dynamic()) ++count[size_t(entry.first.first)];
    if (bodies[size_t(entry.first.second)].is_dynamic()) ++count[size_t(entry.first.second)];
  }
  double h = set_.substep;
  for (const auto& entry : pairs_) {
    const Body& a = bodies[size_t(entry.first.first)];
    const Body& b = bodies[size_t(entry.first.second)];
    const double inverse = (a.is_dynamic() ? a.inv_mass : 0.0) + (b.is_dynamic() ? b.inv_mass : 0.0);
    const double k = set_.kp * entry.second.gain_mass;
    if (inverse <= 0.0 || k <= 0.0) continue;
    const double share = std::max({1, count[size_t(entry.first.first)], count[size_t(entry.first.second)]});
    h = std::min(h, std::sqrt(kStiffnessBound / (inverse * k * share)));
  }
  return std::max(h, std::min(set_.least_substep, set_.substep));
}

void PidPenaltySolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  for (auto& [key, pair] : pairs_) {
    pair.present = false;
    pair.step_impulse = pair.step_point_sum = Vec3::Zero();
    pair.step_weight = 0.0;
  }
  views_.clear();
  // Every contact comes from this method's collide (World::set_solver drops the contacts of another), which keeps
  // the pair; a pair without contacts this step has separated.
  for (const Contact& c : ctx.contacts) {
    const auto it = pairs_.find({c.a, c.b});
    if (it == pairs_.end()) continue;
    it->second.present = true;
    it->second.friction = c.friction;
    it->second.restitution = c.restitution;
  }
  std::erase_if(pairs_, [](const auto& kv) { return !kv.second.present; });

  for (Body& b : ctx.bodies) b.sleeping = false;  // this method does not sleep bodies
  jointed_.assign(n, 0);
  for (const Joint& joint : ctx.joints)
    for (const int i : {joint.body_a, joint.body_b})
      if (i >= 0 && size_t(i) < n) jointed_[size_t(i)] = 1;
  work_ = ctx.bodies;
  const Vec3 up = ctx.gravity.norm() > 0.0 ? Vec3(-ctx.gravity.normalized()) : Vec3::Zero();
  stack_loads(ctx.graph, ctx.bodies, loads_, &load_centres_, &shares_, up);
  layers_.assign(n, 0);
  for (size_t i = 0; i < n && i < ctx.graph.group_of_body().size(); ++i) {
    const int g = ctx.graph.group_of_body()[i];
    if (g >= 0) layers_[i] = ctx.graph.groups()[size_t(g)].layer_count;
  }
  const int substeps = std::max(1, int(std::ceil(ctx.dt / stable_substep(ctx.bodies) - 1e-9)));
  const double h = ctx.dt / substeps;
  residual_ = 0.0;
  for (int s = 0; s < substeps; ++s) {
    reread_moved_pairs(work_);
    impacts(work_, h);
    count_penalty_pairs(work_);
    if (s + 1 == substeps) begin_views(work_);  // the last substep's force evaluation fills them
    if (set_.integrator == Integrator::Rk4) substep_rk4(ctx, work_, h);
    else if (set_.integrator == Integrator::ImplicitEuler) substep_implicit(ctx, work_, h);
    else substep_euler(ctx, work_, h);
    for (size_t i = 0; i < n; ++i) {  // the impacts met ahead within the substep happened late in it (impacts)
      const auto& [dx, dtheta] = late_shift_[i];
      if (work_[i].is_dynamic() && (dx.squaredNorm() > 0.0 || dtheta.squaredNorm() > 0.0))
        displace(work_[i], dx, dtheta);
    }
    end_substep(work_, h);
  }
  if (set_.integrator == Integrator::ImplicitEuler) {  // the friction the last substep's solve found
    size_t index = 0;
    for (const auto& entry : pairs_)
      if (index < views_.size()) views_[index++].friction = entry.second.friction_force;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.bodies[i].is_dynamic()) continue;
    ctx.bodies[i].linear_velocity = work_[i].linear_velocity;
    ctx.bodies[i].angular_velocity = work_[i].angular_velocity;
  }
  ctx.stats.iterations += substeps;
  for (const auto& entry : pairs_) {
    const Pair& pair = entry.second;
    if (pair.mode == Mode::Penalty) counters_.add(kCountPenaltyPairs, 1);
    if (pair.mode == Mode::Impact) counters_.add(kCountImpactPairs, 1);
    counters_.raise(kCountLargestIntegral, pair.integral);
  }
  ctx.stats.residual = std::max(ctx.stats.residual, residual_);
  ctx.stats.sleeping = 0;
}

// A view of every pair as the last substep's impacts left it, in the order of pairs_ (motions_ holds that
// substep's start); its force evaluation adds the points, their force parts and the friction.
void PidPenaltySolver::begin_views(const std::vector<Body>& bodies) {
  views_.clear();
  for (const auto& [key, pair] : pairs_) {
    PairView v;
    v.a = key.first;
    v.b = key.second;
    v.mode = pair.mode;
    v.normal = contact_normal(bodies, pair, motions_, key);
    v.integral = pair.integral;
    views_.push_back(std::move(v));
  }
}

void PidPenaltySolver::integrate_positions(StepContext& ctx) {
  // The substeps moved the bodies already; the world's bodies take the end of the step.
  for (size_t i = 0; i < ctx.bodies.size(); ++i) {
    Body& b = ctx.bodies[i];
    if (b.kind == BodyKind::Fixed) continue;
    b.position = work_[i].position;
    b.orientation = work_[i].orientation;
    if (b.is_dynamic()) b.angular_velocity = work_[i].angular_velocity;
    b.update_world_inertia();
  }
}

// Eq. 2's integral over the substep just taken, and each pair's friction stretch advanced by its slip, held within
// the Coulomb limit (a sliding pair's spring then holds exactly mu times its normal force).
void PidPenaltySolver::end_substep(const std::vector<Body>& work, double h) {
  load_motions(work, motions_);
  // Eq. 2 per `substep` of time: a substep of h adds h / substep of its depth and keeps lambda^(h / substep).
  const double fraction = h / set_.substep;
  const double keep = std::pow(set_.forgetting, fraction);
  for (auto& [key, pair] : pairs_) {
    if (pair.mode != Mode::Penalty) continue;
    pair.integral = keep * pair.integral + fraction * pair.deepest;
    const Body& A = work[size_t(key.first)];
    const Body& B = work[size_t(key.second)];
    const Vec3 n = contact_normal(work, pair, motions_, key);
    // The substep's contact force for the report: the springs' and, but under RK4, the implicit damping's. Under
    // the implicit integrator the springs' solve already holds the damping (normal_force is what it applied;
    // damping_force is that less the explicit part, for the next substep's friction limit), so only what the
    // joints' contact rows pressed is added.
    const double extra = set_.integrator == Integrator::Rk4             ? 0.0
                         : set_.integrator == Integrator::ImplicitEuler ? pair.pressed
                                                                        : pair.damping_force;
    const double applied = pair.normal_force + extra;
    if (applied > 0.0) add_to_report(pair, n, h * (applied * n + pair.friction_force), pair.centre);
    if (pair.normal_force <= 0.0 || pair.friction <= 0.0) continue;
    {
      // The friction spring's stretch: the pair's slip at its centre over the substep (the joints' part included),
      // its force within Coulomb's limit of the normal force and what the joints' contact rows pressed (under the
      // implicit integrator the rows' normal force, and the spring is the friction rows' k_p). With the pressed part
      // counted only for the rows, a gripper's fingers, which keep the spring (jointed), held their stretch to the
      // penalty springs' part of the squeeze, and the box crept down the fingers on the damper.
      const bool rows = set_.integrator == Integrator::ImplicitEuler && pair.friction_rows;
      const Vec3 u = B.velocity_at(pair.centre) - A.velocity_at(pair.centre);
      pair.stretch += h * (u - n.dot(u) * n);
      pair.stretch -= n.dot(pair.stretch) * n;
      const Gains g = pair_gains(key, pair, A, B, h);
      const double k = rows ? g.kp : g.kt;
      const double limit = pair.friction * (pair.normal_force + pair.pressed);
      if (k * pair.stretch.norm() > limit) pair.stretch *= std::max(limit, 0.0) / (k * pair.stretch.norm());
    }
    pair.twist += h * (B.angular_velocity - A.angular_velocity).dot(n);
    if (pair.twist_stiffness * std::abs(pair.twist) > pair.twist_limit)
      pair.twist = std::copysign(pair.twist_limit / pair.twist_stiffness, pair.twist);
  }
}

}  // namespace cl
