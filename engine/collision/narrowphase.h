// Narrow phase: contact points between two bodies through a shape-pair dispatch table
// (in the manner of MuJoCo's mjCOLLISIONFUNC[type][type]).
#pragma once

#include "collision/contact.h"
#include "core/body.h"

namespace cl {

// A contact as a collide function reports it: normal from the first shape to the second.
struct ContactPointOut {
  Vec3 position;
  Vec3 normal;
  double depth;
  uint32_t feature;
};

// Appends to `out` the contacts of bodies ia < ib (normal from ia to ib) whose surfaces are closer than
// `margin`. Friction and restitution are left for the caller to fill from the materials.
void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out);

// The signed distance between the surfaces of two bodies as the narrow phase measures it: minus the depth of
// their deepest contact within `margin` (negative while they overlap), or `margin` when no point of the pair is
// closer than that. Exact for the primitives but box-box, whose separating axes give a lower bound; meshes by
// their point shells in the other body's distance field.
double pair_distance(const Body& a, const Body& b, double margin);

// Signed distance from x (box frame) to a box of half extents h; *direction gets the outward direction.
double box_signed_distance(const Vec3& h, const Vec3& x, Vec3* direction);

// Signed distance of a shape at `local` (body frame; negative inside) and its exact gradient there, in the body
// frame: unit for the primitives (whose distances are exact), and for a mesh the RAW derivative of its grid's
// trilinear interpolant (not normalised; its length is at most sqrt 3). False where the gradient is undefined
// (a sphere's centre, a point on a capsule's segment, a vanishing grid gradient).
bool shape_signed_distance(const Shape& s, const Vec3& local, double& phi, Vec3& gradient);

// The box-box generator on its own (thesis sect. 6.3): separating axes with rotation snapping and a face-axis
// preference, edge-edge contacts only when validated, then corners first and edge crossings second.
// Normals point from box a to box b. Returns the number of points appended.
int collide_box_box(const Vec3& pa, const Quat& qa, const Vec3& ha, const Vec3& pb, const Quat& qb, const Vec3& hb,
                    double margin, std::vector<ContactPointOut>& out);

}  // namespace cl
