// The URDF reader: links, joints, limits and bounds through urdfdom, and errors naming the file, the element and
// its line: broken XML, a missing mesh, an unknown joint type, a loop in the tree.
#include <gtest/gtest.h>

#include <fstream>

#include "scene/model_include.h"
#if CONTACTLAB_TEST_HAS_URDF
#include "scene/import_urdf.h"
#endif

namespace cl {
namespace {

#if CONTACTLAB_TEST_HAS_URDF
const std::string kUrdfData = std::string(CONTACTLAB_SOURCE_DIR) + "/tests/data/models/";

std::string urdf_error(const std::string& path) {
  try {
    import_urdf(path);
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was read";
  return {};
}

TEST(ImportUrdf, ReadsTheArm) {
  const RobotModel m = import_urdf(std::string(CONTACTLAB_SOURCE_DIR) + "/assets/models/arm.urdf");
  EXPECT_EQ(m.name, "arm");
  ASSERT_EQ(m.links.size(), 7u);  // the geometry-less "world" root is the model's world
  EXPECT_EQ(m.links[0].name, "base");
  EXPECT_EQ(m.joints[0].parent, -1);
  EXPECT_EQ(m.joints[0].type, ModelJoint::Type::Fixed);
  const ModelJoint& shoulder = m.joints[size_t(m.find_joint("shoulder"))];
  EXPECT_EQ(shoulder.type, ModelJoint::Type::Hinge);
  EXPECT_NEAR((shoulder.anchor - Vec3(0, 0, 0.26)).norm(), 0, 1e-12);
  EXPECT_NEAR((shoulder.axis - Vec3::UnitY()).norm(), 0, 1e-12);
  ASSERT_TRUE(shoulder.limits && shoulder.effort && shoulder.velocity);
  EXPECT_NEAR(shoulder.limits->second, 3.14159265358979 / 2, 1e-9);
  EXPECT_EQ(*shoulder.effort, 200);
  EXPECT_EQ(shoulder.damping, 60);
  const ModelJoint& yaw = m.joints[size_t(m.find_joint("yaw"))];
  EXPECT_FALSE(yaw.limits);  // continuous
  EXPECT_EQ(m.links[0].geoms[0].type, ModelGeom::Type::Cylinder);
  EXPECT_EQ(m.links[1].geoms[0].type, ModelGeom::Type::Mesh);
  EXPECT_TRUE(m.warnings.empty());
}

TEST(ImportUrdf, BrokenXmlNamesTheLine) {
  const std::string e = urdf_error(kUrdfData + "broken.urdf");
  EXPECT_EQ(e.rfind(kUrdfData + "broken.urdf:", 0), 0u) << e;
  EXPECT_NE(e.find("XML syntax error"), std::string::npos) << e;
}

TEST(ImportUrdf, UnknownJointTypeNamesTheElement) {
  EXPECT_EQ(urdf_error(kUrdfData + "unknown_joint.urdf"),
            kUrdfData + "unknown_joint.urdf:5: <joint name=\"twist\">: unknown joint type \"screw\" (URDF's types: "
                        "revolute, continuous, prismatic, fixed, floating, planar)");
}

TEST(ImportUrdf, MissingMeshNamesTheElement) {
  const std::string e = urdf_error(kUrdfData + "missing_mesh.urdf");
  EXPECT_NE(e.find("missing_mesh.urdf:4: <mesh>: mesh file \"meshes/nowhere.obj\" not found"), std::string::npos) << e;
}

TEST(ImportUrdf, LoopInTheTreeNamesTheJoint) {
  const std::string e = urdf_error(kUrdfData + "loop.urdf");
  EXPECT_NE(e.find("loop.urdf:"), std::string::npos) << e;
  EXPECT_NE(e.find("closes a loop in the tree"), std::string::npos) << e;
}

TEST(ImportUrdf, PlanarJointsAreRefused) {
  const std::string path = testing::TempDir() + "/planar.urdf";
  std::ofstream(path) << "<robot name=\"p\"><link name=\"a\"/><link name=\"b\"/>\n<joint name=\"slide\" "
                         "type=\"planar\"><parent link=\"a\"/><child link=\"b\"/></joint></robot>";
  EXPECT_NE(urdf_error(path).find("planar.urdf:2: <joint name=\"slide\">: planar joints are not imported"),
            std::string::npos) << urdf_error(path);
}

TEST(ImportUrdf, UrdfdomErrorsNameTheElement) {
  const std::string path = testing::TempDir() + "/nolimit.urdf";
  std::ofstream(path) << "<robot name=\"p\"><link name=\"a\"/><link name=\"b\"/>\n<joint name=\"hinge\" "
                         "type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint></robot>";
  const std::string e = urdf_error(path);
  EXPECT_NE(e.find("nolimit.urdf:2: <joint name=\"hinge\">: urdfdom: "), std::string::npos) << e;
}

#else
TEST(ImportUrdf, ThisBuildHasNone) { GTEST_SKIP() << "built without liburdfdom-dev: no URDF import"; }
#endif

}  // namespace
}  // namespace cl
