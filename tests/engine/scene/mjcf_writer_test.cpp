// The MJCF writer: a world written as MJCF and read back by the MJCF reader gives the same bodies, masses, joints
// and drives; what MJCF's tree cannot hold is refused naming the body or joint.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "scene/mjcf_writer.h"
#include "scene/model_include.h"
#include "scene/scene.h"

namespace cl {
namespace {

using nlohmann::json;

const std::string kWrittenScenes = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/";

World load_written(const std::string& path) {
  SceneLoadResult r = load_scene_file(path);
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.world);
}

const Body* find(const World& w, const std::string& name) {
  for (const Body& b : w.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

TEST(MjcfWriter, ReadsBackAsTheSameWorld) {
  if (!has_mjcf_import()) GTEST_SKIP() << "no MJCF import in this build";
  for (const std::string scene : {"models/gripper_mjcf.json", "models/walker_urdf.json", "door.json"}) {
    SCOPED_TRACE(scene);
    const World w = load_written(kWrittenScenes + scene);
    std::string error;
    const std::string xml = world_to_mjcf(w, {}, &error);
    ASSERT_FALSE(xml.empty()) << error;
    const std::string path = testing::TempDir() + "/written.xml";
    std::ofstream(path) << xml;
    // Written in the scene's frame (y up), read back as a y-up model.
    const json doc = {{"format", 1}, {"bodies", json::array()},
                      {"models", json::array({{{"file", path}, {"name", "rt"}, {"up", "y"}}})}};
    SceneLoadResult back = load_scene_json(doc, testing::TempDir() + "/scene.json");
    ASSERT_TRUE(back.ok()) << back.error << "\n" << xml;
    for (const Body& b : w.bodies) {
      if (!b.is_dynamic()) continue;
      const Body* r = find(back.world, "rt/" + b.name);
      ASSERT_TRUE(r) << b.name;
      EXPECT_EQ(r->shape.type, b.shape.type) << b.name;
      EXPECT_NEAR(r->mass, b.mass, 1e-9 * b.mass) << b.name;
      EXPECT_LT((r->position - b.position).norm(), 1e-9) << b.name;
      EXPECT_LT((r->inertia_world() - b.inertia_world()).norm(), 1e-9 * b.inertia_body.norm()) << b.name;
    }
    for (const Joint& j : w.joints) {
      if (j.type == JointType::Fixed) continue;  // a weld is a body without a joint
      const Joint* r = nullptr;
      for (const Joint& k : back.world.joints)
        if (k.name == "rt/" + j.name) r = &k;
      ASSERT_TRUE(r) << j.name;
      EXPECT_EQ(r->type, j.type) << j.name;
      EXPECT_EQ(r->limit.enabled, j.limit.enabled) << j.name;
      EXPECT_NEAR(r->limit.lower, j.limit.lower, 1e-9) << j.name;
      EXPECT_EQ(r->motor.enabled, j.motor.enabled) << j.name;
      EXPECT_EQ(r->motor.max_force, j.motor.max_force) << j.name;
      EXPECT_EQ(r->servo.stiffness, j.servo.stiffness) << j.name;
      EXPECT_EQ(r->servo.damping, j.servo.damping) << j.name;
    }
  }
}

TEST(MjcfWriter, WritesControlsAndSizes) {
  if (!has_urdf_import()) GTEST_SKIP() << "no URDF import in this build";
  const World w = load_written(kWrittenScenes + "models/gripper_urdf.json");
  MjcfWriteOptions o;
  o.iterations = 7;
  o.nconmax = 100;
  o.njmax = 400;
  o.nstack = 100000;
  std::string error;
  const std::string xml = world_to_mjcf(w, o, &error);
  ASSERT_FALSE(xml.empty()) << error;
  EXPECT_NE(xml.find("iterations=\"7\""), std::string::npos);
  EXPECT_NE(xml.find("<size nconmax=\"100\" njmax=\"400\" nstack=\"100000\"/>"), std::string::npos);
  // The servos' targets, in the order of the actuators: lift, left, right.
  EXPECT_NE(xml.find("<key name=\"contactlab\" ctrl=\"0.25 0.050000000000000003 0.050000000000000003\"/>"),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("<position name=\"gripper/left\" joint=\"gripper/left\" kp=\"2000\" forcelimited=\"true\" "
                     "forcerange=\"-40 40\"/>"), std::string::npos) << xml;
}

// A mesh that bounds a convex solid (the arm's hexagonal turret) is written as an MJCF mesh asset with its vertices
// in the file, and its geom on its body; MuJoCo collides a mesh's convex hull, so it is that very solid.
TEST(MjcfWriter, WritesConvexMeshesWithTheirVertices) {
  if (!has_urdf_import()) GTEST_SKIP() << "no URDF import in this build";
  const World w = load_written(kWrittenScenes + "models/arm_urdf.json");
  std::string error;
  const std::string xml = world_to_mjcf(w, {}, &error);
  ASSERT_FALSE(xml.empty()) << error;
  const Body* turret = find(w, "arm/turret");
  ASSERT_TRUE(turret && turret->shape.mesh);
  const size_t asset = xml.find("<asset>\n<mesh name=\"mesh0\" vertex=\"");
  ASSERT_NE(asset, std::string::npos) << xml;
  // The turret's vertices (body frame, about its centre of mass), in order, as written (17 digits: exactly).
  const size_t begin = xml.find("vertex=\"", asset) + 8, end = xml.find('"', begin);
  std::istringstream numbers(xml.substr(begin, end - begin));
  std::vector<double> written;
  for (double x; numbers >> x;) written.push_back(x);
  const std::vector<Vec3>& vertices = turret->shape.mesh->mesh.vertices;
  ASSERT_EQ(written.size(), 3 * vertices.size());
  for (size_t i = 0; i < vertices.size(); ++i)
    EXPECT_EQ(Vec3(written[3 * i], written[3 * i + 1], written[3 * i + 2]), vertices[i]) << "vertex " << i;
  EXPECT_NE(xml.find("<geom name=\"arm/turret\" type=\"mesh\" mesh=\"mesh0\" pos=\"0 0 0\""), std::string::npos) << xml;
  EXPECT_LT(xml.find("</asset>"), xml.find("<worldbody>"));
}

TEST(MjcfWriter, RefusesWhatMjcfCannotHold) {
  std::string error;
  EXPECT_TRUE(world_to_mjcf(load_written(kWrittenScenes + "torus_stack.json"), {}, &error).empty());
  EXPECT_NE(error.find("body 'torus_0' (/bodies/1): a mesh that does not bound a convex solid is not written"),
            std::string::npos) << error;
  EXPECT_TRUE(world_to_mjcf(load_written(kWrittenScenes + "car.json"), {}, &error).empty());
  EXPECT_NE(error.find("hinge2 joints are not written"), std::string::npos) << error;
  EXPECT_TRUE(world_to_mjcf(load_written(kWrittenScenes + "excavator.json"), {}, &error).empty());
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace cl
