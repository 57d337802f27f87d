// Collision shapes and their mass properties. Shapes are small values held by each body.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "core/math.h"

namespace cl {

enum class ShapeType : int { Plane = 0, Sphere, Box, Capsule, Mesh };
inline constexpr int kShapeTypeCount = 5;

struct MeshShape;  // collision/mesh_shape.h: a closed triangle mesh with its BVH, distance field, point shell

// What the shape functions below need of a mesh shape: its mass properties and bounds in the body frame. Set
// together with the mesh by set_mesh (collision/mesh_shape.h), so the core never looks inside a MeshShape.
struct MeshProperties {
  double volume = 0.0;                  // m^3
  Mat3 unit_inertia = Mat3::Zero();     // about the centre of mass per kg
  Aabb local_bounds;
  double bounding_radius = 0.0;         // of the vertices about the origin
};

std::string_view shape_type_name(ShapeType t);
std::optional<ShapeType> shape_type_from_name(std::string_view name);

// One struct for all primitive shapes; only the fields of `type` are meaningful.
//  - plane:   the half space { x : normal . x <= offset } in the body frame (normal is unit); fixed bodies only
//  - sphere:  radius, centred on the body origin
//  - box:     half_extents along the body axes
//  - capsule: the segment from -half_height to +half_height along the body y axis, swept by radius
//  - mesh:    a closed triangle mesh, centre of mass at the body origin (shared, immutable)
struct Shape {
  ShapeType type = ShapeType::Sphere;
  Vec3 normal{0, 1, 0};
  double offset = 0.0;
  double radius = 0.5;
  Vec3 half_extents{0.5, 0.5, 0.5};
  double half_height = 0.5;
  std::shared_ptr<const MeshShape> mesh;  // set with set_mesh (collision/mesh_shape.h)
  MeshProperties mesh_properties;          // the mesh's, copied by set_mesh
};

// Volume in m^3 (infinite for planes).
double shape_volume(const Shape& s);
// Body-frame inertia tensor about the centre of mass for unit mass (kg m^2 / kg).
Mat3 shape_unit_inertia(const Shape& s);
// World-space bounding box of the shape at the given pose (planes get a huge finite box).
Aabb shape_aabb(const Shape& s, const Vec3& position, const Quat& orientation);
// Radius of the smallest sphere about the body origin containing the shape (infinite for planes).
double shape_bounding_radius(const Shape& s);
// A bound on the speed of any point of the shape moving at v with angular velocity w about the body origin:
// |v| + |w| times its bounding radius.
double shape_point_speed(const Shape& s, const Vec3& v, const Vec3& w);

}  // namespace cl
