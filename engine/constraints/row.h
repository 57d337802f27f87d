// One constraint row of a velocity-level mixed LCP in matrix-free form (thesis sect. 4.13, 6.1.5), the currency of
// every row-based method: `lcp` and `volume` build their contact rows with it, joints emit their rows as
// JointRow (joints/joint.h), and one projected Gauss-Seidel (constraints/pgs.h) solves them all.
//
// A row couples two bodies a and b:
//   J u = ja_lin . v_a + ja_ang . w_a + jb_lin . v_b + jb_ang . w_b
//   w   = J u - target + cfm lambda
// with the complementarity conditions of a boxed LCP: w = 0 when lo < lambda < hi, w >= 0 at lambda = lo and
// w <= 0 at lambda = hi. lambda is an impulse (N s, N m s, or the row's own unit, e.g. pressure x time for a
// volume row) and changes the velocities by u += M^-1 J^T lambda. A friction row names its normal row: its
// bounds are then +-mu lambda_normal, re-read at every update (thesis sect. 6.1.4, SOR-LCP-3), or, for a pair of
// contact's pair of tangent rows (FrictionCone), the pair's impulse lies in the disc of radius mu lambda_normal.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "constraints/motion.h"
#include "core/body.h"

namespace cl {

// A body's inverse mass and world inverse inertia as a solve sees them: zero for fixed and kinematic bodies,
// and for bodies a phase holds still (shock propagation).
struct InverseMass {
  double linear = 0.0;
  Mat3 angular = Mat3::Zero();
};
// Every body's inverse mass properties (thesis sect. 5.2.5: fixed and kinematic bodies have infinite mass).
void load_inverse_masses(const std::vector<Body>& bodies, std::vector<InverseMass>& out);

// How a friction row's impulse is bounded. Box: +-mu lambda_n on its own (thesis sect. 6.1.4, a four-sided
// pyramid for two tangent rows, whose diagonal reaches sqrt(2) mu lambda_n). A disc pair, a contact's two tangent
// rows next to each other (First, then Second, with the same normal row and mu): the two impulses are found
// together and held in the disc of radius mu lambda_n, Coulomb's cone |lambda_t| <= mu lambda_n in every tangent
// direction (see relax_disc in pgs_sweep.h).
enum class FrictionCone : uint8_t { Box, First, Second };

// The cone of a contact's tangent row k of `count` (its rows in order after the normal row): the two of a pair
// form a disc pair when `disc` is asked for, else (and for a single tangent row) each has its box.
inline FrictionCone tangent_cone(int k, int count, bool disc) {
  if (!disc || count != 2) return FrictionCone::Box;
  return k == 0 ? FrictionCone::First : FrictionCone::Second;
}

struct Row {
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  int a = -1, b = -1;
  Vec3 ja_lin = Vec3::Zero(), ja_ang = Vec3::Zero(), jb_lin = Vec3::Zero(), jb_ang = Vec3::Zero();  // J
  double target = 0.0;  // the value J u is driven to (or bounded by): error correction, bounce, motor speed
  double cfm = 0.0;     // constraint force mixing (thesis sect. 4.15): softness added to the diagonal
  double lo = -kInfinity, hi = kInfinity;  // bounds on lambda (unused by a friction row)
  int normal_row = -1;  // friction row: index of its normal row in the same row list; bounds +-mu lambda_n
  // Solved right after the row before it in both sweep directions: a friction row after its normal row, a
  // joint's rows after its first (see PgsSettings::symmetric).
  bool follows = false;
  FrictionCone cone = FrictionCone::Box;  // friction row: alone in its box, or half of a disc pair
  double mu = 0.0;      // friction row: the coefficient of friction
  double lambda = 0.0;  // the impulse; the initial value is the warm start

  // Filled by prepare(): B = M^-1 J^T and 1 / (J M^-1 J^T + cfm).
  Vec3 ba_lin = Vec3::Zero(), ba_ang = Vec3::Zero(), bb_lin = Vec3::Zero(), bb_ang = Vec3::Zero();
  double inv_diag = 0.0;

  // Whether the row moves body a, b: its B has a non-zero entry on that side (a fixed, kinematic or held body's
  // B is zero).
  bool moves_a() const { return !ba_lin.isZero(0.0) || !ba_ang.isZero(0.0); }
  bool moves_b() const { return !bb_lin.isZero(0.0) || !bb_ang.isZero(0.0); }
  // J u for the given velocities.
  double value(const BodyVelocity& ua, const BodyVelocity& ub) const {
    return ja_lin.dot(ua.v) + ja_ang.dot(ua.w) + jb_lin.dot(ub.v) + jb_ang.dot(ub.w);
  }
  // u += M^-1 J^T d for the two bodies. Always inline: it is the tail of every one-row update and of the warm
  // start, where a call costs as much as the update.
  __attribute__((always_inline)) void apply(double d, std::span<BodyVelocity> u) const {
    u[a].v += d * ba_lin;
    u[a].w += d * ba_ang;
    u[b].v += d * bb_lin;
    u[b].w += d * bb_ang;
  }
};

// Newton's impact law (as ODE has it), the rule every row-based method bounces by: the separating speed (m/s) a
// contact approaching at normal speed vn (< 0 when approaching) with restitution e must leave at, or 0 (no
// bounce) for approaches slower than `threshold`, so that resting contacts, which approach at about g h per
// step, do not jitter.
inline double bounce_speed(double vn, double e, double threshold) { return vn < -threshold && e > 0.0 ? -e * vn : 0.0; }

// The bounce of a contact that approaches at vn now (m/s, < 0 approaching) if it is an impact, else 0: an impact
// is an approach the contact had before the step's forces acted (`before_step`), faster than `threshold` and than
// one step of those forces (`step_approach`, g h under gravity). A resting contact's whole approach is the step's
// own, so it never bounces, at any step and size.
inline double impact_bounce(double before_step, double vn, double step_approach, double e, double threshold) {
  return before_step < -std::max(threshold, std::abs(step_approach)) ? bounce_speed(vn, e, 0.0) : 0.0;
}

// The row along `dir` at a contact point: J u = (v_b + w_b x r_b - v_a - w_a x r_a) . dir, the relative velocity
// of b's point minus a's (the "j - i" convention of thesis eqs. 4.165-4.166). r_a, r_b: from each body's centre
// of mass to the point.
inline Row point_row(int a, int b, const Vec3& ra, const Vec3& rb, const Vec3& dir) {
  Row r;
  r.a = a;
  r.b = b;
  r.ja_lin = -dir;
  r.ja_ang = -ra.cross(dir);
  r.jb_lin = dir;
  r.jb_ang = rb.cross(dir);
  return r;
}

// Computes B = M^-1 J^T and the inverse diagonal from the two bodies' inverse masses (a row with no mobility
// at all gets inv_diag 0 and is never changed by the solve).
// Inline: row building is a large part of a contact solve's time, and most rows are built where this is seen.
inline void prepare(Row& r, const InverseMass& a, const InverseMass& b) {
  r.ba_lin = a.linear * r.ja_lin;
  r.ba_ang = a.angular * r.ja_ang;
  r.bb_lin = b.linear * r.jb_lin;
  r.bb_ang = b.angular * r.jb_ang;
  const double diag = r.ja_lin.dot(r.ba_lin) + r.ja_ang.dot(r.ba_ang) + r.jb_lin.dot(r.bb_lin) + r.jb_ang.dot(r.bb_ang);
  // CFM softens the row (thesis sect. 4.15): A_ii + cfm.
  r.inv_diag = diag + r.cfm > 1e-300 ? 1.0 / (diag + r.cfm) : 0.0;
}
inline void prepare(Row& row, std::span<const InverseMass> masses) { prepare(row, masses[row.a], masses[row.b]); }

}  // namespace cl
