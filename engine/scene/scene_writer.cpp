// Scene files written: the world and its lanes as a scene file in the format scene.cpp reads (loading it back gives
// the same world), the lanes' sidecar of a comparison, and the final state of the bodies.
#include "scene/scene.h"
#include "core/output_file.h"
#include "core/text.h"
#include "solvers/registry.h"

#include "collision/mesh_shape.h"
#include "scene/mesh_source.h"
#include "scene/scene_forces.h"
#include "scene/scene_joints.h"
#include "scene/scene_reader.h"
#include "scene/scene_scripts.h"

#include <cmath>
#include <cstdint>
#include <exception>

namespace cl {
namespace {

using namespace scene_io;
using json = nlohmann::json;

template <class J>
J param_json(const ParamSpec& spec, double value) {
  switch (spec.kind) {
    case ParamKind::Integer: return J(static_cast<int64_t>(std::llround(value)));
    case ParamKind::Bool: return J(value != 0.0);
    case ParamKind::Choice: {
      const long long i = std::llround(value);
      if (i >= 0 && static_cast<size_t>(i) < spec.choices.size()) return J(spec.choices[static_cast<size_t>(i)]);
      return J(value);
    }
    case ParamKind::Real: break;
  }
  return J(value);
}

template <class J>
J shape_json(const Shape& s) {
  J j = J::object();
  j["type"] = std::string(shape_type_name(s.type));
  switch (s.type) {
    case ShapeType::Plane:
      j["normal"] = vec_json<J>(s.normal);
      j["offset"] = s.offset;
      break;
    case ShapeType::Sphere: j["radius"] = s.radius; break;
    case ShapeType::Box: j["half_extents"] = vec_json<J>(s.half_extents); break;
    case ShapeType::Capsule:
      j["radius"] = s.radius;
      j["half_height"] = s.half_height;
      break;
    case ShapeType::Mesh: {
      const MeshSource source = mesh_source(s.mesh).value_or(MeshSource{});
      if (!source.generator.empty()) {
        j["type"] = source.generator;
        for (const auto& [name, values] : source.params) {
          if (values.size() == 1) j[name] = values[0];
          else j[name] = J{values[0], values[1], values[2]};
        }
      } else {
        j["file"] = source.file;
        j["scale"] = s.mesh->options.scale;
      }
      j["resolution"] = s.mesh->options.sdf_resolution;
      break;
    }
  }
  return j;
}

template <class J>
J body_json(const World& world, const Body& b) {
  J j = J::object();
  j["name"] = b.name;
  j["shape"] = shape_json<J>(b.shape);
  if (b.kind == BodyKind::Fixed) j["fixed"] = true;
  if (b.kind == BodyKind::Kinematic) j["kinematic"] = true;
  if (b.kind == BodyKind::Dynamic) {
    if (b.density > 0) j["density"] = b.density;
    else j["mass"] = b.mass;
  }
  j["position"] = vec_json<J>(b.position);
  j["orientation"] = quat_json<J>(b.orientation);
  // Fixed bodies never move; their (zero) velocities are left out.
  if (b.kind != BodyKind::Fixed || b.linear_velocity != Vec3::Zero()) j["linear_velocity"] = vec_json<J>(b.linear_velocity);
  if (b.kind != BodyKind::Fixed || b.angular_velocity != Vec3::Zero()) {
    j["angular_velocity"] = vec_json<J>(b.angular_velocity);
  }
  const bool valid = b.material >= 0 && static_cast<size_t>(b.material) < world.materials.size();
  j["material"] = valid ? world.materials[static_cast<size_t>(b.material)].name : std::string("default");
  return j;
}

template <class J>
J lanes_json_as(const World& world, std::span<const LaneSpec> lanes) {
  J out = J::array();
  for (const LaneSpec& lane : lanes) {
    J j = J::object();
    j["solver"] = lane.solver;
    // Typed as the scene's params are: the values as the lane's method reads them.
    ParamSet set = world.solver_params_copy(lane.solver);
    J params = J::object();
    for (const auto& [name, text] : lane.params) {
      std::string ignored;
      if (set.set_from_string(name, text, &ignored))
        params[name] = param_json<J>(*set.find(name), *set.get(name));
    }
    if (!params.empty()) j["params"] = params;
    out.push_back(j);
  }
  return out;
}

template <class J>
J world_json(const World& world, std::span<const LaneSpec> lanes = {}, const std::vector<SceneKeyframe>& keyframes = {},
             const std::string& start = {}) {
  J j = J::object();
  j["format"] = kFormat;
  j["name"] = world.name;
  if (!world.description.empty()) j["description"] = world.description;
  if (!world.topic.empty()) j["topic"] = world.topic;
  j["gravity"] = vec_json<J>(world.settings.gravity);
  j["dt"] = world.settings.dt;
  j["contact_margin"] = world.settings.contact_margin;
  if (world.settings.max_speed != WorldSettings{}.max_speed) j["max_speed"] = world.settings.max_speed;
  if (world.settings.max_contacts != WorldSettings{}.max_contacts) j["max_contacts"] = world.settings.max_contacts;
  if (world.settings.continuous != WorldSettings{}.continuous) j["continuous"] = world.settings.continuous;
  if (world.settings.threads != WorldSettings{}.threads) j["threads"] = world.settings.threads;

  if (!world.methods.empty()) j["methods"] = world.methods;
  // The active method with all its parameters; the other methods with those that differ from their defaults.
  J solver = J::object();
  const std::string active(world.solver().name());
  solver["type"] = active;
  J params = J::object();
  const ParamSet& set = world.solver().params();
  const auto specs = set.specs();
  for (size_t i = 0; i < specs.size(); ++i) params[specs[i].name] = param_json<J>(specs[i], set.value(i));
  solver["params"] = params;
  J others = J::object();
  for (const SolverInfo& info : solver_registry()) {
    if (info.name == active || !world.allows_solver(info.name)) continue;  // a refused method's values are moot
    const ParamSet kept = world.solver_params_copy(info.name);
    J changed = J::object();
    for (size_t i = 0; i < kept.specs().size(); ++i) {
      const ParamSpec& spec = kept.specs()[i];
      if (kept.value(i) != spec.default_value) changed[spec.name] = param_json<J>(spec, kept.value(i));
    }
    if (!changed.empty()) others[info.name] = changed;
  }
  if (!others.empty()) solver["params_by_solver"] = others;
  j["solver"] = solver;
  if (!lanes.empty()) j["lanes"] = lanes_json_as<J>(world, lanes);

  J materials = J::object();
  for (const auto& m : world.materials) materials[m.name] = J{{"friction", m.friction}, {"restitution", m.restitution}};
  j["materials"] = materials;

  J bodies = J::array();
  for (const auto& b : world.bodies) bodies.push_back(body_json<J>(world, b));
  j["bodies"] = bodies;
  if (!world.joints.empty()) j["joints"] = joints_json_as<J>(world);
  if (!world.scripts.empty()) j["scripts"] = scripts_json_as<J>(world);
  if (J forces = forces_json_as<J>(world); !forces.empty()) j["forces"] = std::move(forces);
  if (!keyframes.empty()) j["keyframes"] = keyframes_json_as<J>(world, keyframes);
  if (!start.empty()) j["start"] = start;
  return j;
}

}  // namespace

nlohmann::json scene_to_json(const World& world, std::span<const LaneSpec> lanes,
                             const std::vector<SceneKeyframe>& keyframes, const std::string& start) {
  return world_json<nlohmann::json>(world, lanes, keyframes, start);
}

nlohmann::ordered_json params_to_json(const ParamSet& set) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t i = 0; i < set.specs().size(); ++i) j[set.specs()[i].name] = param_json<nlohmann::ordered_json>(set.specs()[i], set.value(i));
  return j;
}

nlohmann::ordered_json lanes_sidecar_json(const std::string& scene_path, std::span<const World* const> lanes,
                                          const std::string& csv_path) {
  nlohmann::ordered_json j;
  j["format"] = 1;
  j["scene"] = scene_path;
  if (!lanes.empty()) {
    j["scene_name"] = lanes[0]->name;
    j["dt"] = lanes[0]->settings.dt;
  }
  j["csv"] = csv_path;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < lanes.size(); ++i) {
    const World& w = *lanes[i];
    list.push_back({{"lane", i + 1}, {"solver", std::string(w.solver().name())}, {"label", lane_label(w)},
                    {"params", params_to_json(w.solver().params())}});
  }
  j["lanes"] = list;
  return j;
}

bool save_scene_file(const World& world, const std::string& path, std::string* error, std::span<const LaneSpec> lanes,
                     const std::vector<SceneKeyframe>& keyframes, const std::string& start) {
  try {
    // Written with keys in the documented order (readable diffs), not nlohmann::json's sorted order.
    const std::string text =
        world_json<nlohmann::ordered_json>(world, lanes, keyframes, start).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    std::string why;
    if (write_output_file(path, text, "scene file", why)) return true;
    if (error) *error = why;
    return false;
  } catch (const std::exception& e) {
    if (error) *error = path + ": cannot save scene: " + e.what();
  } catch (...) {
    if (error) *error = path + ": cannot save scene: unknown error";
  }
  return false;
}

nlohmann::json state_to_json(const World& world) {
  json bodies = json::array();
  for (const auto& b : world.bodies) {
    bodies.push_back({{"name", b.name},
                      {"position", vec_json<json>(b.position)},
                      {"orientation", quat_json<json>(b.orientation)},
                      {"linear_velocity", vec_json<json>(b.linear_velocity)},
                      {"angular_velocity", vec_json<json>(b.angular_velocity)}});
  }
  return json{{"time", world.time()}, {"bodies", bodies}};
}

}  // namespace cl
