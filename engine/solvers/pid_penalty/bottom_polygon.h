// The bottom of the volume of penetration (Drumwright, sect. III-A, Fig. 4-5): of a pair's penetrating points,
// those on the polygon built from the deepest inward. Points are taken in decreasing depth; each is projected onto
// the contact plane and kept when it lies outside the polygon of the points kept so far, dropped when it lies
// inside it (an interior point: the forces at the polygon's vertices already hold the pair there). The paper
// grows a star-shaped polygon around its deepest point by binary search on signed angles; we test against the
// convex hull of the kept points, which keeps the same points when the kept ones are in convex position (a flat
// face, an edge, a corner) and at most drops a vertex the paper would keep in a reflex corner.
#pragma once

#include <span>
#include <vector>

#include "core/math.h"

namespace cl::pid_penalty {

// Indices into `points` (world, m) of the bottom of the penetration volume for contact normal `normal` (unit),
// `depth` the penetration of each point (m, larger is deeper), in increasing order. Depths are taken in levels: a
// level runs on while each next point, in decreasing depth, is within 0.2 mm of the one before; within a level
// that is a face (its depths an affine function of the place on the contact plane, to within 0.2 mm) the points
// farthest from the centre of all points come first, so a face lying flat keeps its corners; within a curved level
// (a sphere's cap) the deepest come first, as in the paper; ties in index order, so the result is deterministic.
// A point within `tolerance` (m) of the polygon counts as inside.
// `side` (empty, or one flag per point): the points on a side of the penetration volume rather than its bottom (their
// surface normal nearly across the contact normal; sect. III-A defines the bottom by the surface normal facing the
// contact normal). A level's face test leaves them out when it has other points, and in a face level they come
// after its bottom points: a cylinder's face resting on the ground shares its level with the lowest points of its
// side, 0.4 mm shallower, which made it fail the test and keep every one of its hundreds of points.
std::vector<int> bottom_of_penetration(std::span<const Vec3> points, std::span<const double> depth, const Vec3& normal,
                                       double tolerance = 1e-9, std::span<const bool> side = {});

}  // namespace cl::pid_penalty
