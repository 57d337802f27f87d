// A ball on a plane in the physical contact model: its exact depth (our change to the point shells of Xu, Zhao
// and Barbic 2014, sect. 4.1, for this pair; see docs/methods/implicit-penalty.md, "Where it differs from the
// paper"). The ball's shell points still find that it touches; its force is the paper's K times the mean depth of
// its penetrating points (eq. 19 and 77 with N0 = 1), taken in the limit of a densely sampled cap: a cap of depth D
// holds the points of a sphere's shell evenly in depth, so their mean depth is D / 2. Summed over the few sampled
// points of a ball's cap (about 12 at rest) the mean jumps as points enter and leave while it rolls: a 1 m ball
// rolling down 30 degrees bounced on its contact at +-0.005 m/s, a 2 cm one at +-0.007 m/s.
#pragma once

#include <optional>

#include "core/shape.h"
#include "solvers/implicit_penalty/pair_force.h"
#include "solvers/implicit_penalty/round_pair.h"

namespace cl::implicit_penalty {

// The mean depth of a ball's cap over its deepest depth (see above).
inline constexpr double kCapSecant = 0.5;

struct PlaneBall {
  RoundAxes axes;             // the ball's lowest point toward the plane and its centre, a pair's a then b
  Vec3 normal{0, 0, 0};       // unit, pushing b out of a (the plane's normal, or its opposite)
  double depth = 0.0;         // m: r - the centre's height above the plane, plus the skin (< 0: clear of it)
};

// A plane and a sphere, in either order.
bool plane_ball_pair(const Shape& a, const Shape& b);

// The pair (a, b) as a plane and a sphere (either as a), the plane grown by `skin` (m); none for other shapes.
std::optional<PlaneBall> plane_ball(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b,
                                    double skin);

}  // namespace cl::implicit_penalty
