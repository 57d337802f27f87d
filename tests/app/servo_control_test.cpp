// Joint servos driven from the keyboard and the Servos panel (app/viewer/servo_control.cpp).
#include "viewer/servo_control.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <string>

#include "scene/scene.h"
#include "viewer/selection.h"
#include "viewer/session.h"
#include "support/scratch.h"
#include "app_test_support.h"

namespace cl::viewer {

// --- joint servos driven from the keyboard ---------------------------------------------------------------

namespace {
// A cart on a slider along x (servo keys U / J, rate 0.5 m/s, range [-0.2, 0.3]), an arm on a hinge whose
// servo has keys 7 / M but no range, and a bob on a ball joint (no servo), in zero gravity; dt 0.01 s.
AppState servo_app() {
  const std::string path = cl::test::scratch_path("servo_scene.json");
  std::ofstream(path) << R"({"format": 1, "name": "servos", "gravity": [0, 0, 0], "dt": 0.01,
    "bodies": [
      {"name": "base", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]}, "fixed": true, "position": [0, 1, 0]},
      {"name": "cart", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]}, "mass": 1, "position": [1, 1, 0]},
      {"name": "arm", "shape": {"type": "box", "half_extents": [0.5, 0.05, 0.05]}, "mass": 1, "position": [0.5, 3, 0]},
      {"name": "bob", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [-2, 3, 0]}
    ],
    "joints": [
      {"name": "rail", "type": "slider", "bodies": ["base", "cart"], "anchor": [1, 1, 0], "axis": [1, 0, 0],
       "servo": {"target": 0, "stiffness": 2000, "damping": 100, "range": [-0.2, 0.3], "keys": ["U", "j"], "rate": 0.5}},
      {"name": "elbow", "type": "hinge", "bodies": ["base", "arm"], "anchor": [0, 3, 0], "axis": [0, 0, 1],
       "servo": {"target": 3, "keys": ["7", "m"], "rate": 2}},
      {"type": "ball", "bodies": ["base", "bob"], "anchor": [-2, 3, 0]}
    ]})";
  return open_or_throw(path);
}
double target(const AppState& app, int joint) { return app.scene.world.joints[size_t(joint)].servo.target; }
}  // namespace

TEST(ServoControl, ServosAreListedWithTheirKeys) {
  AppState app = servo_app();
  EXPECT_EQ(servo_joints(app.scene.world), (std::vector<int>{0, 1}));
  EXPECT_EQ(servo_key_label(app.scene.world.joints[0].servo), "U / J");
  EXPECT_EQ(servo_key_label(app.scene.world.joints[1].servo), "7 / M");
  EXPECT_EQ(servo_key_label(JointServo{}), "");
  // The loader refuses the viewer's own shortcut keys for servos.
  for (char key : viewer_shortcut_keys()) {
    EXPECT_NE(kServoReservedKeys.find(key), std::string_view::npos) << "viewer key '" << key << "' is not reserved";
  }
}

// The Inspector's motor cannot be switched on for a servo joint: the saved scene would not load again.
TEST(ServoControl, ServoJointsGetNoMotor) {
  AppState app = servo_app();
  set_joint_settings(app, 0, JointLimit{}, JointMotor{true, 1.0, 100.0}, 0.2, 0.0);
  EXPECT_FALSE(app.scene.world.joints[0].motor.enabled);
  EXPECT_FALSE(app.scene.loaded.joints[0].motor.enabled);
  SceneLoadResult again = load_scene_json(scene_to_json(app.scene.world), "saved.json");
  EXPECT_TRUE(again.ok()) << again.error;
}

TEST(ServoControl, HeldServoKeyMovesTheTargetAtItsRateAndWakesTheBodies) {
  AppState app = servo_app();
  World& world = app.scene.world;
  const double dt = world.settings.dt;
  // Nothing held: nothing moves.
  ASSERT_TRUE(step_once(app));
  EXPECT_EQ(target(app, 0), 0.0);
  // U held: the slider's target rises by rate * dt per step.
  app.servos.held = "u";
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_NEAR(target(app, 0), 10 * 0.5 * dt, 1e-12);
  EXPECT_EQ(target(app, 1), 3.0) << "another servo's target stays";
  // J held: it falls; both held: they cancel.
  app.servos.held = "j";
  ASSERT_TRUE(step_once(app));
  EXPECT_NEAR(target(app, 0), 9 * 0.5 * dt, 1e-12);
  app.servos.held = "uj";
  ASSERT_TRUE(step_once(app));
  EXPECT_NEAR(target(app, 0), 9 * 0.5 * dt, 1e-12);
  // Directly, as the viewer loop would for any span of time.
  EXPECT_TRUE(drive_servo(app, 0, +1, 0.1));
  EXPECT_NEAR(target(app, 0), 9 * 0.5 * dt + 0.05, 1e-12);
  EXPECT_FALSE(drive_servo(app, 0, 0, 0.1));
  EXPECT_FALSE(drive_servo(app, 2, +1, 0.1)) << "the ball joint has no servo";

  // A changed target wakes the joint's bodies; an unchanged one leaves them asleep.
  world.bodies[1].sleeping = true;
  EXPECT_TRUE(drive_servo(app, 0, -1, 0.01));
  EXPECT_FALSE(world.bodies[1].sleeping);

  // Clamped at the range: held long enough, the target stops at the upper end and stays there.
  app.servos.held = "u";
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_EQ(target(app, 0), 0.3);
  world.bodies[1].sleeping = true;
  EXPECT_FALSE(drive_servo(app, 0, +1, 1.0));
  EXPECT_TRUE(world.bodies[1].sleeping) << "no change, no wake";
  world.bodies[1].sleeping = false;
  app.servos.held = "j";
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_EQ(target(app, 0), -0.2);
  // The servo follows its target.
  app.servos.held.clear();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_NEAR(joint_coordinate(world.joints[0], world.bodies), -0.2, 0.01);

  // A hinge servo without a range stops at pi, the largest angle scene files take (so it still saves).
  app.servos.held = "7";
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_EQ(target(app, 1), std::numbers::pi);

  // Paused, held keys do nothing; Reset goes back to the file's targets.
  app.sim.playing = false;
  app.servos.held = "m";
  advance_simulation(app, 0.1);
  EXPECT_EQ(target(app, 1), std::numbers::pi);
  reset_scene(app);
  EXPECT_EQ(target(app, 0), 0.0);
  EXPECT_EQ(target(app, 1), 3.0);
}

TEST(ServoControl, ServoTargetsFromThePanelAreClampedAndSaved) {
  AppState app = servo_app();
  app.scene.world.bodies[1].sleeping = true;
  EXPECT_TRUE(set_joint_servo_target(app, 0, 0.25));
  EXPECT_EQ(target(app, 0), 0.25);
  EXPECT_FALSE(app.scene.world.bodies[1].sleeping);
  EXPECT_TRUE(set_joint_servo_target(app, 0, 5.0));
  EXPECT_EQ(target(app, 0), 0.3);
  EXPECT_FALSE(set_joint_servo_target(app, 0, 0.3)) << "unchanged";
  EXPECT_FALSE(set_joint_servo_target(app, 0, std::nan("")));
  EXPECT_TRUE(set_joint_servo_target(app, 1, -7.0));
  EXPECT_EQ(target(app, 1), -std::numbers::pi);
  double lo = 0, hi = 0;
  servo_target_bounds(app.scene.world.joints[0], &lo, &hi);
  EXPECT_EQ(lo, -0.2);
  EXPECT_EQ(hi, 0.3);

  const std::string path = cl::test::scratch_path("servo_saved.json");
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  SceneLoadResult r = load_scene_file(path);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.world.joints[0].servo.target, 0.3);
  EXPECT_EQ(r.world.joints[0].servo.key_raise, 'u');
  EXPECT_EQ(r.world.joints[0].servo.key_lower, 'j');
  EXPECT_EQ(r.world.joints[0].servo.rate, 0.5);
  EXPECT_EQ(r.world.joints[1].servo.target, -std::numbers::pi);
  EXPECT_EQ(r.world.joints[1].servo.rate, 2.0);
}

}  // namespace cl::viewer
