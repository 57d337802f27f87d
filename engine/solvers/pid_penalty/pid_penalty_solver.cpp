#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "collision/narrowphase.h"
#include "constraints/motion.h"
#include "constraints/pgs.h"
#include "constraints/row.h"
#include "solvers/pid_penalty/bottom_polygon.h"

namespace cl {

namespace {

enum Stage { kShellQueries, kImpacts, kForces, kJoints, kUpdate };
constexpr SubStage kStages[] = {
    {"shell_queries", StepStage::NarrowPhase},  // candidate points, contact normal (eq. 4), bottom polygon
    {"impacts", StepStage::Solve},              // the state machine and the sequential impulses
    {"forces", StepStage::Solve},               // PID penalty and friction forces (eq. 1-3)
    {"joints", StepStage::Solve},               // joint rows by projected Gauss-Seidel
    {"update", StepStage::Solve},               // the integrator
};

// m: a round shape's shell has a point under any contact this deep (round_shell_spacing).
constexpr double kRoundCapDepth = 0.001;
// Stability bounds of the explicit force integration on the pair's reduced mass m: k h^2 / m <= 1/4 (omega h <= 1/2)
// and c h / m <= 1, so that one substep never more than stops a contact's approach by itself.
constexpr double kStiffnessBound = 0.25;
constexpr double kDampingBound = 1.0;

// Spheres and capsules: their surface normals pass through their centre or axis.
bool is_round(const Shape& s) { return s.type == ShapeType::Sphere || s.type == ShapeType::Capsule; }

}  // namespace

const ParamTable<PidPenaltySolver::Settings>& PidPenaltySolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::points, {"points", ParamKind::Choice, "", 0, 1, 0,
       "multi_point: forces on the bottom of the penetration volume (sect. III-A), shared among the points that "
       "carry force; deepest_point: the paper's baseline, the deepest point alone",
       {"multi_point", "deepest_point"}}),
      T::bind(&S::kp, {"proportional_gain", ParamKind::Real, "N/(m kg)", 0, 1e8, 1e4,
       "k_p per kilogram of the pair's mass m1 + m2 (fixed bodies count 0): the pair's stiffness k_p = this "
       "(m1 + m2) (sect. III-C; the paper's examples use 100). The default holds a body at rest about g / "
       "this = 1 mm deep"}),
      T::bind(&S::kv, {"derivative_gain", ParamKind::Real, "N s/(m kg)", 0, 1e6, 200,
       "k_v per kilogram of m1 + m2: damping on the normal relative velocity (eq. 1; the paper's examples use 50). "
       "The default is critical damping for a body on a fixed one, 2 sqrt(proportional_gain)"}),
      T::bind(&S::ki, {"integral_gain", ParamKind::Real, "N/(m kg)", 0, 1e8, 200,
       "k_i per kilogram of m1 + m2: the weight of the pair's integral I of its deepest penetration (eq. 2-3; "
       "the paper's examples use 2, a fiftieth of k_p)"}),
      T::bind(&S::forgetting, {"forgetting", ParamKind::Real, "", 0.01, 0.99, 0.9,
       "lambda of eq. 2: the integral keeps this fraction of itself per substep (the paper: 0.8 to 0.9 works; "
       "must lie in (0, 1))"}),
      T::bind(&S::impact_speed, {"impact_speed", ParamKind::Real, "m/s", 0, 100, 0.01,
       "epsilon of Fig. 2: a pair that comes into touch approaching faster than this is an impact, resolved by "
       "impulses with the material's restitution; slower, it is a resting (penalty) contact until it separates"}),
      T::bind(&S::substep, {"substep", ParamKind::Real, "s", 1e-5, 0.01, 1e-3,
       "h: the integration step; the world's step is split into substeps no longer than this (the paper: 1e-3)"}),
      T::bind(&S::integrator, {"integrator", ParamKind::Choice, "", 0, 1, 0,
       "semi_implicit_euler: v += h a, then x += h v; rk4: the paper's fourth-order Runge-Kutta on the penalty "
       "and applied forces (four force evaluations per substep)",
       {"semi_implicit_euler", "rk4"}}),
      T::bind(&S::point_spacing, {"point_spacing", ParamKind::Real, "m", kLeastShellSpacing, 1, 0.05,
       "Spacing of the point shells of boxes and capsules (at most a third of a box's shortest edge); spheres "
       "and capsules also at most sqrt(r x 1 mm) so a cap 1 mm deep holds a point; meshes use their grid cell"}),
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

PidPenaltySolver::PidPenaltySolver() {
  params_ = ParamSet(param_specs());
  begin_step();
}

namespace {
// The method's own counters (StepStats::counters), of the step's last substep but for the impulse passes.
enum Counter { kCountPenaltyPairs, kCountImpactPairs, kCountLargestIntegral, kCountImpulsePasses };
constexpr SolverCounter kCounters[] = {
    {"penalty_pairs", ""},         // pairs in penalty (resting) mode (Fig. 2)
    {"impact_pairs", ""},          // pairs in impact mode
    {"largest_integral", "m"},     // the largest integral term I of eq. 2 over the pairs
    {"impulse_passes", ""},        // passes of sequential impulses over the impacting pairs, all substeps
};
}  // namespace

void PidPenaltySolver::begin_step() {
  set_ = table().read(params_);
  sub_stages_.declare(kStages);
  counters_.declare(kCounters);
  clear_convergence();
}

void PidPenaltySolver::reset() {
  pairs_.clear();
  joint_warm_.clear();
  views_.clear();
}

double PidPenaltySolver::shell_spacing(const Shape& shape) const {
  if (shape.type == ShapeType::Box)
    return std::max(kLeastShellSpacing, std::min(set_.point_spacing, 2.0 * shape.half_extents.minCoeff() / 3.0));
  return round_shell_spacing(shape, set_.point_spacing, kRoundCapDepth);
}

// Appendix I: each body's shell points inside (or within `margin` of) the other's signed distance; the contact
// normal by eq. 4; the bottom of the penetration volume (sect. III-A). The world gets one contact per bottom point.
void PidPenaltySolver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  ScopedSubStage timer(sub_stages_, kShellQueries);
  const Body& A = bodies[ia];
  const Body& B = bodies[ib];
  const Mat3 ra = A.rotation(), rb = B.rotation();
  thread_local std::vector<PenetratingPoint> a_in_b, b_in_a;
  a_in_b.clear();
  b_in_a.clear();
  if (auto shell = penalty_shell(A.shape, shell_spacing(A.shape)))
    find_penetrating_points(B.shape, B.position, rb, *shell, A.position, ra, a_in_b, margin);
  if (auto shell = penalty_shell(B.shape, shell_spacing(B.shape)))
    find_penetrating_points(A.shape, A.position, ra, *shell, B.position, rb, b_in_a, margin);
  const PairKey key(ia, ib);
  if (a_in_b.empty() && b_in_a.empty()) {
    pairs_.erase(key);
    return;
  }
  Pair& pair = pairs_[key];
  pair.points.clear();
  pair.xa0 = A.position;
  pair.xb0 = B.position;
  pair.qa0 = A.orientation;
  pair.qb0 = B.orientation;
  // World position, depth (> 0 inside), and the facet each point is nearest (of the other body): its normal (from
  // a to b) and the plane's offset along it.
  struct Seen {
    Vec3 p;
    double depth;
    Vec3 n;
    double offset;
    Vec3 surface_normal;  // the point's own outward normal (its shell's), world
  };
  std::vector<Seen> seen;
  auto add = [&](const PenetratingPoint& q, bool of_b) {
    const Body& owner = of_b ? B : A;
    const Mat3& r_owner = of_b ? rb : ra;
    const Mat3& r_field = of_b ? ra : rb;
    const Vec3 p = owner.position + r_owner * q.r_b;
    const double phi = q.d + margin;  // the field's own signed distance
    Vec3 g = r_field * q.g_a;
    const double len = g.norm();
    if (len == 0.0) return;
    g /= len;
    // The field body's surface point nearest p, and its facet's plane: a's facets face b (n = g_a), b's face a
    // (n = -g_b).
    const Vec3 surface = p - (phi / len) * g;
    const Vec3 n = of_b ? g : Vec3(-g);
    const Body& field = of_b ? A : B;
    pair.points.push_back({of_b, q.r_b, -phi, q.r_b.norm(), (p - field.position).norm()});
    seen.push_back({p, -phi, n, n.dot(surface), r_owner * q.n_b});
  };
  for (const PenetratingPoint& q : a_in_b) add(q, false);
  for (const PenetratingPoint& q : b_in_a) add(q, true);
  if (pair.points.empty()) {
    pairs_.erase(key);
    return;
  }

  // Eq. 4: of the facets nearest the penetrating points, the one whose plane the points are least far from in the
  // worst case: the direction of minimum translation. Facets are told apart by their normals.
  double deepest = -1e300;
  for (const Seen& s : seen) deepest = std::max(deepest, s.depth);
  std::vector<int> inside;
  for (int i = 0; i < int(seen.size()); ++i)
    if (seen[i].depth > 0.0) inside.push_back(i);
  if (inside.empty())  // only near: the nearest point's facet
    for (int i = 0; i < int(seen.size()); ++i)
      if (seen[i].depth == deepest) inside.push_back(i);
  int best = inside.front();
  double best_cost = 1e300;
  std::vector<Vec3> tried;
  for (int i : inside) {
    const Vec3& n = seen[i].n;
    if (std::any_of(tried.begin(), tried.end(), [&](const Vec3& t) { return t.dot(n) > 1.0 - 1e-9; })) continue;
    tried.push_back(n);
    double cost = 0.0;
    for (int j : inside) cost = std::max(cost, std::abs(n.dot(seen[j].p) - seen[i].offset));
    if (cost < best_cost) {
      best_cost = cost;
      best = i;
    }
  }
  const Vec3 normal = seen[best].n;
  pair.normal_of_b = !pair.points[size_t(best)].of_b;  // the facet is the other body's
  pair.normal_local = (pair.normal_of_b ? rb : ra).transpose() * normal;

  // The bottom of the penetration volume, from all candidates (the ones still outside may enter during the step).
  // A point is on a side of the volume, not its bottom, when its own normal points less than 60 degrees' worth
  // toward the other body (cosine under 1/2; a's points face along the normal, b's against it): a cylinder's or a
  // mesh box's side under its face, not a cap or a tilted face.
  constexpr double kBottomCosine = 0.5;
  std::vector<Vec3> points(seen.size());
  std::vector<double> depths(seen.size());
  std::unique_ptr<bool[]> side(new bool[seen.size()]);
  for (size_t i = 0; i < seen.size(); ++i) {
    points[i] = seen[i].p;
    depths[i] = seen[i].depth;
    const double facing = seen[i].surface_normal.dot(normal) * (pair.points[i].of_b ? -1.0 : 1.0);
    side[i] = facing < kBottomCosine;
  }
  pair.bottom = pid_penalty::bottom_of_penetration(points, depths, normal, 1e-6,
                                                   std::span<const bool>(side.get(), seen.size()));
  for (int i : pair.bottom) {
    Contact c;
    c.a = ia;
    c.b = ib;
    c.position = seen[i].p;
    c.normal = normal;
    c.depth = seen[i].depth;
    c.feature = (pair.points[i].of_b ? 0x80000000u : 0u) | uint32_t(i);
    out.push_back(c);
  }
}

PidPenaltySolver::Gains PidPenaltySolver::pair_gains(const PairKey& key, const Body& a, const Body& b, double h) const {
  // Sect. III-C: gains proportional to m1 + m2; a fixed or kinematic body adds nothing.
  const double mass = (a.is_dynamic() ? a.mass : 0.0) + (b.is_dynamic() ? b.mass : 0.0);
  const double inverse = (a.is_dynamic() ? a.inv_mass : 0.0) + (b.is_dynamic() ? b.inv_mass : 0.0);
  Gains g{set_.kp * mass, set_.kv * mass, set_.ki * mass};
  if (inverse <= 0.0) return g;
  // Our bound for the explicit integration: between a light and a heavy body, m1 + m2 is the heavy mass while
  // the light one moves; past these the substep would be unstable. A body held by several penalty pairs feels
  // the sum of their springs and dampers, so each pair gets its share of the bound: a 7 kg cylinder wedged
  // between 23 kg and 90 kg bodies and a wall took three dampers each at the bound, c h / m = 3 > 2, and was
  // thrown out of the pile (1.8 kJ at h = 1e-3).
  const double reduced = 1.0 / inverse;
  const double share = bound_share(key);
  const double k_max = kStiffnessBound * reduced / (h * h * share), c_max = kDampingBound * reduced / (h * share);
  if (g.kp > k_max) {
    g.ki *= k_max / g.kp;
    g.kp = k_max;
  }
  g.kv = std::min(g.kv, c_max);
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

Vec3 PidPenaltySolver::contact_normal(const Pair& pair, const std::vector<Motion>& m, const PairKey& key) const {
  return m[size_t(pair.normal_of_b ? key.second : key.first)].R * pair.normal_local;
}

PidPenaltySolver::Drift PidPenaltySolver::drift(const std::vector<Body>& bodies, const std::vector<Motion>& m,
                                                 const PairKey& key, const Pair& pair) const {
  // The angle of the turn from q0 to q: 2 atan2(|vec|, |w|) of q q0^-1 (accurate for small turns, unlike acos).
  const auto turn = [](const Quat& q, const Quat& q0) {
    const Quat r = q * q0.conjugate();
    return 2.0 * std::atan2(r.vec().norm(), std::abs(r.w()));
  };
  const Motion& A = m[size_t(key.first)];
  const Motion& B = m[size_t(key.second)];
  Drift d;
  d.move_a = (A.x - pair.xa0).norm();
  d.turn_a = turn(A.q, pair.qa0);
  d.move_b = (B.x - pair.xb0).norm();
  d.turn_b = turn(B.q, pair.qb0);
  d.slope_a = distance_slope(bodies[size_t(key.first)].shape);
  d.slope_b = distance_slope(bodies[size_t(key.second)].shape);
  d.speed_a = A.v.norm();
  d.spin_a = A.w.norm();
  d.speed_b = B.v.norm();
  d.spin_b = B.w.norm();
  return d;
}

bool PidPenaltySolver::may_touch(const Candidate& c, const Drift& d, double ahead) {
  // m: rounding between the narrow phase's and depth_of's evaluations of the same distance is far below this.
  constexpr double kSlack = 1e-9;
  const double move_own = c.of_b ? d.move_b : d.move_a, turn_own = c.of_b ? d.turn_b : d.turn_a;
  const double move_field = c.of_b ? d.move_a : d.move_b, turn_field = c.of_b ? d.turn_a : d.turn_b;
  const double slope = c.of_b ? d.slope_a : d.slope_b;
  // In the field body's frame the point moved by at most |dx_own| + turn_own |r_own| + |dx_field| + turn_field
  // |p0 - x_field0|: its own body's motion, and the frame's shift and turn about the point's old place.
  const double moved = move_own + turn_own * c.reach + move_field + turn_field * c.field_reach;
  double bound = c.depth0 + slope * moved + kSlack;
  if (ahead > 0.0) {
    const double speed_own = c.of_b ? d.speed_b : d.speed_a, spin_own = c.of_b ? d.spin_b : d.spin_a;
    const double speed_field = c.of_b ? d.speed_a : d.speed_b, spin_field = c.of_b ? d.spin_a : d.spin_b;
    // |v_rel(p)| <= |v_own| + |w_own| |p - x_own| + |v_field| + |w_field| |p - x_field|, and |p - x_field| is at most
    // its narrow-phase value plus the point's and the field centre's displacements.
    bound += ahead * (speed_own + spin_own * c.reach + speed_field + spin_field * (c.field_reach + moved + move_field));
  }
  return bound >= 0.0;
}

bool PidPenaltySolver::depth_of(const std::vector<Body>& bodies, const std::vector<Motion>& m, const PairKey& key,
                                const Candidate& c, Vec3& point, double& depth) const {
  const int owner = c.of_b ? key.second : key.first;
  const int field = c.of_b ? key.first : key.second;
  point = m[size_t(owner)].point(c.local);
  const Motion& f = m[size_t(field)];
  double phi;
  Vec3 g;
  if (!shape_signed_distance(bodies[size_t(field)].shape, f.R.transpose() * (point - f.x), phi, g)) return false;
  depth = -phi;
  return true;
}

void PidPenaltySolver::load_motions(const std::vector<Body>& bodies, std::vector<Motion>& out) const {
  out.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    out[i] = {b.position, b.orientation, b.linear_velocity, b.angular_velocity, b.rotation()};
  }
}

void PidPenaltySolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  for (auto& [key, pair] : pairs_) pair.present = false;
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
  work_ = ctx.bodies;
  const int substeps = std::max(1, int(std::ceil(ctx.dt / set_.substep - 1e-9)));
  const double h = ctx.dt / substeps;
  residual_ = 0.0;
  for (int s = 0; s < substeps; ++s) {
    impacts(work_, h);
    count_penalty_pairs(work_);
    if (s + 1 == substeps) begin_views();  // the last substep's force evaluation fills them
    if (set_.integrator == Integrator::Rk4) substep_rk4(ctx, work_, h);
    else substep_euler(ctx, work_, h);
    end_substep(work_, h);
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
void PidPenaltySolver::begin_views() {
  views_.clear();
  for (const auto& [key, pair] : pairs_) {
    PairView v;
    v.a = key.first;
    v.b = key.second;
    v.mode = pair.mode;
    v.normal = contact_normal(pair, motions_, key);
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

// Where a force along n found at point p acts. On a sphere or capsule the surface normal at every point passes
// through its centre or axis, so the force acts on the line along n through p's nearest place on that axis: a
// ball's shell points sit unevenly in its cap, and forces along n at the points themselves turned it (a ball
// dropped on the ground started to roll and gained energy, 0.013 to 0.07 J in 10 s). Both bodies take the force on
// the same line, so momentum and angular momentum balance. Other pairs: p itself.
Vec3 PidPenaltySolver::line_of_action(const std::vector<Body>& bodies, const std::vector<Motion>& m,
                                      const PairKey& key, const Vec3& n, const Vec3& p) {
  const int r = is_round(bodies[size_t(key.second)].shape) ? key.second
                : is_round(bodies[size_t(key.first)].shape)  ? key.first
                                                             : -1;
  if (r < 0) return p;
  const Shape& shape = bodies[size_t(r)].shape;
  Vec3 q = m[size_t(r)].x;
  if (shape.type == ShapeType::Capsule) {
    const Vec3 axis = m[size_t(r)].R.col(1);
    q += std::clamp(axis.dot(p - q), -shape.half_height, shape.half_height) * axis;
  }
  return q + n.dot(p - q) * n;
}

// Fig. 2 and the impulses of impacts. A pair touches while one of its candidate points is inside the other body.
void PidPenaltySolver::impacts(std::vector<Body>& work, double h) {
  ScopedSubStage timer(sub_stages_, kImpacts);
  load_motions(work, motions_);
  struct Touching {
    Pair* pair;
    int a, b;
    Vec3 centre, normal;
    double approach = 0.0;  // the normal speed at the pair's first impulse of this substep (< 0)
    bool started = false;
  };
  std::vector<Touching> touching;
  for (auto& entry : pairs_) {
    const PairKey& key = entry.first;  // named references: the lambda below captures them (see penalty_forces)
    Pair& pair = entry.second;
    pair.struck = false;
    // Touching: a point inside, or one that its approach brings inside within this substep (so that an impact is
    // met where it starts, not a substep's travel deep).
    const Vec3 normal = contact_normal(pair, motions_, key);
    const Motion& A = motions_[size_t(key.first)];
    const Motion& B = motions_[size_t(key.second)];
    Vec3 centre = Vec3::Zero();
    int count = 0;
    // A candidate that cannot have come within a substep's approach of the other body since the narrow phase is
    // not queried (most of a pair's candidates lie outside, within the margin, and stay there).
    const Drift moved = drift(work, motions_, key, pair);
    auto test = [&](const Candidate& c) {
      if (!may_touch(c, moved, pair.mode == Mode::Penalty ? 0.0 : h)) return;
      Vec3 p;
      double d;
      if (!depth_of(work, motions_, key, c, p, d)) return;
      const double approach = std::max(0.0, -(B.velocity_at(p) - A.velocity_at(p)).dot(normal));
      if (d >= 0.0 || (pair.mode != Mode::Penalty && d + h * approach >= 0.0)) {
        centre += p;
        ++count;
      }
    };
    // A resting pair touches while its bottom polygon does (its centroid then the polygon's): only when none of
    // the polygon's points is inside are the other candidates tested, so that a resting stack does not test
    // every point of every pair every substep (the 20-row pyramid spent 9 of 10 of its time there).
    if (pair.mode == Mode::Penalty)
      for (int i : pair.bottom) test(pair.points[size_t(i)]);
    if (count == 0)
      for (const Candidate& c : pair.points) test(c);
    if (count == 0) {
      pair.mode = Mode::Separated;
      pair.integral = 0.0;
      pair.stretch = Vec3::Zero();
      pair.twist = 0.0;
      continue;
    }
    centre = line_of_action(work, motions_, key, normal, centre / count);
    const double vn = (B.velocity_at(centre) - A.velocity_at(centre)).dot(normal);
    if (pair.mode == Mode::Separated) pair.mode = vn < -set_.impact_speed ? Mode::Impact : Mode::Penalty;
    else if (pair.mode == Mode::Impact && vn >= -set_.impact_speed && vn <= 0.0) pair.mode = Mode::Penalty;
    if (!work[size_t(key.first)].is_dynamic() && !work[size_t(key.second)].is_dynamic()) continue;
    touching.push_back({&pair, key.first, key.second, centre, normal});
  }

  // Each body's touching pairs, for marking the pairs an impulse strikes.
  std::vector<std::vector<int>> touching_of(work.size());
  for (int k = 0; k < int(touching.size()); ++k) {
    touching_of[size_t(touching[size_t(k)].a)].push_back(k);
    touching_of[size_t(touching[size_t(k)].b)].push_back(k);
  }

  // Sequential frictional impulses at each impacting pair's centroid, until none approaches faster than eps.
  auto relative = [&](const Touching& t) -> Vec3 {
    const Body& A = work[size_t(t.a)];
    const Body& B = work[size_t(t.b)];
    return B.velocity_at(t.centre) - A.velocity_at(t.centre);
  };
  int pass = 0;
  for (; pass < set_.impact_passes; ++pass) {
    bool any = false;
    for (Touching& t : touching) {
      Pair& pair = *t.pair;
      if (pair.mode == Mode::Penalty && !pair.struck) continue;
      const Vec3 u = relative(t);
      const double un = u.dot(t.normal);
      if (un >= -set_.impact_speed) continue;
      pair.mode = Mode::Impact;  // a resting pair struck by a third body is an impact again
      if (!t.started) {
        t.started = true;
        t.approach = un;
      }
      Body& A = work[size_t(t.a)];
      Body& B = work[size_t(t.b)];
      const Vec3 ra = t.centre - A.position, rb = t.centre - B.position;
      const double ia = A.is_dynamic() ? A.inv_mass : 0.0, ib = B.is_dynamic() ? B.inv_mass : 0.0;
      const Mat3 Ia = A.is_dynamic() ? A.inv_inertia_world : Mat3::Zero();
      const Mat3 Ib = B.is_dynamic() ? B.inv_inertia_world : Mat3::Zero();
      // Collision matrix K: the change of the relative velocity at the point per unit impulse on b.
      const Mat3 K = (ia + ib) * Mat3::Identity() - skew(ra) * Ia * skew(ra) - skew(rb) * Ib * skew(rb);
      const double target = -pair.restitution * t.approach;  // Newton's law on the first approach speed
      // Sticking: the impulse that leaves the point at the target normal speed with no tangential slip; outside
      // the friction cone, a sliding impulse j_n (n - mu t) against the slip.
      Vec3 j = K.ldlt().solve(target * t.normal - u);
      const double jn = j.dot(t.normal);
      const Vec3 jt = j - jn * t.normal;
      if (jt.norm() > pair.friction * jn) {
        const Vec3 slip = u - un * t.normal;
        const Vec3 dir = slip.norm() > 1e-12 ? Vec3(t.normal - pair.friction * slip.normalized()) : t.normal;
        const double denominator = t.normal.dot(K * dir);
        if (denominator <= 0.0) continue;
        j = ((target - un) / denominator) * dir;
      }
      B.linear_velocity += ib * j;
      B.angular_velocity += Ib * rb.cross(j);
      A.linear_velocity -= ia * j;
      A.angular_velocity -= Ia * ra.cross(j);
      // The other pairs of a body this impulse moved are struck (Fig. 2: a third body strikes a resting pair).
      for (const int body : {t.a, t.b}) {
        if (!work[size_t(body)].is_dynamic()) continue;
        for (const int other : touching_of[size_t(body)])
          if (&touching[size_t(other)] != &t) touching[size_t(other)].pair->struck = true;
      }
      any = true;
    }
    if (!any) break;
  }
  counters_.add(kCountImpulsePasses, pass);
  for (const Touching& t : touching)
    if (t.pair->mode == Mode::Impact)
      residual_ = std::max(residual_, std::max(0.0, -relative(t).dot(t.normal) - set_.impact_speed));
}

void PidPenaltySolver::penalty_forces(const std::vector<Body>& bodies, const std::vector<Motion>& m, double h,
                                      double elapsed, std::vector<Vec3>& force, std::vector<Vec3>& torque,
                                      bool record) {
  struct Loaded {
    Vec3 p;
    double depth, P, I, D;
    double f = 0.0;            // N: eq. 3's force, once r is known (0 for a point that carries none)
    Vec3 at = Vec3::Zero();    // where it acts (line_of_action)
  };
  std::vector<Loaded> loaded;
  size_t index = 0;
  for (auto& entry : pairs_) {
    // Named references rather than structured bindings: the lambdas below capture them, which C++20 allows
    // for bindings but clang before 16 does not.
    const PairKey& key = entry.first;
    Pair& pair = entry.second;
    PairView* pv = record && index < views_.size() ? &views_[index] : nullptr;
    ++index;
    if (pair.mode != Mode::Penalty) continue;
    const int ia = key.first, ib = key.second;
    const Motion& A = m[size_t(ia)];
    const Motion& B = m[size_t(ib)];
    const Gains g = pair_gains(key, bodies[size_t(ia)], bodies[size_t(ib)], h);
    const Vec3 n = contact_normal(pair, m, key);

    // The points forces act at: the bottom polygon, or the deepest candidate alone. The derivative term of eq. 1
    // takes each point's own normal velocity v(rho), blended by point_damping with the velocity at the centre of
    // the points. A pair with a sphere or capsule takes the centre's alone: a round body's contact patch stays
    // where it touches while its material turns through it, and damping its material points would brake rolling
    // (a ball rolling at 2 m/s on the ground lost 0.3 m/s in 2 s).
    const double own_share =
        is_round(bodies[size_t(ia)].shape) || is_round(bodies[size_t(ib)].shape) ? 0.0 : set_.point_damping;
    loaded.clear();
    double deepest = 0.0;
    Vec3 middle = Vec3::Zero();
    const Drift moved = drift(bodies, m, key, pair);
    auto consider = [&](const Candidate& c) {
      if (!may_touch(c, moved, 0.0)) return;  // certainly outside: no force
      Vec3 p;
      double d;
      if (!depth_of(bodies, m, key, c, p, d) || d <= 0.0) return;
      loaded.push_back({p, d, g.kp * d, g.ki * pair.integral, 0.0});
      deepest = std::max(deepest, d);
    };
    if (set_.points == PointMode::MultiPoint) {
      for (int i : pair.bottom) consider(pair.points[size_t(i)]);
    } else {
      for (const Candidate& c : pair.points) consider(c);
      if (!loaded.empty()) {
        auto it = std::max_element(loaded.begin(), loaded.end(),
                                   [](const Loaded& x, const Loaded& y) { return x.depth < y.depth; });
        const Loaded one = *it;
        loaded.assign(1, one);
      }
    }
    // The integral's part of each point in proportion to its depth (its mean over the points still k_i I, as
    // eq. 3's equal share gives when every point carries force): an equal share gave a point that barely touches
    // as much as the deepest, so the force jumped as points came and went at the polygon's shallow edge, and a
    // box pushed sideways kept rocking at 0.1 rad/s (without the integral term it came to rest).
    double depth_sum = 0.0;
    for (const Loaded& l : loaded) depth_sum += l.depth;
    for (Loaded& l : loaded) l.I *= double(loaded.size()) * l.depth / depth_sum;
    for (const Loaded& l : loaded) middle += l.p;
    if (!loaded.empty()) {
      middle /= double(loaded.size());
      const double v = (B.velocity_at(middle) - A.velocity_at(middle)).dot(n);
      for (Loaded& l : loaded) {
        const double own = (B.velocity_at(l.p) - A.velocity_at(l.p)).dot(n);
        l.D = -g.kv * (v + own_share * (own - v));
      }
    }
    // Eq. 3: the force of each point, shared among the r points that carry force.
    int r = 0;
    for (const Loaded& l : loaded)
      if (l.P + l.I + l.D > 0.0) ++r;
    double total = 0.0;
    Vec3 centre = Vec3::Zero();
    for (Loaded& l : loaded) {
      l.f = std::max(l.P + l.I + l.D, 0.0) / std::max(r, 1);
      if (l.f <= 0.0) continue;
      const Vec3 F = l.f * n;
      l.at = line_of_action(bodies, m, key, n, l.p);
      force[size_t(ib)] += F;
      torque[size_t(ib)] += (l.at - B.x).cross(F);
      force[size_t(ia)] -= F;
      torque[size_t(ia)] -= (l.at - A.x).cross(F);
      total += l.f;
      centre += l.f * l.at;
    }
    // Friction at the centre of the normal forces: a tangential spring-damper on the pair's accumulated slip
    // (static friction), saturated at mu times the normal force (Coulomb sliding), so sliding slows at mu g and
    // sticking holds to within the spring's stretch. The slip is the integral of the tangential relative velocity
    // at the contact, so a rolling body, whose contact point does not slip, stretches nothing.
    Vec3 ft = Vec3::Zero();
    double twist_stiffness = 0.0, twist_limit = 0.0;
    if (total > 0.0) {
      centre /= total;
      if (pair.friction > 0.0) {
        const Vec3 u = B.velocity_at(centre) - A.velocity_at(centre);
        const Vec3 ut = u - n.dot(u) * n;
        Vec3 stretch = pair.stretch + elapsed * ut;
        stretch -= n.dot(stretch) * n;
        const Vec3 trial = -g.kp * stretch - g.kv * ut;
        const double limit = pair.friction * total;
        ft = trial.norm() > limit ? Vec3(trial * (limit / trial.norm())) : trial;
        force[size_t(ib)] += ft;
        torque[size_t(ib)] += (centre - B.x).cross(ft);
        force[size_t(ia)] -= ft;
        torque[size_t(ia)] -= (centre - A.x).cross(ft);
        // Torsional friction: the normal forces spread over the polygon resist turning about n as springs at the
        // points would, k_p sum f_i r_i^2 / sum f_i about the centre, up to mu sum f_i r_i when the patch spins
        // (Coulomb at every point). One spring at the centre has no lever: a box spinning on the ground kept
        // turning at 0.07-0.09 rad/s for seconds. Stiffness and damping are held to the bounds the linear gains
        // keep for the pair's inertia about n, so the substep stays stable.
        double r1 = 0.0, r2 = 0.0;
        for (const Loaded& l : loaded) {
          if (l.f <= 0.0) continue;
          const Vec3 off = l.at - centre;
          const double rr = (off - n.dot(off) * n).squaredNorm();
          r1 += l.f * std::sqrt(rr);
          r2 += l.f * rr;
        }
        r1 /= total;
        r2 /= total;
        const Body& bodyA = bodies[size_t(ia)];
        const Body& bodyB = bodies[size_t(ib)];
        const double inverse = (bodyA.is_dynamic() ? n.dot(bodyA.inv_inertia_world * n) : 0.0) +
                               (bodyB.is_dynamic() ? n.dot(bodyB.inv_inertia_world * n) : 0.0);
        if (r1 > 0.0 && inverse > 0.0) {
          const double share = bound_share(key);
          const double kt = std::min(g.kp * r2, kStiffnessBound / (inverse * h * h * share));
          const double ct = std::min(g.kv * r2, kDampingBound / (inverse * h * share));
          const double spin = (B.w - A.w).dot(n);
          const double limit_t = pair.friction * total * r1;
          const double twist = pair.twist + elapsed * spin;
          const double torsion = std::clamp(-kt * twist - ct * spin, -limit_t, limit_t);
          torque[size_t(ib)] += torsion * n;
          torque[size_t(ia)] -= torsion * n;
          twist_stiffness = kt;
          twist_limit = limit_t;
        }
      }
    }
    if (!record) continue;
    pair.deepest = deepest;
    pair.normal_force = total;
    pair.centre = centre;
    pair.twist_stiffness = twist_stiffness;
    pair.twist_limit = twist_limit;
    if (pv) {
      pv->deepest = deepest;
      pv->friction = ft;
      pv->centre = centre;
      for (const Loaded& l : loaded) {
        const double denominator = std::max(r, 1);
        pv->bottom.push_back({l.p, l.depth, l.P / denominator, l.I / denominator, l.D / denominator,
                              l.P + l.I + l.D > 0.0});
      }
    }
  }
}

void PidPenaltySolver::solve_joints(StepContext& ctx, std::vector<Body>& work, double h) {
  if (ctx.joints.empty()) return;
  ScopedSubStage timer(sub_stages_, kJoints);
  joint_rows_.clear();
  for (int j = 0; j < int(ctx.joints.size()); ++j) joint_rows(ctx.joints[size_t(j)], j, work, h, joint_rows_);
  if (joint_rows_.empty()) return;
  load_inverse_masses(work, masses_);
  rows_.clear();
  for (const JointRow& jr : joint_rows_) {
    Row row = jr;
    prepare(row, masses_);
    row.lambda = joint_warm_.guess(jr);
    rows_.push_back(row);
  }
  velocities_.resize(work.size());
  for (size_t i = 0; i < work.size(); ++i) velocities_[i] = {work[i].linear_velocity, work[i].angular_velocity};
  apply_impulses(rows_, velocities_);
  solve_pgs(rows_, velocities_, {set_.joint_iterations, 0.0, false});
  for (size_t i = 0; i < work.size(); ++i)
    if (work[i].is_dynamic()) {
      work[i].linear_velocity = velocities_[i].v;
      work[i].angular_velocity = velocities_[i].w;
    }
  for (const JointRow& jr : joint_rows_) joint_warm_.forget(jr.joint);
  for (size_t r = 0; r < joint_rows_.size(); ++r) joint_warm_.keep(joint_rows_[r], rows_[r].lambda);
}

// v(t+h) = v + h M^-1 (f_applied + m g + f_contact(t)), the joints on v(t+h), then x(t+h) = x + h v(t+h).
void PidPenaltySolver::substep_euler(StepContext& ctx, std::vector<Body>& work, double h) {
  const size_t n = work.size();
  {
    ScopedSubStage timer(sub_stages_, kForces);
    load_motions(work, motions_);
    force_.assign(n, Vec3::Zero());
    torque_.assign(n, Vec3::Zero());
    penalty_forces(work, motions_, h, 0.0, force_, torque_, true);
  }
  for (size_t i = 0; i < n; ++i) {
    Body& b = work[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity += h * (ctx.gravity + b.inv_mass * (b.force + force_[i]));
    b.angular_velocity += h * (b.inv_inertia_world * (b.torque + torque_[i]));
  }
  solve_joints(ctx, work, h);
  ScopedSubStage timer(sub_stages_, kUpdate);
  for (Body& b : work)
    if (b.kind != BodyKind::Fixed) advance_pose(b, h);
}

// The paper's fourth-order Runge-Kutta on (x, q, v, L) with the world angular momentum L (dL/dt = torque), the
// forces evaluated at each stage; then the joints on the new velocities, their change carried into the positions.
void PidPenaltySolver::substep_rk4(StepContext& ctx, std::vector<Body>& work, double h) {
  const size_t n = work.size();
  struct State {
    Vec3 x, v, L;
    Quat q;
  };
  struct Rate {
    Vec3 dx, dv, dL;
    Quat dq;
  };
  std::vector<State> s0(n);
  for (size_t i = 0; i < n; ++i) {
    const Body& b = work[i];
    s0[i] = {b.position, b.linear_velocity, b.inertia_world() * b.angular_velocity, b.orientation};
  }
  auto motions_at = [&](const std::vector<State>& s, double t, std::vector<Motion>& m) {
    m.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Body& b = work[i];
      if (b.is_dynamic()) {
        const Quat q = s[i].q.normalized();
        const Mat3 R = q.toRotationMatrix();
        m[i] = {s[i].x, q, s[i].v, R * b.inv_inertia_body * R.transpose() * s[i].L, R};
      } else if (b.kind == BodyKind::Kinematic) {
        const Quat q = integrate_orientation(b.orientation, b.angular_velocity, t);
        m[i] = {b.position + t * b.linear_velocity, q, b.linear_velocity, b.angular_velocity, q.toRotationMatrix()};
      } else {
        m[i] = {b.position, b.orientation, Vec3::Zero(), Vec3::Zero(), b.rotation()};
      }
    }
  };
  auto rate = [&](const std::vector<State>& s, double t, bool record, std::vector<Rate>& out) {
    motions_at(s, t, motions_);
    force_.assign(n, Vec3::Zero());
    torque_.assign(n, Vec3::Zero());
    penalty_forces(work, motions_, h, t, force_, torque_, record);
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Body& b = work[i];
      const Motion& m = motions_[i];
      if (!b.is_dynamic()) {
        out[i] = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Quat(0, 0, 0, 0)};
        continue;
      }
      const Quat w(0, m.w.x(), m.w.y(), m.w.z());
      Quat dq = w * m.q;
      dq.coeffs() *= 0.5;
      out[i] = {m.v, ctx.gravity + b.inv_mass * (b.force + force_[i]), b.torque + torque_[i], dq};
    }
  };
  auto advance = [&](const std::vector<Rate>& k, double t, std::vector<State>& s) {
    s = s0;
    for (size_t i = 0; i < n; ++i) {
      s[i].x += t * k[i].dx;
      s[i].v += t * k[i].dv;
      s[i].L += t * k[i].dL;
      s[i].q.coeffs() += t * k[i].dq.coeffs();
    }
  };
  std::vector<Rate> k1, k2, k3, k4;
  std::vector<State> s;
  {
    ScopedSubStage timer(sub_stages_, kForces);
    rate(s0, 0.0, true, k1);
    advance(k1, 0.5 * h, s);
    rate(s, 0.5 * h, false, k2);
    advance(k2, 0.5 * h, s);
    rate(s, 0.5 * h, false, k3);
    advance(k3, h, s);
    rate(s, h, false, k4);
  }
  {
    ScopedSubStage timer(sub_stages_, kUpdate);
    for (size_t i = 0; i < n; ++i) {
      Body& b = work[i];
      if (b.is_dynamic()) {
        State& x = s0[i];
        x.x += (h / 6.0) * (k1[i].dx + 2.0 * k2[i].dx + 2.0 * k3[i].dx + k4[i].dx);
        x.v += (h / 6.0) * (k1[i].dv + 2.0 * k2[i].dv + 2.0 * k3[i].dv + k4[i].dv);
        x.L += (h / 6.0) * (k1[i].dL + 2.0 * k2[i].dL + 2.0 * k3[i].dL + k4[i].dL);
        x.q.coeffs() += (h / 6.0) * (k1[i].dq.coeffs() + 2.0 * k2[i].dq.coeffs() + 2.0 * k3[i].dq.coeffs() +
                                     k4[i].dq.coeffs());
        b.position = x.x;
        b.orientation = x.q.normalized();
        b.linear_velocity = x.v;
        b.update_world_inertia();
        b.angular_velocity = b.inv_inertia_world * x.L;
      } else if (b.kind == BodyKind::Kinematic) {
        advance_pose(b, h);
      }
    }
  }
  // Joints: the velocity change their impulses make, carried into the positions over the substep.
  if (ctx.joints.empty()) return;
  std::vector<BodyVelocity> before(n);
  for (size_t i = 0; i < n; ++i) before[i] = {work[i].linear_velocity, work[i].angular_velocity};
  solve_joints(ctx, work, h);
  for (size_t i = 0; i < n; ++i) {
    Body& b = work[i];
    if (!b.is_dynamic()) continue;
    b.position += h * (b.linear_velocity - before[i].v);
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity - before[i].w, h);
    b.update_world_inertia();
  }
}

// Eq. 2's integral over the substep just taken, and each pair's friction stretch advanced by its slip, held within
// the Coulomb limit (a sliding pair's spring then holds exactly mu times its normal force).
void PidPenaltySolver::end_substep(const std::vector<Body>& work, double h) {
  for (auto& [key, pair] : pairs_) {
    if (pair.mode != Mode::Penalty) continue;
    pair.integral = set_.forgetting * pair.integral + pair.deepest;
    if (pair.normal_force <= 0.0 || pair.friction <= 0.0) continue;
    const Body& A = work[size_t(key.first)];
    const Body& B = work[size_t(key.second)];
    const Vec3 n = (pair.normal_of_b ? B : A).rotation() * pair.normal_local;
    const Vec3 u = B.velocity_at(pair.centre) - A.velocity_at(pair.centre);
    pair.stretch += h * (u - n.dot(u) * n);
    pair.stretch -= n.dot(pair.stretch) * n;
    const Gains g = pair_gains(key, A, B, h);
    const double limit = pair.friction * pair.normal_force;
    if (g.kp * pair.stretch.norm() > limit) pair.stretch *= limit / (g.kp * pair.stretch.norm());
    pair.twist += h * (B.angular_velocity - A.angular_velocity).dot(n);
    if (pair.twist_stiffness * std::abs(pair.twist) > pair.twist_limit)
      pair.twist = std::copysign(pair.twist_limit / pair.twist_stiffness, pair.twist);
  }
}

void PidPenaltySolver::draw_debug(const DebugScene& scene, DebugDraw& draw) const {
  (void)scene;  // its state of the last step, drawn where it was
  if (!draw.request.wants(kDebugMethod)) return;
  constexpr DebugColor kPenalty{0.2f, 0.85f, 0.3f, 1.0f}, kImpact{1.0f, 0.3f, 0.2f, 1.0f};
  constexpr DebugColor kP{0.3f, 0.5f, 1.0f, 1.0f}, kI{1.0f, 0.85f, 0.2f, 1.0f}, kD{0.9f, 0.3f, 0.9f, 1.0f};
  constexpr DebugColor kFriction{1.0f, 0.55f, 0.1f, 1.0f};
  constexpr double kLongest = 0.3;  // m: the largest point force (or friction) of the step
  double largest = 0.0;
  for (const PairView& v : views_) {
    for (const PairView::Point& p : v.bottom) largest = std::max(largest, std::abs(p.p) + std::abs(p.i) + std::abs(p.d));
    largest = std::max(largest, v.friction.norm());
  }
  const double scale = largest > 0.0 ? kLongest / largest : 0.0;
  for (const PairView& v : views_) {
    if (v.mode == Mode::Separated || v.bottom.empty()) continue;
    const DebugColor& state = v.mode == Mode::Penalty ? kPenalty : kImpact;
    // The polygon: its points in angular order about their centre on the contact plane.
    Vec3 t1, t2;
    tangent_basis(v.normal, t1, t2);
    Vec3 middle = Vec3::Zero();
    for (const PairView::Point& p : v.bottom) middle += p.position;
    middle /= double(v.bottom.size());
    std::vector<std::pair<double, Vec3>> ring;
    for (const PairView::Point& p : v.bottom) {
      const Vec3 r = p.position - middle;
      ring.push_back({std::atan2(r.dot(t2), r.dot(t1)), p.position});
    }
    std::sort(ring.begin(), ring.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t k = 0; k < ring.size() && ring.size() > 1; ++k)
      draw.line(ring[k].second, ring[(k + 1) % ring.size()].second, state);
    for (const PairView::Point& p : v.bottom) {
      draw.point(p.position, state);
      if (!p.loaded) continue;
      const Vec3 a = p.position, b = a + scale * p.p * v.normal, c = b + scale * p.i * v.normal,
                 d = c + scale * p.d * v.normal;
      draw.line(a, b, kP);
      draw.line(b, c, kI);
      draw.line(c, d, kD);
    }
    if (!v.friction.isZero(0.0)) draw.line(v.centre, v.centre + scale * v.friction, kFriction);
  }
}

}  // namespace cl
