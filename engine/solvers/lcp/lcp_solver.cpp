#include "solvers/lcp/lcp_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cl {

namespace {

constexpr double kJointWarmStart = 0.9;

const std::vector<ParamSpec>& specs() {
  static const std::vector<ParamSpec> list = {
      {"iterations", ParamKind::Integer, "", 1, 1000, 10,
       "Projected Gauss-Seidel sweeps over all rows per step for the velocities (thesis 6.1.7 uses 10)"},
      {"tolerance", ParamKind::Real, "N s", 0, 1e6, 1e-9,
       "A PGS solve stops early once a sweep changes no impulse by more than this (0: always all iterations)"},
      {"correction_iterations", ParamKind::Integer, "", 0, 1000, 5,
       "PGS sweeps of the error-correction projection that removes penetration (thesis: 5; 0 turns it off)"},
      {"warm_start", ParamKind::Bool, "", 0, 1, 1,
       "Start PGS from the previous step's impulses of contacts that persist (same feature pair, or within 2 cm)"},
      {"friction_directions", ParamKind::Integer, "", 0, 2, 2,
       "Tangent rows per contact: 0 frictionless, 1 along the sliding direction only, 2 the friction box "
       "(bounds +-mu lambda_n, first direction along the sliding velocity)"},
      {"restitution_threshold", ParamKind::Real, "m/s", 0, 100, 0.5,
       "Approach speeds below this get no restitution, so resting contacts do not jitter"},
      {"allowed_penetration", ParamKind::Real, "m", 0, 0.1, 0.001,
       "Penetration left in place by the projection so touching contacts persist between steps"},
      {"shock_propagation", ParamKind::Bool, "", 0, 1, 1,
       "Velocity-based shock propagation (thesis 6.4): after a dynamics step of fraction f, solve stack "
       "layers bottom-up with each layer's lower bodies held fixed, for the velocities and the projection"},
      {"shock_fraction", ParamKind::Real, "", 0, 1, 0.01,
       "f: the part of the step solved over the whole group before the layers. Larger f lets bodies feel "
       "the weight above them (a see-saw tips); smaller f removes more solver error and rippling (thesis 6.4.4-6.4.5)"},
      {"sleeping", ParamKind::Bool, "", 0, 1, 1,
       "Sleepy policy (thesis 6.5): contact groups whose bodies stay calm stop being simulated until disturbed"},
      {"sleep_energy", ParamKind::Real, "J/kg", 0, 10, 0.002,
       "A body is calm while its kinetic energy is below this times its mass and not growing"},
      {"sleep_steps", ParamKind::Integer, "", 1, 1000, 5,
       "Consecutive calm steps before a group falls asleep"},
  };
  return list;
}

// The gyroscopic term -w x I w of eq. 4.12, integrated implicitly: one Newton step on
// I (w' - w) + h w' x I w' = h tau in the body frame (Catto, "Numerical methods", GDC 2015; Bullet's
// implicit gyroscopic force). The explicit form of the thesis gains energy on elongated bodies until they
// spin up without bound; the implicit step never gains energy, at the price of damping the precession of a
// freely tumbling body over a few hundred steps when w h is large.
Vec3 free_angular_velocity(const Body& b, const Vec3& torque, double h) {
  const Mat3 r = b.rotation();
  const Vec3 w = r.transpose() * b.angular_velocity;  // body frame
  const Mat3& inertia = b.inertia_body;
  const Vec3 f = h * (w.cross(inertia * w) - r.transpose() * torque);
  const Mat3 jacobian = inertia + h * (skew(w) * inertia - skew(inertia * w));
  return r * (w - jacobian.partialPivLu().solve(f));
}

}  // namespace

std::span<const ParamSpec> LcpSolver::param_specs() { return specs(); }

LcpSolver::LcpSolver() { params_ = ParamSet(specs()); }

namespace {

// Applies an impulse change d along one contact axis to the two bodies' velocities (u += B d).
template <class V>
inline void apply(const LcpSolver::Axis& x, double d, double ima, double imb, V& va, V& wa, V& vb, V& wb) {
  va -= (d * ima) * x.dir;
  wa -= d * x.inv_ang_a;
  vb += (d * imb) * x.dir;
  wb += d * x.inv_ang_b;
}

// One projected Gauss-Seidel row update, clamped to [lo, hi]; returns the change of lambda.
inline double relax(LcpSolver::Axis& x, double lo, double hi, double ima, double imb, Vec3& va, Vec3& wa, Vec3& vb,
                    Vec3& wb) {
  const double w = x.dir.dot(vb - va) + x.ang_b.dot(wb) - x.ang_a.dot(wa) + x.bias;
  const double next = std::clamp(x.lambda - x.inv_diag * w, lo, hi);
  const double d = next - x.lambda;
  if (d == 0.0) return 0.0;  // inactive rows (separating, or friction with no load) change nothing
  x.lambda = next;
  apply(x, d, ima, imb, va, wa, vb, wb);
  return d;
}

}  // namespace

void LcpSolver::load_masses(const StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  inv_mass_.resize(n);
  inv_inertia_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    inv_mass_[i] = ctx.bodies[i].inv_mass;
    inv_inertia_[i] = ctx.bodies[i].inv_inertia_world;
  }
}

// Shock propagation holds a layer's bottom bodies fixed: infinite mass while the layer is solved.
void LcpSolver::hold(const std::vector<int>& bodies) {
  for (int i : bodies) {
    inv_mass_[i] = 0.0;
    inv_inertia_[i].setZero();
  }
}

void LcpSolver::release(const StepContext& ctx, const std::vector<int>& bodies) {
  for (int i : bodies) {
    inv_mass_[i] = ctx.bodies[i].inv_mass;
    inv_inertia_[i] = ctx.bodies[i].inv_inertia_world;
  }
}

LcpSolver::Axis LcpSolver::make_axis(const StepContext& ctx, const Contact& c, const Vec3& dir) const {
  Axis x;
  x.dir = dir;
  x.ang_a = (c.position - ctx.bodies[c.a].position).cross(dir);
  x.ang_b = (c.position - ctx.bodies[c.b].position).cross(dir);
  x.inv_ang_a = inv_inertia_[c.a] * x.ang_a;
  x.inv_ang_b = inv_inertia_[c.b] * x.ang_b;
  const double diag = inv_mass_[c.a] + inv_mass_[c.b] + x.ang_a.dot(x.inv_ang_a) + x.ang_b.dot(x.inv_ang_b);
  x.inv_diag = diag > 1e-300 ? 1.0 / diag : 0.0;
  return x;
}

// The rows of contact k: normal (bounds [0, inf)) then its friction rows (bounds +-mu lambda_n), warm
// started from what the same phase found in the previous step.
LcpSolver::ContactRows LcpSolver::make_contact_rows(const StepContext& ctx, int k, Phase phase) {
  const bool restitution = phase != Phase::Layers;
  const Contact& c = ctx.contacts[k];
  const bool warm = set_.warm_start && c.persisted;
  const double h = ctx.dt;
  ContactRows r;
  r.a = c.a;
  r.b = c.b;
  r.contact = k;
  r.inv_mass_a = inv_mass_[c.a];
  r.inv_mass_b = inv_mass_[c.b];
  r.mu = c.friction;
  r.normal = make_axis(ctx, c, c.normal);

  // Relative velocity at the contact, b minus a, from the velocities so far.
  const Vec3 vrel = (vel_[c.b].v + vel_[c.b].w.cross(c.position - ctx.bodies[c.b].position)) -
                    (vel_[c.a].v + vel_[c.a].w.cross(c.position - ctx.bodies[c.a].position));
  const double vn = vrel.dot(c.normal);
  const double gap = -c.depth;
  // Normal target (digest 4.4, 8.1): an impact faster than the threshold bounces back with e * v_n;
  // a contact still apart may close its gap within the step (linearised gap, nu = -d); a penetrating
  // one must not approach further (the projection removes the penetration itself).
  // With shock propagation the layers keep the bounce target found in the first phase.
  if (restitution && vn < -set_.restitution_threshold && c.restitution > 0 && vn * h < -std::max(gap, 0.0))
    r.normal.bias = bounce_[k] = c.restitution * vn;
  else if (bounce_[k] != 0.0)
    r.normal.bias = bounce_[k];
  else
    r.normal.bias = std::max(gap, 0.0) / h;
  // Warm start from the impulses this phase found last step: the layers' own part under shock propagation,
  // the rest for the first phase (the layers carry less: not the weight of what is above them).
  const double normal0 = phase == Phase::Layers ? c.layer_normal_impulse
                         : phase == Phase::First ? c.normal_impulse - c.layer_normal_impulse
                                                 : c.normal_impulse;
  const Vec3 friction0 = phase == Phase::Layers ? c.layer_friction_impulse
                         : phase == Phase::First ? Vec3(c.friction_impulse - c.layer_friction_impulse)
                                                 : c.friction_impulse;
  r.normal.lambda = warm ? normal0 : 0.0;

  r.friction_rows = c.friction > 0 ? set_.friction_directions : 0;
  if (r.friction_rows == 0) return r;
  // Tangent directions: the first along the sliding velocity when there is one (so sliding friction is
  // exactly mu lambda_n along the motion), else a fixed basis around the normal.
  const Vec3 vt = vrel - c.normal * vn;
  Vec3 t[2];
  if (vt.norm() > 1e-6) {
    t[0] = vt.normalized();
    t[1] = c.normal.cross(t[0]);
  } else {
    tangent_basis(c.normal, t[0], t[1]);
  }
  for (int f = 0; f < r.friction_rows; ++f) {
    r.friction[f] = make_axis(ctx, c, t[f]);
    r.friction[f].lambda = warm ? friction0.dot(t[f]) : 0.0;
  }
  return r;
}

LcpSolver::JointRow LcpSolver::make_joint_row(const ConstraintRow& c) const {
  JointRow r;
  r.a = c.a;
  r.b = c.b;
  r.ja_lin = c.ja_lin;
  r.ja_ang = c.ja_ang;
  r.jb_lin = c.jb_lin;
  r.jb_ang = c.jb_ang;
  r.ba_lin = inv_mass_[c.a] * c.ja_lin;
  r.ba_ang = inv_inertia_[c.a] * c.ja_ang;
  r.bb_lin = inv_mass_[c.b] * c.jb_lin;
  r.bb_ang = inv_inertia_[c.b] * c.jb_ang;
  const double diag = c.ja_lin.dot(r.ba_lin) + c.ja_ang.dot(r.ba_ang) + c.jb_lin.dot(r.bb_lin) + c.jb_ang.dot(r.bb_ang);
  // CFM softens the row (digest 4.13): A_ii + cfm.
  r.inv_diag = diag + c.cfm > 1e-300 ? 1.0 / (diag + c.cfm) : 0.0;
  r.target = c.target;
  r.lo = c.lo;
  r.hi = c.hi;
  r.cfm = c.cfm;
  r.lambda = 0.0;
  r.joint = c.joint;
  r.kind = c.kind;
  r.slot = c.slot;
  return r;
}

// Projected Gauss-Seidel sweeps (digest 6.5-6.6), matrix-free: a row update touches only its two bodies'
// velocities. Joint rows first, then contact by contact, the normal row before its friction rows (whose
// bounds +-mu lambda_n are re-read inside the sweep, SOR-LCP-3).
int LcpSolver::sweep(std::vector<ContactRows>& contacts, std::vector<JointRow>& joints, int iterations,
                     double& residual) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int it = 0;
  while (it < iterations) {
    ++it;
    residual = 0.0;
    for (JointRow& r : joints) {
      Velocity& A = vel_[r.a];
      Velocity& B = vel_[r.b];
      const double w = r.ja_lin.dot(A.v) + r.ja_ang.dot(A.w) + r.jb_lin.dot(B.v) + r.jb_ang.dot(B.w) - r.target +
                       r.cfm * r.lambda;
      const double next = std::clamp(r.lambda - r.inv_diag * w, r.lo, r.hi);
      const double d = next - r.lambda;
      if (d == 0.0) continue;
      r.lambda = next;
      A.v += d * r.ba_lin;
      A.w += d * r.ba_ang;
      B.v += d * r.bb_lin;
      B.w += d * r.bb_ang;
      residual = std::max(residual, std::abs(d));
    }
    for (ContactRows& r : contacts) {
      Vec3 va = vel_[r.a].v, wa = vel_[r.a].w, vb = vel_[r.b].v, wb = vel_[r.b].w;
      double change = std::abs(relax(r.normal, 0.0, kInf, r.inv_mass_a, r.inv_mass_b, va, wa, vb, wb));
      const double bound = r.mu * r.normal.lambda;
      for (int f = 0; f < r.friction_rows; ++f)
        change = std::max(change, std::abs(relax(r.friction[f], -bound, bound, r.inv_mass_a, r.inv_mass_b, va, wa, vb, wb)));
      vel_[r.a].v = va;
      vel_[r.a].w = wa;
      vel_[r.b].v = vb;
      vel_[r.b].w = wb;
      residual = std::max(residual, change);
    }
    // Early exit (digest 6.5, SOR-LCP-4): a sweep that moved no impulse by more than the tolerance.
    if (residual <= set_.tolerance) break;
  }
  return it;
}

// Every joint's rows at the start of the step, with the contact group each belongs to.
void LcpSolver::collect_joint_rows(const StepContext& ctx) {
  constraint_rows_.clear();
  constraint_group_.clear();
  joint_lambda_.resize(ctx.joints.size());
  for (int j = 0; j < int(ctx.joints.size()); ++j) {
    joint_rows(ctx.joints[j], j, ctx.bodies, ctx.dt, constraint_rows_);
    const Joint& joint = ctx.joints[j];
    const int body = ctx.bodies[joint.body_a].is_dynamic() ? joint.body_a : joint.body_b;
    const int group = ctx.graph.group_of_body()[body];
    constraint_group_.resize(constraint_rows_.size(), group);
    joint_lambda_[j].resize(kMaxJointRows, 0.0);
  }
}

// Per group, once per step: whether it is simulated (not asleep) and whether it uses shock propagation.
// Layers come from contacts only, so a group held together by joints is solved whole (see README).
void LcpSolver::classify_groups(const StepContext& ctx) {
  const auto& groups = ctx.graph.groups();
  group_awake_.assign(groups.size(), 1);
  group_shock_.assign(groups.size(), 0);
  std::vector<char> has_joint(groups.size(), 0);
  for (int g : constraint_group_)
    if (g >= 0) has_joint[g] = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    group_awake_[g] = !(set_.sleeping && group_asleep(groups[g], ctx.bodies, ctx.graph));
    group_shock_[g] = set_.shock_propagation && !groups[g].floating && groups[g].layer_count > 0 && !has_joint[g];
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
    vel_[i].v += fraction * free_linear_[i];
    vel_[i].w += fraction * free_angular_[i];
  }
}

// One contact group: the whole step, or with shock propagation a dynamics step of fraction f followed by
// the remaining (1 - f) h layer by layer, bottom-up, with each layer's bottom bodies held fixed (digest 8.5).
void LcpSolver::solve_group(StepContext& ctx, const ContactGroup& group, int group_index) {
  const bool shock = group_shock_[group_index];
  const double f = shock ? set_.shock_fraction : 1.0;
  const int iterations = set_.iterations;
  const bool warm = set_.warm_start;
  double residual = 0.0;
  int sweeps = 0;

  auto gather = [&](const std::vector<int>& edges, Phase phase) {
    rows_.clear();
    for (int e : edges) {
      const GraphEdge& edge = ctx.graph.edges()[e];
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k)
        rows_.push_back(make_contact_rows(ctx, k, phase));
    }
  };
  auto solve_rows = [&](bool layers) {
    // Warm start: u += B lambda0, then the sweeps; the impulses are added to the step's totals.
    for (ContactRows& r : rows_) {
      apply(r.normal, r.normal.lambda, r.inv_mass_a, r.inv_mass_b, vel_[r.a].v, vel_[r.a].w, vel_[r.b].v, vel_[r.b].w);
      for (int i = 0; i < r.friction_rows; ++i)
        apply(r.friction[i], r.friction[i].lambda, r.inv_mass_a, r.inv_mass_b, vel_[r.a].v, vel_[r.a].w, vel_[r.b].v,
              vel_[r.b].w);
    }
    for (JointRow& r : joint_rows_) {
      vel_[r.a].v += r.lambda * r.ba_lin;
      vel_[r.a].w += r.lambda * r.ba_ang;
      vel_[r.b].v += r.lambda * r.bb_lin;
      vel_[r.b].w += r.lambda * r.bb_ang;
    }
    if (rows_.empty() && joint_rows_.empty()) return;
    double phase_residual = 0.0;
    sweeps += sweep(rows_, joint_rows_, iterations, phase_residual);
    residual = std::max(residual, phase_residual);
    ctx.stats.rows += int(rows_.size()) * 3 + int(joint_rows_.size());
    for (const ContactRows& r : rows_) {
      Vec3 friction = Vec3::Zero();
      for (int i = 0; i < r.friction_rows; ++i) friction += r.friction[i].lambda * r.friction[i].dir;
      normal_total_[r.contact] += r.normal.lambda;
      friction_total_[r.contact] += friction;
      if (layers) {
        layer_normal_[r.contact] += r.normal.lambda;
        layer_friction_[r.contact] += friction;
      }
      solved_[r.contact] = 1;
    }
  };

  // Phase 1: the whole group over f h (all of h without shock propagation): weight feeling and impacts.
  add_free_velocity(group.bodies, f);
  gather(group.edges, shock ? Phase::First : Phase::Whole);
  joint_rows_.clear();
  for (size_t r = 0; r < constraint_rows_.size(); ++r) {
    if (constraint_group_[r] != group_index) continue;
    JointRow row = make_joint_row(constraint_rows_[r]);
    joint_rows_.push_back(row);
  }
  // Joint rows warm start from the impulse their slot had last step, scaled by kJointWarmStart: limit rows
  // come and go, and full-strength warm starts of unconverged joint rows pump energy into chains (ODE uses
  // 0.9 x_last for the same reason, digest 6.5).
  if (warm)
    for (JointRow& r : joint_rows_) r.lambda = kJointWarmStart * joint_lambda_[r.joint][r.slot];
  solve_rows(false);
  for (JointRow& r : joint_rows_) std::fill(joint_lambda_[r.joint].begin(), joint_lambda_[r.joint].end(), 0.0);
  for (JointRow& r : joint_rows_) joint_lambda_[r.joint][r.slot] = r.lambda;  // slots absent now restart at 0
  joint_rows_.clear();

  if (shock) {
    // Phase 2: the rest of the step, layer by layer, lower bodies of each layer held (infinite mass).
    add_free_velocity(group.bodies, 1.0 - f);
    for (const StackLayer& layer : ctx.graph.layers(group_index)) {
      hold(layer.bottom);
      gather(layer.edges, Phase::Layers);
      solve_rows(true);
      release(ctx, layer.bottom);
    }
  }
  ctx.stats.residual = std::max(ctx.stats.residual, residual);
  group_sweeps_ = std::max(group_sweeps_, sweeps);
}

void LcpSolver::Settings::read(const ParamSet& p) {
  iterations = int(p.get("iterations"));
  correction_iterations = int(p.get("correction_iterations"));
  warm_start = p.get("warm_start") != 0;
  friction_directions = int(p.get("friction_directions"));
  restitution_threshold = p.get("restitution_threshold");
  allowed_penetration = p.get("allowed_penetration");
  tolerance = p.get("tolerance");
  shock_propagation = p.get("shock_propagation") != 0;
  shock_fraction = p.get("shock_fraction");
  sleeping = p.get("sleeping") != 0;
  sleep_energy = p.get("sleep_energy");
  sleep_steps = int(p.get("sleep_steps"));
}

void LcpSolver::solve_velocities(StepContext& ctx) {
  set_.read(params_);  // once per step: the hot loops read plain fields, not names
  const size_t n = ctx.bodies.size();
  const double h = ctx.dt;
  vel_.resize(n);
  free_linear_.assign(n, Vec3::Zero());
  free_angular_.assign(n, Vec3::Zero());
  load_masses(ctx);
  // Free velocity increments over the whole step (eqs. 4.12, 4.19); phases add fractions of them. Fixed
  // and kinematic bodies keep their prescribed velocity and have zero inverse mass (digest 3.8).
  for (size_t i = 0; i < n; ++i) {
    const Body& b = ctx.bodies[i];
    vel_[i] = {b.linear_velocity, b.angular_velocity};
    if (!b.is_dynamic() || b.sleeping) continue;
    free_linear_[i] = h * (ctx.gravity + b.inv_mass * b.force);
    free_angular_[i] = free_angular_velocity(b, b.torque, h) - b.angular_velocity;
  }
  normal_total_.assign(ctx.contacts.size(), 0.0);
  friction_total_.assign(ctx.contacts.size(), Vec3::Zero());
  solved_.assign(ctx.contacts.size(), 0);
  layer_normal_.assign(ctx.contacts.size(), 0.0);
  layer_friction_.assign(ctx.contacts.size(), Vec3::Zero());
  bounce_.assign(ctx.contacts.size(), 0.0);
  collect_joint_rows(ctx);
  classify_groups(ctx);
  group_sweeps_ = 0;

  // Each awake contact group on its own (digest 5.5); a group whose bodies all sleep is not simulated.
  const auto& groups = ctx.graph.groups();
  for (int g = 0; g < int(groups.size()); ++g)
    if (group_awake_[g]) solve_group(ctx, groups[g], g);
  // Bodies touching nothing move freely.
  const auto& group_of = ctx.graph.group_of_body();
  for (size_t i = 0; i < n; ++i)
    if (group_of[i] < 0 && ctx.bodies[i].is_dynamic() && !ctx.bodies[i].sleeping) {
      vel_[i].v += free_linear_[i];
      vel_[i].w += free_angular_[i];
    }
  ctx.stats.iterations += group_sweeps_;

  for (size_t k = 0; k < ctx.contacts.size(); ++k) {
    if (!solved_[k]) continue;  // asleep: keeps its impulses for when it wakes
    ctx.contacts[k].normal_impulse = normal_total_[k];
    ctx.contacts[k].friction_impulse = friction_total_[k];
    ctx.contacts[k].layer_normal_impulse = layer_normal_[k];
    ctx.contacts[k].layer_friction_impulse = layer_friction_[k];
  }
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic() || (group_of[i] >= 0 && frozen(ctx, int(i)))) continue;
    b.linear_velocity = vel_[i].v;
    b.angular_velocity = vel_[i].w;
  }
}

// Error correction by projection in a first-order world (digest 4.14, thesis eq. 6.78) for one group:
// lambda = lcp(J_n M^-1 J_n^T, -(d - allowed)), s += M^-1 J_n^T lambda. Depths are carried forward from
// detection by the contacts' relative motion in the position update, and the PGS tracks the displacements,
// so a layer sees how far the layers below it were moved (depths re-evaluated between layers, digest 8.7).
void LcpSolver::project_group(StepContext& ctx, const ContactGroup& group, int group_index) {
  const int iterations = set_.correction_iterations;
  if (iterations == 0) return;
  const double allowed = set_.allowed_penetration;
  const double h = ctx.dt;
  std::vector<JointRow> no_joints;

  auto gather = [&](const std::vector<int>& edges) {
    rows_.clear();
    for (int e : edges) {
      const GraphEdge& edge = ctx.graph.edges()[e];
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
        const Contact& c = ctx.contacts[k];
        const Body& A = ctx.bodies[c.a];
        const Body& B = ctx.bodies[c.b];
        const Vec3 ra = c.position - A.position, rb = c.position - B.position;
        const Vec3 moved = h * ((B.linear_velocity + B.angular_velocity.cross(rb)) -
                                (A.linear_velocity + A.angular_velocity.cross(ra)));
        const double depth = c.depth - c.normal.dot(moved);
        ContactRows r{};
        r.a = c.a;
        r.b = c.b;
        r.contact = k;
        r.inv_mass_a = inv_mass_[c.a];
        r.inv_mass_b = inv_mass_[c.b];
        r.friction_rows = 0;
        r.normal = make_axis(ctx, c, c.normal);
        if (r.normal.inv_diag == 0.0) continue;
        r.normal.bias = -(depth - allowed);  // w = J dx - (d - allowed) >= 0: separate by the excess depth
        rows_.push_back(r);
      }
    }
  };
  auto solve_rows = [&]() {
    if (rows_.empty()) return;
    double residual = 0.0;
    sweep(rows_, no_joints, iterations, residual);
  };

  if (group_shock_[group_index]) {
    for (const StackLayer& layer : ctx.graph.layers(group_index)) {
      hold(layer.bottom);
      gather(layer.edges);
      solve_rows();
      release(ctx, layer.bottom);
    }
  } else {
    gather(group.edges);
    solve_rows();
  }
  for (int i : group.bodies) {
    Body& b = ctx.bodies[i];
    if (vel_[i].v.isZero(0.0) && vel_[i].w.isZero(0.0)) continue;
    b.position += vel_[i].v;
    b.orientation = apply_small_rotation(b.orientation, vel_[i].w);
    b.update_world_inertia();
  }
}

void LcpSolver::integrate_positions(StepContext& ctx) {
  const double h = ctx.dt;
  const auto& groups = ctx.graph.groups();
  // Position update with the constrained velocity u(t+h) (thesis eq. 6.76); sleeping bodies stay put
  // bit for bit, so their contacts are reused without a narrow phase.
  for (int i = 0; i < int(ctx.bodies.size()); ++i) {
    Body& b = ctx.bodies[i];
    if (b.kind == BodyKind::Fixed || frozen(ctx, i)) continue;
    b.position += h * b.linear_velocity;
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity, h);
    b.update_world_inertia();
  }

  // Error correction, per awake group; the PGS works on displacements here (vel_ holds them).
  load_masses(ctx);
  std::fill(vel_.begin(), vel_.end(), Velocity{Vec3::Zero(), Vec3::Zero()});
  const int iterations = set_.correction_iterations;
  for (int g = 0; g < int(groups.size()); ++g)
    if (group_awake_[g]) project_group(ctx, groups[g], g);
  if (iterations > 0 && !groups.empty()) ctx.stats.iterations += iterations;

  SleepSettings settings;
  settings.enabled = set_.sleeping;
  settings.energy_per_mass = set_.sleep_energy;
  settings.steps = set_.sleep_steps;
  settings.dt = ctx.dt;
  // A running motor keeps its bodies awake even when friction holds them still.
  std::vector<char> driven(ctx.bodies.size(), 0);
  for (const Joint& j : ctx.joints)
    if (j.motor.enabled && j.motor.speed != 0.0 && j.motor.max_force > 0.0) {
      if (j.body_a >= 0) driven[j.body_a] = 1;
      if (j.body_b >= 0) driven[j.body_b] = 1;
    }
  ctx.stats.sleeping = update_sleep(ctx.bodies, ctx.graph, settings, driven);
}

}  // namespace cl
