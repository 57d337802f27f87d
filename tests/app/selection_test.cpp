// Selecting bodies and joints, joint drawing frames and joint edits (app/viewer/selection.cpp).
#include "viewer/selection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "viewer/convert.h"
#include "viewer/script_edit.h"
#include "viewer/session.h"
#include "app_test_support.h"

namespace cl::viewer {

// --- selection, waking, joints ------------------------------------------------------------------------

TEST(Selection, SelectingASleepingBodyWakesIt) {
  AppState app = open_default();
  const int box = body_named(app, "box");
  app.scene.world.bodies[box].sleeping = true;
  app.scene.world.bodies[box].calm_steps = 100;
  select_body(app, box);
  EXPECT_EQ(app.pick.selected, box);
  EXPECT_FALSE(app.scene.world.bodies[box].sleeping);
  select_joint(app, -1);
  EXPECT_EQ(app.pick.selected, box);  // deselecting a joint leaves the body alone

  // Selecting another body ends Script path mode (its clicks would lay a path for a body not shown).
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error)) << error;
  select_body(app, box);
  EXPECT_TRUE(app.script.laying);
  select_body(app, -1);
  EXPECT_FALSE(app.script.laying);
}

namespace {
// A fixed post with a door hinged to it about +y, at rest, and an AppState holding it.
AppState door_app(JointType type) {
  AppState app;
  World w;
  w.settings.gravity = Vec3::Zero();
  Body post;
  post.name = "post";
  post.kind = BodyKind::Fixed;
  post.shape.type = ShapeType::Box;
  post.shape.half_extents = Vec3(0.1, 1.0, 0.1);
  post.position = Vec3(0, 1, 0);
  post.set_mass_properties(0, 0);
  Body door;
  door.name = "door";
  door.shape.type = ShapeType::Box;
  door.shape.half_extents = Vec3(0.5, 0.9, 0.05);
  door.position = Vec3(0.7, 1, 0);
  door.set_mass_properties(500, 0);
  w.bodies = {post, door};
  w.joints.push_back(make_joint(type, w.bodies, 0, 1, Vec3(0.15, 1, 0), Vec3(0, 1, 0), Vec3(1, 0, 0)));
  app.scene.world = w;
  app.scene.loaded = w;
  return app;
}
// Turns body 1 by `angle` about the axis `axis` through `anchor`.
void turn_body(World& w, const Vec3& anchor, const Vec3& axis, double angle) {
  const Quat r(Eigen::AngleAxisd(angle, axis));
  Body& b = w.bodies[1];
  b.position = anchor + r * (b.position - anchor);
  b.orientation = (r * b.orientation).normalized();
}
}  // namespace

TEST(Selection, HingeNeedleLiesAtTheJointAngleFromZero) {
  for (const JointType type : {JointType::Hinge, JointType::Hinge2, JointType::Universal}) {
    AppState app = door_app(type);
    World& w = app.scene.world;
    turn_body(w, Vec3(0.15, 1, 0), Vec3(0, 1, 0), 0.6);
    const Joint& j = w.joints[0];
    const double angle = joint_coordinate(j, w.bodies);
    EXPECT_NEAR(std::abs(angle), 0.6, 1e-9) << joint_type_name(type);
    Vec3 zero, needle;
    ASSERT_TRUE(joint_angle_frame(w, j, &zero, &needle)) << joint_type_name(type);
    const Vec3 axis = joint_axis_world(w, j, false);
    EXPECT_NEAR(zero.dot(axis), 0.0, 1e-12);
    const Vec3 expected = std::cos(angle) * zero + std::sin(angle) * axis.cross(zero);
    EXPECT_NEAR((needle - expected).norm(), 0.0, 1e-9) << joint_type_name(type);
    if (type == JointType::Hinge) {  // the needle points at the door's centre
      const Vec3 d = w.bodies[1].position - joint_anchor_world(w, j, 0);
      EXPECT_NEAR((needle - (d - d.dot(axis) * axis).normalized()).norm(), 0.0, 1e-9);
    }
  }
  AppState app = door_app(JointType::Slider);
  Vec3 zero, needle;
  EXPECT_FALSE(joint_angle_frame(app.scene.world, app.scene.world.joints[0], &zero, &needle));
}

TEST(Selection, JointsArePickedNearTheirAnchorOnScreen) {
  AppState app = door_app(JointType::Hinge);
  app.viewport_width = 1280;
  app.viewport_height = 720;
  app.camera.target = glm::vec3(0, 1, 0);
  app.camera.distance = 6;
  float x = 0, y = 0;
  ASSERT_TRUE(project_to_window(app, joint_anchor_world(app.scene.world, app.scene.world.joints[0], 0), &x, &y));
  EXPECT_GT(x, 0);
  EXPECT_LT(x, 1280);
  EXPECT_EQ(pick_joint(app, x + 4, y - 3, 10), 0);
  EXPECT_EQ(pick_joint(app, x + 40, y, 10), -1);
  // The window point maps back to a ray through the anchor.
  const Ray ray = app.camera.ray_through(x, y, 1280, 720);
  const Vec3 o = to_vec3(ray.origin), d = to_vec3(ray.dir);
  const Vec3 a = joint_anchor_world(app.scene.world, app.scene.world.joints[0], 0);
  EXPECT_NEAR(((a - o) - (a - o).dot(d) * d).norm(), 0.0, 1e-3);

  select_body(app, 1);
  select_joint(app, 0);
  EXPECT_EQ(app.pick.selected_joint, 0);
  EXPECT_EQ(app.pick.selected, -1);
}

TEST(Selection, JointEditsReachTheResetStateAndWakeTheBodies) {
  AppState app = door_app(JointType::Hinge);
  app.scene.world.bodies[1].sleeping = true;
  JointLimit limit{true, -0.5, 0.7};
  JointMotor motor{true, 1.5, 2000.0};
  set_joint_settings(app, 0, limit, motor, 0.4, 1e-4);
  for (const World* w : {&app.scene.world, &app.scene.loaded}) {
    const Joint& j = w->joints[0];
    EXPECT_TRUE(j.limit.enabled);
    EXPECT_EQ(j.limit.lower, -0.5);
    EXPECT_EQ(j.limit.upper, 0.7);
    EXPECT_EQ(j.motor.speed, 1.5);
    EXPECT_EQ(j.motor.max_force, 2000.0);
    EXPECT_EQ(j.erp, 0.4);
    EXPECT_EQ(j.cfm, 1e-4);
  }
  EXPECT_FALSE(app.scene.world.bodies[1].sleeping);
  // The motor turns the door up to the limit.
  for (int i = 0; i < 90; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_NEAR(joint_coordinate(app.scene.world.joints[0], app.scene.world.bodies), 0.7, 0.03);
}

}  // namespace cl::viewer
