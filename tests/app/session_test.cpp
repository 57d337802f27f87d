// The viewer's simulation side (app/viewer/session.cpp, no GL): what a user does in the panels.
#include "viewer/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string_view>
#include <vector>

#include "scene/scene.h"
#include "viewer/convert.h"

namespace cl::viewer {

namespace {
AppState open_default() {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  EXPECT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/sphere_and_box.json", nullptr, &error))
      << error;
  return app;
}
}  // namespace

TEST(Session, BadSceneShowsErrorAndKeepsTheCurrentOne) {
  AppState app = open_default();
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  const double t = app.scene.world.time();
  const size_t bodies = app.scene.world.bodies.size();

  const std::string bad = testing::TempDir() + "/broken_scene.json";
  std::ofstream(bad) << R"({"format": 1, "bodies": [{"name": "b", "shape": {"type": "sphere", "radius": -1}, "mass": 1}]})";
  std::string error;
  EXPECT_FALSE(open_scene(app, bad, nullptr, &error));
  EXPECT_NE(error.find("broken_scene.json"), std::string::npos) << error;
  EXPECT_NE(error.find("/bodies/0/shape/radius"), std::string::npos) << error;
  EXPECT_EQ(app.scene.world.time(), t);  // nothing the user had is lost
  EXPECT_EQ(app.scene.world.bodies.size(), bodies);

  EXPECT_FALSE(open_scene(app, testing::TempDir() + "/does_not_exist.json", nullptr, &error));
  EXPECT_NE(error.find("does_not_exist.json"), std::string::npos) << error;
  EXPECT_EQ(app.scene.world.time(), t);
}

// The welcome's marker: under $XDG_CONFIG_HOME/contactlab (else ~/.config/contactlab); writing it makes it exist,
// so the next launch shows no welcome.
TEST(Session, WelcomeMarkerIsWrittenUnderTheConfigFolder) {
  const std::string config = testing::TempDir() + "/contactlab_config_test";
  std::filesystem::remove_all(config);
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  const std::string marker = welcome_marker_path();
  EXPECT_EQ(marker, config + "/contactlab/welcomed");
  EXPECT_FALSE(std::filesystem::exists(marker));
  mark_welcomed();
  EXPECT_TRUE(std::filesystem::exists(marker));
  if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CONFIG_HOME");
  std::filesystem::remove_all(config);
}

// Page Down and Page Up: the next and previous scene of the scenes/ list, wrapping at both ends; a list without
// the current scene starts at its first (or last) file; an empty list is an error and keeps the scene.
TEST(Session, NeighbourScenesWrapAroundTheList) {
  AppState app = open_default();
  app.scene.files = {"incline.json", "sphere_and_box.json", "two_balls.json"};
  std::string error;
  auto name = [&] { return std::filesystem::path(app.scene.path).filename().string(); };
  ASSERT_TRUE(open_neighbour_scene(app, 1, &error)) << error;
  EXPECT_EQ(name(), "two_balls.json");
  ASSERT_TRUE(open_neighbour_scene(app, 1, &error)) << error;
  EXPECT_EQ(name(), "incline.json");  // wrapped
  ASSERT_TRUE(open_neighbour_scene(app, -1, &error)) << error;
  EXPECT_EQ(name(), "two_balls.json");  // and back
  app.scene.files = {"sphere_and_box.json", "incline.json"};
  ASSERT_TRUE(open_neighbour_scene(app, -1, &error)) << error;  // two_balls is not in the list: the last
  EXPECT_EQ(name(), "incline.json");
  app.scene.files.clear();
  EXPECT_FALSE(open_neighbour_scene(app, 1, &error));
  EXPECT_NE(error.find("no scene files"), std::string::npos) << error;
  EXPECT_EQ(name(), "incline.json");
}

TEST(Session, ResetReturnsToTheLoadedState) {
  AppState app = open_default();
  const Vec3 start = app.scene.world.bodies.back().position;
  app.scene.world.bodies.back().linear_velocity = Vec3(3, 0, 0);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_GT((app.scene.world.bodies.back().position - start).norm(), 0.1);
  reset_scene(app);
  EXPECT_EQ(app.scene.world.time(), 0.0);
  EXPECT_EQ(app.scene.world.bodies.back().position, start);
}

TEST(Session, NonFiniteStepPausesWithTheMessageAndResetRecovers) {
  AppState app = open_default();
  app.scene.world.bodies.back().angular_velocity = Vec3(1e200, 3e200, 0);
  EXPECT_FALSE(step_once(app));
  EXPECT_NE(app.sim.step_error.find("non-finite"), std::string::npos) << app.sim.step_error;
  EXPECT_NE(app.sim.step_error.find("body '"), std::string::npos) << app.sim.step_error;
  const double t = app.scene.world.time();
  advance_simulation(app, 1.0);  // stays stopped
  EXPECT_EQ(app.scene.world.time(), t);
  reset_scene(app);
  EXPECT_TRUE(app.sim.step_error.empty());
  EXPECT_TRUE(step_once(app));
}

TEST(Session, SolverSwitchRejectsUnknownNames) {
  AppState app = open_default();
  std::string error;
  EXPECT_FALSE(switch_solver(app, "no-such-solver", &error));
  EXPECT_NE(error.find("lcp"), std::string::npos) << error;
  EXPECT_TRUE(switch_solver(app, "lcp", &error)) << error;
}

// Each method keeps its parameters through switches, Reset and Reload (with "keep solver"), and a scene's
// params_by_solver are what a method starts with.
TEST(Session, SolverSwitchKeepsEachMethodsParameters) {
  const std::string path = testing::TempDir() + "/tuned_scene.json";
  std::ofstream(path) << R"({"format": 1, "name": "tuned",
    "solver": {"type": "lcp", "params": {"iterations": 12}, "params_by_solver": {"volume": {"iterations": 31}}},
    "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
               {"name": "ball", "shape": {"type": "sphere", "radius": 0.2}, "density": 1000, "position": [0, 0.5, 0]}]})";
  AppState app;
  std::string error;
  ASSERT_TRUE(open_scene(app, path, nullptr, &error)) << error;
  ASSERT_TRUE(app.scene.world.solver().params().set("iterations", 14, &error)) << error;  // the panel
  ASSERT_TRUE(switch_solver(app, "volume", &error)) << error;
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 31);  // the scene's value for volume
  ASSERT_TRUE(app.scene.world.solver().params().set("iterations", 40, &error)) << error;
  ASSERT_TRUE(switch_solver(app, "lcp", &error)) << error;
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 14);
  ASSERT_TRUE(switch_solver(app, "volume", &error)) << error;
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 40);

  app.scene.keep_settings_on_reset = true;
  reset_scene(app);
  EXPECT_EQ(app.scene.world.solver().name(), "volume");
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 40);
  EXPECT_EQ(app.scene.world.solver_params_copy("lcp").get("iterations"), 14);
  ASSERT_TRUE(reload_scene(app, &error)) << error;
  EXPECT_EQ(app.scene.world.solver_params_copy("lcp").get("iterations"), 14);
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 40);
  app.scene.keep_settings_on_reset = false;  // back to the file's
  reset_scene(app);
  EXPECT_EQ(app.scene.world.solver().name(), "lcp");
  EXPECT_EQ(app.scene.world.solver().params().get("iterations"), 12);
  EXPECT_EQ(app.scene.world.solver_params_copy("volume").get("iterations"), 31);
}

// A scene for some methods refuses the others with a message naming them, and the running world stays.
TEST(Session, SolverSwitchOutsideTheScenesMethodsIsRefused) {
  const std::string path = testing::TempDir() + "/lcp_only_scene.json";
  std::ofstream(path) << R"({"format": 1, "name": "lcp_only", "methods": ["lcp"],
    "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
               {"name": "ball", "shape": {"type": "sphere", "radius": 0.2}, "density": 1000, "position": [0, 1, 0]}]})";
  AppState app;
  std::string error;
  ASSERT_TRUE(open_scene(app, path, nullptr, &error)) << error;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(step_once(app));
  const double t = app.scene.world.time();
  const Vec3 p = app.scene.world.bodies.back().position;
  EXPECT_FALSE(switch_solver(app, "volume", &error));
  EXPECT_NE(error.find("scene 'lcp_only' is for the methods lcp"), std::string::npos) << error;
  EXPECT_EQ(app.scene.world.solver().name(), "lcp");
  EXPECT_EQ(app.scene.world.time(), t);
  EXPECT_EQ(app.scene.world.bodies.back().position, p);
  EXPECT_TRUE(step_once(app));
  // --solver on the viewer's command line is refused the same way, naming the file.
  ViewerOptions options;
  options.solver = "implicit-penalty";
  EXPECT_FALSE(open_scene(app, path, &options, &error));
  EXPECT_NE(error.find("--solver implicit-penalty"), std::string::npos) << error;
  EXPECT_NE(error.find("is for the methods lcp"), std::string::npos) << error;
}

TEST(Session, RecordingWritesCsvAndTrace) {
  AppState app = open_default();
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(testing::TempDir());
  start_recording(app);
  for (int i = 0; i < 12; ++i) step_once(app);
  stop_recording(app);
  std::filesystem::current_path(old);
  ASSERT_FALSE(app.stats.csv_path.empty()) << app.stats.error;
  const std::filesystem::path csv = std::filesystem::path(testing::TempDir()) / app.stats.csv_path;
  std::ifstream in(std::filesystem::exists(csv) ? csv : std::filesystem::path(app.stats.csv_path));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 13);  // header + one row per step
}

// The Stats panel's plots of the solver's own stages: slot i follows the stage declared i-th; after a solver
// switch a slot that now holds another stage starts afresh.
TEST(Session, StatsFollowTheSolversOwnStages) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(switch_solver(app, "lcp", &error)) << error;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(step_once(app));
  const auto lcp = app.scene.world.last_stats().sub_stages.stages();
  ASSERT_GT(lcp.size(), 0u);
  ASSERT_EQ(app.stats.sub_stage_count, int(lcp.size()));
  for (size_t i = 0; i < lcp.size(); ++i) {
    EXPECT_STREQ(app.stats.sub_stage_names[i].name, lcp[i].name);
    EXPECT_EQ(app.stats.sub_stage_ms[i].latest(), float(lcp[i].ms));
  }
  ASSERT_TRUE(switch_solver(app, "implicit-penalty", &error)) << error;
  ASSERT_TRUE(step_once(app));
  const auto ip = app.scene.world.last_stats().sub_stages.stages();
  ASSERT_EQ(app.stats.sub_stage_count, int(ip.size()));
  EXPECT_STREQ(app.stats.sub_stage_names[0].name, ip[0].name);
  const History& h = app.stats.sub_stage_ms[0];
  EXPECT_EQ(std::count_if(h.values.begin(), h.values.end(), [](float v) { return v != 0.0f; }),
            ip[0].ms != 0.0 ? 1 : 0);  // the lcp samples are gone
}

TEST(Session, SaveAsWritesALoadableScene) {
  AppState app = open_default();
  const std::string path = testing::TempDir() + "/saved_scene.json";
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  AppState other;
  other.scene.root = CONTACTLAB_SOURCE_DIR;
  EXPECT_TRUE(open_scene(other, path, nullptr, &error)) << error;
  EXPECT_EQ(other.scene.world.bodies.size(), app.scene.world.bodies.size());
}

// Save as writes a copy of the running world: the copy keeps the scene's description, and so does the file.
TEST(Session, SaveAsKeepsTheDescription) {
  AppState app = open_default();
  const std::string description = app.scene.world.description;
  ASSERT_FALSE(description.empty());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  const std::string path = testing::TempDir() + "/saved_with_description.json";
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  std::ifstream in(path);
  const nlohmann::json saved = nlohmann::json::parse(in);
  EXPECT_EQ(saved.value("description", ""), description);
  const SceneLoadResult loaded = load_scene_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  EXPECT_EQ(loaded.world.description, description);
}

// Reset starts again from a copy of the loaded world, description included.
TEST(Session, ResetKeepsTheDescription) {
  AppState app = open_default();
  const std::string description = app.scene.world.description;
  ASSERT_FALSE(description.empty());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  reset_scene(app);
  EXPECT_EQ(app.scene.world.description, description);
}

// --- scripted motion: lay a path with clicks, set its speed, apply, reset, clear, save -------------------

namespace {
int body_named(const AppState& app, const char* name) {
  const int i = app.scene.world.find_body(name);
  EXPECT_GE(i, 0) << name;
  return i;
}
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

TEST(Session, ClickedScriptPointsRestOnTheSurfaceOrLieAtBodyHeight) {
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

TEST(Session, ApplyMakesTheBodyKinematicAndResetReplaysThePath) {
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

TEST(Session, ApplyLaterStartsThePathNowAndDelaysIt) {
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

TEST(Session, ChangingTheSpeedKeepsTheBodyOnItsPlace) {
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

TEST(Session, SavedScenesKeepTheScripts) {
  AppState app = open_default();
  lay_and_apply_box_path(app);
  const int box = body_named(app, "box");
  app.scene.world.scripts[0].timing = ScriptTiming::Ease;
  app.scene.world.scripts[0].loop = true;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(step_once(app));
  const std::string path = testing::TempDir() + "/saved_script_scene.json";
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

TEST(Session, SavingWhileAScriptWaitsKeepsTheRestOfTheWait) {
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
  const std::string path = testing::TempDir() + "/saved_waiting_script.json";
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  const SceneLoadResult loaded = load_scene_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  ASSERT_EQ(loaded.world.scripts.size(), 1u);
  EXPECT_NEAR(loaded.world.scripts[0].start_time, 1.5, 1e-9);
}

TEST(Session, ScriptsOfAFileCanBeClearedIntoADynamicBody) {
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

TEST(Session, ApplyRefusesPathsTheSceneLoaderWouldRefuse) {
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

TEST(Session, PlanesCannotBeScripted) {
  AppState app = open_default();
  select_body(app, body_named(app, "ground"));
  std::string error;
  EXPECT_FALSE(begin_script_path(app, &error));
  EXPECT_NE(error.find("plane"), std::string::npos) << error;
}

// --- selection, waking, joints ------------------------------------------------------------------------

TEST(Session, SelectingASleepingBodyWakesIt) {
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

TEST(Session, HingeNeedleLiesAtTheJointAngleFromZero) {
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

TEST(Session, JointsArePickedNearTheirAnchorOnScreen) {
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

TEST(Session, JointEditsReachTheResetStateAndWakeTheBodies) {
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

// --- start-up view settings ------------------------------------------------------------------------------

TEST(Session, ViewSpecSetsOverlaysAndSelection) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(apply_view_spec(app, "graph, heights,-contacts,-sleeping,select=box,panel,zoom=2", &error)) << error;
  EXPECT_TRUE(app.view.show_graph);
  EXPECT_EQ(app.view.coloring, BodyColoring::Height);
  EXPECT_FALSE(app.view.show_contacts);
  EXPECT_FALSE(app.view.show_sleeping);
  EXPECT_TRUE(app.view.expand_view_panel);
  EXPECT_EQ(app.pick.selected, app.scene.world.find_body("box"));
  ASSERT_TRUE(apply_view_spec(app, "layer=3,path", &error)) << error;
  EXPECT_EQ(app.view.coloring, BodyColoring::Layer);
  EXPECT_EQ(app.view.layer, 3);
  EXPECT_TRUE(app.script.laying);
  ASSERT_TRUE(apply_view_spec(app, "point=1:0.5:4,point=4:0.5:4", &error)) << error;
  EXPECT_EQ(app.script.points.size(), 3u);
  EXPECT_EQ(app.script.points.back(), Vec3(4, 0.5, 4));
  EXPECT_FALSE(apply_view_spec(app, "point=1:2", &error));
  ASSERT_TRUE(apply_view_spec(app, "apply", &error)) << error;
  EXPECT_EQ(app.scene.world.scripts.size(), 1u);
  EXPECT_FALSE(apply_view_spec(app, "point=1:2:3", &error));  // not laying any more
  ASSERT_TRUE(apply_view_spec(app, "color=group", &error)) << error;
  EXPECT_EQ(app.view.coloring, BodyColoring::Group);

  EXPECT_FALSE(apply_view_spec(app, "graph,grpah", &error));
  EXPECT_NE(error.find("grpah"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "select=nobody", &error));
  EXPECT_NE(error.find("nobody"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "joint=0", &error));  // the scene has no joints
  EXPECT_FALSE(apply_view_spec(app, "layer=-1", &error));
  EXPECT_FALSE(apply_view_spec(app, "color=rainbow", &error));
}

TEST(Session, ViewSpecSetsMeshOverlays) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(apply_view_spec(app, "shells,allshells,meshcolor=normals,slice=z:-0.25", &error)) << error;
  EXPECT_TRUE(app.view.show_point_shells);
  EXPECT_TRUE(app.view.point_shells_all);
  EXPECT_EQ(app.view.mesh_coloring, MeshColoring::Normals);
  EXPECT_TRUE(app.view.show_sdf_slice);
  EXPECT_EQ(app.view.sdf_axis, 2);
  EXPECT_FLOAT_EQ(app.view.sdf_offset, -0.25f);
  ASSERT_TRUE(apply_view_spec(app, "slice=x,meshcolor=body,-sdf,-shells", &error)) << error;
  EXPECT_EQ(app.view.sdf_axis, 0);
  EXPECT_FLOAT_EQ(app.view.sdf_offset, 0.0f);
  EXPECT_FALSE(app.view.show_sdf_slice);
  EXPECT_FALSE(app.view.show_point_shells);
  EXPECT_EQ(app.view.mesh_coloring, MeshColoring::Body);
  EXPECT_FALSE(apply_view_spec(app, "slice=w", &error));
  EXPECT_FALSE(apply_view_spec(app, "slice=y:abc", &error));
  EXPECT_FALSE(apply_view_spec(app, "slice=yy", &error));
  EXPECT_FALSE(apply_view_spec(app, "meshcolor=rainbow", &error));
  EXPECT_NE(error.find("meshcolor"), std::string::npos) << error;
}

// The volume solver's views: tokens, and the capture following the toggles, the steps, parameter
// changes, resets and solver switches (harmless under another solver).
TEST(Session, ViewSpecSetsVolumeOverlaysAndTheCaptureFollowsThem) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_interpenetrated.json", nullptr,
                         &error))
      << error;
  auto solver = [&app]() { return dynamic_cast<VolumeSolver*>(&app.scene.world.solver()); };
  auto captures = [&app]() { return current_volume_captures(app.scene.world, app.view); };
  ASSERT_NE(active_volume_solver(app.scene.world), nullptr);
  EXPECT_FALSE(wants_volume_capture(app.view));
  ASSERT_TRUE(step_once(app));
  refresh_volume_capture(app);
  EXPECT_FALSE(solver()->debug_capture());  // off costs nothing
  EXPECT_TRUE(solver()->debug_pairs().empty());

  ASSERT_TRUE(apply_view_spec(app, "volumes=xz,gradients,cells", &error)) << error;
  EXPECT_TRUE(app.view.show_volumes);
  EXPECT_TRUE(app.view.volume_axes[0]);
  EXPECT_FALSE(app.view.volume_axes[1]);
  EXPECT_TRUE(app.view.volume_axes[2]);
  EXPECT_TRUE(app.view.show_volume_gradients);
  EXPECT_TRUE(app.view.show_volume_cells);
  EXPECT_FALSE(app.view.volume_last_stage);
  ASSERT_TRUE(apply_view_spec(app, "-gradients,volumes", &error)) << error;
  EXPECT_FALSE(app.view.show_volume_gradients);
  EXPECT_EQ(app.view.volume_axes, (std::array<bool, 3>{true, true, true}));
  EXPECT_FALSE(apply_view_spec(app, "volumes=w", &error));
  EXPECT_NE(error.find("volumes=w"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "volumes=", &error));
  EXPECT_FALSE(apply_view_spec(app, "-volumes=x", &error));

  // At the drawn poses: recorded at once without a step, stale after a step until the next frame's refresh.
  refresh_volume_capture(app);
  EXPECT_FALSE(solver()->debug_capture());  // the solver's collision stage is not recorded in this mode
  ASSERT_GE(captures().size(), 3u);
  size_t constraints = 0;
  for (const auto* d : captures()) {
    EXPECT_FALSE(d->collision_stage);
    constraints += d->constraints.size();
  }
  EXPECT_GT(constraints, 0u);
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(captures().empty());  // the bodies moved
  refresh_volume_capture(app);
  EXPECT_GE(captures().size(), 3u);
  // A parameter changed while paused: recorded again with it.
  ASSERT_TRUE(app.scene.world.solver().params().set("pixel_size", 0.02, &error)) << error;
  EXPECT_TRUE(captures().empty());
  refresh_volume_capture(app);
  ASSERT_FALSE(captures().empty());
  EXPECT_EQ(captures()[0]->pixel_size, 0.02);

  // As of the last collision stage: recorded by the step, one constraint per contact of the pair.
  ASSERT_TRUE(apply_view_spec(app, "laststage", &error)) << error;
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(solver()->debug_capture());
  refresh_volume_capture(app);
  ASSERT_FALSE(captures().empty());
  for (const auto* d : captures()) {
    if (!d->collision_stage) continue;  // a pair that overlaps only since the step
    // Speculative contacts (the narrow phase's points of the pair still apart, feature bit 31) are no volumes.
    const auto n = std::count_if(app.scene.world.contacts().begin(), app.scene.world.contacts().end(), [d](const Contact& c) {
      return c.a == d->a && c.b == d->b && !(c.feature & (1u << 31));
    });
    EXPECT_EQ(static_cast<size_t>(n), d->constraints.size());
  }
  // Reset gives a fresh solver (capture off); the next frame records again.
  reset_scene(app);
  EXPECT_TRUE(captures().empty());
  refresh_volume_capture(app);
  EXPECT_FALSE(captures().empty());
  // All toggles off: everything dropped.
  ASSERT_TRUE(apply_view_spec(app, "-volumes,-cells", &error)) << error;
  refresh_volume_capture(app);
  ASSERT_TRUE(step_once(app));
  EXPECT_FALSE(solver()->debug_capture());
  EXPECT_TRUE(solver()->debug_pairs().empty());
  // Under another solver the toggles do nothing.
  ASSERT_TRUE(apply_view_spec(app, "volumes,gradients,cells", &error)) << error;
  ASSERT_TRUE(switch_solver(app, "lcp", &error)) << error;
  EXPECT_EQ(active_volume_solver(app.scene.world), nullptr);
  refresh_volume_capture(app);
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(captures().empty());
}

TEST(Session, OpeningASceneDropsTheDraftAndJointSelection) {
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


// --- joint servos driven from the keyboard ---------------------------------------------------------------

namespace {
// A cart on a slider along x (servo keys U / J, rate 0.5 m/s, range [-0.2, 0.3]), an arm on a hinge whose
// servo has keys 7 / M but no range, and a bob on a ball joint (no servo), in zero gravity; dt 0.01 s.
AppState servo_app() {
  const std::string path = testing::TempDir() + "/servo_scene.json";
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
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  EXPECT_TRUE(open_scene(app, path, nullptr, &error)) << error;
  return app;
}
double target(const AppState& app, int joint) { return app.scene.world.joints[size_t(joint)].servo.target; }
}  // namespace

TEST(Session, ServosAreListedWithTheirKeys) {
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
TEST(Session, ServoJointsGetNoMotor) {
  AppState app = servo_app();
  set_joint_settings(app, 0, JointLimit{}, JointMotor{true, 1.0, 100.0}, 0.2, 0.0);
  EXPECT_FALSE(app.scene.world.joints[0].motor.enabled);
  EXPECT_FALSE(app.scene.loaded.joints[0].motor.enabled);
  SceneLoadResult again = load_scene_json(scene_to_json(app.scene.world), "saved.json");
  EXPECT_TRUE(again.ok()) << again.error;
}

TEST(Session, HeldServoKeyMovesTheTargetAtItsRateAndWakesTheBodies) {
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

TEST(Session, ServoTargetsFromThePanelAreClampedAndSaved) {
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

  const std::string path = testing::TempDir() + "/servo_saved.json";
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



// --- comparison lanes ---------------------------------------------------------------------------------------

namespace {
// Every body's state is bit for bit the same.
bool same_state(const World& a, const World& b) {
  if (a.bodies.size() != b.bodies.size()) return false;
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const Body& x = a.bodies[i];
    const Body& y = b.bodies[i];
    if (!(x.position == y.position && x.orientation.coeffs() == y.orientation.coeffs() &&
          x.linear_velocity == y.linear_velocity && x.angular_velocity == y.angular_velocity))
      return false;
  }
  return true;
}
}  // namespace

TEST(Lanes, AddedLanesStepInLockstepLikeSoloRuns) {
  AppState app = open_default();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"volume", {{"iterations", "30"}}}, &error)) << error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"implicit-penalty", {}}, &error)) << error;
  EXPECT_EQ(lane_count(app), 3);
  EXPECT_EQ(app.scene.world.time(), 0.0);  // adding a lane restarts every lane from the scene's start
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(step_once(app));
  // Each lane equals the same method stepped alone from the loaded scene.
  for (int lane = 0; lane < lane_count(app); ++lane) {
    World solo;
    ASSERT_TRUE(make_lane(app.scene.loaded, lane_spec_of(lane_world(app, lane)), solo, &error)) << error;
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(solo.step().ok);
    EXPECT_EQ(lane_world(app, lane).step_count(), 40);
    EXPECT_TRUE(same_state(lane_world(app, lane), solo)) << "lane " << lane + 1;
  }
  EXPECT_EQ(lane_label(lane_world(app, 1)), "volume (iterations=30)");
  EXPECT_EQ(app.compare.plots[2].step_ms.count, 40);
  EXPECT_EQ(app.compare.plots[1].divergence_max.count, 40);

  // Reset restarts every lane, each keeping its method and parameters; the plots start afresh.
  reset_scene(app);
  EXPECT_EQ(lane_world(app, 1).time(), 0.0);
  EXPECT_EQ(lane_label(lane_world(app, 1)), "volume (iterations=30)");
  EXPECT_EQ(app.compare.plots[1].step_ms.count, 0);
  remove_lane(app, 1);
  EXPECT_EQ(lane_count(app), 2);
  EXPECT_EQ(lane_world(app, 1).solver().name(), "implicit-penalty");
  EXPECT_FALSE(add_lane(app, LaneSpec{"lcp", {{"iterationz", "3"}}}, &error));
  EXPECT_NE(error.find("iterationz"), std::string::npos) << error;
  EXPECT_EQ(lane_count(app), 2);
}

TEST(Lanes, TheDragAndTheUsersEditsReachEveryLane) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"implicit-penalty", {}}, &error)) << error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"volume", {}}, &error)) << error;
  // The viewer's mouse spring sits in lane 1's world; the step passes it to the others.
  int body = -1;
  for (size_t i = 0; i < app.scene.world.bodies.size(); ++i)
    if (app.scene.world.bodies[i].is_dynamic()) body = int(i);
  ASSERT_GE(body, 0);
  DragSpring spring;
  spring.body = body;
  spring.target = app.scene.world.bodies[size_t(body)].position + Vec3(0, 3, 0);
  spring.stiffness = 100;
  spring.damping = 12;
  app.scene.world.set_drag(spring);
  app.scene.world.materials[0].friction = 0.123;
  app.scene.world.settings.dt = 0.005;
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(step_once(app));
  for (int lane = 0; lane < lane_count(app); ++lane) {
    const World& w = lane_world(app, lane);
    EXPECT_EQ(w.drag().body, body) << "lane " << lane + 1;
    EXPECT_GT(w.bodies[size_t(body)].position.y(), app.scene.loaded.bodies[size_t(body)].position.y() + 1.0)
        << "lane " << lane + 1 << " was not lifted";
    EXPECT_EQ(w.materials[0].friction, 0.123);
    EXPECT_EQ(w.settings.dt, 0.005);
  }
  app.scene.world.clear_drag();
  ASSERT_TRUE(step_once(app));
  for (int lane = 1; lane < lane_count(app); ++lane) EXPECT_EQ(lane_world(app, lane).drag().body, -1);
}

TEST(Lanes, ALaneThatStopsLeavesTheOthersRunning) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"lcp", {}}, &error)) << error;
  app.compare.lanes[0].bodies.back().linear_velocity = Vec3(5000, 0, 0);  // past max_speed: a blow-up
  ASSERT_TRUE(step_once(app));
  EXPECT_FALSE(lane_error(app, 1).empty());
  EXPECT_NE(lane_error(app, 1).find("max_speed"), std::string::npos) << lane_error(app, 1);
  EXPECT_TRUE(app.sim.step_error.empty());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(step_once(app));
  EXPECT_EQ(app.scene.world.step_count(), 6);
  EXPECT_EQ(lane_world(app, 1).step_count(), 1);
  reset_scene(app);  // Reset runs it again
  EXPECT_TRUE(lane_error(app, 1).empty());
}

TEST(Lanes, SavedWithTheSceneAndOpenedFromIt) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"volume", {{"iterations", "30"}}}, &error)) << error;
  const std::string path = testing::TempDir() + "/with_lanes.json";
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  AppState other;
  other.scene.root = CONTACTLAB_SOURCE_DIR;
  ASSERT_TRUE(open_scene(other, path, nullptr, &error)) << error;
  ASSERT_EQ(lane_count(other), 2);
  EXPECT_EQ(lane_label(lane_world(other, 1)), "volume (iterations=30)");
  // --lanes replaces them: the first lane is the scene's solver, --set LANE.name=value.
  ViewerOptions options;
  options.lanes = "implicit-penalty,lcp,lcp";
  options.params = {{"3.iterations", "40"}};
  ASSERT_TRUE(open_scene(other, path, &options, &error)) << error;
  ASSERT_EQ(lane_count(other), 3);
  EXPECT_EQ(other.scene.world.solver().name(), "implicit-penalty");
  EXPECT_EQ(lane_label(lane_world(other, 2)), "lcp (iterations=40)");
  options.params = {{"iterations", "40"}};
  EXPECT_FALSE(open_scene(other, path, &options, &error));
  EXPECT_NE(error.find("LANE.name=value"), std::string::npos) << error;
  EXPECT_EQ(lane_count(other), 3);  // the current scene and its lanes stay
}

TEST(Lanes, RecordingWritesEveryLaneAndTheSidecar) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"implicit-penalty", {}}, &error)) << error;
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(testing::TempDir());
  start_recording(app);
  for (int i = 0; i < 7; ++i) step_once(app);
  stop_recording(app);
  std::filesystem::current_path(old);
  ASSERT_TRUE(app.stats.error.empty()) << app.stats.error;
  EXPECT_NE(app.stats.csv_path.find("sphere_and_box-lanes-"), std::string::npos) << app.stats.csv_path;
  std::ifstream in(app.stats.csv_path);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("lane,solver,scene,step,time,", 0), 0u) << header;
  int rows = 0, lane2 = 0;
  while (std::getline(in, line)) {
    ++rows;
    if (line.rfind("2,implicit-penalty,sphere_and_box,", 0) == 0) ++lane2;
  }
  EXPECT_EQ(rows, 14);
  EXPECT_EQ(lane2, 7);
  std::ifstream sidecar(app.stats.trace_path);
  const nlohmann::json j = nlohmann::json::parse(sidecar);
  ASSERT_EQ(j["lanes"].size(), 2u);
  EXPECT_EQ(j["lanes"][1]["solver"], "implicit-penalty");
  EXPECT_TRUE(j["lanes"][1]["params"].contains("penetration"));
}

TEST(Lanes, SplitCellsTileTheViewArea) {
  AppState app = open_default();
  app.compare.area_x = 100;
  app.compare.area_width = 600;
  app.compare.area_height = 400;
  EXPECT_FALSE(split_view(app));
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"lcp", {}}, &error)) << error;
  ASSERT_TRUE(split_view(app));
  EXPECT_EQ(lane_cell(app, 1).x, 400.0f);
  EXPECT_EQ(lane_cell(app, 1).width, 300.0f);
  EXPECT_EQ(lane_at(app, 450, 10), 1);
  ASSERT_TRUE(add_lane(app, LaneSpec{"lcp", {}}, &error)) << error;
  EXPECT_EQ(lane_cell(app, 2).y, 200.0f);  // 2 x 2
  EXPECT_EQ(lane_at(app, 150, 300), 2);
  app.compare.layout = CompareLayout::Overlay;
  EXPECT_FALSE(split_view(app));
  EXPECT_EQ(lane_at(app, 450, 10), 0);
}

}  // namespace cl::viewer

namespace cl::viewer {

// F frames the selected body (three times its size around it), or every body without a selection.
TEST(Session, FrameTheSelectionOrTheScene) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/default.json", nullptr, &error)) << error;
  frame_scene(app);
  const glm::vec3 scene_target = app.camera.target;
  const float scene_distance = app.camera.distance;
  int ball = -1;
  for (size_t i = 0; i < app.scene.world.bodies.size(); ++i)
    if (app.scene.world.bodies[i].shape.type == ShapeType::Sphere) ball = int(i);
  ASSERT_GE(ball, 0);
  select_body(app, ball);
  frame_scene(app);
  const Vec3 centre = app.scene.world.bodies[size_t(ball)].position;
  EXPECT_NEAR(app.camera.target.x, centre.x(), 1e-4);
  EXPECT_NEAR(app.camera.target.y, centre.y(), 1e-4);
  EXPECT_LT(app.camera.distance, scene_distance);
  select_body(app, -1);
  frame_scene(app);
  EXPECT_EQ(app.camera.target, scene_target);
  EXPECT_EQ(app.camera.distance, scene_distance);
}

}  // namespace cl::viewer

namespace cl::viewer {

TEST(Session, DenseContactSetsAreThinnedToAFewThousand) {
  EXPECT_EQ(contact_draw_stride(0), 1u);
  EXPECT_EQ(contact_draw_stride(kMaxDrawnContacts), 1u);
  EXPECT_EQ(contact_draw_stride(kMaxDrawnContacts + 1), 2u);
  for (size_t n : {size_t(60923), size_t(250000)}) {
    const size_t k = contact_draw_stride(n);
    EXPECT_LE((n + k - 1) / k, kMaxDrawnContacts) << n;
    EXPECT_GT((n + k - 2) / (k - 1), kMaxDrawnContacts) << n;  // the smallest stride that fits
  }
}

}  // namespace cl::viewer
