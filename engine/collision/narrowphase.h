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

// Signed distance from x (box frame) to a box of half extents h; *direction gets the outward direction.
double box_signed_distance(const Vec3& h, const Vec3& x, Vec3* direction);

// The box-box generator on its own (digest 7.5): separating axes with rotation snapping and a face-axis
// preference, edge-edge contacts only when validated, then corners first and edge crossings second.
// Normals point from box a to box b. Returns the number of points appended.
int collide_box_box(const Vec3& pa, const Quat& qa, const Vec3& ha, const Vec3& pb, const Quat& qb, const Vec3& hb,
                    double margin, std::vector<ContactPointOut>& out);

}  // namespace cl
