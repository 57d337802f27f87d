// Articulated bodies for the implicit penalty method (Xu, Zhao, Barbic 2014, section 5, eq. 52-66): joint
// constraint functions on positions and rotations in maximal coordinates, their Jacobians and second
// derivatives, Baumgarte stabilisation, the constrained solve of the momentum changes through a Schur
// complement with an SVD pseudo-inverse (redundant rows and closed loops allowed), and PD servos.
//
// Conventions (shared with pair_force.h):
//  - Variables of a body: [x, theta], theta the infinitesimal world-frame rotation R -> (I + [dtheta]x) R;
//    velocities [v, w] (world frame, about the centre of mass). W_a, W_b (rows x 6) are dC/d[x, theta] of
//    bodies a and b, so Cdot = W_a [v_a; w_a] + W_b [v_b; w_b] (eq. 57).
//  - Unknowns of the integrator: dS_k = [dP_k, dL_k] per body with unknowns (6 columns each), G dS = h Z
//    (eq. 15-18). Fixed and kinematic bodies have no unknowns: their columns drop out, but a kinematic
//    body's prescribed velocity still enters Cdot and q (its acceleration is taken as zero).
//  - Constraint forces are physical: the generalised force (force, torque about the centre of mass) on body
//    k is W_k^T lambda, so lambda is N for rows in m and N m for dimensionless rows.
//
// Rows per joint (joint data and conventions from joints/joint.h; anchors and axes fixed in the bodies):
//  ball      3  x_a + R_a X_a - x_b - R_b X_b (eq. 52)
//  hinge     5  ball at the anchor, and at anchor + axis minus the row of the largest |world axis| component
//               (section 5); + 6 with an enabled hinge servo: the rotation match to the target angle (eq. 66,
//               on the relative rotation, as the slider's)
//  slider    8  rotation match R_b^T (R_a Q - R_b)(:, [1,2]) = 0 with Q = relative_rotation (eq. 53 measured in
//               b's frame, so that it depends on the relative rotation only; see the .cpp), and
//               t_k . (x_b - x_a) = t_k . R_a (X_a - Q X_b) for the two directions t_k across the axis fixed in
//               a (eq. 54 with the joint axis for the paper's centre line a1): 3 rows are redundant
//  fixed     9  ball + rotation match
//  universal 4  ball + (R_a s) . (R_b s2) = cos(initial angle) (the two axes keep their angle)
//  hinge2    4  the same constraints as universal (steering axis on a, wheel axis on b)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "core/body.h"
#include "joints/joint.h"
#include "solvers/implicit_penalty/pair_force.h"

namespace cl::implicit_penalty {

using RowsX6 = Eigen::Matrix<double, Eigen::Dynamic, 6>;

// One joint's constraint function at the current poses, with its derivatives.
struct JointConstraint {
  Eigen::VectorXd C;  // value: m for point rows, dimensionless for rotation-match and angle rows
  RowsX6 Wa, Wb;      // dC/d[x_a, theta_a], dC/d[x_b, theta_b] (eq. 57, 60 before the mass scaling)

  int rows() const { return int(C.size()); }
  // Cdot = W_a [v_a; w_a] + W_b [v_b; w_b] (eq. 57).
  Eigen::VectorXd rate(const BodyPose& a, const BodyPose& b) const;
};

// Number of rows joint_constraint produces for this joint (see the table above); 0 when unsupported.
int penalty_joint_rows(const Joint& joint);

// Evaluates the joint's constraint at the poses and velocities of its bodies (a = joint.body_a, b =
// joint.body_b; only x, R, v, w are read). Returns false with a message in *why for an invalid joint.
bool joint_constraint(const Joint& joint, const BodyPose& a, const BodyPose& b, JointConstraint& out,
                      std::string* why = nullptr);

// Baumgarte stabilisation (eq. 56) with critical damping beta = alpha^2 / 4, at the velocity level: the bias
//   d = alpha Cdot + beta C,
// with which the constraint row reads
//   sum_i (W_i,lin / m_i) dP_i + (W_i,ang I_i^-1) dL_i = -h d,   i.e.   W v(t+h) = (1 - alpha h) Cdot - h beta C
// (eq. 59 with Pdot = dP / h, Ldot = dL / h). Our change: eq. 58 and 61 add the velocity-product terms of Cddot
// (q of eq. 67, centripetal and Coriolis) and the gyroscopic -B_i Jdot_i w_i, which constrain the acceleration
// so that the rate at the end of the step, with the Jacobian of the end of the step, follows Baumgarte. Those
// terms are taken at the start of the step, explicitly, and pump energy once the links turn fast: a chain of 20
// capsules (scenes/chain20.json, h = 1/120 s, links turning at 40 rad/s, h w = 0.3) gained 1.6 MJ in 135 steps
// and blew up; without them the rows constrain the velocity with the Jacobian of the start of the step, a
// projection in the mass metric that never adds kinetic energy, and the drift that the Jacobian's turning
// leaves is Baumgarte's and the projection's to remove (the same chain loses 14% of its energy in 10 s).
// alpha in 1/s; for the discrete step alpha h = 1 is a good choice: the drift recursion of a violated
// constraint then has eigenvalues 0 and 0.75 per step; alpha h above about 1.8 is unstable.
Eigen::VectorXd baumgarte_bias(const JointConstraint& c, const BodyPose& a, const BodyPose& b, double alpha);

// The constraints of a contact group, over its unknowns (6 columns per body with unknowns: [dP, dL]).
struct JointSystem {
  Eigen::MatrixXd W;           // m x 6n: dC/d[x, theta]; the generalised constraint force is W^T lambda
  Eigen::MatrixXd J;           // m x 6n: [W_lin / m_k, W_ang I_k^-1] per body (eq. 60, 63): J dS = W (v(t+h) - v(t))
  Eigen::VectorXd d;           // m: Baumgarte bias (eq. 61)
  Eigen::VectorXd C, Cdot;     // m: value and rate, for diagnostics
  std::vector<int> row_joint;  // m: index (into the world's joints) of the joint each row belongs to
  int rows() const { return int(d.size()); }
};

// Assembles the rows of the joints `group_joints` (indices into `joints`). unknown_of_body[i] = k >= 0
// gives body i the columns 6k .. 6k + 5 (dS_k = [dP_k, dL_k]); -1 for a body without unknowns (fixed,
// kinematic, or held). `unknown_bodies` is n (the number of column blocks). Joints of which neither body has
// unknowns add nothing. Returns false with *why on an unsupported or invalid joint.
bool assemble_joint_system(const std::vector<Joint>& joints, const std::vector<int>& group_joints,
                           const std::vector<Body>& bodies, const std::vector<int>& unknown_of_body,
                           int unknown_bodies, double alpha, JointSystem& out, std::string* why = nullptr);

// What the constrained solve found.
struct ConstrainedSolveInfo {
  int rows = 0;              // m
  int rank = 0;              // singular values of S kept
  double sigma_max = 0.0;    // largest singular value of S
  double residual = 0.0;     // |J dS + h d| (0 when the rows are consistent; least squares otherwise)
};

// Applies G^-1 to a vector (one back-substitution of the integrator's factorisation of G).
using SolveG = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

// Solves the system of eq. 62 with physical constraint forces,
//   [ G   -h W^T ] [ dS     ]   [ h Z  ]
//   [ J    0     ] [ lambda ] = [ -h d ],
// i.e. G dS = h (Z + W^T lambda) (the step of eq. 15 with the constraint force added to Z) and
// J dS = -h d (eq. 59 with Pdot = dP / h, Ldot = dL / h), through the Schur complement (eq. 64):
//   dS0 = G^-1 (h Z),  F = G^-1 W^T (m back-substitutions),  S = J F (m x m),
//   lambda = S^+ (-d - J dS0 / h),  dS = dS0 + h F lambda,
// S^+ the SVD pseudo-inverse dropping singular values below 1e-10 sigma_max (eq. 64), so redundant rows
// (sliders, closed loops) are solved in the least-squares sense. W, J: m x 6n; hZ: 6n; d: m. With m = 0
// it is dS = G^-1 hZ. Returns false (dS, lambda untouched) on mismatched sizes or a non-finite result.
bool solve_with_constraints(const SolveG& solve_G, const Eigen::MatrixXd& W, const Eigen::MatrixXd& J,
                            const Eigen::VectorXd& hZ, const Eigen::VectorXd& d, double h, Eigen::VectorXd& dS,
                            Eigen::VectorXd& lambda, ConstrainedSolveInfo* info = nullptr);
// The same with a factorised G (its m + 1 back-substitutions done as one multi-column solve).
bool solve_with_constraints(const Eigen::SparseLU<Eigen::SparseMatrix<double>>& G_lu, const Eigen::MatrixXd& W,
                            const Eigen::MatrixXd& J, const Eigen::VectorXd& hZ, const Eigen::VectorXd& d, double h,
                            Eigen::VectorXd& dS, Eigen::VectorXd& lambda, ConstrainedSolveInfo* info = nullptr);
// Convenience: a JointSystem's rows.
bool solve_with_constraints(const Eigen::SparseLU<Eigen::SparseMatrix<double>>& G_lu, const JointSystem& rows,
                            const Eigen::VectorXd& hZ, double h, Eigen::VectorXd& dS, Eigen::VectorXd& lambda,
                            ConstrainedSolveInfo* info = nullptr);

// The slider coordinate of joints/joint.h, s = (R_a s^a) . (x_b - x_a) - s^a . (X_a - Q X_b): equal to
// joint_coordinate() of the same poses.
double slider_coordinate(const Joint& joint, const BodyPose& a, const BodyPose& b);

// The PD force of an enabled slider servo (eq. 65), with exact gradients so the integrator treats it
// implicitly. With u = R_a s^a (the axis carried by a), d = x_b - x_a and the servo's target s* (clamped to
// its range), the coordinate s has the gradient g = ds/d[x_a, theta_a, x_b, theta_b] = [-u, u x d, u, 0]
// and rate sdot = g . [v_a, w_a, v_b, w_b]; the force is minus the gradient of the spring energy
// k/2 (s - s*)^2 plus the Rayleigh damping c/2 sdot^2:
//   f = k (s - s*) + c sdot,   wrench = -f g:  F_a = f u,  tau_a = -f (u x d),  F_b = -f u,  tau_b = 0,
// i.e. +-f u applied at b's centre of mass on both bodies: b is pulled back toward s* (s > s* gives f > 0
// and F_b along -u), and the pair exerts no net force or torque. |f| is bounded by the servo's max_force
// (beyond it a constant force whose direction turns with a). d_pos includes the change of w_a with
// theta_a at fixed L (pair_force.h). Returns false (out cleared) when the joint is not a slider or its servo
// is off.
bool slider_servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out);

// The hinge angle of joints/joint.h counted in whole turns from the servo's last unwrapped angle.
double hinge_servo_angle(const Joint& joint, const BodyPose& a, const BodyPose& b);

// The PD torque of a hinge servo with gains (the rotational twin of eq. 65; a hinge servo without gains is
// the target-rotation constraint of eq. 66 among the joint rows instead), with exact gradients. With
// u = R_a s^a, the angle's gradient g = [0, -u, 0, u] and rate thetadot = u . (w_b - w_a):
//   f = k (theta - theta*) + c thetadot,   tau_a = f u,   tau_b = -f u,
// bounded by max_force (then a constant torque about the axis, which still turns with a). Returns false (out
// cleared) when the joint is not a hinge, its servo is off, or it has no gains.
bool hinge_servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out);
// Either of the two: the servo's PD force or torque, false when the joint has none.
bool servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out);

// What both build on, for a slider or hinge: f = k (x - goal) + c xdot on the joint coordinate x, clamped to
// [lo, hi], applied as the wrench -f g (g = dx/d[x_a, theta_a, x_b, theta_b]), with exact gradients; a clamped
// f is a constant force along (or torque about) the axis that turns with a. False for other joint types.
bool coordinate_force(const Joint& joint, const BodyPose& a, const BodyPose& b, double k, double c, double goal,
                      double lo, double hi, PairForce& out);

// The motors' damping gain: the backward Euler step closes 100/101 of the gap to the motor speed per step.
constexpr double kMotorGain = 100.0;

// A joint's velocity motor as an implicit damper (our addition; the paper has none), for every joint with a
// motor row in joints/joint.h (hinge, slider, hinge-2 and universal): with the motor row's Jacobian g (the
// shared joint geometry; g . u is the rate the motor drives), the gap r = g . u - speed and the effective
// inertia I = 1 / (g^T M^-1 g),
//   f = c r,  c = min(gain I / h, max_force / |r|),  wrench -f g,  d_vel = -c g g^T,
// unless max_force for the whole step, h max_force / I, does not close the gap: then the constant force
// max_force toward the speed (no gradient). The backward Euler step (eq. 15) of the damper closes
// h c / (I + h c) of the gap, gain / (1 + gain) when the bound allows, and never passes the speed, at every
// mass, size and step; the turning of the axis with the bodies is left out of the gradient. `bodies` for the
// inverse masses. False (out cleared) without a motor.
bool motor_force(const Joint& joint, const std::vector<Body>& bodies, double h, double gain, PairForce& out);

// How hard a joint's velocity motor (motor_force) presses the contacts of the bodies it drives (our addition, for
// the physical model's stiffness, pair_stiffness): held still, its damper pushes with force = c |target| toward its
// target rate (c = gain I / h), at most max_force, signed as the target. A point p of a driven body moves with the
// velocity v per unit of the coordinate's rate (a hinge: u x (p - anchor), m/rad; a slider: its axis), so the motor
// pushes it with |force| / |v| along v (the force whose work balances the motor's), and a contact there with the
// normal n (into the contact) carries the part along n: |force| (n . v) / |v|^2. That is the contact's load, as
// gravity's weight is a resting contact's. A contact across the motion (a driven wheel on the ground) carries none.
struct MotorPush {
  static constexpr double kLeastSpeed = 1e-3;  // m per unit rate: a point on the axis is not driven
  int body[2] = {-1, -1};
  Vec3 lin[2] = {Vec3::Zero(), Vec3::Zero()}, ang[2] = {Vec3::Zero(), Vec3::Zero()};  // the motor row's Jacobian
  Vec3 anchor[2] = {Vec3::Zero(), Vec3::Zero()};  // the joint point on each body (world)
  double force = 0.0;                               // N or N m
  // The force (N) along `into` (the direction in which the point's motion deepens the contact) with which the
  // motor presses the point p of body `which`; 0 when the motor drives p out of the contact or not at all.
  double load(int which, const Vec3& p, const Vec3& into) const;
};
// False (out cleared) when the joint has no motor or its motor pushes with no force.
bool motor_push(const Joint& joint, const std::vector<Body>& bodies, double h, double gain, MotorPush& out);

// Joint limits as penalty forces (our addition; the paper has none): past a bound of the hinge angle or slider
// displacement, a spring-damper f = k (x - bound) + c xdot that pushes the coordinate back, with exact gradients
// so that it is integrated implicitly like the contacts (eq. 15); its damper also resists the coordinate's
// leaving while it is past the bound, so that it comes to rest on the bound instead of bouncing off, and within
// the bounds nothing acts. k in N/m or N m/rad, c in N s/m or N m s/rad (limit_gains). False (out cleared) when
// the joint has no limits or is within them.
bool limit_force(const Joint& joint, const BodyPose& a, const BodyPose& b, double k, double c, PairForce& out);

// The gains of a limit for the inertia it holds and the step (our addition, like the limit): with I the effective
// inertia of the coordinate under the joint's own rows, I^-1 = g^T (M^-1 - M^-1 W^T (W M^-1 W^T)^+ W M^-1) g
// (g the coordinate's gradient as in coordinate_force, W the rows of joint_constraint; the free g^T M^-1 g when
// the rows lock the coordinate),
//   k = stiffness I / h^2,   c = 2 damping_ratio sqrt(k I).
// On the coordinate alone the backward Euler step (eq. 15) then maps the depth p and w = h pdot past the bound
// by a matrix of trace (2 + 2 zeta kappa) / D and determinant 1 / D, D = 1 + kappa^2 + 2 zeta kappa, kappa^2 =
// stiffness: at damping_ratio 1 its eigenvalue is 1 / (1 + kappa) twice, so a coordinate that enters the
// limit comes to rest on it without bouncing off and loses all but 1 / (1 + kappa) of its depth per step, and
// a load tau on it rests at a depth tau h^2 / (stiffness I), whatever the mass, size and step. False (k = c = 0)
// for a joint other than a hinge or slider, h <= 0, stiffness <= 0, or no dynamic body.
bool limit_gains(const Joint& joint, const BodyPose& a, const BodyPose& b, const std::vector<Body>& bodies, double h,
                 double stiffness, double damping_ratio, double& k, double& c);

}  // namespace cl::implicit_penalty
