#include "solvers/lcp/lcp_solver.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "collision/continuous.h"
#include "core/spin_wait.h"
#include "joints/joint_solve.h"

namespace cl {

namespace {

// The method's own stages (Solver::sub_stages), in step order.
enum Stage { kVelocityPgs, kShockLayers, kPositions, kProjection, kSleeping };
constexpr SubStage kStages[] = {
    {"velocity_pgs", StepStage::Solve},    // rows and PGS of each group's velocity LCP (the whole step, or its
                                           // first fraction under shock propagation)
    {"shock_layers", StepStage::Solve},    // shock propagation: the rest of the step layer by layer (thesis 6.4)
    {"positions", StepStage::Integrate},   // s += h S u (eq. 6.76)
    {"projection", StepStage::Integrate},  // error correction by projection (thesis sect. 4.16)
    {"sleeping", StepStage::Integrate},    // the sleepy policy
};

// The most of allowed_penetration a contact keeps, as a fraction of the thinner body's half thickness: a body
// held deeper than its middle is pushed on through by its contact.
constexpr double kThinAllowed = 0.1;

// Sweeps of a stack layer between two looks at whether its top bodies still move (sweep_layer). At 4 a resting
// 20-row pyramid took 154 sweeps a step and at 2, 82, leaving it as much at rest; at 1 it crept (1e-6 m deep).
constexpr int kLayerRound = 2;

// The friction a pair's contact must be worth, in steps of gravity of its point's velocity, for the pair to be
// balanced after a layer's round (balance_speed).
constexpr double kBalanceSpeed = 1e-3;

// Contacts per task where a solve's contacts are built or read on the world's threads: far longer than handing a
// task out. A solve of fewer than kThreadedContacts stays on the calling thread, its sweeps too: a stack's layers,
// a few hundred contacts each, took longer split between two threads than whole (large_pyramid's 100 layers 7.5 ms
// a step against 6.6).
constexpr int kChunk = 256;
constexpr int kThreadedContacts = 8 * kChunk;
// The upkeep of a solve of this many contacts or more is shared too (its warm start, reading its impulses back,
// keeping them in the contacts, the projection's depths): below, the threads' runs cost more than they saved
// (`pyramid20`'s 2,360 contacts: 0.88 ms a step on two threads with them, 0.81 without).
constexpr int kThreadedUpkeep = 32 * kChunk;

enum Counter { kCountThreadedRows, kCountFirstSweeps };
constexpr SolverCounter kCounters[] = {
    {"threaded_rows", ""},       // rows of PGS solves whose sweeps were split among the world's threads
    {"first_phase_sweeps", ""},  // sweeps of shock propagation's first phase, summed over the groups
};


// A stack layer's sweeps (or shock propagation's first phase's, `top` then its whole group), in rounds of kLayerRound
// up to settings.iterations, until a round changes no top body's velocity at any of its points by more than `speed`
// (layer_stop_speed; thesis sect. 6.4.4: only a converged layer hands the layers above no error). Told by the bodies
// alone, not the impulses: where the targets of a face's contact points disagree by rounding (a gap closing at one
// corner, none at the next) the impulses wander between them sweep after sweep while no velocity changes, and an
// impulse tolerance in N s is no measure of 2 cm boxes, whose impulses are a millionth of 1 m boxes'. sweep(settings)
// continues the solve where the last round left it, so the rounds sweep as one solve would, and ends a round with what
// a round adds (the friction balance). With speed 0 every round is swept. `largest` gives the largest |lambda|
// (PgsSettings::relative).
template <class Sweep, class Largest>
PgsResult sweep_layer(const std::vector<int>& top, const std::vector<BodyVelocity>& u, const std::vector<Body>& bodies,
                      double speed, PgsSettings settings, std::vector<BodyVelocity>& start, Sweep&& sweep,
                      Largest&& largest) {
  settings.tolerance = 0.0;
  PgsResult result;
  const int iterations = settings.iterations;
  while (result.sweeps < iterations) {
    settings.iterations = std::min(kLayerRound, iterations - result.sweeps);
    start.clear();
    if (speed > 0.0)
      for (int i : top) start.push_back(u[size_t(i)]);
    const PgsResult round = sweep(settings);
    result.sweeps += round.sweeps;
    result.residual = round.residual;
    result.threads = std::max(result.threads, round.threads);
    // Only an exact solve (no impulse changed in its last sweep) ends a round early: the tolerance is 0.
    if (sweep_converged(settings, round.residual, largest)) break;
    if (speed <= 0.0) continue;  // always every sweep
    double change = 0.0;
    for (size_t k = 0; k < top.size(); ++k) {
      const BodyVelocity& now = u[size_t(top[k])];
      const Shape& shape = bodies[size_t(top[k])].shape;
      change = std::max(change, shape_point_speed(shape, now.v - start[k].v, now.w - start[k].w));
    }
    if (change <= speed) break;
  }
  return result;
}
}  // namespace

const ParamTable<LcpSolver::Settings>& LcpSolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::iterations, {"iterations", ParamKind::Integer, "", 1, 1000, 10,
       "Projected Gauss-Seidel sweeps over all rows per step for the velocities (thesis 6.1.7 uses 10)"}),
      T::bind(&S::joint_sweeps, {"joint_sweeps", ParamKind::Integer, "", 0, 1000, 10,
       "Sweeps over a group's joint rows alone after each sweep over all its rows, stopped early by the tolerance (a "
       "block Gauss-Seidel). A robot on its feet is a loop of servos, hinges and contacts that plain sweeps leave "
       "unsettled and the warm starts carry on: without them the walker blew up at 1/60 s. 0: plain sweeps over all "
       "rows (thesis 6.1.4)"}),
      T::bind(&S::tolerance, {"tolerance", ParamKind::Real, "N s", 0, 1e6, 1e-9,
       "A PGS solve stops early once a sweep changes no impulse by more than this (0: always all iterations). "
       "Under shock propagation the velocity solves (the first phase and each stack layer) stop by layer_tolerance "
       "instead"}),
      T::bind(&S::correction_iterations, {"correction_iterations", ParamKind::Integer, "", 0, 1000, 5,
       "PGS sweeps of the error-correction projection that removes penetration (thesis: 5; 0 turns it off)"}),
      T::bind(&S::vector_lanes, {"vector_lanes", ParamKind::Bool, "", 0, 1, 1,
       "Update contacts that share no moving body side by side in vector lanes; off: one row at a time. The "
       "result is the same bit for bit, only the time differs"}),
      T::bind(&S::coloured, {"coloured_sweeps", ParamKind::Bool, "", 0, 1, 1,
       "Sweep a group's contacts colour by colour (pairs that share no moving body together, graph colouring as "
       "in Box2D v3) rather than in the contact graph's order: fuller vector lanes, and a large group split among "
       "the world's threads with the same result. Off: the graph's order (a different Gauss-Seidel order, so "
       "slightly different results)"}),
      T::bind(&S::precision, {"solver_precision", ParamKind::Choice, "", 0, 1, 0,
       "Arithmetic of the PGS's vector lanes (velocities and projection). double: the reference. float: the rows' "
       "fields, impulses and velocity updates in single precision, half the memory each sweep streams, which is "
       "what a large group (thousands of contacts) waits on, and twice the contacts to a vector (8 or 16 where "
       "double has 4 or 8); results differ from double's in the 7th digit of each update (docs/methods/lcp.md "
       "lists what the conformance cases give at both)",
       {"double", "float"}}),
      T::bind(&S::warm_start, {"warm_start", ParamKind::Bool, "", 0, 1, 1,
       "Start PGS from the previous step's impulses of contacts that persist (same feature pair, or within 2 cm)"}),
      T::bind(&S::stack_warm_start, {"stack_warm_start", ParamKind::Bool, "", 0, 1, 1,
       "With warm_start: a stack's normal impulses (a group resting on fixed bodies, without joints) start "
       "balanced, top-down: each body's contacts with the layer below change by the least that holds it at rest "
       "under its weight and what is above it. For the whole step, or shock propagation's first phase; without "
       "shock propagation a body the sweeps leave slower than a layer's rest speed is then left at rest, as a "
       "layer's top body is. Off: the thesis's plain PGS, under which a stack built at rest falls into itself"}),
      T::bind(&S::friction_directions, {"friction_directions", ParamKind::Integer, "", 0, 2, 2,
       "Tangent rows per contact: 0 frictionless, 1 along the sliding direction only, 2 two directions, the "
       "first along the sliding velocity, bounded as friction_cone says"}),
      T::bind(&S::friction_cone, {"friction_cone", ParamKind::Choice, "", 0, 1, 1,
       "How a contact's two tangent rows bound its friction. box: each in +-mu lambda_n alone (the thesis's "
       "four-sided pyramid, 6.1.4), which lets one contact's friction reach sqrt(2) mu lambda_n between the two "
       "directions (the first row follows the sliding velocity, so a sliding or starting body feels mu). circle: "
       "together, in the disc of radius mu lambda_n (Coulomb's law in every direction); at the default iterations "
       "it converges more slowly in piles (scenes/torus_stack.json still creeps after 15 s), hence not the default. "
       "Shock propagation's layers always use the circle",
       {"circle", "box"}}),
      T::bind(&S::restitution_threshold, {"restitution_threshold", ParamKind::Real, "m/s", 0, 100, 0,
       "Approach speeds below this get no restitution. Whatever it is, an approach no faster than one step of the "
       "contact's own acceleration (a resting contact's: g h under gravity) never bounces, so resting contacts do "
       "not jitter at any step or size"}),
      T::bind(&S::allowed_penetration, {"allowed_penetration", ParamKind::Real, "m", 0, 0.1, 0.001,
       "Penetration left in place by the projection so touching contacts persist between steps; at most a "
       "tenth of the thinner body's half thickness, so a thin sheet rests on the ground"}),
      T::bind(&S::recycle_distance, {"recycle_distance", ParamKind::Real, "m", 0, 0.01, 0.0005,
       "Contacts of a pair whose bodies moved less than this relative to each other since the narrow phase last "
       "computed them are recycled: re-projected from where they sit on both bodies, with the depth updated, instead "
       "of computed again (no point of either body moved further, so no depth is off by more). At most a tenth of "
       "the thinner body's half thickness; pairs of boxes and planes only (a rolling body's contact moves over its "
       "surface). 0: every pair that moved is collided; 0.0005 (the default) saves about half the narrow phase of "
       "a resting pyramid (docs/performance.md)"}),
      T::bind(&S::shock_propagation, {"shock_propagation", ParamKind::Bool, "", 0, 1, 1,
       "Velocity-based shock propagation (thesis 6.4): after a dynamics step of fraction f, solve stack "
       "layers bottom-up with each layer's lower bodies held fixed, for the velocities and the projection"}),
      T::bind(&S::shock_fraction, {"shock_fraction", ParamKind::Real, "", 0, 1, 0.01,
       "f: the part of the step solved over the whole group before the layers. Larger f lets bodies feel "
       "the weight above them (a see-saw tips); smaller f removes more solver error and rippling (thesis 6.4.4-6.4.5)"}),
      T::bind(&S::layer_iterations, {"layer_iterations", ParamKind::Integer, "", 1, 1000, 40,
       "With shock propagation: PGS sweeps of each stack layer's velocity solve (thesis 6.4 runs the dynamics' 10). "
       "A layer's bottom bodies are held, so the error its sweeps leave is never taken back by a later solve: every "
       "layer above inherits it, and a stack's top carries the sum over its height (at 10, a 50-row pyramid of boxes "
       "each resting on two with gaps between them rocks and slides its top rows). A layer is one row of bodies on a "
       "held row, so its sweeps cost little beside the whole group's"}),
      T::bind(&S::layer_tolerance, {"layer_tolerance", ParamKind::Real, "", 0, 1, 1e-8,
       "With shock propagation: a stack layer's sweeps stop once 2 more change no top body's velocity, at any "
       "of its points, by more than this fraction of one step of gravity, g h (0: always layer_iterations, and no "
       "body is left at rest). Told by the bodies: a settled layer's impulses still wander between contact "
       "points that no velocity tells apart. A resting 20-row pyramid then takes about 2 sweeps a layer where 40 are "
       "allowed. A top body left slower than this (but at most 1e-6) is left at rest: what remains "
       "is the sweeps' error, which the layers above would carry up and grow. Under solver_precision=float the "
       "stop is no finer than float's resolution, 1.2e-7 (a round's change stays at its rounding), and the rest no "
       "finer than 8 times it"}),
      T::bind(&S::first_tolerance, {"first_tolerance", ParamKind::Real, "", 0, 1, 1e-4,
       "With shock propagation: the first phase's sweeps over the whole group stop once 2 more change no body's "
       "velocity, at any of its points, by more than this fraction of the phase's own step of gravity, f g h, or "
       "than the layers' stop (layer_tolerance g h) if that is coarser (both 0: always iterations). The layers then "
       "solve every body again with its supports held, so the first phase hands them only their start and the "
       "weight a body must feel (a see-saw tips). What it leaves the layers take out sweep by sweep. It matters "
       "where the phase does not start balanced (stack_warm_start off, or a stack on the move): there a settled "
       "20-row pyramid with gaps takes 2 to 8 first-phase sweeps a step where 0 takes all 10, and 1e-3 cost its "
       "layers more sweeps than it saved"}),
      T::bind(&S::global_correction, {"global_correction", ParamKind::Bool, "", 0, 1, 1,
       "With shock propagation: after the layers' projections, one more over the whole group without layers "
       "(the robust variant of thesis Fig. 6.60), which spreads what the layers could not remove: a body held "
       "between two lower layers that close on it is pushed out instead of left squeezed"}),
      T::bind(&S::sleeping, {"sleeping", ParamKind::Bool, "", 0, 1, 1,
       "Sleepy policy (thesis 6.5): contact groups whose bodies stay calm stop being simulated until disturbed"}),
      T::bind(&S::sleep_energy, {"sleep_energy", ParamKind::Real, "J/(kg m)", 0, 10, 0.002,
       "A body is calm while its kinetic energy is below this times its mass and its bounding radius (so similar "
       "bodies of any size sleep alike) and has not grown over its calm steps"}),
      T::bind(&S::sleep_steps, {"sleep_steps", ParamKind::Integer, "", 1, 1000, 5,
       "Consecutive calm steps before a group falls asleep"})
  });
  return table;
}

std::span<const ParamSpec> LcpSolver::param_specs() { return table().specs(); }

LcpSolver::LcpSolver() : Solver(param_specs(), kStages, kCounters) { begin_step(); }

// Shock propagation holds a layer's bottom bodies fixed: infinite mass while the layer is solved.
void LcpSolver::hold(const std::vector<int>& bodies, std::vector<InverseMass>& masses) {
  for (int i : bodies) masses[size_t(i)] = InverseMass{};
}

void LcpSolver::release(const StepContext& ctx, const std::vector<int>& bodies, std::vector<InverseMass>& masses) {
  for (int i : bodies) masses[size_t(i)] = {ctx.bodies[size_t(i)].inv_mass, ctx.bodies[size_t(i)].inv_inertia_world};
}

int LcpSolver::contact_row_count(const Contact& c) const { return 1 + (c.friction > 0 ? set_.friction_directions : 0); }

// Contact k as this phase solves it: its lever arms, its normal and friction directions, the normal's target and
// the warm start from what the same phase found in the previous step. Reads only the step's velocities and writes
// only contact k's bounce, so contacts can be built on several threads. Written in place: a returned point was
// copied out of the stack in wider moves than it was written in, each waiting for its stores to retire.
void LcpSolver::contact_point(const StepContext& ctx, int k, Phase phase, ContactPoint& p) {
  const bool restitution = phase != Phase::Layers;
  const Contact& c = ctx.contacts[k];
  // A contact whose normal impulse the stack's balance found (stack_warm_start.h) starts from it, new or not.
  const bool balanced = phase != Phase::Layers && stack_warm_.has(k);
  const bool warm = set_.warm_start && (c.persisted || balanced);
  const double h = ctx.dt;
  // Every field is set below (a ContactPoint{} assigned first went through the stack, as a returned one did).
  p.ra = c.position - ctx.bodies[c.a].position;
  p.rb = c.position - ctx.bodies[c.b].position;
  const Vec3& ra = p.ra;
  const Vec3& rb = p.rb;
  p.dir[0] = c.normal;
  p.mu = c.friction;
  p.lambda[1] = p.lambda[2] = 0.0;

  // Relative velocity at the contact, b minus a, from the velocities so far.
  const Vec3 vrel = (vel_[c.b].v + vel_[c.b].w.cross(rb)) - (vel_[c.a].v + vel_[c.a].w.cross(ra));
  const double vn = vrel.dot(c.normal);
  const double gap = -c.depth;
  // Normal target (thesis sect. 4.5; Newton's law): an impact bounces back with e * v_n; a contact still apart
  // may close its gap within the step (linearised gap, nu = -d); a penetrating one must not approach further (the
  // projection removes the penetration itself). With shock propagation the layers keep the bounce target found in
  // the first phase.
  // An impact is an approach the contact had before this step's forces acted, faster than one step of them: a
  // resting contact's whole approach is the step's own (g h under gravity), and bouncing it would make it
  // jitter. The step's forces are in vel_ in the part this phase adds (all of them, f under shock propagation).
  if (restitution && vn * h < -std::max(gap, 0.0)) {
    const Vec3 free_rel = (free_[c.b].v + free_[c.b].w.cross(rb)) - (free_[c.a].v + free_[c.a].w.cross(ra));
    const double step_approach = free_rel.dot(c.normal);
    const double before_step = vn - (phase == Phase::First ? set_.shock_fraction : 1.0) * step_approach;
    const double bounce = impact_bounce(before_step, vn, step_approach, c.restitution, set_.restitution_threshold);
    if (bounce != 0.0) bounce_[k] = -bounce;
  }
  p.target = bounce_[k] != 0.0 ? -bounce_[k] : -std::max(gap, 0.0) / h;
  // Warm start from the impulses this phase found last step: the layers' own part under shock propagation,
  // the rest for the first phase (the layers carry less: not the weight of what is above them). The normal
  // impulses of a whole step or of the first phase start balanced top-down where the stack allows.
  const double normal0 = phase == Phase::Layers ? c.layer_normal_impulse
                         : balanced             ? stack_warm_.normal(k)
                         : phase == Phase::First ? StackWarmStart::previous_normal(c)
                                                 : c.normal_impulse;
  const Vec3 friction0 = phase == Phase::Layers ? c.layer_friction_impulse
                         : phase == Phase::First ? StackWarmStart::previous_friction(c)
                                                 : c.friction_impulse;
  p.lambda[0] = warm ? normal0 : 0.0;
  const int friction_rows = contact_row_count(c) - 1;
  if (friction_rows == 0) {
    p.dir[1] = p.dir[2] = Vec3::Zero();
    return;
  }
  sliding_tangents(c.normal, vrel, p.dir[1], p.dir[2]);
  for (int f = 0; f < friction_rows; ++f) p.lambda[1 + f] = warm ? friction0.dot(p.dir[1 + f]) : 0.0;
}

// The rows of contact k: normal (bounds [0, inf)) then its friction rows (bounds +-mu lambda_n), handed in order to
// put(row) for rows_ from index `first` on.
template <class Put>
void LcpSolver::write_contact_rows(const StepContext& ctx, int k, Phase phase, int first, Put&& put) {
  const Contact& c = ctx.contacts[k];
  ContactPoint p;
  contact_point(ctx, k, phase, p);
  Row normal = point_row(c.a, c.b, p.ra, p.rb, p.dir[0]);
  normal.lo = 0.0;
  normal.target = p.target;
  normal.lambda = p.lambda[0];
  prepare(normal, masses_);
  put(normal);
  const int friction_rows = contact_row_count(c) - 1;
  for (int f = 0; f < friction_rows; ++f) {
    Row friction = point_row(c.a, c.b, p.ra, p.rb, p.dir[1 + f]);
    friction.normal_row = first;
    friction.follows = true;
    friction.mu = c.friction;
    // The layers bound friction by the disc whatever friction_cone says: a resting contact's first tangent
    // follows the noise in its sliding velocity, so the box's square turns from step to step, and a body on held
    // supports is pushed by a friction that changes with it (the top rows of a 100-row pyramid rock).
    friction.cone = tangent_cone(f, friction_rows, set_.friction_cone == 0 || phase == Phase::Layers);
    friction.lambda = p.lambda[1 + f];
    prepare(friction, masses_);
    put(friction);
  }
}

// Contacts first..first + count - 1 of a layer's solve, one pair's (in blocks of up to ContactPgs::kBlockContacts,
// as the lanes hold them), balanced when they share a normal: the same impulses in both paths, so the same result.
template <class Get, class Set>
void LcpSolver::balance_friction(const StepContext& ctx, int first, int count, Get&& get, Set&& set) {
  balance_points_.clear();
  Vec3 normal = Vec3::Zero();
  for (int i = first; i < first + count; ++i) {
    const FrictionOf f = get(i);
    const Contact& c = ctx.contacts[size_t(f.contact)];
    if (i == first) normal = c.normal;
    if ((c.normal - normal).cwiseAbs().maxCoeff() > 1e-9) return;
    balance_points_.push_back({c.position - ctx.bodies[size_t(c.a)].position, f.normal, c.friction, f.friction});
  }
  if (!balance_pair_friction(normal, balance_points_)) return;
  for (int i = first; i < first + count; ++i) set(i, balance_points_[size_t(i - first)].friction);
}

// A contact's friction impulse as the rows of rows_ (block) or the compact path's lanes (its i-th contact) hold it:
// the sum of its tangent rows' impulses along their directions.
Vec3 LcpSolver::block_friction(const ContactBlock& block) const {
  Vec3 friction = Vec3::Zero();
  for (int r = 1; r <= block.friction_rows; ++r) {
    const Row& row = rows_[size_t(block.first_row + r)];
    friction += row.lambda * row.jb_lin;  // jb_lin is the tangent direction
  }
  return friction;
}
Vec3 LcpSolver::lane_friction(const ContactPgs& lanes, std::span<const ContactPoint> points, int i) const {
  Vec3 friction = Vec3::Zero();
  for (int r = 1; r < lanes.rows(); ++r) friction += lanes.lambda(i, r) * points[size_t(i)].dir[r];
  return friction;
}

bool LcpSolver::own_lane_values(const StepContext& ctx, Phase phase, int contacts) {
  return phase == Phase::First && contacts >= kThreadedUpkeep && ctx.pool && ctx.pool->threads() > 1 &&
         !ctx.pool->serial();
}

// The least speed a contact's whole friction must be worth for its pair to be balanced (near_disc_edge): a
// thousandth of a step of gravity. Balancing the impulses of boxes side by side in the rows of large_pyramid,
// between 1e-16 and 1 N s where the boxes' weight is 160 N s, took 9 % of a step's instructions.
double LcpSolver::balance_speed(const StepContext& ctx) const { return kBalanceSpeed * ctx.gravity.norm() * ctx.dt; }

// The contacts of these graph edges through the compact contact path (constraints/pgs_contacts.h), its layout kept
// from the same solve of the step before: written straight into their lanes, warm started and swept. False when
// the path does not take them (one row at a time, the graph's order, or contacts of different row counts): then
// they are solved as rows. The result is the same bit for bit as the rows' in double precision.
LcpSolver::Layout LcpSolver::lay_out_compact(const StepContext& ctx, const std::vector<int>& edges, Phase phase,
                                             const PgsSettings& pgs, CompactSet& set,
                                             std::span<const InverseMass> masses, ContactLaneValues* values,
                                             std::optional<size_t> slot) {
  if (!pgs.lanes || !pgs.coloured) return Layout::Rows;
  set.contacts.clear();
  set.keys.clear();
  int rows = 0;
  for (int e : edges) {
    const GraphEdge& edge = ctx.graph.edges()[size_t(e)];
    for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
      const Contact& c = ctx.contacts[size_t(k)];
      const int n = contact_row_count(c);
      if (rows != 0 && n != rows) return Layout::Rows;
      rows = n;
      set.contacts.push_back(k);
      set.keys.push_back({c.a, c.b});
    }
  }
  if (set.contacts.empty()) return Layout::Empty;
  if (slot) {
    set.lanes = *slot;
  } else {
    if (compact_next_ == compact_->size()) compact_->emplace_back();
    set.lanes = compact_next_++;
  }
  ContactPgs& lanes = (*compact_)[set.lanes];
  lanes.share_values(own_lane_values(ctx, phase, int(set.contacts.size())) ? nullptr : values);
  const bool disc = set_.friction_cone == 0 || phase == Phase::Layers;  // as write_contact_rows
  return lanes.plan(set.keys, rows, rows == 3 && disc, masses, pgs.precision) ? Layout::Lanes : Layout::Rows;
}

bool LcpSolver::solve_compact(const StepContext& ctx, const std::vector<int>& edges, Phase phase,
                              const PgsSettings& pgs, const std::vector<int>* settle, double speed,
                              PgsResult& result) {
  const Layout layout = laid_out_ ? *std::exchange(laid_out_, std::nullopt)
                                  : lay_out_compact(ctx, edges, phase, pgs, gathered_, masses_, &*lane_values_);
  if (layout == Layout::Rows) return false;
  result = {};
  if (layout == Layout::Empty) return true;
  solve_laid_out(ctx, gathered_, phase, pgs, settle, speed, result);
  return true;
}

void LcpSolver::solve_laid_out(const StepContext& ctx, CompactSet& set, Phase phase, const PgsSettings& pgs,
                               const std::vector<int>* settle, double speed, PgsResult& result) {
  ContactPgs& lanes = (*compact_)[set.lanes];
  const int count = int(set.contacts.size());
  const int rows = lanes.rows();
  const bool disc = set_.friction_cone == 0 || phase == Phase::Layers;  // as write_contact_rows
  // Only grown: a whole group's solve follows its layers' smaller ones, and growing constructs every new point.
  if (set.points.size() < size_t(count)) set.points.resize(size_t(count));
  const std::span<const ContactPoint> points(set.points.data(), size_t(count));
  TaskPool* pool = count >= kThreadedContacts ? ctx.pool : nullptr;
  PgsSettings sweeps = pgs;
  sweeps.pool = pool;
  for_ranges(pool, count, kChunk, [&](int first, int last, int) {
    for (int i = first; i < last; ++i) contact_point(ctx, set.contacts[size_t(i)], phase, set.points[size_t(i)]);
  });
  // A batch holds at least four contacts.
  for_ranges(pool, lanes.batch_count(), kChunk / 4,
             [&](int first, int last, int) { lanes.write(points, first, last); });
  lanes.warm_start(vel_, count >= kThreadedUpkeep ? pool : nullptr);
  if (!settle) {
    result = lanes.solve(vel_, sweeps);
    return;
  }
  // After each round, the pairs whose friction reached the edge of a disc (the layers' cone) balanced.
  auto balance = [&] {
    lanes.find_full_discs(balance_speed(ctx), full_discs_);
    for (const auto& [first, n] : full_discs_) {
      if (n < 2) continue;
      balance_friction(
          ctx, first, n,
          [&](int i) {
            return FrictionOf{set.contacts[size_t(i)], lanes.lambda(i, 0), lane_friction(lanes, points, i)};
          },
          [&](int i, const Vec3& friction) {
            for (int r = 1; r < rows; ++r) lanes.set_lambda(i, r, friction.dot(set.points[size_t(i)].dir[r]));
          });
    }
  };
  result = sweep_layer(*settle, vel_, ctx.bodies, speed, sweeps, layer_start_,
                       [&](const PgsSettings& settings) {
                         const PgsResult round = lanes.solve(vel_, settings);
                         if (disc && phase == Phase::Layers) balance();
                         return round;
                       },
                       [&] {
                         double largest = 0.0;
                         for (int i = 0; i < count; ++i)
                           for (int r = 0; r < rows; ++r) largest = std::max(largest, std::abs(lanes.lambda(i, r)));
                         return largest;
                       });
}

// The change of a top body's velocity below which a stack layer's round of sweeps has settled it (sweep_layer):
// layer_tolerance g h, but no finer than the lanes' arithmetic resolves. In single precision a layer's velocities,
// of the order of g h (the step's gravity and the contacts that take it back), are rounded to float at every
// update, and a round's change stays at that noise: 1e-8 to 5e-8 g h on pyramid20 after 8 sweeps, never below the
// default 1e-8 g h, so every layer took all layer_iterations sweeps. There the stop is at float's epsilon g h.
double LcpSolver::layer_stop_speed(const StepContext& ctx, PgsPrecision precision) const {
  if (set_.layer_tolerance <= 0.0) return 0.0;  // always layer_iterations sweeps
  const double resolution = precision == PgsPrecision::Single ? double(std::numeric_limits<float>::epsilon()) : 0.0;
  return std::max(set_.layer_tolerance, resolution) * ctx.gravity.norm() * ctx.dt;
}

// The change of a body's velocity at every point below which a round of the first phase's sweeps has settled it
// (sweep_layer): first_tolerance f g h, the phase's own step of gravity, or the layers' stop if that is coarser. The
// layers solve every body of a stack again on its held supports, so what the first phase leaves is their start, and
// the weight a body must feel before its supports are held (thesis sect. 6.4.3, the see-saw): neither needs the
// phase converged to the layers' stop. A stack at rest that starts balanced (stack_warm_start) settles in one round
// at either stop; one that does not (before new contacts were balanced: a resting 100-row pyramid) took all 10
// sweeps of the whole group to the layers' stop, the rounds' changes falling by a fifth a round (zero gaps: 7e-7,
// 4e-7, 3e-7 m/s after 4, 6, 10 sweeps). But what the phase leaves, each layer takes out sweep by sweep down to its
// own stop: a resting 20-row pyramid's layers then took 46 sweeps a step after a first phase stopped at 1e-6 f g h,
// 68 at 1e-4 and 110 at 1e-3, hence the default 1e-4.
double LcpSolver::first_stop_speed(const StepContext& ctx, PgsPrecision precision) const {
  const double own = set_.first_tolerance * set_.shock_fraction * ctx.gravity.norm() * ctx.dt;
  return std::max(layer_stop_speed(ctx, precision), own);
}

// The speed at every point below which a stack layer's top body (or without shock propagation, a balanced stack's body)
// is at rest (solve_group): the layer's stop, but no coarser than 1e-6 g h, and in single precision no finer than 8
// float epsilons g h (9.5e-7 g h). The rest holds a body that would start to move slower than that, so a looser stop
// must not hold a start a user could see (at 1e-6, a box on an incline steeper than its friction angle by a millionth
// of its tangent). In float a resting body's velocity is the sum of some ten terms of the order of g h (the step's
// gravity, each contact's impulses), each rounded to float: on pyramid100_gaps up to 1.3e-7 g h over 600 steps. At the
// stop's one epsilon a body of the first layer was left moving at step 218, and the layers above, held on it, carried
// that up until the pyramid came apart.
double LcpSolver::rest_speed(const StepContext& ctx, PgsPrecision precision) const {
  const double gh = ctx.gravity.norm() * ctx.dt;
  const double stop = std::min(layer_stop_speed(ctx, precision), 1e-6 * gh);
  if (stop <= 0.0 || precision != PgsPrecision::Single) return stop;
  return std::max(stop, 8.0 * double(std::numeric_limits<float>::epsilon()) * gh);
}

// Appends the rows of the contacts of these graph edges to rows_ (and their blocks to blocks_), in edge order.
// A large set is built on the world's threads, each contact into its own slots: the same rows on any number.
void LcpSolver::add_contacts(const StepContext& ctx, const std::vector<int>& edges, Phase phase) {
  const size_t first_block = blocks_.size();
  for (int e : edges) {
    const GraphEdge& edge = ctx.graph.edges()[size_t(e)];
    for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) blocks_.push_back({k, 0, 0});
  }
  const int count = int(blocks_.size() - first_block);
  if (!ctx.pool || count < 2 * kChunk) {
    for (size_t i = first_block; i < blocks_.size(); ++i) {
      ContactBlock& block = blocks_[i];
      block.first_row = int(rows_.size());
      block.friction_rows = contact_row_count(ctx.contacts[size_t(block.contact)]) - 1;
      write_contact_rows(ctx, block.contact, phase, block.first_row, [this](const Row& r) { rows_.push_back(r); });
    }
    return;
  }
  for (size_t i = first_block; i < blocks_.size(); ++i) {
    ContactBlock& block = blocks_[i];
    const int n = contact_row_count(ctx.contacts[size_t(block.contact)]);
    block.first_row = int(rows_.size());
    block.friction_rows = n - 1;
    rows_.resize(rows_.size() + size_t(n));
  }
  ctx.pool->run_ranges(count, kChunk, [&](int first, int last, int) {
    for (int i = first; i < last; ++i) {
      const ContactBlock& block = blocks_[first_block + size_t(i)];
      Row* out = &rows_[size_t(block.first_row)];
      write_contact_rows(ctx, block.contact, phase, block.first_row, [&out](const Row& r) { *out++ = r; });
    }
  });
}

// Every joint's rows at the start of the step, with the contact group each belongs to. Limit rows are speculative
// (LimitRows::Always): a limit's row is there at every step, letting the coordinate reach its bound at the end of
// the step and no further, and carries an impulse only when the step would take the coordinate past it. A row
// added only near the bound misses a bar that gravity swings onto its limit within one step from rest (a 2 cm
// bar at h = 1/30 s swings 0.8 rad in its first step; the rate at the start of the step, 0, says nothing of it).
void LcpSolver::collect_joint_rows(const StepContext& ctx) {
  joint_rows_.clear();
  joint_row_group_.clear();
  for (int j = 0; j < int(ctx.joints.size()); ++j) {
    const Joint& joint = ctx.joints[j];
    joint_rows(joint, j, ctx.bodies, ctx.dt, joint_rows_, JointRowForm::Decoupled, LimitRows::Always);
    const int body = ctx.bodies[joint.body_a].is_dynamic() ? joint.body_a : joint.body_b;
    joint_row_group_.resize(joint_rows_.size(), ctx.graph.group_of_body()[body]);
  }
}

// Per group, once per step: whether it is simulated (not asleep) and whether it uses shock propagation.
// Layers come from contacts only, so a group held together by joints is solved whole (docs/methods/lcp.md).
void LcpSolver::classify_groups(const StepContext& ctx) {
  const auto& groups = ctx.graph.groups();
  group_awake_.assign(groups.size(), 1);
  group_shock_.assign(groups.size(), 0);
  group_stacked_.assign(groups.size(), 0);
  std::vector<char> has_joint(groups.size(), 0);
  for (int g : joint_row_group_)
    if (g >= 0) has_joint[g] = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    group_awake_[g] = !(set_.sleeping && group_asleep(groups[g], ctx.bodies, ctx.graph));
    group_stacked_[g] = !groups[g].floating && groups[g].layer_count > 0 && !has_joint[g];
    group_shock_[g] = set_.shock_propagation && group_stacked_[g];
  }
}

// True for a body the step leaves alone: asleep in a group that is asleep (or touching nothing).
bool LcpSolver::frozen(const StepContext& ctx, int i) const {
  if (!set_.sleeping || !ctx.bodies[i].sleeping) return false;
  const int g = ctx.graph.group_of_body()[i];
  return g < 0 || !group_awake_[g];
}

void LcpSolver::add_free_velocity(const std::vector<int>& bodies, double fraction) {
  for (int i : bodies) {
    vel_[i].v += fraction * free_[i].v;
    vel_[i].w += fraction * free_[i].w;
  }
}

void LcpSolver::leave_at_rest(const StepContext& ctx, const std::vector<int>& bodies, double speed) {
  for (int i : bodies) {
    const Body& b = ctx.bodies[size_t(i)];
    BodyVelocity& u = vel_[size_t(i)];
    if (b.is_dynamic() && shape_point_speed(b.shape, u.v, u.w) <= speed) u = BodyVelocity{};
  }
}

// One contact group: the whole step, or with shock propagation a dynamics step of fraction f followed by
// the remaining (1 - f) h layer by layer, bottom-up, with each layer's bottom bodies held fixed (thesis Fig. 6.56).
void LcpSolver::solve_group(StepContext& ctx, const ContactGroup& group, int group_index) {
  const bool shock = group_shock_[group_index];
  // Whether the stack's normal impulses start balanced (stack_warm_start.h).
  const bool balanced_start = group_stacked_[group_index] && set_.warm_start && set_.stack_warm_start;
  const double f = shock ? set_.shock_fraction : 1.0;
  PgsSettings pgs{set_.iterations, set_.tolerance, false};
  pgs.lanes = set_.vector_lanes;
  pgs.coloured = set_.coloured;
  pgs.pool = ctx.pool;
  pgs.precision = set_.precision == 1 ? PgsPrecision::Single : PgsPrecision::Double;
  double residual = 0.0;
  int sweeps = 0;

  // Warm start u += B lambda0, the sweeps, then the contact impulses added to the step's totals.
  // The joint rows, which lead the rows, are solved as a block after each sweep, and the motors among them are held
  // for the second half of the sweeps (joints/joint_solve.h); a stack layer (`top`, its top bodies) has none.
  std::vector<int> motors;
  int joint_count = 0;  // the joint rows that lead rows_ (joints/joint_solve.h)
  PgsSettings recorded = pgs;
  recorded.residuals = &sweep_residuals_;
  auto account = [&](const PgsResult& result, int rows) {
    if (result.threads > 1) counters_.add(kCountThreadedRows, double(rows));
    merge_convergence(sweep_residuals_);
    sweeps += result.sweeps;
    residual = std::max(residual, result.residual);
    ctx.stats.rows += rows;
  };
  // A contact's impulses are those of its group's one solve (the whole step, or the first phase) and, under shock
  // propagation, those of its one stack layer: held apart, so that the first phase's may be read back while the
  // layers are solved, and added once the step is solved.
  auto add_impulse = [&](int contact, double normal, const Vec3& friction, bool layers) {
    if (layers) {
      layer_normal_[contact] += normal;
      layer_friction_[contact] += friction;
      return;
    }
    normal_total_[contact] += normal;
    friction_total_[contact] += friction;
    solved_[contact] = 1;
  };
  // The impulses of the compact solve `lanes` of these contacts at these points, on the pool's threads if any.
  auto read_range = [&](const ContactPgs& lanes, const CompactSet& set, int first, int last, bool layers) {
    for (int i = first; i < last; ++i)
      add_impulse(set.contacts[size_t(i)], lanes.lambda(i, 0), lane_friction(lanes, set.points, i), layers);
  };
  auto read_back = [&](const ContactPgs& lanes, const CompactSet& set, bool layers, TaskPool* pool) {
    for_ranges(pool, int(set.contacts.size()), kChunk,
               [&](int first, int last, int) { read_range(lanes, set, first, last, layers); });
  };
  int first_lanes = -1;  // the first phase's compact solve whose impulses are read back beside the layers
  // The rows' one-row paths stay in double (PgsSettings::precision); only their lanes may run in float.
  const PgsPrecision lane_precision = pgs.lanes ? pgs.precision : PgsPrecision::Double;
  const double layer_speed = layer_stop_speed(ctx, lane_precision), at_rest = rest_speed(ctx, lane_precision);
  const double first_speed = first_stop_speed(ctx, lane_precision);
  // The change of the settled bodies' velocities that ends a round of a phase's sweeps (sweep_layer).
  auto stop_speed = [&](Phase phase) { return phase == Phase::Layers ? layer_speed : first_speed; };
  // After a round of a layer's sweeps, the pairs whose friction reached the edge of a disc (the layers' cone)
  // balanced, in blocks of a pair's contacts as the compact path's lanes hold them.
  auto balance_rows = [&] {
    if (set_.friction_directions != 2) return;
    const int n = int(blocks_.size());
    const double least_speed = balance_speed(ctx);
    auto get = [&](int i) {
      const ContactBlock& block = blocks_[size_t(i)];
      return FrictionOf{block.contact, rows_[size_t(block.first_row)].lambda, block_friction(block)};
    };
    auto set = [&](int i, const Vec3& friction) {
      const ContactBlock& block = blocks_[size_t(i)];
      for (int r = 1; r <= block.friction_rows; ++r) {
        Row& row = rows_[size_t(block.first_row + r)];
        row.lambda = friction.dot(row.jb_lin);
      }
    };
    auto full = [&](int i) {
      const ContactBlock& block = blocks_[size_t(i)];
      if (block.friction_rows != 2) return false;
      const Row* r = &rows_[size_t(block.first_row)];
      return near_disc_edge(r[0].lambda, r[1].lambda, r[2].lambda, r[1].mu, r[0].inv_diag, least_speed);
    };
    for (int first = 0, last = 0; first < n; first = last) {
      const Contact& c0 = ctx.contacts[size_t(blocks_[size_t(first)].contact)];
      bool any = false;
      for (last = first; last < n && last - first < ContactPgs::kBlockContacts; ++last) {
        const Contact& c = ctx.contacts[size_t(blocks_[size_t(last)].contact)];
        if (c.a != c0.a || c.b != c0.b) break;
        any = any || full(last);
      }
      if (any && last - first >= 2) balance_friction(ctx, first, last - first, get, set);
    }
  };
  auto solve_rows = [&](Phase phase, const std::vector<int>* settle) {
    if (rows_.empty()) return;
    const bool layers = phase == Phase::Layers;
    apply_impulses(rows_, vel_);
    sweep_residuals_.clear();
    const PgsResult result =
        settle ? sweep_layer(*settle, vel_, ctx.bodies, stop_speed(phase), recorded, layer_start_,
                             [&](const PgsSettings& settings) {
                               const PgsResult round = solve_pgs(rows_, vel_, settings);
                               if (layers) balance_rows();
                               return round;
                             },
                             [&] {
                               double largest = 0.0;
                               for (const Row& r : rows_) largest = std::max(largest, std::abs(r.lambda));
                               return largest;
                             })
               : solve_joints_and_contacts(rows_, {joint_count, set_.joint_sweeps}, motors, vel_, recorded);
    account(result, int(rows_.size()));
    for (const ContactBlock& block : blocks_)
      add_impulse(block.contact, rows_[size_t(block.first_row)].lambda, block_friction(block), layers);
  };
  // A group's contacts alone (no joint rows) through the compact contact path, else as rows.
  // `settle`: the bodies whose velocities end the sweeps as sweep_layer says (a stack layer's top bodies, or the
  // whole group's in the first phase), else null: all the iterations, or the impulses' tolerance.
  auto solve_contacts = [&](const std::vector<int>& edges, Phase phase, const std::vector<int>* settle) {
    sweep_residuals_.clear();
    PgsResult result;
    if (solve_compact(ctx, edges, phase, recorded, settle, stop_speed(phase), result)) {
      if (gathered_.contacts.empty()) return;
      const ContactPgs& lanes = (*compact_)[gathered_.lanes];
      const int count = int(gathered_.contacts.size());
      account(result, count * lanes.rows());
      if (own_lane_values(ctx, phase, count)) {  // read back beside the layers, from contacts and points kept aside
        first_lanes = int(gathered_.lanes);
        std::swap(first_, gathered_);
        return;
      }
      // Each contact's impulses into its own slots: on the world's threads for a large solve.
      read_back(lanes, gathered_, phase == Phase::Layers,
                count >= kThreadedUpkeep ? ctx.pool : nullptr);
      return;
    }
    rows_.clear();
    blocks_.clear();
    add_contacts(ctx, edges, phase);
    solve_rows(phase, settle);
  };

  // Phase 1: the whole group over f h (all of h without shock propagation): weight feeling and impacts.
  // The group's joint rows come first, warm started from their slots' last impulses. Under shock propagation the
  // normal impulses start balanced top-down (stack_warm_start.h), and the sweeps end as a layer's do, once a round
  // changes no body's velocity by more than first_stop_speed: the layers take what is left from there.
  {
    ScopedSubStage timer(sub_stages_, kVelocityPgs);
    const int sweeps_before = sweeps;
    add_free_velocity(group.bodies, f);
    const Phase first = shock ? Phase::First : Phase::Whole;
    const bool contacts_only =
        std::find(joint_row_group_.begin(), joint_row_group_.end(), group_index) == joint_row_group_.end();
    // The contacts' lanes are laid out beside the stack's balance, which needs nothing of them.
    if (balanced_start)
      stack_warm_.find(ctx.bodies, ctx.contacts, ctx.graph, group_index, free_, f, ctx.pool, [&] {
        if (contacts_only)
          laid_out_ = lay_out_compact(ctx, group.edges, first, recorded, gathered_, masses_, &*lane_values_);
      });
    rows_.clear();
    blocks_.clear();
    if (contacts_only) {
      solve_contacts(group.edges, first, shock ? &group.bodies : nullptr);
    } else {
      std::vector<int> joint_rows;  // indices into joint_rows_, in the order they sit in rows_
      for (size_t r = 0; r < joint_rows_.size(); ++r) {
        if (joint_row_group_[r] != group_index) continue;
        Row row = joint_rows_[r];
        prepare(row, masses_);
        row.lambda = set_.warm_start ? joint_warm_.guess(joint_rows_[r]) : 0.0;
        if (joint_rows_[r].kind == kRowMotor) motors.push_back(int(rows_.size()));
        rows_.push_back(row);
        joint_rows.push_back(int(r));
      }
      joint_count = int(rows_.size());
      add_contacts(ctx, group.edges, first);
      solve_rows(first, nullptr);
      motors.clear();
      joint_count = 0;
      for (int r : joint_rows) joint_warm_.forget(joint_rows_[size_t(r)].joint);  // slots absent now restart at 0
      for (size_t i = 0; i < joint_rows.size(); ++i) joint_warm_.keep(joint_rows_[size_t(joint_rows[i])], rows_[i].lambda);
    }
    if (shock) counters_.add(kCountFirstSweeps, double(sweeps - sweeps_before));
    // Without shock propagation, a stack that starts balanced (stack_warm_start) is left at rest where the sweeps
    // leave a body slower than rest_speed, as a layer's top body is (below). What is left is the sweeps' error, and
    // with friction it grew from step to step: `pyramid20` built at rest moved 1e-13 m/s after its first steps, a
    // tenth more each step, until it fell into itself after 11 s, as far as it did in its first steps without the
    // balanced start.
    if (balanced_start && !shock) leave_at_rest(ctx, group.bodies, at_rest);
  }
  if (shock) {
    // Phase 2: the rest of the step, layer by layer, lower bodies of each layer held (infinite mass).
    // Each layer is solved to the layer sweeps: its top bodies keep the velocity it leaves them, and every layer
    // above is held on them in turn (thesis sect. 6.4.4: with a converged solve no error propagates).
    ScopedSubStage layers(sub_stages_, kShockLayers);
    recorded.iterations = set_.layer_iterations;
    add_free_velocity(group.bodies, 1.0 - f);
    const std::vector<StackLayer>& stack = ctx.graph.layers(group_index);
    auto solve_layers = [&] {
      for (const StackLayer& layer : stack) {
        hold(layer.bottom);
        solve_contacts(layer.edges, Phase::Layers, &layer.top);
        release(ctx, layer.bottom);
        // A top body the layer left slower than rest_speed is at rest: what is left is the sweeps' error, which the
        // layers above, held on it, would carry up and grow (about 1.35 times a row on a pyramid with gaps,
        // 4e-4 to 4e-2 g h at the top of 100 rows in the first step from rest), and a resting stack would creep.
        leave_at_rest(ctx, layer.top, at_rest);
      }
    };
    // After a large first phase, when no layer is large enough to be solved on both threads, the two threads take
    // the layers in turn, even and odd. While one solves layer k, the other reads back the impulses of its layer
    // k - 1 and lays out its layer k + 1 (its contacts gathered and its lanes planned against inverse masses of its
    // own, with that layer's bottom held), then waits for layer k: half a layer's work on a resting 100-row
    // pyramid, off the chain of layers. A layer's contacts, points and lanes stay on the thread that solves it, and
    // only the velocities of the bodies between two layers pass from one to the other. Waiting threads read back
    // the first phase's impulses. It is solve_layers's work in solve_layers's order on each body, with each layer's
    // lanes seeing the same masses, so the result is the same bit for bit: two layers in flight keep their lanes'
    // values apart (by parity), and each writes only its own contacts' impulses.
    const int layer_count = int(stack.size());
    const size_t first_layer = compact_next_;
    std::atomic<int> swept{0};       // layers solved so far
    std::atomic<int> first_read{0};  // chunks of the first phase's impulses claimed for reading back
    auto solve_layers_in_turn = [&](int parity) {
      const ContactPgs& first_solve = (*compact_)[size_t(first_lanes)];
      const int first_count = int(first_.contacts.size());
      // A short chunk (about a microsecond), so that a thread that reads one notices its turn in time.
      constexpr int kFirstChunk = 32;
      auto read_first = [&] {  // one chunk of the first phase's impulses; false when none is left
        const int first = kFirstChunk * first_read.fetch_add(1, std::memory_order_relaxed);
        if (first >= first_count) return false;
        read_range(first_solve, first_, first, std::min(first_count, first + kFirstChunk), false);
        return true;
      };
      std::vector<InverseMass>& masses = ahead_masses_[parity];
      CompactSet& set = ahead_[parity];
      ContactLaneValues* values = parity == 0 ? &*lane_values_ : &*ahead_values_;
      for (int k = parity; k < layer_count; k += 2) {
        // Layer k's lanes see the masses solve_layers's would: every lower layer's bottom released, its own held.
        const StackLayer& layer = stack[size_t(k)];
        for (int j = std::max(0, k - 2); j < k; ++j) release(ctx, stack[size_t(j)].bottom, masses);
        hold(layer.bottom, masses);
        set.layout = lay_out_compact(ctx, layer.edges, Phase::Layers, recorded, set, masses, values, first_layer + k);
        SpinWait spin;
        while (swept.load(std::memory_order_acquire) < k)
          if (!read_first()) spin();
        if (set.layout == Layout::Lanes) {
          sweep_residuals_.clear();
          PgsResult result;
          solve_laid_out(ctx, set, Phase::Layers, recorded, &layer.top, layer_speed, result);
          account(result, int(set.contacts.size()) * (*compact_)[set.lanes].rows());
        } else if (set.layout == Layout::Rows) {
          hold(layer.bottom);
          rows_.clear();
          blocks_.clear();
          add_contacts(ctx, layer.edges, Phase::Layers);
          solve_rows(Phase::Layers, &layer.top);
          release(ctx, layer.bottom);
        }
        leave_at_rest(ctx, layer.top, at_rest);  // as solve_layers
        swept.store(k + 1, std::memory_order_release);
        if (set.layout == Layout::Lanes) read_range((*compact_)[set.lanes], set, 0, int(set.contacts.size()), true);
      }
      while (read_first()) {
      }
    };
    TaskPool* pool = ctx.pool;
    auto layers_on_one = [&] {
      for (const StackLayer& layer : stack) {
        int contacts = 0;
        for (int e : layer.edges) contacts += ctx.graph.edges()[size_t(e)].contact_count;
        if (contacts >= kThreadedContacts) return false;
      }
      return true;
    };
    if (first_lanes < 0) {
      solve_layers();
    } else if (layers_on_one()) {
      // Layer k's lanes are the (first_layer + k)-th, every step: both threads lay out theirs at once.
      if (compact_->size() < first_layer + stack.size()) compact_->resize(first_layer + stack.size());
      compact_next_ = first_layer + stack.size();
      ahead_masses_[0] = masses_;  // copied here: a layer solved as rows holds its bottom in masses_
      ahead_masses_[1] = masses_;
      ctx.pool = nullptr;
      pool->run(2, [&](int task, int) { solve_layers_in_turn(task); });
      ctx.pool = pool;
    } else {
      read_back((*compact_)[size_t(first_lanes)], first_, false, pool);
      solve_layers();
    }
  }
  ctx.stats.residual = std::max(ctx.stats.residual, residual);
  group_sweeps_ = std::max(group_sweeps_, sweeps);
}

void LcpSolver::read_settings() { set_ = table().read(params_); }

void LcpSolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  free_.assign(n, BodyVelocity{});
  load_inverse_masses(ctx.bodies, masses_);
  // Free velocity changes over the whole step (eqs. 4.12, 4.19); phases add fractions of them. Fixed
  // and kinematic bodies keep their prescribed velocity and have zero inverse mass (thesis sect. 5.2.5).
  for (size_t i = 0; i < n; ++i) {
    const Body& b = ctx.bodies[i];
    vel_[i] = {b.linear_velocity, b.angular_velocity};
    if (!b.sleeping) free_[i] = free_velocity_change(b, ctx.gravity, ctx.dt);
  }
  // Each contact's slots for the step's impulses, bounce and whether it was solved. Every slot is 0 between steps
  // (the step reads them back and clears them, below), so only new ones are set: clearing them in a pass of their
  // own, 81 bytes a contact, took 0.17 ms a step on large_pyramid on one thread, and 0.5 ms on two, where the other
  // thread had written many of them last.
  const int contacts = int(ctx.contacts.size());
  TaskPool* upkeep = contacts >= kThreadedUpkeep ? ctx.pool : nullptr;
  if (solved_.size() < size_t(contacts)) {
    for (auto* slots : {&normal_total_, &layer_normal_, &bounce_}) slots->resize(size_t(contacts), 0.0);
    friction_total_.resize(size_t(contacts), Vec3::Zero());
    layer_friction_.resize(size_t(contacts), Vec3::Zero());
    solved_.resize(size_t(contacts), 0);
  }
  stack_warm_.clear(size_t(contacts));
  collect_joint_rows(ctx);
  classify_groups(ctx);
  group_sweeps_ = 0;
  compact_next_ = 0;

  // Each awake contact group on its own (thesis sect. 5.5); a group whose bodies all sleep is not simulated.
  const auto& groups = ctx.graph.groups();
  for (int g = 0; g < int(groups.size()); ++g)
    if (group_awake_[g]) solve_group(ctx, groups[g], g);
  // Bodies touching nothing move freely.
  const auto& group_of = ctx.graph.group_of_body();
  for (size_t i = 0; i < n; ++i)
    if (group_of[i] < 0) {
      vel_[i].v += free_[i].v;
      vel_[i].w += free_[i].w;
    }
  ctx.stats.iterations += group_sweeps_;

  // Each contact's impulses, on the world's threads for many contacts, and its slots cleared. A task of kChunk
  // contacts here is a microsecond or two of work, as long as the pool's hand-out of it: in tasks of 16 kChunk
  // this pass took 0.7-0.8 ms a step on large_pyramid on two threads, against 1.0 ms.
  for_ranges(upkeep, contacts, 16 * kChunk, [&](int first, int last, int) {
    for (size_t k = size_t(first); k < size_t(last); ++k) {
      if (solved_[k]) {  // else asleep: keeps its impulses for when it wakes
        Contact& c = ctx.contacts[k];
        c.normal_impulse = normal_total_[k] + layer_normal_[k];
        c.friction_impulse = friction_total_[k] + layer_friction_[k];
        c.layer_normal_impulse = layer_normal_[k];
        c.layer_friction_impulse = layer_friction_[k];
      }
      normal_total_[k] = layer_normal_[k] = bounce_[k] = 0.0;  // cleared for the next step while in the caches
      friction_total_[k] = layer_friction_[k] = Vec3::Zero();
      solved_[k] = 0;
    }
  });
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic() || (group_of[i] >= 0 && frozen(ctx, int(i)))) continue;
    b.linear_velocity = vel_[i].v;
    b.angular_velocity = vel_[i].w;
  }
}

// Error correction by projection in a first-order world (thesis sect. 4.16, eq. 6.78) for one group:
// lambda = lcp(J_n M^-1 J_n^T, -(d - allowed)), s += M^-1 J_n^T lambda. Depths are carried forward from
// detection by the contacts' relative motion in the position update, and the PGS tracks the displacements,
// so a layer sees how far the layers below it were moved (depths re-evaluated between layers, thesis sect. 6.4.5).
int LcpSolver::project_group(StepContext& ctx, const ContactGroup& group, int group_index) {
  const int iterations = set_.correction_iterations;
  if (iterations == 0) return 0;
  int sweeps = 0;
  PgsSettings pgs{iterations, set_.tolerance, false};
  pgs.lanes = set_.vector_lanes;
  pgs.coloured = set_.coloured;
  pgs.pool = ctx.pool;
  pgs.precision = set_.precision == 1 ? PgsPrecision::Single : PgsPrecision::Double;
  const double allowed = set_.allowed_penetration;

  // Contact k's point of application on each body and its depth now: the detected depth carried forward by the
  // contact's relative motion in the position update. Each body's part of the contact is carried with the body's
  // rigid motion of the step (its start pose to its pose now), not along the velocities at the step's end: those
  // miss the h^2 (w x v) of a body that turns while it moves, by which a capsule spinning at 13 rad/s and moving at
  // 3 m/s (scenes/default.json) was left 12 mm deeper than allowed_penetration on a ball, step after step. What is
  // carried of a sphere or a capsule is the centre of its rounding (the contact point moved in by its radius along
  // the normal), so that a round body rolling on is as deep as before, not lifted by its turn.
  auto depth_of = [&](const Contact& c, Vec3& ra, Vec3& rb) {
    const Body& A = ctx.bodies[c.a];
    const Body& B = ctx.bodies[c.b];
    // side: -1 for a (the normal points away from it), +1 for b.
    auto carried = [&](const Body& body, int i, double side) {
      const bool round = body.shape.type == ShapeType::Sphere || body.shape.type == ShapeType::Capsule;
      const Vec3 inward = (round ? side * body.shape.radius : 0.0) * c.normal;
      const Vec3 core = c.position + inward;
      return Vec3(body.position - inward + turn_[size_t(i)] * (core - start_position_[size_t(i)]));
    };
    const Vec3 pa = carried(A, c.a, -1.0), pb = carried(B, c.b, 1.0);
    ra = pa - A.position, rb = pb - B.position;
    return c.depth - c.normal.dot(pb - pa);
  };
  // J dx >= d - allowed: separate by the excess depth. The depth left is at most a tenth of the thinner body's
  // half thickness (collision/continuous.h): a 0.2 mm sheet left the full allowed_penetration (1 mm) deep is
  // wholly through the ground, where the contact's normal no longer pushes it back.
  auto excess_of = [&](const Contact& c, double depth) {
    const double left =
        std::min(allowed, kThinAllowed * thinner_half_thickness(ctx.bodies[c.a].shape, ctx.bodies[c.b].shape));
    return depth - left;
  };
  // Contact k's excess depth before any displacement, found once (a settled stack's layers, then the global
  // correction, ask of every contact).
  auto excess_before = [&](int k) {
    double& excess = excess_before_[size_t(k)];
    if (std::isnan(excess)) {
      Vec3 ra, rb;
      excess = excess_of(ctx.contacts[k], depth_of(ctx.contacts[k], ra, rb));
    }
    return excess;
  };
  // A large group's are all found first on the world's threads, each into its own contact's slot: no body of the
  // group moves before its last solve, so the same values as one by one below (a resting 100-row pyramid's 59,800
  // contacts took 2 ms a step on one thread, the whole of its projection).
  constexpr int kEdgesPerTask = 128;  // about 500 contacts: far longer than handing a task out
  const int edge_count = int(group.edges.size());
  if (ctx.pool && edge_count * 4 >= kThreadedUpkeep)  // about 4 contacts a pair
    ctx.pool->run_ranges(edge_count, kEdgesPerTask, [&](int first, int last, int) {
      for (int i = first; i < last; ++i) {
        const GraphEdge& edge = ctx.graph.edges()[size_t(group.edges[size_t(i)])];
        for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) excess_before(k);
      }
    });
  // Whether a contact of these edges is deeper than it may be, before any displacement.
  auto any_excess = [&](const std::vector<int>& edges) {
    for (int e : edges) {
      const GraphEdge& edge = ctx.graph.edges()[e];
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k)
        if (excess_before(k) > 0.0) return true;
    }
    return false;
  };
  // The contacts of these edges that a solve can move through the compact contact path (constraints/pgs_contacts.h),
  // its layout kept from the same projection of the step before; the same result bit for bit as the rows below in
  // double precision. False when the path does not take them.
  auto project_compact = [&](const std::vector<int>& edges) {
    if (!pgs.lanes || !pgs.coloured) return false;
    gathered_.contacts.clear();
    gathered_.keys.clear();
    for (int e : edges) {
      const GraphEdge& edge = ctx.graph.edges()[e];
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
        const Contact& c = ctx.contacts[k];
        // A row no body can move would have no effect (inv_diag 0): the rows leave it out as well.
        if (!movable(masses_[size_t(c.a)]) && !movable(masses_[size_t(c.b)])) continue;
        gathered_.contacts.push_back(k);
        gathered_.keys.push_back({c.a, c.b});
      }
    }
    if (projection_next_ == projection_->size()) projection_->emplace_back();
    ContactPgs& lanes = (*projection_)[projection_next_++];
    lanes.share_values(&*lane_values_);
    if (!lanes.plan(gathered_.keys, 1, false, masses_, pgs.precision)) return false;
    gathered_.points.resize(gathered_.contacts.size());
    for (size_t i = 0; i < gathered_.contacts.size(); ++i) {
      const Contact& c = ctx.contacts[size_t(gathered_.contacts[i])];
      ContactPoint& p = gathered_.points[i];
      p = ContactPoint{};
      p.dir[0] = c.normal;
      p.target = excess_of(c, depth_of(c, p.ra, p.rb));
    }
    lanes.write(gathered_.points);
    const PgsResult result = lanes.solve(vel_, pgs);
    sweeps += result.sweeps;
    if (result.threads > 1) counters_.add(kCountThreadedRows, double(gathered_.contacts.size()));
    return true;
  };
  bool displaced = false;  // whether a solve of this group has run, and may have moved bodies (vel_ is 0 until then)

  auto solve_contacts = [&](const std::vector<int>& edges) {
    // Before any displacement, a row whose contact is within its allowed depth has w = J dx - target = -target >= 0
    // at lambda = 0, and its update keeps lambda at 0. With every row so, the PGS would do one sweep that changes
    // nothing (a settled stack's layers, every step): the rows are not built and the solve is skipped, with the
    // same result bit for bit.
    if (!displaced && !any_excess(edges)) return;
    displaced = true;
    if (project_compact(edges)) return;
    rows_.clear();
    for (int e : edges) {
      const GraphEdge& edge = ctx.graph.edges()[e];
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
        const Contact& c = ctx.contacts[k];
        Vec3 ra, rb;
        const double depth = depth_of(c, ra, rb);
        Row r = point_row(c.a, c.b, ra, rb, c.normal);
        r.lo = 0.0;
        prepare(r, masses_);
        if (r.inv_diag == 0.0) continue;
        r.target = excess_of(c, depth);
        rows_.push_back(r);
      }
    }
    const PgsResult result = solve_pgs(rows_, vel_, pgs);
    sweeps += result.sweeps;
    if (result.threads > 1) counters_.add(kCountThreadedRows, double(rows_.size()));
  };

  if (group_shock_[group_index]) {
    for (const StackLayer& layer : ctx.graph.layers(group_index)) {
      hold(layer.bottom);
      solve_contacts(layer.edges);
      release(ctx, layer.bottom);
    }
    // Thesis Fig. 6.60: a global error correction after the layered one. A body whose neighbours below and
    // above are both of lower layers (a wall's brick under a toppled one) is held between them in its layer's
    // projection; here every body moves, from the displacements the layers found.
    if (set_.global_correction) solve_contacts(group.edges);
  } else {
    solve_contacts(group.edges);
  }
  for (int i : group.bodies)
    if (!vel_[i].v.isZero(0.0) || !vel_[i].w.isZero(0.0)) displace(ctx.bodies[i], vel_[i].v, vel_[i].w);
  return sweeps;
}

void LcpSolver::integrate_positions(StepContext& ctx) {
  const double h = ctx.dt;
  const auto& groups = ctx.graph.groups();
  // Position update with the constrained velocity u(t+h) (thesis eq. 6.76); sleeping bodies stay put
  // bit for bit, so their contacts are reused without a narrow phase.
  {
    ScopedSubStage timer(sub_stages_, kPositions);
    start_position_.resize(ctx.bodies.size());
    turn_.resize(ctx.bodies.size());
    for (int i = 0; i < int(ctx.bodies.size()); ++i) {
      Body& b = ctx.bodies[size_t(i)];
      start_position_[size_t(i)] = b.position;
      if (b.kind == BodyKind::Fixed || frozen(ctx, i)) {
        turn_[size_t(i)].setIdentity();
        continue;
      }
      const Quat start = b.orientation;
      advance_pose(b, h);
      turn_[size_t(i)] = (b.orientation * start.conjugate()).toRotationMatrix();
    }
  }

  // Error correction, per awake group; the PGS works on displacements here (vel_ holds them). Groups are
  // independent, so the step's sweeps are the most any group needed (as for the velocities).
  {
    ScopedSubStage timer(sub_stages_, kProjection);
    load_inverse_masses(ctx.bodies, masses_);
    std::fill(vel_.begin(), vel_.end(), BodyVelocity{});
    excess_before_.assign(ctx.contacts.size(), std::numeric_limits<double>::quiet_NaN());
    projection_next_ = 0;
    int sweeps = 0;
    for (int g = 0; g < int(groups.size()); ++g)
      if (group_awake_[g]) sweeps = std::max(sweeps, project_group(ctx, groups[g], g));
    ctx.stats.iterations += sweeps;
  }
  ScopedSubStage timer(sub_stages_, kSleeping);

  SleepSettings settings;
  settings.enabled = set_.sleeping;
  settings.energy_per_mass = set_.sleep_energy;
  settings.steps = set_.sleep_steps;
  settings.dt = ctx.dt;
  settings.gravity = ctx.gravity.norm();
  // A running motor keeps its bodies awake even when friction holds them still, and a servo until it rests.
  ctx.stats.sleeping = update_sleep(ctx.bodies, ctx.graph, settings, restless_bodies(ctx.joints, ctx.bodies));
}

// lcp honours every scene feature; only a parameter can switch one off.
std::vector<std::string> LcpSolver::unsupported(const SceneFeatures& scene) const {
  std::vector<std::string> out;
  warn_ignored_friction("lcp", table().read(params_).friction_directions, scene, out);
  return out;
}
}  // namespace cl
