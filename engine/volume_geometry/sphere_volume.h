// The closed forms of a sphere's intersections (exact_volume.h): with a half space (a cap), another sphere (a
// lens) and a box (the box's faces cut by disks; the volume by quadrature of its cross-sections).
#pragma once

#include <array>
#include <vector>

#include "ldi/volume_contact.h"
#include "volume_geometry/exact_volume.h"

namespace cl::vg {

// A sphere (centre c, radius r) and the half space { p : n . p <= d } of a plane body whose centre is
// `plane_centre`; body 0 = the plane, 1 = the sphere. False when they do not overlap.
bool sphere_plane(const Vec3& c, double r, const Vec3& n, double d, const Vec3& plane_centre, ldi::VolumeContact& out,
                  std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid);
// Two spheres; body 0 = the first.
bool sphere_sphere(const Vec3& c0, double r0, const Vec3& c1, double r1, ldi::VolumeContact& out,
                   std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid);
// A sphere and a box (centre, rotation, half extents); body 0 = the sphere, 1 = the box.
bool sphere_box(const Vec3& c, double r, const Vec3& box_centre, const Mat3& box_rotation, const Vec3& half,
                ldi::VolumeContact& out, std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid);

// Volume of the cap of height h of a sphere of radius r, m^3.
double cap_volume(double r, double h);

}  // namespace cl::vg
