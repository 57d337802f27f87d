// The viewer's simulation side (app/viewer/session.cpp, no GL): what a user does in the panels.
#include "viewer/session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

}  // namespace cl::viewer
