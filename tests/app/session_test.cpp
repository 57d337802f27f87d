// The viewer's simulation side (app/viewer/session.cpp, no GL): what a user does in the panels.
#include "viewer/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <string_view>
#include <vector>

#include "scene/scene.h"
#include "solvers/registry.h"
#include "viewer/convert.h"
#include "viewer/selection.h"
#include "app_test_support.h"
#include "support/scratch.h"

namespace cl::viewer {

TEST(Session, BadSceneShowsErrorAndKeepsTheCurrentOne) {
  AppState app = open_default();
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(step_once(app));
  const double t = app.scene.world.time();
  const size_t bodies = app.scene.world.bodies.size();

  const std::string bad = cl::test::scratch_path("broken_scene.json");
  std::ofstream(bad) << R"({"format": 1, "bodies": [{"name": "b", "shape": {"type": "sphere", "radius": -1}, "mass": 1}]})";
  std::string error;
  EXPECT_FALSE(open_scene(app, bad, nullptr, &error));
  EXPECT_NE(error.find("broken_scene.json"), std::string::npos) << error;
  EXPECT_NE(error.find("/bodies/0/shape/radius"), std::string::npos) << error;
  EXPECT_EQ(app.scene.world.time(), t);  // nothing the user had is lost
  EXPECT_EQ(app.scene.world.bodies.size(), bodies);

  EXPECT_FALSE(open_scene(app, cl::test::scratch_path("does_not_exist.json"), nullptr, &error));
  EXPECT_NE(error.find("does_not_exist.json"), std::string::npos) << error;
  EXPECT_EQ(app.scene.world.time(), t);
}

// The welcome's marker: under $XDG_CONFIG_HOME/contactlab (else ~/.config/contactlab); writing it makes it exist,
// so the next launch shows no welcome.
TEST(Session, WelcomeMarkerIsWrittenUnderTheConfigFolder) {
  const std::string config = cl::test::scratch_path("contactlab_config_test");
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

// In a folder of scenes/ (the conformance cases), Page Down and Page Up go through that folder's files.
TEST(Session, NeighbourScenesOfASubfolderStayInIt) {
  AppState app = open_default();
  const std::filesystem::path folder = std::filesystem::path(app.scene.root) / "scenes" / "conformance";
  std::string error;
  ASSERT_TRUE(open_scene(app, (folder / "ball_rest.json").string(), nullptr, &error)) << error;
  auto here = [&] { return std::filesystem::path(app.scene.path); };
  ASSERT_TRUE(open_neighbour_scene(app, 1, &error)) << error;
  EXPECT_EQ(here().filename(), "bounce.json");
  EXPECT_EQ(here().parent_path().filename(), "conformance");
  ASSERT_TRUE(open_neighbour_scene(app, -1, &error)) << error;
  ASSERT_TRUE(open_neighbour_scene(app, -1, &error)) << error;  // before the first: the folder's last
  EXPECT_EQ(here().filename(), "tower20_light.json");
  EXPECT_EQ(here().parent_path().filename(), "conformance");
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
  const std::string path = cl::test::scratch_path("tuned_scene.json");
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
  const std::string path = cl::test::scratch_path("lcp_only_scene.json");
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
  std::filesystem::current_path(cl::test::scratch_dir());
  start_recording(app);
  for (int i = 0; i < 12; ++i) step_once(app);
  stop_recording(app);
  std::filesystem::current_path(old);
  ASSERT_FALSE(app.stats.csv_path.empty()) << app.stats.error;
  const std::filesystem::path csv = cl::test::scratch_dir() / app.stats.csv_path;
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
  const std::string path = cl::test::scratch_path("saved_scene.json");
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  AppState other;
  other.scene.root = CONTACTLAB_SOURCE_DIR;
  EXPECT_TRUE(open_scene(other, path, nullptr, &error)) << error;
  EXPECT_EQ(other.scene.world.bodies.size(), app.scene.world.bodies.size());
}

// Save as over the open scene (by any name: here a hard link) asks first; confirmed, it keeps the old text in a
// .bak file. Over a mesh the scene reads, or into a directory, it is refused, and the file stays as it was.
TEST(Session, SaveAsOverTheOpenSceneAsksAndKeepsABackup) {
  const std::filesystem::path dir = cl::test::fresh_scratch_dir();
  std::filesystem::copy_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/sphere_and_box.json", dir / "open.json");
  std::filesystem::create_hard_link(dir / "open.json", dir / "link.json");
  const auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string before = slurp(dir / "open.json");
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, (dir / "open.json").string(), nullptr, &error)) << error;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  const std::string link = (dir / "link.json").string();
  EXPECT_TRUE(saving_over_open_scene(app, link));
  EXPECT_FALSE(save_scene_as(app, link, &error));
  EXPECT_NE(error.find("is the open scene: confirm to overwrite it"), std::string::npos) << error;
  EXPECT_EQ(slurp(dir / "open.json"), before);
  ASSERT_TRUE(save_scene_as(app, link, &error, true)) << error;
  EXPECT_EQ(slurp(dir / "link.json.bak"), before);
  EXPECT_NE(slurp(dir / "link.json"), before);
  EXPECT_EQ(slurp(dir / "open.json"), before) << "the other name of the file keeps the old text";
  EXPECT_FALSE(save_scene_as(app, dir.string(), &error));
  EXPECT_NE(error.find("it is a directory"), std::string::npos) << error;

  AppState meshes;
  meshes.scene.root = CONTACTLAB_SOURCE_DIR;
  ASSERT_TRUE(open_scene(meshes, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/torus_stack.json", nullptr, &error)) << error;
  const std::string torus = std::string(CONTACTLAB_SOURCE_DIR) + "/assets/torus.obj";
  const std::string torus_before = slurp(torus);
  EXPECT_FALSE(save_scene_as(meshes, torus, &error));
  EXPECT_NE(error.find("would overwrite the mesh file of"), std::string::npos) << error;
  EXPECT_EQ(slurp(torus), torus_before);
  EXPECT_NE(check_output(meshes, torus, "the screenshot"), "");
  EXPECT_EQ(check_output(meshes, (dir / "shot.png").string(), "the screenshot"), "");
}

// Save as writes a copy of the running world: the copy keeps the scene's description, and so does the file.
TEST(Session, SaveAsKeepsTheDescription) {
  AppState app = open_default();
  const std::string description = app.scene.world.description;
  ASSERT_FALSE(description.empty());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(step_once(app));
  const std::string path = cl::test::scratch_path("saved_with_description.json");
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
  const std::string path = cl::test::scratch_path("with_lanes.json");
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
  std::filesystem::current_path(cl::test::scratch_dir());
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

// F2: one lane per method the scene admits, the scene's own first, replacing the lanes there were; a scene
// that names one method gets none, and says why.
TEST(Lanes, EveryMethodOpensALaneForEachAdmittedMethod) {
  AppState app = open_or_throw(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/default.json");
  std::string error;
  ASSERT_TRUE(add_lane(app, LaneSpec{"lcp", {{"iterations", "3"}}}, &error)) << error;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(step_once(app));
  ASSERT_TRUE(compare_every_method(app, &error)) << error;
  std::vector<std::string> methods;
  for (int lane = 0; lane < lane_count(app); ++lane) {
    methods.emplace_back(lane_world(app, lane).solver().name());
    EXPECT_EQ(lane_world(app, lane).time(), 0.0);  // every lane from the scene's start
  }
  std::vector<std::string> registered;
  for (const SolverInfo& info : solver_registry()) registered.push_back(info.name);
  ASSERT_EQ(methods.size(), std::min<size_t>(registered.size(), kMaxLanes));
  EXPECT_EQ(methods.front(), "lcp");  // the scene's own method stays lane 1
  std::sort(methods.begin(), methods.end());
  std::sort(registered.begin(), registered.end());
  EXPECT_EQ(methods, registered);
  EXPECT_EQ(addable_lane_solvers(app).size(), registered.size());

  // A user's scene that names one method: nothing to compare it with, and the Compare panel offers nothing else.
  const std::filesystem::path dir = test::scratch_dir();
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(std::string(CONTACTLAB_SOURCE_DIR) +
                                                           "/scenes/sphere_and_box.json"));
  doc["methods"] = {"volume"};
  doc.erase("solver");
  std::ofstream(dir / "one_method.json") << doc.dump();
  AppState single = open_or_throw((dir / "one_method.json").string());
  EXPECT_FALSE(compare_every_method(single, &error));
  EXPECT_NE(error.find("admits only volume"), std::string::npos) << error;
  EXPECT_EQ(lane_count(single), 1);
  EXPECT_EQ(addable_lane_solvers(single), std::vector<std::string>{"volume"});
}

TEST(Lanes, SplitCellsTileTheViewArea) {
  AppState app = open_default();
  app.ui.scene_area = {100, 0, 600, 400};
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
  // Overlaid (and with one lane) the view is the whole area.
  EXPECT_EQ(lane_cell(app, 0).x, 100.0f);
  EXPECT_EQ(lane_cell(app, 0).width, 600.0f);
  EXPECT_EQ(lane_cell(app, 0).height, 400.0f);
}

// Each split cell gives the strip at its top to the lane's label: the label never covers the lane's view.
TEST(Lanes, SplitCellsLeaveAStripForTheLabel) {
  AppState app = open_default();
  app.ui.scene_area = {100, 50, 600, 400};
  app.ui.lane_label_height = 20;
  std::string error;
  ASSERT_TRUE(compare_every_method(app, &error)) << error;
  ASSERT_EQ(lane_count(app), 4);
  for (int i = 0; i < 4; ++i) {
    const LaneCell c = lane_cell(app, i);
    EXPECT_EQ(c.height, 180.0f) << i;
    EXPECT_EQ(c.y, (i < 2 ? 50.0f : 250.0f) + 20.0f) << i;
  }
  EXPECT_EQ(lane_at(app, 150, 60), 0);  // the label strip is no lane's view: a click there picks in lane 1
  EXPECT_EQ(lane_at(app, 450, 275), 3);
}

// Opening another scene keeps the comparison: every lane's method, lane 1's too, from the new scene's start.
TEST(Lanes, OpeningAnotherSceneKeepsTheLanes) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(compare_every_method(app, &error)) << error;
  ASSERT_TRUE(open_scene_keeping_lanes(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/two_balls.json", &error))
      << error;
  EXPECT_EQ(app.scene.world.name, "two_balls");
  ASSERT_EQ(lane_count(app), 4);
  std::vector<std::string> methods;
  for (int i = 0; i < 4; ++i) {
    methods.push_back(std::string(lane_world(app, i).solver().name()));
    EXPECT_EQ(lane_world(app, i).name, "two_balls");
    EXPECT_EQ(lane_world(app, i).step_count(), 0);
  }
  std::sort(methods.begin(), methods.end());
  EXPECT_EQ(methods, (std::vector<std::string>{"implicit-penalty", "lcp", "pid-penalty", "volume"}));
  EXPECT_TRUE(app.compare.error.empty()) << app.compare.error;
  // Without lanes nothing is added.
  AppState single = open_default();
  ASSERT_TRUE(open_scene_keeping_lanes(single, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/two_balls.json", &error));
  EXPECT_EQ(lane_count(single), 1);
}

}  // namespace cl::viewer

namespace cl::viewer {

// C: the camera follows the selected body, keeping its offset to it; C again (or with nothing selected) frees it.
TEST(Session, TheCameraFollowsTheSelectedBody) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/car.json", nullptr, &error)) << error;
  const int chassis = app.scene.world.find_body("chassis");
  ASSERT_GE(chassis, 0);
  toggle_follow(app);  // nothing selected: nothing to follow
  EXPECT_EQ(app.view.follow, -1);
  app.pick.selected = chassis;
  toggle_follow(app);
  ASSERT_EQ(app.view.follow, chassis);
  const float distance = app.camera.distance;
  for (int i = 0; i < 600; ++i) {  // 10 s: the car drives about 20 m along +x
    ASSERT_TRUE(step_once(app));
    follow_camera(app);
  }
  const Vec3 p = app.scene.world.bodies[size_t(chassis)].position;
  EXPECT_GT(p.x(), 10.0);
  EXPECT_NEAR(app.camera.target.x, p.x(), 1e-3);  // in the middle of the view, at the zoom the user chose
  EXPECT_NEAR(app.camera.target.z, p.z(), 1e-3);
  EXPECT_EQ(app.camera.distance, distance);
  app.camera.pan(40.0f, 0.0f, 720.0f);  // an offset the user panned to is kept
  const glm::vec3 offset = app.camera.target - to_glm(p);
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(step_once(app));
    follow_camera(app);
  }
  const glm::vec3 now = app.camera.target - to_glm(app.scene.world.bodies[size_t(chassis)].position);
  EXPECT_NEAR(glm::length(now - offset), 0.0f, 1e-3f);
  toggle_follow(app);  // the followed body selected: freed
  EXPECT_EQ(app.view.follow, -1);
}

// A scripted body's path is part of the scene's frame: a gripper that lifts its block stays in view.
TEST(Session, FramingHoldsTheScriptedPaths) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_grasp.json", nullptr, &error))
      << error;
  ASSERT_FALSE(app.scene.world.scripts.empty());
  app.ui.scene_area = {356.0f, 200.0f, 568.0f, 300.0f};
  frame_scene(app);
  for (const Script& s : app.scene.world.scripts)
    for (const Vec3& point : s.points) {
      float x = 0, y = 0;
      ASSERT_TRUE(project_to_window(app, point, &x, &y));
      EXPECT_GT(x, 356.0f);
      EXPECT_LT(x, 356.0f + 568.0f);
      EXPECT_GT(y, 200.0f);
      EXPECT_LT(y, 500.0f);
    }
}

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

namespace cl::viewer {

// Each scene is framed from its bodies' bounds on load: a pile in its walled box, a 100-box tower, small meshes and
// volume scenes all fill most of the view's part of the window (between the panel columns, below the header, above
// the Compare panel: UiState::scene_area) in one direction, and stay inside it.
TEST(Session, ScenesFillTheViewOnLoad) {
  for (const char* name : {"pile", "tower100", "mesh_drop", "volume_tori", "volume_grasp", "two_balls"}) {
    AppState app;
    app.scene.root = CONTACTLAB_SOURCE_DIR;
    app.viewport_width = 1280;
    app.viewport_height = 720;
    const ScreenRect area{356.0f, 120.0f, 568.0f, 520.0f};  // the 1280x720 window's middle
    app.ui.scene_area = area;
    std::string error;
    ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name + ".json", nullptr, &error))
        << error;
    float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
    for (const Body& b : app.scene.world.bodies) {
      if (b.shape.type == ShapeType::Plane) continue;
      const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 c((corner & 1) ? box.hi.x() : box.lo.x(), (corner & 2) ? box.hi.y() : box.lo.y(),
                     (corner & 4) ? box.hi.z() : box.lo.z());
        float x = 0, y = 0;
        ASSERT_TRUE(project_to_window(app, c, &x, &y)) << name;
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      }
    }
    EXPECT_GE(x0, area.x - 1.0f) << name;  // inside the view
    EXPECT_LE(x1, area.x + area.width + 1.0f) << name;
    EXPECT_GE(y0, area.y - 1.0f) << name;
    EXPECT_LE(y1, area.y + area.height + 1.0f) << name;
    // volume_grasp's frame also holds the path its jaws lift the block along (FramingHoldsTheScriptedPaths).
    const float fill = std::string(name) == "volume_grasp" ? 0.35f : 0.55f;
    EXPECT_GT(std::max((x1 - x0) / area.width, (y1 - y0) / area.height), fill) << name;
  }
}

}  // namespace cl::viewer
