// Contacts of a mesh with any shape by signed distance maps (thesis sect. 6.2): the sample points of
// each body are looked up in the other body's signed distance (the mesh's grid, or a primitive's exact one);
// points closer than the margin become contacts with the distance's gradient as normal. The candidates of a
// pair are reduced to a few spread-out points (the deepest first), so a resting bowl gives a handful of rows.
#pragma once

#include <vector>

#include "collision/narrowphase.h"

namespace cl {

inline constexpr int kMaxMeshContacts = 64;  // per pair, after reduction (a torus lying flat needs its whole ring)

// Collide function for the dispatch table: a (type <= b's type) against b, one of them a mesh; normals
// point from a to b.
void collide_with_mesh(const Body& a, const Body& b, double margin, std::vector<ContactPointOut>& out);

// Keeps at most `keep` of `points` (from index `first` on): the deepest, then repeatedly the one farthest from
// those kept. Deterministic.
void reduce_contacts(std::vector<ContactPointOut>& points, size_t first, int keep);

}  // namespace cl
