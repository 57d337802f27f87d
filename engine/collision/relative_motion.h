// How far a pair of bodies has moved relative to each other between two poses: the bound that contact recycling
// (world/contact_recycling.h) and `pid-penalty`'s re-reading of a pair within its step share.
#pragma once

#include "core/math.h"
#include "core/shape.h"

namespace cl {

// The most any point of one body has moved relative to the other from poses (pa0, qa0), (pb0, qb0) to (pa, qa),
// (pb, qb), m: |dt| + 2 sin(theta / 2) r for the relative translation dt and turn theta of the body with the smaller
// bounding radius r, expressed in the other's frame (the conservative advancement bound of Box3D's contact
// recycling). An upper bound on how much any distance between a point of a and a point of b has changed.
double relative_motion(const Shape& a, const Vec3& pa, const Quat& qa, const Vec3& pa0, const Quat& qa0,
                       const Shape& b, const Vec3& pb, const Quat& qb, const Vec3& pb0, const Quat& qb0);

}  // namespace cl
