// Contact recycling: a pair whose relative pose has barely changed since the narrow phase last computed its
// contacts keeps them, re-projected from where they sit on the two bodies, instead of running the narrow phase
// again (the persistent manifolds of Bullet and PhysX; the bound on the motion is that of Box3D's contact recycling,
// a conservative advancement over the pair's relative transform).
#pragma once

#include "collision/contact.h"
#include "core/body.h"
#include "graph/contact_graph.h"

namespace cl {

// The most any point of one body of the pair has moved relative to the other since the edge's cached poses
// (ContactGraph::remember_placement), m: collision/relative_motion.h.
double relative_motion(const GraphEdge& e, const std::vector<Body>& bodies);

// The motion up to which a pair's contacts are recycled: `distance`, at most a tenth of the thinner body's half
// thickness (as the allowed penetration). Only boxes and planes: their contacts are corners and edge crossings that
// stay on the bodies, where a rolling sphere's or capsule's contact moves over its surface (a 2 cm ball rolling at
// 1/1000 s slipped 6 mm/s with its contact held to the ball), and a mesh's come from its point shell; 0 for them.
double recycle_limit(double distance, const Body& a, const Body& b);

// A contact as the narrow phase last computed it, fixed to the bodies: its point in a's and in b's body frame, its
// normal in a's frame and its depth. The world keeps one beside each contact of its list (World::find_contacts).
struct ContactAnchor {
  Vec3 a{0, 0, 0}, b{0, 0, 0};
  Vec3 normal{0, 1, 0};
  double depth = 0.0;
};

// Fixes contacts the narrow phase just computed for bodies a, b at their current poses to the bodies: the anchor of
// each of [first, last) into out[0, last - first).
void anchor_contacts(const Body& a, const Body& b, const Contact* first, const Contact* last, ContactAnchor* out);

// Re-projects anchored contacts to the bodies' current poses, contact [first, last) from anchors[0, last - first):
// the point on each body where it was, the normal turned with a, and the depth changed by how far the two points
// moved apart along it (exact for the same features, off by at most relative_motion for any contact point).
void recycle_contacts(const Body& a, const Body& b, const ContactAnchor* anchors, Contact* first, Contact* last);

}  // namespace cl
