// The viewer's timeline (app/viewer/timeline.cpp, no GL): stepping back and forward through every lane's history,
// resuming from a past step, keyframes, and an interactive run recorded as a replay that plays back headless to the
// same final state, bit for bit.
#include "viewer/timeline.h"

#include <gtest/gtest.h>

#include <vector>

#include "replay/replay_file.h"
#include "scene/scene.h"
#include "viewer/session.h"
#include "app_test_support.h"
#include "support/scratch.h"

namespace cl::viewer {
namespace {

std::vector<uint64_t> lane_hashes(const AppState& app) {
  std::vector<uint64_t> h;
  for (int i = 0; i < lane_count(app); ++i) h.push_back(state_hash(lane_world(app, i)));
  return h;
}

// The excavator in two lanes (lcp and implicit-penalty): contacts, warm starts and a servo arm to carry.
AppState two_lanes() {
  AppState app = open_or_throw(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/excavator.json");
  std::string error;
  EXPECT_TRUE(switch_solver(app, "lcp", &error)) << error;
  EXPECT_TRUE(add_lane(app, LaneSpec{"implicit-penalty", {}}, &error)) << error;
  return app;
}

TEST(Timeline, SteppingBackShowsEveryLaneAsItWasAndResumingGoesOnBitForBit) {
  AppState app = two_lanes();
  std::vector<std::vector<uint64_t>> at_step{lane_hashes(app)};
  for (int s = 0; s < 30; ++s) {
    ASSERT_TRUE(step_once(app));
    at_step.push_back(lane_hashes(app));
  }
  ASSERT_EQ(app.timeline.history.size(), 31);
  show_frame(app, 10);
  EXPECT_FALSE(app.sim.playing);
  EXPECT_EQ(app.scene.world.step_count(), 10);
  EXPECT_EQ(lane_hashes(app), at_step[10]);
  ASSERT_TRUE(step_back(app));
  EXPECT_EQ(lane_hashes(app), at_step[9]);
  // The contacts shown are those of the step shown (the overlays draw them).
  EXPECT_EQ(app.scene.world.contacts().size(), app.timeline.history.at(9).lanes[0].contacts().size());
  ASSERT_TRUE(step_forward(app));
  ASSERT_TRUE(step_forward(app));
  EXPECT_EQ(lane_hashes(app), at_step[11]);
  EXPECT_EQ(app.timeline.history.size(), 31);  // moving through the history takes no step
  // Resuming from step 11 drops the steps after it and takes the same steps again.
  ASSERT_TRUE(step_once(app));
  EXPECT_EQ(app.timeline.history.size(), 13);
  for (int s = 12; s < 30; ++s) ASSERT_TRUE(step_once(app));
  EXPECT_EQ(lane_hashes(app), at_step[30]);
  EXPECT_EQ(shown_frame(app), 30);
}

TEST(Timeline, AResetStartsTheHistoryAgain) {
  AppState app = two_lanes();
  for (int s = 0; s < 10; ++s) ASSERT_TRUE(step_once(app));
  reset_scene(app);
  ASSERT_TRUE(step_once(app));
  EXPECT_EQ(app.timeline.history.size(), 2);
  EXPECT_EQ(app.timeline.history.at(0).step, 0);
  EXPECT_FALSE(step_back(app) && step_back(app));  // frame 0 is the oldest
}

TEST(Timeline, AKeyframeRestoresEveryLaneToGoOnBitForBit) {
  AppState app = two_lanes();
  for (int s = 0; s < 20; ++s) ASSERT_TRUE(step_once(app));
  const int key = save_keyframe(app);
  std::vector<std::vector<uint64_t>> after;
  for (int s = 0; s < 10; ++s) {
    ASSERT_TRUE(step_once(app));
    after.push_back(lane_hashes(app));
  }
  std::string error;
  ASSERT_TRUE(restore_keyframe(app, key, &error)) << error;
  EXPECT_EQ(app.scene.world.step_count(), 20);
  EXPECT_EQ(app.timeline.history.size(), 1);
  for (int s = 0; s < 10; ++s) {
    ASSERT_TRUE(step_once(app));
    EXPECT_EQ(lane_hashes(app), after[size_t(s)]) << "step " << 21 + s;
  }
}

TEST(Timeline, KeyframesAreSavedIntoTheSceneWhichMayStartFromOne) {
  AppState app = two_lanes();
  for (int s = 0; s < 25; ++s) ASSERT_TRUE(step_once(app));
  app.timeline.start_keyframe = save_keyframe(app);
  const World at_key = app.scene.world;
  reset_scene(app);
  const std::string path = cl::test::scratch_path("keyed_excavator.json");
  std::string error;
  ASSERT_TRUE(save_scene_as(app, path, &error)) << error;
  const SceneLoadResult loaded = load_scene_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  ASSERT_EQ(loaded.keyframes.size(), 1u);
  EXPECT_EQ(loaded.keyframes[0].lanes.size(), 2u);
  EXPECT_EQ(loaded.start_keyframe, 0);
  EXPECT_EQ(loaded.world.step_count(), 25);
  for (size_t i = 0; i < at_key.bodies.size(); ++i) EXPECT_EQ(loaded.world.bodies[i].position, at_key.bodies[i].position);
  // Opened in the viewer, the scene starts there and offers its keyframe.
  AppState again = open_or_throw(path);
  ASSERT_TRUE(step_once(again));
  EXPECT_EQ(again.scene.world.step_count(), 26);
  ASSERT_EQ(again.timeline.keyframes.size(), 1u);
  EXPECT_EQ(again.timeline.keyframes[0].step, 25);
}

// An interactive run in two lanes: the mouse spring pulls a body, a servo key is held, the friction changes, the
// user steps back and resumes with another pull; recorded, written, and replayed headless, every lane ends in the
// state the viewer ended in, bit for bit.
TEST(Timeline, ARecordedInteractiveRunReplaysHeadlessToTheSameState) {
  AppState app = two_lanes();
  const std::string path = cl::test::scratch_path("interactive.replay.json");
  std::string error;
  ASSERT_TRUE(start_replay_recording(app, path, &error)) << error;
  int servo = -1;
  for (size_t j = 0; j < app.scene.world.joints.size(); ++j)
    if (app.scene.world.joints[j].servo.enabled && servo < 0) servo = int(j);
  ASSERT_GE(servo, 0);
  const auto pull = [&](double dx) {
    DragSpring spring{3, Vec3(0.05, 0, 0), app.scene.world.bodies[3].position + Vec3(dx, 0.3, 0), 100, 12};
    app.scene.world.set_drag(spring);
  };
  for (int s = 0; s < 60; ++s) {
    if (s >= 5 && s < 25) pull(0.2 + 0.01 * s);
    if (s == 25) app.scene.world.clear_drag();
    if (s >= 15 && s < 35) app.scene.world.joints[size_t(servo)].servo.target += 0.01;
    if (s == 40) app.scene.world.materials[0].friction = 0.3;  // dropped with the steps after 30
    ASSERT_TRUE(step_once(app)) << app.sim.step_error;
  }
  show_frame(app, 30);  // back to step 30, and on with another pull
  EXPECT_NE(app.scene.world.materials[0].friction, 0.3);
  for (int s = 30; s < 70; ++s) {
    if (s == 50) app.scene.world.materials[0].friction = 0.2;
    if (s >= 32 && s < 45) pull(-0.3);
    if (s == 45) app.scene.world.clear_drag();
    ASSERT_TRUE(step_once(app)) << app.sim.step_error;
  }
  ASSERT_TRUE(write_replay_recording(app, &error)) << error;

  Replay replay;
  ASSERT_TRUE(read_replay_file(path, replay, &error)) << error;
  EXPECT_EQ(replay.steps, 70);
  std::string kinds;
  for (const Edit& e : replay.edits) kinds += e.what + ";";
  for (const char* kind : {"drag", "servo", "material"}) EXPECT_NE(kinds.find(kind), std::string::npos) << kinds;
  ReplayPlayer player;
  ASSERT_TRUE(player.begin(replay, &error)) << error;
  TaskPool pool(2);
  while (player.step(pool, &error)) {
  }
  ASSERT_TRUE(error.empty()) << error;
  std::string differences;
  EXPECT_TRUE(player.matches_recording(&differences)) << differences;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(state_hash(player.lanes()[size_t(i)]), state_hash(lane_world(app, i))) << "lane " << i + 1;

  // Played in the viewer (--replay), it ends there too, and says so.
  AppState played = open_default();
  ASSERT_TRUE(open_replay(played, path, &error)) << error;
  ASSERT_EQ(lane_count(played), 2);
  for (int s = 0; s < 70; ++s) ASSERT_TRUE(step_once(played)) << played.sim.step_error;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(state_hash(lane_world(played, i)), state_hash(lane_world(app, i))) << "lane " << i + 1;
  EXPECT_NE(played.timeline.message.find("every lane in the recorded state"), std::string::npos) << played.timeline.message;
  EXPECT_FALSE(played.sim.playing);
}

}  // namespace
}  // namespace cl::viewer
