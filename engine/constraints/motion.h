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

// The velocity change over h from gravity and the applied force and torque (thesis eq. 4.19): u* - u. The
// gyroscopic term -w x I w of eq. 4.12 is not here: advance_pose carries it exactly, by holding the world
// angular momentum I w while the body turns (a momentum form of Newton-Euler), which neither gains nor loses
// energy, where a gyroscopic force in the velocity stage either gains it (explicit) or damps tumbling
// (implicit). Zero for bodies that are not dynamic.
BodyVelocity free_velocity_change(const Body& body, const Vec3& gravity, double h);

// Turns a dynamic body over h as a torque-free rigid body with its world angular momentum L = R I R^T w held
// (Euler's equations), and sets w = R' I^-1 R'^T L for its new orientation R'.
void advance_free_rotation(Body& body, double h);

// s(t+h) = s + h S u(t+h) (thesis eq. 6.76): position with the body's current velocity; a dynamic body turns
// with its angular momentum held (advance_free_rotation), a kinematic one about its given angular velocity.
void advance_pose(Body& body, double h);
// Every dynamic and kinematic body (fixed ones never move).
void advance_poses(std::vector<Body>& bodies, double h);

// A position correction s += [dx, dtheta] with a first-order rotation (thesis sect. 4.16).
void displace(Body& body, const Vec3& dx, const Vec3& dtheta);

}  // namespace cl
