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

// Geometry and values urdfdom cannot read are errors naming the element and its line, never dropped in silence:
// for a collision <capsule> or a mass that is no number urdfdom 3.0 logs an error and returns the model without
// that link's collision geometry, which was imported as if nothing were wrong; for an effort that is no number it
// fails, and the message named no line. A visual <capsule> and a <collision> without <geometry> are refused too.
TEST(ImportUrdf, GeometryAndValuesUrdfdomCannotReadNameTheElement) {
  const std::string head = "<robot name=\"p\"><link name=\"a\">\n";
  const struct {
    const char* name;
    std::string body, expected;
  } cases[] = {
      {"capsule.urdf",
       "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>\n<collision><geometry>\n"
       "<capsule radius=\"0.1\" length=\"0.2\"/></geometry></collision></link></robot>",
       "capsule.urdf:4: <capsule>: <capsule> is no URDF geometry (box, sphere, cylinder or mesh): not imported"},
      {"mass.urdf",
       "<inertial>\n<mass value=\"heavy\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
       "</inertial><collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link></robot>",
       "mass.urdf:3: <mass>: urdfdom: "},
      {"effort.urdf",
       "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link><link name=\"b\">"
       "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link>\n<joint name=\"j\" "
       "type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>\n"
       "<limit lower=\"0\" upper=\"1\" effort=\"x\" velocity=\"1\"/></joint></robot>",
       "effort.urdf:4: <limit>: urdfdom: "},
      {"visual.urdf",
       "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>\n<visual><geometry>\n"
       "<capsule radius=\"0.1\" length=\"0.2\"/></geometry></visual></link></robot>",
       "visual.urdf:4: <capsule>: <capsule> is no URDF geometry (box, sphere, cylinder or mesh): not imported"},
      {"bare.urdf", "<collision>\n<origin xyz=\"0 0 0\"/></collision></link></robot>",
       "bare.urdf:2: <collision>: a <collision> needs a <geometry>"},
  };
  for (const auto& c : cases) {
    const std::string path = testing::TempDir() + "/" + c.name;
    std::ofstream(path) << head << c.body;
    const std::string e = urdf_error(path);
    EXPECT_NE(e.find(c.expected), std::string::npos) << e;
  }
}

#else
TEST(ImportUrdf, ThisBuildHasNone) { GTEST_SKIP() << "built without liburdfdom-dev: no URDF import"; }
#endif

}  // namespace
}  // namespace cl
