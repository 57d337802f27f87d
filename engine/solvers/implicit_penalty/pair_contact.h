// The one contact the world gets for a touching pair of implicit-penalty. The paper's point shells (Xu, Zhao,
// Barbic 2014, sec. 4.1) are the quadrature of a pair's penalty pressure: the solve sums their forces into one
// wrench per pair (eq. 19-20 over the points, "compute contact forces and gradients twice ... and add the
// results"), so the number of world contacts is an implementation matter. One contact per point (about 120 per
// touching pair of boxes and capsules) took a heap of 1,000 bodies past the world's max_contacts
// (scenes/pile1000.json: more than 250,000 at step 50). The pair's contact stands for it in the contact graph,
// the groups, the report and the viewer.
#pragma once

#include <cstdint>
#include <span>

#include "collision/contact.h"
#include "collision/shell_points.h"
#include "core/body.h"

namespace cl::implicit_penalty {

// Key of one penetrating shell point within its pair: the point's index, with bit 31 set for b's points.
inline uint32_t shell_point_key(bool b_points, int index) { return (b_points ? 0x80000000u : 0u) | uint32_t(index); }

// The contact of pair (ia, ib) from its penetrating points (a's in b's field, b's in a's), found against the
// surfaces grown by `skin` (m): at the centroid of the points below the bodies' own surfaces (of all of them,
// when every one is within the skin), along the deepest point's normal (pushing b out of a), with the deepest
// depth below the own surface (negative within the skin) and that point's key as its feature. `ra`, `rb`: the
// bodies' rotation matrices. At least one point is needed.
Contact pair_contact(int ia, int ib, const Body& a, const Mat3& ra, std::span<const PenetratingPoint> a_in_b,
                     const Body& b, const Mat3& rb, std::span<const PenetratingPoint> b_in_a, double skin);

}  // namespace cl::implicit_penalty
