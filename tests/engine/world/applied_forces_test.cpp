// Applied forces: when they act (windows by the step's midpoint), how random values are drawn (in range, a pure
// function of seed and step), and that every registered solver integrates them: a push on a frictionless
// floor, the friction threshold, a free body's spin from an off-centre point, the same random pushes under
// every method.
#include "world/applied_forces.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "solvers/registry.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

AppliedForce push(int body, const Vec3& f, double start = 0.0, double end = kForever) {
  AppliedForce a;
  a.body = body;
  a.force = VecRange::constant(f);
  a.start = start;
  a.end = end;
  return a;
}

// The steps of [0, steps) whose sample is active.
int active_steps(const AppliedForce& f, int64_t steps, double h) {
  const Body b = make_body(sphere(1), Vec3::Zero(), Quat::Identity(), 1.0);
  int n = 0;
  for (int64_t k = 0; k < steps; ++k) n += sample_applied_force(f, b, k, double(k) * h, h).active;
  return n;
}

}  // namespace

// --- windows and draws --------------------------------------------------------------------------------

TEST(AppliedForces, WindowsHoldWholeStepsWhateverTheRounding) {
  // The paper's schedule: 500 steps on, 500 off, ten times, at h = 1e-3 s.
  AppliedForce f = push(0, Vec3(1, 0, 0), 0.0, 10.0);
  f.period = 1.0;
  f.on = 0.5;
  EXPECT_EQ(active_steps(f, 20000, 1e-3), 5000);
  // Step by step: on for k in [0, 500) of each 1000, window index k / 1000.
  const Body b = make_body(sphere(1), Vec3::Zero(), Quat::Identity(), 1.0);
  double t = 0.0;  // accumulated as the world accumulates it
  for (int64_t k = 0; k < 10000; ++k, t += 1e-3) {
    const ForceSample s = sample_applied_force(f, b, k, t, 1e-3);
    ASSERT_EQ(s.active, k % 1000 < 500) << k;
    if (s.active) {
      ASSERT_EQ(s.sample, uint64_t(k / 1000)) << k;
    }
  }
  // A single window [0.25, 0.75) at h = 0.01: 50 steps; start 0 with no end acts from the first step.
  EXPECT_EQ(active_steps(push(0, Vec3(1, 0, 0), 0.25, 0.75), 1000, 0.01), 50);
  EXPECT_EQ(active_steps(push(0, Vec3(1, 0, 0)), 1000, 0.01), 1000);
}

TEST(AppliedForces, RandomSamplesLieInTheirRangeAndDependOnSeedAndSampleOnly) {
  AppliedForce f;
  f.body = 0;
  f.force = VecRange::uniform(Vec3(-100, 10, 5), Vec3(-10, 100, 5));  // z constant: lo == hi
  f.point = VecRange::uniform(Vec3(-0.5, 0.5, -0.5), Vec3(0.5, 0.5, 0.5));
  f.resample = ForceResample::Step;
  f.seed = 42;
  const Body b = make_body(box(Vec3(0.5, 0.5, 0.5)), Vec3::Zero(), Quat::Identity(), 10.0);
  Vec3 lo = Vec3::Constant(1e9), hi = Vec3::Constant(-1e9), sum = Vec3::Zero();
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const ForceSample s = sample_applied_force(f, b, k, k * 0.01, 0.01);
    ASSERT_TRUE(s.active);
    for (int c = 0; c < 3; ++c) {
      ASSERT_GE(s.force[c], f.force.lo[c]);
      ASSERT_LE(s.force[c], f.force.hi[c]);
      ASSERT_GE(s.point[c], f.point.lo[c]);
      ASSERT_LE(s.point[c], f.point.hi[c]);
    }
    EXPECT_EQ(s.force.z(), 5.0);
    EXPECT_EQ(s.point.y(), 0.5);
    lo = lo.cwiseMin(s.force);
    hi = hi.cwiseMax(s.force);
    sum += s.force;
    // The same step gives the same values, again and in another body's state (the point's moment aside).
    const ForceSample again = sample_applied_force(f, make_body(sphere(2), Vec3(3, 4, 5), Quat(0, 1, 0, 0), 1.0), k, k * 0.01, 0.01);
    ASSERT_EQ(std::memcmp(s.force.data(), again.force.data(), sizeof(double) * 3), 0);
    ASSERT_EQ(std::memcmp(s.point.data(), again.point.data(), sizeof(double) * 3), 0);
  }
  // Uniform: the extremes come within 1% of the bounds, the mean within 1% of the middle (20,000 draws: the
  // mean's standard error is 0.2% of the width).
  EXPECT_LT(lo.x(), -99.1);
  EXPECT_GT(hi.x(), -10.9);
  EXPECT_LT(lo.y(), 10.9);
  EXPECT_GT(hi.y(), 99.1);
  EXPECT_NEAR(sum.x() / n, -55.0, 0.9);
  EXPECT_NEAR(sum.y() / n, 55.0, 0.9);
  // Another seed, another stream; the components are not copies of each other.
  AppliedForce g = f;
  g.seed = 43;
  const ForceSample a = sample_applied_force(f, b, 7, 0.07, 0.01), c = sample_applied_force(g, b, 7, 0.07, 0.01);
  EXPECT_NE(a.force.x(), c.force.x());
  EXPECT_NE(force_uniform(42, 7, 0), force_uniform(42, 7, 1));
  EXPECT_NE(force_uniform(42, 7, 0), force_uniform(42, 8, 0));
}

TEST(AppliedForces, WindowResampleKeepsOneValuePerWindow) {
  AppliedForce f;
  f.body = 0;
  f.force = VecRange::uniform(Vec3(10, 0, 0), Vec3(100, 0, 0));
  f.period = 1.0;
  f.on = 0.5;
  f.resample = ForceResample::Window;
  const Body b = make_body(sphere(1), Vec3::Zero(), Quat::Identity(), 1.0);
  std::vector<double> per_window;
  for (int64_t k = 0; k < 3000; ++k) {
    const ForceSample s = sample_applied_force(f, b, k, k * 1e-3, 1e-3);
    if (!s.active) continue;
    if (k % 1000 == 0) per_window.push_back(s.force.x());
    ASSERT_EQ(s.force.x(), per_window.back()) << k;
  }
  ASSERT_EQ(per_window.size(), 3u);
  EXPECT_NE(per_window[0], per_window[1]);
  EXPECT_NE(per_window[1], per_window[2]);
}

TEST(AppliedForces, ExtremeRangesStayFinite) {
  AppliedForce f;
  f.body = 0;
  f.force = VecRange::uniform(Vec3::Constant(-1e308), Vec3::Constant(1e308));
  f.resample = ForceResample::Step;
  const Body b = make_body(sphere(1), Vec3::Zero(), Quat::Identity(), 1.0);
  for (int k = 0; k < 100; ++k) ASSERT_TRUE(all_finite(sample_applied_force(f, b, k, 0.0, 0.01).force));
}

// --- under every solver --------------------------------------------------------------------------------

// Methods whose box pushed at its centre over a floor with friction does not slide at (F - mu m g) / m, with why:
// the test skips them with their figure, and fails once they pass.
const std::map<std::string, std::string> kSlidingPushAwaitingFix = {};

class AppliedForcesUnder : public ::testing::TestWithParam<std::string> {
 protected:
  // A 10 kg box, 0.2 m on a side, resting on a fixed floor of the given friction (the box's material too).
  World block_on_floor(double friction, double dt) {
    World w;
    use_solver(w);
    w.settings.dt = dt;
    const int mat = add_material(w, friction, 0.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    block_ = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0.1, 0), 1.0, Quat::Identity(), mat);
    w.bodies[block_].set_mass_properties(0.0, 10.0);
    w.bodies[block_].update_world_inertia();
    // Let it settle on the floor (the penalty methods find their resting depth).
    for (int i = 0; i < int(std::lround(0.2 / dt)); ++i) EXPECT_TRUE(w.step().ok);
    return w;
  }
  // The world under the solver under test.
  static void use_solver(World& w) {
    std::string error;
    EXPECT_TRUE(w.set_solver(GetParam(), &error)) << error;
  }
  // Steps for `seconds`; returns false (with a failure) when a step stops.
  static bool run(World& w, double seconds) {
    const int n = int(std::lround(seconds / w.settings.dt));
    for (int i = 0; i < n; ++i) {
      const StepResult r = w.step();
      if (!r.ok) {
        ADD_FAILURE() << r.error;
        return false;
      }
    }
    return true;
  }
  int block_ = -1;
};

TEST_P(AppliedForcesUnder, FrictionlessPushOf20NewtonsForASecondGives2MetresPerSecondThenCoasts) {
  const double h = 0.01;
  World w = block_on_floor(0.0, h);
  const double x0 = w.bodies[block_].position.x();
  const double t0 = w.time();
  w.forces.push_back(push(block_, Vec3(20, 0, 0), t0, t0 + 1.0));
  ASSERT_TRUE(run(w, 1.0));
  // J = F T = 20 N s on 10 kg; the tolerance is the acceleration times one step.
  const double a = 20.0 / 10.0;
  EXPECT_NEAR(w.bodies[block_].linear_velocity.x(), 2.0, a * h);
  EXPECT_NEAR(w.bodies[block_].position.x() - x0, 0.5 * a * 1.0 * 1.0, a * h);
  EXPECT_NEAR(w.bodies[block_].linear_velocity.z(), 0.0, a * h);
  // Then it coasts at 2 m/s: another second adds 2 m.
  const double x1 = w.bodies[block_].position.x();
  ASSERT_TRUE(run(w, 1.0));
  EXPECT_NEAR(w.bodies[block_].linear_velocity.x(), 2.0, a * h);
  EXPECT_NEAR(w.bodies[block_].position.x() - x1, 2.0, 2 * a * h);
  EXPECT_NEAR(w.bodies[block_].position.y(), 0.1, 0.01);  // still on the floor
}

TEST_P(AppliedForcesUnder, PushBelowTheFrictionLimitHoldsAndAboveItAccelerates) {
  const double h = 0.01, mu = 0.5, m = 10.0, g = 9.81;
  World w = block_on_floor(mu, h);
  const double x0 = w.bodies[block_].position.x();
  const double t0 = w.time();
  // 30 N < mu m g = 49.05 N: static friction holds it, within the 1 cm the conformance case incline_stick
  // allows (implicit-penalty's friction anchors give 2.1 mm and then hold), and it is at rest at the end.
  w.forces.push_back(push(block_, Vec3(30, 0, 0), t0, t0 + 1.0));
  ASSERT_TRUE(run(w, 1.0));
  EXPECT_NEAR(w.bodies[block_].position.x(), x0, 0.01);
  EXPECT_NEAR(w.bodies[block_].linear_velocity.x(), 0.0, 1e-3);
  // 60 N: it slides at (60 - mu m g) / m = 1.095 m/s^2, so 1.095 m/s after a second (within one step's
  // acceleration and 5% of the friction force, as the incline tests allow).
  const double t1 = w.time();
  w.forces.push_back(push(block_, Vec3(60, 0, 0), t1, t1 + 1.0));
  const double v_expected = (60.0 - mu * m * g) / m * 1.0;
  const double tolerance = 60.0 / m * h + 0.05 * mu * g;
  ASSERT_TRUE(run(w, 1.0));
  const double v = w.bodies[block_].linear_velocity.x();
  if (const auto known = kSlidingPushAwaitingFix.find(GetParam()); known != kSlidingPushAwaitingFix.end()) {
    if (std::abs(v - v_expected) <= tolerance)
      ADD_FAILURE() << GetParam() << " now slides at " << v << " m/s, within " << tolerance
                    << " of the exact value: remove it from kSlidingPushAwaitingFix";
    else
      GTEST_SKIP() << GetParam() << ": " << v << " m/s after 1 s, exact " << v_expected << " m/s: " << known->second;
  }
  EXPECT_NEAR(v, v_expected, tolerance);
}

TEST_P(AppliedForcesUnder, OffCentrePointSpinsAFreeBodyAtTheRightRate) {
  World w;
  use_solver(w);
  w.settings.gravity = Vec3::Zero();
  w.settings.dt = 0.01;
  const int ball = add_body(w, sphere(0.5), Vec3::Zero(), 1.0);
  w.bodies[ball].set_mass_properties(0.0, 2.0);  // I = 2/5 m r^2 = 0.2 kg m^2 about every axis
  w.bodies[ball].update_world_inertia();
  // 1 N along y at 0.5 m along x for 0.1 s: torque 0.5 N m about z, w = 0.5 * 0.1 / 0.2 = 0.25 rad/s, and the
  // centre reaches 1 * 0.1 / 2 = 0.05 m/s. The body turns 0.0125 rad meanwhile, so the arm shortens by 1e-4.
  AppliedForce f = push(ball, Vec3(0, 1, 0), 0.0, 0.1);
  f.point = VecRange::constant(Vec3(0.5, 0, 0));
  w.forces.push_back(f);
  // And a pure torque about x of 0.2 N m for the same time: 0.1 rad/s.
  AppliedForce t;
  t.body = ball;
  t.torque = VecRange::constant(Vec3(0.2, 0, 0));
  t.end = 0.1;
  w.forces.push_back(t);
  ASSERT_TRUE(run(w, 0.2));
  const Body& b = w.bodies[ball];
  EXPECT_NEAR(b.angular_velocity.z(), 0.25, 0.25 * 1e-3);
  EXPECT_NEAR(b.angular_velocity.x(), 0.1, 0.1 * 1e-3);
  EXPECT_NEAR(b.linear_velocity.y(), 0.05, 1e-12);
  EXPECT_NEAR(b.linear_velocity.x(), 0.0, 1e-12);
}

// Random pushes on a free body (no gravity, no contact): each step's velocity change is exactly the step's draw
// times h / m, and nothing between the windows, the same draws under every solver and in a second run.
TEST_P(AppliedForcesUnder, RandomPushesAreTheSameDrawsUnderEverySolverAndRun) {
  auto make = [&] {
    World w;
    use_solver(w);
    w.settings.gravity = Vec3::Zero();
    w.settings.dt = 1e-3;
    // 1 kg, so that it moves fast enough between the pushes not to fall asleep under lcp (0.002 J/kg).
    add_body(w, sphere(0.5), Vec3::Zero(), 1.0);
    w.bodies[0].set_mass_properties(0.0, 1.0);
    w.bodies[0].update_world_inertia();
    AppliedForce f;
    f.body = 0;
    f.force = VecRange::uniform(Vec3(10, -5, 0), Vec3(100, 5, 0));
    f.resample = ForceResample::Step;
    f.seed = 2010;
    f.period = 0.02;
    f.on = 0.01;
    w.forces.push_back(f);
    return w;
  };
  World a = make(), b = make();
  const AppliedForce& f = a.forces[0];
  for (int k = 0; k < 60; ++k) {
    const ForceSample s = sample_applied_force(f, a.bodies[0], k, a.time(), a.settings.dt);
    const Vec3 v0 = a.bodies[0].linear_velocity;
    ASSERT_TRUE(a.step().ok);
    ASSERT_TRUE(b.step().ok);
    const Vec3 dv = a.bodies[0].linear_velocity - v0;
    EXPECT_EQ(s.active, (k % 20) < 10) << k;
    const Vec3 expected = s.active ? Vec3(s.force * 1e-3 / 1.0) : Vec3::Zero();
    ASSERT_LE((dv - expected).norm(), 1e-12 * (1 + expected.norm())) << "step " << k;
    ASSERT_EQ(std::memcmp(a.bodies[0].position.data(), b.bodies[0].position.data(), sizeof(double) * 3), 0) << k;
    ASSERT_EQ(std::memcmp(a.bodies[0].linear_velocity.data(), b.bodies[0].linear_velocity.data(), sizeof(double) * 3), 0);
  }
}

std::vector<std::string> registered_solvers() {
  std::vector<std::string> names;
  for (const SolverInfo& info : solver_registry()) names.push_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(EverySolver, AppliedForcesUnder, ::testing::ValuesIn(registered_solvers()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Under lcp a resting body falls asleep; a force starting later wakes it and moves it.
TEST(AppliedForces, WakesASleepingBody) {
  World w;
  w.settings.dt = 0.01;
  const int mat = add_material(w, 0.0, 0.0);
  add_plane(w, Vec3(0, 1, 0), 0.0, mat);
  const int block = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0.1, 0), 1250.0, Quat::Identity(), mat);
  w.forces.push_back(push(block, Vec3(20, 0, 0), 5.0));
  for (int i = 0; i < 400 && !w.bodies[block].sleeping; ++i) ASSERT_TRUE(w.step().ok);
  ASSERT_TRUE(w.bodies[block].sleeping) << "the block never fell asleep, so this test shows nothing";
  const double x0 = w.bodies[block].position.x();
  while (w.time() < 5.5) ASSERT_TRUE(w.step().ok);
  EXPECT_FALSE(w.bodies[block].sleeping);
  EXPECT_GT(w.bodies[block].position.x() - x0, 0.01);
}

}  // namespace cl
