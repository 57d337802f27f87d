#include "solvers/implicit_penalty/round_pair.h"

#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"

namespace cl::implicit_penalty {

bool round_shape(const Shape& s) { return s.type == ShapeType::Sphere || s.type == ShapeType::Capsule; }

bool pushed_along_one_line(const Shape& a, const Shape& b) {
  const bool box_ball = (a.type == ShapeType::Sphere && b.type == ShapeType::Box) ||
                        (a.type == ShapeType::Box && b.type == ShapeType::Sphere);
  return (round_shape(a) && round_shape(b)) || box_ball;
}

namespace {

// A round body's centre segment (world): a sphere's is its centre.
void axis_segment(const Shape& shape, const BodyPose& body, Vec3& p0, Vec3& p1) {
  const Vec3 half = shape.type == ShapeType::Capsule ? Vec3(body.R * Vec3(0, shape.half_height, 0)) : Vec3::Zero();
  p0 = body.x - half;
  p1 = body.x + half;
}

}  // namespace

RoundAxes round_axes(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b) {
  Vec3 a0, a1, b0, b1;
  axis_segment(shape_a, a, a0, a1);
  axis_segment(shape_b, b, b0, b1);
  const Vec3 d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
  const double aa = d1.squaredNorm(), ee = d2.squaredNorm(), f = d2.dot(r);
  double s = 0.0, t = 0.0;
  if (aa <= 1e-24 && ee <= 1e-24) {
    s = t = 0.0;
  } else if (aa <= 1e-24) {
    t = std::clamp(f / ee, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (ee <= 1e-24) {
      s = std::clamp(-c / aa, 0.0, 1.0);
    } else {
      const double bb = d1.dot(d2), denom = aa * ee - bb * bb;
      if (denom <= 1e-12 * aa * ee) {
        // Parallel: the middle of the overlap of b's segment projected on a's (a's nearer end if none).
        const double u0 = std::clamp(-c / aa, 0.0, 1.0), u1 = std::clamp((bb - c) / aa, 0.0, 1.0);
        s = 0.5 * (u0 + u1);
        t = std::clamp((bb * s + f) / ee, 0.0, 1.0);
      } else {
        s = std::clamp((bb * f - c * ee) / denom, 0.0, 1.0);
        t = (bb * s + f) / ee;
        if (t < 0.0) {
          t = 0.0;
          s = std::clamp(-c / aa, 0.0, 1.0);
        } else if (t > 1.0) {
          t = 1.0;
          s = std::clamp((bb - c) / aa, 0.0, 1.0);
        }
      }
    }
  }
  return RoundAxes{a0 + s * d1, b0 + t * d2};
}

RoundAxes box_ball_axes(const Shape& box, const BodyPose& box_pose, const Vec3& centre, Vec3& outward) {
  const Vec3& h = box.half_extents;
  const Vec3 local = box_pose.R.transpose() * (centre - box_pose.x);
  const Vec3 clamped = local.cwiseMax(-h).cwiseMin(h);
  // The box's distance gradient at the centre: inside, the normal of the nearest face.
  Vec3 gradient;
  box_signed_distance(h, local, &gradient);
  outward = box_pose.R * gradient;
  return RoundAxes{box_pose.x + box_pose.R * clamped, centre};
}

Vec3 add_box_ball_force(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b, double force,
                        double stiffness, double damping, PairForce& sum) {
  const bool box_first = shape_a.type == ShapeType::Box;
  Vec3 outward;
  const RoundAxes found = box_first ? box_ball_axes(shape_a, a, b.x, outward) : box_ball_axes(shape_b, b, a.x, outward);
  const RoundAxes axes = box_first ? found : RoundAxes{found.b, found.a};
  return add_round_pair_force(a, b, axes, force, stiffness, damping, GradientMode::Approximate,
                              box_first ? outward : Vec3(-outward), sum);
}

Vec3 add_round_pair_force(const BodyPose& a, const BodyPose& b, const RoundAxes& axes, double force,
                          double stiffness, double damping, GradientMode mode, const Vec3& fallback, PairForce& sum) {
  const Vec3 D = axes.b - axes.a;
  const double len = D.norm();
  const bool direction = len > 1e-12;
  const Vec3 n = direction ? Vec3(D / len) : fallback;
  if (!(n.squaredNorm() > 0.0)) return Vec3::Zero();
  const Vec3 la = axes.a - a.x, lb = axes.b - b.x;
  Vec12 J;
  J << -n, -la.cross(n), n, lb.cross(n);
  Vec12 qdot;
  qdot << a.v, a.w, b.v, b.w;
  sum.wrench += (force - damping * J.dot(qdot)) * J;
  sum.d_pos.noalias() -= stiffness * J * J.transpose();
  sum.d_vel.noalias() -= damping * J * J.transpose();
  if (mode != GradientMode::Exact || !direction) return n;
  // force dJ/dq. dD/dq = dc_b - dc_a = [-I, [l_a]x, I, -[l_b]x] (dc = dx - [l]x dtheta), dn = P dD with
  // P = (I - n n^T) / D (eq. 24, 34: the turning direction); d(l x n) = -[n]x dl + [l]x dn (eq. 37-40).
  const Mat3 P = (Mat3::Identity() - n * n.transpose()) / len;
  const Mat3 La = skew(la), Lb = skew(lb), Nx = skew(n);
  Eigen::Matrix<double, 3, 12> dn;
  dn << -P, P * La, P, -P * Lb;
  Eigen::Matrix<double, 3, 12> ta = -La * dn, tb = Lb * dn;  // -(l_a x n) and l_b x n, through dn
  ta.block<3, 3>(0, 3) -= Nx * La;                           // -(-[n]x dl_a), dl_a = -[l_a]x dtheta_a
  tb.block<3, 3>(0, 9) += Nx * Lb;                           // -[n]x dl_b, dl_b = -[l_b]x dtheta_b
  sum.d_pos.block<3, 12>(0, 0) -= force * dn;
  sum.d_pos.block<3, 12>(3, 0) += force * ta;
  sum.d_pos.block<3, 12>(6, 0) += force * dn;
  sum.d_pos.block<3, 12>(9, 0) += force * tb;
  return n;
}

}  // namespace cl::implicit_penalty
