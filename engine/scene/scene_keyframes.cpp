#include "scene/scene_keyframes.h"

#include <cmath>
#include <limits>
#include <set>

namespace cl {

using namespace scene_io;
using json = nlohmann::json;

namespace {

const std::vector<std::string> kKeyframeKeys = {"name", "lanes"};
const std::vector<std::string> kKeyframeLaneKeys = {"time", "step", "bodies", "servos"};
const std::vector<std::string> kKeyframeBodyKeys = {"name", "position", "orientation", "linear_velocity",
                                                    "angular_velocity", "sleeping"};
const std::vector<std::string> kKeyframeServoKeys = {"joint", "target", "coordinate"};

KeyframeLane read_lane(Reader& r, const json& v, const std::string& path, const World& world) {
  r.object(v, path, "a keyframe lane {\"time\", \"bodies\", ...}");
  r.check_keys(v, path, kKeyframeLaneKeys, "a keyframe lane");
  KeyframeLane lane;
  lane.time = r.number(r.required(v, path, "time", "the time of the state in s"), path + "/time");
  if (const json* s = r.optional(v, "step"))
    lane.step = r.whole_in_range(*s, path + "/step", -9007199254740991.0, 9007199254740991.0, "a whole number of steps");
  if (const json* bodies = r.optional(v, "bodies")) {
    if (!bodies->is_array()) r.expected(path + "/bodies", "an array of body states", *bodies);
    std::set<int> seen;
    for (size_t i = 0; i < bodies->size(); ++i) {
      const std::string at = path + "/bodies/" + std::to_string(i);
      const json& b = (*bodies)[i];
      r.object(b, at, "a body state {\"name\", \"position\", \"orientation\", ...}");
      r.check_keys(b, at, kKeyframeBodyKeys, "a keyframe body");
      const std::string& name = r.string(r.required(b, at, "name", "a body's name"), at + "/name", "a body's name");
      KeyframeLane::BodyState s;
      s.body = world.find_body(name);
      if (s.body < 0) r.fail(at + "/name", "no body named '" + name + "' in the scene");
      if (!seen.insert(s.body).second) r.fail(at + "/name", "body '" + name + "' is given twice");
      s.position = r.vec3(r.required(b, at, "position", "[x, y, z]"), at + "/position");
      s.orientation = r.quaternion(r.required(b, at, "orientation", "[w, x, y, z]"), at + "/orientation");
      if (const json* lv = r.optional(b, "linear_velocity")) s.linear_velocity = r.vec3(*lv, at + "/linear_velocity");
      if (const json* av = r.optional(b, "angular_velocity")) s.angular_velocity = r.vec3(*av, at + "/angular_velocity");
      if (const json* sl = r.optional(b, "sleeping")) s.sleeping = r.boolean(*sl, at + "/sleeping");
      lane.bodies.push_back(s);
    }
  }
  if (const json* servos = r.optional(v, "servos")) {
    if (!servos->is_array()) r.expected(path + "/servos", "an array of servo states", *servos);
    for (size_t i = 0; i < servos->size(); ++i) {
      const std::string at = path + "/servos/" + std::to_string(i);
      const json& s = (*servos)[i];
      r.object(s, at, "a servo state {\"joint\", \"target\"}");
      r.check_keys(s, at, kKeyframeServoKeys, "a keyframe servo");
      // A joint by name, or by its index in /joints when it has none.
      const json& id = r.required(s, at, "joint", "a joint's name (or index)");
      KeyframeLane::ServoState st;
      std::string name;
      if (id.is_string()) {
        name = "named '" + id.get<std::string>() + "'";
        for (size_t j = 0; j < world.joints.size(); ++j)
          if (world.joints[j].name == id.get<std::string>()) st.joint = int(j);
      } else {
        st.joint = int(r.whole_in_range(id, at + "/joint", 0, double(world.joints.size()) - 1, "a joint's name or index"));
        name = std::to_string(st.joint);
      }
      if (st.joint < 0 || !world.joints[size_t(st.joint)].servo.enabled)
        r.fail(at + "/joint", "no joint with a servo " + name + " in the scene");
      st.target = r.number(r.required(s, at, "target", "the servo's target"), at + "/target");
      st.coordinate = std::numeric_limits<double>::quiet_NaN();
      if (const json* c = r.optional(s, "coordinate")) st.coordinate = r.number(*c, at + "/coordinate");
      lane.servos.push_back(st);
    }
  }
  return lane;
}

template <class J>
J vec(const Vec3& v) {
  return J::array({v.x(), v.y(), v.z()});
}

}  // namespace

KeyframeLane keyframe_lane_of(const World& world, double time_offset, int64_t step_offset) {
  KeyframeLane lane;
  lane.time = world.time() - time_offset;
  lane.step = world.step_count() - step_offset;
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const Body& b = world.bodies[i];
    if (b.kind == BodyKind::Fixed) continue;
    lane.bodies.push_back({int(i), b.position, b.orientation, b.linear_velocity, b.angular_velocity, b.sleeping});
  }
  for (size_t j = 0; j < world.joints.size(); ++j) {
    const JointServo& s = world.joints[j].servo;
    if (s.enabled) lane.servos.push_back({int(j), s.target, s.coordinate});
  }
  return lane;
}

void apply_keyframe_lane(World& world, const KeyframeLane& lane) {
  for (const KeyframeLane::BodyState& s : lane.bodies) {
    if (s.body < 0 || s.body >= int(world.bodies.size())) continue;
    Body& b = world.bodies[size_t(s.body)];
    b.position = s.position;
    b.orientation = s.orientation;
    b.linear_velocity = s.linear_velocity;
    b.angular_velocity = s.angular_velocity;
    b.sleeping = s.sleeping;
    b.calm_steps = 0;
    b.last_energy = 0.0;
    b.last_velocity = s.linear_velocity;
    b.force.setZero();
    b.torque.setZero();
    b.update_world_inertia();
  }
  for (const KeyframeLane::ServoState& s : lane.servos) {
    if (s.joint < 0 || s.joint >= int(world.joints.size())) continue;
    world.joints[size_t(s.joint)].servo.target = s.target;
    world.joints[size_t(s.joint)].servo.coordinate = s.coordinate;
  }
  world.set_clock(lane.time, lane.step);
}

void read_keyframes(Reader& r, const json& doc, World& world, std::vector<SceneKeyframe>& out, int* start) {
  *start = -1;
  if (const json* list = r.optional(doc, "keyframes")) {
    if (!list->is_array()) r.expected("/keyframes", "an array of keyframes {\"name\", \"lanes\"}", *list);
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string at = "/keyframes/" + std::to_string(i);
      const json& k = (*list)[i];
      r.object(k, at, "a keyframe {\"name\", \"lanes\"}");
      r.check_keys(k, at, kKeyframeKeys, "a keyframe");
      SceneKeyframe key;
      key.name = r.string(r.required(k, at, "name", "a name"), at + "/name", "a name");
      if (key.name.empty()) r.fail(at + "/name", "expected a non-empty name");
      for (const SceneKeyframe& other : out)
        if (other.name == key.name) r.fail(at + "/name", "keyframe '" + key.name + "' is given twice");
      const json& lanes = r.required(k, at, "lanes", "an array of lane states, lane 1 first");
      if (!lanes.is_array() || lanes.empty() || lanes.size() > 4)
        r.expected(at + "/lanes", "an array of 1 to 4 lane states, lane 1 first", lanes);
      for (size_t l = 0; l < lanes.size(); ++l) key.lanes.push_back(read_lane(r, lanes[l], at + "/lanes/" + std::to_string(l), world));
      out.push_back(std::move(key));
    }
  }
  if (const json* s = r.optional(doc, "start")) {
    const std::string& name = r.string(*s, "/start", "the name of a keyframe");
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].name == name) *start = int(i);
    if (*start < 0) r.fail("/start", "no keyframe named '" + name + "' in /keyframes");
    apply_keyframe_lane(world, out[size_t(*start)].lanes[0]);
  }
}

template <class J>
J keyframes_json_as(const World& world, const std::vector<SceneKeyframe>& keyframes) {
  J list = J::array();
  for (const SceneKeyframe& k : keyframes) {
    J lanes = J::array();
    for (const KeyframeLane& lane : k.lanes) {
      J l = J::object();
      l["time"] = lane.time;
      l["step"] = lane.step;
      J bodies = J::array();
      for (const KeyframeLane::BodyState& s : lane.bodies) {
        if (s.body < 0 || s.body >= int(world.bodies.size())) continue;
        J b = J::object();
        b["name"] = world.bodies[size_t(s.body)].name;
        b["position"] = vec<J>(s.position);
        b["orientation"] = J::array({s.orientation.w(), s.orientation.x(), s.orientation.y(), s.orientation.z()});
        b["linear_velocity"] = vec<J>(s.linear_velocity);
        b["angular_velocity"] = vec<J>(s.angular_velocity);
        if (s.sleeping) b["sleeping"] = true;
        bodies.push_back(b);
      }
      l["bodies"] = bodies;
      if (!lane.servos.empty()) {
        J servos = J::array();
        for (const KeyframeLane::ServoState& s : lane.servos) {
          if (s.joint < 0 || s.joint >= int(world.joints.size())) continue;
          J j = J::object();
          const std::string& name = world.joints[size_t(s.joint)].name;
          if (name.empty()) j["joint"] = s.joint;
          else j["joint"] = name;
          j["target"] = s.target;
          if (std::isfinite(s.coordinate)) j["coordinate"] = s.coordinate;
          servos.push_back(j);
        }
        l["servos"] = servos;
      }
      lanes.push_back(l);
    }
    J key = J::object();
    key["name"] = k.name;
    key["lanes"] = lanes;
    list.push_back(key);
  }
  return list;
}

template nlohmann::json keyframes_json_as<nlohmann::json>(const World&, const std::vector<SceneKeyframe>&);
template nlohmann::ordered_json keyframes_json_as<nlohmann::ordered_json>(const World&, const std::vector<SceneKeyframe>&);

}  // namespace cl
