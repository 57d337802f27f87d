#include "replay/edits.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

namespace cl {

namespace {

using json = nlohmann::json;

// Appends every field it is shown to a list of doubles (integers, booleans, characters and enums as their value).
struct Pack {
  std::vector<double>& out;
  template <class T>
  void operator()(const T& v) {
    if constexpr (std::is_same_v<T, Vec3>) {
      out.insert(out.end(), v.data(), v.data() + 3);
    } else if constexpr (std::is_same_v<T, Quat>) {
      out.insert(out.end(), v.coeffs().data(), v.coeffs().data() + 4);
    } else if constexpr (std::is_same_v<T, Mat3>) {
      out.insert(out.end(), v.data(), v.data() + 9);
    } else if constexpr (std::is_enum_v<T>) {
      out.push_back(double(static_cast<std::underlying_type_t<T>>(v)));
    } else {
      static_assert(std::is_arithmetic_v<T>);
      out.push_back(double(v));
    }
  }
};

// Reads the fields back in the same order; `ok` turns false when the list runs out.
struct Unpack {
  const std::vector<double>& in;
  size_t at = 0;
  bool ok = true;
  double next() {
    if (at >= in.size()) {
      ok = false;
      return 0.0;
    }
    return in[at++];
  }
  template <class T>
  void operator()(T& v) {
    if constexpr (std::is_same_v<T, Vec3>) {
      for (int i = 0; i < 3; ++i) v[i] = next();
    } else if constexpr (std::is_same_v<T, Quat>) {
      for (int i = 0; i < 4; ++i) v.coeffs()[i] = next();
    } else if constexpr (std::is_same_v<T, Mat3>) {
      for (int i = 0; i < 9; ++i) v.data()[i] = next();
    } else if constexpr (std::is_enum_v<T>) {
      v = static_cast<T>(static_cast<std::underlying_type_t<T>>(next()));
    } else if constexpr (std::is_same_v<T, bool>) {
      v = next() != 0.0;
    } else {
      static_assert(std::is_arithmetic_v<T>);
      v = static_cast<T>(next());
    }
  }
};

// The fields of each part, in the order the replay format writes them. Everything a step reads or writes and the
// user may change, so that a body, a joint, the settings or the spring set from the list is the one listed.
template <class B, class F>
void body_fields(B& b, F&& f) {
  f(b.kind), f(b.material), f(b.position), f(b.orientation), f(b.linear_velocity), f(b.angular_velocity);
  f(b.density), f(b.mass), f(b.inv_mass), f(b.inertia_body), f(b.inv_inertia_body), f(b.inv_inertia_world);
  f(b.sleeping), f(b.calm_steps), f(b.last_energy), f(b.last_velocity), f(b.force), f(b.torque);
}

template <class J, class F>
void joint_fields(J& j, F&& f) {
  f(j.anchor_a), f(j.anchor_b), f(j.axis_a), f(j.axis_b), f(j.axis2_a), f(j.axis2_b), f(j.relative_rotation);
  f(j.initial_angle);
  f(j.limit.enabled), f(j.limit.lower), f(j.limit.upper);
  f(j.motor.enabled), f(j.motor.speed), f(j.motor.max_force);
  f(j.servo.enabled), f(j.servo.target), f(j.servo.stiffness), f(j.servo.damping), f(j.servo.lower), f(j.servo.upper);
  f(j.servo.max_force), f(j.servo.key_raise), f(j.servo.key_lower), f(j.servo.rate), f(j.servo.coordinate);
  f(j.erp), f(j.cfm);
  f(j.made_from.anchor), f(j.made_from.axis), f(j.made_from.axis2), f(j.made_from.coordinate);
  f(j.made_from.position_a), f(j.made_from.position_b), f(j.made_from.orientation_a), f(j.made_from.orientation_b);
}

template <class S, class F>
void settings_fields(S& s, F&& f) {
  f(s.gravity), f(s.dt), f(s.contact_margin), f(s.max_speed), f(s.max_contacts), f(s.continuous), f(s.threads);
}

template <class D, class F>
void drag_fields(D& d, F&& f) {
  f(d.body), f(d.local_anchor), f(d.target), f(d.stiffness), f(d.damping);
}

template <class T, class Fields>
std::vector<double> packed(const T& value, Fields fields) {
  std::vector<double> out;
  fields(value, Pack{out});
  return out;
}

template <class T, class Fields>
bool unpacked(const std::vector<double>& in, T& value, Fields fields) {
  Unpack u{in};
  fields(value, u);
  return u.ok && u.at == in.size();
}

const auto kBody = [](auto& b, auto&& f) { body_fields(b, f); };
const auto kJoint = [](auto& j, auto&& f) { joint_fields(j, f); };
const auto kSettings = [](auto& s, auto&& f) { settings_fields(s, f); };
const auto kDrag = [](auto& d, auto&& f) { drag_fields(d, f); };

// Bit for bit: -0 and +0 differ, a NaN equals the same NaN (an unset servo coordinate stays unchanged).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// The index in a packed list of the field `member` picks (found once by changing it).
template <class T, class Fields, class Member>
size_t field_index(Fields fields, Member member) {
  T a{};
  const std::vector<double> before = packed(a, fields);
  member(a);
  const std::vector<double> after = packed(a, fields);
  for (size_t i = 0; i < before.size(); ++i)
    if (std::memcmp(&before[i], &after[i], sizeof(double)) != 0) return i;
  return SIZE_MAX;
}

// Whether the packed lists differ only at the given indices.
bool differ_only_at(const std::vector<double>& a, const std::vector<double>& b, std::initializer_list<size_t> at) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) == 0) continue;
    if (std::find(at.begin(), at.end(), i) == at.end()) return false;
  }
  return true;
}

bool same_materials(const std::vector<Material>& a, const std::vector<Material>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || !same_bits({a[i].friction, a[i].restitution}, {b[i].friction, b[i].restitution})) return false;
  return true;
}

bool same_scripts(const std::vector<Script>& a, const std::vector<Script>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Script &x = a[i], &y = b[i];
    if (x.body != y.body || x.timing != y.timing || x.loop != y.loop || x.points.size() != y.points.size() ||
        !same_bits({x.speed, x.start_time}, {y.speed, y.start_time}))
      return false;
    for (size_t k = 0; k < x.points.size(); ++k)
      if (std::memcmp(x.points[k].data(), y.points[k].data(), 3 * sizeof(double)) != 0) return false;
  }
  return true;
}

std::vector<double> param_values(const ParamSet& set) {
  std::vector<double> v;
  for (size_t i = 0; i < set.specs().size(); ++i) v.push_back(set.value(i));
  return v;
}

const size_t kServoTargetField = field_index<Joint>(kJoint, [](Joint& j) { j.servo.target = 1.0; });
const size_t kSleepingField = field_index<Body>(kBody, [](Body& b) { b.sleeping = true; });
const size_t kCalmField = field_index<Body>(kBody, [](Body& b) { b.calm_steps = 1; });

void add_kind(std::string& kinds, const char* kind) {
  if (kinds.find(kind) != std::string::npos) return;
  kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
}

// --- numbers in JSON: exact, with the non-finite ones as words --------------------------------------------------

json number_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

bool number_from_json(const json& j, double& v) {
  if (j.is_number()) {
    v = j.get<double>();
    return true;
  }
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s == "nan") v = std::numeric_limits<double>::quiet_NaN();
  else if (s == "inf") v = std::numeric_limits<double>::infinity();
  else if (s == "-inf") v = -std::numeric_limits<double>::infinity();
  else return false;
  return true;
}

json numbers_json(const std::vector<double>& values) {
  json a = json::array();
  for (double v : values) a.push_back(number_json(v));
  return a;
}

bool numbers_from_json(const json& j, std::vector<double>& out) {
  if (!j.is_array()) return false;
  out.clear();
  for (const json& v : j) {
    double x = 0.0;
    if (!number_from_json(v, x)) return false;
    out.push_back(x);
  }
  return true;
}

json indexed_json(const std::vector<std::pair<int, std::vector<double>>>& parts) {
  json a = json::array();
  for (const auto& [index, values] : parts) a.push_back(json::array({index, numbers_json(values)}));
  return a;
}

bool indexed_from_json(const json& j, std::vector<std::pair<int, std::vector<double>>>& out) {
  if (!j.is_array()) return false;
  for (const json& e : j) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer()) return false;
    std::vector<double> values;
    if (!numbers_from_json(e[1], values)) return false;
    out.emplace_back(e[0].get<int>(), std::move(values));
  }
  return true;
}

}  // namespace

bool Edit::empty() const {
  return bodies.empty() && joints.empty() && !settings && !drag && !materials && !scripts && !solver && !params &&
         !reset_contacts;
}

bool diff_worlds(const World& before, const World& after, Edit& out) {
  Edit e;
  e.step = out.step;
  e.lane = out.lane;
  const size_t n_bodies = std::min(before.bodies.size(), after.bodies.size());
  for (size_t i = 0; i < n_bodies; ++i) {
    std::vector<double> a = packed(before.bodies[i], kBody), b = packed(after.bodies[i], kBody);
    if (same_bits(a, b)) continue;
    add_kind(e.what, differ_only_at(a, b, {kSleepingField, kCalmField}) ? "wake" : "body");
    e.bodies.emplace_back(int(i), std::move(b));
  }
  const size_t n_joints = std::min(before.joints.size(), after.joints.size());
  for (size_t i = 0; i < n_joints; ++i) {
    std::vector<double> a = packed(before.joints[i], kJoint), b = packed(after.joints[i], kJoint);
    if (same_bits(a, b)) continue;
    add_kind(e.what, differ_only_at(a, b, {kServoTargetField}) ? "servo" : "joint");
    e.joints.emplace_back(int(i), std::move(b));
  }
  if (std::vector<double> s = packed(after.settings, kSettings); !same_bits(packed(before.settings, kSettings), s))
    e.settings = std::move(s);
  if (std::vector<double> d = packed(after.drag(), kDrag); !same_bits(packed(before.drag(), kDrag), d)) e.drag = std::move(d);
  if (!same_materials(before.materials, after.materials)) e.materials = after.materials;
  if (!same_scripts(before.scripts, after.scripts)) e.scripts = after.scripts;
  const bool new_solver = before.solver_changes() != after.solver_changes() || before.solver().name() != after.solver().name();
  if (new_solver) e.solver = std::string(after.solver().name());
  std::vector<double> params = param_values(after.solver().params());
  if (new_solver || !same_bits(param_values(before.solver().params()), params)) e.params = std::move(params);
  e.reset_contacts = !new_solver && before.contact_resets() != after.contact_resets();
  if (e.drag) add_kind(e.what, "drag");
  if (e.materials) add_kind(e.what, "material");
  if (e.scripts) add_kind(e.what, "script");
  if (e.settings) add_kind(e.what, "settings");
  if (e.solver) add_kind(e.what, "method");
  else if (e.params) add_kind(e.what, "parameters");
  if (e.reset_contacts) add_kind(e.what, "contacts");
  if (e.empty()) return false;
  out = std::move(e);
  return true;
}

bool apply_edit(World& world, const Edit& e, std::string* error) {
  const auto fail = [&](const std::string& what) {
    if (error) *error = what;
    return false;
  };
  if (e.solver && !world.set_solver(*e.solver, error)) return false;
  if (e.params) {
    ParamSet& set = world.solver().params();
    if (e.params->size() != set.specs().size())
      return fail(std::to_string(e.params->size()) + " parameter values for " + std::string(world.solver().name()) +
                  ", which has " + std::to_string(set.specs().size()));
    for (size_t i = 0; i < e.params->size(); ++i)
      if (!set.set(set.specs()[i].name, (*e.params)[i], error)) return false;
  }
  if (e.settings && !unpacked(*e.settings, world.settings, kSettings)) return fail("the settings do not fit");
  if (e.materials) world.materials = *e.materials;
  if (e.scripts) world.scripts = *e.scripts;
  for (const auto& [i, values] : e.joints) {
    if (i < 0 || size_t(i) >= world.joints.size()) return fail("joint " + std::to_string(i) + " does not exist");
    if (!unpacked(values, world.joints[size_t(i)], kJoint)) return fail("joint " + std::to_string(i) + "'s fields do not fit");
  }
  for (const auto& [i, values] : e.bodies) {
    if (i < 0 || size_t(i) >= world.bodies.size()) return fail("body " + std::to_string(i) + " does not exist");
    if (!unpacked(values, world.bodies[size_t(i)], kBody)) return fail("body " + std::to_string(i) + "'s fields do not fit");
  }
  if (e.drag) {
    DragSpring spring;
    if (!unpacked(*e.drag, spring, kDrag)) return fail("the mouse spring does not fit");
    if (spring.body >= int(world.bodies.size())) return fail("the mouse spring holds a body that does not exist");
    world.set_drag(spring);
  }
  if (e.reset_contacts) world.reset_contacts();
  return true;
}

nlohmann::json edit_to_json(const Edit& e) {
  json j = json::object();
  j["step"] = e.step;
  j["lane"] = e.lane + 1;
  j["what"] = e.what;
  if (e.solver) j["method"] = *e.solver;
  if (e.params) j["parameters"] = numbers_json(*e.params);
  if (e.settings) j["settings"] = numbers_json(*e.settings);
  if (e.materials) {
    json a = json::array();
    for (const Material& m : *e.materials)
      a.push_back({{"name", m.name}, {"friction", number_json(m.friction)}, {"restitution", number_json(m.restitution)}});
    j["materials"] = a;
  }
  if (e.scripts) {
    json a = json::array();
    for (const Script& s : *e.scripts) {
      json points = json::array();
      for (const Vec3& p : s.points) points.push_back(numbers_json({p.x(), p.y(), p.z()}));
      a.push_back({{"body", s.body}, {"points", points}, {"speed", number_json(s.speed)},
                   {"timing", int(s.timing)}, {"loop", s.loop}, {"start_time", number_json(s.start_time)}});
    }
    j["scripts"] = a;
  }
  if (!e.joints.empty()) j["joints"] = indexed_json(e.joints);
  if (!e.bodies.empty()) j["bodies"] = indexed_json(e.bodies);
  if (e.drag) j["drag"] = numbers_json(*e.drag);
  if (e.reset_contacts) j["reset_contacts"] = true;
  return j;
}

bool edit_from_json(const nlohmann::json& j, const std::string& where, Edit& out, std::string* error) {
  Edit e;
  std::string bad;
  const auto numbers = [&](const char* key, std::optional<std::vector<double>>& to) {
    if (!j.contains(key)) return;
    std::vector<double> v;
    if (!numbers_from_json(j[key], v)) bad = key;
    to = std::move(v);
  };
  if (!j.is_object()) bad = "";
  else {
    if (!j.contains("step") || !j["step"].is_number_integer() || j["step"].get<int64_t>() < 0) bad = "step";
    else e.step = j["step"].get<int64_t>();
    if (!j.contains("lane") || !j["lane"].is_number_integer() || j["lane"].get<int>() < 1) bad = "lane";
    else e.lane = j["lane"].get<int>() - 1;
    if (j.contains("what") && j["what"].is_string()) e.what = j["what"].get<std::string>();
    if (j.contains("method")) {
      if (j["method"].is_string()) e.solver = j["method"].get<std::string>();
      else bad = "method";
    }
    numbers("parameters", e.params);
    numbers("settings", e.settings);
    numbers("drag", e.drag);
    if (j.contains("materials")) {
      std::vector<Material> list;
      if (!j["materials"].is_array()) bad = "materials";
      else
        for (const json& m : j["materials"]) {
          Material mat;
          if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("friction") ||
              !m.contains("restitution") || !number_from_json(m["friction"], mat.friction) ||
              !number_from_json(m["restitution"], mat.restitution)) {
            bad = "materials";
            break;
          }
          mat.name = m["name"].get<std::string>();
          list.push_back(mat);
        }
      e.materials = std::move(list);
    }
    if (j.contains("scripts")) {
      std::vector<Script> list;
      if (!j["scripts"].is_array()) bad = "scripts";
      else
        for (const json& s : j["scripts"]) {
          Script script;
          bool ok = s.is_object() && s.contains("body") && s["body"].is_number_integer() && s.contains("points") &&
                    s["points"].is_array() && s.contains("timing") && s["timing"].is_number_integer() &&
                    s.contains("loop") && s["loop"].is_boolean() && s.contains("speed") && s.contains("start_time") &&
                    number_from_json(s["speed"], script.speed) && number_from_json(s["start_time"], script.start_time);
          if (ok) {
            script.body = s["body"].get<int>();
            script.timing = ScriptTiming(s["timing"].get<int>());
            script.loop = s["loop"].get<bool>();
            for (const json& p : s["points"]) {
              std::vector<double> xyz;
              ok = ok && numbers_from_json(p, xyz) && xyz.size() == 3;
              if (ok) script.points.emplace_back(xyz[0], xyz[1], xyz[2]);
            }
          }
          if (!ok) {
            bad = "scripts";
            break;
          }
          list.push_back(std::move(script));
        }
      e.scripts = std::move(list);
    }
    if (j.contains("joints") && !indexed_from_json(j["joints"], e.joints)) bad = "joints";
    if (j.contains("bodies") && !indexed_from_json(j["bodies"], e.bodies)) bad = "bodies";
    if (j.contains("reset_contacts")) {
      if (j["reset_contacts"].is_boolean()) e.reset_contacts = j["reset_contacts"].get<bool>();
      else bad = "reset_contacts";
    }
  }
  if (!bad.empty() || !j.is_object()) {
    if (error) *error = where + (bad.empty() ? "" : "/" + bad) + ": not an edit as this version writes it";
    return false;
  }
  out = std::move(e);
  return true;
}

uint64_t state_hash(const World& world) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  const auto add = [&h](const std::vector<double>& values) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    for (size_t i = 0; i < values.size() * sizeof(double); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  };
  add({world.time(), double(world.step_count())});
  for (const Body& b : world.bodies) add(packed(b, kBody));
  for (const Joint& j : world.joints) add(packed(j, kJoint));
  return h;
}

std::string hash_text(uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace cl
