// The scene checks and conversions every peer shares (peer.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/text.h"
#include "scene/mesh_source.h"
#include "scene/mjcf_writer.h"
#include "joints.h"
#include "peer.h"

namespace peers {

namespace {

std::string body_label(const cl::World& world, size_t i) {
  return "body '" + cl::escape_for_message(world.bodies[i].name) + "' (/bodies/" + std::to_string(i) + ")";
}

// Whether an inertia tensor is diagonal, to a billionth of its trace.
bool diagonal(const cl::Mat3& inertia) {
  const double off = std::max({std::abs(inertia(0, 1)), std::abs(inertia(0, 2)), std::abs(inertia(1, 2))});
  return off <= 1e-9 * inertia.trace();
}

}  // namespace

std::string check_convertible(const cl::World& world, const std::string& scene_path, std::string_view engine) {
  const std::string head = cl::escape_for_message(scene_path) + ": " + std::string(engine) + ": ";
  if (engine == "mujoco") {
    // MuJoCo takes what the MJCF writer writes: joints with their drives too, and procedural cylinders.
    std::string why;
    if (cl::world_to_mjcf(world, {}, &why).empty()) return head + why;
    return {};
  }
  // Bullet and ODE have cylinders and joints of their own (joints.h); DART's peer takes neither.
  const bool joints = engine == "bullet" || engine == "ode";
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const cl::Body& b = world.bodies[i];
    if (b.shape.type == cl::ShapeType::Mesh && !joints)
      return head + body_label(world, i) + ": a mesh shape is not converted (" + std::string(engine) +
             " takes planes, boxes, spheres and capsules)";
    if (b.shape.type == cl::ShapeType::Mesh && !cl::procedural_cylinder(b) && !cl::convex_mesh(b))
      return head + body_label(world, i) + ": a mesh that does not bound a convex solid is not converted (" +
             std::string(engine) + " takes planes, boxes, spheres, capsules, procedural cylinders and convex meshes)";
    if (engine == "bullet" && b.is_dynamic() && !diagonal(b.inertia_body))
      return head + body_label(world, i) +
             ": a body whose inertia is not diagonal in its own frame is not converted (bullet takes a body's "
             "inertia about its own axes; a mesh is not turned to its principal axes)";
    if (b.kind == cl::BodyKind::Kinematic)
      return head + body_label(world, i) + ": kinematic bodies are not converted (only fixed and dynamic ones)";
  }
  for (size_t k = 0; k < world.joints.size(); ++k) {
    const cl::Joint& j = world.joints[k];
    const std::string why = joints ? joint_not_converted(j, world.bodies) : "joints are not converted";
    if (!why.empty())
      return head + "joint '" + cl::escape_for_message(j.name) + "' (/joints/" + std::to_string(k) + ") between '" +
             cl::escape_for_message(world.bodies[size_t(j.body_a)].name) + "' and '" +
             cl::escape_for_message(world.bodies[size_t(j.body_b)].name) + "': " + why;
  }
  if (!world.scripts.empty()) return head + "scripts are not converted (/scripts)";
  if (!world.forces.empty()) {
    const int b = world.forces.front().body;
    return head + "applied forces are not converted (/forces/0 on " + body_label(world, size_t(b)) + ")";
  }
  return {};
}

void world_plane(const cl::Body& body, cl::Vec3& normal, double& offset) {
  // Body frame: n . x <= d. World point p = R x + c, so x = R^T (p - c) and n . R^T (p - c) = (R n) . p - (R n) . c.
  normal = body.orientation * body.shape.normal;
  offset = body.shape.offset + normal.dot(body.position);
}

double combined_friction(const cl::World& world, const cl::Body& a, const cl::Body& b) {
  return std::sqrt(world.materials[size_t(a.material)].friction * world.materials[size_t(b.material)].friction);
}

double combined_restitution(const cl::World& world, const cl::Body& a, const cl::Body& b) {
  return std::max(world.materials[size_t(a.material)].restitution, world.materials[size_t(b.material)].restitution);
}

cl::Quat rotation_from_z(const cl::Vec3& to) {
  return cl::Quat::FromTwoVectors(cl::Vec3::UnitZ(), to.normalized());
}

}  // namespace peers
