// A robot or mechanism read from a URDF or MJCF file (import_urdf.h, import_mjcf.h), before it becomes bodies and
// joints of a scene (model_include.h). Everything here is in the model file's own frame (z up for both formats)
// and units (m, kg, rad), at the file's zero pose: the readers resolve the tree, the default classes and the
// orientation forms, and say where each element came from, so that the include can name the file, the element
// and the line of any problem it finds later.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/math.h"

namespace cl {

// A problem with a model file. what() is "FILE:LINE: <element name="...">: what is wrong" (no LINE where the
// parser gives none).
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where an element of the model file is: its tag, its name attribute (may be empty) and its line (0: unknown).
struct ModelSource {
  std::string element;
  std::string name;
  int line = 0;
};
// "FILE:LINE: <element name="NAME">" (no ":LINE" when the line is unknown, no name attribute when it has none).
std::string model_where(const std::string& file, const ModelSource& source);
[[noreturn]] void model_fail(const std::string& file, const ModelSource& source, const std::string& what);

struct Pose {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
  Vec3 apply(const Vec3& x) const { return orientation * x + position; }
  Pose operator*(const Pose& b) const { return {apply(b.position), (orientation * b.orientation).normalized()}; }
};

// A collision shape of a link. Sizes follow ContactLab's conventions: half extents, radii, half lengths; capsules
// and cylinders lie along the geom's z axis (both formats' convention); a plane is z <= 0 of its frame.
struct ModelGeom {
  enum class Type { Plane, Sphere, Box, Capsule, Cylinder, Mesh };
  Type type = Type::Sphere;
  Pose pose;                     // in the link frame
  Vec3 half_extents = Vec3::Zero();
  double radius = 0;
  double half_length = 0;
  std::string mesh_file;         // absolute path of the mesh file (checked to exist)
  double mesh_scale = 1;
  std::optional<double> density;   // kg/m^3 (MJCF geom density)
  std::optional<double> mass;      // kg (MJCF geom mass)
  std::optional<double> friction;  // the sliding friction coefficient (MJCF friction's first value)
  ModelSource source;
};

struct ModelLink {
  std::string name;
  Pose pose;                       // in the model frame at the zero pose
  std::vector<ModelGeom> geoms;
  std::optional<double> mass;      // kg, from the file's inertial
  std::optional<Vec3> centre_of_mass;  // in the link frame, from the file's inertial
  bool has_inertia = false;        // the file gives an inertia tensor:
  Mat3 inertia = Mat3::Zero();     // kg m^2 about the centre of mass, link axes
  ModelSource source;
};

struct ModelJoint {
  enum class Type { Hinge, Slider, Ball, Fixed, Free };
  Type type = Type::Fixed;
  std::string name;
  int parent = -1;                 // link index; -1 is the model's world
  int child = -1;                  // link index
  Vec3 anchor = Vec3::Zero();      // model frame, zero pose
  Vec3 axis = Vec3::UnitZ();       // model frame, unit
  std::optional<std::pair<double, double>> limits;  // rad or m
  std::optional<double> effort;    // N m or N: URDF effort bound
  std::optional<double> velocity;  // rad/s or m/s: URDF velocity bound
  double damping = 0;              // N m s/rad or N s/m
  ModelSource source;
};

// An MJCF actuator on a joint: motor (force = gear ctrl), velocity (drives the rate to ctrl) or position (a PD
// servo pulling the joint to ctrl with gain kp).
struct ModelActuator {
  enum class Type { Motor, Velocity, Position };
  Type type = Type::Motor;
  std::string name;
  int joint = -1;
  double gear = 1;
  std::optional<std::pair<double, double>> ctrl_range;
  std::optional<std::pair<double, double>> force_range;
  double kp = 0;
  double kv = 0;
  ModelSource source;
};

struct RobotModel {
  std::string file;                  // as opened
  std::string format;                // "urdf" or "mjcf"
  std::string name;                  // the robot's or model's name attribute
  std::vector<ModelGeom> world_geoms;  // MJCF worldbody geoms: fixed
  std::vector<ModelLink> links;      // parents before children
  // The joint of each link to its parent: MJCF gives every link one (a weld for a body without joints), URDF all
  // but the root (which is fixed or free as the scene says).
  std::vector<ModelJoint> joints;
  std::vector<ModelActuator> actuators;
  std::vector<std::string> warnings; // "FILE:LINE: <element>: ..." for what was mapped or left out
  int find_link(const std::string& name) const;
  int find_joint(const std::string& name) const;
};

// The rotation taking `from` to `to` (both unit), and the one taking z to `axis`.
Quat rotation_between(const Vec3& from, const Vec3& to);

}  // namespace cl
