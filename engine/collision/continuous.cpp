#include "collision/continuous.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "collision/narrowphase.h"

namespace cl {

StepMotion::StepMotion(const Body& b)
    : position0(b.position), position1(b.position), orientation0(b.orientation), orientation1(b.orientation),
      radius(shape_bounding_radius(b.shape)),
      turning_radius(b.shape.type == ShapeType::Sphere ? 0.0 : radius) {}

double StepMotion::turn_reach() const {
  if (turning_radius == 0.0) return 0.0;
  const double angle = orientation0.angularDistance(orientation1);
  return angle > 0.0 ? angle * turning_radius : 0.0;
}

double StepMotion::reach() const { return (position1 - position0).norm() + turn_reach(); }

namespace {

// How much the pair can close over the step, m: a bound on how fast their distance falls as t runs from 0 to 1
// (conservative advancement, Mirtich 1996). Any point of b moves relative to any point of a by at most their
// origins' relative translation plus each body's turned angle times its turning radius, so that bounds it; what
// the two bodies share of their translation closes nothing. Summing each body's whole reach instead, a box pushed at
// 500 m/s by a kinematic ram it touched advanced by its 6 cm allowance per 16.7 m of their reaches, ran out of
// advances a quarter into the step and was put back there as if it had hit: the ram then carried it on from 6 cm
// deeper, and so on every step until it passed through the box. Against a plane (which does not turn) the distance
// is the least of n . x - d over the other body's points, so only their relative translation towards the plane
// and the body's turning count: a body sliding or rolling along the plane closes on it by nothing. Without that, a
// 2 cm ball rolling 14 cm a step along a plane it touches advanced by its 2.5 mm allowance per 17 cm of reach, ran
// out of advances short of the step's end and was put back as if it had hit, losing the gravity of the rest of the
// step (4 to 8 % of its speed after 1 s at 1/30 s on 60 to 75 degree slopes).
double closing_reach(const Body& a, const StepMotion& ma, const Body& b, const StepMotion& mb) {
  const Vec3 relative = (mb.position1 - mb.position0) - (ma.position1 - ma.position0);  // b's translation from a's
  if (a.shape.type == ShapeType::Plane && b.shape.type != ShapeType::Plane)
    return std::max(0.0, -relative.dot(a.orientation * a.shape.normal)) + mb.turn_reach();
  if (b.shape.type == ShapeType::Plane && a.shape.type != ShapeType::Plane)
    return std::max(0.0, relative.dot(b.orientation * b.shape.normal)) + ma.turn_reach();
  return relative.norm() + ma.turn_reach() + mb.turn_reach();
}

// The height above a plane that does not turn, less a level, of one point of a body (a box's corner) on its step's
// motion: h(t) = a + b t + C cos(theta t) + D sin(theta t), the body's origin moving on its line and its
// orientation turning by theta about one axis (StepMotion). With w = R0 r the point's offset at the start, u the
// axis and n the plane's normal: a = n.(p0 - P0) - top + (n.u)(u.w), b = n.(dp - dP), C = n.w - (n.u)(u.w),
// D = n.(u x w) (Rodrigues' rotation formula).
struct PlanePath {
  double a = 0.0, b = 0.0, c = 0.0, d = 0.0, theta = 0.0;
  double at(double t) const { return a + b * t + c * std::cos(theta * t) + d * std::sin(theta * t); }
  double rate(double t) const { return b + theta * (d * std::cos(theta * t) - c * std::sin(theta * t)); }
  double bend() const { return theta * theta * std::hypot(c, d); }  // bounds |h''| over the step
};

// The first fraction of the step at which the path comes within `tolerance` of `level`, or 2 if it does not in
// the step. Conservative advancement on the path's own second-order bound h(t + s) >= h + h' s - bend s^2 / 2:
// the step to where that bound reaches the level cannot pass it. A box pivoting on a corner it touches closes on
// the plane by nothing at that corner, where the bound on the whole body (the turned angle times its bounding
// radius, closing_reach) was a thousand times the 25 um a touching 0.2 mm sheet may go deeper: the sheet was
// advanced a fraction of each step and crept down on its edge.
double first_reach(const PlanePath& p, double level, double tolerance) {
  double t = 0.0;
  for (int i = 0; i < 64; ++i) {
    const double v = p.at(t) - level;
    if (v <= tolerance) return t;
    // The root (r + sqrt(r^2 + 2 m v)) / m of the bound, written without the cancellation that stalled a sheet
    // falling flat (r < 0, m tiny) in the air: 0 for r >= 0 with m = 0 (never).
    const double r = p.rate(t), m = p.bend();
    const double below = std::sqrt(r * r + 2.0 * m * v) - r;
    if (!(below > 0.0)) return 2.0;
    t += 2.0 * v / below;
    if (t > 1.0) return 2.0;
  }
  return t;  // not converged: still short of the level, where it is stopped
}

// The paths of a box's eight corners against a plane that does not turn (either body may be the plane), or false
// for other pairs. The bodies are at the start of the step.
bool plane_box_paths(const Body& a, const StepMotion& ma, const Body& b, const StepMotion& mb,
                     std::array<PlanePath, 8>& out) {
  const bool a_plane = a.shape.type == ShapeType::Plane;
  const Body& plane = a_plane ? a : b;
  const Body& box = a_plane ? b : a;
  const StepMotion& mp = a_plane ? ma : mb;
  const StepMotion& mbox = a_plane ? mb : ma;
  if (plane.shape.type != ShapeType::Plane || box.shape.type != ShapeType::Box) return false;
  if (mp.orientation0.angularDistance(mp.orientation1) > 0.0) return false;
  const Vec3 n = mp.orientation0 * plane.shape.normal;
  const double top = plane.shape.offset + n.dot(mp.position0);
  Quat turn = mbox.orientation1 * mbox.orientation0.conjugate();
  if (turn.w() < 0.0) turn.coeffs() = -turn.coeffs();
  const Eigen::AngleAxisd aa(turn);
  const Vec3 u = aa.axis();
  const double theta = aa.angle();
  const Mat3 r0 = mbox.orientation0.normalized().toRotationMatrix();
  const Vec3& h = box.shape.half_extents;
  const double along = n.dot(mbox.position0) - top;
  const double closing = n.dot((mbox.position1 - mbox.position0) - (mp.position1 - mp.position0));
  for (int c = 0; c < 8; ++c) {
    const Vec3 w = r0 * Vec3((c & 1) ? h.x() : -h.x(), (c & 2) ? h.y() : -h.y(), (c & 4) ? h.z() : -h.z());
    const double axial = n.dot(u) * u.dot(w);
    out[size_t(c)] = {along + axial, closing, n.dot(w) - axial, n.dot(u.cross(w)), theta};
  }
  return true;
}
}  // namespace

void StepMotion::place(Body& b, double t) const {
  b.position = position(t);
  b.orientation = orientation(t).normalized();
}

double half_thickness(const Shape& s) {
  switch (s.type) {
    case ShapeType::Plane: return std::numeric_limits<double>::infinity();
    case ShapeType::Sphere:
    case ShapeType::Capsule: return s.radius;
    case ShapeType::Box: return s.half_extents.minCoeff();
    case ShapeType::Mesh: return 0.5 * (s.mesh_properties.local_bounds.hi - s.mesh_properties.local_bounds.lo).minCoeff();
  }
  return 0.0;
}

double thinner_half_thickness(const Shape& a, const Shape& b) { return std::min(half_thickness(a), half_thickness(b)); }

Impact time_of_impact(Body a, const StepMotion& ma, Body b, const StepMotion& mb, bool in_contact, double depth,
                      double tolerance) {
  Impact impact;
  // Within a tenth of the thinner body's half thickness: a touching 0.2 mm sheet, which may go 25 um deeper, was
  // put back at its start (0.1 mm) every step and never moved again.
  const double thin = thinner_half_thickness(a.shape, b.shape);
  tolerance = std::min(tolerance, 0.1 * thin);
  const double reach = closing_reach(a, ma, b, mb);
  if (!(reach > tolerance)) return impact;
  // Bounding spheres first: their centres move on straight lines, so their closest approach in the step is
  // exact, and a pair whose spheres stay apart by more than any target cannot overlap (most pairs a sweep meets).
  if (std::isfinite(ma.radius) && std::isfinite(mb.radius)) {
    const Vec3 p0 = mb.position0 - ma.position0;
    const Vec3 dp = (mb.position1 - mb.position0) - (ma.position1 - ma.position0);
    const double s = dp.squaredNorm() > 0.0 ? std::clamp(-p0.dot(dp) / dp.squaredNorm(), 0.0, 1.0) : 0.0;
    if ((p0 + s * dp).norm() > ma.radius + mb.radius + tolerance) return impact;
  }
  // At the start: a pair farther apart than the whole reach cannot meet in this step.
  ma.place(a, 0.0);
  mb.place(b, 0.0);
  impact.distance0 = pair_distance(a, b, reach + tolerance);
  if (impact.distance0 >= reach + tolerance) return impact;
  // A pair touching at the start counts as in contact even if the solver found none there (a box's corner
  // between the points of a point shell): stopping it again at the same place would hold it there for good.
  in_contact = in_contact || impact.distance0 <= tolerance;
  // A new contact overlaps by `depth`, but by no more than half the thinner body's half thickness: a 0.2 mm sheet
  // landing 1 mm deep (lcp's allowed_penetration) was wholly through the ground in the step it landed.
  const double new_depth = std::min(depth, 0.5 * thin);
  const double target = !in_contact ? std::min(impact.distance0, 0.0) - new_depth
                                    : std::min(impact.distance0, 0.0) - std::max(depth, 0.25 * thin);
  // A pair the solver had no contact for is put where it overlaps by new_depth (more than at the start), but only
  // if it would go on deeper by as much again (at least ten tolerances, or a quarter of the thinner body's half
  // thickness if less) within the step: one that merely settles a little deeper (a ball rolling on in its own rest
  // depth) is left where its step took it.
  const double trigger =
      in_contact ? target : target - std::max(new_depth, std::min(10.0 * tolerance, 0.25 * thin));
  // A box against a plane: each corner on its own motion, exactly.
  if (std::array<PlanePath, 8> paths; plane_box_paths(a, ma, b, mb, paths)) {
    double hit = 2.0, place = 2.0;
    for (const PlanePath& p : paths) {
      hit = std::min(hit, first_reach(p, trigger, tolerance));
      place = std::min(place, first_reach(p, target, tolerance));
    }
    if (hit <= 1.0) impact.hit = true, impact.t = place;
    return impact;
  }
  double t = 0.0;
  double distance = impact.distance0;
  double place_at = -1.0;  // the fraction at which the target was reached, while advancing to the trigger
  constexpr int kMaxAdvances = 64;
  for (int i = 0; i < kMaxAdvances; ++i) {
    if (place_at < 0.0 && distance - target <= tolerance) place_at = t;
    const double gap = distance - trigger;
    if (gap <= tolerance) {
      impact.hit = true;
      impact.t = place_at;
      return impact;
    }
    t += gap / reach;
    if (t >= 1.0) return impact;
    // Not past the target while it is not reached yet.
    if (place_at < 0.0) t = std::min(t, t - gap / reach + (distance - target) / reach);
    ma.place(a, t);
    mb.place(b, t);
    // Beyond what the rest of the step can close the distance need not be known exactly.
    const double left = trigger + reach * (1.0 - t) + tolerance;
    distance = pair_distance(a, b, std::max(left, 0.0));
    if (distance >= left) return impact;
  }
  // Not converged (a distance that creeps down): the last t is still short of the trigger.
  impact.hit = true;
  impact.t = place_at >= 0.0 ? place_at : t;
  return impact;
}

}  // namespace cl
