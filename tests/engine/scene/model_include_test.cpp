// Models placed in scenes: bodies, joints, drives and materials made from URDF and MJCF files, placed with a pose
// more than once, and errors naming the scene's JSON path, the model file, the element and its line.
#include <gtest/gtest.h>

#include <cmath>

#include "scene/model_include.h"
#include "scene/scene.h"

namespace cl {
namespace {

using nlohmann::json;

const std::string kLabel = std::string(CONTACTLAB_SOURCE_DIR) + "/tests/data/models/scene.json";

json models_scene(const json& models) {
  json doc = {{"format", 1},
              {"bodies", json::array({{{"name", "ground"}, {"shape", {{"type", "plane"}, {"normal", {0, 1, 0}}}},
                                       {"fixed", true}}})},
              {"models", models}};
  return doc;
}

int body_index(const World& w, const std::string& name) {
  for (size_t i = 0; i < w.bodies.size(); ++i)
    if (w.bodies[i].name == name) return int(i);
  ADD_FAILURE() << "no body " << name;
  return -1;
}

const Joint* joint(const World& w, const std::string& name) {
  for (const Joint& j : w.joints)
    if (j.name == name) return &j;
  ADD_FAILURE() << "no joint " << name;
  return nullptr;
}

TEST(ModelInclude, PlacesAModelTwiceWithItsPose) {
  if (!has_mjcf_import()) GTEST_SKIP() << "no MJCF import in this build";
  const json models = {{{"file", "pendulum.xml"}, {"name", "left"}, {"attach_to", "ground"}},
                       {{"file", "pendulum.xml"}, {"name", "right"}, {"attach_to", "ground"}, {"position", {3, 0, 0}},
                        {"orientation", {std::cos(0.25), 0, std::sin(0.25), 0}}}};
  const SceneLoadResult r = load_scene_json(models_scene(models), kLabel);
  ASSERT_TRUE(r.ok()) << r.error;
  const World& w = r.world;
  ASSERT_EQ(w.bodies.size(), 3u);
  // z up in the model, y up in the scene: the bob 1 m above the origin, its hinge at 2 m.
  const Body& left = w.bodies[size_t(body_index(w, "left/bob"))];
  EXPECT_NEAR((left.position - Vec3(0, 1, 0)).norm(), 0, 1e-12);
  EXPECT_NEAR(left.mass, 1, 1e-12);
  const Body& right = w.bodies[size_t(body_index(w, "right/bob"))];
  EXPECT_NEAR((right.position - Vec3(3, 1, 0)).norm(), 0, 1e-12);  // turned about the vertical through its origin
  const Joint* swing = joint(w, "right/swing");
  ASSERT_TRUE(swing);
  EXPECT_EQ(swing->type, JointType::Hinge);
  EXPECT_EQ(w.bodies[size_t(swing->body_a)].name, "ground");
  // The model's y axis (-z in the scene) turned 0.5 rad about the scene's y.
  const Vec3 axis = w.bodies[size_t(swing->body_a)].orientation * swing->axis_a;
  EXPECT_NEAR((axis - Vec3(-std::sin(0.5), 0, -std::cos(0.5))).norm(), 0, 1e-9);
}

TEST(ModelInclude, ActuatorsBecomeMotorsAndServos) {
  if (!has_mjcf_import()) GTEST_SKIP() << "no MJCF import in this build";
  const SceneLoadResult r = load_scene_json(
      models_scene({{{"file", "rotor.xml"}, {"attach_to", "ground"}, {"controls", {{"drive", 3}}}}}), kLabel);
  ASSERT_TRUE(r.ok()) << r.error;
  const Joint* spin = joint(r.world, "rotor/spin");
  ASSERT_TRUE(spin);
  EXPECT_TRUE(spin->motor.enabled);
  EXPECT_EQ(spin->motor.speed, 3);
  EXPECT_EQ(spin->motor.max_force, 2);  // the actuator's forcerange
  EXPECT_NEAR(r.world.bodies[size_t(body_index(r.world, "rotor/rotor"))].mass, 1.2, 1e-12);  // density 500 from the class

  const SceneLoadResult g = load_scene_json(
      models_scene({{{"file", "models/gripper.xml"}, {"attach_to", "ground"}, {"controls", {{"left", 0.02}}}}}), kLabel);
  ASSERT_TRUE(g.ok()) << g.error;
  const Joint* left = joint(g.world, "gripper/left");
  ASSERT_TRUE(left);
  EXPECT_TRUE(left->servo.enabled);
  EXPECT_EQ(left->servo.target, 0.02);
  EXPECT_EQ(left->servo.stiffness, 2000);
  EXPECT_EQ(left->servo.damping, 40);  // the joint's damping
  EXPECT_EQ(left->servo.max_force, 40);
  EXPECT_EQ(left->servo.lower, 0);
  EXPECT_EQ(left->servo.upper, 0.09);
  // Materials per friction value of the file.
  EXPECT_GE(g.world.find_material("gripper/friction 1"), 0);
}

TEST(ModelInclude, UrdfJointsAreDrivenFromTheScene) {
  if (!has_urdf_import()) GTEST_SKIP() << "no URDF import in this build";
  const json m = {{"file", "rotor.urdf"}, {"attach_to", "ground"}, {"motors", {{"spin", {{"speed", 4}}}}}};
  const SceneLoadResult r = load_scene_json(models_scene(json::array({m})), kLabel);
  ASSERT_TRUE(r.ok()) << r.error;
  const Joint* spin = joint(r.world, "rotor/spin");
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->motor.speed, 4);
  EXPECT_EQ(spin->motor.max_force, 2);  // the URDF effort bound
  json fast = m;
  fast["motors"]["spin"]["speed"] = 20;
  const SceneLoadResult f = load_scene_json(models_scene(json::array({fast})), kLabel);
  ASSERT_TRUE(f.ok()) << f.error;
  ASSERT_FALSE(f.warnings.empty());
  EXPECT_NE(f.warnings.back().find("/models/0/motors/spin/speed: faster than the joint's velocity bound in the file (10)"),
            std::string::npos) << f.warnings.back();
}

std::string error(const json& models) {
  const SceneLoadResult r = load_scene_json(models_scene(models), kLabel);
  EXPECT_FALSE(r.ok());
  return r.error;
}

TEST(ModelInclude, ErrorsNameThePathTheFileTheElementAndTheLine) {
  if (!has_urdf_import() || !has_mjcf_import()) GTEST_SKIP() << "no URDF or MJCF import in this build";
  const std::string data = std::string(CONTACTLAB_SOURCE_DIR) + "/tests/data/models/";
  EXPECT_EQ(error({{{"file", "unknown_joint.urdf"}}}),
            kLabel + ": /models/0/file: " + data + "unknown_joint.urdf:5: <joint name=\"twist\">: unknown joint type "
            "\"screw\" (URDF's types: revolute, continuous, prismatic, fixed, floating, planar)");
  EXPECT_EQ(error({{{"file", "pendulum.xml"}}}),
            kLabel + ": /models/0/file: " + data + "pendulum.xml:5: <joint name=\"swing\">: joins link \"bob\" to the "
            "world, and the model has no fixed body: name a fixed scene body to stand for its world with \"attach_to\"");
  EXPECT_NE(error({{{"file", "nowhere.urdf"}}}).find("/models/0/file: model file \"nowhere.urdf\" not found"),
            std::string::npos);
  EXPECT_NE(error({{{"file", "pendulum.xml"}, {"name", "p"}, {"attach_to", "ground"}},
                   {{"file", "pendulum.xml"}, {"name", "p"}, {"attach_to", "ground"}}})
                .find("/models/1/name: expected a unique model name"), std::string::npos);
  EXPECT_NE(error({{{"file", "rotor.xml"}, {"attach_to", "ground"}, {"controls", {{"driv", 1}}}}})
                .find("/models/0/controls/driv: unknown actuator \"driv\" (did you mean \"drive\"?)"), std::string::npos);
  EXPECT_NE(error({{{"file", "pendulum.xml"}, {"pose", 1}}}).find("/models/0/pose: unknown key"), std::string::npos);
  EXPECT_NE(error({{{"file", "rotor.xml"}, {"attach_to", "nobody"}}}).find("nobody"), std::string::npos);
}

TEST(ModelInclude, MultiGeomLinksAreWeldedPieces) {
  if (!has_mjcf_import()) GTEST_SKIP() << "no MJCF import in this build";
  const SceneLoadResult r = load_scene_json(models_scene({{{"file", "models/walker.xml"}}}), kLabel);
  ASSERT_TRUE(r.ok()) << r.error;
  const World& w = r.world;
  // A shin is a box and a ball foot: two bodies welded by a fixed joint, the joints going to the first.
  const Joint* weld = joint(w, "walker/shin_fl#2");
  ASSERT_TRUE(weld);
  EXPECT_EQ(weld->type, JointType::Fixed);
  EXPECT_EQ(w.bodies[size_t(weld->body_a)].name, "walker/shin_fl");
  EXPECT_EQ(w.bodies[size_t(body_index(w, "walker/shin_fl#2"))].shape.type, ShapeType::Sphere);
  // Eight servos hold the legs; the torso floats.
  int servos = 0;
  for (const Joint& j : w.joints) servos += j.servo.enabled && j.servo.stiffness == 300 ? 1 : 0;
  EXPECT_EQ(servos, 8);
  EXPECT_TRUE(w.bodies[size_t(body_index(w, "walker/torso"))].is_dynamic());
  // The class's degrees made radians.
  const Joint* hip = joint(w, "walker/hip_fl");
  ASSERT_TRUE(hip);
  EXPECT_NEAR(hip->limit.upper, 3.14159265358979 / 3, 1e-12);
}

TEST(ModelInclude, CylindersAreprismsWithAWarning) {
  if (!has_mjcf_import()) GTEST_SKIP() << "no MJCF import in this build";
  const SceneLoadResult r = load_scene_json(models_scene({{{"file", "models/arm.xml"}}}), kLabel);
  ASSERT_TRUE(r.ok()) << r.error;
  bool warned = false;
  for (const std::string& w : r.warnings) warned = warned || w.find("1 cylinder made 24-sided prisms") != std::string::npos;
  EXPECT_TRUE(warned);
  const Body& base = r.world.bodies[size_t(body_index(r.world, "arm/base"))];
  EXPECT_EQ(base.kind, BodyKind::Fixed);  // welded to the world
  EXPECT_EQ(base.shape.type, ShapeType::Mesh);
}

}  // namespace
}  // namespace cl
