// Continuous collision of two moving bodies over one step: the first moment their surfaces come closer than a
// target, by conservative advancement on the narrow phase's signed distance (collision/narrowphase.h).
#pragma once

#include "core/body.h"

namespace cl {

// A body's motion over one step, from its pose at the start to its pose at the end: the position moves on the
// straight line, the orientation turns about one fixed axis (the shortest rotation between the two).
struct StepMotion {
  Vec3 position0{0, 0, 0}, position1{0, 0, 0};
  Quat orientation0 = Quat::Identity(), orientation1 = Quat::Identity();
  double radius = 0.0;  // of the body about its origin (shape_bounding_radius)
  // The radius whose turning moves the body's surface: the bounding radius, but 0 for a sphere, whose surface
  // turns onto itself about its centre (a ball rolling at 400 rad/s closes on nothing by turning).
  double turning_radius = 0.0;

  StepMotion() = default;
  // A body that stays where it is (its motion over the step not known yet).
  explicit StepMotion(const Body& b);

  Vec3 position(double t) const { return position0 + t * (position1 - position0); }
  Quat orientation(double t) const { return orientation0.slerp(t, orientation1); }
  // How far the body's surface can move over the step, m: a bound on how much it can close on anything
  // (|dx| plus the turned angle times the turning radius; a plane, which never turns, only its translation).
  double reach() const;
  // The part of the turn in reach(): the turned angle times the turning radius, m.
  double turn_reach() const;
  // Puts the body at the pose of the fraction t of the step.
  void place(Body& b, double t) const;
};

struct Impact {
  bool hit = false;   // the target distance is reached within the step
  double t = 1.0;     // the fraction of the step at which it is (1 without a hit)
  double distance0 = 0.0;  // the pair's signed distance at the start of the step, m (capped at their reach)
};

// Half the thickness of a shape's thinnest part, m: the radius of a sphere or capsule, a box's least half
// extent, a mesh's least half side of its bounds; infinite for a plane.
double half_thickness(const Shape& s);
// The thinner of two shapes' half thicknesses, m: what a pair's depth allowances are measured against.
double thinner_half_thickness(const Shape& a, const Shape& b);

// The first fraction t of the step at which bodies a and b, moving by ma and mb, overlap by more than they may,
// to within `tolerance` m of distance (at most a tenth of the thinner body's half thickness) and never past it. A
// pair that was not `in_contact` at the start of the step (the solver had no contact for it) may overlap by
// `depth` (m, >= 0: where the solver's contact model will see it) or half the thinner body's half thickness,
// whichever is less, and is stopped there only if it would go as much again deeper in the step (at least ten
// tolerances, or a quarter of that half thickness if less). A pair touching at the start counts as in contact. A
// pair in contact may go deeper than at the start by `depth` or a quarter of the thinner body's half thickness,
// whichever is more: room for its contact to compress and slide as its method makes it, too little for either
// body to reach the other's middle, past which the other's nearest surface is the far one and the contact would
// push it on through. Conservative advancement: at each t the pair's distance less the target, divided by the sum
// of the two reaches (no point of either closes faster), is a fraction of the step in which they cannot reach the
// target, so t advances by it until the rest is within the tolerance (Mirtich 1996; the narrow phase's box-box
// distance is a lower bound, which only stops the advance earlier). A box against a plane that does not turn is
// advanced corner by corner, each on its own linear and angular motion with a second-order bound, so a box
// pivoting on a corner it touches is not held back by its turn times its bounding radius. The bodies are copies
// moved along their motions.
Impact time_of_impact(Body a, const StepMotion& ma, Body b, const StepMotion& mb, bool in_contact, double depth,
                      double tolerance);

}  // namespace cl
