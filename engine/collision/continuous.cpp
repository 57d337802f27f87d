#include "collision/continuous.h"

#include <algorithm>
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
// (conservative advancement, Mirtich 1996). Against a plane (a fixed body) the distance is the least of n . x - d
// over the other body's points, so only its translation towards the plane and its turning count: a body sliding
// or rolling along the plane closes on it by nothing. Without that, a 2 cm ball rolling 14 cm a step along a
// plane it touches advanced by its 2.5 mm allowance per 17 cm of reach, ran out of advances short of the step's end
// and was put back as if it had hit, losing the gravity of the rest of the step (4 to 8 % of its speed after 1 s
// at 1/30 s on 60 to 75 degree slopes).
double closing_reach(const Body& a, const StepMotion& ma, const Body& b, const StepMotion& mb) {
  const auto towards_plane = [](const Body& plane, const StepMotion& m) {
    const Vec3 n = plane.orientation * plane.shape.normal;  // out of the half space
    return std::max(0.0, -(m.position1 - m.position0).dot(n)) + m.turn_reach();
  };
  if (a.shape.type == ShapeType::Plane && b.shape.type != ShapeType::Plane) return towards_plane(a, mb);
  if (b.shape.type == ShapeType::Plane && a.shape.type != ShapeType::Plane) return towards_plane(b, ma);
  return ma.reach() + mb.reach();
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
  const double thin = thinner_half_thickness(a.shape, b.shape);
  const double new_depth = std::min(depth, 0.5 * thin);
  const double target = !in_contact ? std::min(impact.distance0, 0.0) - new_depth
                                    : std::min(impact.distance0, 0.0) - std::max(depth, 0.25 * thin);
  // A pair the solver had no contact for is put where it overlaps by new_depth (more than at the start), but only
  // if it would go on deeper by as much again (at least ten tolerances) within the step: one that merely
  // settles a little deeper (a ball rolling on in its own rest depth) is left where its step took it.
  const double trigger = in_contact ? target : target - std::max(new_depth, 10.0 * tolerance);
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
