#include "core/body.h"

namespace cl {

const char* body_kind_name(BodyKind kind) {
  switch (kind) {
    case BodyKind::Fixed: return "fixed";
    case BodyKind::Dynamic: return "dynamic";
    case BodyKind::Kinematic: return "kinematic";
  }
  return "unknown";
}

void Body::set_mass_properties(double density_or_zero, double mass_or_zero) {
  density = mass_or_zero > 0 ? 0.0 : density_or_zero;
  if (kind != BodyKind::Dynamic || shape.type == ShapeType::Plane) {
    // Fixed and scripted bodies have infinite mass: zero inverse mass and inertia (thesis sect. 5.2.5).
    mass = 0.0;
    inv_mass = 0.0;
    inertia_body = Mat3::Zero();
    inv_inertia_body = Mat3::Zero();
    inv_inertia_world = Mat3::Zero();
    return;
  }
  mass = mass_or_zero > 0 ? mass_or_zero : density_or_zero * shape_volume(shape);
  inv_mass = 1.0 / mass;
  inertia_body = shape_unit_inertia(shape) * mass;
  inv_inertia_body = inertia_body.inverse();
  update_world_inertia();
}

}  // namespace cl
