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
       "Start PGS from the impulses of the previous step for contacts whose features persist"},
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

inline double dot_row(const Vec3& l, const Vec3& a, const Vec3& v, const Vec3& w) { return l.dot(v) + a.dot(w); }

}  // namespace

std::span<const ParamSpec> LcpSolver::param_specs() { return specs(); }

LcpSolver::LcpSolver() { params_ = ParamSet(specs()); }

// Rows for every contact: normal (bounds [0, inf)) then its friction rows (bounds +-mu lambda_n).
void LcpSolver::build_rows(StepContext& ctx, bool with_friction) {
  const int friction_rows = with_friction ? int(params_.get("friction_directions")) : 0;
  const double restitution_threshold = params_.get("restitution_threshold");
  const bool warm = params_.get("warm_start") != 0;
  const double h = ctx.dt;
  rows_.clear();
  rows_.reserve(ctx.contacts.size() * (1 + friction_rows));

  auto make_row = [&](const Contact& c, const Vec3& dir) {
    Row r{};
    r.a = c.a;
    r.b = c.b;
    const Vec3 ra = c.position - ctx.bodies[c.a].position, rb = c.position - ctx.bodies[c.b].position;
    // Contact rows use the j - i convention (digest 4.8, eqs. 4.165-4.166).
    r.ja_lin = -dir;
    r.ja_ang = -ra.cross(dir);
    r.jb_lin = dir;
    r.jb_ang = rb.cross(dir);
    r.ba_lin = inv_mass_[c.a] * r.ja_lin;
    r.ba_ang = inv_inertia_[c.a] * r.ja_ang;
    r.bb_lin = inv_mass_[c.b] * r.jb_lin;
    r.bb_ang = inv_inertia_[c.b] * r.jb_ang;
    const double diag = r.ja_lin.dot(r.ba_lin) + r.ja_ang.dot(r.ba_ang) + r.jb_lin.dot(r.bb_lin) + r.jb_ang.dot(r.bb_ang);
    r.inv_diag = diag > 1e-300 ? 1.0 / diag : 0.0;
    r.normal_row = -1;
    return r;
  };

  for (Contact& c : ctx.contacts) {
    Row n = make_row(c, c.normal);
    const double vn = dot_row(n.ja_lin, n.ja_ang, v_[c.a], w_[c.a]) + dot_row(n.jb_lin, n.jb_ang, v_[c.b], w_[c.b]);
    const double gap = -c.depth;
    // Normal target (digest 4.4, 8.1): an impact faster than the threshold bounces back with e * v_n;
    // a contact still apart may close its gap within the step (linearised gap, nu = -d); a penetrating
    // one must not approach further (the projection removes the penetration itself).
    if (vn < -restitution_threshold && c.restitution > 0 && vn * h < -std::max(gap, 0.0))
      n.bias = c.restitution * vn;
    else
      n.bias = std::max(gap, 0.0) / h;
    n.lo = 0.0;
    n.hi = std::numeric_limits<double>::infinity();
    n.lambda = warm && c.persisted ? c.normal_impulse : 0.0;
    n.mu = c.friction;
    const int normal_index = int(rows_.size());
    rows_.push_back(n);
    if (friction_rows == 0 || c.friction <= 0) continue;

    // Tangent directions: the first along the sliding velocity when there is one (so sliding friction is
    // exactly mu lambda_n along the motion), else a fixed basis around the normal.
    const Vec3 vrel = (v_[c.b] + w_[c.b].cross(c.position - ctx.bodies[c.b].position)) -
                      (v_[c.a] + w_[c.a].cross(c.position - ctx.bodies[c.a].position));
    const Vec3 vt = vrel - c.normal * c.normal.dot(vrel);
    Vec3 t1, t2;
    if (vt.norm() > 1e-6) {
      t1 = vt.normalized();
      t2 = c.normal.cross(t1);
    } else {
      tangent_basis(c.normal, t1, t2);
    }
    for (int k = 0; k < friction_rows; ++k) {
      const Vec3 dir = k == 0 ? t1 : t2;
      Row f = make_row(c, dir);
      f.bias = 0.0;
      f.lo = f.hi = 0.0;
      f.lambda = warm && c.persisted ? c.friction_impulse.dot(dir) : 0.0;
      f.normal_row = normal_index;
      f.mu = c.friction;
      rows_.push_back(f);
    }
  }
}

// One PGS sweep per iteration over all rows in order (normals before their friction rows), matrix-free:
// each row update reads and writes only the two bodies' velocities (digest 6.6).
int LcpSolver::sweep(int iterations, double& residual) {
  residual = 0.0;
  for (int it = 0; it < iterations; ++it) {
    residual = 0.0;
    for (Row& r : rows_) {
      if (r.normal_row >= 0) {
        const double bound = r.mu * rows_[r.normal_row].lambda;
        r.lo = -bound;
        r.hi = bound;
      }
      const double w = dot_row(r.ja_lin, r.ja_ang, v_[r.a], w_[r.a]) + dot_row(r.jb_lin, r.jb_ang, v_[r.b], w_[r.b]) +
                       r.bias;
      const double next = std::clamp(r.lambda - r.inv_diag * w, r.lo, r.hi);
      const double d = next - r.lambda;
      if (d == 0.0) continue;
      r.lambda = next;
      v_[r.a] += d * r.ba_lin;
      w_[r.a] += d * r.ba_ang;
      v_[r.b] += d * r.bb_lin;
      w_[r.b] += d * r.bb_ang;
      residual = std::max(residual, std::abs(d));
    }
  }
  return iterations;
}

void LcpSolver::solve_velocities(StepContext& ctx) {
  const double h = ctx.dt;
  const size_t n = ctx.bodies.size();
  v_.resize(n);
  w_.resize(n);
  inv_mass_.resize(n);
  inv_inertia_.resize(n);

  // Free velocities u* = u + h M^-1 (f_ext, tau_ext - w x I w) (eqs. 4.12, 4.19). Fixed and kinematic
  // bodies keep their prescribed velocity and have zero inverse mass (digest 3.8).
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    v_[i] = b.linear_velocity;
    w_[i] = b.angular_velocity;
    inv_mass_[i] = b.inv_mass;
    inv_inertia_[i] = b.inv_inertia_world;
    if (!b.is_dynamic()) continue;
    v_[i] += h * (ctx.gravity + b.inv_mass * b.force);
    const Vec3 gyro = b.angular_velocity.cross(b.inertia_world() * b.angular_velocity);
    w_[i] += h * (b.inv_inertia_world * (b.torque - gyro));
  }

  build_rows(ctx, true);

  // Warm start: apply the initial impulses, u = u* + B lambda0.
  for (const Row& r : rows_) {
    if (r.lambda == 0.0) continue;
    v_[r.a] += r.lambda * r.ba_lin;
    w_[r.a] += r.lambda * r.ba_ang;
    v_[r.b] += r.lambda * r.bb_lin;
    w_[r.b] += r.lambda * r.bb_ang;
  }

  double residual = 0.0;
  ctx.stats.iterations += rows_.empty() ? 0 : sweep(int(params_.get("iterations")), residual);
  ctx.stats.residual = residual;
  ctx.stats.rows += int(rows_.size());

  // Keep the impulses with their contacts for the next step's warm start and for display.
  size_t row = 0;
  for (Contact& c : ctx.contacts) {
    c.normal_impulse = rows_[row].lambda;
    c.friction_impulse = Vec3::Zero();
    ++row;
    while (row < rows_.size() && rows_[row].normal_row >= 0) {
      c.friction_impulse += rows_[row].lambda * rows_[row].jb_lin;
      ++row;
    }
  }

  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = v_[i];
    b.angular_velocity = w_[i];
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
    Row r{};
    r.a = c.a;
    r.b = c.b;
    r.ja_lin = -c.normal;
    r.ja_ang = -ra.cross(c.normal);
    r.jb_lin = c.normal;
    r.jb_ang = rb.cross(c.normal);
    r.ba_lin = inv_mass_[c.a] * r.ja_lin;
    r.ba_ang = inv_inertia_[c.a] * r.ja_ang;
    r.bb_lin = inv_mass_[c.b] * r.jb_lin;
    r.bb_ang = inv_inertia_[c.b] * r.jb_ang;
    const double diag = r.ja_lin.dot(r.ba_lin) + r.ja_ang.dot(r.ba_ang) + r.jb_lin.dot(r.bb_lin) + r.jb_ang.dot(r.bb_ang);
    if (diag <= 1e-300) continue;
    r.inv_diag = 1.0 / diag;
    r.bias = -(depth - allowed);  // w = J dx - (d - allowed) >= 0: separate by the excess depth
    r.lo = 0.0;
    r.hi = std::numeric_limits<double>::infinity();
    r.lambda = 0.0;
    r.normal_row = -1;
    rows_.push_back(r);
  }
  if (rows_.empty()) return;

  // The PGS works on displacements here: v_/w_ hold the accumulated position and rotation corrections.
  const size_t n = ctx.bodies.size();
  std::fill(v_.begin(), v_.begin() + n, Vec3::Zero());
  std::fill(w_.begin(), w_.begin() + n, Vec3::Zero());
  double residual = 0.0;
  ctx.stats.iterations += sweep(iterations, residual);
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    if (v_[i].isZero(0.0) && w_[i].isZero(0.0)) continue;
    b.position += v_[i];
    b.orientation = apply_small_rotation(b.orientation, w_[i]);
    b.update_world_inertia();
  }
}

}  // namespace cl
