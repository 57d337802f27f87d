// Procedural closed triangle meshes, outward-oriented, centred at the origin (lengths in metres).
// Invalid parameters (non-positive sizes, too few segments) give an empty mesh.
#pragma once

#include "mesh/mesh.h"

namespace cl {

// Axis-aligned box [-h, h]; each face split into n x n quads (2 n^2 triangles per face), n >= 1.
TriangleMesh make_box(const Vec3& half_extents, int n = 1);
// UV sphere of radius r: `slices` >= 3 around the z axis, `stacks` >= 2 from pole to pole; single pole vertices.
// Vertices lie on the sphere (the polyhedron is inscribed).
TriangleMesh make_uv_sphere(double r, int slices, int stacks);
// Torus around the z axis: tube centre circle radius R, tube radius r (0 < r < R); `major` >= 3 segments
// around z, `minor` >= 3 around the tube. Vertices lie on the torus surface.
TriangleMesh make_torus(double R, double r, int major, int minor);
// Cylinder about the y axis from -half_height to half_height, radius r, `segments` >= 3 around it; each cap a
// fan around its centre vertex. Vertices lie on the cylinder (the prism is inscribed).
TriangleMesh make_cylinder(double r, double half_height, int segments);
// Tetrahedron with the given corners, reordered if needed so that it is outward; empty if degenerate.
TriangleMesh make_tetrahedron(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

}  // namespace cl
