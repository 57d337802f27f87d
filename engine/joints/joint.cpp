// Joint Jacobians, error terms, limits and motors (thesis sect. 4.9-4.11, with its sign errata corrected).
#include "joints/joint.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace cl {

namespace {

constexpr std::array<std::string_view, kJointTypeCount> kNames = {"ball", "hinge", "slider", "hinge2", "universal",
                                                                    "fixed"};

double wrap_angle(double a) {
  // to (-pi, pi]
  a = std::remainder(a, 2.0 * std::numbers::pi);
  if (a <= -std::numbers::pi) a += 2.0 * std::numbers::pi;
  return a;
}

// Angle between two unit vectors in [0, pi], accurate near 0 and pi.
double angle_between(const Vec3& u, const Vec3& v) { return std::atan2(u.cross(v).norm(), u.dot(v)); }

Vec3 normalized_or(const Vec3& v, const Vec3& fallback) {
  const double n = v.norm();
  return n > 1e-300 && std::isfinite(n) ? Vec3(v / n) : fallback;
}

// Everything a joint's rows and measures need, evaluated once at the current poses.
struct Eval {
  const Body* A;
  const Body* B;
  Mat3 Ra, Rb;
  Vec3 ra, rb;  // world lever arms of the anchors
  Vec3 pa, pb;  // world anchors
  Vec3 sa;      // first axis carried by a (world, unit)
  Vec3 sb;      // first axis carried by b
  Vec3 s2b;     // second axis carried by b
  Vec3 c;       // r_b - r_a
  // Slider: where its forces act, p = r_a + alpha c. The midpoint (alpha = 1/2) for equal masses,
  // generally alpha = m_a / (m_a + m_b): the centre of the body that moves more, so that with a fixed or
  // much heavier body a the force goes through b's centre and makes no torque the orientation rows would
  // have to cancel (a 1/2 |c| lever there makes PGS converge slowly and a slider hitting its limit spin).
  double alpha = 0.5;
};

Eval evaluate(const Joint& j, const std::vector<Body>& bodies) {
  Eval e;
  e.A = &bodies[size_t(j.body_a)];
  e.B = &bodies[size_t(j.body_b)];
  e.Ra = e.A->rotation();
  e.Rb = e.B->rotation();
  e.ra = e.Ra * j.anchor_a;
  e.rb = e.Rb * j.anchor_b;
  e.pa = e.A->position + e.ra;
  e.pb = e.B->position + e.rb;
  e.sa = (e.Ra * j.axis_a).normalized();
  e.sb = (e.Rb * j.axis_b).normalized();
  e.s2b = (e.Rb * j.axis2_b).normalized();
  e.c = e.B->position - e.A->position;
  const double wa = e.A->is_dynamic() ? e.A->inv_mass : 0.0, wb = e.B->is_dynamic() ? e.B->inv_mass : 0.0;
  if (wa + wb > 0) e.alpha = wb / (wa + wb);
  return e;
}

// q_a^* q_b q_0^*, with a non-negative scalar part: the rotation error (slider, fixed; thesis sect. 4.9) and the
// hinge angle's rotation, in a's frame.
Quat rotation_error(const Joint& j, const Eval& e) {
  Quat q = e.A->orientation.conjugate() * e.B->orientation * j.relative_rotation.conjugate();
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  return q;
}

// Slider: c - r_off, with r_off = R_a (anchor_a - R(q_0) anchor_b) the initial offset of the centres carried
// by a (thesis sect. 4.9 slider rows 4-5). Equal to p_b - p_a while the orientation is kept.
Vec3 slider_offset(const Joint& j, const Eval& e) {
  return e.c - e.Ra * (j.anchor_a - j.relative_rotation.toRotationMatrix() * j.anchor_b);
}

// Hinge-2 / universal: unit normal of the plane of the two axes, u = s_a x s2_b / |s_a x s2_b|.
Vec3 axes_normal(const Eval& e) {
  Vec3 t1, t2;
  tangent_basis(e.sa, t1, t2);
  return normalized_or(e.sa.cross(e.s2b), t1);
}

// Hinge-2 / universal: the directions d1, d2 with d1.(w_b - w_a) = rate about the first axis and
// d2.(w_b - w_a) = rate about the second, from w_rel = alpha s_a + beta s2_b + gamma u (dual basis).
void dual_axes(const Eval& e, Vec3& d1, Vec3& d2) {
  const Vec3 u = axes_normal(e);
  const Vec3 n1 = e.s2b.cross(u), n2 = u.cross(e.sa);
  const double k1 = e.sa.dot(n1), k2 = e.s2b.dot(n2);
  d1 = std::abs(k1) > 1e-12 ? Vec3(n1 / k1) : e.sa;
  d2 = std::abs(k2) > 1e-12 ? Vec3(n2 / k2) : e.s2b;
}

struct RowSink {
  const Joint& j;
  int index;
  std::vector<JointRow>& out;
  size_t first = out.size();  // where this joint's rows begin
  int next_slot = 0;
  void add(const Vec3& ja_lin, const Vec3& ja_ang, const Vec3& jb_lin, const Vec3& jb_ang, double target, double lo,
           double hi, double cfm, int kind, int slot = -1) {
    JointRow r;
    r.slot = slot >= 0 ? slot : next_slot++;
    r.follows = out.size() > first;  // a joint's rows form one block of the solve
    r.a = j.body_a;
    r.b = j.body_b;
    r.ja_lin = ja_lin;
    r.ja_ang = ja_ang;
    r.jb_lin = jb_lin;
    r.jb_ang = jb_ang;
    r.target = target;
    r.lo = lo;
    r.hi = hi;
    r.cfm = cfm;
    r.joint = index;
    r.kind = kind;
    out.push_back(r);
  }
};

constexpr double kInf = 1e300;
const Vec3 kZero = Vec3::Zero();

// Ball rows (thesis sect. 4.9, eqs. 4.117-4.118): (v_a + w_a x r_a) - (v_b + w_b x r_b) = k (p_b - p_a).
void ball_rows(RowSink& s, const Eval& e, double k) {
  const Vec3 err = e.pb - e.pa;
  for (int i = 0; i < 3; ++i) {
    const Vec3 n = Vec3::Unit(i);
    s.add(n, e.ra.cross(n), -n, -e.rb.cross(n), k * err[i], -kInf, kInf, s.j.cfm, kRowEquality);
  }
}

// Keep the relative orientation (slider, fixed): w_a - w_b = 2 k R_a vec(q_err).
void orientation_rows(RowSink& s, const Joint& j, const Eval& e, double k) {
  const Quat q = rotation_error(j, e);
  const Vec3 err = 2.0 * (e.Ra * q.vec());
  for (int i = 0; i < 3; ++i) {
    const Vec3 n = Vec3::Unit(i);
    s.add(kZero, n, kZero, -n, k * err[i], -kInf, kInf, s.j.cfm, kRowEquality);
  }
}

// The rows measuring the coordinate's rate dx/dt (the "lower limit" orientation; negate for the upper).
struct RateRow {
  Vec3 ja_lin = Vec3::Zero(), ja_ang = Vec3::Zero(), jb_lin = Vec3::Zero(), jb_ang = Vec3::Zero();
  double value(const Body& A, const Body& B) const {
    return ja_lin.dot(A.linear_velocity) + ja_ang.dot(A.angular_velocity) + jb_lin.dot(B.linear_velocity) +
           jb_ang.dot(B.angular_velocity);
  }
};

RateRow coordinate_rate_row(const Joint& j, const Eval& e) {
  RateRow r;
  switch (j.type) {
    case JointType::Hinge:
      r.ja_ang = -e.sa;
      r.jb_ang = e.sa;
      break;
    case JointType::Slider: {
      // Force +-lambda s applied at one point p = r_a + alpha c for both bodies, so it makes no torque couple
      // (thesis sect. 4.10-4.11, errata eq. 4.183): J_a = [-s, -alpha (c x s)], J_b = [s, -(1 - alpha) (c x s)].
      const Vec3 m = e.c.cross(e.sa);
      r.ja_lin = -e.sa;
      r.jb_lin = e.sa;
      r.ja_ang = -e.alpha * m;
      r.jb_ang = -(1.0 - e.alpha) * m;
      break;
    }
    case JointType::Hinge2:
    case JointType::Universal: {
      Vec3 d1, d2;
      dual_axes(e, d1, d2);
      r.ja_ang = -d1;
      r.jb_ang = d1;
      break;
    }
    case JointType::Ball:
    case JointType::Fixed: break;
  }
  return r;
}

RateRow motor_rate_row(const Joint& j, const Eval& e) {
  if (j.type == JointType::Hinge2 || j.type == JointType::Universal) {
    Vec3 d1, d2;
    dual_axes(e, d1, d2);
    RateRow r;
    r.ja_ang = -d2;
    r.jb_ang = d2;
    return r;
  }
  return coordinate_rate_row(j, e);
}

double coordinate(const Joint& j, const Eval& e) {
  switch (j.type) {
    case JointType::Hinge: return hinge_angle(j, e.A->orientation, e.B->orientation);
    case JointType::Slider: return slider_coordinate(j, e.A->position, e.Ra, e.B->position);
    case JointType::Hinge2:
    case JointType::Universal: {
      // Angle of the second axis about the first, from its reference direction carried by a.
      const Vec3 ref = e.Ra * j.axis2_a;
      const Vec3 rp = ref - e.sa * e.sa.dot(ref);
      const Vec3 cp = e.s2b - e.sa * e.sa.dot(e.s2b);
      return std::atan2(e.sa.dot(rp.cross(cp)), rp.dot(cp));
    }
    case JointType::Ball:
    case JointType::Fixed: break;
  }
  return 0.0;
}

// Replaces the equality rows [first, first + n) by combinations of them that are orthonormal in the metric
// of the inverse mass matrix: with K = J M^-1 J^T = L L^T (Cholesky), J' = L^-1 J and target' = L^-1 target.
// J' u = target' holds exactly when J u = target does, and J' M^-1 J'^T = I, so a Gauss-Seidel sweep solves
// the joint's equality rows on their own in one pass instead of fighting their coupling (a thin bar's
// anchor row and its axis row are ~90% correlated: 10 sweeps leave a double pendulum coming apart).
// Skipped (rows left as they are) with CFM, whose diagonal would not survive the change of basis, and
// when K is singular or badly conditioned.
void decouple(std::vector<JointRow>& rows, size_t first, const Body& A, const Body& B) {
  const int n = int(rows.size() - first);
  if (n <= 1) return;
  const double ma = A.is_dynamic() ? A.inv_mass : 0.0, mb = B.is_dynamic() ? B.inv_mass : 0.0;
  const Mat3 ia = A.is_dynamic() ? A.inv_inertia_world : Mat3::Zero();
  const Mat3 ib = B.is_dynamic() ? B.inv_inertia_world : Mat3::Zero();
  Eigen::Matrix<double, 6, 6> K;
  std::array<Vec3, 6> ba_ang, bb_ang;
  for (int i = 0; i < n; ++i) {
    const JointRow& r = rows[first + size_t(i)];
    ba_ang[size_t(i)] = ia * r.ja_ang;
    bb_ang[size_t(i)] = ib * r.jb_ang;
  }
  double largest = 0;
  for (int i = 0; i < n; ++i) {
    const JointRow& r = rows[first + size_t(i)];
    for (int j = 0; j <= i; ++j) {
      const JointRow& q = rows[first + size_t(j)];
      K(i, j) = K(j, i) = ma * r.ja_lin.dot(q.ja_lin) + r.ja_ang.dot(ba_ang[size_t(j)]) + mb * r.jb_lin.dot(q.jb_lin) +
                          r.jb_ang.dot(bb_ang[size_t(j)]);
    }
    largest = std::max(largest, K(i, i));
  }
  if (!(largest > 0) || !std::isfinite(largest)) return;
  // Cholesky by hand (n <= 6), giving up on a pivot below 1e-10 of the largest diagonal entry.
  Eigen::Matrix<double, 6, 6> L = Eigen::Matrix<double, 6, 6>::Zero();
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double sum = K(i, j);
      for (int k = 0; k < j; ++k) sum -= L(i, k) * L(j, k);
      if (i == j) {
        if (!(sum > 1e-10 * largest)) return;
        L(i, i) = std::sqrt(sum);
      } else {
        L(i, j) = sum / L(j, j);
      }
    }
  }
  // Forward substitution, row by row: J'_i = (J_i - sum_k<i L_ik J'_k) / L_ii.
  for (int i = 0; i < n; ++i) {
    JointRow& r = rows[first + size_t(i)];
    for (int k = 0; k < i; ++k) {
      const JointRow& q = rows[first + size_t(k)];
      const double l = L(i, k);
      r.ja_lin -= l * q.ja_lin;
      r.ja_ang -= l * q.ja_ang;
      r.jb_lin -= l * q.jb_lin;
      r.jb_ang -= l * q.jb_ang;
      r.target -= l * q.target;
    }
    const double inv = 1.0 / L(i, i);
    r.ja_lin *= inv;
    r.ja_ang *= inv;
    r.jb_lin *= inv;
    r.jb_ang *= inv;
    r.target *= inv;
  }
}

// The servo's target coordinate, clamped to its range.
double servo_goal(const JointServo& servo) { return std::clamp(servo.target, servo.lower, servo.upper); }

bool servo_target_and_cfm(const Joint& j, const Eval& e, double h, double& target, double& cfm) {
  const double goal = servo_goal(j.servo);
  if (!servo_is_pd(j)) {
    // Rigid hinge: the constraint of eq. 66 as an ERP row on the angle.
    target = j.erp / h * wrap_angle(goal - coordinate(j, e));
    cfm = j.cfm;
    return true;
  }
  // Slider, or hinge with gains: backward-Euler spring-damper (see joint.h), lambda = h F. The hinge's angle
  // counts turns, so a target several turns away is approached turn after turn.
  const double x = j.type == JointType::Hinge ? unwrap_servo_angle(j.servo, coordinate(j, e)) : coordinate(j, e);
  const double k = j.servo.stiffness, c = j.servo.damping;
  const double soft = c + h * k;
  if (!(soft > 0)) return false;
  target = -k * (x - goal) / soft;
  cfm = 1.0 / (h * soft);
  return true;
}

}  // namespace

std::string_view joint_type_name(JointType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kJointTypeCount ? kNames[size_t(i)] : std::string_view("?");
}

std::optional<JointType> joint_type_from_name(std::string_view name) {
  for (int i = 0; i < kJointTypeCount; ++i)
    if (kNames[size_t(i)] == name) return static_cast<JointType>(i);
  return std::nullopt;
}

bool joint_type_has_axis(JointType t) { return t != JointType::Ball && t != JointType::Fixed; }
bool joint_type_has_axis2(JointType t) { return t == JointType::Hinge2 || t == JointType::Universal; }
bool joint_type_has_coordinate(JointType t) { return joint_type_has_axis(t); }

bool joint_type_has_servo(JointType t) { return t == JointType::Hinge || t == JointType::Slider; }

std::vector<BodyPair> joined_pairs(const std::vector<Joint>& joints) {
  std::vector<BodyPair> pairs;
  pairs.reserve(joints.size());
  for (const Joint& j : joints)
    if (j.body_a >= 0 && j.body_b >= 0) pairs.push_back({std::min(j.body_a, j.body_b), std::max(j.body_a, j.body_b)});
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

void set_servo_target(JointServo& servo, double target) { servo.target = std::clamp(target, servo.lower, servo.upper); }

double slider_coordinate(const Joint& joint, const Vec3& xa, const Mat3& Ra, const Vec3& xb) {
  const Vec3 s = joint.axis_a.normalized();
  const Vec3 offset = joint.anchor_a - joint.relative_rotation.normalized().toRotationMatrix() * joint.anchor_b;
  return (Ra * s).dot(xb - xa) - s.dot(offset);
}

double hinge_angle(const Joint& joint, const Quat& qa, const Quat& qb) {
  // theta = 2 atan2(s^a . vec(q_d), w(q_d)), q_d = q_a^* q_b q_0^* (errata eq. 4.189).
  const Quat q = qa.conjugate() * qb * joint.relative_rotation.conjugate();
  return wrap_angle(2.0 * std::atan2(joint.axis_a.normalized().dot(q.vec()), q.w()));
}

double unwrap_servo_angle(const JointServo& servo, double wrapped) {
  if (!std::isfinite(servo.coordinate)) return wrapped;
  return servo.coordinate + wrap_angle(wrapped - servo.coordinate);
}

void update_servo_coordinates(std::vector<Joint>& joints, const std::vector<Body>& bodies) {
  for (Joint& j : joints) {
    if (j.type != JointType::Hinge || !j.servo.enabled) continue;
    j.servo.coordinate = unwrap_servo_angle(j.servo, joint_coordinate(j, bodies));
  }
}

int joint_type_equality_rows(JointType t) {
  switch (t) {
    case JointType::Ball: return 3;
    case JointType::Hinge: return 5;
    case JointType::Slider: return 5;
    case JointType::Hinge2: return 4;
    case JointType::Universal: return 4;
    case JointType::Fixed: return 6;
  }
  return 0;
}

Joint make_joint(JointType type, const std::vector<Body>& bodies, int a, int b, const Vec3& anchor_world,
                 const Vec3& axis_world, const Vec3& axis2_world, double coordinate_value) {
  Joint j;
  j.type = type;
  j.body_a = a;
  j.body_b = b;
  const Body& A = bodies[size_t(a)];
  const Body& B = bodies[size_t(b)];
  const Mat3 Ra = A.rotation(), Rb = B.rotation();
  const Vec3 s1 = normalized_or(axis_world, Vec3(1, 0, 0));
  const Vec3 s2 = normalized_or(axis2_world, Vec3(0, 0, 1));
  const double x = joint_type_has_coordinate(type) ? coordinate_value : 0.0;

  j.anchor_a = Ra.transpose() * (anchor_world - A.position);
  j.anchor_b = Rb.transpose() * (anchor_world - B.position);
  j.axis_a = Ra.transpose() * s1;
  j.axis_b = Rb.transpose() * s1;
  j.axis2_a = Ra.transpose() * s2;
  j.axis2_b = Rb.transpose() * s2;
  j.relative_rotation = A.orientation.conjugate() * B.orientation;
  j.relative_rotation.normalize();
  switch (type) {
    case JointType::Hinge:
      // The angle of the current poses is x: q_0 = rot(s^a, -x) q_a^* q_b.
      j.relative_rotation = Quat(Eigen::AngleAxisd(-x, j.axis_a.normalized())) * j.relative_rotation;
      break;
    case JointType::Slider:
      // The displacement of the current poses is x: a's anchor sits x back along the axis.
      j.anchor_a = Ra.transpose() * (anchor_world - x * s1 - A.position);
      break;
    case JointType::Hinge2:
    case JointType::Universal:
      j.initial_angle = angle_between(s1, s2);
      // Reference direction of the second axis at coordinate 0: s2 turned back by x about s1.
      j.axis2_a = Ra.transpose() * (Eigen::AngleAxisd(-x, s1) * s2);
      break;
    case JointType::Ball:
    case JointType::Fixed: break;
  }

  j.made_from.anchor = anchor_world;
  j.made_from.axis = axis_world;
  j.made_from.axis2 = axis2_world;
  j.made_from.coordinate = x;
  j.made_from.position_a = A.position;
  j.made_from.position_b = B.position;
  j.made_from.orientation_a = A.orientation;
  j.made_from.orientation_b = B.orientation;
  return j;
}

void joint_rows(const Joint& joint, int joint_index, const std::vector<Body>& bodies, double h,
                std::vector<JointRow>& out, JointRowForm form, LimitRows limits) {
  if (joint.body_a < 0 || joint.body_b < 0 || size_t(joint.body_a) >= bodies.size() ||
      size_t(joint.body_b) >= bodies.size() || joint.body_a == joint.body_b)
    return;
  const Eval e = evaluate(joint, bodies);
  if (!e.A->is_dynamic() && !e.B->is_dynamic()) return;
  const double k = joint.erp / h;  // k_cor = k_erp k_fps (thesis sect. 4.8)
  RowSink s{joint, joint_index, out};
  const size_t first = out.size();

  switch (joint.type) {
    case JointType::Ball: ball_rows(s, e, k); break;
    case JointType::Hinge: {
      ball_rows(s, e, k);
      // t.(w_a - w_b) = k t.(s_a x s_b) for t perpendicular to the axis (thesis sect. 4.9, eqs. 4.122, 4.129).
      Vec3 t[2];
      tangent_basis(e.sa, t[0], t[1]);
      const Vec3 err = e.sa.cross(e.sb);
      for (const Vec3& n : t) s.add(kZero, n, kZero, -n, k * n.dot(err), -kInf, kInf, joint.cfm, kRowEquality);
      break;
    }
    case JointType::Slider: {
      orientation_rows(s, joint, e, k);
      // t.(v_a - v_b) + (c x t).(alpha w_a + (1 - alpha) w_b) = k t.(c - r_off) (thesis sect. 4.9, eqs.
      // 4.131-4.142, where alpha = 1/2): the relative velocity across the axis at the point p = r_a + alpha c.
      Vec3 t[2];
      tangent_basis(e.sa, t[0], t[1]);
      const Vec3 err = slider_offset(joint, e);
      for (const Vec3& n : t) {
        const Vec3 m = e.c.cross(n);
        s.add(n, e.alpha * m, -n, (1.0 - e.alpha) * m, k * n.dot(err), -kInf, kInf, joint.cfm, kRowEquality);
      }
      break;
    }
    case JointType::Hinge2:
    case JointType::Universal: {
      ball_rows(s, e, k);
      // u.(w_a - w_b) = k (phi - phi_0), u = s_a x s2_b normalised (errata eqs. 4.149, 4.156).
      const Vec3 u = axes_normal(e);
      const double phi = angle_between(e.sa, e.s2b);
      s.add(kZero, u, kZero, -u, k * (phi - joint.initial_angle), -kInf, kInf, joint.cfm, kRowEquality);
      break;
    }
    case JointType::Fixed:
      ball_rows(s, e, k);
      orientation_rows(s, joint, e, k);
      break;
  }

  if (form == JointRowForm::Decoupled && joint.cfm == 0.0) decouple(out, first, *e.A, *e.B);

  if (!joint_type_has_coordinate(joint.type)) return;
  const int n = joint_type_equality_rows(joint.type);

  // The rates the limit rows allow (dx/dt >= least, dx/dt <= most), for the motor below.
  double least = -kInf, most = kInf;
  if (joint.limit.enabled) {
    const RateRow r = coordinate_rate_row(joint, e);
    const double x = coordinate(joint, e);
    const double rate = r.value(*e.A, *e.B);
    const double reach = limits == LimitRows::Always ? kInf : kLimitSlack + 2.0 * h * std::abs(rate);
    // Lower: dx/dt >= k (lower - x) when past the bound, >= -(x - lower) / h before it (errata 4.9).
    const double below = x - joint.limit.lower;
    if (below < reach) {
      const double target = below < 0 ? -k * below : -below / h;
      s.add(r.ja_lin, r.ja_ang, r.jb_lin, r.jb_ang, target, 0.0, kInf, joint.cfm, kRowLimit, n);
      least = target;
    }
    // Upper: -dx/dt >= k (x - upper) when past, >= -(upper - x) / h before (errata eqs. 4.188, 4.198).
    const double above = joint.limit.upper - x;
    if (above < reach) {
      const double target = above < 0 ? -k * above : -above / h;
      s.add(-r.ja_lin, -r.ja_ang, -r.jb_lin, -r.jb_ang, target, 0.0, kInf, joint.cfm, kRowLimit, n + 1);
      most = -target;
    }
  }

  if (joint.motor.enabled && joint.motor.max_force > 0) {
    // dx/dt = speed with |lambda| <= max_force h (thesis sect. 4.10-4.11, eqs. 4.205-4.210; j - i for every type).
    const RateRow r = motor_rate_row(joint, e);
    const double cap = joint.motor.max_force * h;
    // Where the motor drives the limited coordinate itself (hinge, slider), it aims at a rate the limit rows
    // allow: at a bound the motor holds against it instead of fighting it. A motor row and a limit row that want
    // opposite rates have no solution with a finite motor force; an iterative solver then leaves the rate of the
    // row it visits last, and a motor of great max_force drove the joint through its limit.
    const bool on_coordinate = joint.type != JointType::Hinge2 && joint.type != JointType::Universal;
    const double speed = on_coordinate ? std::clamp(joint.motor.speed, std::min(least, most), most) : joint.motor.speed;
    s.add(r.ja_lin, r.ja_ang, r.jb_lin, r.jb_ang, speed, -cap, cap, 0.0, kRowMotor, n + 2);
  }

  if (joint.servo.enabled && joint_type_has_servo(joint.type)) {
    // Position servo (Xu et al. 2014, eq. 65-66): dx/dt = target - cfm lambda, |lambda| <= h max_force for
    // the PD servos (see joint.h).
    double target = 0.0, cfm = 0.0;
    if (servo_target_and_cfm(joint, e, h, target, cfm)) {
      const RateRow r = coordinate_rate_row(joint, e);
      const double cap = servo_row_bound(joint, h);
      s.add(r.ja_lin, r.ja_ang, r.jb_lin, r.jb_ang, target, -cap, cap, cfm, kRowServo, n + 3);
      s.out.back().spring = servo_is_pd(joint);
    }
  }
}

bool servo_row_target_and_cfm(const Joint& joint, const std::vector<Body>& bodies, double h, double& target,
                              double& cfm) {
  if (!joint.servo.enabled || !joint_type_has_servo(joint.type)) return false;
  return servo_target_and_cfm(joint, evaluate(joint, bodies), h, target, cfm);
}

double servo_row_bound(const Joint& joint, double h) {
  if (!servo_is_pd(joint) || !std::isfinite(joint.servo.max_force)) return kInf;
  return joint.servo.max_force * h;
}

bool joint_drive_restless(const Joint& joint, const std::vector<Body>& bodies) {
  if (joint.motor.enabled && joint.motor.speed != 0.0 && joint.motor.max_force > 0.0) return true;
  if (!joint.servo.enabled || !joint_type_has_servo(joint.type)) return false;
  const Eval e = evaluate(joint, bodies);
  if (!servo_is_pd(joint)) return std::abs(wrap_angle(servo_goal(joint.servo) - coordinate(joint, e))) > kServoRestTravel;
  if (!(joint.servo.stiffness > 0)) return false;  // a pure damper drives nothing
  const double rate = coordinate_rate_row(joint, e).value(*e.A, *e.B);
  return std::abs(rate) * joint.servo.damping / joint.servo.stiffness > kServoRestTravel;
}

std::vector<char> restless_bodies(const std::vector<Joint>& joints, const std::vector<Body>& bodies) {
  std::vector<char> out(bodies.size(), 0);
  for (const Joint& j : joints)
    if (joint_drive_restless(j, bodies))
      for (int i : {j.body_a, j.body_b})
        if (i >= 0 && size_t(i) < out.size()) out[size_t(i)] = 1;
  return out;
}

double joint_coordinate(const Joint& joint, const std::vector<Body>& bodies) {
  return coordinate(joint, evaluate(joint, bodies));
}

double joint_rate(const Joint& joint, const std::vector<Body>& bodies) {
  if (!joint_type_has_coordinate(joint.type)) return 0.0;
  const Eval e = evaluate(joint, bodies);
  return motor_rate_row(joint, e).value(*e.A, *e.B);
}

JointErrorParts joint_error_parts(const Joint& joint, const std::vector<Body>& bodies) {
  const Eval e = evaluate(joint, bodies);
  JointErrorParts p;
  switch (joint.type) {
    case JointType::Ball: p.linear = (e.pb - e.pa).norm(); break;
    case JointType::Hinge:
      p.linear = (e.pb - e.pa).norm();
      p.angular = angle_between(e.sa, e.sb);
      break;
    case JointType::Slider: {
      const Vec3 off = slider_offset(joint, e);
      p.linear = (off - e.sa * e.sa.dot(off)).norm();
      p.angular = 2.0 * std::asin(std::min(1.0, rotation_error(joint, e).vec().norm()));
      break;
    }
    case JointType::Hinge2:
    case JointType::Universal:
      p.linear = (e.pb - e.pa).norm();
      p.angular = std::abs(angle_between(e.sa, e.s2b) - joint.initial_angle);
      break;
    case JointType::Fixed:
      p.linear = (e.pb - e.pa).norm();
      p.angular = 2.0 * std::asin(std::min(1.0, rotation_error(joint, e).vec().norm()));
      break;
  }
  return p;
}

double joint_error(const Joint& joint, const std::vector<Body>& bodies) {
  const JointErrorParts p = joint_error_parts(joint, bodies);
  return std::hypot(p.linear, p.angular);
}

void joint_anchors_world(const Joint& joint, const std::vector<Body>& bodies, Vec3& on_a, Vec3& on_b) {
  const Eval e = evaluate(joint, bodies);
  on_a = e.pa;
  on_b = e.pb;
}

JointDescription describe_joint(const Joint& joint, const std::vector<Body>& bodies) {
  const Body& A = bodies[size_t(joint.body_a)];
  const Body& B = bodies[size_t(joint.body_b)];
  const JointDescription& m = joint.made_from;
  if (A.position == m.position_a && B.position == m.position_b && A.orientation.coeffs() == m.orientation_a.coeffs() &&
      B.orientation.coeffs() == m.orientation_b.coeffs())
    return m;
  const Eval e = evaluate(joint, bodies);
  JointDescription d;
  d.anchor = 0.5 * (e.pa + e.pb);
  if (joint.type == JointType::Slider) d.anchor = e.pb;  // a's anchor sits `coordinate` back along the axis
  d.axis = e.sa;
  d.axis2 = joint_type_has_axis2(joint.type) ? e.s2b : m.axis2;
  d.coordinate = coordinate(joint, e);
  // A hinge servo counts whole turns: save the angle it has reached, not the angle modulo 2 pi.
  if (joint.type == JointType::Hinge && joint.servo.enabled) d.coordinate = unwrap_servo_angle(joint.servo, d.coordinate);
  d.position_a = A.position;
  d.position_b = B.position;
  d.orientation_a = A.orientation;
  d.orientation_b = B.orientation;
  return d;
}

}  // namespace cl

namespace cl {

double JointWarmStart::guess(const JointRow& row) const {
  const bool kept = row.joint >= 0 && size_t(row.joint) < lambda_.size();
  const double last = kept ? lambda_[size_t(row.joint)][size_t(row.slot)] : kNone;
  // Without a last impulse, a PD servo's row starts from its force with the joint held still over the step (J u = 0
  // in J u + cfm lambda = target: lambda = h k (x* - x)), within its bound; a row without a spring from 0.
  const double held = row.spring ? std::clamp(row.target / row.cfm, row.lo, row.hi) : 0.0;
  return std::isnan(last) ? held : kWarmStart * last;
}

void JointWarmStart::forget(int joint) {
  if (joint >= 0 && size_t(joint) < lambda_.size()) lambda_[size_t(joint)].fill(kNone);
}

void JointWarmStart::keep(const JointRow& row, double lambda) {
  if (row.joint < 0) return;
  if (size_t(row.joint) >= lambda_.size()) {
    std::array<double, kMaxJointRows> none;
    none.fill(kNone);
    lambda_.resize(size_t(row.joint) + 1, none);
  }
  lambda_[size_t(row.joint)][size_t(row.slot)] = lambda;
}

}  // namespace cl
