// Intersection volumes of convex primitive pairs and their gradients in closed form, for the `volume` method
// (Allard et al. 2010) on the shapes where no depth image is needed: the paper's V and J_V = dV/dq (sect. 3-4)
// computed exactly instead of from layered depth images (sect. 3.2), which keep the meshes.
//
// The gradient of V = |A n B| with respect to one body's rigid motion is an integral over that body's part of the
// intersection's boundary, S_b (the part of its surface inside the other): moving a surface point p outwards by
// dp . n_b grows the volume by that much per unit area, so dV/dx_b = int_S_b n_b dA and
// dV/dtheta_b = int_S_b (p - c_b) x n_b dA (the chain rule of sect. 3.2 applied to the surface, eq. 12-14 in the
// limit of infinitely small pixels). Eq. 20 likewise: S = int_S_b A dA with A = n . n_b, M = int_S_b A (p - c_b) dA.
//  - box-box, box-plane: the intersection is a convex polyhedron (convex_polyhedron.h, one box cut by the other's
//    face planes or by the plane); each face lies on one body, and the integrals are sums over faces of area
//    times normal, centroid and A.
//  - sphere-plane, sphere-sphere: a spherical cap and a lens; the integrals over caps in closed form.
//  - sphere-box: the box's faces inside the sphere are rectangles cut by disks (disk_polygon.h), which give the
//    gradient in closed form (the sphere's is minus the box's: translating both leaves V; every normal of a sphere
//    passes through its centre, so its dV/dtheta is zero); the volume by Gauss-Legendre quadrature of the
//    box's cross-sections inside the sphere, to rounding error (piecewise analytic between the radii at which the
//    circle meets the section's edge lines and corners, which bound the pieces).
//
// Multi-volume (sect. 5) splits the intersection into parts with constraints of their own, so that the pressure
// can differ across a contact (a box resting on a face then resists rocking: with one volume it turns freely
// about the contact centre). The paper cuts by a world grid of cells aligned with the images; for a polyhedral
// intersection the parts here are columns along the contact normal n, 3 x 3 over its extent in the contact plane,
// the outer ones a `rim` fraction of it wide. Columns along n are eq. 24 exactly: no wall crosses a column, so
// each part's gradient is its two surfaces' (equal and opposite, along n, with the strength of its footprint,
// m^2), at its centroid. The rim columns are where the pressure goes when a body tips, and hold it within
// 1 - rim of its contact's width (a 10 cm grid holds a 1 m box within 90 % and a 10 cm box not at all);
// nine parts keep the velocity MLCP about as small as point contacts at a face's corners, whatever the size. A
// sphere's cap or lens stays one volume (its pressure passes through the centre whatever its distribution: the
// reason for the solver's sphere_region_rows).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/shape.h"
#include "ldi/volume_contact.h"
#include "volume_geometry/convex_polyhedron.h"

namespace cl::vg {

// One body as the kernel sees it: its shape and world pose (centre of mass at `position`).
struct PosedShape {
  const Shape* shape = nullptr;
  Vec3 position = Vec3::Zero();
  Mat3 rotation = Mat3::Identity();
};

struct ExactOptions {
  bool multi_volume = false;
  double rim = 0.1;  // multi-volume: the rim columns' width, a fraction of the intersection's extent (0, 0.5]
};

// Whether the pair has a closed-form kernel: plane, sphere and box with each other, except two planes.
bool has_exact_volume(ShapeType a, ShapeType b);

// A piece of a body's part of the intersection boundary, for drawing: its centroid and its term of dV/dx (m^2).
struct BoundaryTerm {
  Vec3 position = Vec3::Zero();
  Vec3 gradient = Vec3::Zero();
};

class ExactResult {
 public:
  bool overlap = false;       // the intersection has a volume
  ldi::VolumeContact mono;    // the whole intersection
  std::array<std::vector<BoundaryTerm>, 2> boundary;  // per body: its boundary pieces (they sum to dV/dx)
  // Multi-volume: one per column with a part of the intersection, `cell` = (i, j, 0) its column along the two
  // tangents of tangent_basis(normal), ordered by j, then i (one for a cap or lens, cell (0, 0, 0)). Empty unless
  // options.multi_volume.
  std::span<const ldi::VolumeContact> cells() const { return {cells_.data(), num_cells_}; }
  // The world bounds of each cell's part, for drawing (a cap's or lens's: the point of its centroid).
  std::span<const Aabb> cell_bounds() const { return {bounds_.data(), num_cells_}; }

 private:
  friend class ExactVolume;
  std::vector<ldi::VolumeContact> cells_;  // storage: only the first num_cells_ are valid
  std::vector<Aabb> bounds_;
  std::size_t num_cells_ = 0;
};

// The workspace (polyhedra reused from call to call). One per thread of the caller.
class ExactVolume {
 public:
  // The intersection of a and b (normal from a to b). False when the pair has no closed-form kernel
  // (has_exact_volume); then `out` is cleared.
  bool compute(const PosedShape& a, const PosedShape& b, const ExactOptions& options, ExactResult& out);

 private:
  ConvexPolyhedron intersection_, slab_, part_;
  struct Part {
    double volume, footprint, deepest;
    Vec3 centroid;
    std::array<int, 3> cell;
    Aabb bounds;
  };
  std::vector<Part> parts_;
  void polyhedron_contact(const Vec3 (&centre)[2], ExactResult& out) const;
  void polyhedron_columns(const Vec3 (&centre)[2], double rim, ExactResult& out);
  ldi::VolumeContact& next_cell(ExactResult& out, const Aabb& bounds) const;
};

// The interval [t0, t1] of the line origin + t e_axis inside the shape (false when the line misses it). For
// drawing what the exact kernels integrate, sampled as the images would.
bool line_inside(const PosedShape& s, const Vec3& origin, int axis, double& t0, double& t1);

}  // namespace cl::vg
