// Peer engines (Bullet, ODE, MuJoCo) stepping a ContactLab scene, for bench/peers/main.cpp: the interface each
// peer implements, the settings they are matched on, and the scene checks and conversions they share.
//
// A peer is built from a cl::World loaded by ContactLab's own scene loader, so every engine reads the same
// bodies, poses, velocities, masses, inertias, materials, gravity and dt. Planes, boxes, spheres and capsules on
// fixed and dynamic bodies are converted; Bullet and ODE also take procedural cylinders, convex meshes and joints
// (joints.h), MuJoCo what the MJCF writer writes. check_convertible names what is not converted.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "world/world.h"

namespace peers {

// What every engine is matched on (main.cpp sets it from the scene and the command line).
struct PeerSettings {
  int iterations = 10;  // solver iterations per step: Bullet's sequential impulses, ODE's QuickStep, MuJoCo's solver
  double restitution_threshold = 0.5;  // m/s: slower impacts do not bounce (lcp's default, used by ODE)
  double mujoco_max_gb = 3.0;  // MuJoCo 2.2.2 allocates dense constraint arrays; refuse scenes needing more
};

// One body's state read back from a peer, world frame, about its centre of mass.
struct PeerBodyState {
  cl::Vec3 position{0, 0, 0};
  cl::Quat orientation = cl::Quat::Identity();
  cl::Vec3 linear_velocity{0, 0, 0};
  cl::Vec3 angular_velocity{0, 0, 0};
};

// The contacts a step found at its start (before it moved the bodies), as ContactLab's max_penetration and
// mean_penetration count them: depth > 0 is penetration, m.
struct PeerContacts {
  int contacts = 0;
  double max_penetration = 0.0;
  double mean_penetration = 0.0;  // over the penetrating contacts, 0 without
  void add(double depth) {
    ++contacts;
    if (depth > 0) {
      max_penetration = std::max(max_penetration, depth);
      sum_ += depth;
      ++penetrating_;
    }
  }
  void finish() { mean_penetration = penetrating_ > 0 ? sum_ / penetrating_ : 0.0; }

 private:
  double sum_ = 0.0;
  int penetrating_ = 0;
};

class Peer {
 public:
  virtual ~Peer() = default;
  virtual std::string name() const = 0;     // "bullet", "ode", "mujoco"
  virtual std::string version() const = 0;  // e.g. "Bullet 3.24"
  // Builds the engine's world from `world` (already checked by check_convertible). False with a message when
  // the engine cannot hold it (e.g. MuJoCo's preallocated arrays would be too large).
  virtual bool build(const cl::World& world, const PeerSettings& settings, std::string* error) = 0;
  // True when the last build returned false because the engine declined the scene's size (not a failure).
  bool declined() const { return declined_; }
  // Settings of the engine that do not match ContactLab's, one sentence each (printed as notes under the table).
  virtual std::vector<std::string> notes() const { return notes_; }
  // One step of the scene's dt. False with a message when the engine reported a failure (MuJoCo's full contact
  // list, say); non-finite states are caught by the caller.
  virtual bool step(PeerContacts& contacts, std::string* error) = 0;
  // What the engine reports of the run so far, one line (or empty): e.g. the most contacts it held.
  virtual std::string run_summary() const { return {}; }
  // The state of every body, indexed as world.bodies (fixed bodies keep their pose).
  virtual void read_state(std::vector<PeerBodyState>& out) const = 0;

 protected:
  std::vector<std::string> notes_;
  bool declined_ = false;
};

// Puts a peer's state of a body into ContactLab's body (pose and velocities; its world inertia is not updated).
inline void copy_state(const PeerBodyState& from, cl::Body& to) {
  to.position = from.position;
  to.orientation = from.orientation;
  to.linear_velocity = from.linear_velocity;
  to.angular_velocity = from.angular_velocity;
}

// What the peers in this build are (each is compiled in only when its Debian package was found).
std::vector<std::unique_ptr<Peer>> make_peers();

// Empty when every peer can take the scene; else one line naming the scene file, the body (name and JSON path)
// and what is not converted, for the engine named `engine`.
std::string check_convertible(const cl::World& world, const std::string& scene_path, std::string_view engine);

// A fixed plane body's half space in the world frame: normal . x <= offset.
void world_plane(const cl::Body& body, cl::Vec3& normal, double& offset);
// Coulomb friction and restitution of a contact between two materials, as ContactLab combines them: the
// geometric mean of the frictions and the larger restitution.
double combined_friction(const cl::World& world, const cl::Body& a, const cl::Body& b);
double combined_restitution(const cl::World& world, const cl::Body& a, const cl::Body& b);
// The rotation taking the z axis to the unit vector `to` (planes and capsules of engines whose axis is z).
cl::Quat rotation_from_z(const cl::Vec3& to);

}  // namespace peers
