// The MJCF subset reader: default classes, orientations, units, actuators, and errors naming the file, the element
// and its line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "scene/model_include.h"
#if CONTACTLAB_TEST_HAS_MJCF
#include "scene/import_mjcf.h"
#endif

namespace cl {
namespace {

#if CONTACTLAB_TEST_HAS_MJCF
const std::string kData = std::string(CONTACTLAB_SOURCE_DIR) + "/tests/data/models/";

std::string write(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string mjcf_error(const std::string& path) {
  try {
    import_mjcf(path);
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was read";
  return {};
}

TEST(ImportMjcf, ClassesOrientationsAndUnits) {
  const std::string path = write("classes.xml", R"(<mujoco model="m">
  <compiler angle="degree" eulerseq="zyx"/>
  <default>
    <geom density="300" friction="0.7"/>
    <joint damping="2"/>
    <default class="limb"><joint range="-45 90"/><geom type="capsule" size="0.05 0.2"/></default>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 1" euler="90 0 0">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="leg" pos="0 0 -0.5" childclass="limb">
        <joint name="hip" axis="1 0 0"/>
        <geom fromto="0 0 0 0 0 -0.4" size="0.04"/>
        <site name="s"/>
      </body>
    </body>
  </worldbody>
  <actuator><position name="hip_servo" joint="hip" kp="50" ctrlrange="-1 1"/></actuator>
</mujoco>)");
  const RobotModel m = import_mjcf(path);
  ASSERT_EQ(m.links.size(), 2u);
  ASSERT_EQ(m.world_geoms.size(), 1u);
  EXPECT_EQ(m.world_geoms[0].type, ModelGeom::Type::Plane);
  const ModelLink& torso = m.links[0];
  // euler="90 0 0" with eulerseq zyx: 90 degrees about z.
  EXPECT_NEAR((torso.pose.orientation * Vec3::UnitX() - Vec3::UnitY()).norm(), 0, 1e-12);
  EXPECT_EQ(torso.geoms[0].density.value_or(0), 300);
  EXPECT_EQ(torso.geoms[0].friction.value_or(0), 0.7);
  EXPECT_EQ(m.joints[0].type, ModelJoint::Type::Free);
  const ModelLink& leg = m.links[1];
  // The leg's frame: 0.5 below the torso's origin, turned with it.
  EXPECT_NEAR((leg.pose.position - Vec3(0, 0, 0.5)).norm(), 0, 1e-12);
  // fromto: a capsule of half length 0.2 along z, centred 0.2 below the body origin; the class's size gives way.
  EXPECT_EQ(leg.geoms[0].type, ModelGeom::Type::Capsule);
  EXPECT_NEAR(leg.geoms[0].half_length, 0.2, 1e-12);
  EXPECT_NEAR(leg.geoms[0].radius, 0.04, 1e-12);
  EXPECT_NEAR((leg.geoms[0].pose.position - Vec3(0, 0, -0.2)).norm(), 0, 1e-12);
  const ModelJoint& hip = m.joints[1];
  EXPECT_EQ(hip.type, ModelJoint::Type::Hinge);
  ASSERT_TRUE(hip.limits);
  EXPECT_NEAR(hip.limits->first, -std::numbers::pi / 4, 1e-12);  // degrees from the class
  EXPECT_NEAR(hip.limits->second, std::numbers::pi / 2, 1e-12);
  EXPECT_EQ(hip.damping, 2);
  EXPECT_NEAR((hip.axis - Vec3::UnitY()).norm(), 0, 1e-12);  // x turned 90 degrees about z
  ASSERT_EQ(m.actuators.size(), 1u);
  EXPECT_EQ(m.actuators[0].type, ModelActuator::Type::Position);
  EXPECT_EQ(m.actuators[0].kp, 50);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
}

TEST(ImportMjcf, BrokenXmlNamesTheLine) {
  // tinyxml2 names the element left open, at the line where it opens.
  EXPECT_EQ(mjcf_error(kData + "broken.xml"), kData + "broken.xml:3: XML syntax error: XML_ERROR_MISMATCHED_ELEMENT "
                                                      "(XMLElement name=body)");
}

TEST(ImportMjcf, UnknownJointTypeNamesTheElement) {
  EXPECT_EQ(mjcf_error(kData + "unknown_joint.xml"),
            kData + "unknown_joint.xml:4: <joint name=\"twist\">: unknown joint type \"screw\" (MJCF's types: hinge, "
                    "slide, ball, free)");
}

TEST(ImportMjcf, MissingMeshNamesTheAsset) {
  const std::string e = mjcf_error(kData + "missing_mesh.xml");
  EXPECT_NE(e.find("missing_mesh.xml:3: <mesh name=\"part\">: mesh file \"meshes/nowhere.obj\" not found"),
            std::string::npos) << e;
}

TEST(ImportMjcf, WhatContactLabCannotHoldIsAnErrorOrAWarning) {
  auto doc = [](const std::string& body) {
    return "<mujoco><worldbody><body name=\"b\">" + body + "</body></worldbody></mujoco>";
  };
  EXPECT_NE(mjcf_error(write("two.xml", doc("<joint name=\"x\"/><joint name=\"y\"/><geom size=\"0.1\"/>"))).find(
                "two.xml:1: <joint name=\"y\">: a second joint in body \"b\""), std::string::npos);
  EXPECT_NE(mjcf_error(write("ell.xml", doc("<geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\"/>"))).find(
                "geom type \"ellipsoid\" is not imported"), std::string::npos);
  EXPECT_NE(mjcf_error(write("plane.xml", doc("<freejoint/><geom type=\"plane\" size=\"1 1 1\"/>"))).find(
                "a plane on a moving body"), std::string::npos);
  EXPECT_NE(mjcf_error(write("class.xml", doc("<geom class=\"nope\" size=\"0.1\"/>"))).find(
                "unknown default class \"nope\""), std::string::npos);
  const RobotModel m = import_mjcf(write("warn.xml", "<mujoco><worldbody><body name=\"b\"><joint name=\"j\" "
                                                     "stiffness=\"3\"/><geom size=\"0.1\"/><geom size=\"0.1\" "
                                                     "contype=\"0\" conaffinity=\"0\"/></body></worldbody>"
                                                     "<tendon/></mujoco>"));
  ASSERT_EQ(m.warnings.size(), 3u);
  EXPECT_NE(m.warnings[0].find("warn.xml:1: <geom>: contype and conaffinity 0"), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[1].find("<joint name=\"j\">: attribute stiffness is not imported"), std::string::npos);
  EXPECT_NE(m.warnings[2].find("<tendon>: not imported"), std::string::npos);
}

#else
TEST(ImportMjcf, ThisBuildHasNone) { GTEST_SKIP() << "built without libtinyxml2-dev: no MJCF import"; }
#endif

}  // namespace
}  // namespace cl
