#include "collision/broadphase.h"

#include <gtest/gtest.h>

#include <random>

namespace cl {

// Sweep-and-prune must report exactly the brute-force pairs, also as the boxes move between calls.
TEST(BroadPhase, MatchesBruteForceWhileBoxesMove) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> pos(-10, 10), size(0.1, 1.5), step(-0.3, 0.3);
  const int n = 400;
  std::vector<Vec3> centre(n), half(n);
  std::vector<char> is_static(n, 0);
  for (int i = 0; i < n; ++i) {
    centre[i] = Vec3(pos(rng), pos(rng) * 0.3, pos(rng));
    half[i] = Vec3(size(rng), size(rng), size(rng));
    is_static[i] = i % 17 == 0;
  }
  BroadPhase bp;
  for (int frame = 0; frame < 20; ++frame) {
    std::vector<Aabb> boxes(n);
    for (int i = 0; i < n; ++i) boxes[i] = {centre[i] - half[i], centre[i] + half[i]};
    std::vector<BodyPair> fast, slow;
    bp.find_pairs(boxes, is_static, fast);
    brute_force_pairs(boxes, is_static, slow);
    ASSERT_EQ(fast, slow) << "frame " << frame;
    EXPECT_GT(slow.size(), 10u);
    for (int i = 0; i < n; ++i) centre[i] += Vec3(step(rng), step(rng), step(rng));
  }
}

TEST(BroadPhase, TouchingBoxesOverlapAndStaticPairsAreSkipped) {
  std::vector<Aabb> boxes = {{Vec3(0, 0, 0), Vec3(1, 1, 1)}, {Vec3(1, 0, 0), Vec3(2, 1, 1)}, {Vec3(5, 5, 5), Vec3(6, 6, 6)}};
  std::vector<BodyPair> out;
  BroadPhase bp;
  bp.find_pairs(boxes, {0, 0, 0}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (BodyPair{0, 1}));
  bp.find_pairs(boxes, {1, 1, 0}, out);
  EXPECT_TRUE(out.empty());
}

TEST(BroadPhase, StopsPastTheMostPairs) {
  // 100 boxes at one place overlap in 4,950 pairs: the search stops once it has more than the limit.
  std::vector<Aabb> boxes(100, Aabb{Vec3(0, 0, 0), Vec3(1, 1, 1)});
  const std::vector<char> dynamic(100, 0);
  std::vector<BodyPair> out;
  BroadPhase bp;
  EXPECT_FALSE(bp.find_pairs(boxes, dynamic, out, 1000));
  EXPECT_EQ(out.size(), 1001u);
  EXPECT_TRUE(bp.find_pairs(boxes, dynamic, out, 4950));
  EXPECT_EQ(out.size(), 4950u);
}

}  // namespace cl
