// The comparison summary: the figures per lane and the table they make.
#include <gtest/gtest.h>

#include <string>

#include "compare/summary.h"
#include "support/builders.h"

namespace cl {
namespace {

TEST(ComparisonSummary, FiguresPerLane) {
  // A ball resting on the ground (lane 1) and the same ball dropped from 1 m higher (lane 2, moved by hand).
  World scene;
  test::add_plane(scene);
  const int ball = test::add_body(scene, test::sphere(0.5), Vec3(0, 0.5, 0));
  Lanes lanes(2);
  std::string error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {{"iterations", "20"}}}, &error)) << error;
  lanes.world(1).bodies[size_t(ball)].position.y() = 1.5;
  ComparisonSummary summary;
  summary.begin(lanes);
  for (int s = 0; s < 120; ++s) {
    lanes.step();
    summary.add(lanes);
  }
  const std::vector<LaneSummary> out = summary.lanes(lanes);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].label, "lcp");
  EXPECT_EQ(out[1].label, "lcp (iterations=20)");
  EXPECT_EQ(out[0].steps, 120);
  EXPECT_FALSE(out[0].stopped);
  EXPECT_GT(out[0].ms_median, 0.0);
  EXPECT_GE(out[0].ms_p95, out[0].ms_median);
  // Lane 1 rests: no divergence from itself, no energy lost. Lane 2 fell 1 m onto the ground (restitution 0)
  // and lost its potential energy m g 1 m, coming to rest where lane 1 rests.
  EXPECT_EQ(out[0].divergence.max, 0.0);
  const double m = scene.bodies[size_t(ball)].mass;
  EXPECT_NEAR(out[0].energy_end - out[0].energy_start, 0.0, 1e-3 * m);
  EXPECT_NEAR(out[1].energy_end - out[1].energy_start, -m * 9.81 * 1.0, 0.02 * m * 9.81);
  EXPECT_LT(out[1].divergence.max, 0.01);
  EXPECT_GT(out[1].max_penetration, out[1].mean_penetration);

  const std::string table = comparison_table("ball", 1.0 / 60, 120, out);
  EXPECT_NE(table.find("ball: 120 steps"), std::string::npos) << table;
  EXPECT_NE(table.find("lcp (iterations=20)"), std::string::npos) << table;
  EXPECT_NE(table.find("ms med"), std::string::npos) << table;
  EXPECT_EQ(table.find("STOPPED"), std::string::npos) << table;
}

TEST(ComparisonSummary, AStoppedLaneIsMarkedWithItsError) {
  World scene;
  test::add_plane(scene);
  test::add_body(scene, test::sphere(0.5), Vec3(0, 3, 0));
  Lanes lanes(1);
  std::string error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  ASSERT_TRUE(lanes.add(scene, {"implicit-penalty", {}}, &error)) << error;
  lanes.world(1).settings.max_speed = 1.0;
  ComparisonSummary summary;
  summary.begin(lanes);
  for (int s = 0; s < 30; ++s) {
    lanes.step();
    summary.add(lanes);
  }
  const std::vector<LaneSummary> out = summary.lanes(lanes);
  EXPECT_FALSE(out[0].stopped);
  EXPECT_TRUE(out[1].stopped);
  EXPECT_LT(out[1].steps, 10);
  const std::string table = comparison_table("ball", 1.0 / 60, 30, out);
  EXPECT_NE(table.find("STOPPED"), std::string::npos) << table;
  EXPECT_NE(table.find("lane 2 stopped after"), std::string::npos) << table;
}

}  // namespace
}  // namespace cl
