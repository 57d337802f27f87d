#include "constraints/motion.h"

#include <cmath>

#include <Eigen/Eigenvalues>

namespace cl {

BodyVelocity free_velocity_change(const Body& b, const Vec3& gravity, double h) {
  if (!b.is_dynamic()) return {};
  return {h * (gravity + b.inv_mass * b.force), h * (b.inv_inertia_world * b.torque)};
}

namespace {

// Turns the principal frame q by angle t about its own axis k and the principal-frame momentum p by -t about
// the same axis, so that the world momentum q p q^-1 stays as it was.
void turn_about_axis(Quat& q, Vec3& p, int k, double t) {
  // No turn (an axis whose moment equals the reference one: every axis of a cube, two of a symmetric top) leaves
  // q and p as they are, bit for bit: cos 0 = 1, sin 0 = 0.
  if (t == 0.0) return;
  const double c = std::cos(t), s = std::sin(t);
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  const double pi = p[i], pj = p[j];
  p[i] = c * pi + s * pj;
  p[j] = -s * pi + c * pj;
  Vec3 axis = Vec3::Zero();
  axis[k] = 1.0;
  q = q * Quat(Eigen::AngleAxisd(t, axis));
}

}  // namespace

void advance_free_rotation(Body& b, double h) {
  // A body not turning keeps its orientation: the flow below would turn it by angles of zero (a resting stack's
  // bodies, left at rest by the lcp layers, are most of a large scene's).
  if (b.angular_velocity.isZero(0.0)) {
    b.orientation.normalize();
    return;
  }
  // The principal frame P = R Q of the body, with I_body = Q diag(d) Q^T (Q = 1 for the primitives).
  const Mat3& inertia = b.inertia_body;
  Vec3 d = inertia.diagonal();
  Quat frame_in_body = Quat::Identity();
  const Mat3 off = inertia - Mat3(d.asDiagonal());
  if (off.cwiseAbs().maxCoeff() > 1e-12 * d.cwiseAbs().maxCoeff()) {
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
    Mat3 axes = eig.eigenvectors();
    if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
    d = eig.eigenvalues();
    frame_in_body = Quat(axes);
  }
  if ((d.array() <= 0.0).any()) {
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity, h);
    return;
  }
  Quat q = (b.orientation * frame_in_body).normalized();
  const Vec3 momentum = q * d.cwiseProduct(q.conjugate() * b.angular_velocity);  // L = R I w, world frame
  Vec3 p = q.conjugate() * momentum;  // in the principal frame
  // The kinetic energy T = sum_k p_k^2 / (2 d_k) splits as |p|^2 / (2 d_r) + sum_k p_k^2 (1/d_k - 1/d_r) / 2 for any
  // reference axis r. The first part is a Casimir: its flow, a turn about L by |L| t / d_r, is exact and commutes
  // with everything. Each remaining term's flow is an exact turn about its own principal axis by
  // p_k (1/d_k - 1/d_r) t (p_k stays constant in it), and the r term vanishes. r is taken from the two closest
  // moments, so a symmetric top (two equal moments) leaves one term and is turned exactly. The two terms left are
  // composed symmetrically (Strang: second order, keeps L and |p| exactly and the energy without drift), as
  // Yoshida's triple jump (fourth order: the energy of a box tumbling about its intermediate axis at w h = 0.05
  // stays within 1e-7; constraints/motion_test.cpp).
  const Vec3 inv_d = d.cwiseInverse();
  int r = 0;
  double closest = std::abs(inv_d[0] - inv_d[1]);
  for (int k : {1, 2})
    if (std::abs(inv_d[k] - inv_d[(k + 1) % 3]) < closest) {
      closest = std::abs(inv_d[k] - inv_d[(k + 1) % 3]);
      r = k;
    }
  const int near = (r + 1) % 3, far = (r + 2) % 3;  // near's moment is the closest to r's
  const double pn = p.norm();
  if (pn > 0.0) q = q * Quat(Eigen::AngleAxisd(pn * h * inv_d[r], p / pn));
  constexpr double kCbrt2 = 1.2599210498948731648;
  const double w1 = 1.0 / (2.0 - kCbrt2), w0 = -kCbrt2 / (2.0 - kCbrt2);
  for (double part : {w1, w0, w1}) {
    const double t = part * h;
    turn_about_axis(q, p, far, 0.5 * t * p[far] * (inv_d[far] - inv_d[r]));
    turn_about_axis(q, p, near, t * p[near] * (inv_d[near] - inv_d[r]));
    turn_about_axis(q, p, far, 0.5 * t * p[far] * (inv_d[far] - inv_d[r]));
  }
  q.normalize();
  b.orientation = (q * frame_in_body.conjugate()).normalized();
  b.angular_velocity = q * p.cwiseQuotient(d);  // w = R I^-1 R^T L with the new orientation
}

void advance_pose(Body& b, double h) {
  b.position += h * b.linear_velocity;
  if (b.is_dynamic())
    advance_free_rotation(b, h);
  else
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity, h);
  b.update_world_inertia();
}

void advance_poses(std::vector<Body>& bodies, double h) {
  for (Body& b : bodies)
    if (b.kind != BodyKind::Fixed) advance_pose(b, h);
}

void displace(Body& b, const Vec3& dx, const Vec3& dtheta) {
  b.position += dx;
  b.orientation = apply_small_rotation(b.orientation, dtheta);
  b.update_world_inertia();
}

}  // namespace cl
