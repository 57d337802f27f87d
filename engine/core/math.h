// Engine math: Eigen types in double precision, plus the few rigid-body helpers every stage uses.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <limits>

namespace cl {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;  // stored (x, y, z, w); constructed as Quat(w, x, y, z)

// a^x such that skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// sin(x)/x, with the Taylor form near zero (thesis eq. 4.230).
inline double sinc(double x) { return std::abs(x) < 1e-4 ? 1.0 - x * x / 6.0 : std::sin(x) / x; }

// Finite rotation update q <- [cos(|w|h/2), w h/2 sinc(|w|h/2)] q (thesis eqs. 4.225-4.229).
// Exact for constant world-frame angular velocity w over the step h; the result is renormalised.
inline Quat integrate_orientation(const Quat& q, const Vec3& w, double h) {
  const double half = 0.5 * h * w.norm();
  const Vec3 v = w * (0.5 * h * sinc(half));
  Quat dq(std::cos(half), v.x(), v.y(), v.z());
  Quat r = dq * q;
  r.normalize();
  return r;
}

// Small first-order rotation q <- q + 1/2 [0, dtheta] q, renormalised (used by error projection, thesis sect. 4.16).
inline Quat apply_small_rotation(const Quat& q, const Vec3& dtheta) {
  Quat d(0.0, dtheta.x(), dtheta.y(), dtheta.z());
  Quat r = q;
  r.coeffs() += 0.5 * (d * q).coeffs();
  r.normalize();
  return r;
}

inline bool all_finite(const Vec3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

// A double rounded to the float at or below it, and at or above it: float bounds that stay bounds.
inline float float_down(double x) {
  float f = static_cast<float>(x);
  if (double(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}
inline float float_up(double x) {
  float f = static_cast<float>(x);
  if (double(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// Two unit vectors t1, t2 with (t1, t2, n) right-handed and orthonormal (n must be unit).
inline void tangent_basis(const Vec3& n, Vec3& t1, Vec3& t2) {
  const Vec3 a = std::abs(n.x()) < 0.57735 ? Vec3(1, 0, 0) : Vec3(0, 1, 0);
  t1 = n.cross(a).normalized();
  t2 = n.cross(t1);
}

// Friction directions at a contact: the first along the sliding velocity (the relative velocity less its normal
// part) when there is one, so that sliding friction is exactly mu lambda_n along the motion, else tangent_basis.
inline void sliding_tangents(const Vec3& n, const Vec3& relative_velocity, Vec3& t1, Vec3& t2) {
  const Vec3 vt = relative_velocity - n * relative_velocity.dot(n);
  // Told by the squared speed: a resting contact (most of a stack's) takes no square root, which was the end of a
  // chain of loads that each contact of a resting pyramid waited on.
  const double speed2 = vt.squaredNorm();
  if (speed2 > 1e-12) {
    const double speed = std::sqrt(speed2);
    t1 = vt / speed;  // vt.normalized(), whose norm this is, without taking it again
    t2 = n.cross(t1);
  } else {
    tangent_basis(n, t1, t2);
  }
}

struct Aabb {
  Vec3 lo{0, 0, 0};
  Vec3 hi{0, 0, 0};
  bool overlaps(const Aabb& o) const {
    return (lo.array() <= o.hi.array()).all() && (o.lo.array() <= hi.array()).all();
  }
};

}  // namespace cl
