// Contact between two round bodies (spheres, capsules) in the physical contact model: the pair's penalty force
// along the line between the closest points of their centres or axes, the exact direction of their analytic
// distance, with its gradients (our change to eq. 19; see docs/methods/implicit-penalty.md, "Where it differs
// from the paper"). The magnitude stays the paper's: K times the mean depth of the penetrating shell points
// (eq. 19 and 77). Along each point's own normal (eq. 19) or the field's gradient, a sparse shell's few
// penetrating points sum to a force off the line of centres by the sampling angle: a 0.5 m ball under a 1 m
// ball 8000 times heavier (scenes/two_balls.json) left sideways at 13.8 m/s within two steps.
#pragma once

#include "core/shape.h"
#include "solvers/implicit_penalty/pair_force.h"

namespace cl::implicit_penalty {

// A sphere or a capsule.
bool round_shape(const Shape& s);

// Whether the physical model pushes the pair along one line, through its centres or axes (two round bodies) or from
// the box's closest point to the ball's centre (a ball and a box), rather than along its points' sampled pushes.
bool pushed_along_one_line(const Shape& a, const Shape& b);

// The closest points of two round bodies' centres or axes (world): a sphere's centre, the closest points of two
// capsules' segments (Ericson, Real-Time Collision Detection 5.1.9). Parallel segments have a line of closest
// pairs; the pair at the middle of their overlap is taken, so that two capsules lying side by side are pushed
// through their middles.
struct RoundAxes {
  Vec3 a{0, 0, 0};
  Vec3 b{0, 0, 0};
};
RoundAxes round_axes(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b);

// A ball and a box: the closest point of the box to the ball's centre (world) as `a`, the centre as `b`, the exact
// direction of their analytic distance (Ericson, Real-Time Collision Detection 5.1.4, the point clamped into the box
// in its frame). `outward`: the box's distance gradient at the centre (box_signed_distance); a centre inside the
// box has no direction (a == b), and the pair takes that gradient, its nearest face's normal, instead
// (add_round_pair_force's fallback).
RoundAxes box_ball_axes(const Shape& box, const BodyPose& box_pose, const Vec3& centre, Vec3& outward);

// A ball and a box (either as a): add_round_pair_force along box_ball_axes, with the approximate gradients (our
// change to eq. 19, as for two round bodies). Along the box's gradient at each of the ball's points the points past
// the box's medial planes pushed the other way: a brick's corner 0.25 m deep in the 1 m kinematic ball of
// scenes/scripted_wall_hit.json met 130 N where its 468 points' mean depth gave 2.1 kN. Returns the direction it
// pushed b along (add_round_pair_force).
Vec3 add_box_ball_force(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b, double force,
                        double stiffness, double damping, PairForce& sum);

// Adds the force of the pair (`sum.a` is a, `sum.b` is b; the caller sets them) along the unit n from axes.a to
// axes.b, acting on the line through both points, so that it passes through both centres (axes) and a sphere
// takes no torque from it. With l_a = axes.a - x_a, l_b = axes.b - x_b and the row
//   J = [-n, -(l_a x n), n, l_b x n]           (dD/dq of D = |axes.b - axes.a|, eq. 22-29 with G = n)
// the wrench is (force - damping J . qdot) J (force > 0 pushes the bodies apart, N; qdot = [v_a, w_a, v_b, w_b]),
// d_vel = -damping J J^T (eq. 49-51 for the depth's rate) and d_pos = -stiffness J J^T (each point's depth
// changes as D does: the Gauss-Newton part, eq. 31-34), plus with GradientMode::Exact force dJ/dq: the turning
// of n as the closest points move with their bodies, dn = (I - n n^T) / D (dc_b - dc_a) (the rotating normal,
// eq. 24, 34), and the moving lever arms dl = -[l]x dtheta (eq. 37-40). The closest points move as material
// points of their bodies: a capsule's closest point sliding along its axis is left out (exact for spheres and
// for a clamped segment end). Damping position terms are left out, as add_depth_damping leaves them out.
// Coincident points (no direction) take `fallback` and no turning terms. Returns the direction it pushed b along
// (zero when it added nothing).
Vec3 add_round_pair_force(const BodyPose& a, const BodyPose& b, const RoundAxes& axes, double force,
                          double stiffness, double damping, GradientMode mode, const Vec3& fallback, PairForce& sum);

}  // namespace cl::implicit_penalty
