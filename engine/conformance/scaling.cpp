#include "conformance/scaling.h"

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace cl::conformance {

namespace {

using nlohmann::json;

[[noreturn]] void unscalable(const std::string& where, const std::string& key) {
  throw std::runtime_error("the sweep cannot scale " + where + "/" + key + " (no rule for it in conformance/scaling)");
}

// Every key of `object` must be one of `known`.
void only(const json& object, const std::string& where, const std::set<std::string>& known) {
  for (const auto& [key, value] : object.items())
    if (!known.count(key)) unscalable(where, key);
}

void times(json& value, double factor) {
  if (value.is_array()) {
    for (json& x : value) x = x.get<double>() * factor;
  } else {
    value = value.get<double>() * factor;
  }
}

void scale_body(json& body, const std::string& where, const Scale& s) {
  only(body, where,
       {"name", "shape", "fixed", "kinematic", "density", "mass", "position", "orientation", "linear_velocity",
        "angular_velocity", "material"});
  json& shape = body["shape"];
  only(shape, where + "/shape", {"type", "normal", "offset", "radius", "half_extents", "half_height"});
  for (const char* length : {"offset", "radius", "half_extents", "half_height"})
    if (shape.contains(length)) times(shape[length], s.length);
  if (body.contains("position")) times(body["position"], s.length);
  if (body.contains("density")) times(body["density"], s.mass / (s.length * s.length * s.length));
  if (body.contains("mass")) times(body["mass"], s.mass);
  if (body.contains("linear_velocity")) times(body["linear_velocity"], s.speed());
  if (body.contains("angular_velocity")) times(body["angular_velocity"], 1.0 / s.time());
}

void scale_joint(json& joint, const std::string& where, const Scale& s) {
  only(joint, where, {"name", "type", "bodies", "anchor", "axis", "axis2", "coordinate", "limits", "motor", "erp"});
  times(joint["anchor"], s.length);
  const bool slider = joint["type"] == "slider";
  // A slider's coordinate is a length, the others' are angles.
  if (slider && joint.contains("coordinate")) times(joint["coordinate"], s.length);
  if (slider && joint.contains("limits")) {
    only(joint["limits"], where + "/limits", {"lower", "upper"});
    times(joint["limits"]["lower"], s.length);
    times(joint["limits"]["upper"], s.length);
  }
  if (joint.contains("motor")) {
    json& motor = joint["motor"];
    only(motor, where + "/motor", {"speed", "max_force"});
    times(motor["speed"], slider ? s.speed() : 1.0 / s.time());
    times(motor["max_force"], slider ? s.mass : s.mass * s.length);
  }
}

}  // namespace

nlohmann::json scaled_scene(const nlohmann::json& doc, const Scale& scale, double dt) {
  json out = doc;
  only(out, "", {"format", "name", "description", "topic", "gravity", "dt", "materials", "bodies", "joints"});
  out["dt"] = dt;
  if (out.contains("bodies"))
    for (size_t i = 0; i < out["bodies"].size(); ++i)
      scale_body(out["bodies"][i], "/bodies/" + std::to_string(i), scale);
  if (out.contains("joints"))
    for (size_t i = 0; i < out["joints"].size(); ++i)
      scale_joint(out["joints"][i], "/joints/" + std::to_string(i), scale);
  return out;
}

}  // namespace cl::conformance
