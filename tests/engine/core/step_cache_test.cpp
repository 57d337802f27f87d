// A step cache: a copy starts empty, a move takes it along.
#include <gtest/gtest.h>

#include <vector>

#include "core/step_cache.h"

namespace cl {
namespace {

TEST(StepCache, ACopyStartsEmptyAndAMoveTakesIt) {
  StepCache<std::vector<int>> cache;
  cache->assign(1000, 7);
  const StepCache<std::vector<int>> copy = cache;
  EXPECT_TRUE(copy->empty());
  StepCache<std::vector<int>> assigned;
  assigned->assign(3, 1);
  assigned = cache;
  EXPECT_TRUE(assigned->empty());
  EXPECT_EQ(cache->size(), 1000u);  // the original keeps its cache
  const StepCache<std::vector<int>> moved = std::move(cache);
  EXPECT_EQ(moved->size(), 1000u);
  EXPECT_EQ((*moved)[999], 7);
}

}  // namespace
}  // namespace cl
