#include "scripts/spline.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cl {
namespace {

// 5-point Gauss-Legendre rule on [-1, 1]: exact for polynomials up to degree 9.
constexpr double kNodes[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
constexpr double kWeights[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                                0.2369268850561891};

// Two points closer than this are the same point: 1e-9 of the larger coordinate scale (at least 1 m).
bool coincide(const Vec3& p, const Vec3& q) {
  const double scale = std::max({1.0, p.cwiseAbs().maxCoeff(), q.cwiseAbs().maxCoeff()});
  return !((p - q).norm() > 1e-9 * scale);  // also true for NaN, so no NaN reaches the spline
}

// Thomas algorithm for a tridiagonal system with vector right-hand sides (sub[0] and sup[n-1] unused).
// The spline systems are strictly diagonally dominant, so no pivoting is needed.
std::vector<Vec3> solve_tridiagonal(const std::vector<double>& sub, std::vector<double> diag, const std::vector<double>& sup,
                                    std::vector<Vec3> rhs) {
  const size_t n = diag.size();
  for (size_t i = 1; i < n; ++i) {
    const double w = sub[i] / diag[i - 1];
    diag[i] -= w * sup[i - 1];
    rhs[i] -= w * rhs[i - 1];
  }
  std::vector<Vec3> x(n, Vec3::Zero());
  if (n == 0) return x;
  x[n - 1] = rhs[n - 1] / diag[n - 1];
  for (size_t i = n - 1; i-- > 0;) x[i] = (rhs[i] - sup[i] * x[i + 1]) / diag[i];
  return x;
}

std::vector<double> solve_tridiagonal(const std::vector<double>& sub, std::vector<double> diag, const std::vector<double>& sup,
                                      std::vector<double> rhs) {
  std::vector<Vec3> r(rhs.size());
  for (size_t i = 0; i < rhs.size(); ++i) r[i] = Vec3(rhs[i], 0, 0);
  const std::vector<Vec3> x = solve_tridiagonal(sub, std::move(diag), sup, std::move(r));
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i].x();
  return out;
}

}  // namespace

bool path_points_coincide(const Vec3& p, const Vec3& q) { return coincide(p, q); }

PathSpline::PathSpline(const std::vector<Vec3>& points, bool closed) {
  // Consecutive duplicates (and, when closed, a last point repeating the first) would give zero knot spacing.
  for (const Vec3& p : points) {
    if (!all_finite(p)) continue;
    if (knots_.empty() || !coincide(knots_.back(), p)) knots_.push_back(p);
  }
  if (closed) {
    while (knots_.size() > 1 && coincide(knots_.back(), knots_.front())) knots_.pop_back();
  }
  build(closed);
}

void PathSpline::build(bool closed) {
  const size_t n = knots_.size();
  closed_ = closed && n >= 2;
  if (n < 2) return;  // a point: no segments, length 0
  const size_t m = closed_ ? n : n - 1;  // segments
  const auto P = [&](size_t i) -> const Vec3& { return knots_[i % n]; };

  // Chord-length knot spacing.
  std::vector<double> h(m);
  for (size_t i = 0; i < m; ++i) h[i] = (P(i + 1) - P(i)).norm();

  // Second derivatives M_i (in the chord-length parameter) at the knots:
  //   h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 ((P_{i+1} - P_i)/h_i - (P_i - P_{i-1})/h_{i-1}).
  std::vector<Vec3> M(n, Vec3::Zero());
  const auto rhs = [&](size_t i, size_t prev) {
    return Vec3(6.0 * ((P(i + 1) - P(i)) / h[i] - (P(i) - P(prev)) / h[prev]));
  };
  if (!closed_) {
    // Natural ends: M_0 = M_{n-1} = 0; unknowns M_1..M_{n-2}.
    if (n > 2) {
      const size_t k = n - 2;
      std::vector<double> sub(k), diag(k), sup(k);
      std::vector<Vec3> r(k);
      for (size_t j = 0; j < k; ++j) {
        const size_t i = j + 1;
        sub[j] = h[i - 1];
        diag[j] = 2.0 * (h[i - 1] + h[i]);
        sup[j] = h[i];
        r[j] = rhs(i, i - 1);
      }
      const std::vector<Vec3> x = solve_tridiagonal(sub, diag, sup, r);
      for (size_t j = 0; j < k; ++j) M[j + 1] = x[j];
    }
  } else if (n == 2) {
    // Periodic through two points: [2s s; s 2s] M = r with s = h_0 + h_1.
    const double s = h[0] + h[1];
    const Vec3 r0 = rhs(0, 1), r1 = rhs(1, 0);
    M[0] = (2.0 * r0 - r1) / (3.0 * s);
    M[1] = (2.0 * r1 - r0) / (3.0 * s);
  } else {
    // Periodic: a cyclic tridiagonal system, solved by Sherman-Morrison on top of the Thomas algorithm.
    std::vector<double> sub(n), diag(n), sup(n);
    std::vector<Vec3> r(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t prev = (i + n - 1) % n;
      sub[i] = h[prev];
      diag[i] = 2.0 * (h[prev] + h[i]);
      sup[i] = h[i];
      r[i] = rhs(i, prev);
    }
    const double alpha = sup[n - 1];  // row n-1, column 0
    const double beta = sub[0];       // row 0, column n-1
    const double gamma = -diag[0];
    std::vector<double> d2 = diag;
    d2[0] -= gamma;
    d2[n - 1] -= alpha * beta / gamma;
    const std::vector<Vec3> y = solve_tridiagonal(sub, d2, sup, r);
    std::vector<double> u(n, 0.0);
    u[0] = gamma;
    u[n - 1] = alpha;
    const std::vector<double> z = solve_tridiagonal(sub, d2, sup, u);
    const Vec3 fact = (y[0] + beta * y[n - 1] / gamma) / (1.0 + z[0] + beta * z[n - 1] / gamma);
    for (size_t i = 0; i < n; ++i) M[i] = y[i] - fact * z[i];
  }

  // Segment polynomials in u = tau / h_i in [0, 1]:
  //   C(u) = P_i (1 - u) + P_{i+1} u + h^2/6 (M_i ((1-u)^3 - (1-u)) + M_{i+1} (u^3 - u)).
  segments_.resize(m);
  quartics_.resize(m);
  table_.resize(m);
  start_.resize(m);
  total_ = 0.0;
  for (size_t i = 0; i < m; ++i) {
    const double h2 = h[i] * h[i];
    const Vec3& Mi = M[i];
    const Vec3& Mj = M[(i + 1) % n];
    CubicSegment& s = segments_[i];
    s.d = P(i);
    s.c = P(i + 1) - P(i) - h2 / 6.0 * (2.0 * Mi + Mj);
    s.b = 0.5 * h2 * Mi;
    s.a = h2 / 6.0 * (Mj - Mi);
    // |C'(u)|^2 with C' = 3a u^2 + 2b u + c (eq. 3.19).
    Quartic& q = quartics_[i];
    q.A = 9.0 * s.a.dot(s.a);
    q.B = 12.0 * s.a.dot(s.b);
    q.C = 6.0 * s.a.dot(s.c) + 4.0 * s.b.dot(s.b);
    q.D = 4.0 * s.b.dot(s.c);
    q.E = s.c.dot(s.c);

    // Cumulative arc length at the quadrature piece ends.
    auto& t = table_[i];
    t[0] = 0.0;
    for (int k = 0; k < kSubintervals; ++k) {
      t[k + 1] = t[k] + piece_length(i, double(k) / kSubintervals, double(k + 1) / kSubintervals);
    }
    start_[i] = total_;
    total_ += t[kSubintervals];
  }
}

double PathSpline::speed(size_t i, double u) const {
  const Quartic& q = quartics_[i];
  const double v = (((q.A * u + q.B) * u + q.C) * u + q.D) * u + q.E;
  return std::sqrt(std::max(0.0, v));
}

double PathSpline::piece_length(size_t i, double u0, double u1) const {
  const double half = 0.5 * (u1 - u0), mid = 0.5 * (u0 + u1);
  double sum = 0.0;
  for (int k = 0; k < 5; ++k) sum += kWeights[k] * speed(i, mid + half * kNodes[k]);
  return half * sum;
}

double PathSpline::segment_arc_length(size_t i, double u) const {
  if (i >= segments_.size()) return 0.0;
  u = std::clamp(u, 0.0, 1.0);
  const int k = std::min(kSubintervals - 1, int(u * kSubintervals));
  const double uk = double(k) / kSubintervals;
  return table_[i][k] + piece_length(i, uk, u);
}

double PathSpline::invert(size_t i, double r) const {
  const auto& t = table_[i];
  if (!(r > 0.0)) return 0.0;
  if (r >= t[kSubintervals]) return 1.0;
  // The quadrature piece holding r, then Newton on S_i(u) - r = 0 kept inside a shrinking bracket
  // (S is increasing with S' = |C'|; a Newton step leaving the bracket becomes a bisection step).
  const int k = std::clamp(int(std::upper_bound(t.begin(), t.end(), r) - t.begin()) - 1, 0, kSubintervals - 1);
  const double uk = double(k) / kSubintervals;
  double lo = uk, hi = double(k + 1) / kSubintervals;
  const double width = t[k + 1] - t[k];
  if (!(width > 0.0)) return lo;
  double u = lo + (r - t[k]) / width * (hi - lo);
  const double tol = 1e-14 * std::max(t[kSubintervals], 1e-300);
  for (int it = 0; it < 60; ++it) {
    const double f = t[k] + piece_length(i, uk, u) - r;
    if (std::abs(f) <= tol) break;
    if (f > 0) hi = u;
    else lo = u;
    if (hi - lo <= 4 * std::numeric_limits<double>::epsilon()) break;
    const double fp = speed(i, u);
    const double next = fp > 0 ? u - f / fp : lo;
    u = (next > lo && next < hi) ? next : 0.5 * (lo + hi);
  }
  return u;
}

PathPoint PathSpline::at(double s) const {
  PathPoint p;
  if (segments_.empty()) {
    if (!knots_.empty()) p.position = knots_.front();
    return p;
  }
  if (!std::isfinite(s)) s = 0.0;
  if (closed_) {
    s = std::fmod(s, total_);
    if (s < 0) s += total_;
  } else {
    s = std::clamp(s, 0.0, total_);
  }
  const size_t m = segments_.size();
  const size_t i = std::min(m - 1, size_t(std::max<std::ptrdiff_t>(
                                       0, std::upper_bound(start_.begin(), start_.end(), s) - start_.begin() - 1)));
  const double u = invert(i, s - start_[i]);
  const CubicSegment& seg = segments_[i];
  p.segment = int(i);
  p.u = u;
  p.position = seg.point(u);
  const Vec3 d1 = seg.first(u), d2 = seg.second(u);
  const double cc = d1.squaredNorm();
  const double seg_len = table_[i][kSubintervals];
  if (cc > (1e-12 * seg_len) * (1e-12 * seg_len) && cc > 0) {
    // eq. 3.41
    p.du_ds = 1.0 / std::sqrt(cc);
    p.d2u_ds2 = -d1.dot(d2) / (cc * cc);
    p.tangent = d1 * p.du_ds;
    p.curvature = d2 * (p.du_ds * p.du_ds) + d1 * p.d2u_ds2;
  }
  return p;
}

}  // namespace cl
