// Replays: an interactive run recorded as its start and its edits, written, read back and replayed, ends in the same
// state bit for bit in every lane; a replay of another format is refused with a message that says what to do.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compare/lanes.h"
#include "core/text.h"
#include "replay/replay_file.h"
#include "scene/scene_reader.h"
#include "support/scenes.h"

namespace cl {
namespace {

std::string scene_text(const std::string& name) {
  std::string text, error;
  EXPECT_TRUE(read_text_file((test::source_dir() / "scenes" / name).string(), scene_io::kMaxSceneBytes, "scene", text, error))
      << error;
  return text;
}

// A run of the excavator in two lanes, as the viewer takes it: lane 1 under lcp with a parameter set on the command
// line, lane 2 under implicit-penalty; the user drags a body, holds a servo key, changes a material and dt, switches
// lane 2's method, and the replay records each before the step it came before.
struct RecordedRun {
  Replay replay;
  std::vector<World> lanes;
  std::vector<std::string> errors{2};
};

RecordedRun record_run(int steps) {
  RecordedRun run;
  const std::string file = (test::source_dir() / "scenes" / "excavator.json").string();
  const SceneLoadResult scene = load_scene_text(scene_text("excavator.json"), file);
  EXPECT_TRUE(scene.ok()) << scene.error;
  run.replay.start = {file, scene_text("excavator.json"), {"lcp", "implicit-penalty"}, ""};
  std::string error;
  run.lanes.resize(2);
  EXPECT_TRUE(make_lane(scene.world, LaneSpec{"lcp", {{"iterations", "35"}}}, run.lanes[0], &error)) << error;
  EXPECT_TRUE(make_lane(scene.world, LaneSpec{"implicit-penalty", {}}, run.lanes[1], &error)) << error;
  std::vector<World*> lanes{&run.lanes[0], &run.lanes[1]};
  EXPECT_TRUE(start_edits(scene.world, scene.keyframes, run.replay.start, std::vector<const World*>{lanes[0], lanes[1]},
                          run.replay.edits, &error)) << error;
  TaskPool pool(2);
  int servo = -1;
  for (size_t j = 0; j < run.lanes[0].joints.size(); ++j)
    if (run.lanes[0].joints[j].servo.enabled && servo < 0) servo = int(j);
  EXPECT_GE(servo, 0);
  for (int s = 0; s < steps; ++s) {
    const std::vector<World> before = run.lanes;  // the history's newest frame
    for (World* w : lanes) {
      if (s == 10) {
        DragSpring spring{3, Vec3(0.05, 0, 0), w->bodies[3].position + Vec3(0.3, 0.4, 0), 100, 12};
        w->set_drag(spring);
      }
      if (s > 10 && s < 30) {
        DragSpring spring = w->drag();
        spring.target += Vec3(0.01, 0, 0.005);
        w->set_drag(spring);
      }
      if (s == 30) w->clear_drag();
      if (s >= 20 && s < 50) set_servo_target(w->joints[size_t(servo)].servo, w->joints[size_t(servo)].servo.target + 0.01);
      if (s == 40) w->materials[0].friction = 0.9;
      if (s == 45) w->settings.dt = 1.0 / 120.0;
    }
    if (s == 60) {
      EXPECT_TRUE(run.lanes[1].set_solver("lcp", &error)) << error;
    }
    record_edits(before, lanes, run.errors, run.replay.edits);
    std::vector<StepResult> results(2);
    step_lockstep(lanes, pool, results);
    EXPECT_TRUE(results[0].ok && results[1].ok);
  }
  finish_replay(run.replay, std::vector<const World*>{lanes[0], lanes[1]}, run.errors);
  return run;
}

TEST(ReplayFile, AnInteractiveRunReplaysBitForBitInEveryLane) {
  const RecordedRun run = record_run(90);
  EXPECT_EQ(run.replay.steps, 90);
  std::string kinds;
  for (const Edit& e : run.replay.edits) kinds += e.what + ";";
  for (const char* kind : {"drag", "servo", "material", "settings", "method", "parameters"})
    EXPECT_NE(kinds.find(kind), std::string::npos) << kind << " not recorded: " << kinds;

  Replay read;
  std::string error;
  ASSERT_TRUE(parse_replay_text(replay_to_text(run.replay), "run.replay.json", read, &error)) << error;
  ReplayPlayer player;
  ASSERT_TRUE(player.begin(read, &error)) << error;
  TaskPool pool(2);
  while (player.step(pool, &error)) {
  }
  ASSERT_TRUE(error.empty()) << error;
  std::string differences;
  EXPECT_TRUE(player.matches_recording(&differences)) << differences;
  for (size_t l = 0; l < 2; ++l) {
    const World& a = run.lanes[l];
    const World& b = player.lanes()[l];
    EXPECT_EQ(a.step_count(), b.step_count());
    for (size_t i = 0; i < a.bodies.size(); ++i) {
      EXPECT_EQ(a.bodies[i].position, b.bodies[i].position) << "lane " << l + 1 << " body " << a.bodies[i].name;
      EXPECT_EQ(a.bodies[i].angular_velocity, b.bodies[i].angular_velocity) << "lane " << l + 1 << " body " << a.bodies[i].name;
    }
  }
}

// The control: the same replay with one edit nudged by one bit in its last place does not end where the recording did.
TEST(ReplayFile, AReplayWithAnEditChangedDoesNotMatch) {
  RecordedRun run = record_run(60);
  bool nudged = false;
  for (Edit& e : run.replay.edits)
    if (e.drag && !nudged && e.step > 12) {
      (*e.drag)[5] = std::nextafter((*e.drag)[5], 1e9);  // the spring target's x
      nudged = true;
    }
  ASSERT_TRUE(nudged);
  ReplayPlayer player;
  std::string error;
  ASSERT_TRUE(player.begin(run.replay, &error)) << error;
  TaskPool pool(1);
  while (player.step(pool, &error)) {
  }
  std::string differences;
  EXPECT_FALSE(player.matches_recording(&differences));
  EXPECT_NE(differences.find("lane 1"), std::string::npos) << differences;
}

TEST(ReplayFile, OtherFormatsAndScenesAreRefusedWithWhatToDo) {
  Replay r;
  std::string error;
  EXPECT_FALSE(parse_replay_text(R"({"contactlab_replay": 0, "steps": 3})", "old.json", r, &error));
  EXPECT_NE(error.find("older ContactLab"), std::string::npos) << error;
  EXPECT_NE(error.find("record the run again"), std::string::npos) << error;
  EXPECT_FALSE(parse_replay_text(R"({"contactlab_replay": 7})", "new.json", r, &error));
  EXPECT_NE(error.find("newer ContactLab"), std::string::npos) << error;
  EXPECT_FALSE(parse_replay_text(scene_text("default.json"), "default.json", r, &error));
  EXPECT_NE(error.find("scene file, not a replay"), std::string::npos) << error;
  EXPECT_FALSE(parse_replay_text("[1, 2]", "list.json", r, &error));
  EXPECT_NE(error.find("list.json: not a replay file"), std::string::npos) << error;
}

TEST(ReplayFile, AReplayFromAScenesKeyframeStartsThere) {
  const std::string file = (test::source_dir() / "scenes" / "default.json").string();
  SceneLoadResult scene = load_scene_text(scene_text("default.json"), file);
  ASSERT_TRUE(scene.ok()) << scene.error;
  World moved = scene.world;
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(moved.step().ok);
  nlohmann::json doc = nlohmann::json::parse(scene_text("default.json"));
  doc["keyframes"] = nlohmann::json::array({{{"name", "k"}, {"lanes", nlohmann::json::array({{{"time", moved.time()}, {"step", 30}}})}}});
  doc["keyframes"][0]["lanes"][0]["bodies"] = keyframes_json_as<nlohmann::json>(moved, {{"k", {keyframe_lane_of(moved)}}})[0]["lanes"][0]["bodies"];
  Replay r;
  r.start = {file, doc.dump(), {"lcp"}, "k"};
  SceneLoadResult with_key = load_scene_text(r.start.scene_text, file);
  ASSERT_TRUE(with_key.ok()) << with_key.error;
  std::vector<World> lanes;
  std::string error;
  ASSERT_TRUE(make_start_lanes(with_key.world, with_key.keyframes, r.start, lanes, &error)) << error;
  EXPECT_EQ(lanes[0].step_count(), 30);
  EXPECT_EQ(lanes[0].time(), moved.time());
  for (size_t i = 0; i < moved.bodies.size(); ++i) EXPECT_EQ(lanes[0].bodies[i].position, moved.bodies[i].position);
  r.start.keyframe = "missing";
  EXPECT_FALSE(make_start_lanes(with_key.world, with_key.keyframes, r.start, lanes, &error));
  EXPECT_NE(error.find("no keyframe 'missing'"), std::string::npos) << error;
}

}  // namespace
}  // namespace cl
