// Comparison lanes: lockstep stepping equals stepping alone (1 and 2 threads), the drag reaches every lane, a
// lane that stops leaves the others running, and the lane list and LANE.name settings are checked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compare/lanes.h"
#include "solvers/registry.h"
#include "support/builders.h"
#include "support/scenes.h"

namespace cl {
namespace {

// Every body's state is bit for bit the same.
void expect_same_lane_state(const World& a, const World& b, const std::string& what) {
  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const Body& x = a.bodies[i];
    const Body& y = b.bodies[i];
    EXPECT_TRUE(x.position == y.position && x.orientation.coeffs() == y.orientation.coeffs() &&
                x.linear_velocity == y.linear_velocity && x.angular_velocity == y.angular_velocity)
        << what << ": body " << x.name << " differs: " << x.position.transpose() << " vs " << y.position.transpose();
  }
}

// Three methods on one scene with contacts and friction, for the lockstep tests: the shipped sphere and box, set
// moving (the sphere thrown rolling, the box sliding and turning), so that the methods' contact and friction
// models give different motions; at rest on the plane two methods may agree to a fraction of a micrometre.
World sphere_and_box() {
  World w = test::load_shipped_scene("sphere_and_box.json");
  for (Body& b : w.bodies) {
    if (b.name == "sphere") b.linear_velocity = Vec3(2.0, 0.0, 0.5);
    if (b.name == "box") {
      b.linear_velocity = Vec3(-1.5, 0.0, 1.0);
      b.angular_velocity = Vec3(0.0, 3.0, 0.0);
    }
  }
  return w;
}

TEST(Lanes, EachLaneEqualsItsSoloRunWithOneAndTwoThreads) {
  const World scene = sphere_and_box();
  const std::vector<LaneSpec> specs = {{"lcp", {}}, {"implicit-penalty", {}}, {"volume", {{"iterations", "30"}}}};
  constexpr int kSteps = 60;
  std::vector<World> solo;
  for (const LaneSpec& spec : specs) {
    World w;
    std::string error;
    ASSERT_TRUE(make_lane(scene, spec, w, &error)) << error;
    for (int s = 0; s < kSteps; ++s) ASSERT_TRUE(w.step().ok);
    solo.push_back(std::move(w));
  }
  for (int threads : {1, 2}) {
    Lanes lanes(threads);
    ASSERT_EQ(lanes.threads(), threads);
    std::string error;
    for (const LaneSpec& spec : specs) ASSERT_TRUE(lanes.add(scene, spec, &error)) << error;
    for (int s = 0; s < kSteps; ++s) lanes.step();
    for (int i = 0; i < lanes.size(); ++i) {
      EXPECT_FALSE(lanes.stopped(i));
      EXPECT_EQ(lanes.world(i).step_count(), kSteps);
      expect_same_lane_state(lanes.world(i), solo[size_t(i)],
                             specs[size_t(i)].solver + " with " + std::to_string(threads) + " threads");
    }
  }
}

TEST(Lanes, TheLanesReallyDiffer) {
  // The lockstep test means something only if the methods give different motions on its scene.
  const World scene = sphere_and_box();
  Lanes lanes(1);
  std::string error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  ASSERT_TRUE(lanes.add(scene, {"implicit-penalty", {}}, &error)) << error;
  for (int s = 0; s < 60; ++s) lanes.step();
  EXPECT_GT(divergence(lanes.world(0), lanes.world(1)).max, 1e-6);
}

TEST(Lanes, DragReachesEveryLane) {
  World scene;
  test::add_plane(scene);
  const int box = test::add_body(scene, test::box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5, 0));
  Lanes lanes(2);
  std::string error;
  for (const char* solver : {"lcp", "implicit-penalty", "volume"}) ASSERT_TRUE(lanes.add(scene, {solver, {}}, &error)) << error;
  DragSpring spring;
  spring.body = box;
  spring.target = Vec3(0, 3, 0);
  spring.stiffness = 100;
  spring.damping = 12;
  lanes.set_drag(spring);
  for (int s = 0; s < 60; ++s) lanes.step();
  for (int i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(lanes.world(i).drag().body, box);
    // Pulled towards y = 3 by 100 N/m per kg against gravity: lifted well clear of the ground in every lane.
    EXPECT_GT(lanes.world(i).bodies[size_t(box)].position.y(), 1.5) << lanes.world(i).solver().name();
  }
  lanes.clear_drag();
  for (int i = 0; i < lanes.size(); ++i) EXPECT_EQ(lanes.world(i).drag().body, -1);
}

TEST(Lanes, AStoppedLaneLeavesTheOthersRunning) {
  World scene;
  test::add_plane(scene);
  test::add_body(scene, test::sphere(0.5), Vec3(0, 3, 0));
  Lanes lanes(2);
  std::string error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  lanes.world(1).settings.max_speed = 1.0;  // the falling ball passes 1 m/s in its seventh step
  for (int s = 0; s < 30; ++s) lanes.step();
  EXPECT_FALSE(lanes.stopped(0));
  EXPECT_EQ(lanes.world(0).step_count(), 30);
  ASSERT_TRUE(lanes.stopped(1));
  EXPECT_LT(lanes.world(1).step_count(), 10);
  EXPECT_NE(lanes.result(1).error.find("max_speed"), std::string::npos) << lanes.result(1).error;
}

TEST(Lanes, AtMostFourLanes) {
  World scene;
  test::add_plane(scene);
  Lanes lanes(1);
  std::string error;
  for (int i = 0; i < kMaxLanes; ++i) ASSERT_TRUE(lanes.add(scene, {"lcp", {}}, &error)) << error;
  EXPECT_FALSE(lanes.add(scene, {"lcp", {}}, &error));
  EXPECT_NE(error.find("at most 4"), std::string::npos) << error;
}

TEST(LaneList, ParsesNamesAndRefusesBadOnes) {
  std::vector<LaneSpec> specs;
  std::string error;
  ASSERT_TRUE(parse_lane_list("lcp,implicit-penalty,volume", specs, &error)) << error;
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[1].solver, "implicit-penalty");
  ASSERT_TRUE(parse_lane_list("lcp,lcp", specs, &error)) << error;  // one method at two settings
  EXPECT_FALSE(parse_lane_list("lcp,,volume", specs, &error));
  EXPECT_NE(error.find("empty solver name"), std::string::npos) << error;
  EXPECT_FALSE(parse_lane_list("lcp,pgs", specs, &error));
  EXPECT_NE(error.find("unknown solver 'pgs'"), std::string::npos) << error;
  EXPECT_FALSE(parse_lane_list("lcp,lcp,lcp,lcp,lcp", specs, &error));
  EXPECT_NE(error.find("more than 4 lanes"), std::string::npos) << error;
  EXPECT_FALSE(parse_lane_list("", specs, &error));
  // "all": every registered method, in the registry's order.
  ASSERT_TRUE(parse_lane_list("all", specs, &error)) << error;
  ASSERT_EQ(specs.size(), std::min<size_t>(solver_registry().size(), kMaxLanes));
  for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(specs[i].solver, solver_registry()[i].name);
}

TEST(LaneList, SettingsGoToTheirLane) {
  std::vector<LaneSpec> specs = {{"lcp", {}}, {"volume", {}}};
  std::string error;
  ASSERT_TRUE(assign_lane_params({{"2.iterations", "40"}, {"1.warm_start", "false"}}, specs, &error)) << error;
  ASSERT_EQ(specs[1].params.size(), 1u);
  EXPECT_EQ(specs[1].params[0].first, "iterations");
  EXPECT_EQ(specs[1].params[0].second, "40");
  EXPECT_EQ(specs[0].params[0].first, "warm_start");
  for (const char* bad : {"iterations", "3.iterations", "0.iterations", "x.iterations", "2.", "-1.iterations"}) {
    std::vector<LaneSpec> s = {{"lcp", {}}, {"volume", {}}};
    EXPECT_FALSE(assign_lane_params({{bad, "1"}}, s, &error)) << bad;
    EXPECT_NE(error.find("LANE.name=value"), std::string::npos) << error;
  }
}

TEST(MakeLane, RefusesWhatTheSceneRefuses) {
  World scene = test::load_shipped_scene("default.json");
  scene.methods = {"lcp"};  // as a user's scene with "methods": ["lcp"] (no shipped scene names its methods)
  World lane;
  std::string error;
  EXPECT_FALSE(make_lane(scene, {"volume", {}}, lane, &error));
  EXPECT_NE(error.find("lcp"), std::string::npos) << error;
  EXPECT_FALSE(make_lane(scene, {"lcp", {{"iterationz", "3"}}}, lane, &error));
  EXPECT_NE(error.find("iterationz"), std::string::npos) << error;
  EXPECT_FALSE(make_lane(scene, {"lcp", {{"iterations", "-3"}}}, lane, &error));
  ASSERT_TRUE(make_lane(scene, {"lcp", {{"iterations", "33"}}}, lane, &error)) << error;
  EXPECT_EQ(lane_label(lane), "lcp (iterations=33)");
  const LaneSpec back = lane_spec_of(lane);
  ASSERT_EQ(back.params.size(), 1u);
  EXPECT_EQ(back.params[0].second, "33");
}

TEST(Divergence, MaxAndMeanOverTheDynamicBodies) {
  World a;
  test::add_plane(a);
  test::add_body(a, test::sphere(0.1), Vec3(0, 1, 0));
  test::add_body(a, test::sphere(0.1), Vec3(1, 1, 0));
  World b = a;
  b.bodies[1].position += Vec3(0, 0, 0.3);
  b.bodies[2].position += Vec3(0.1, 0, 0);
  const Divergence d = divergence(a, b);
  EXPECT_DOUBLE_EQ(d.max, 0.3);
  EXPECT_DOUBLE_EQ(d.mean, 0.2);
  EXPECT_EQ(divergence(a, a).max, 0.0);
}

}  // namespace
}  // namespace cl
