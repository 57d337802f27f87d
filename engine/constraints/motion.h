// Rigid-body motion shared by the solvers: the free velocity a step gives a body before constraints act, and
// the position updates that follow a velocity solve or a position correction.
#pragma once

#include <vector>

#include "core/body.h"

namespace cl {

// A body's velocity, or a change of it, or (in a position stage) its displacement: linear, angular.
struct BodyVelocity {
  Vec3 v = Vec3::Zero();
  Vec3 w = Vec3::Zero();
};

// The velocity change over h from gravity, the applied force and torque and the gyroscopic term -w x I w
// (thesis eqs. 4.12, 4.19): u* - u. The gyroscopic term is integrated implicitly, by one Newton step on
// I (w' - w) + h w' x I w' = h tau in the body frame (Catto, "Numerical methods", GDC 2015; Bullet's implicit
// gyroscopic force): the explicit form gains energy on elongated bodies until they spin up without bound; the
// implicit step never gains energy, at the price of damping the precession of a freely tumbling body over a
// few hundred steps when w h is large. Zero for bodies that are not dynamic.
BodyVelocity free_velocity_change(const Body& body, const Vec3& gravity, double h);

// s(t+h) = s + h S u(t+h) (thesis eq. 6.76): position and finite rotation with the body's current velocity.
void advance_pose(Body& body, double h);
// Every dynamic and kinematic body (fixed ones never move).
void advance_poses(std::vector<Body>& bodies, double h);

// A position correction s += [dx, dtheta] with a first-order rotation (digest 4.14).
void displace(Body& body, const Vec3& dx, const Vec3& dtheta);

}  // namespace cl
