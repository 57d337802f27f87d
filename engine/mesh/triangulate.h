// Triangulation of the polygon faces of mesh files (OBJ and OFF).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/math.h"

namespace cl {

// The most corners a polygon may have. Past a few tens of thousands the fan triangles next to the first corner
// are slivers that the mesh checks refuse as degenerate anyway.
constexpr int kMaxPolygonCorners = 65536;
// The largest polygon ear-clipped (time quadratic in the corners, with a check that no two edges cross);
// convex polygons, and any polygon star-shaped about its first corner, are triangulated in linear time.
constexpr int kMaxConcavePolygonCorners = 10000;

// Triangulates the polygon whose corners are `vertices[corners[i]]`, in order, appending triangles with the
// polygon's winding to `out`. The polygon is projected onto the plane of its Newell normal. A triangle is
// taken as is; a quad is split along its shorter diagonal; a convex polygon (or one star-shaped about its
// first corner) becomes a fan from its first corner (linear time); any other simple polygon is ear-clipped. Returns "" on success, else why the polygon
// cannot be triangulated (self-intersecting, no area, or too many corners for ear clipping).
std::string triangulate_polygon(const std::vector<Vec3>& vertices, const std::vector<int>& corners,
                                std::vector<std::array<int, 3>>& out);

}  // namespace cl
