// The sleepy policy (thesis sect. 6.5) on single bodies touching nothing, each a group of its own: the absolute test
// scaled by mass and size, the relative test over the calm steps, and the steadiness test.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "graph/sleep.h"

namespace cl {
namespace {

constexpr double kH = 1.0 / 60.0;

SleepSettings sleep_settings() {
  SleepSettings s;
  s.energy_per_mass = 0.002;
  s.steps = 5;
  s.dt = kH;
  s.gravity = 9.81;
  return s;
}

Body ball(double radius) {
  Body b;
  b.shape.type = ShapeType::Sphere;
  b.shape.radius = radius;
  b.set_mass_properties(1000, 0);
  return b;
}

// Steps the policy `n` times, setting the body's velocity to velocity(step) before each; returns the first step
// (from 1) after which it was asleep, 0 if never.
template <class F>
int steps_to_sleep(Body b, int n, F velocity) {
  std::vector<Body> bodies{b};
  const ContactGraph graph;
  for (int k = 1; k <= n; ++k) {
    if (!bodies[0].sleeping) bodies[0].linear_velocity = velocity(k);
    update_sleep(bodies, graph, sleep_settings());
    if (bodies[0].sleeping) return k;
  }
  return 0;
}

TEST(Sleep, ABodyAtRestSleepsAfterItsCalmSteps) {
  EXPECT_EQ(steps_to_sleep(ball(0.5), 100, [](int) { return Vec3::Zero(); }), 5);
}

// A body accelerating from rest gains energy at every step: the relative test over its calm steps never passes,
// though its energy stays under the absolute threshold for thousands of steps. Only an acceleration under the
// round-off band, noise g / steps (2e-4 m/s^2), is lost.
TEST(Sleep, ABodyThatAcceleratesSlowlyNeverSleeps) {
  for (double a : {1e-1, 1e-2, 1e-3}) {
    EXPECT_EQ(steps_to_sleep(ball(0.5), 5000, [&](int k) { return Vec3(a * kH * k, 0, 0); }), 0) << a << " m/s^2";
  }
  // The same on a body moving already.
  EXPECT_EQ(steps_to_sleep(ball(0.5), 5000, [&](int k) { return Vec3(0.001 + 1e-3 * kH * k, 0, 0); }), 0);
  EXPECT_EQ(steps_to_sleep(ball(0.5), 100, [&](int k) { return Vec3(1e-5 * kH * k, 0, 0); }), 5);
}

// Energy that falls as a body settles, and round-off that goes up and down at rest, let it sleep.
TEST(Sleep, SettlingAndRoundOffSleep) {
  const int settling = steps_to_sleep(ball(0.5), 100, [](int k) { return Vec3(0, 0.01 * std::pow(0.5, k), 0); });
  EXPECT_GE(settling, 5);
  EXPECT_LE(settling, 10);
  std::mt19937 random(7);
  // Round-off within the band of noise g h (1.6e-5 m/s here) sleeps at once; above it, it goes up and down, and
  // a body whose energy has not grown over its calm steps sleeps.
  for (double sigma : {1e-6, 1e-4}) {
    std::normal_distribution<double> noise(0.0, sigma);
    const int round_off = steps_to_sleep(ball(0.5), 1000, [&](int) { return Vec3(noise(random), noise(random), noise(random)); });
    EXPECT_GE(round_off, 5) << sigma;
    EXPECT_LE(round_off, sigma < 1e-5 ? 5 : 200) << sigma;
  }
}

// The absolute threshold is per kg and per metre of the body's bounding radius: at the same slow, constant speed
// a 1 m ball sleeps and a 2 cm one, which at that speed is as lively as the 1 m ball at 7 times it, does not.
TEST(Sleep, TheEnergyThresholdScalesWithTheSize) {
  const auto at = [](double v) { return [v](int) { return Vec3(v, 0, 0); }; };
  EXPECT_GT(steps_to_sleep(ball(0.5), 100, at(0.02)), 0);   // E / m = 2e-4 < 0.002 * 0.5
  EXPECT_EQ(steps_to_sleep(ball(0.01), 100, at(0.02)), 0);  // 2e-4 > 0.002 * 0.01
  EXPECT_GT(steps_to_sleep(ball(0.01), 100, at(0.002)), 0);  // 2e-6 < 2e-5
}

// A velocity that turns fast (a pendulum at its turning point) is not steady, whatever its energy.
TEST(Sleep, AVelocityChangingFasterThanTheSteadyAccelerationKeepsItAwake) {
  EXPECT_EQ(steps_to_sleep(ball(0.5), 200, [](int k) { return Vec3(0.01 * std::sin(k * 0.5), 0, 0); }), 0);
}

TEST(Sleep, DrivenBodiesAndDisabledPolicyNeverSleep) {
  std::vector<Body> bodies{ball(0.5)};
  const ContactGraph graph;
  for (int k = 0; k < 20; ++k) update_sleep(bodies, graph, sleep_settings(), {1});
  EXPECT_FALSE(bodies[0].sleeping);
  SleepSettings off = sleep_settings();
  off.enabled = false;
  for (int k = 0; k < 20; ++k) EXPECT_EQ(update_sleep(bodies, graph, off), 0);
  EXPECT_FALSE(bodies[0].sleeping);
}

}  // namespace
}  // namespace cl
