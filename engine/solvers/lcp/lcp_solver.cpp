#include "solvers/lcp/lcp_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cl {

namespace {

const std::vector<ParamSpec>& specs() {
  static const std::vector<ParamSpec> list = {
      {"iterations", ParamKind::Integer, "", 1, 1000, 10,
       "Projected Gauss-Seidel sweeps over all rows per step for the velocities (thesis 6.1.7 uses 10)"},
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

// Rows for every contact: normal (bounds [0, inf)) then its friction rows (bounds +-mu lambda_n).
void LcpSolver::build_rows(StepContext& ctx) {
  const int friction_rows = int(params_.get("friction_directions"));
  const double restitution_threshold = params_.get("restitution_threshold");
  const bool warm = params_.get("warm_start") != 0;
  const double h = ctx.dt;
  rows_.resize(ctx.contacts.size());

  for (size_t k = 0; k < ctx.contacts.size(); ++k) {
    const Contact& c = ctx.contacts[k];
    ContactRows& r = rows_[k];
    r.a = c.a;
    r.b = c.b;
    r.inv_mass_a = inv_mass_[c.a];
    r.inv_mass_b = inv_mass_[c.b];
    r.mu = c.friction;
    r.normal = make_axis(ctx, c, c.normal);

    // Relative velocity at the contact, b minus a, from the free velocities.
    const Vec3 vrel = (vel_[c.b].v + vel_[c.b].w.cross(c.position - ctx.bodies[c.b].position)) -
                      (vel_[c.a].v + vel_[c.a].w.cross(c.position - ctx.bodies[c.a].position));
    const double vn = vrel.dot(c.normal);
    const double gap = -c.depth;
    // Normal target (digest 4.4, 8.1): an impact faster than the threshold bounces back with e * v_n;
    // a contact still apart may close its gap within the step (linearised gap, nu = -d); a penetrating
    // one must not approach further (the projection removes the penetration itself).
    if (vn < -restitution_threshold && c.restitution > 0 && vn * h < -std::max(gap, 0.0))
      r.normal.bias = c.restitution * vn;
    else
      r.normal.bias = std::max(gap, 0.0) / h;
    r.normal.lambda = warm && c.persisted ? c.normal_impulse : 0.0;

    r.friction_rows = c.friction > 0 ? friction_rows : 0;
    if (r.friction_rows == 0) continue;
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
      r.friction[f].lambda = warm && c.persisted ? c.friction_impulse.dot(t[f]) : 0.0;
    }
  }
}

namespace {
// Applies an impulse change d along one axis to the two bodies' velocities (u += B d).
inline void apply(const LcpSolver::Axis& x, double d, double ima, double imb, Vec3& va, Vec3& wa, Vec3& vb, Vec3& wb) {
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

// Projected Gauss-Seidel sweeps over all rows, contact by contact, the normal row before its friction rows
// (whose bounds +-mu lambda_n are re-read inside the sweep, digest 6.5 SOR-LCP-3). Matrix-free: a row
// update touches only its two bodies' velocities (digest 6.6).
void LcpSolver::sweep(int iterations, double& residual) {
  residual = 0.0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (int it = 0; it < iterations; ++it) {
    residual = 0.0;
    for (ContactRows& r : rows_) {
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
  }
}

void LcpSolver::solve_velocities(StepContext& ctx) {
  const double h = ctx.dt;
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  inv_mass_.resize(n);
  inv_inertia_.resize(n);

  // Free velocities u* = u + h M^-1 (f_ext, tau_ext - w x I w) (eqs. 4.12, 4.19). Fixed and kinematic
  // bodies keep their prescribed velocity and have zero inverse mass (digest 3.8).
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    vel_[i].v = b.linear_velocity;
    vel_[i].w = b.angular_velocity;
    inv_mass_[i] = b.inv_mass;
    inv_inertia_[i] = b.inv_inertia_world;
    if (!b.is_dynamic()) continue;
    vel_[i].v += h * (ctx.gravity + b.inv_mass * b.force);
    vel_[i].w = free_angular_velocity(b, b.torque, h);
  }

  build_rows(ctx);

  // Warm start: apply the initial impulses, u = u* + B lambda0.
  for (ContactRows& r : rows_) {
    apply(r.normal, r.normal.lambda, r.inv_mass_a, r.inv_mass_b, vel_[r.a].v, vel_[r.a].w, vel_[r.b].v, vel_[r.b].w);
    for (int f = 0; f < r.friction_rows; ++f)
      apply(r.friction[f], r.friction[f].lambda, r.inv_mass_a, r.inv_mass_b, vel_[r.a].v, vel_[r.a].w, vel_[r.b].v, vel_[r.b].w);
  }

  double residual = 0.0;
  const int iterations = int(params_.get("iterations"));
  if (!rows_.empty()) {
    sweep(iterations, residual);
    ctx.stats.iterations += iterations;
  }
  ctx.stats.residual = residual;
  ctx.stats.rows += int(rows_.size());

  // Keep the impulses with their contacts for the next step's warm start and for display.
  for (size_t k = 0; k < rows_.size(); ++k) {
    Contact& c = ctx.contacts[k];
    const ContactRows& r = rows_[k];
    c.normal_impulse = r.normal.lambda;
    c.friction_impulse = Vec3::Zero();
    for (int f = 0; f < r.friction_rows; ++f) c.friction_impulse += r.friction[f].lambda * r.friction[f].dir;
  }

  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = vel_[i].v;
    b.angular_velocity = vel_[i].w;
  }
}

void LcpSolver::integrate_positions(StepContext& ctx) {
  const double h = ctx.dt;
  // Position update with the constrained velocity u(t+h) (thesis eq. 6.76).
  integrate_body_positions(ctx.bodies, h);

  // Error correction by projection in a first-order world (digest 4.14, thesis eq. 6.78): solve
  // lambda = lcp(J_n M^-1 J_n^T, -d) for the penetration left after the position update and displace
  // s += M^-1 J_n^T lambda. Depths are carried forward from detection by the contact's relative motion.
  const int iterations = int(params_.get("correction_iterations"));
  if (iterations == 0 || ctx.contacts.empty()) return;
  const double allowed = params_.get("allowed_penetration");
  for (size_t i = 0; i < ctx.bodies.size(); ++i) inv_inertia_[i] = ctx.bodies[i].inv_inertia_world;

  rows_.clear();
  for (const Contact& c : ctx.contacts) {
    const Body& A = ctx.bodies[c.a];
    const Body& B = ctx.bodies[c.b];
    const Vec3 ra = c.position - A.position, rb = c.position - B.position;
    // ra, rb use the moved centres: a first-order estimate of the material points' relative motion.
    const Vec3 moved = h * ((B.linear_velocity + B.angular_velocity.cross(rb)) -
                            (A.linear_velocity + A.angular_velocity.cross(ra)));
    const double depth = c.depth - c.normal.dot(moved);
    if (depth <= allowed) continue;
    ContactRows r{};
    r.a = c.a;
    r.b = c.b;
    r.inv_mass_a = inv_mass_[c.a];
    r.inv_mass_b = inv_mass_[c.b];
    r.friction_rows = 0;
    r.normal = make_axis(ctx, c, c.normal);
    if (r.normal.inv_diag == 0.0) continue;
    r.normal.bias = -(depth - allowed);  // w = J dx - (d - allowed) >= 0: separate by the excess depth
    rows_.push_back(r);
  }
  if (rows_.empty()) return;

  // The PGS works on displacements here: vel_ holds the accumulated position and rotation corrections.
  const size_t n = ctx.bodies.size();
  std::fill(vel_.begin(), vel_.end(), Velocity{Vec3::Zero(), Vec3::Zero()});
  double residual = 0.0;
  sweep(iterations, residual);
  ctx.stats.iterations += iterations;
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    if (vel_[i].v.isZero(0.0) && vel_[i].w.isZero(0.0)) continue;
    b.position += vel_[i].v;
    b.orientation = apply_small_rotation(b.orientation, vel_[i].w);
    b.update_world_inertia();
  }
}

}  // namespace cl
