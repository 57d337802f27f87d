// Penalty contact between a distance field body A and a point-sampled body B, with its exact gradients (Xu,
// Zhao, Barbic 2014, section 4.1, eq. 19-34; damping section 4.2, eq. 41-51), accumulated into a PairForce
// whose a is the field body and b the point body.
//
// For a point r_b of B's shell (outward unit normal n_b, both in B's frame) at A's signed distance d < 0:
//   s_b = R_B r_b,  P = x_B + s_b,  s_a = P - x_A,  n = R_B n_b (B's outward normal)          (eq. 21)
//   F_B = k d n          (d < 0: pushes B along its inward normal, out of A)                  (eq. 19, F_B = -F_A)
//   F_DB = k_d (v_A + w_A x s_a - v_B - w_B x s_b)   (full relative velocity at P)            (eq. 41)
//   F_A = -(F_B + F_DB),  tau_A = s_a x F_A,  tau_B = s_b x (F_B + F_DB)                      (eq. 20, 42)
// The force direction is B's normal; A's distance gives only the magnitude, so the force is continuous across
// A's medial axis (section 6). d and its gradient g (A's frame) come from find_penetrating_points.
//
// Variables: theta is an infinitesimal world rotation, R -> (I + [dtheta]x) R. With G = R_A g (world):
//   dd/dx_A = -G^T, dd/dtheta_A = G^T [s_a]x, dd/dx_B = G^T, dd/dtheta_B = -G^T [s_b]x      (eq. 22-29)
//   dn/dtheta_B = -[n]x                                                                      (eq. 24)
// and w depends on the rotation at fixed angular momentum: dw/dtheta = I_world^-1 [L]x - [w]x (zero for a body
// with zero inverse inertia, whose w is prescribed).
#pragma once

#include <span>

#include "solvers/implicit_penalty/pair_force.h"
#include "solvers/implicit_penalty/point_runs.h"
#include "collision/shell_points.h"

namespace cl::implicit_penalty {

// Adds the penalty and damping force of one penetrating point of B (`points`) in A's field (`field`) to `sum`
// (sum.a is A, sum.b is B; the caller sets them) and counts it in sum.points. k: stiffness, N/m; k_d: damping,
// N s/m (0 skips the damping and its gradients). For many points of one pair use add_point_forces.
//  - Exact: the gradients above, with the rotating normal, the moving lever arms and the turning angular
//    velocities (eq. 31-34, 37-40, 45-51).
//  - Approximate (Barbic and James 2008, the [35] of the paper's Fig. 12): the symmetric Gauss-Newton form. The
//    distance is linearised along the normal with a unit slope, G := -n (for a flat contact A's outward gradient
//    is B's inward normal, so both modes agree as d -> 0), and every term of the derivative of the contact
//    Jacobian is dropped: with the contact row
//        J_n = [ n^T, (s_a x n)^T, -n^T, -(s_b x n)^T ]   (dd ~= J_n [dx_A, dtheta_A, dx_B, dtheta_B]),
//    d_pos = -k J_n^T J_n (no rotating normal -k d [n]x, no lever arm terms [F]x..., no damping position
//    terms), and d_vel = -k_d J_D^T J_D with J_D = [-I, [s_a]x, I, -[s_b]x], which is the exact velocity
//    gradient (already symmetric). The wrench is the same in both modes.
void add_point_force(const BodyPose& field, const BodyPose& points, const PenetratingPoint& p, double k, double k_d,
                     GradientMode mode, PairForce& sum);

// add_point_force for each of `penetrating` (equal up to rounding), at a fraction of the cost: the pair's
// gradient blocks are built once from sums over the points (they are products of per-point vectors with
// per-pair matrices), so a point costs a few 3 x 3 outer products (about 20 ns, against about 480 ns for a
// call of add_point_force, which assembles the 12 x 12 blocks every time). Use this for a pair's points.
// With `along_field_gradient` (our change; which points take it: the solver's field_direction), each force acts
// along A's inward normal, -G / |G|, instead of B's: normal to A's surface, and for a round A through its centre
// (or axis), as a contact force on A does. B's normals, as eq. 19 has them, tilt the force wherever B's surface
// is not parallel to A's: a ball on a box's edge was pushed off its centre and spun (a 0.4 m ball dropped at
// 7 m/s: 24 rad/s in two steps, 4.9 kJ from nothing), a box tilted on a floor was pushed along it. The exact
// gradients then turn the direction with A (a plane's or a box face's normal is fixed in A's frame) instead of
// with B; a round A's normal also turns with its curvature, which they leave out (use the approximate ones).
// `memo` (here and in add_depth_damping): the moments of the list's runs (point_runs.h), summed once for the calls
// over one list.
void add_point_forces(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                      double k, double k_d, GradientMode mode, PairForce& sum, bool along_field_gradient = false,
                      RunMomentsMemo* memo = nullptr);

// Damping of the depth's rate only (our change to eq. 41, for the physical contact model). With G the unit
// gradient of A's distance at B's point (world frame), the depth changes at ddot = -G . u, u = v_A + w_A x s_a -
// v_B - w_B x s_b, and each point of B feels
//   F_DB = k_d G (G . u)
// the force of the dissipation k_d ddot^2 / 2: it resists going deeper and coming out, never sliding (eq. 41
// damps the whole relative velocity and acts as viscous friction; damping along B's normal would still drag
// the points of a side face that dips into A). With the row r = [G, s_a x G, -G, -(s_b x G)] (G . u = r . qdot)
// the wrench is -k_d r (r . qdot) and d_vel = -k_d r r^T, symmetric and exact. Its position gradients (velocity
// times the turning of G and of the lever arms, which needs the distance's Hessian) are left out, as the
// paper's approximate mode leaves out the damping's. Adds to `sum` without counting points.
// A round body (field_round, points_round: a sphere) turning about its centre moves none of its surface, so
// its spin is left out of u (and its angular columns out of r): on material points, a ball rolling without
// slipping has those ahead of its lowest point sinking in and those behind rising, and their damping is a
// torque against the rolling (viscoelastic rolling resistance, about v sqrt(penetration / g) / r of the
// weight); the depth of the shapes does not change as it rolls, and it rolls freely. A round points body is
// damped along `push` (unit: the pair's normal, the way the field pushes the points body out) through its
// centre, each point's row then being that of the centre, s = 0: along G at its points (a box's gradient, off
// the ball's centre by the box's edge) the damping's torque spun a frictionless 0.4 m ball on a box's edge up to
// 64 rad/s, 38 kJ from nothing, as nothing in r let the spin answer it; along the ball's own normals it dragged
// a ball rolling on the flat (2 m/s: 1.26 after 2 s). (A round field body's gradient already points through its
// centre.)
void add_depth_damping(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                       double k_d, PairForce& sum, bool field_round = false, bool points_round = false,
                       const Vec3& push = Vec3::Zero(), RunMomentsMemo* memo = nullptr);

// The pair as one contact, for its restitution: the depth-weighted mean of the unit distance gradients (for
// a's points in b's field, of their opposite: both then push b out of a) and of the penetrating points' world
// positions, that is the direction and the centre of the pair's penalty pressure (points entering at depth 0
// weigh nothing, so both move continuously); the deepest depth; and the secant, the mean depth over the deepest
// (see rebound_speed). count is 0 when no point has a defined gradient.
struct PairNormal {
  Vec3 normal{0, 0, 0};  // unit, pushing b out of a
  Vec3 point{0, 0, 0};   // world
  double deepest = 0.0;  // m
  double secant = 1.0;
  int count = 0;
};
PairNormal pair_normal(const BodyPose& a, const BodyPose& b, std::span<const PenetratingPoint> a_in_b,
                       std::span<const PenetratingPoint> b_in_a);

// The speed at which the bodies approach along the pair's normal at its point: N . u with u = v_a + w_a x s_a
// - v_b - w_b x s_b the relative velocity of a's and b's material points there (s the point from each centre).
double approach_speed(const BodyPose& a, const BodyPose& b, const PairNormal& n);

// Damping ratio of a linear spring-damper contact whose rebound speed is e times its approach speed: a mass on
// a spring with damping ratio zeta leaves after half a damped period with e = exp(-zeta pi / sqrt(1 - zeta^2)),
// so zeta = -ln e / sqrt(pi^2 + ln^2 e); e = 0 takes critical damping (zeta = 1: no rebound).
double restitution_damping_ratio(double e);

// The contact as the solver steps it, reduced to the pair's approach coordinate x (minus the deepest depth):
// the penalty force is K times the mean depth of the penetrating points, that is K_s = secant K times the
// deepest depth (secant = mean depth / deepest depth: 1 for a face flat on the other body, about 1/2 for a
// ball's cap or a box's edge, about 1/3 for a box's corner), while its gradient at the step's fixed set of
// points is K (each point's depth grows with x; the points about to enter are not in the set). One step of
// the semi-implicit backward Euler of eq. 2-8 (eq. 15-17 for one body) on m x'' = -K_s x - c x' is then
//     (m + h c + h^2 K) v' = m v - h K_s x,   x' = x + h v'
// per step a factor sqrt(m / (m + h c + h^2 K)) on the oscillation's amplitude: backward Euler's own damping,
// which at the default penetration (sqrt(K / m) h = 1.65 for a resting contact at h = 1/60) takes most of
// a rebound. At c = -K h the step is symplectic Euler on K_s, which keeps the energy (factor 1).
// rebound_speed: the speed at which x leaves 0 after stepping from depth `depth` (m) at approach speed
// `approach` (m/s), with m the pair's reduced mass (kg) and c (N s/m) constant.
// `pull` (m/s^2): the acceleration with which the other forces (gravity, applied forces) drive the contact deeper.
double rebound_speed(double K, double secant, double c, double m, double h, double depth, double approach,
                     double pull = 0.0);

// The rebound ratio of that contact arriving at speed 1, the mean over 8 phases of where in a step the
// contact begins.
double discrete_restitution(double K, double c, double m, double h, double secant = 1.0);

// The damping (N s/m) with which that discrete contact rebounds at e on average over the phases (for
// contacts whose approach is not known, such as resting ones): searched in [-K h, oo), where the rebound
// falls as c grows; -K h when even symplectic Euler keeps less than e. e = 0 takes critical damping of the
// gradient's spring, 2 sqrt(K m), which no secant below 1 makes rebound.
double restitution_damping(double K, double m, double h, double e, double secant = 1.0);

// The damping (N s/m) with which the contact, now at `depth` (m) and approaching at `approach` (m/s), leaves
// at `target` (m/s): for an impact the solver asks e times the approach speed it met at first touch, and asks
// again every step of the contact from where the contact then is, so where in a step the impact began (which
// moves the phase-averaged rebound by up to 20 % at sqrt(K / m) h near 1) and the secant changing as points
// enter are followed. Searched from 0 up while backward Euler without damping leaves faster than `target`, else
// below 0 down to -K h - m / 2h (where a step of the model doubles the speed). A contact that even there leaves
// within this step slower than `target` (stiff: sqrt(K / m) h above about 2) is held in for this step instead,
// at the least damping from where the next step can leave at `target` (`holding` set true); the caller passes
// `held` true the next step. NaN when `target` is 0, or when the contact, undamped in continuous time, would
// leave at no more than half of `target` (its kinetic and spring energy less the work against `pull` on the way
// out): no rebound is left to shape; a held contact is not tested so (its last step took the speed it gives).
double impact_damping(double K, double secant, double m, double h, double depth, double approach, double target,
                      double pull = 0.0, bool held = false, bool* holding = nullptr);

// The same force with the roles of a and b exchanged: a <-> b, the wrench's and both Jacobians' rows and columns
// reordered ([F_a, tau_a, F_b, tau_b] -> [F_b, tau_b, F_a, tau_a], likewise the variables); points kept. So the
// solver can add A's points in B's field (a PairForce whose a is B), swapped, to the pair whose a is A.
PairForce swapped(const PairForce& f);

}  // namespace cl::implicit_penalty
