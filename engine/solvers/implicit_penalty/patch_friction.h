// Coulomb friction of the implicit penalty method's physical contact model, one patch per touching pair, at the
// velocity level after the implicit step (our change to the paper's anchors of sec. 4 after Yamane and Nakamura
// [14], which the per_point model keeps).
//
// A pair's penetrating points each delivered in the step the normal impulse h f, f = k |d| - (k h + k_d) v_n,
// the backward Euler force at the end of the step (depth |d| - h v_n, damping -k_d v_n, v_n the separating
// speed along the field's gradient at the new velocities), and none if it leaves (f <= 0). The patch gathers
// them: its normal impulse N = sum h f, its centre c = sum f P / sum f (the centre of the pressure), its normal
// the f-weighted mean of the directions that push b out of a (a ball on a plane: its own surface point facing the
// plane, where it touches a rigid one: a ball sunk by d into a plane, held at the pressure's centre, rolled with
// v = w (r - d), its surface point at r slipping by w d), and its radius r = sum f |P - c|_t / sum f (the
// mean lever of the pressure about c in the tangent plane). Its rows (the shared constraint rows, solved by the
// shared projected Gauss-Seidel): a normal row without Jacobian holding N, two tangent rows at c bounded by
// +-mu N, and a twist row about the normal bounded by +-mu r N, the torsional friction of the pressure if all
// of it slid about c. A patch sliding faster than `slip_speed` (at c; or turning faster than that at r) takes
// the dynamic coefficient.
//
// One row set per pair instead of one per point (before: three rows per point, 11,875 points under a tower of
// ten 1 m boxes, 166 ms of the 173 ms step): the friction's bound is mu times the pair's whole normal force,
// wherever the pressure moves in the patch (a box pushed at its centre over a floor, its load shifted onto its
// leading edge, whose points the per-point rows could leave out, slid a third too fast).
// Points whose own normal is more than 45 degrees from the field's gradient (a side face dipping into the other
// body, a point by the field body's edge) add no friction: a tangent plane about either would hold the bodies'
// approach by friction.
#pragma once

#include <span>
#include <vector>

#include "collision/shell_points.h"
#include "constraints/row.h"
#include "core/body.h"

namespace cl::implicit_penalty {

// One side of a touching pair: the points of `owner` inside the distance field of `field`.
struct PatchSide {
  const std::vector<PenetratingPoint>* points = nullptr;
  int field = -1, owner = -1;
};

struct PatchFrictionSettings {
  double k = 0.0, k_d = 0.0;     // the pair's penalty stiffness and damping per point (N/m, N s/m)
  bool rolls = false;            // a round body (sphere, capsule) in the pair: no tilt rows, it rolls
  // A ball on a plane, whose force comes from its exact depth (plane_ball.h): its normal force at the end of the
  // step (N) in place of its points' sum, and the patch's point, the ball's surface point facing the plane, in
  // place of the centre of their pressure (see patch_friction_rows). normal_force < 0: none given.
  double normal_force = -1.0;
  Vec3 centre{0, 0, 0};
  // Unit, pushing b out of a: the line the pair's force acts along where the method puts it there (two round
  // bodies, a ball and a box: through the centres, round_pair.h) in place of the points' pushes, whose sampled
  // directions tilt it. Zero: the points' pushes.
  Vec3 normal{0, 0, 0};
  double mu = 0.0;               // the pair's friction coefficient
  double dynamic_ratio = 1.0;    // sliding friction over static
  double slip_speed = 0.0;       // m/s: faster than this the patch slides
  double h = 0.0;                // s: the step
};

// Rows per patch: the normal row, two tangent rows, the twist row and the two tilt rows.
inline constexpr int kPatchRows = 6;

// Writes the patch friction rows of the pair (a, b) (a < b: rows move b relative to a) made of `sides`, prepared
// with `masses`, to out[0 .. kPatchRows), the normal row at index `normal_index` of the caller's row list.
// False (nothing written) when no point delivered a normal impulse, or the directions cancel and no normal is given.
bool patch_friction_rows(int a, int b, std::span<const PatchSide> sides, const std::vector<Body>& bodies,
                         const PatchFrictionSettings& s, std::span<const InverseMass> masses, int normal_index,
                         Row* out);

}  // namespace cl::implicit_penalty
