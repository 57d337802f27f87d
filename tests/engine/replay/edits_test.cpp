// Edits between two steps: found whatever made them, applied again exactly, and written and read back exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "replay/edits.h"
#include "support/scenes.h"

namespace cl {
namespace {

World stepped(const std::string& scene, int steps) {
  World w = test::load_shipped_scene(scene);
  for (int s = 0; s < steps; ++s) EXPECT_TRUE(w.step().ok);
  return w;
}

// `after` rebuilt from `before` through the edit, and through the edit written to JSON and read back.
void expect_rebuilt(const World& before, const World& after, const Edit& e) {
  World direct = before;
  std::string error;
  ASSERT_TRUE(apply_edit(direct, e, &error)) << error;
  Edit left;
  EXPECT_FALSE(diff_worlds(direct, after, left)) << "left over: " << left.what;
  Edit read;
  ASSERT_TRUE(edit_from_json(nlohmann::json::parse(edit_to_json(e).dump()), "/edits/0", read, &error)) << error;
  World through_json = before;
  ASSERT_TRUE(apply_edit(through_json, read, &error)) << error;
  EXPECT_FALSE(diff_worlds(through_json, after, left)) << "left over after JSON: " << left.what;
  EXPECT_EQ(state_hash(through_json), state_hash(after));
}

TEST(Edits, NothingChangedIsNoEdit) {
  const World w = stepped("default.json", 5);
  const World copy = w;
  Edit e;
  EXPECT_FALSE(diff_worlds(w, copy, e));
  EXPECT_TRUE(e.empty());
}

TEST(Edits, AStepIsNotAnEditButItsBodiesChanged) {
  const World before = stepped("default.json", 5);
  World after = before;
  ASSERT_TRUE(after.step().ok);
  Edit e;
  ASSERT_TRUE(diff_worlds(before, after, e));  // the diff sees every body a step moved
  EXPECT_FALSE(e.bodies.empty());
  EXPECT_TRUE(e.joints.empty());
}

TEST(Edits, WakeDragMaterialDtAreFoundNamedAndRebuilt) {
  const World before = stepped("sleepy_stack.json", 200);
  World after = before;
  int asleep = -1;
  for (size_t i = 0; i < after.bodies.size(); ++i)
    if (after.bodies[i].sleeping) asleep = int(i);
  ASSERT_GE(asleep, 0) << "sleepy_stack should have fallen asleep in 200 steps";
  after.wake(asleep);
  Edit e;
  ASSERT_TRUE(diff_worlds(before, after, e));
  EXPECT_EQ(e.what, "wake");
  expect_rebuilt(before, after, e);

  DragSpring spring;
  spring.body = asleep;
  spring.local_anchor = Vec3(0.1, 0, -0.0);
  spring.target = Vec3(1.0 / 3.0, 2, 0);
  spring.stiffness = 100;
  spring.damping = 12;
  after.set_drag(spring);
  after.materials[0].friction = 0.123456789012345678;
  after.settings.dt = 1.0 / 240.0;
  ASSERT_TRUE(diff_worlds(before, after, e));
  EXPECT_EQ(e.what, "wake, drag, material, settings");
  expect_rebuilt(before, after, e);
}

TEST(Edits, ServoTargetAloneIsAServoEditAndKeepsInfiniteBoundsAndUnknownCoordinate) {
  const World before = test::load_shipped_scene("excavator.json");
  int servo = -1;
  for (size_t j = 0; j < before.joints.size(); ++j)
    if (before.joints[j].servo.enabled && servo < 0) servo = int(j);
  ASSERT_GE(servo, 0);
  World after = before;
  after.joints[size_t(servo)].servo.target += 0.25;
  Edit e;
  ASSERT_TRUE(diff_worlds(before, after, e));
  EXPECT_EQ(e.what, "servo");
  expect_rebuilt(before, after, e);

  after.joints[size_t(servo)].servo.upper = std::numeric_limits<double>::infinity();
  after.joints[size_t(servo)].servo.coordinate = std::numeric_limits<double>::quiet_NaN();
  after.joints[size_t(servo)].limit.enabled = !after.joints[size_t(servo)].limit.enabled;
  ASSERT_TRUE(diff_worlds(before, after, e));
  EXPECT_EQ(e.what, "joint");
  expect_rebuilt(before, after, e);
}

TEST(Edits, AMethodMadeAgainIsAnEditEvenUnderItsOwnName) {
  const World before = stepped("default.json", 10);
  World after = before;
  std::string error;
  ASSERT_TRUE(after.set_solver("implicit-penalty", &error)) << error;
  ASSERT_TRUE(after.set_solver(std::string(before.solver().name()), &error)) << error;  // and back: a fresh solver
  Edit e;
  ASSERT_TRUE(diff_worlds(before, after, e));
  ASSERT_TRUE(e.solver.has_value());
  EXPECT_EQ(*e.solver, before.solver().name());
  ASSERT_TRUE(e.params.has_value());

  World params = before;
  ASSERT_TRUE(params.solver().params().set(params.solver().params().specs()[0].name,
                                           params.solver().params().value(0) + 1, &error)) << error;
  ASSERT_TRUE(diff_worlds(before, params, e));
  EXPECT_EQ(e.what, "parameters");
  expect_rebuilt(before, params, e);

  World teleported = before;
  teleported.bodies[1].position.x() += 1;
  teleported.reset_contacts();
  ASSERT_TRUE(diff_worlds(before, teleported, e));
  EXPECT_TRUE(e.reset_contacts);
  EXPECT_EQ(e.what, "body, contacts");
}

TEST(Edits, ScriptsAreRebuilt) {
  const World before = test::load_shipped_scene("scripted_ball_push.json");
  ASSERT_FALSE(before.scripts.empty());
  World after = before;
  after.scripts[0].points.push_back(after.scripts[0].points.back() + Vec3(0.5, 0, 0.25));
  after.scripts[0].loop = !after.scripts[0].loop;
  after.scripts[0].start_time = 0.7;
  Edit e;
  ASSERT_TRUE(diff_worlds(before, after, e));
  EXPECT_EQ(e.what, "script");
  expect_rebuilt(before, after, e);
}

TEST(Edits, AnEditThatDoesNotFitIsRefused) {
  World w = test::load_shipped_scene("default.json");
  Edit e;
  e.bodies.push_back({int(w.bodies.size()), {1, 2, 3}});
  std::string error;
  EXPECT_FALSE(apply_edit(w, e, &error));
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
  e.bodies = {{0, {1, 2, 3}}};
  EXPECT_FALSE(apply_edit(w, e, &error));
  EXPECT_NE(error.find("do not fit"), std::string::npos) << error;
  EXPECT_FALSE(edit_from_json(nlohmann::json::parse(R"({"step": 3, "lane": 0})"), "/edits/4", e, &error));
  EXPECT_NE(error.find("/edits/4/lane"), std::string::npos) << error;
}

TEST(Edits, TheHashSeesOneBit) {
  const World a = stepped("default.json", 3);
  World b = a;
  EXPECT_EQ(state_hash(a), state_hash(b));
  b.bodies[5].position.y() = std::nextafter(b.bodies[5].position.y(), 10.0);
  EXPECT_NE(state_hash(a), state_hash(b));
  EXPECT_EQ(hash_text(0x0123456789abcdefull), "0123456789abcdef");
}

}  // namespace
}  // namespace cl
