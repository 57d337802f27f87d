// The edges and corners of a box's point shell for the physical contact model (our addition to Xu, Zhao and Barbic
// 2014, sect. 4.1 and 6, whose point shells sample the surface evenly). The shared box shell has points at its face
// cells' centres only (collision/shell_points.h), half a cell from every edge; fitted to `box_points` per edge, a
// 6 m plank's cells are 0.75 m long, so a box landing on a corner or an edge has no point inside until it is
// centimetres deep. Those contacts were found only by the world's continuous collision, which put the falling
// body back each step while what rested on it fell on into it (scenes/seesaw.json: 2117 J from 1366 J at step 37).
// The rim adds a point at each corner and along each edge at the face cells' spacing, against planes. A rim point
// belongs to two or three faces; it takes the normal of the one whose outward normal is most opposed to the plane's
// distance gradient there (box_rim_normal), so that a box lying flush on a plane pushes along its face normal.
#pragma once

#include <memory>

#include "collision/shell_points.h"

namespace cl::implicit_penalty {

// The rim of a box of half extents `h` sampled at `spacing` (the box's face shell's): its points in the body frame,
// with each point's normal the sum of the outward normals of its faces (not unit; box_rim_normal picks one).
// Cached per box size and spacing for the life of the process.
std::shared_ptr<const PenaltyShell> box_rim_shell(const Vec3& h, double spacing);

// The outward normal (B's frame) of the face of a rim point whose face normals sum to `faces` (unit axes, B's
// frame) most opposed to the field's gradient `g_b` (in B's frame): max over those faces of -n . g_b.
Vec3 box_rim_normal(const Vec3& faces, const Vec3& g_b);

// The rim points of box B (`box` at x_b, R_b, whose face shell is `faces`) inside a plane `field` (A at x_a, R_a)
// grown by `skin`, appended to `out` with their face normals and indices after the face shell's. Nothing for other
// shapes: against a box's field the rim made scenes/default.json's tumbling boxes, landing corner-first on the
// pyramid, blow up at step 125 (exit 3) instead of gaining energy.
void find_rim_points(const Shape& field, const Vec3& x_a, const Mat3& R_a, const Shape& box, const Vec3& x_b,
                     const Mat3& R_b, const PenaltyShell& faces, std::vector<PenetratingPoint>& out, double skin);

}  // namespace cl::implicit_penalty
