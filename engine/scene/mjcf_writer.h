// A world written as MJCF (MuJoCo's XML), for running ContactLab scenes in MuJoCo (bench/peers): fixed bodies
// become world geoms, dynamic bodies a tree of MJCF bodies along their joints (a body joined to a fixed one hangs
// from the world by that joint, the others float on free joints), each with ContactLab's mass and inertia at its
// centre of mass, its material's friction, and its joint's range, motor (a velocity actuator whose force is bound
// by max_force) or servo (a position actuator with the servo's stiffness, its damping as joint damping, a rigid
// hinge servo as a joint equality). The controls go in a keyframe named "contactlab".
//
// Procedural cylinders are written as MJCF cylinders, meshes that bound a convex solid as MJCF meshes with their
// vertices in the file (MuJoCo collides a mesh's convex hull, so it is that mesh). Not written (an error naming the
// body or joint): kinematic bodies, scripts, applied forces, meshes that are not convex, hinge-2 and universal
// joints, joints between two dynamic bodies that close a loop, and a second joint to a fixed body.
#pragma once

#include <string>

#include "world/world.h"

namespace cl {

struct MjcfWriteOptions {
  int iterations = 0;           // <option iterations>; 0: MuJoCo's default
  long long nconmax = 0;        // <size nconmax njmax nstack>; 0: not written
  long long njmax = 0;
  long long nstack = 0;
  // A ContactLab motor is a velocity constraint bound by max_force; MuJoCo's velocity actuator is a damper
  // kv (ctrl - rate) clamped to the same bound. kv is chosen so the bound is reached at this speed error.
  double motor_speed_error = 0.05;  // rad/s or m/s
};

// The MJCF text, or "" with *error saying what cannot be written.
std::string world_to_mjcf(const World& world, const MjcfWriteOptions& options, std::string* error);

}  // namespace cl
