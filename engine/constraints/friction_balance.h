// One touching pair's friction impulses moved, without changing what they do to the two bodies, towards the
// distribution that leaves each point's disc the most room: the points' friction as nearly parallel as the pair's
// net force and torque allow, each in proportion to its normal impulse. A face's points are redundant: many sets
// of impulses have the same net force and torque, so the velocities never tell them apart, and a Gauss-Seidel
// sweep leaves whichever its order found, often with opposing sideways parts that cancel on the body (one
// corner's friction takes the tilt of the first sweeps, the next corner's takes it back). Under the box cone that
// costs nothing; in the disc of radius mu lambda_n (Coulomb's law, FrictionCone) each point's sideways part takes
// from what it can give along the slip, so a box released on a slope just steeper than its friction angle got 99 %
// of mu lambda_n in the first step and slid 1.6 times too far. Internal to the constraints layer and its solvers.
#pragma once

#include <span>

#include "core/math.h"

namespace cl {

// Whether a contact's friction, its two tangent impulses, uses so much of its disc (at least 99 % of mu lambda_n)
// that its pair is worth balancing, and is worth it: its whole friction, mu lambda_n, would change the velocity of
// the point (of effective mass 1 / A_nn, its normal row's) by at least least_speed. Elsewhere the disc does not bound
// what the sweeps find, or the friction is too small to matter (the impulses of boxes side by side in a row, 1e-15
// of their weight), and moving the impulses would change nothing but the next step's warm start.
constexpr double kNearDiscEdge = 0.99;
inline bool near_disc_edge(double normal, double tangent1, double tangent2, double mu, double effective_mass,
                           double least_speed) {
  const double radius = kNearDiscEdge * mu * normal, used = tangent1 * tangent1 + tangent2 * tangent2;
  return normal > 0.0 && mu * normal >= least_speed * effective_mass && used > 0.0 && used >= radius * radius;
}

// One contact point of a pair, as the balance reads and writes it. Every point of a pair has the same normal.
struct FrictionPoint {
  Vec3 position = Vec3::Zero();  // the point, from any origin the pair's points share (e.g. a body's centre of mass)
  double normal_impulse = 0.0;   // lambda_n >= 0
  double mu = 0.0;               // the radius of its disc is mu lambda_n
  Vec3 friction = Vec3::Zero();  // its friction impulse, in the tangent plane of the shared normal
};

// Moves the points' friction impulses f_i by d_i with sum d_i = 0 and sum p_i x d_i = 0 (so the bodies' velocities
// do not change), towards f*_i = lambda_n,i G_i^T y: the smallest sum |f_i|^2 / lambda_n,i with the same net force and
// torque, which for a pair that only slides (no twist, every point in one plane) is the net force shared out in
// proportion to the normal impulses. As far along d as keeps every point inside its disc (a point already in its
// disc stays in it). Returns whether any impulse changed. Points with no normal impulse carry no friction and are
// left alone, as are pairs of fewer than two such points. The caller picks the pairs (near_disc_edge).
bool balance_pair_friction(const Vec3& normal, std::span<FrictionPoint> points);

}  // namespace cl
