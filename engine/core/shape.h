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
  std::shared_ptr<const MeshShape> mesh;
};

// Volume in m^3 (infinite for planes).
double shape_volume(const Shape& s);
// Body-frame inertia tensor about the centre of mass for unit mass (kg m^2 / kg).
Mat3 shape_unit_inertia(const Shape& s);
// World-space bounding box of the shape at the given pose (planes get a huge finite box).
Aabb shape_aabb(const Shape& s, const Vec3& position, const Quat& orientation);
// Radius of the smallest sphere about the body origin containing the shape (infinite for planes).
double shape_bounding_radius(const Shape& s);

}  // namespace cl
