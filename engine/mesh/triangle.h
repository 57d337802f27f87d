// Tests on single triangles: the closest point, a ray hit, the overlap of two triangles and the solid angle
// one subtends, for the BVH's queries (mesh/bvh.h) and whoever needs one triangle at a time.
#pragma once

#include "core/math.h"

namespace cl {

// Which feature of the triangle the closest point lies on.
enum class TriangleFeature : int { Face = 0, Edge, Vertex };

// Closest point on triangle (a, b, c) to p (Ericson 5.1.5), with the feature it lies on (local index as above;
// for Vertex, the local corner 0..2).
Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, TriangleFeature* feature,
                               int* local_index);
// Moeller-Trumbore ray/triangle intersection, two-sided. Returns true with t in [t_min, t_max] and barycentrics.
bool ray_triangle(const Vec3& origin, const Vec3& dir, const Vec3& a, const Vec3& b, const Vec3& c, double t_min,
                  double t_max, double* t, double* u, double* v);
// Do two (closed) triangles intersect or touch? Separating-axis test over the face normals, the 9 edge-edge
// cross products and, for (near-)coplanar pairs, the in-plane edge normals.
bool triangles_overlap(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                       const Vec3& b2);
// Solid angle of triangle (a, b, c) seen from p, signed (positive when p sees the counter-clockwise side's
// back, i.e. p lies behind the outward face), in steradians (van Oosterom-Strackee).
double triangle_solid_angle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

}  // namespace cl
