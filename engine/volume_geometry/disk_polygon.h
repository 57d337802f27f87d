// Area and first moment of a polygon's part inside a disk, in closed form: the faces of a box inside a sphere
// (the box's share of the sphere-box intersection boundary, whose integral of the normal is the volume gradient,
// Allard et al. 2010, sect. 3.2) and the box's cross-sections inside a sphere's (the slices of the volume).
#pragma once

#include <span>

#include "core/math.h"

namespace cl::vg {

struct PlaneArea {
  double area = 0;                // m^2
  Vec2 moment = Vec2::Zero();     // integral of the point over the area, m^3 (centroid = moment / area)
};

// The part of the polygon (vertices counter-clockwise) inside the disk of the given centre and radius, as the sum
// over the edges of the triangle (centre, p_i, p_i+1) cut by the disk: the edge's pieces inside the circle give
// triangles, its pieces outside give circular sectors. Exact up to rounding for any simple polygon.
PlaneArea polygon_in_disk(std::span<const Vec2> polygon, const Vec2& centre, double radius);

// The same for the rectangle [-hu, hu] x [-hv, hv].
PlaneArea rectangle_in_disk(double hu, double hv, const Vec2& centre, double radius);

}  // namespace cl::vg
