// The "servo" field of scene joints (Xu, Zhao, Barbic 2014, eq. 65-66): read, validated with messages naming
// the file and JSON pointer, and written back so that saving is a fixed point (also after the bodies moved).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "joints/joint.h"
#include "scene/scene.h"
#include "scene/scene_joints.h"

namespace cl {
namespace {

using nlohmann::json;

json servo_doc() {
  return json::parse(R"({
    "format": 1,
    "gravity": [0, -9.81, 0],
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "post", "shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}, "fixed": true, "position": [0, 3, -1]},
      {"name": "arm", "shape": {"type": "box", "half_extents": [0.5, 0.05, 0.05]}, "density": 500, "position": [0.5, 3, -1]},
      {"name": "ram", "shape": {"type": "box", "half_extents": [0.2, 0.05, 0.05]}, "density": 800, "position": [1.5, 3, -1]},
      {"name": "cart", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]}, "density": 300, "position": [3, 3, -1]},
      {"name": "wheel", "shape": {"type": "box", "half_extents": [0.3, 0.3, 0.05]}, "density": 300, "position": [5, 3, -1]}
    ]})");
}

const json kServos = json::parse(R"([
  {"name": "shoulder", "type": "hinge", "bodies": ["post", "arm"], "anchor": [0, 3, -1], "axis": [0, 0, 1],
   "servo": {"target": 0.2, "range": [-0.5, 1]}},
  {"name": "ram", "type": "slider", "bodies": ["arm", "ram"], "anchor": [1.5, 3, -1], "axis": [1, 0, 0],
   "coordinate": 0.05, "servo": {"target": 0.1, "stiffness": 20000, "damping": 500, "range": [-0.2, 0.3]}},
  {"type": "slider", "bodies": ["post", "cart"], "anchor": [3, 3, -1], "axis": [0, 1, 0],
   "servo": {"target": -0.4, "stiffness": 0, "damping": 30}},
  {"name": "drive", "type": "hinge", "bodies": ["post", "wheel"], "anchor": [5, 3, -1], "axis": [0, 0, 1],
   "coordinate": 6.5, "servo": {"target": 7, "stiffness": 50, "damping": 5, "max_force": 30, "range": [-20, 20]}}
])");

SceneLoadResult load_servos(const json& joints) {
  json doc = servo_doc();
  doc["joints"] = joints;
  return load_scene_json(doc, "mem.json");
}

std::string servo_error(const json& joints) {
  SceneLoadResult r = load_servos(joints);
  EXPECT_FALSE(r.ok()) << "loaded: " << joints.dump();
  return r.error;
}

TEST(SceneJointServo, EveryFieldIsRead) {
  SceneLoadResult r = load_servos(kServos);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.warnings.empty());
  const auto& j = r.world.joints;
  EXPECT_TRUE(j[0].servo.enabled);
  EXPECT_EQ(j[0].servo.target, 0.2);
  EXPECT_EQ(j[0].servo.stiffness, 0.0);
  EXPECT_EQ(j[0].servo.lower, -0.5);
  EXPECT_EQ(j[0].servo.upper, 1.0);
  EXPECT_EQ(j[1].servo.target, 0.1);
  EXPECT_EQ(j[1].servo.stiffness, 20000.0);
  EXPECT_EQ(j[1].servo.damping, 500.0);
  EXPECT_EQ(j[1].servo.lower, -0.2);
  EXPECT_EQ(j[1].servo.upper, 0.3);
  EXPECT_EQ(j[2].servo.upper, std::numeric_limits<double>::infinity()) << "no range: unbounded";
  EXPECT_EQ(j[2].servo.max_force, std::numeric_limits<double>::infinity()) << "no bound";
  // A hinge servo with gains is a PD torque; its angle counts the turns the scene's coordinate gives.
  ASSERT_EQ(j.size(), 4u);
  EXPECT_TRUE(servo_is_pd(j[3]));
  EXPECT_FALSE(servo_is_pd(j[0]));
  EXPECT_EQ(j[3].servo.max_force, 30.0);
  EXPECT_EQ(j[3].servo.coordinate, 6.5);
  EXPECT_NEAR(joint_coordinate(j[3], r.world.bodies), 6.5 - 2 * std::numbers::pi, 1e-12);
  EXPECT_FALSE(j[1].motor.enabled);
}

TEST(SceneJointServo, SavingIsAFixedPoint) {
  SceneLoadResult r = load_servos(kServos);
  ASSERT_TRUE(r.ok()) << r.error;
  const json saved = scene_to_json(r.world);
  const json& j = saved["joints"];
  EXPECT_EQ(j[0]["servo"], json::parse(R"({"target": 0.2, "range": [-0.5, 1.0]})"));
  EXPECT_EQ(j[1]["servo"], json::parse(R"({"target": 0.1, "stiffness": 20000.0, "damping": 500.0, "range": [-0.2, 0.3]})"));
  EXPECT_EQ(j[2]["servo"], json::parse(R"({"target": -0.4, "stiffness": 0.0, "damping": 30.0})"));
  EXPECT_EQ(j[3]["servo"],
            json::parse(R"({"target": 7.0, "stiffness": 50.0, "damping": 5.0, "max_force": 30.0, "range": [-20.0, 20.0]})"));
  EXPECT_EQ(j[3]["coordinate"], 6.5);
  SceneLoadResult again = load_scene_json(saved, "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  const json diff = json::diff(saved, scene_to_json(again.world));
  EXPECT_TRUE(diff.empty()) << diff.dump();
  // The documented key order: the servo after the motor's place.
  const nlohmann::ordered_json ordered = joints_json_as<nlohmann::ordered_json>(r.world);
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered[1].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "type", "bodies", "anchor", "axis", "coordinate", "servo", "erp",
                                            "cfm"}));
}

// After the bodies moved (the servos drive them), the saved scene has the same servos and loads again.
TEST(SceneJointServo, SavingAMovedWorldKeepsTheServos) {
  SceneLoadResult r = load_servos(kServos);
  ASSERT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(w.step().ok);
  SceneLoadResult again = load_scene_json(scene_to_json(w), "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  for (size_t i = 0; i < w.joints.size(); ++i) {
    const JointServo& a = w.joints[i].servo;
    const JointServo& b = again.world.joints[i].servo;
    EXPECT_EQ(a.enabled, b.enabled);
    EXPECT_EQ(a.target, b.target);
    EXPECT_EQ(a.stiffness, b.stiffness);
    EXPECT_EQ(a.damping, b.damping);
    EXPECT_EQ(a.lower, b.lower);
    EXPECT_EQ(a.upper, b.upper);
    EXPECT_NEAR(joint_coordinate(again.world.joints[i], again.world.bodies), joint_coordinate(w.joints[i], w.bodies),
                1e-9);
  }
}

TEST(SceneJointServo, ErrorsNameTheFileAndThePointer) {
  const auto hinge = [](const json& servo) {
    json j = json::parse(R"([{"type": "hinge", "bodies": ["post", "arm"], "anchor": [0, 3, -1], "axis": [0, 0, 1]}])");
    j[0]["servo"] = servo;
    return j;
  };
  const auto slider = [](const json& servo) {
    json j = json::parse(R"([{"type": "slider", "bodies": ["arm", "ram"], "anchor": [1.5, 3, -1], "axis": [1, 0, 0]}])");
    j[0]["servo"] = servo;
    return j;
  };
  EXPECT_EQ(servo_error(hinge(json::parse(R"({"target": 20000})"))),
            "mem.json: /joints/0/servo/target: expected an angle in [-10000, 10000] rad (it may span many turns), got "
            "20000");
  EXPECT_EQ(servo_error(hinge(json::parse(R"({"target": 0.1, "max_force": 3})"))),
            "mem.json: /joints/0/servo/max_force: unexpected for a hinge servo without \"stiffness\" or \"damping\" (it "
            "holds the angle as a rigid constraint, with whatever torque that takes); give it gains to make it a "
            "bounded PD torque");
  EXPECT_EQ(servo_error(hinge(json::parse(R"({"target": 0.1, "damping": -3})"))),
            "mem.json: /joints/0/servo/damping: expected a non-negative damping in N m s/rad, got -3");
  EXPECT_EQ(servo_error(hinge(json::parse(R"({"target": 0.1, "stiffness": 3, "max_force": -1})"))),
            "mem.json: /joints/0/servo/max_force: expected a positive torque in N m, got -1");
  EXPECT_EQ(servo_error(hinge(json::parse("5"))),
            "mem.json: /joints/0/servo: expected an object {\"target\", \"range\"} (a rigid hinge servo) or "
            "{\"target\", \"stiffness\", \"damping\", \"max_force\", \"range\"} (a PD torque), got 5");
  EXPECT_EQ(servo_error(slider(json::parse(R"({"target": 0.1, "stiffness": 100})"))),
            "mem.json: /joints/0/servo/damping: missing required field: expected a non-negative damping in N s/m");
  EXPECT_EQ(servo_error(slider(json::parse(R"({"target": 0.1, "stiffness": 100, "damping": -1})"))),
            "mem.json: /joints/0/servo/damping: expected a non-negative damping in N s/m, got -1");
  EXPECT_EQ(servo_error(slider(json::parse(R"({"target": 0.1, "stiffness": 1, "damping": 1, "range": [0.2, 0.5]})"))),
            "mem.json: /joints/0/servo/target: expected a target within \"range\" [0.2, 0.5], got 0.1");
  EXPECT_EQ(servo_error(slider(json::parse(R"({"target": 0.1, "stiffness": 1, "damping": 1, "range": [0.2]})"))),
            "mem.json: /joints/0/servo/range: expected an array [lower, upper] of displacements in m, got [0.2]");
  EXPECT_EQ(servo_error(slider(json::parse(R"({"target": 0.1, "stiffness": true, "damping": 1})"))),
            "mem.json: /joints/0/servo/stiffness: expected a non-negative stiffness in N/m, got true");
  json ball = json::parse(R"([{"type": "ball", "bodies": ["post", "arm"], "anchor": [0, 3, -1], "servo": {"target": 0}}])");
  EXPECT_EQ(servo_error(ball), "mem.json: /joints/0/servo: unexpected for a ball joint (it has no servo); \"servo\" is "
                               "for: hinge, slider");
  json both = hinge(json::parse(R"({"target": 0.1})"));
  both[0]["motor"] = json::parse(R"({"speed": 1, "max_force": 5})");
  EXPECT_EQ(servo_error(both), "mem.json: /joints/0/servo: unexpected together with \"motor\" (both drive the joint "
                               "coordinate; use one of them)");
}

// Every mutation of a servo (each key removed, each value replaced by wrong types) is reported, never thrown.
TEST(SceneJointServo, MutationsNeverThrow) {
  const json bad_values = json::parse(R"([null, true, -1, 0, 1e300, "x", [], [1, 2], [2, 1], [0, 0, 0], {}])");
  for (size_t i = 0; i < kServos.size(); ++i) {
    for (const auto& [key, value] : kServos[i]["servo"].items()) {
      json joints = kServos;
      joints[i]["servo"].erase(key);
      SceneLoadResult r = load_servos(joints);
      if (!r.ok()) { EXPECT_EQ(r.error.rfind("mem.json: /joints/", 0), 0u) << r.error; }
      for (const json& v : bad_values) {
        joints = kServos;
        joints[i]["servo"][key] = v;
        SceneLoadResult m = load_servos(joints);
        if (!m.ok()) { EXPECT_EQ(m.error.rfind("mem.json: /joints/", 0), 0u) << m.error; }
      }
    }
  }
}

// --- keyboard control: "keys" and "rate" ------------------------------------------------------------------

const json kKeyed = json::parse(R"([
  {"name": "shoulder", "type": "hinge", "bodies": ["post", "arm"], "anchor": [0, 3, -1], "axis": [0, 0, 1],
   "servo": {"target": 0.2, "range": [-0.5, 1], "keys": ["U", "j"], "rate": 0.25}},
  {"name": "ram", "type": "slider", "bodies": ["arm", "ram"], "anchor": [1.5, 3, -1], "axis": [1, 0, 0],
   "servo": {"target": 0.1, "stiffness": 20000, "damping": 500, "range": [-0.2, 0.3], "keys": ["7", "8"]}},
  {"type": "slider", "bodies": ["post", "cart"], "anchor": [3, 3, -1], "axis": [0, 1, 0],
   "servo": {"target": -0.4, "stiffness": 0, "damping": 30}},
  {"name": "drive", "type": "hinge", "bodies": ["post", "wheel"], "anchor": [5, 3, -1], "axis": [0, 0, 1],
   "coordinate": 6.5, "servo": {"target": 7, "stiffness": 50, "damping": 5, "max_force": 30, "range": [-20, 20]}}
])");

TEST(SceneJointServo, KeysAndRateAreRead) {
  SceneLoadResult r = load_servos(kKeyed);
  ASSERT_TRUE(r.ok()) << r.error;
  const auto& j = r.world.joints;
  EXPECT_EQ(j[0].servo.key_raise, 'u') << "upper case is read as lower case";
  EXPECT_EQ(j[0].servo.key_lower, 'j');
  EXPECT_EQ(j[0].servo.rate, 0.25);
  EXPECT_EQ(j[1].servo.key_raise, '7');
  EXPECT_EQ(j[1].servo.key_lower, '8');
  EXPECT_EQ(j[1].servo.rate, 0.5) << "the default rate";
  EXPECT_EQ(j[2].servo.key_raise, '\0') << "no keys";
  EXPECT_EQ(j[2].servo.key_lower, '\0');
}

TEST(SceneJointServo, KeysAndRateRoundTrip) {
  SceneLoadResult r = load_servos(kKeyed);
  ASSERT_TRUE(r.ok()) << r.error;
  const json saved = scene_to_json(r.world);
  const json& j = saved["joints"];
  EXPECT_EQ(j[0]["servo"], json::parse(R"({"target": 0.2, "range": [-0.5, 1.0], "keys": ["u", "j"], "rate": 0.25})"));
  EXPECT_EQ(j[1]["servo"], json::parse(R"({"target": 0.1, "stiffness": 20000.0, "damping": 500.0, "range": [-0.2, 0.3],
                                           "keys": ["7", "8"], "rate": 0.5})"));
  EXPECT_FALSE(j[2]["servo"].contains("keys")) << "a servo without keys saves none";
  EXPECT_FALSE(j[2]["servo"].contains("rate"));
  SceneLoadResult again = load_scene_json(saved, "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  const json diff = json::diff(saved, scene_to_json(again.world));
  EXPECT_TRUE(diff.empty()) << diff.dump();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(again.world.joints[i].servo.key_raise, r.world.joints[i].servo.key_raise);
    EXPECT_EQ(again.world.joints[i].servo.key_lower, r.world.joints[i].servo.key_lower);
    EXPECT_EQ(again.world.joints[i].servo.rate, r.world.joints[i].servo.rate);
  }
  // The documented key order: keys and rate last.
  const nlohmann::ordered_json ordered = joints_json_as<nlohmann::ordered_json>(r.world);
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered[1]["servo"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"target", "stiffness", "damping", "range", "keys", "rate"}));
}

TEST(SceneJointServo, BadKeysAndRatesNameTheFileAndThePointer) {
  const auto with = [](size_t i, const char* key, const json& value) {
    json j = kKeyed;
    j[i]["servo"][key] = value;
    return j;
  };
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["u"])"))),
            "mem.json: /joints/0/servo/keys: expected an array of two keys [\"raise\", \"lower\"] (letters a-z or "
            "digits 0-9), got [\"u\"]");
  EXPECT_EQ(servo_error(with(0, "keys", "uj")),
            "mem.json: /joints/0/servo/keys: expected an array of two keys [\"raise\", \"lower\"] (letters a-z or "
            "digits 0-9), got \"uj\"");
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["up", "j"])"))),
            "mem.json: /joints/0/servo/keys/0: expected a single letter a-z or digit 0-9, got \"up\"");
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["u", "-"])"))),
            "mem.json: /joints/0/servo/keys/1: expected a single letter a-z or digit 0-9, got \"-\"");
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["u", 5])"))),
            "mem.json: /joints/0/servo/keys/1: expected a single letter a-z or digit 0-9, got 5");
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["u", ""])"))),
            "mem.json: /joints/0/servo/keys/1: expected a single letter a-z or digit 0-9, got \"\"");
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["u", "U"])"))),
            "mem.json: /joints/0/servo/keys/1: expected a key other than the raising key \"u\", got \"U\"");
  // The viewer's own shortcuts (R reset, F frame, V the comparison view, C follow a body), in either case.
  EXPECT_EQ(servo_error(with(0, "keys", json::parse(R"(["R", "j"])"))),
            "mem.json: /joints/0/servo/keys/0: expected a key the viewer does not already use (R resets the scene, F "
            "frames it, V switches the comparison view, C follows a body), got \"R\"");
  EXPECT_EQ(servo_error(with(1, "keys", json::parse(R"(["7", "f"])"))),
            "mem.json: /joints/1/servo/keys/1: expected a key the viewer does not already use (R resets the scene, F "
            "frames it, V switches the comparison view, C follows a body), got \"f\"");
  EXPECT_EQ(servo_error(with(1, "keys", json::parse(R"(["7", "V"])"))),
            "mem.json: /joints/1/servo/keys/1: expected a key the viewer does not already use (R resets the scene, F "
            "frames it, V switches the comparison view, C follows a body), got \"V\"");
  EXPECT_EQ(servo_error(with(1, "keys", json::parse(R"(["7", "C"])"))),
            "mem.json: /joints/1/servo/keys/1: expected a key the viewer does not already use (R resets the scene, F "
            "frames it, V switches the comparison view, C follows a body), got \"C\"");
  // A key drives one servo only.
  EXPECT_EQ(servo_error(with(1, "keys", json::parse(R"(["J", "8"])"))),
            "mem.json: /joints/1/servo/keys/0: expected a key no other servo uses, got \"j\" (already used by "
            "/joints/0/servo/keys/1)");
  EXPECT_EQ(servo_error(with(2, "keys", json::parse(R"(["a", "8"])"))),
            "mem.json: /joints/2/servo/keys/1: expected a key no other servo uses, got \"8\" (already used by "
            "/joints/1/servo/keys/1)");
  // The rate.
  EXPECT_EQ(servo_error(with(0, "rate", 0)), "mem.json: /joints/0/servo/rate: expected a positive rate in rad/s, got 0");
  EXPECT_EQ(servo_error(with(1, "rate", -1)), "mem.json: /joints/1/servo/rate: expected a positive rate in m/s, got -1");
  EXPECT_EQ(servo_error(with(1, "rate", "fast")),
            "mem.json: /joints/1/servo/rate: expected a positive rate in m/s, got \"fast\"");
  EXPECT_EQ(servo_error(with(2, "rate", 1)),
            "mem.json: /joints/2/servo/rate: unexpected without \"keys\" (the rate is how fast the keys move the "
            "target)");
  // Unknown keys list the new ones.
  EXPECT_EQ(servo_error(with(0, "key", json::parse(R"(["a", "b"])"))),
            "mem.json: /joints/0/servo/key: unknown key (did you mean \"keys\"?); \"servo\" takes: target, "
            "stiffness, damping, max_force, range, keys, rate");
}

// Mutations of keyed servos are reported, never thrown.
TEST(SceneJointServo, KeyMutationsNeverThrow) {
  const json bad_values = json::parse(R"([null, true, -1, 0, 1e300, "x", "R", "", [], ["a"], ["a", "a"], ["r", "b"],
                                          ["7", "b"], ["b", "c", "d"], [1, 2], {}])");
  for (size_t i = 0; i < kKeyed.size(); ++i) {
    for (const char* key : {"keys", "rate"}) {
      for (const json& v : bad_values) {
        json joints = kKeyed;
        joints[i]["servo"][key] = v;
        SceneLoadResult m = load_servos(joints);
        if (!m.ok()) { EXPECT_EQ(m.error.rfind("mem.json: /joints/", 0), 0u) << m.error; }
      }
    }
  }
}

}  // namespace
}  // namespace cl
