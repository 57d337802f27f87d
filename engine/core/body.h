// Rigid bodies: state, mass properties and the kind of motion they follow.
#pragma once

#include <string>

#include "core/math.h"
#include "core/shape.h"

namespace cl {

// Fixed bodies never move. Dynamic bodies obey Newton-Euler. Kinematic (scripted) bodies move with the
// velocity they are given: they push dynamic bodies and are never pushed back (infinite mass, thesis sect. 5.2.5).
enum class BodyKind : int { Fixed = 0, Dynamic, Kinematic };
const char* body_kind_name(BodyKind kind);  // "fixed", "dynamic", "kinematic"

struct Material {
  std::string name = "default";
  double friction = 0.5;     // Coulomb coefficient, dimensionless, >= 0
  double restitution = 0.0;  // Newton coefficient, dimensionless, in [0, 1]
};

struct Body {
  std::string name;
  Shape shape;
  BodyKind kind = BodyKind::Dynamic;
  int material = 0;  // index into World::materials

  // State (world frame, about the centre of mass, which is the body origin).
  Vec3 position{0, 0, 0};
  Quat orientation = Quat::Identity();
  Vec3 linear_velocity{0, 0, 0};
  Vec3 angular_velocity{0, 0, 0};

  // Mass properties. `density` is kept when the scene gave one so the scene saves back the same way.
  double density = 0.0;  // kg/m^3, 0 when the mass was given directly
  double mass = 0.0;     // kg (0 for fixed and kinematic bodies)
  double inv_mass = 0.0;
  Mat3 inertia_body = Mat3::Zero();
  Mat3 inv_inertia_body = Mat3::Zero();
  Mat3 inv_inertia_world = Mat3::Zero();

  // Sleepy policy (thesis sect. 6.5): a sleeping body is not simulated until something wakes it.
  bool sleeping = false;
  int calm_steps = 0;         // consecutive steps passing the sleep tests
  double calm_energy = 0.0;   // kinetic energy at the first of those steps, J
  double last_energy = 0.0;   // kinetic energy at the previous step, J
  Vec3 last_velocity{0, 0, 0};  // linear velocity at the previous step, m/s

  // External force and torque applied during the next step (cleared after it), besides gravity.
  Vec3 force{0, 0, 0};
  Vec3 torque{0, 0, 0};

  bool is_dynamic() const { return kind == BodyKind::Dynamic; }
  Mat3 rotation() const { return orientation.toRotationMatrix(); }
  Vec3 velocity_at(const Vec3& world_point) const {
    return linear_velocity + angular_velocity.cross(world_point - position);
  }
  Mat3 inertia_world() const { const Mat3 r = rotation(); return r * inertia_body * r.transpose(); }
  void update_world_inertia() { const Mat3 r = rotation(); inv_inertia_world = r * inv_inertia_body * r.transpose(); }

  // Sets mass and inertia from the shape: from `density` if mass <= 0, else scaled to `mass`.
  // Fixed and kinematic bodies get zero inverse mass and inertia.
  void set_mass_properties(double density_or_zero, double mass_or_zero);
};

// Two bodies by index, a < b: a broad-phase pair, a contact pair, or the pair a joint joins.
struct BodyPair {
  int a, b;
  bool operator==(const BodyPair&) const = default;
  bool operator<(const BodyPair& o) const { return a != o.a ? a < o.a : b < o.b; }
};

}  // namespace cl
