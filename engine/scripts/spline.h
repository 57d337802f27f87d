// The space spline of a scripted path (thesis sect. 3.1-3.2.4): a C2 cubic through given points,
// re-parameterised by arc length.
//
//  * Interpolation: the cubic spline through P_0..P_{n-1} with chord-length knots (knot spacing
//    h_i = |P_{i+1} - P_i|), C2 in that parameter, so position, tangent and curvature are continuous.
//    Open paths use natural end conditions (C'' = 0 at both ends: the path starts and ends straight);
//    closed paths are periodic and include the segment from the last point back to the first.
//    Each segment i is stored as C_i(u) = a u^3 + b u^2 + c u + d for u in [0, 1] (eq. 3.15).
//  * Arc length: S_i(u) = int_0^u |C_i'(t)| dt, |C'|^2 = A u^4 + B u^3 + C u^2 + D u + E (eq. 3.19),
//    integrated by 5-point Gauss-Legendre on kSubintervals equal pieces of each segment; the cumulative
//    lengths at the piece ends are tabled so that U(s) = S^{-1}(s) is a safeguarded Newton search inside
//    one piece (thesis sect. 3.2.2-3.2.3; S'(u) = |C'(u)|).
//  * Derivatives by arc length: U'(s) = 1/|C'|, U''(s) = -(C'.C'')/|C'|^4 (eq. 3.41), so
//    dx/ds = C' U' (unit tangent) and d2x/ds2 = C'' U'^2 + C' U'' (curvature vector).
//
// Degenerate input never crashes: coincident consecutive points are skipped, a path of one distinct
// point is a point (length 0), and where |C'| vanishes (a cusp, which the scene loader prevents by
// rejecting paths that turn straight back) U' and U'' are taken as 0.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "core/math.h"

namespace cl {

// One cubic piece C(u) = ((a u + b) u + c) u + d, u in [0, 1].
struct CubicSegment {
  Vec3 a{0, 0, 0}, b{0, 0, 0}, c{0, 0, 0}, d{0, 0, 0};
  Vec3 point(double u) const { return ((a * u + b) * u + c) * u + d; }
  Vec3 first(double u) const { return (3.0 * a * u + 2.0 * b) * u + c; }  // C'(u)
  Vec3 second(double u) const { return 6.0 * a * u + 2.0 * b; }           // C''(u)
};

// True when two path points are the same point for the spline: closer than 1e-9 of their coordinate
// scale (at least 1 m), or not finite. Such consecutive points are merged (the scene loader rejects them).
bool path_points_coincide(const Vec3& p, const Vec3& q);

// Position and derivatives with respect to arc length at one arc length s.
struct PathPoint {
  Vec3 position{0, 0, 0};
  Vec3 tangent{0, 0, 0};    // dx/ds (unit, or 0 at a cusp or on a path of length 0)
  Vec3 curvature{0, 0, 0};  // d2x/ds2 (normal to the tangent, magnitude 1/radius of curvature)
  int segment = 0;          // the piece and its parameter u = U(s)
  double u = 0.0;
  double du_ds = 0.0;    // U'(s)  (eq. 3.41)
  double d2u_ds2 = 0.0;  // U''(s) (eq. 3.41)
};

class PathSpline {
 public:
  static constexpr int kSubintervals = 16;  // quadrature pieces per segment

  PathSpline() = default;
  // The spline through `points` (world frame, m); `closed` adds the segment from the last point to the first.
  PathSpline(const std::vector<Vec3>& points, bool closed);

  bool closed() const { return closed_; }
  double length() const { return total_; }  // m
  size_t segment_count() const { return segments_.size(); }
  const CubicSegment& segment(size_t i) const { return segments_[i]; }
  // The distinct points the spline passes through (consecutive duplicates removed).
  const std::vector<Vec3>& knots() const { return knots_; }
  // Arc length at knot i, i in [0, segment_count()] (the last one is length(); for a closed path it is
  // the first knot again).
  double knot_arc_length(size_t i) const { return i < start_.size() ? start_[i] : total_; }

  // Arc length from the start of segment i to its parameter u in [0, 1] (S_i(u)).
  double segment_arc_length(size_t i, double u) const;
  // |C_i'(u)| by the quartic of eq. 3.19 (Horner form).
  double speed(size_t i, double u) const;

  // Position and derivatives at arc length s, clamped to [0, length()] (wrapped for a closed path).
  PathPoint at(double s) const;
  Vec3 position(double s) const { return at(s).position; }

 private:
  struct Quartic {
    double A = 0, B = 0, C = 0, D = 0, E = 0;  // |C'(u)|^2 = (((A u + B) u + C) u + D) u + E
  };
  void build(bool closed);
  double piece_length(size_t i, double u0, double u1) const;  // Gauss-Legendre, 5 points
  double invert(size_t i, double r) const;                    // u with S_i(u) = r

  bool closed_ = false;
  std::vector<Vec3> knots_;
  std::vector<CubicSegment> segments_;
  std::vector<Quartic> quartics_;
  std::vector<std::array<double, kSubintervals + 1>> table_;  // cumulative S_i at u = k / kSubintervals
  std::vector<double> start_;                                 // arc length at the start of each segment
  double total_ = 0.0;
};

}  // namespace cl
