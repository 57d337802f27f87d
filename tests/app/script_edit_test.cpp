// Scripted motion laid in the viewer (app/viewer/script_edit.cpp): clicked points, apply, reset, clear, save.
#include "viewer/script_edit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "scene/scene.h"
#include "viewer/selection.h"
#include "viewer/session.h"
#include "app_test_support.h"
#include "support/scratch.h"

namespace cl::viewer {

// --- scripted motion: lay a path with clicks, set its speed, apply, reset, clear, save -------------------

namespace {
// A click straight down onto the scene at (x, z).
void click_from_above(AppState& app, double x, double z) {
  add_script_point(app, Vec3(x, 20.0, z), Vec3(0, -1, 0));
}
// Lays the path box -> (1, 0, 4) -> (4, 0, 4) and applies it.
void lay_and_apply_box_path(AppState& app) {
  const int box = body_named(app, "box");
  select_body(app, box);
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error)) << error;
  click_from_above(app, 1.0, 4.0);
  click_from_above(app, 4.0, 4.0);
  app.script.speed = 2.0;
  ASSERT_TRUE(apply_script(app, &error)) << error;
}
}  // namespace

TEST(ScriptEdit, ClickedScriptPointsRestOnTheSurfaceOrLieAtBodyHeight) {
  AppState app = open_default();
  const int box = body_named(app, "box"), sphere = body_named(app, "sphere");
  select_body(app, box);
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error)) << error;
  // The path starts at the body, so applying does not make it jump.
  ASSERT_EQ(app.script.points.size(), 1u);
  EXPECT_EQ(app.script.points[0], app.scene.world.bodies[box].position);

  // On the ground: the box's centre half its height above it.
  click_from_above(app, 3.0, 2.0);
  ASSERT_EQ(app.script.points.size(), 2u);
  EXPECT_NEAR((app.script.points[1] - Vec3(3.0, 0.5, 2.0)).norm(), 0.0, 1e-9);
  // On top of the sphere: resting on it (sphere top at 1.0, plus the box's half height).
  click_from_above(app, -1.0, 0.0);
  ASSERT_EQ(app.script.points.size(), 3u);
  EXPECT_NEAR(app.script.points[2].y(), 1.5, 1e-6);
  // The body itself is not a surface for its own path: clicking on it reaches the ground below.
  click_from_above(app, 1.0, 0.0);
  EXPECT_NEAR(app.script.points.back().y(), 0.5, 1e-9);
  // Plane mode: the horizontal plane through the centre, whatever is under the cursor.
  app.script.plane_only = true;
  add_script_point(app, Vec3(-1.0, 10.0, 9.5), Vec3(0, -9.5, -9.5).normalized());
  EXPECT_NEAR((app.script.points.back() - Vec3(-1.0, 0.5, 0.0)).norm(), 0.0, 1e-9);
  // Undo keeps the start point while laying.
  for (int i = 0; i < 10; ++i) remove_last_script_point(app);
  EXPECT_EQ(app.script.points.size(), 1u);
  // A ray pointing away from everything adds nothing.
  EXPECT_FALSE(add_script_point(app, Vec3(0, 5, 0), Vec3(0, 1, 0)));
  EXPECT_FALSE(app.script.error.empty());
  (void)sphere;
}

TEST(ScriptEdit, ApplyMakesTheBodyKinematicAndResetReplaysThePath) {
  AppState app = open_default();
  const int box = body_named(app, "box");
  const double mass = app.scene.world.bodies[box].mass;
  std::string error;
  select_body(app, box);
  ASSERT_TRUE(begin_script_path(app, &error));
  EXPECT_FALSE(apply_script(app, &error));  // one point is no path
  EXPECT_NE(error.find("2 points"), std::string::npos) << error;
  click_from_above(app, 1.0, 4.0);
  click_from_above(app, 4.0, 4.0);
  app.script.speed = 2.0;
  ASSERT_TRUE(apply_script(app, &error)) << error;
  EXPECT_FALSE(app.script.laying);

  for (const World* w : {&app.scene.world, &app.scene.loaded}) {
    const Body& b = w->bodies[box];
    EXPECT_EQ(b.kind, BodyKind::Kinematic);
    EXPECT_EQ(b.inv_mass, 0.0);
    EXPECT_EQ(b.inv_inertia_body, Mat3::Zero());
    ASSERT_EQ(w->scripts.size(), 1u);
    EXPECT_EQ(w->scripts[0].body, box);
    EXPECT_EQ(w->scripts[0].points.size(), 3u);
    EXPECT_EQ(w->scripts[0].speed, 2.0);
  }
  // It moves along the path at the set speed: after 0.5 s, about 1 m along the first leg.
  const Vec3 start = app.scene.world.bodies[box].position;
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  const Vec3 now = app.scene.world.bodies[box].position;
  EXPECT_GT(now.z() - start.z(), 0.8);
  EXPECT_NEAR((now - start).norm(), 1.0, 0.1);
  EXPECT_NEAR(now.y(), 0.5, 0.05);  // the path stays at resting height

  // Reset starts again from the first point, with the script in place.
  reset_scene(app);
  EXPECT_EQ(app.scene.world.bodies[box].position, start);
  ASSERT_EQ(app.scene.world.scripts.size(), 1u);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_NEAR((app.scene.world.bodies[box].position - now).norm(), 0.0, 1e-9);

  // Clear gives back the dynamic body with its mass, in the running world and the reset state.
  load_script_draft(app, box);
  clear_script(app, true);
  for (const World* w : {&app.scene.world, &app.scene.loaded}) {
    EXPECT_TRUE(w->scripts.empty());
    EXPECT_EQ(w->bodies[box].kind, BodyKind::Dynamic);
    EXPECT_NEAR(w->bodies[box].mass, mass, 1e-9 * mass);
  }
  EXPECT_TRUE(app.scene.world.bodies[box].linear_velocity.norm() > 0.0);  // flies on with the path's speed
}

TEST(ScriptEdit, ApplyLaterStartsThePathNowAndDelaysIt) {
  AppState app = open_default();
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(step_once(app));  // t = 1 s
  const int box = body_named(app, "box");
  select_body(app, box);
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error));
  click_from_above(app, 1.0, 4.0);
  app.script.delay = 0.5;
  ASSERT_TRUE(apply_script(app, &error)) << error;
  EXPECT_NEAR(app.scene.world.scripts[0].start_time, app.scene.world.time() + 0.5, 1e-12);
  EXPECT_EQ(app.scene.loaded.scripts[0].start_time, 0.5);  // the reset state counts from 0
  const Vec3 start = app.scene.world.bodies[box].position;
  for (int i = 0; i < 24; ++i) ASSERT_TRUE(step_once(app));  // 0.4 s: still waiting
  EXPECT_NEAR((app.scene.world.bodies[box].position - start).norm(), 0.0, 1e-9);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_GT((app.scene.world.bodies[box].position - start).norm(), 0.1);
}

TEST(ScriptEdit, ChangingTheSpeedKeepsTheBodyOnItsPlace) {
  for (const ScriptTiming timing : {ScriptTiming::Constant, ScriptTiming::Ease}) {
    AppState app = open_default();
    const int box = body_named(app, "box");
    select_body(app, box);
    std::string error;
    ASSERT_TRUE(begin_script_path(app, &error));
    click_from_above(app, 1.0, 4.0);
    click_from_above(app, 4.0, 4.0);
    app.script.timing = timing;
    ASSERT_TRUE(apply_script(app, &error)) << error;
    for (int i = 0; i < 45; ++i) ASSERT_TRUE(step_once(app));
    const Script& s = app.scene.world.scripts[0];
    const double t = app.scene.world.time();
    const Vec3 before = sample_script(s, t).position;
    set_script_speed(app, box, 3.0);
    EXPECT_EQ(s.speed, 3.0);
    EXPECT_EQ(app.scene.loaded.scripts[0].speed, 3.0);
    EXPECT_EQ(app.script.speed, 3.0);
    EXPECT_NEAR((sample_script(s, t).position - before).norm(), 0.0, 1e-9);
    // And it is faster from now on.
    const double ahead_slow = (sample_script(s, t + 0.1).position - before).norm();
    set_script_speed(app, box, 1.0);
    EXPECT_NEAR((sample_script(s, t).position - before).norm(), 0.0, 1e-9);
    EXPECT_GT(ahead_slow, (sample_script(s, t + 0.1).position - before).norm());
  }
}

TEST(ScriptEdit, SavedScenesKeepTheScripts) {
  AppState app = open_default();
  lay_and_apply_box_path(app);
  const int box = body_named(app, "box");
  app.scene.world.scripts[0].timing = ScriptTiming::Ease;
  app.scene.world.scripts[0].loop = true;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(step_once(app));
  const std::string path = cl::test::scratch_path("saved_script_scene.json");
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;

  const SceneLoadResult loaded = load_scene_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  ASSERT_EQ(loaded.world.scripts.size(), 1u);
  const Script& s = loaded.world.scripts[0];
  const Script& original = app.scene.world.scripts[0];
  EXPECT_EQ(s.body, box);
  EXPECT_EQ(loaded.world.bodies[box].kind, BodyKind::Kinematic);
  EXPECT_EQ(s.points, original.points);
  EXPECT_EQ(s.speed, original.speed);
  EXPECT_EQ(s.timing, ScriptTiming::Ease);
  EXPECT_TRUE(s.loop);
  EXPECT_EQ(s.start_time, 0.0);  // under way when saved: the file starts it at once
  EXPECT_EQ(loaded.world.bodies[box].position, original.points.front());
}

TEST(ScriptEdit, SavingWhileAScriptWaitsKeepsTheRestOfTheWait) {
  AppState app = open_default();
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  const int box = body_named(app, "box");
  select_body(app, box);
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error));
  click_from_above(app, 1.0, 4.0);
  app.script.delay = 2.0;
  ASSERT_TRUE(apply_script(app, &error)) << error;
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));  // 0.5 s of the 2 s wait gone
  const std::string path = cl::test::scratch_path("saved_waiting_script.json");
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  const SceneLoadResult loaded = load_scene_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  ASSERT_EQ(loaded.world.scripts.size(), 1u);
  EXPECT_NEAR(loaded.world.scripts[0].start_time, 1.5, 1e-9);
}

TEST(ScriptEdit, ScriptsOfAFileCanBeClearedIntoADynamicBody) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  const std::string path = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/scripted_ball_push.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  ASSERT_TRUE(open_scene(app, path, nullptr, &error)) << error;
  ASSERT_FALSE(app.scene.world.scripts.empty());
  const int body = app.scene.world.scripts[0].body;
  select_body(app, body);
  load_script_draft(app, body);
  EXPECT_EQ(app.script.points, app.scene.world.scripts[0].points);  // the draft is the file's script
  app.script.restore_density = 500.0;
  clear_script(app, true);
  EXPECT_TRUE(app.scene.world.scripts.empty());
  const Body& b = app.scene.world.bodies[body];
  EXPECT_EQ(b.kind, BodyKind::Dynamic);  // no mass known from before: the density given in the panel
  EXPECT_NEAR(b.mass, 500.0 * shape_volume(b.shape), 1e-9 * b.mass);
}

TEST(ScriptEdit, ApplyRefusesPathsTheSceneLoaderWouldRefuse) {
  AppState app = open_default();
  select_body(app, body_named(app, "box"));
  std::string error;
  ASSERT_TRUE(begin_script_path(app, &error));
  click_from_above(app, 1.0, 4.0);
  app.script.loop = true;  // a loop needs 3 points
  EXPECT_FALSE(apply_script(app, &error));
  EXPECT_NE(error.find("looping"), std::string::npos) << error;
  app.script.loop = false;
  app.script.points.push_back(Vec3(1.0, 0.5, -3.0));  // straight back through the start
  EXPECT_FALSE(apply_script(app, &error));
  EXPECT_NE(error.find("point 2"), std::string::npos) << error;
  EXPECT_TRUE(app.scene.world.scripts.empty());
  EXPECT_EQ(app.scene.world.bodies[body_named(app, "box")].kind, BodyKind::Dynamic);
}

TEST(ScriptEdit, PlanesCannotBeScripted) {
  AppState app = open_default();
  select_body(app, body_named(app, "ground"));
  std::string error;
  EXPECT_FALSE(begin_script_path(app, &error));
  EXPECT_NE(error.find("plane"), std::string::npos) << error;
}

TEST(ScriptEdit, OpeningASceneDropsTheDraftAndJointSelection) {
  AppState app = open_default();
  lay_and_apply_box_path(app);
  app.pick.selected_joint = 3;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/sphere_and_box.json", nullptr, &error));
  EXPECT_EQ(app.pick.selected_joint, -1);
  EXPECT_EQ(app.script.body, -1);
  EXPECT_TRUE(app.script.points.empty());
  EXPECT_TRUE(app.script.originals.empty());
  EXPECT_TRUE(app.scene.world.scripts.empty());  // the file has none
}

}  // namespace cl::viewer
