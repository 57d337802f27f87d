#include "constraints/friction_balance.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Cholesky>

namespace cl {

namespace {

using Effect = Eigen::Matrix<double, 5, 1>;  // the net force (2), the twist (1), the moment about the tangents (2)

}  // namespace

bool balance_pair_friction(const Vec3& normal, std::span<FrictionPoint> points) {
  auto active = [](const FrictionPoint& p) { return p.normal_impulse > 0.0 && p.mu > 0.0; };
  int count = 0;
  double load = 0.0;
  Vec3 centre = Vec3::Zero();
  for (const FrictionPoint& p : points) {
    if (!active(p)) continue;
    ++count;
    load += p.normal_impulse;
    centre += p.normal_impulse * p.position;
  }
  if (count < 2) return false;
  centre /= load;

  // The tangent frame, t2 = n x t1, and each point's place from the load's centre: (a, b) along the tangents and
  // its height s along the normal (a face's points share it, up to the depths), in units of the pair's size; its
  // friction (x1, x2) along the tangents.
  const Vec3 t1 = normal.unitOrthogonal(), t2 = normal.cross(t1);
  double extent = 0.0;
  for (const FrictionPoint& p : points)
    if (active(p)) extent = std::max(extent, (p.position - centre).norm());
  if (!(extent > 0.0)) return false;
  struct Place {
    double a, b, s, x1, x2;
  };
  thread_local std::vector<Place> places;
  places.clear();
  for (const FrictionPoint& p : points) {
    const Vec3 r = (p.position - centre) / extent;
    places.push_back({r.dot(t1), r.dot(t2), r.dot(normal), p.friction.dot(t1), p.friction.dot(t2)});
  }
  auto place = [&](const FrictionPoint& p) -> const Place& { return places[size_t(&p - points.data())]; };
  // G_i maps a point's tangent force (x1, x2) to its effect on the bodies: the net force (x1, x2), the twist
  // n . (r x f) = a x2 - b x1 and the moment about the tangents s (n x f) = (-s x2, s x1). The target is
  // f*_i = lambda_n,i G_i^T y with sum G_i f*_i = w = sum G_i x_i: y solves K y = w, K = sum lambda_n,i G_i G_i^T.
  // About the load's centre (sum lambda_n,i (a, b, s)_i = 0) K is block diagonal: sum lambda_n for each force
  // row, and the twist and the moments together.
  auto effect = [](const Place& q, double x1, double x2, Effect& e) {
    e(0) += x1;
    e(1) += x2;
    e(2) += q.a * x2 - q.b * x1;
    e(3) -= q.s * x2;
    e(4) += q.s * x1;
  };
  Eigen::Matrix3d k = Eigen::Matrix3d::Zero();  // the twist and the moments
  Effect w = Effect::Zero();
  double spread = 0.0;
  for (const FrictionPoint& p : points) {
    if (!active(p)) continue;
    const Place& q = place(p);
    const double l = p.normal_impulse;
    k(0, 0) += l * (q.a * q.a + q.b * q.b);
    k(0, 1) -= l * q.a * q.s;
    k(0, 2) -= l * q.b * q.s;
    k(1, 1) += l * q.s * q.s;
    effect(q, q.x1, q.x2, w);
    spread = std::max(spread, std::abs(q.s));
  }
  Effect y = Effect::Zero();
  y(0) = w(0) / load;
  y(1) = w(1) / load;
  // Heights that differ by less than this are one plane: the moments then follow from the net force. A pivoting
  // LDL^T leaves a direction without a pivot at zero: two points leave the twist and the moments dependent.
  if (spread <= 1e-9) {
    if (k(0, 0) > 0.0) y(2) = w(2) / k(0, 0);
  } else {
    k(1, 0) = k(0, 1);
    k(2, 0) = k(0, 2);
    k(2, 2) = k(1, 1);
    y.tail<3>() = k.ldlt().solve(w.tail<3>());
  }
  auto target = [&](const Place& q, double l) {
    return Eigen::Vector2d(l * (y(0) - q.b * y(2) + q.s * y(4)), l * (y(1) + q.a * y(2) - q.s * y(3)));
  };

  // The target's effect must be the same as now's, else (w outside what K's kept directions reach, by rounding) the
  // pair is left alone; and the impulses go as far along d_i = f*_i - f_i as keeps every point in its disc:
  // |f + t d| <= R for t in [0, t_i] (f is in it, or on its edge up to rounding, which counts as in).
  Effect reached = Effect::Zero();
  double scale = 0.0, t = 1.0;
  for (const FrictionPoint& p : points) {
    if (!active(p)) continue;
    const Place& q = place(p);
    const Eigen::Vector2d f(q.x1, q.x2), goal = target(q, p.normal_impulse), d = goal - f;
    effect(q, goal(0), goal(1), reached);
    scale += p.mu * p.normal_impulse;
    const double dd = d.squaredNorm();
    if (dd == 0.0) continue;
    const double radius = std::max(p.mu * p.normal_impulse, f.norm());
    const double fd = f.dot(d), c = f.squaredNorm() - radius * radius;
    t = std::min(t, std::max((-fd + std::sqrt(std::max(fd * fd - dd * c, 0.0))) / dd, 0.0));
  }
  if ((reached - w).cwiseAbs().maxCoeff() > 1e-12 * scale || !(t > 0.0)) return false;
  bool changed = false;
  for (FrictionPoint& p : points) {
    if (!active(p)) continue;
    const Place& q = place(p);
    const Eigen::Vector2d d = t * (target(q, p.normal_impulse) - Eigen::Vector2d(q.x1, q.x2));
    if (d.isZero(0.0)) continue;
    p.friction += d(0) * t1 + d(1) * t2;
    changed = true;
  }
  return changed;
}

}  // namespace cl
