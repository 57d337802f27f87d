// Keyframes in scene files: saved and read back, a scene that starts from one, and the mistakes a reader reports.
#include <gtest/gtest.h>

#include "scene/scene.h"
#include "support/scenes.h"

namespace cl {
namespace {

using json = nlohmann::json;

json default_scene() { return scene_to_json(test::load_shipped_scene("default.json")); }

TEST(SceneKeyframes, SavedKeyframesLoadBackAndTheSceneStartsFromOne) {
  World w = test::load_shipped_scene("excavator.json");
  for (int s = 0; s < 40; ++s) ASSERT_TRUE(w.step().ok);
  int servo = -1;
  for (size_t j = 0; j < w.joints.size(); ++j)
    if (w.joints[j].servo.enabled && servo < 0) servo = int(j);
  ASSERT_GE(servo, 0);
  std::vector<SceneKeyframe> keys = {{"after 40", {keyframe_lane_of(w), keyframe_lane_of(w, 0.5, 30)}}};
  const World start = test::load_shipped_scene("excavator.json");
  const json doc = scene_to_json(start, {}, keys, "after 40");
  SceneLoadResult r = load_scene_json(doc, "keyed.json");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.keyframes.size(), 1u);
  EXPECT_EQ(r.start_keyframe, 0);
  ASSERT_EQ(r.keyframes[0].lanes.size(), 2u);
  EXPECT_EQ(r.keyframes[0].lanes[1].step, 10);
  EXPECT_DOUBLE_EQ(r.keyframes[0].lanes[1].time, w.time() - 0.5);
  EXPECT_EQ(r.world.step_count(), 40);
  EXPECT_EQ(r.world.time(), w.time());
  for (size_t i = 0; i < w.bodies.size(); ++i) {
    EXPECT_EQ(r.world.bodies[i].position, w.bodies[i].position) << w.bodies[i].name;
    EXPECT_EQ(r.world.bodies[i].orientation.coeffs(), w.bodies[i].orientation.coeffs()) << w.bodies[i].name;
    EXPECT_EQ(r.world.bodies[i].linear_velocity, w.bodies[i].linear_velocity) << w.bodies[i].name;
  }
  EXPECT_EQ(r.world.joints[size_t(servo)].servo.target, w.joints[size_t(servo)].servo.target);
  EXPECT_EQ(r.world.joints[size_t(servo)].servo.coordinate, w.joints[size_t(servo)].servo.coordinate);
  // Saved again, the keyframes are the same.
  const json again = scene_to_json(r.world, {}, r.keyframes, "after 40");
  EXPECT_EQ(again["keyframes"], doc["keyframes"]);
  // A world that steps on from the keyframe: it runs (contacts found afresh).
  for (int s = 0; s < 10; ++s) ASSERT_TRUE(r.world.step().ok);
}

TEST(SceneKeyframes, MistakesAreNamedWhereTheyAre) {
  const auto error_of = [](const json& doc) {
    SceneLoadResult r = load_scene_json(doc, "k.json");
    EXPECT_FALSE(r.ok());
    return r.error;
  };
  json doc = default_scene();
  doc["keyframes"] = json::array({{{"name", "a"}, {"lanes", json::array({{{"time", 1.0}, {"bodies", json::array({{{"name", "nobody"}, {"position", {0, 1, 0}}, {"orientation", {1, 0, 0, 0}}}})}}})}}});
  EXPECT_NE(error_of(doc).find("/keyframes/0/lanes/0/bodies/0/name: no body named 'nobody'"), std::string::npos)
      << error_of(doc);
  doc["keyframes"][0]["lanes"][0]["bodies"][0]["name"] = doc["bodies"][1]["name"];
  doc["start"] = "b";
  EXPECT_NE(error_of(doc).find("/start: no keyframe named 'b'"), std::string::npos) << error_of(doc);
  doc["start"] = "a";
  doc["keyframes"].push_back(doc["keyframes"][0]);
  EXPECT_NE(error_of(doc).find("/keyframes/1/name: keyframe 'a' is given twice"), std::string::npos) << error_of(doc);
  doc["keyframes"].erase(1);
  doc["keyframes"][0]["lanes"] = json::array();
  EXPECT_NE(error_of(doc).find("/keyframes/0/lanes: expected an array of 1 to 4 lane states"), std::string::npos)
      << error_of(doc);
  doc["keyframes"][0]["lanes"] = json::array({{{"time", 1.0}, {"speed", 2}}});
  EXPECT_NE(error_of(doc).find("/keyframes/0/lanes/0/speed: unknown key"), std::string::npos) << error_of(doc);
}

}  // namespace
}  // namespace cl
