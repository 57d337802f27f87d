// Reading and writing the "joints" array of scene files (format in scene_joints.h).
#include "scene/scene_joints.h"

#include <cmath>
#include <numbers>
#include <string>
#include <unordered_map>
#include <vector>

#include "joints/joint.h"

namespace cl {

namespace {

using namespace scene_io;
using json = nlohmann::json;

const std::vector<std::string> kJointKeys = {"name", "type", "bodies", "anchor", "axis", "axis2", "coordinate",
                                             "limits", "motor", "servo", "erp", "cfm"};
const std::vector<std::string> kLimitKeys = {"lower", "upper"};
const std::vector<std::string> kMotorKeys = {"speed", "max_force"};
const std::vector<std::string> kJointServoKeys = {"target", "stiffness", "damping", "max_force", "range", "keys", "rate"};
constexpr double kMaxServoAngle = 1e4;  // rad (about 1,600 turns): hinge servo targets and ranges
constexpr double kMinAxesAngleDegrees = 10.0;  // hinge2 / universal: axis2 at least this far from parallel

std::vector<std::string> joint_type_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kJointTypeCount; ++i) names.emplace_back(joint_type_name(static_cast<JointType>(i)));
  return names;
}

std::string types_with(bool (*has)(JointType)) {
  std::vector<std::string> names;
  for (int i = 0; i < kJointTypeCount; ++i)
    if (has(static_cast<JointType>(i))) names.emplace_back(joint_type_name(static_cast<JointType>(i)));
  return join(names);
}

std::string a_joint(JointType t) { return "a " + std::string(joint_type_name(t)) + " joint"; }

struct BodyIndex {
  std::unordered_map<std::string, int> index;
  std::vector<std::string> names;
};

int read_body_ref(Reader& r, const json& v, const std::string& path, const BodyIndex& bodies) {
  const std::string& name = r.string(v, path, "the name of a body");
  const auto it = bodies.index.find(name);
  if (it == bodies.index.end()) {
    r.fail(path, "expected the name of a body, got " + in_quotes(name) + ", which names no body" +
                     suggestion(name, bodies.names));
  }
  return it->second;
}

// The key of "keys"/i: one letter a-z or digit 0-9 (either case), returned in lower case; not one of the
// viewer's own shortcuts.
char read_servo_key(Reader& r, const json& v, const std::string& path) {
  const std::string what = "a single letter a-z or digit 0-9";
  const std::string& s = r.string(v, path, what);
  const char c = s.size() == 1 ? s[0] : '\0';
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (!letter && !(c >= '0' && c <= '9')) r.expected(path, what, v);
  const char key = letter && c <= 'Z' ? char(c - 'A' + 'a') : c;
  if (kServoReservedKeys.find(key) != std::string_view::npos) {
    r.expected(path, "a key the viewer does not already use (R resets the scene, F frames it, V switches the comparison view, C follows a body)", v);
  }
  return key;
}

// The servo of a hinge or slider (Xu et al. 2014, eq. 65-66; JointServo in joints/joint.h).
JointServo read_servo(Reader& r, const json& v, const std::string& path, JointType t, bool has_motor) {
  if (!joint_type_has_servo(t)) {
    r.fail(path, "unexpected for " + a_joint(t) + " (it has no servo); \"servo\" is for: " + types_with(joint_type_has_servo));
  }
  if (has_motor) {
    r.fail(path, "unexpected together with \"motor\" (both drive the joint coordinate; use one of them)");
  }
  const bool slider = t == JointType::Slider;
  r.object(v, path, slider ? "an object {\"target\", \"stiffness\", \"damping\", \"range\"}"
                           : "an object {\"target\", \"range\"} (a rigid hinge servo) or {\"target\", \"stiffness\", "
                             "\"damping\", \"max_force\", \"range\"} (a PD torque)");
  r.check_keys(v, path, kJointServoKeys, "\"servo\"");
  JointServo servo;
  servo.enabled = true;

  // Range first: the target must lie within it. Hinge angles count turns (10 pi is five turns).
  const std::string value_what =
      slider ? "a displacement in m (a finite number)"
             : "an angle in [-" + Reader::format_number(kMaxServoAngle) + ", " + Reader::format_number(kMaxServoAngle) +
                   "] rad (it may span many turns)";
  const auto read_value = [&](const json& x, const std::string& p) {
    return slider ? r.number(x, p, value_what) : r.in_range(x, p, -kMaxServoAngle, kMaxServoAngle, value_what);
  };
  if (const json* range = r.optional(v, "range")) {
    const std::string rpath = child(path, "range");
    const std::string what = slider ? "an array [lower, upper] of displacements in m" : "an array [lower, upper] of angles in rad";
    if (!range->is_array() || range->size() != 2) r.expected(rpath, what, *range);
    servo.lower = read_value((*range)[0], child(rpath, size_t(0)));
    servo.upper = read_value((*range)[1], child(rpath, size_t(1)));
    if (servo.upper < servo.lower) {
      r.expected(child(rpath, size_t(1)), "a value >= the lower end (" + Reader::format_number(servo.lower) + ")",
                 (*range)[1]);
    }
  }
  const std::string tpath = child(path, "target");
  const json& target = r.required(v, path, "target", value_what);
  servo.target = read_value(target, tpath);
  if (servo.target < servo.lower || servo.target > servo.upper) {
    r.expected(tpath, "a target within \"range\" [" + Reader::format_number(servo.lower) + ", " +
                          Reader::format_number(servo.upper) + "]",
               target);
  }

  // Gains: the slider's PD force (eq. 65, both required); a hinge servo is the rigid constraint of eq. 66
  // without them and a PD torque with them (either may be left out, then 0).
  for (const char* key : {"stiffness", "damping"}) {
    const bool stiff = key[0] == 's';
    const std::string what = std::string("a non-negative ") +
                             (stiff ? (slider ? "stiffness in N/m" : "stiffness in N m/rad")
                                    : (slider ? "damping in N s/m" : "damping in N m s/rad"));
    const std::string gpath = child(path, key);
    const json* x = slider ? &r.required(v, path, key, what) : r.optional(v, key);
    if (!x) continue;
    const double value = r.number(*x, gpath, what);
    if (value < 0) r.expected(gpath, what, *x);
    (stiff ? servo.stiffness : servo.damping) = value;
  }
  const bool pd = slider || servo.stiffness > 0 || servo.damping > 0;
  if (slider && servo.stiffness == 0.0 && servo.damping == 0.0) {
    r.expected(child(path, "stiffness"), "a positive stiffness or damping (with both 0 the servo does nothing)",
               v["stiffness"]);
  }
  if (const json* f = r.optional(v, "max_force")) {
    const std::string fpath = child(path, "max_force");
    if (!pd) {
      r.fail(fpath, "unexpected for a hinge servo without \"stiffness\" or \"damping\" (it holds the angle as a "
                    "rigid constraint, with whatever torque that takes); give it gains to make it a bounded PD torque");
    }
    const std::string what = slider ? "a positive force in N" : "a positive torque in N m";
    servo.max_force = r.number(*f, fpath, what);
    if (!(servo.max_force > 0)) r.expected(fpath, what, *f);
  }

  // Keyboard control in the viewer: ["raise", "lower"] keys and the rate at which they move the target.
  const json* keys = r.optional(v, "keys");
  if (keys) {
    const std::string kpath = child(path, "keys");
    if (!keys->is_array() || keys->size() != 2) {
      r.expected(kpath, "an array of two keys [\"raise\", \"lower\"] (letters a-z or digits 0-9)", *keys);
    }
    servo.key_raise = read_servo_key(r, (*keys)[0], child(kpath, size_t(0)));
    servo.key_lower = read_servo_key(r, (*keys)[1], child(kpath, size_t(1)));
    if (servo.key_lower == servo.key_raise) {
      r.expected(child(kpath, size_t(1)), "a key other than the raising key " + in_quotes(std::string(1, servo.key_raise)),
                 (*keys)[1]);
    }
  }
  if (const json* rate = r.optional(v, "rate")) {
    const std::string rpath = child(path, "rate");
    if (!keys) r.fail(rpath, "unexpected without \"keys\" (the rate is how fast the keys move the target)");
    const std::string what = slider ? "a positive rate in m/s" : "a positive rate in rad/s";
    servo.rate = r.number(*rate, rpath, what);
    if (!(servo.rate > 0)) r.expected(rpath, what, *rate);
  }
  return servo;
}

Joint read_joint(Reader& r, const json& v, const std::string& path, const World& world, const BodyIndex& bodies) {
  r.object(v, path, "an object describing a joint {\"type\", \"bodies\", \"anchor\", ...}");
  r.check_keys(v, path, kJointKeys, "a joint");

  // Type.
  const std::vector<std::string> types = joint_type_names();
  const std::string type_list = join(types);
  const std::string tpath = child(path, "type");
  const json& tv = r.required(v, path, "type", "a joint type (one of: " + type_list + ")");
  const std::string& tname = r.string(tv, tpath, "a joint type (one of: " + type_list + ")");
  const auto type = joint_type_from_name(tname);
  if (!type) {
    r.fail(tpath, "expected a joint type (one of: " + type_list + "), got " + in_quotes(tname) + suggestion(tname, types));
  }
  const JointType t = *type;

  // Name.
  std::string name;
  if (const json* n = r.optional(v, "name")) {
    name = r.string(*n, child(path, "name"), "a non-empty string");
    if (name.empty()) r.expected(child(path, "name"), "a non-empty string", *n);
  }

  // Bodies.
  const std::string bpath = child(path, "bodies");
  const std::string bwhat = "an array of two body names [\"A\", \"B\"]";
  const json& bv = r.required(v, path, "bodies", bwhat);
  if (!bv.is_array() || bv.size() != 2) r.expected(bpath, bwhat, bv);
  const int a = read_body_ref(r, bv[0], child(bpath, size_t(0)), bodies);
  const int b = read_body_ref(r, bv[1], child(bpath, size_t(1)), bodies);
  const Body& A = world.bodies[size_t(a)];
  const Body& B = world.bodies[size_t(b)];
  if (a == b) {
    r.fail(child(bpath, size_t(1)), "expected a body other than " + in_quotes(A.name) +
                                        " (a joint connects two different bodies), got " + in_quotes(B.name));
  }
  if (!A.is_dynamic() && !B.is_dynamic()) {
    r.fail(bpath, "expected at least one dynamic body, got " + in_quotes(A.name) + " (" + body_kind_name(A.kind) +
                      ") and " + in_quotes(B.name) + " (" + body_kind_name(B.kind) + ")");
  }

  // Geometry.
  const Vec3 anchor = r.vec3(r.required(v, path, "anchor", "an array of 3 numbers [x, y, z]"), child(path, "anchor"));
  Vec3 axis(1, 0, 0), axis2(0, 0, 1);
  const std::string apath = child(path, "axis"), a2path = child(path, "axis2");
  if (joint_type_has_axis(t)) {
    axis = r.direction(r.required(v, path, "axis", "a non-zero direction [x, y, z]"), apath);
  } else if (r.optional(v, "axis")) {
    r.fail(apath, "unexpected for " + a_joint(t) + " (it has no axis); \"axis\" is for: " + types_with(joint_type_has_axis));
  }
  if (joint_type_has_axis2(t)) {
    const json& a2 = r.required(v, path, "axis2", "a non-zero direction [x, y, z]");
    axis2 = r.direction(a2, a2path);
    const double degrees = std::atan2(axis.cross(axis2).norm(), std::abs(axis.dot(axis2))) * 180.0 / std::numbers::pi;
    if (degrees < kMinAxesAngleDegrees) {
      r.fail(a2path, "expected a direction at least 10 degrees from parallel to \"axis\", got " + describe(a2) + " (" +
                         Reader::format_number(degrees) + " degrees)");
    }
  } else if (r.optional(v, "axis2")) {
    r.fail(a2path, "unexpected for " + a_joint(t) + " (it has one axis or none); \"axis2\" is for: " +
                       types_with(joint_type_has_axis2));
  }

  // The coordinate, its limits and the motor.
  const bool angular = t != JointType::Slider;
  const std::string coordinate_types = types_with(joint_type_has_coordinate);
  for (const char* key : {"coordinate", "limits", "motor"}) {
    if (!joint_type_has_coordinate(t) && r.optional(v, key)) {
      r.fail(child(path, key), "unexpected for " + a_joint(t) + " (it has no joint coordinate); \"" + key +
                                   "\" is for: " + coordinate_types);
    }
  }
  double coordinate = 0.0;
  // A hinge's angle may count whole turns (a hinge servo keeps them, see JointServo); the other angles not.
  const double angle_bound = t == JointType::Hinge ? kMaxServoAngle : std::numbers::pi;
  const std::string angle_what = t == JointType::Hinge ? "an angle in [-" + Reader::format_number(kMaxServoAngle) + ", " +
                                                             Reader::format_number(kMaxServoAngle) + "] rad"
                                                       : "an angle in [-pi, pi] rad";
  if (const json* c = r.optional(v, "coordinate")) {
    const std::string cpath = child(path, "coordinate");
    coordinate = angular ? r.in_range(*c, cpath, -angle_bound, angle_bound, angle_what)
                         : r.number(*c, cpath, "a displacement in m (a finite number)");
  }

  Joint j = make_joint(t, world.bodies, a, b, anchor, axis, axis2, coordinate);
  j.name = name;  // make_joint keeps anchor, axes and coordinate as read, so saving is a fixed point

  if (const json* lim = r.optional(v, "limits")) {
    const std::string lpath = child(path, "limits");
    r.object(*lim, lpath, "an object {\"lower\": x, \"upper\": y}");
    r.check_keys(*lim, lpath, kLimitKeys, "\"limits\"");
    const std::string what = angular ? "an angle in [-pi, pi] rad" : "a displacement in m (a finite number)";
    const std::string lo_path = child(lpath, "lower"), hi_path = child(lpath, "upper");
    const json& lo = r.required(*lim, lpath, "lower", what);
    const json& hi = r.required(*lim, lpath, "upper", what);
    const double lower = angular ? r.in_range(lo, lo_path, -std::numbers::pi, std::numbers::pi, what) : r.number(lo, lo_path, what);
    const double upper = angular ? r.in_range(hi, hi_path, -std::numbers::pi, std::numbers::pi, what) : r.number(hi, hi_path, what);
    if (upper < lower) {
      r.expected(hi_path, "a value >= \"lower\" (" + Reader::format_number(lower) + ")", hi);
    }
    j.limit = JointLimit{true, lower, upper};
    if (coordinate < lower || coordinate > upper) {
      r.warn(lpath, "the joint starts outside its limits (coordinate " + Reader::format_number(coordinate) + " not in [" +
                        Reader::format_number(lower) + ", " + Reader::format_number(upper) +
                        "]); it will be pushed to the nearer limit");
    }
  }

  if (const json* mot = r.optional(v, "motor")) {
    const std::string mpath = child(path, "motor");
    r.object(*mot, mpath, "an object {\"speed\": v, \"max_force\": f}");
    r.check_keys(*mot, mpath, kMotorKeys, "\"motor\"");
    const std::string speed_what = angular ? "a speed in rad/s (a finite number)" : "a speed in m/s (a finite number)";
    const std::string force_what = angular ? "a non-negative torque in N m" : "a non-negative force in N";
    const double speed = r.number(r.required(*mot, mpath, "speed", speed_what), child(mpath, "speed"), speed_what);
    const json& f = r.required(*mot, mpath, "max_force", force_what);
    const double max_force = r.number(f, child(mpath, "max_force"), force_what);
    if (max_force < 0) r.expected(child(mpath, "max_force"), force_what, f);
    j.motor = JointMotor{true, speed, max_force};
  }

  if (const json* servo = r.optional(v, "servo")) {
    j.servo = read_servo(r, *servo, child(path, "servo"), t, j.motor.enabled);
    // The hinge angle's whole turns start from the scene's coordinate (the poses give it modulo 2 pi only).
    if (t == JointType::Hinge) j.servo.coordinate = coordinate;
  }

  if (const json* e = r.optional(v, "erp")) j.erp = r.in_range(*e, child(path, "erp"), 0.0, 1.0, "a number in [0, 1]");
  if (const json* c = r.optional(v, "cfm")) {
    j.cfm = r.number(*c, child(path, "cfm"), "a non-negative number");
    if (j.cfm < 0) r.expected(child(path, "cfm"), "a non-negative number", *c);
  }
  return j;
}

}  // namespace

void read_joints(Reader& r, const json& doc, World& world) {
  const json* joints = r.optional(doc, "joints");
  if (!joints) return;
  const std::string path = "/joints";
  if (!joints->is_array()) r.expected(path, "an array of joints", *joints);

  BodyIndex bodies;
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    bodies.index.emplace(world.bodies[i].name, int(i));
    bodies.names.push_back(world.bodies[i].name);
  }
  std::unordered_map<std::string, size_t> index_of_name;
  std::unordered_map<char, std::string> servo_key_owner;  // servo key -> JSON pointer of its first use
  world.joints.reserve(world.joints.size() + joints->size());
  for (size_t i = 0; i < joints->size(); ++i) {
    const std::string jpath = child(path, i);
    Joint j = read_joint(r, (*joints)[i], jpath, world, bodies);
    if (j.servo.enabled && j.servo.key_raise != '\0') {  // a key drives one servo only
      const std::string kpath = child(child(jpath, "servo"), "keys");
      for (size_t k = 0; k < 2; ++k) {
        const char key = k == 0 ? j.servo.key_raise : j.servo.key_lower;
        const std::string here = child(kpath, k);
        const auto [it, inserted] = servo_key_owner.emplace(key, here);
        if (!inserted) {
          r.fail(here, "expected a key no other servo uses, got " + in_quotes(std::string(1, key)) + " (already used by " +
                           it->second + ")");
        }
      }
    }
    if (!j.name.empty()) {
      const auto [it, inserted] = index_of_name.emplace(j.name, i);
      if (!inserted) {
        r.fail(child(jpath, "name"), "expected a unique joint name, got " + in_quotes(j.name) + " (already used by " +
                                         child(path, it->second) + ")");
      }
    }
    world.joints.push_back(std::move(j));
  }
}

template <class J>
J joints_json_as(const World& world) {
  J out = J::array();
  for (const Joint& j : world.joints) {
    const bool valid = j.body_a >= 0 && j.body_b >= 0 && size_t(j.body_a) < world.bodies.size() &&
                       size_t(j.body_b) < world.bodies.size();
    if (!valid) continue;
    const JointDescription d = describe_joint(j, world.bodies);
    J o = J::object();
    if (!j.name.empty()) o["name"] = j.name;
    o["type"] = std::string(joint_type_name(j.type));
    o["bodies"] = J::array({world.bodies[size_t(j.body_a)].name, world.bodies[size_t(j.body_b)].name});
    o["anchor"] = vec_json<J>(d.anchor);
    if (joint_type_has_axis(j.type)) o["axis"] = vec_json<J>(d.axis);
    if (joint_type_has_axis2(j.type)) o["axis2"] = vec_json<J>(d.axis2);
    if (joint_type_has_coordinate(j.type) && d.coordinate != 0.0) o["coordinate"] = d.coordinate;
    if (joint_type_has_coordinate(j.type) && j.limit.enabled) {
      J lim = J::object();
      lim["lower"] = j.limit.lower;
      lim["upper"] = j.limit.upper;
      o["limits"] = lim;
    }
    if (joint_type_has_coordinate(j.type) && j.motor.enabled) {
      J mot = J::object();
      mot["speed"] = j.motor.speed;
      mot["max_force"] = j.motor.max_force;
      o["motor"] = mot;
    }
    if (joint_type_has_servo(j.type) && j.servo.enabled) {
      J servo = J::object();
      servo["target"] = j.servo.target;
      if (servo_is_pd(j)) {
        servo["stiffness"] = j.servo.stiffness;
        servo["damping"] = j.servo.damping;
        if (std::isfinite(j.servo.max_force)) servo["max_force"] = j.servo.max_force;
      }
      if (std::isfinite(j.servo.lower) || std::isfinite(j.servo.upper)) {
        servo["range"] = J::array({j.servo.lower, j.servo.upper});
      }
      if (j.servo.key_raise != '\0' && j.servo.key_lower != '\0') {
        servo["keys"] = J::array({std::string(1, j.servo.key_raise), std::string(1, j.servo.key_lower)});
        servo["rate"] = j.servo.rate;
      }
      o["servo"] = servo;
    }
    o["erp"] = j.erp;
    o["cfm"] = j.cfm;
    out.push_back(o);
  }
  return out;
}

template nlohmann::json joints_json_as<nlohmann::json>(const World& world);
template nlohmann::ordered_json joints_json_as<nlohmann::ordered_json>(const World& world);

nlohmann::json joints_json(const World& world) { return joints_json_as<nlohmann::json>(world); }

}  // namespace cl
