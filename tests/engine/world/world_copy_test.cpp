// A World is a value (world/world.h): a copy taken between two steps and stepped on takes the very steps the
// original takes, bit for bit, under every method: contacts, warm starts and every cache come along. The viewer's
// history and keyframes rest on this (replay/history.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "replay/edits.h"
#include "solvers/registry.h"
#include "support/scenes.h"

namespace cl {
namespace {

// Scenes with what a copy must carry: a stack with resting contacts (warm starts), meshes, a hinged door, a
// scripted body, a force drawn at random each window, a servo arm.
const std::vector<std::string> kScenes = {"default.json", "mesh_drop.json", "door.json", "scripted_ball_push.json",
                                          "pushed_block.json", "excavator.json"};

void expect_same_state(const World& a, const World& b, const std::string& where) {
  ASSERT_EQ(a.bodies.size(), b.bodies.size()) << where;
  EXPECT_EQ(a.step_count(), b.step_count()) << where;
  EXPECT_EQ(a.time(), b.time()) << where;
  EXPECT_EQ(a.contacts().size(), b.contacts().size()) << where;
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    EXPECT_EQ(a.bodies[i].position, b.bodies[i].position) << where << ": body " << a.bodies[i].name;
    EXPECT_EQ(a.bodies[i].orientation.coeffs(), b.bodies[i].orientation.coeffs()) << where << ": body " << a.bodies[i].name;
    EXPECT_EQ(a.bodies[i].linear_velocity, b.bodies[i].linear_velocity) << where << ": body " << a.bodies[i].name;
    EXPECT_EQ(a.bodies[i].angular_velocity, b.bodies[i].angular_velocity) << where << ": body " << a.bodies[i].name;
  }
  EXPECT_EQ(state_hash(a), state_hash(b)) << where;
}

TEST(WorldCopy, ACopyStepsOnBitForBitUnderEveryMethod) {
  for (const std::string& name : kScenes) {
    const World loaded = test::load_shipped_scene(name);
    for (const SolverInfo& info : solver_registry()) {
      if (!loaded.allows_solver(info.name)) continue;
      const std::string where = name + " under " + info.name;
      World run = loaded;
      std::string error;
      ASSERT_TRUE(run.set_solver(info.name, &error)) << where << ": " << error;
      for (int s = 0; s < 25; ++s) ASSERT_TRUE(run.step().ok) << where;
      ASSERT_GT(run.contacts().size() + run.joints.size(), 0u) << where << ": nothing for a copy to carry";
      const World copy = run;  // the history's frame
      for (int s = 0; s < 25; ++s) ASSERT_TRUE(run.step().ok) << where;
      World restored = copy;  // restored and stepped on
      for (int s = 0; s < 25; ++s) ASSERT_TRUE(restored.step().ok) << where;
      expect_same_state(run, restored, where);
    }
  }
}

// The control: a copy that lost its contacts (as a keyframe read from a file does) does not step bit for bit under
// a method that warm-starts, so the test above can fail.
TEST(WorldCopy, ACopyWithoutItsContactsDrifts) {
  World run = test::load_shipped_scene("default.json");
  std::string error;
  ASSERT_TRUE(run.set_solver("lcp", &error)) << error;
  for (int s = 0; s < 40; ++s) ASSERT_TRUE(run.step().ok);
  World restored = run;
  restored.reset_contacts();
  for (int s = 0; s < 25; ++s) {
    ASSERT_TRUE(run.step().ok);
    ASSERT_TRUE(restored.step().ok);
  }
  EXPECT_NE(state_hash(run), state_hash(restored));
}

}  // namespace
}  // namespace cl
