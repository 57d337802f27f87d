// The "joints" array of scene files: every field read and validated, written back so that saving is a fixed
// point (also after the bodies moved: the coordinate keeps the limits where they were), and the shipped
// joint scenes (pendulum_chain, door, car, chain20) doing what their descriptions say.
#include "scene/scene_joints.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>

#include "joints/joint.h"
#include "scene/scene.h"

namespace cl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path joint_scenes_dir() {
#ifdef CONTACTLAB_SOURCE_DIR
  return fs::path(CONTACTLAB_SOURCE_DIR) / "scenes";
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "scenes";
#endif
}

// Ground, a fixed post, and three dynamic bodies apart from each other.
json joints_doc() {
  return json::parse(R"({
    "format": 1,
    "gravity": [0, 0, 0],
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "post", "shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}, "fixed": true, "position": [0, 3, -1]},
      {"name": "a", "shape": {"type": "sphere", "radius": 0.2}, "density": 1000, "position": [1, 3, 0]},
      {"name": "b", "shape": {"type": "box", "half_extents": [0.3, 0.1, 0.2]}, "density": 500, "position": [2, 3, 0],
       "orientation": [0.9, 0.1, 0.3, 0.3]},
      {"name": "c", "shape": {"type": "capsule", "radius": 0.1, "half_height": 0.2}, "density": 800, "position": [3, 3, 0]}
    ]})");
}

SceneLoadResult load_joints(const json& joints, const std::string& label = "mem.json") {
  json doc = joints_doc();
  doc["joints"] = joints;
  return load_scene_json(doc, label);
}

World load_joints_ok(const json& joints) {
  SceneLoadResult r = load_joints(joints);
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.world);
}

std::string joints_error(const json& joints) {
  SceneLoadResult r = load_joints(joints);
  EXPECT_FALSE(r.ok()) << "loaded: " << joints.dump();
  return r.error;
}

const json kEveryJointType = json::parse(R"([
  {"name": "ball", "type": "ball", "bodies": ["post", "a"], "anchor": [0.5, 3, 0]},
  {"name": "hinge", "type": "hinge", "bodies": ["a", "b"], "anchor": [1.5, 3, 0], "axis": [0, 0, 1],
   "coordinate": 0.25, "limits": {"lower": -0.5, "upper": 1}, "motor": {"speed": 2, "max_force": 30}, "erp": 0.4,
   "cfm": 1e-5},
  {"type": "slider", "bodies": ["b", "c"], "anchor": [2.5, 3, 0], "axis": [1, 0, 0], "coordinate": -0.1,
   "limits": {"lower": -0.5, "upper": 0.5}},
  {"name": "wheel", "type": "hinge2", "bodies": ["post", "c"], "anchor": [3, 3, 0], "axis": [0, 1, 0],
   "axis2": [0, 0, -1], "limits": {"lower": 0, "upper": 0}, "motor": {"speed": 6, "max_force": 100}},
  {"name": "cross", "type": "universal", "bodies": ["a", "c"], "anchor": [2, 3.5, 0], "axis": [1, 0, 0],
   "axis2": [0, 1, 0], "coordinate": 0.1},
  {"name": "weld", "type": "fixed", "bodies": ["b", "post"], "anchor": [1, 3, -0.5], "erp": 0, "cfm": 0}
])");

TEST(SceneJoints, EveryFieldIsRead) {
  const World w = load_joints_ok(kEveryJointType);
  ASSERT_EQ(w.joints.size(), 6u);
  const JointType types[] = {JointType::Ball, JointType::Hinge, JointType::Slider, JointType::Hinge2,
                             JointType::Universal, JointType::Fixed};
  for (size_t i = 0; i < 6; ++i) {
    const Joint& j = w.joints[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(j.type, types[i]);
    EXPECT_LT(joint_error(j, w.bodies), 1e-12) << "a joint is satisfied at the poses it was made from";
  }
  const Joint& ball = w.joints[0];
  EXPECT_EQ(ball.name, "ball");
  EXPECT_EQ(ball.body_a, w.find_body("post"));
  EXPECT_EQ(ball.body_b, w.find_body("a"));
  EXPECT_EQ(ball.erp, 0.2);
  EXPECT_EQ(ball.cfm, 0.0);
  EXPECT_FALSE(ball.limit.enabled);
  EXPECT_FALSE(ball.motor.enabled);
  Vec3 pa, pb;
  joint_anchors_world(ball, w.bodies, pa, pb);
  EXPECT_LT((pa - Vec3(0.5, 3, 0)).norm(), 1e-12);
  EXPECT_LT((pb - Vec3(0.5, 3, 0)).norm(), 1e-12);

  const Joint& hinge = w.joints[1];
  EXPECT_EQ(hinge.erp, 0.4);
  EXPECT_EQ(hinge.cfm, 1e-5);
  EXPECT_TRUE(hinge.limit.enabled);
  EXPECT_EQ(hinge.limit.lower, -0.5);
  EXPECT_EQ(hinge.limit.upper, 1.0);
  EXPECT_TRUE(hinge.motor.enabled);
  EXPECT_EQ(hinge.motor.speed, 2.0);
  EXPECT_EQ(hinge.motor.max_force, 30.0);
  EXPECT_NEAR(joint_coordinate(hinge, w.bodies), 0.25, 1e-12);

  EXPECT_EQ(w.joints[2].name, "");
  EXPECT_NEAR(joint_coordinate(w.joints[2], w.bodies), -0.1, 1e-12);
  EXPECT_NEAR(joint_coordinate(w.joints[3], w.bodies), 0.0, 1e-12);
  EXPECT_NEAR(w.joints[3].initial_angle, std::numbers::pi / 2, 1e-12);
  EXPECT_NEAR(joint_coordinate(w.joints[4], w.bodies), 0.1, 1e-12);
  EXPECT_EQ(w.joints[5].erp, 0.0);
  // The hinge-2's first axis is carried by the chassis (a = post), the second by the wheel (b = c).
  const Body& wheel = w.bodies[size_t(w.joints[3].body_b)];
  EXPECT_LT((wheel.rotation() * w.joints[3].axis2_b - Vec3(0, 0, -1)).norm(), 1e-12);
}

TEST(SceneJoints, SavingIsAFixedPointAndKeepsEveryField) {
  const World w = load_joints_ok(kEveryJointType);
  const json saved = scene_to_json(w);
  ASSERT_TRUE(saved.contains("joints"));
  EXPECT_EQ(saved["joints"], joints_json(w));
  SceneLoadResult again = load_scene_json(saved, "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_TRUE(again.warnings.empty());
  const json diff = json::diff(saved, scene_to_json(again.world));
  EXPECT_TRUE(diff.empty()) << diff.dump();
  // Field by field against the input (key order aside; defaults written out).
  const json& j = saved["joints"];
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[1]["coordinate"], 0.25);
  EXPECT_EQ(j[1]["limits"], json::parse(R"({"lower": -0.5, "upper": 1.0})"));
  EXPECT_EQ(j[1]["motor"], json::parse(R"({"speed": 2.0, "max_force": 30.0})"));
  EXPECT_EQ(j[1]["anchor"], json::parse("[1.5, 3.0, 0.0]"));
  EXPECT_FALSE(j[2].contains("name"));
  EXPECT_EQ(j[2]["axis"], json::parse("[1.0, 0.0, 0.0]"));
  EXPECT_EQ(j[3]["axis2"], json::parse("[0.0, 0.0, -1.0]"));
  EXPECT_FALSE(j[3].contains("coordinate")) << "0 is the default and is left out";
  EXPECT_FALSE(j[0].contains("axis")) << "a ball joint has no axis";
  EXPECT_EQ(j[0]["erp"], 0.2);
  EXPECT_EQ(j[0]["cfm"], 0.0);
  // The ordered writer gives the same content in the documented order.
  const nlohmann::ordered_json ordered = joints_json_as<nlohmann::ordered_json>(w);
  EXPECT_EQ(json::parse(ordered.dump()), j);
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered[1].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "type", "bodies", "anchor", "axis", "coordinate", "limits", "motor",
                                            "erp", "cfm"}));
}

TEST(SceneJoints, NoJointsWritesNoKey) {
  SceneLoadResult r = load_scene_json(joints_doc(), "mem.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(scene_to_json(r.world).contains("joints"));
  EXPECT_EQ(joints_json(r.world), json::array());
}

// After the bodies moved, the joint is written at their current poses with its current coordinate, so that
// loading the saved scene gives the same joint: same anchors, axes, coordinate and limits.
TEST(SceneJoints, SavingAMovedWorldKeepsTheJointWhereItIs) {
  SceneLoadResult r = load_scene_file((joint_scenes_dir() / "door.json").string());
  ASSERT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  while (w.time() < 1.0) ASSERT_TRUE(w.step().ok);
  const double opened = joint_coordinate(w.joints[0], w.bodies);
  EXPECT_GT(opened, 0.5);
  SceneLoadResult again = load_scene_json(scene_to_json(w), "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_TRUE(again.warnings.empty());
  const Joint& a = w.joints[0];
  const Joint& b = again.world.joints[0];
  EXPECT_NEAR(joint_coordinate(b, again.world.bodies), opened, 1e-9);
  EXPECT_EQ(b.limit.lower, a.limit.lower);
  EXPECT_EQ(b.limit.upper, a.limit.upper);
  Vec3 pa, pb, qa, qb;
  joint_anchors_world(a, w.bodies, pa, pb);
  joint_anchors_world(b, again.world.bodies, qa, qb);
  EXPECT_LT((0.5 * (pa + pb) - qa).norm(), 1e-9);
  EXPECT_LT((qa - qb).norm(), 1e-12);
  // And the reloaded door continues to the same limit.
  while (again.world.time() < 3.0) ASSERT_TRUE(again.world.step().ok);
  EXPECT_NEAR(joint_coordinate(b, again.world.bodies), 1.5, 1e-3);
}

TEST(SceneJoints, WarningsForNormalisedAxesAndAStartOutsideTheLimits) {
  SceneLoadResult r = load_joints(json::parse(R"([
    {"type": "hinge", "bodies": ["post", "a"], "anchor": [0.5, 3, 0], "axis": [0, 0, 2],
     "limits": {"lower": 0.2, "upper": 0.4}}])"));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0], "mem.json: /joints/0/axis: normalised (length was 2)");
  EXPECT_NE(r.warnings[1].find("mem.json: /joints/0/limits: the joint starts outside its limits (coordinate 0 not in "
                               "[0.2, 0.4])"),
            std::string::npos)
      << r.warnings[1];
  EXPECT_LT((r.world.bodies[2].rotation() * r.world.joints[0].axis_b - Vec3(0, 0, 1)).norm(), 1e-12);
}

TEST(SceneJoints, ErrorsNameTheFileAndThePointer) {
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "slider", "bodies": ["a", "b"], "anchor": [1, 3, 0], "axis": [1, 0, 0],
                                        "limits": {"lower": 1, "upper": 0}}])")),
            "mem.json: /joints/0/limits/upper: expected a value >= \"lower\" (1), got 0");
  // A slider's limits are displacements: any finite value, not only angles.
  load_joints_ok(json::parse(R"([{"type": "slider", "bodies": ["a", "b"], "anchor": [1, 3, 0], "axis": [1, 0, 0],
                           "limits": {"lower": -5, "upper": 5}}])"));
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "universal", "bodies": ["a", "b"], "anchor": [1, 3, 0],
                                        "axis": [1, 0, 0], "axis2": [-1, 0.1, 0]}])")),
            "mem.json: /joints/0/axis2: expected a direction at least 10 degrees from parallel to \"axis\", got "
            "[-1,0.1,0] (5.71059 degrees)");
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "ball", "bodies": ["a", "ground"], "anchor": [1, 3, 0], "erp": "0.2"}])")),
            "mem.json: /joints/0/erp: expected a number in [0, 1], got \"0.2\"");
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "ball", "bodies": ["a", "b", "c"], "anchor": [1, 3, 0]}])")),
            "mem.json: /joints/0/bodies: expected an array of two body names [\"A\", \"B\"], got [\"a\",\"b\",\"c\"]");
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "hinge", "bodies": ["a", "b"], "anchor": [1, 3, 0], "axis": [0, 0, 1],
                                        "motor": {"speed": 1}}])")),
            "mem.json: /joints/0/motor/max_force: missing required field: expected a non-negative torque in N m");
  EXPECT_EQ(joints_error(json::parse(R"([{"type": "hinge", "bodies": ["a", "b"], "anchor": [1, 3, 0], "axis": [0, 0, 1],
                                        "coordinate": 20000}])")),
            "mem.json: /joints/0/coordinate: expected an angle in [-10000, 10000] rad, got 20000");
  // A kinematic body may be one side.
  json doc = joints_doc();
  doc["bodies"][4]["kinematic"] = true;
  doc["bodies"][4].erase("density");
  doc["joints"] = json::parse(R"([{"type": "ball", "bodies": ["c", "b"], "anchor": [2.5, 3, 0]}])");
  EXPECT_TRUE(load_scene_json(doc, "mem.json").ok());
  doc["joints"] = json::parse(R"([{"type": "ball", "bodies": ["c", "post"], "anchor": [2.5, 3, 0]}])");
  EXPECT_EQ(load_scene_json(doc, "mem.json").error,
            "mem.json: /joints/0/bodies: expected at least one dynamic body, got \"c\" (kinematic) and \"post\" (fixed)");
}

// Every mutation of a valid joint (each key removed, each value replaced by wrong types) is reported, never
// thrown.
TEST(SceneJoints, MutationsNeverThrow) {
  const json bad_values = json::parse(R"([null, true, -1, 0, 1e300, "x", [], [1, 2], [0, 0, 0], {}, {"lower": 1}])");
  for (size_t i = 0; i < kEveryJointType.size(); ++i) {
    for (const auto& [key, value] : kEveryJointType[i].items()) {
      json joints = kEveryJointType;
      joints[i].erase(key);
      SceneLoadResult r = load_joints(joints);
      if (!r.ok()) { EXPECT_EQ(r.error.rfind("mem.json: /joints/", 0), 0u) << r.error; }
      for (const json& v : bad_values) {
        joints = kEveryJointType;
        joints[i][key] = v;
        SceneLoadResult m = load_joints(joints);
        if (!m.ok()) { EXPECT_EQ(m.error.rfind("mem.json: /joints/", 0), 0u) << m.error; }
      }
    }
  }
}

// --- the shipped joint scenes ---------------------------------------------------------------------------

World load_scene(const std::string& name) {
  SceneLoadResult r = load_scene_file((joint_scenes_dir() / name).string());
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.warnings.empty());
  return std::move(r.world);
}

double max_joint_error(const World& w) {
  double e = 0;
  for (const Joint& j : w.joints) e = std::max(e, joint_error(j, w.bodies));
  return e;
}

TEST(SceneJoints, CarDrivesForward) {
  World w = load_scene("car.json");
  ASSERT_EQ(w.joints.size(), 4u);
  const int chassis = w.find_body("chassis");
  ASSERT_GE(chassis, 0);
  const Vec3 start = w.bodies[size_t(chassis)].position;
  double max_error = 0;
  while (w.time() < 5.0) {
    ASSERT_TRUE(w.step().ok);
    max_error = std::max(max_error, max_joint_error(w));
  }
  const Body& c = w.bodies[size_t(chassis)];
  const Vec3 moved = c.position - start;
  std::printf("[ car ] after %.1f s: moved %.3f m along x, %.2e m sideways, speed %.4f m/s, max joint error %.2e\n",
              w.time(), moved.x(), std::abs(moved.z()), c.linear_velocity.x(), max_error);
  EXPECT_GT(moved.x(), 8.0);
  EXPECT_LT(std::abs(moved.z()), 0.05) << "straight";
  EXPECT_NEAR(c.linear_velocity.x(), 6.0 * 0.35, 0.02) << "wheel speed times radius";
  EXPECT_NEAR(c.position.y(), start.y(), 0.02) << "on its wheels";
  EXPECT_GT((c.rotation() * Vec3::UnitY()).y(), 0.999) << "upright";
  EXPECT_LT(max_error, 5e-3);
  for (const Joint& j : w.joints) {
    EXPECT_NEAR(joint_rate(j, w.bodies), 6.0, 0.01);
    EXPECT_NEAR(joint_coordinate(j, w.bodies), 0.0, 1e-3) << "steering locked";
  }
}

TEST(SceneJoints, DoorOpensToItsLimitAndStays) {
  World w = load_scene("door.json");
  ASSERT_EQ(w.joints.size(), 1u);
  double max_angle = 0;
  while (w.time() < 4.0) {
    ASSERT_TRUE(w.step().ok);
    max_angle = std::max(max_angle, joint_coordinate(w.joints[0], w.bodies));
  }
  std::printf("[ door ] angle %.5f rad (limit 1.5), max %.5f, joint error %.2e\n", joint_coordinate(w.joints[0], w.bodies),
              max_angle, joint_error(w.joints[0], w.bodies));
  EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), 1.5, 1e-3);
  EXPECT_LT(max_angle, 1.5 + 1e-3);
  EXPECT_LT(joint_error(w.joints[0], w.bodies), 1e-3);
}

TEST(SceneJoints, PendulumChainSwingsAndHolds) {
  World w = load_scene("pendulum_chain.json");
  ASSERT_EQ(w.joints.size(), 6u);
  const int last = w.find_body("bar_5");
  const double e0 = w.kinetic_energy() + w.potential_energy();
  double max_error = 0, max_gain = -1e9, lowest = 1e9;
  while (w.time() < 20.0) {
    ASSERT_TRUE(w.step().ok);
    max_error = std::max(max_error, max_joint_error(w));
    max_gain = std::max(max_gain, w.kinetic_energy() + w.potential_energy() - e0);
    lowest = std::min(lowest, w.bodies[size_t(last)].position.y());
  }
  std::printf("[ pendulum_chain ] 20 s: max joint error %.2e, max energy gain %.3f J, lowest end %.2f m\n", max_error,
              max_gain, lowest);
  EXPECT_LT(lowest, 3.0) << "it swings down";
  EXPECT_LT(max_error, 0.1);
  EXPECT_LT(max_gain, 1.0);
  for (const Body& b : w.bodies)
    if (b.is_dynamic()) { EXPECT_LT(std::abs(b.position.z()), 0.01) << b.name << " stays in its plane"; }
}

TEST(SceneJoints, Chain20Swings) {
  World w = load_scene("chain20.json");
  ASSERT_EQ(w.joints.size(), 20u);
  int capsules = 0;
  for (const Body& b : w.bodies) capsules += b.shape.type == ShapeType::Capsule;
  EXPECT_EQ(capsules, 20);
  for (const Joint& j : w.joints) EXPECT_EQ(j.type, JointType::Ball);
  const int last = w.find_body("link_19");
  const Vec3 start = w.bodies[size_t(last)].position;
  const double e0 = w.kinetic_energy() + w.potential_energy();
  double max_error = 0, max_gain = -1e9, min_x = 1e9;
  while (w.time() < 10.0) {
    ASSERT_TRUE(w.step().ok);
    max_error = std::max(max_error, max_joint_error(w));
    max_gain = std::max(max_gain, w.kinetic_energy() + w.potential_energy() - e0);
    min_x = std::min(min_x, w.bodies[size_t(last)].position.x());
  }
  std::printf("[ chain20 ] 10 s: max joint error %.2e, max energy gain %.3f J, end swung to x = %.2f m\n", max_error,
              max_gain, min_x);
  EXPECT_LT(min_x, -5.0) << "it swings through to the other side";
  EXPECT_LT((w.bodies[size_t(last)].position - start).norm() + 0.0, 30.0);
  EXPECT_LT(max_error, 0.2);
  EXPECT_LT(max_gain, 1.0);
}

}  // namespace
}  // namespace cl
