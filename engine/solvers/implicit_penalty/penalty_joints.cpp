// Joint constraints, Baumgarte stabilisation, the constrained Schur-complement solve and PD servos of the
// implicit penalty method (Xu, Zhao, Barbic 2014, section 5; conventions in penalty_joints.h).
#include "solvers/implicit_penalty/penalty_joints.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

namespace cl::implicit_penalty {

namespace {

// Singular values of S below this fraction of the largest are dropped (eq. 64: epsilon = 1e-10).
constexpr double kSvdTruncation = 1e-10;

// Writes rows one at a time into a JointConstraint sized by penalty_joint_rows.
struct RowWriter {
  JointConstraint& out;
  int row = 0;

  void add(double c, const Vec3& a_lin, const Vec3& a_ang, const Vec3& b_lin, const Vec3& b_ang) {
    out.C[row] = c;
    out.Wa.row(row) << a_lin.transpose(), a_ang.transpose();
    out.Wb.row(row) << b_lin.transpose(), b_ang.transpose();
    ++row;
  }
  // Three rows of a vector constraint c with dc = A_lin dx_a + A_ang dtheta_a + B_lin dx_b + B_ang dtheta_b;
  // component `skip` (0..2) is left out when >= 0.
  void add3(const Vec3& c, const Mat3& a_lin, const Mat3& a_ang, const Mat3& b_lin, const Mat3& b_ang, int skip = -1) {
    for (int i = 0; i < 3; ++i) {
      if (i == skip) continue;
      add(c[i], a_lin.row(i).transpose(), a_ang.row(i).transpose(), b_lin.row(i).transpose(), b_ang.row(i).transpose());
    }
  }
};

// Ball-and-socket at the body points X_a, X_b (eq. 52): C = x_a + R_a X_a - x_b - R_b X_b,
// W_a = [I, -[r_a]x], W_b = [-I, [r_b]x].
void point_rows(RowWriter& w, const BodyPose& a, const BodyPose& b, const Vec3& Xa, const Vec3& Xb, int skip = -1) {
  const Vec3 ra = a.R * Xa, rb = b.R * Xb;
  const Mat3 I = Mat3::Identity();
  w.add3(a.x + ra - b.x - rb, I, -skew(ra), -I, skew(rb), skip);
}

// Rotation match of the first two columns (eq. 53, 66), measured in b's frame: R_b^T (R_a Q - R_b)(:, k) = 0,
// i.e. y_k - e_k = 0 with y_k = R_b^T c_a, c_a = R_a Q e_k, k = 1, 2. Multiplying eq. 53 by R_b^T keeps its
// zero set but makes the rows depend on the relative rotation only: dy = R_b^T ((dtheta_a - dtheta_b) x c_a),
// so W_a = [0, -R_b^T [c_a]x] = -W_b exactly. The torques W^T lambda then cancel (angular momentum is
// conserved also while the joint is violated) and the 6 rows have rank 3 exactly; in the world frame the
// rows would have rank up to 6 off the constraint, with singular values of the size of the error that the
// SVD keeps, and their large multipliers made a tumbling welded pair lose most of its angular momentum.
void rotation_match_rows(RowWriter& w, const BodyPose& a, const BodyPose& b, const Mat3& Q) {
  const Mat3 RaQ = a.R * Q;
  const Mat3 RbT = b.R.transpose();
  const Mat3 Z = Mat3::Zero();
  for (int k = 0; k < 2; ++k) {
    const Vec3 ca = RaQ.col(k);
    const Mat3 Wang = RbT * skew(ca);
    w.add3(RbT * ca - Vec3::Unit(k), Z, -Wang, Z, Wang);
  }
}

// The two axes keep their angle (universal, hinge-2): C = u_a . u_b - cos(phi0), u_a = R_a s, u_b = R_b s2;
// dC = (u_a x u_b) . (dtheta_a - dtheta_b).
void axes_angle_row(RowWriter& w, const BodyPose& a, const BodyPose& b, const Vec3& s_a, const Vec3& s2_b,
                    double angle) {
  const Vec3 ua = a.R * s_a, ub = b.R * s2_b;
  const Vec3 n = ua.cross(ub);
  w.add(ua.dot(ub) - std::cos(angle), Vec3::Zero(), n, Vec3::Zero(), -n);
}

// Slider, eq. 54 with the joint axis: for t = R_a T (T across the axis, fixed in a) and d = x_b - x_a,
// C = t . d - T . (X_a - Q X_b); W_a = [-t, t x d], W_b = [t, 0].
void slider_cross_rows(RowWriter& w, const Joint& j, const BodyPose& a, const BodyPose& b) {
  const Vec3 s = j.axis_a.normalized();
  Vec3 T[2];
  tangent_basis(s, T[0], T[1]);
  const Vec3 offset = j.anchor_a - j.relative_rotation.toRotationMatrix() * j.anchor_b;
  const Vec3 d = b.x - a.x;
  for (const Vec3& Tk : T) {
    const Vec3 t = a.R * Tk;
    w.add(t.dot(d) - Tk.dot(offset), -t, t.cross(d), t, Vec3::Zero());
  }
}

// Q(angle): the relative rotation R_a^T R_b at which the hinge angle of joints/joint.h is `angle`:
// q_b = q_a rot(s^a, angle) q_0 gives q_a^* q_b q_0^* = rot(s^a, angle).
Mat3 hinge_rotation_at(const Joint& j, double angle) {
  return (Quat(Eigen::AngleAxisd(angle, j.axis_a.normalized())) * j.relative_rotation).normalized().toRotationMatrix();
}

// dw/dtheta at fixed L (pair_force.h): I^-1 [L]x - [w]x for a dynamic body; 0 when w does not depend on the
// rotation (fixed and kinematic bodies, zero inv_inertia).
Mat3 dw_dtheta(const BodyPose& p) {
  if (p.inv_inertia.isZero(0.0)) return Mat3::Zero();
  return p.inv_inertia * skew(p.L) - skew(p.w);
}

bool fail(std::string* why, const std::string& message) {
  if (why) *why = message;
  return false;
}

// The Schur-complement solve of eq. 62-64. `solve_many` applies G^-1 to every column of a matrix.
template <class SolveMany>
bool solve_schur(const SolveMany& solve_many, const Eigen::MatrixXd& W, const Eigen::MatrixXd& J,
                 const Eigen::VectorXd& hZ, const Eigen::VectorXd& d, double h, Eigen::VectorXd& dS,
                 Eigen::VectorXd& lambda, ConstrainedSolveInfo* info) {
  const Eigen::Index n6 = hZ.size(), m = d.size();
  if (W.rows() != m || J.rows() != m || W.cols() != n6 || J.cols() != n6 || !(h > 0)) return false;

  // One multi-column back-substitution: [dS0, F] = G^-1 [h Z, W^T].
  Eigen::MatrixXd rhs(n6, m + 1);
  rhs.col(0) = hZ;
  rhs.rightCols(m) = W.transpose();
  const Eigen::MatrixXd sol = solve_many(rhs);
  if (sol.rows() != n6 || sol.cols() != m + 1) return false;
  const Eigen::VectorXd dS0 = sol.col(0);

  Eigen::VectorXd lam = Eigen::VectorXd::Zero(m);
  ConstrainedSolveInfo stats;
  stats.rows = int(m);
  Eigen::VectorXd out = dS0;
  if (m > 0) {
    const auto F = sol.rightCols(m);
    // S lambda = -d - J dS0 / h (from J (dS0 + h F lambda) = -h d), S = J G^-1 W^T.
    const Eigen::MatrixXd S = J * F;
    const Eigen::VectorXd r = -d - J * dS0 / h;
    // Eigen's SVD must not see a non-finite matrix (it reads out of bounds): such a system has no solution.
    if (!S.allFinite() || !r.allFinite()) return false;
    // Pseudo-inverse by SVD, truncating singular values below 1e-10 sigma_max (eq. 64).
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(S, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd& sigma = svd.singularValues();
    stats.sigma_max = sigma.size() > 0 ? sigma[0] : 0.0;
    Eigen::VectorXd y = svd.matrixU().transpose() * r;
    for (Eigen::Index i = 0; i < sigma.size(); ++i) {
      if (stats.sigma_max > 0 && sigma[i] >= kSvdTruncation * stats.sigma_max) {
        y[i] /= sigma[i];
        ++stats.rank;
      } else {
        y[i] = 0.0;
      }
    }
    lam = svd.matrixV() * y;
    out = dS0 + h * (F * lam);
    stats.residual = (J * out + h * d).norm();
  }
  if (!out.allFinite() || !lam.allFinite()) return false;
  dS = std::move(out);
  lambda = std::move(lam);
  if (info) *info = stats;
  return true;
}

}  // namespace

Eigen::VectorXd JointConstraint::rate(const BodyPose& a, const BodyPose& b) const {
  Eigen::Matrix<double, 6, 1> ua, ub;
  ua << a.v, a.w;
  ub << b.v, b.w;
  return Wa * ua + Wb * ub;
}

int penalty_joint_rows(const Joint& joint) {
  switch (joint.type) {
    case JointType::Ball: return 3;
    case JointType::Hinge: return joint.servo.enabled && !servo_is_pd(joint) ? 11 : 5;
    case JointType::Slider: return 8;
    case JointType::Fixed: return 9;
    case JointType::Universal:
    case JointType::Hinge2: return 4;
  }
  return 0;
}

bool joint_constraint(const Joint& joint, const BodyPose& a, const BodyPose& b, JointConstraint& out,
                      std::string* why) {
  const int m = penalty_joint_rows(joint);
  if (m == 0) return fail(why, "joint type " + std::string(joint_type_name(joint.type)) + " is not supported");
  out.C.setZero(m);
  out.Wa.setZero(m, 6);
  out.Wb.setZero(m, 6);
  RowWriter w{out};

  switch (joint.type) {
    case JointType::Ball: point_rows(w, a, b, joint.anchor_a, joint.anchor_b); break;
    case JointType::Hinge: {
      // Two points on the axis (section 5): the anchor, and anchor + axis without the component of the
      // largest |world axis| coordinate, which the first point and the rigid bodies already fix.
      const Vec3 sa = joint.axis_a.normalized(), sb = joint.axis_b.normalized();
      int largest = 0;
      (a.R * sa).cwiseAbs().maxCoeff(&largest);
      point_rows(w, a, b, joint.anchor_a, joint.anchor_b);
      point_rows(w, a, b, joint.anchor_a + sa, joint.anchor_b + sb, largest);
      if (joint.servo.enabled && !servo_is_pd(joint)) {
        // Rigid hinge servo: the relative rotation at the target angle (eq. 66 on R_a^T R_b), 6 rows of which
        // 1 is new; the others repeat the hinge's and are removed by the SVD.
        const double goal = std::clamp(joint.servo.target, joint.servo.lower, joint.servo.upper);
        rotation_match_rows(w, a, b, hinge_rotation_at(joint, goal));
      }
      break;
    }
    case JointType::Slider:
      rotation_match_rows(w, a, b, joint.relative_rotation.normalized().toRotationMatrix());
      slider_cross_rows(w, joint, a, b);
      break;
    case JointType::Fixed:
      point_rows(w, a, b, joint.anchor_a, joint.anchor_b);
      rotation_match_rows(w, a, b, joint.relative_rotation.normalized().toRotationMatrix());
      break;
    case JointType::Universal:
    case JointType::Hinge2:
      point_rows(w, a, b, joint.anchor_a, joint.anchor_b);
      axes_angle_row(w, a, b, joint.axis_a.normalized(), joint.axis2_b.normalized(), joint.initial_angle);
      break;
  }
  if (w.row != m) return fail(why, "internal: row count mismatch");
  if (!out.C.allFinite() || !out.Wa.allFinite() || !out.Wb.allFinite())
    return fail(why, "joint " + joint.name + ": non-finite constraint value");
  return true;
}

Eigen::VectorXd baumgarte_bias(const JointConstraint& c, const BodyPose& a, const BodyPose& b, double alpha) {
  const double beta = 0.25 * alpha * alpha;  // critical damping (section 5)
  return alpha * c.rate(a, b) + beta * c.C;
}

bool assemble_joint_system(const std::vector<Joint>& joints, const std::vector<int>& group_joints,
                           const std::vector<Body>& bodies, const std::vector<int>& unknown_of_body,
                           int unknown_bodies, double alpha, JointSystem& out, std::string* why) {
  const auto unknown = [&](int body) {
    return body >= 0 && size_t(body) < unknown_of_body.size() ? unknown_of_body[size_t(body)] : -1;
  };
  // First pass: check the joints and count rows.
  int m = 0;
  for (int ji : group_joints) {
    if (ji < 0 || size_t(ji) >= joints.size()) return fail(why, "joint index " + std::to_string(ji) + " out of range");
    const Joint& j = joints[size_t(ji)];
    if (j.body_a < 0 || j.body_b < 0 || size_t(j.body_a) >= bodies.size() || size_t(j.body_b) >= bodies.size() ||
        j.body_a == j.body_b)
      return fail(why, "joint " + std::to_string(ji) + " has invalid bodies");
    if (unknown(j.body_a) >= unknown_bodies || unknown(j.body_b) >= unknown_bodies)
      return fail(why, "joint " + std::to_string(ji) + ": unknown index beyond unknown_bodies");
    if (unknown(j.body_a) < 0 && unknown(j.body_b) < 0) continue;
    const int rows = penalty_joint_rows(j);
    if (rows == 0) return fail(why, "joint " + std::to_string(ji) + ": type not supported");
    m += rows;
  }
  const int n6 = 6 * std::max(unknown_bodies, 0);
  out.W.setZero(m, n6);
  out.J.setZero(m, n6);
  out.d.setZero(m);
  out.C.setZero(m);
  out.Cdot.setZero(m);
  out.row_joint.assign(size_t(m), -1);

  int row = 0;
  JointConstraint c;
  for (int ji : group_joints) {
    const Joint& j = joints[size_t(ji)];
    const int ka = unknown(j.body_a), kb = unknown(j.body_b);
    if (ka < 0 && kb < 0) continue;
    const Body& A = bodies[size_t(j.body_a)];
    const Body& B = bodies[size_t(j.body_b)];
    const BodyPose pa = body_pose(A), pb = body_pose(B);
    if (!joint_constraint(j, pa, pb, c, why)) return false;
    const int r = c.rows();
    out.C.segment(row, r) = c.C;
    out.Cdot.segment(row, r) = c.rate(pa, pb);
    out.d.segment(row, r) = baumgarte_bias(c, pa, pb, alpha);
    // J_k = [W_k,lin / m_k, W_k,ang I_k^-1] (eq. 60): the acceleration per unit of Pdot, Ldot.
    const auto place = [&](int k, const RowsX6& Wk, const Body& body, const BodyPose& p) {
      if (k < 0) return;
      out.W.block(row, 6 * k, r, 6) += Wk;
      const double inv_mass = body.is_dynamic() ? body.inv_mass : 0.0;
      out.J.block(row, 6 * k, r, 3) += Wk.leftCols<3>() * inv_mass;
      out.J.block(row, 6 * k + 3, r, 3) += Wk.rightCols<3>() * p.inv_inertia;
    };
    place(ka, c.Wa, A, pa);
    place(kb, c.Wb, B, pb);
    std::fill(out.row_joint.begin() + row, out.row_joint.begin() + row + r, ji);
    row += r;
  }
  return true;
}

bool solve_with_constraints(const SolveG& solve_G, const Eigen::MatrixXd& W, const Eigen::MatrixXd& J,
                            const Eigen::VectorXd& hZ, const Eigen::VectorXd& d, double h, Eigen::VectorXd& dS,
                            Eigen::VectorXd& lambda, ConstrainedSolveInfo* info) {
  const auto solve_many = [&](const Eigen::MatrixXd& rhs) {
    Eigen::MatrixXd x(rhs.rows(), rhs.cols());
    for (Eigen::Index k = 0; k < rhs.cols(); ++k) {
      const Eigen::VectorXd col = solve_G(rhs.col(k));
      if (col.size() != rhs.rows()) return Eigen::MatrixXd();
      x.col(k) = col;
    }
    return x;
  };
  return solve_schur(solve_many, W, J, hZ, d, h, dS, lambda, info);
}

bool solve_with_constraints(const Eigen::SparseLU<Eigen::SparseMatrix<double>>& G_lu, const Eigen::MatrixXd& W,
                            const Eigen::MatrixXd& J, const Eigen::VectorXd& hZ, const Eigen::VectorXd& d, double h,
                            Eigen::VectorXd& dS, Eigen::VectorXd& lambda, ConstrainedSolveInfo* info) {
  if (G_lu.info() != Eigen::Success) return false;
  const auto solve_many = [&](const Eigen::MatrixXd& rhs) { return Eigen::MatrixXd(G_lu.solve(rhs)); };
  return solve_schur(solve_many, W, J, hZ, d, h, dS, lambda, info);
}

bool solve_with_constraints(const Eigen::SparseLU<Eigen::SparseMatrix<double>>& G_lu, const JointSystem& rows,
                            const Eigen::VectorXd& hZ, double h, Eigen::VectorXd& dS, Eigen::VectorXd& lambda,
                            ConstrainedSolveInfo* info) {
  return solve_with_constraints(G_lu, rows.W, rows.J, hZ, rows.d, h, dS, lambda, info);
}

double slider_coordinate(const Joint& joint, const BodyPose& a, const BodyPose& b) {
  return cl::slider_coordinate(joint, a.x, a.R, b.x);
}

double hinge_servo_angle(const Joint& joint, const BodyPose& a, const BodyPose& b) {
  return unwrap_servo_angle(joint.servo, hinge_angle(joint, Quat(a.R), Quat(b.R)));
}

namespace {

// A slider's or hinge's coordinate gradient over [v_a, w_a, v_b, w_b]: xdot = g . u (coordinate_force derives it).
Vec12 coordinate_gradient(const Joint& joint, const BodyPose& a, const BodyPose& b) {
  const Vec3 u = a.R * joint.axis_a.normalized();
  Vec12 g;
  if (joint.type == JointType::Slider) g << -u, u.cross(b.x - a.x), u, Vec3::Zero();
  else g << Vec3::Zero(), -u, Vec3::Zero(), u;
  return g;
}

}  // namespace

bool coordinate_force(const Joint& joint, const BodyPose& a, const BodyPose& b, double k, double c, double goal,
                      double lo, double hi, PairForce& out) {
  out.clear();
  out.a = joint.body_a;
  out.b = joint.body_b;
  const bool slider = joint.type == JointType::Slider;
  if (!slider && joint.type != JointType::Hinge) return false;

  // The coordinate x, its gradient g = dx/d[x_a, theta_a, x_b, theta_b] = dx/d[v_a, w_a, v_b, w_b] (xdot =
  // g . u), d xdot/d[x, theta] at fixed velocities plus the change of w with theta at fixed L (hpos), and
  // dg/d[x, theta] (Dg).
  const Vec3 u = a.R * joint.axis_a.normalized();
  const Mat3 U = skew(u);
  Vec12 hpos;
  Mat12 Dg = Mat12::Zero();
  double x = 0;
  const Vec12 g = coordinate_gradient(joint, a, b);
  if (slider) {
    // x = u . (x_b - x_a) - const (slider_coordinate): g = [-u, u x d, u, 0] (du = dtheta_a x u).
    const Vec3 d = b.x - a.x, dv = b.v - a.v;
    const Vec3 uxd = u.cross(d);
    x = slider_coordinate(joint, a, b);
    // d xdot/dx_a = u x w_a, /dx_b = w_a x u, /dtheta_a = u x (v_b - v_a) + u x (d x w_a) + (dw_a/dtheta_a)^T (u x d).
    hpos << u.cross(a.w), u.cross(dv) + u.cross(d.cross(a.w)) + dw_dtheta(a).transpose() * uxd, a.w.cross(u),
        Vec3::Zero();
    // d(-u)/dtheta_a = [u]x; d(u x d)/dx_a = -[u]x, /dx_b = [u]x, /dtheta_a = -(d . u) I + u d^T; du/dtheta_a = -[u]x.
    Dg.block<3, 3>(0, 3) = U;
    Dg.block<3, 3>(3, 0) = -U;
    Dg.block<3, 3>(3, 3) = -d.dot(u) * Mat3::Identity() + u * d.transpose();
    Dg.block<3, 3>(3, 6) = U;
    Dg.block<3, 3>(6, 3) = -U;
  } else {
    // x = the twist of the relative rotation about u: a rotation dtheta_b of b changes it by u . dtheta_b, one
    // of a by -u . dtheta_a (the swing terms are second order while the hinge holds): g = [0, -u, 0, u],
    // xdot = u . (w_b - w_a).
    const Vec3 dw = b.w - a.w;
    x = hinge_servo_angle(joint, a, b);
    hpos << Vec3::Zero(), u.cross(dw) - dw_dtheta(a).transpose() * u, Vec3::Zero(), dw_dtheta(b).transpose() * u;
    Dg.block<3, 3>(3, 3) = U;
    Dg.block<3, 3>(9, 3) = -U;
  }
  Vec12 vel;
  vel << a.v, a.w, b.v, b.w;
  double f = k * (x - goal) + c * g.dot(vel);  // eq. 65
  if (f < lo || f > hi) {
    // Bounded: a constant force (or none) along the moving axis; only the axis' turning with a is left.
    f = std::clamp(f, lo, hi);
    k = c = 0;
  }
  out.wrench = -f * g;
  out.d_pos = -(k * g * g.transpose() + c * g * hpos.transpose()) - f * Dg;
  out.d_vel = -c * g * g.transpose();
  return true;
}

bool servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out) {
  if (!joint.servo.enabled || !joint_type_has_servo(joint.type) || !servo_is_pd(joint)) {
    out.clear();
    return false;
  }
  const JointServo& s = joint.servo;
  return coordinate_force(joint, a, b, s.stiffness, s.damping, std::clamp(s.target, s.lower, s.upper), -s.max_force,
                          s.max_force, out);
}

bool slider_servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out) {
  if (joint.type == JointType::Slider) return servo_force(joint, a, b, out);
  out.clear();
  return false;
}

bool hinge_servo_force(const Joint& joint, const BodyPose& a, const BodyPose& b, PairForce& out) {
  if (joint.type == JointType::Hinge) return servo_force(joint, a, b, out);
  out.clear();
  return false;
}

bool limit_gains(const Joint& joint, const BodyPose& a, const BodyPose& b, const std::vector<Body>& bodies, double h,
                 double stiffness, double damping_ratio, double& k, double& c) {
  k = c = 0.0;
  if (h <= 0.0 || stiffness <= 0.0 || (joint.type != JointType::Slider && joint.type != JointType::Hinge)) return false;
  // The coordinate's gradient over [v_a, w_a, v_b, w_b] and M^-1 of the two bodies.
  const Vec12 g = coordinate_gradient(joint, a, b);
  Mat12 Minv = Mat12::Zero();
  const int ends[2] = {joint.body_a, joint.body_b};
  const BodyPose* poses[2] = {&a, &b};
  for (int e = 0; e < 2; ++e) {
    if (ends[e] < 0 || !bodies[size_t(ends[e])].is_dynamic()) continue;
    Minv.block<3, 3>(6 * e, 6 * e) = bodies[size_t(ends[e])].inv_mass * Mat3::Identity();
    Minv.block<3, 3>(6 * e + 3, 6 * e + 3) = poses[e]->inv_inertia;
  }
  const Vec12 Mg = Minv * g;
  const double free_inv = g.dot(Mg);
  if (!(free_inv > 0.0)) return false;
  // The inertia the limit holds is that of the coordinate under the joint's own rows (eq. 52-54): the bar on a
  // hinge at its end turns about the anchor (m L^2 / 3), not about its centre (m L^2 / 12). Its inverse is
  // g^T (M^-1 - M^-1 W^T (W M^-1 W^T)^+ W M^-1) g, W = [W_a, W_b].
  double inv = free_inv;
  JointConstraint jc;
  if (joint_constraint(joint, a, b, jc) && jc.rows() > 0) {
    Eigen::MatrixXd W(jc.rows(), 12);
    W << jc.Wa, jc.Wb;
    const Eigen::MatrixXd A = W * Minv * W.transpose();
    const Eigen::VectorXd z = W * Mg;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
    const Eigen::VectorXd& s = eig.eigenvalues();
    const double cut = kSvdTruncation * std::max(s.cwiseAbs().maxCoeff(), 0.0);
    const Eigen::VectorXd q = eig.eigenvectors().transpose() * z;
    double held = 0.0;
    for (int i = 0; i < s.size(); ++i)
      if (s[i] > cut) held += q[i] * q[i] / s[i];
    // A coordinate the rows lock (a hinge servo's target rotation, eq. 66) keeps its free inertia.
    if (free_inv - held > 1e-9 * free_inv) inv = free_inv - held;
  }
  // k h^2 / I = stiffness; c = 2 zeta sqrt(k I).
  const double inertia = 1.0 / inv;
  k = stiffness * inertia / (h * h);
  c = 2.0 * damping_ratio * std::sqrt(k * inertia);
  return std::isfinite(k) && std::isfinite(c);
}

bool limit_force(const Joint& joint, const BodyPose& a, const BodyPose& b, double k, double c, PairForce& out) {
  out.clear();
  if (!joint.limit.enabled || (joint.type != JointType::Slider && joint.type != JointType::Hinge)) return false;
  const double x = joint.type == JointType::Slider ? slider_coordinate(joint, a, b) : hinge_servo_angle(joint, a, b);
  // Past a bound, the spring-damper acts, its damper also while the coordinate leaves the limit. At the default
  // gains a coordinate found a step's travel w = h xdot past its bound ends the step 0.06 w past it and leaving at
  // 0.94 w (the step's map has the double eigenvalue 1 / (1 + kappa) of limit_gains but is far from normal): only
  // a damper that also pulls then stops it at the bound. Clamped to push only, the limit threw a bar back off by
  // about 6% of a step's travel.
  // Within the bounds nothing acts, so the limit never pulls a coordinate back past its bound.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double bound = x < joint.limit.lower ? joint.limit.lower : x > joint.limit.upper ? joint.limit.upper : x;
  if (bound == x) return false;
  return coordinate_force(joint, a, b, k, c, bound, -kInf, kInf, out);
}

namespace {

// The motor row of a joint's motor (its Jacobian g over [v_a, w_a, v_b, w_b] and the rate it aims at), the
// bodies' velocities u and the damper's gain c = gain I / h (I = 1 / (g^T M^-1 g)). False without a motor or
// when neither body moves.
struct MotorDrive {
  Vec12 g, u;
  double target = 0.0, c = 0.0, inv_inertia = 0.0;
};
bool motor_drive(const Joint& joint, const std::vector<Body>& bodies, double h, double gain, MotorDrive& out) {
  if (!joint.motor.enabled || h <= 0.0) return false;
  std::vector<JointRow> rows;
  joint_rows(joint, -1, bodies, h, rows);
  const auto row = std::find_if(rows.begin(), rows.end(), [](const JointRow& r) { return r.kind == kRowMotor; });
  if (row == rows.end()) return false;
  out.g << row->ja_lin, row->ja_ang, row->jb_lin, row->jb_ang;
  // g^T M^-1 g over the bodies that move.
  double inv_inertia = 0.0;
  const int ends[2] = {joint.body_a, joint.body_b};
  out.u.setZero();
  for (int e = 0; e < 2; ++e) {
    if (ends[e] < 0) continue;
    const Body& b = bodies[size_t(ends[e])];
    out.u.segment<3>(6 * e) = b.linear_velocity;
    out.u.segment<3>(6 * e + 3) = b.angular_velocity;
    if (!b.is_dynamic()) continue;
    const Vec3 lin = out.g.segment<3>(6 * e), ang = out.g.segment<3>(6 * e + 3);
    inv_inertia += b.inv_mass * lin.squaredNorm() + ang.dot(b.inv_inertia_world * ang);
  }
  if (inv_inertia <= 0.0) return false;
  // The motor aims at the shared motor row's target: its speed, clamped near a limit of the coordinate it drives
  // to a rate the limit allows (joints/joint.h). Aimed at its own speed, a motor of 1e30 N m outweighed the
  // limit's finite spring (limit_force) and drove a hinge 0.3 rad past its bound.
  out.target = row->target;
  out.c = gain / (inv_inertia * h);
  out.inv_inertia = inv_inertia;
  return true;
}

}  // namespace

bool motor_force(const Joint& joint, const std::vector<Body>& bodies, double h, double gain, PairForce& out) {
  out.clear();
  MotorDrive drive;
  if (!motor_drive(joint, bodies, h, gain, drive)) return false;
  out.a = joint.body_a;
  out.b = joint.body_b;
  const Vec12& g = drive.g;
  const double gap = g.dot(drive.u) - drive.target;  // the rate the motor has to remove
  const double cap = joint.motor.max_force;
  double c = drive.c, f = 0.0;
  if (cap * h * drive.inv_inertia <= std::abs(gap)) {
    // Its whole torque for the whole step does not reach the target rate: a constant force, at the bound.
    f = std::copysign(cap, gap);
    c = 0.0;
  } else {
    // Within a step of the target: the implicit damper, its gain lowered so that it does not exceed the bound
    // at the present gap. A backward Euler damper of any gain closes the gap without passing the target; the
    // bound was decided on the start-of-step force c |gap|, gain + 1 times the damper's end-of-step force, so
    // a motor one step short of its speed pushed the whole bound for the whole step and passed it by up to
    // h max_force / I, back and forth (40 instead of 21.2 rad/s at 1/30 s, 2 cm).
    if (gap != 0.0) c = std::min(c, cap / std::abs(gap));
    f = c * gap;
  }
  out.wrench = -f * g;
  out.d_vel = -c * g * g.transpose();
  return true;
}

bool motor_push(const Joint& joint, const std::vector<Body>& bodies, double h, double gain, MotorPush& out) {
  out = MotorPush{};
  MotorDrive drive;
  if (!motor_drive(joint, bodies, h, gain, drive)) return false;
  // Held still, the damper pushes with c |target| toward the target rate, at most max_force.
  out.force = std::copysign(std::min(joint.motor.max_force, drive.c * std::abs(drive.target)), drive.target);
  const int ends[2] = {joint.body_a, joint.body_b};
  const Vec3 anchors[2] = {joint.anchor_a, joint.anchor_b};
  for (int e = 0; e < 2; ++e) {
    out.body[e] = ends[e];
    out.lin[e] = drive.g.segment<3>(6 * e);
    out.ang[e] = drive.g.segment<3>(6 * e + 3);
    if (ends[e] >= 0) {
      const Body& b = bodies[size_t(ends[e])];
      out.anchor[e] = b.position + b.orientation * anchors[e];
    }
  }
  return out.force != 0.0;
}

double MotorPush::load(int which, const Vec3& p, const Vec3& into) const {
  Vec3 v = Vec3::Zero();  // the point's velocity per unit of the coordinate's rate
  for (int e = 0; e < 2; ++e)
    if (which >= 0 && body[e] == which) v += lin[e] + ang[e].cross(p - anchor[e]);
  const double rate = into.dot(v), speed = v.norm();
  // The point's rate into the contact per unit of the coordinate's rate, signed by the way the motor pushes.
  const double lever = std::copysign(1.0, force) * rate;
  if (!(lever > 0.0) || speed < kLeastSpeed) return 0.0;
  return std::abs(force) * lever / (speed * speed);
}

}  // namespace cl::implicit_penalty
