// Solving joints' rows with contacts (joints/joint_solve.h): the joint block's sweeps and the held motors.
#include "joints/joint_solve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "scene/scene.h"
#include "world/world.h"

namespace cl {
namespace {

// Three boxes hung in a chain from a fixed body by ball joints' rows (three rows each, between neighbours), the
// last one pressed onto a fixed floor by a normal row with two friction rows, all rows prepared. The joint rows
// lead the list. The chain's rows pull against each other and against the floor: a loop that sweeps settle slowly.
struct ChainOnFloor {
  std::vector<Row> rows;
  std::vector<BodyVelocity> u;
  int joint_rows = 0;
};

ChainOnFloor chain_on_floor() {
  ChainOnFloor c;
  std::vector<InverseMass> masses(5);
  for (int i = 1; i <= 3; ++i) masses[size_t(i)] = {1.0 / (1.0 + i), Mat3::Identity() * (3.0 / i)};
  c.u.assign(5, BodyVelocity{});
  for (int i = 1; i <= 3; ++i) c.u[size_t(i)] = {Vec3(0.1 * i, -1.0, 0.2), Vec3(0.3, -0.2 * i, 0.1)};
  const auto row = [&](int a, int b, const Vec3& n, const Vec3& ra, const Vec3& rb) {
    Row r;
    r.a = a;
    r.b = b;
    r.ja_lin = n;
    r.ja_ang = ra.cross(n);
    r.jb_lin = -n;
    r.jb_ang = -rb.cross(n);
    return r;
  };
  for (int i = 1; i <= 3; ++i)  // body i hangs from body i - 1 (0: the fixed body) at a point half a metre up
    for (const Vec3& n : std::vector<Vec3>{Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}) {
      Row r = row(i, i - 1, n, Vec3(0.1, 0.5, 0.0), Vec3(0.0, -0.5, 0.1));
      r.follows = n != Vec3::UnitX();
      r.target = 0.01 * i;
      c.rows.push_back(r);
    }
  c.joint_rows = int(c.rows.size());
  const int normal = int(c.rows.size());
  Row n = row(3, 4, Vec3::UnitY(), Vec3(0.2, -0.5, 0.1), Vec3::Zero());
  n.lo = 0.0;
  c.rows.push_back(n);
  for (const Vec3& t : std::vector<Vec3>{Vec3::UnitX(), Vec3::UnitZ()}) {
    Row f = row(3, 4, t, Vec3(0.2, -0.5, 0.1), Vec3::Zero());
    f.normal_row = normal;
    f.mu = 0.5;
    f.follows = true;
    c.rows.push_back(f);
  }
  for (Row& r : c.rows) prepare(r, masses);
  return c;
}

double largest_joint_error(const ChainOnFloor& c) {
  double e = 0.0;
  for (int i = 0; i < c.joint_rows; ++i) {
    const Row& r = c.rows[size_t(i)];
    e = std::max(e, std::abs(r.value(c.u[size_t(r.a)], c.u[size_t(r.b)]) - r.target + r.cfm * r.lambda));
  }
  return e;
}

}  // namespace

// Without a joint block (no sweeps, or no joint rows) and without motors, the solve is solve_pgs bit for bit: a
// change that always took the block's path would fail here.
TEST(JointSolve, WithoutAJointBlockItIsThePlainSweeps) {
  for (const JointBlock block : {JointBlock{9, 0}, JointBlock{0, 10}}) {
    ChainOnFloor plain = chain_on_floor(), joints = chain_on_floor();
    const PgsSettings settings{6, 0.0, false};
    const PgsResult a = solve_pgs(plain.rows, plain.u, settings);
    const PgsResult b = solve_joints_and_contacts(joints.rows, block, {}, joints.u, settings);
    EXPECT_EQ(a.sweeps, b.sweeps);
    for (size_t i = 0; i < plain.rows.size(); ++i) EXPECT_EQ(plain.rows[i].lambda, joints.rows[i].lambda) << i;
    for (size_t i = 0; i < plain.u.size(); ++i) EXPECT_EQ(plain.u[i].v, joints.u[i].v) << i;
  }
}

// With the block, each sweep over all rows is followed by the joint rows' own sweeps, and the solve ends on them: the
// joints hold what the contacts last gave them, far closer than after as many plain sweeps, and the sweeps counted
// and recorded are those over all rows. The contacts' rows stay within their bounds.
TEST(JointSolve, TheJointBlockEndsWithTheJointsSettled) {
  ChainOnFloor plain = chain_on_floor(), block = chain_on_floor();
  std::vector<double> residuals;
  PgsSettings settings{4, 0.0, false};
  solve_pgs(plain.rows, plain.u, settings);
  settings.residuals = &residuals;
  const PgsResult result = solve_joints_and_contacts(block.rows, {block.joint_rows, 400}, {}, block.u, settings);
  EXPECT_EQ(result.sweeps, 4);
  EXPECT_EQ(residuals.size(), 4u);
  EXPECT_GT(largest_joint_error(plain), 1e-3);
  EXPECT_LT(largest_joint_error(block), 1e-9);
  EXPECT_GT(block.rows[size_t(block.joint_rows)].lambda, 0.0);  // the chain moving down presses on the floor
}

// A motor among the joint rows is held for the second half of the sweeps (its bounds closed on its impulse, so the
// block's sweeps leave it too) and has its own bounds back after the solve.
TEST(JointSolve, AMotorIsHeldForTheSecondHalfAndReleased) {
  ChainOnFloor c = chain_on_floor();
  Row& motor = c.rows[1];  // the first joint's second row, boxed as a motor is
  motor.lo = -10.0;
  motor.hi = 10.0;
  const std::vector<int> motors = {1};
  PgsSettings settings{6, 0.0, false};
  // Three sweeps of the same rows without the hold: the motor's impulse after the first half.
  ChainOnFloor half = c;
  solve_joints_and_contacts(half.rows, {half.joint_rows, 5}, {}, half.u, PgsSettings{3, 0.0, false});
  solve_joints_and_contacts(c.rows, {c.joint_rows, 5}, motors, c.u, settings);
  EXPECT_EQ(c.rows[1].lambda, half.rows[1].lambda);  // held from the fourth sweep on
  EXPECT_EQ(c.rows[1].lo, -10.0);
  EXPECT_EQ(c.rows[1].hi, 10.0);
}

// The solve stops once a sweep over all rows meets its tolerance (the block's own sweeps stop at it too).
TEST(JointSolve, TheToleranceStopsTheSolve) {
  ChainOnFloor c = chain_on_floor();
  const PgsSettings settings{500, 1e-12, false};
  const PgsResult result = solve_joints_and_contacts(c.rows, {c.joint_rows, 1000}, {}, c.u, settings);
  EXPECT_LT(result.sweeps, 500);
  EXPECT_LE(result.residual, 1e-12);
}

// A robot on its feet: the four-legged walker, its hips and knees held by PD servos, stands on its ball feet at steps
// from 1/30 s to its own 1/250 s under `lcp` (sleeping off) and `volume`: kinetic energy after the first second
// below 1e-3 J, and its torso at 8 s within 1 mm of where it was at 4 s (the most is a wander of 0.73 mm under
// `lcp` at 1/30 s; under `volume` the feet first sink to the depth its post-stabilisation leaves, about 7 mm, within
// 3 s). Without the joint block (joint_sweeps 0) its sway grew
// until it fell and flailed: 800 J at 1/30 s and 70 J at 1/60 s under `lcp`, and at 1/250 s it shuffled on.
TEST(JointSolve, AWalkerOnItsFeetStandsAtCoarseSteps) {
  for (const std::string solver : {"lcp", "volume"})
    for (const double dt : {1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 250}) {
      SCOPED_TRACE(solver + " at 1/" + std::to_string(std::lround(1 / dt)) + " s");
      SceneLoadResult loaded = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/models/walker_urdf.json");
      ASSERT_TRUE(loaded.ok()) << loaded.error;
      World& w = loaded.world;
      std::string error;
      ASSERT_TRUE(w.set_solver(solver, &error)) << error;
      if (solver == "lcp") {
        ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error)) << error;
      }
      w.settings.dt = dt;
      const int torso = w.find_body("walker/torso");
      ASSERT_GE(torso, 0);
      Vec3 stood = Vec3::Zero();
      double most = 0.0;
      const int steps = int(std::lround(8.0 / dt)), second = int(std::lround(1.0 / dt));
      for (int s = 1; s <= steps; ++s) {
        ASSERT_TRUE(w.step().ok);
        if (s == 4 * second) stood = w.bodies[size_t(torso)].position;
        if (s > second) most = std::max(most, w.kinetic_energy());
      }
      EXPECT_LT(most, 1e-3);
      EXPECT_LT((w.bodies[size_t(torso)].position - stood).norm(), 1e-3);
    }
}

}  // namespace cl
