// Continuous collision with kinematic bodies, and its cost (engine/world/continuous_step.cpp).
#include "world/world.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "scene/scene.h"
#include "solvers/registry.h"
#include "support/scenes.h"

namespace cl {
namespace {

// A kinematic ram at 500 m/s (under max_speed) along x from -10 to 30 through a stack of five 0.5 m boxes at x = 0.
std::string ram_scene(double dt) { return test::ram_scene(dt, -10.0, 30.0, 500.0); }

// Every box ends ahead of the ram (it was pushed, not passed through), or the run stops (exit 3): never a box
// left behind it or inside it with the run going on.
TEST(ContinuousStep, AKinematicBodyNeverPassesThroughAStackUnderAnyMethod) {
  for (const SolverInfo& info : solver_registry())
    for (double dt : {1.0 / 30, 1.0 / 60, 1.0 / 240}) {
      SceneLoadResult r = load_scene_text(ram_scene(dt), "ram.json");
      ASSERT_TRUE(r.ok()) << r.error;
      World& w = r.world;
      std::string error;
      ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
      const int ram = w.find_body("ram");
      bool stopped = false;
      for (int s = 0; s < int(0.2 / dt) && !stopped; ++s) stopped = !w.step().ok;
      if (stopped) continue;
      const double front = w.bodies[size_t(ram)].position.x() + 0.3;
      EXPECT_NEAR(w.bodies[size_t(ram)].position.x(), 30.0, 1e-9);
      for (int i = 0; i < 5; ++i) {
        const Body& b = w.bodies[size_t(w.find_body("b" + std::to_string(i)))];
        EXPECT_GT(b.position.x(), front) << info.name << " dt " << dt << ": box " << i << " at " << b.position.x()
                                         << " is behind the ram's front " << front;
        EXPECT_GT(b.position.y(), 0.0) << info.name << " dt " << dt << ": box " << i << " under the ground";
      }
    }
}

// Without the ram's push the boxes stay where they are (the ram tunnels): the test above can fail.
TEST(ContinuousStep, WithoutContinuousCollisionTheRamPassesThrough) {
  SceneLoadResult r = load_scene_text(ram_scene(1.0 / 60), "ram.json");
  ASSERT_TRUE(r.ok()) << r.error;
  r.world.settings.continuous = false;
  for (int s = 0; s < 12; ++s) ASSERT_TRUE(r.world.step().ok);
  EXPECT_NEAR(r.world.bodies[size_t(r.world.find_body("b0"))].position.x(), 0.0, 1e-6);
}

// The sweep uses the broad phase over the swept boxes: 10,648 falling spheres (each fast, each meeting a few
// others) cost a few times the integration without continuous collision, not one sweep per body against every
// body. The two worlds step alternately, so that a busy machine slows both alike.
TEST(ContinuousStep, CostGrowsWithTheMovingPairsNotTheSquareOfTheBodies) {
  std::string bodies = R"({"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true})";
  const int side = 22;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k)
        bodies += R"(, {"name": "s)" + std::to_string((i * side + j) * side + k) +
                  R"(", "shape": {"type": "sphere", "radius": 0.01}, "mass": 0.01, "position": [)" +
                  std::to_string(0.03 * i) + ", " + std::to_string(0.5 + 0.03 * j) + ", " + std::to_string(0.03 * k) + "]}";
  SceneLoadResult r = load_scene_text(R"({"format": 1, "max_contacts": 0, "bodies": [)" + bodies + "]}", "spheres.json");
  ASSERT_TRUE(r.ok()) << r.error;
  World swept = r.world, plain = r.world;
  plain.settings.continuous = false;
  double swept_ms = 0.0, plain_ms = 0.0;
  for (int s = 0; s < 12; ++s) {  // falling faster than the contact margin per step from step 9 on
    ASSERT_TRUE(swept.step().ok);
    ASSERT_TRUE(plain.step().ok);
    if (s < 9) continue;
    swept_ms += swept.last_stats().profile.integrate;
    plain_ms += plain.last_stats().profile.integrate;
  }
  // Measured 5-6 times (the sweep of every body against every body: about 16 times).
  EXPECT_LT(swept_ms, 10.0 * plain_ms) << swept_ms << " ms against " << plain_ms << " ms";
}

}  // namespace
}  // namespace cl
