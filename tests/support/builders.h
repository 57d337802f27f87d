// Small helpers to build worlds in code for tests and benchmarks.
#pragma once

#include <numbers>
#include <string>

#include "collision/mesh_shape.h"
#include "world/world.h"

namespace cl::test {

inline constexpr double kPi = std::numbers::pi;
inline constexpr double kG = 9.81;  // the magnitude of the scenes' default gravity, m/s^2
// The time steps (s) at which the solvers' laws are checked: the shipped scenes' 1/60 s and coarser and finer ones.
inline constexpr double kTimeSteps[] = {1.0 / 30, 1.0 / 60, 1.0 / 100, 1.0 / 200, 1.0 / 500, 1.0 / 1000};

inline int add_plane(World& w, const Vec3& normal = Vec3(0, 1, 0), double offset = 0.0, int material = 0) {
  Body b;
  b.name = "ground" + std::to_string(w.bodies.size());
  b.kind = BodyKind::Fixed;
  b.shape.type = ShapeType::Plane;
  b.shape.normal = normal.normalized();
  b.shape.offset = offset;
  b.material = material;
  b.set_mass_properties(0, 0);
  w.bodies.push_back(b);
  return int(w.bodies.size()) - 1;
}

inline int add_body(World& w, const Shape& shape, const Vec3& position, double density = 1000.0,
                    const Quat& orientation = Quat::Identity(), int material = 0, BodyKind kind = BodyKind::Dynamic) {
  Body b;
  b.name = "body" + std::to_string(w.bodies.size());
  b.shape = shape;
  b.kind = kind;
  b.position = position;
  b.orientation = orientation;
  b.material = material;
  b.set_mass_properties(density, 0);
  w.bodies.push_back(b);
  return int(w.bodies.size()) - 1;
}

// A body on its own, outside any world, with its world-frame inertia up to date. Fixed and kinematic bodies get
// no mass (`density` is ignored for them).
inline Body make_body(const Shape& shape, const Vec3& position, const Quat& orientation, double density,
                      BodyKind kind = BodyKind::Dynamic) {
  Body b;
  b.shape = shape;
  b.kind = kind;
  b.position = position;
  b.orientation = orientation;
  b.set_mass_properties(kind == BodyKind::Dynamic ? density : 0.0, 0.0);
  b.update_world_inertia();
  return b;
}

inline Shape plane_shape(const Vec3& normal = Vec3(0, 1, 0), double offset = 0.0) {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = normal;
  s.offset = offset;
  return s;
}
inline Shape box(const Vec3& half) { Shape s; s.type = ShapeType::Box; s.half_extents = half; return s; }
inline Shape sphere(double r) { Shape s; s.type = ShapeType::Sphere; s.radius = r; return s; }
inline Shape capsule(double r, double hh) { Shape s; s.type = ShapeType::Capsule; s.radius = r; s.half_height = hh; return s; }
// A mesh shape with a distance grid of `resolution` cells along its longest side (MeshShapeOptions); no mesh
// (s.mesh null) when it cannot be built, with the reason in *error.
inline Shape mesh_shape(TriangleMesh m, int resolution, std::string* error) {
  Shape s;
  s.type = ShapeType::Mesh;
  set_mesh(s, make_mesh_shape(std::move(m), MeshShapeOptions{resolution, 1.0}, error));
  return s;
}

inline int add_material(World& w, double friction, double restitution) {
  Material m;
  m.name = "m" + std::to_string(w.materials.size());
  m.friction = friction;
  m.restitution = restitution;
  w.materials.push_back(m);
  return int(w.materials.size()) - 1;
}

}  // namespace cl::test
