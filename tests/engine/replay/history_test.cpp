// The history: frames of every lane to a memory budget, the oldest dropped first, resumable from any frame.
#include <gtest/gtest.h>

#include "replay/history.h"
#include "support/scenes.h"

namespace cl {
namespace {

TEST(History, ACopyIsMeasuredAndGrowsWithTheScene) {
  const World small = test::load_shipped_scene("two_balls.json");
  World big = test::load_shipped_scene("default.json");
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(big.step().ok);
  const World* one[] = {&small};
  const World* other[] = {&big};
  uint64_t small_bytes = 0, big_bytes = 0;
  copy_worlds(one, &small_bytes);
  copy_worlds(other, &big_bytes);
  EXPECT_GT(small_bytes, 1000u);
  EXPECT_GT(big_bytes, 2 * small_bytes);
  EXPECT_GT(big_bytes, big.bodies.size() * sizeof(Body));
}

TEST(History, KeepsTheNewestFramesWithinItsBudget) {
  World w = test::load_shipped_scene("default.json");
  StateHistory history;
  const World* lanes[] = {&w};
  const std::string errors[] = {""};
  history.push(lanes, errors);
  const uint64_t frame = history.back().bytes;
  ASSERT_GT(frame, 0u);
  history.set_budget(StateHistory::kMinBudget > 10 * frame ? StateHistory::kMinBudget : 10 * frame);
  for (int s = 0; s < 200; ++s) {
    ASSERT_TRUE(w.step().ok);
    history.push(lanes, errors);
    EXPECT_LE(history.bytes(), history.budget());
  }
  EXPECT_EQ(history.back().step, 200);
  EXPECT_GT(history.dropped(), 0);
  EXPECT_EQ(history.size() + history.dropped(), 201);
  // Consecutive steps from the oldest held.
  const int64_t oldest = history.at(0).step;
  for (int i = 0; i < history.size(); ++i) EXPECT_EQ(history.at(i).step, oldest + i);
  EXPECT_EQ(history.index_of_step(oldest), 0);
  EXPECT_EQ(history.index_of_step(oldest - 1), -1);
  EXPECT_EQ(history.index_of_step(200), history.size() - 1);
}

TEST(History, ResumingFromAFrameDropsTheFramesAfterItAndStepsOnAsBefore) {
  World w = test::load_shipped_scene("default.json");
  StateHistory history;
  const World* lanes[] = {&w};
  const std::string errors[] = {""};
  history.push(lanes, errors);
  for (int s = 0; s < 40; ++s) {
    ASSERT_TRUE(w.step().ok);
    history.push(lanes, errors);
  }
  const int at = history.index_of_step(20);
  ASSERT_GE(at, 0);
  World resumed = history.at(at).lanes[0];
  history.truncate_after(at);
  EXPECT_EQ(history.back().step, 20);
  for (int s = 0; s < 20; ++s) ASSERT_TRUE(resumed.step().ok);
  for (size_t i = 0; i < w.bodies.size(); ++i) EXPECT_EQ(resumed.bodies[i].position, w.bodies[i].position);
}

TEST(History, TheNewestFrameStaysWhateverTheBudget) {
  World w = test::load_shipped_scene("default.json");
  StateHistory history(1);
  const World* lanes[] = {&w};
  const std::string errors[] = {""};
  history.push(lanes, errors);
  history.push(lanes, errors);
  EXPECT_EQ(history.size(), 1);
  EXPECT_EQ(history.budget(), 1u);  // as constructed; set_budget raises it to kMinBudget
  history.set_budget(0);
  EXPECT_EQ(history.budget(), StateHistory::kMinBudget);
}

}  // namespace
}  // namespace cl
