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
#include "solvers/implicit_penalty/penalty_geometry.h"

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
void add_point_forces(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                      double k, double k_d, GradientMode mode, PairForce& sum);

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
void add_depth_damping(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                       double k_d, PairForce& sum);

// Damping ratio of a linear spring-damper contact whose rebound speed is e times its approach speed: a mass on
// a spring with damping ratio zeta leaves after half a damped period with e = exp(-zeta pi / sqrt(1 - zeta^2)),
// so zeta = -ln e / sqrt(pi^2 + ln^2 e); e = 0 takes critical damping (zeta = 1: no rebound).
double restitution_damping_ratio(double e);

// The rebound ratio of a contact of stiffness K (N/m) and damping c (N s/m) on a mass m, stepped as the solver
// steps it: backward Euler at step h on m x'' = -K x - c x' while x < 0 at the start of a step, free flight
// otherwise; the mean over 8 phases of where in a step the contact begins.
double discrete_restitution(double K, double c, double m, double h);

// The damping (N s/m) with which that discrete contact rebounds at e: backward Euler's own damping takes
// energy away when the contact lasts only a few steps (sqrt(K / m) h near 1), so the damping is lowered below
// the continuous value of restitution_damping_ratio (raised where the discrete contact keeps more), down to c = -K h (which turns backward Euler into the
// energy-keeping symplectic Euler, stable while sqrt(K / m) h < 2). e = 0 takes critical damping; where even
// c = -K h cannot reach e (or sqrt(K / m) h >= 2), the continuous value is used and the rebound falls short.
double restitution_damping(double K, double m, double h, double e);

// The same force with the roles of a and b exchanged: a <-> b, the wrench's and both Jacobians' rows and columns
// reordered ([F_a, tau_a, F_b, tau_b] -> [F_b, tau_b, F_a, tau_a], likewise the variables); points kept. So the
// solver can add A's points in B's field (a PairForce whose a is B), swapped, to the pair whose a is A.
PairForce swapped(const PairForce& f);

}  // namespace cl::implicit_penalty
