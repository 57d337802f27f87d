// Shipped scenes of the implicit penalty method (Xu, Zhao, Barbic 2014) doing what the paper shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "joints/joint.h"
#include "scene/scene.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {
namespace {

using test::body_named;
using test::joint_named;
// Turn of the body about +y since `start`, counted across steps (called every step: small increments).
struct TurnCounter {
  Quat last;
  double turned = 0;
  explicit TurnCounter(const Quat& q) : last(q) {}
  void update(const Quat& q) {
    const Quat d = q * last.conjugate();
    turned += 2.0 * std::atan2(d.y(), d.w() >= 0 ? d.w() : -d.w()) * (d.w() >= 0 ? 1 : -1);
    last = q;
  }
};

struct BoltRun {
  double turned = 0;  // rad about +y
  double sunk = 0;    // m, positive down
};

// The hex bolt driven by the screwdriver's PD torque: the servo's target runs down (clockwise, screwing
// in) by `turn` rad at 2 rad/s, and back up to 0 if `back_out`; then the run goes on for a second.
BoltRun drive_bolt(double max_torque, double friction, double turn, bool back_out = false) {
  World w = test::load_shipped_scene("bolt_screwdriver.json");
  const int bolt = body_named(w, "bolt");
  const int hinge = joint_named(w, "screwdriver_hinge");
  EXPECT_GE(bolt, 0);
  EXPECT_GE(hinge, 0);
  for (Material& m : w.materials) m.friction = friction;
  JointServo& servo = w.joints[size_t(hinge)].servo;
  servo.max_force = max_torque;
  const double y0 = w.bodies[size_t(bolt)].position.y();
  TurnCounter turns(w.bodies[size_t(bolt)].orientation);
  const double rate = 2.0, h = w.settings.dt;
  const double ramp = turn / rate;  // s
  const int steps = int(((back_out ? 2 : 1) * ramp + 1.0) / h);
  for (int i = 0; i < steps; ++i) {
    const double t = (i + 1) * h;
    set_servo_target(servo, back_out && t > ramp ? -std::max(0.0, turn - rate * (t - ramp)) : -std::min(turn, rate * t));
    if (!w.step().ok) {
      ADD_FAILURE() << "step " << i << " failed";
      break;
    }
    turns.update(w.bodies[size_t(bolt)].orientation);
  }
  return {turns.turned, y0 - w.bodies[size_t(bolt)].position.y()};
}

// The paper's Figs. 7-8: with enough torque the bolt turns with the screwdriver and travels down its thread
// by one pitch (3 cm) per turn; with the torque bounded below what the thread's friction needs, it is
// stuck; with the friction lowered the same small torque turns it.
TEST(ImplicitPenaltyScenes, BoltTurnsWhenTheTorqueBeatsTheFriction) {
  const double quarter = std::numbers::pi / 2;
  const BoltRun turning = drive_bolt(40.0, 0.3, quarter);
  const BoltRun stuck = drive_bolt(1.0, 0.3, quarter);
  const BoltRun slippery = drive_bolt(1.0, 0.02, quarter);
  std::printf("[ bolt ] 40 N m: turned %.3f rad, sunk %.2f mm; 1 N m: %.3f rad, %.2f mm; 1 N m at mu 0.02: %.3f rad, "
              "%.2f mm\n", turning.turned, 1e3 * turning.sunk, stuck.turned, 1e3 * stuck.sunk, slippery.turned,
              1e3 * slippery.sunk);
  // The servo trails its target by the friction torque over its stiffness, the bolt its screwdriver by the
  // socket's play.
  EXPECT_LT(turning.turned, -0.8 * quarter);
  EXPECT_GT(turning.turned, -1.05 * quarter);
  const double pitch = 0.03;
  EXPECT_NEAR(turning.sunk - stuck.sunk, -pitch * turning.turned / (2 * std::numbers::pi), 0.1 * pitch / 4)
      << "one pitch per turn";
  EXPECT_GT(stuck.turned, -0.01) << "stuck";
  EXPECT_LT(slippery.turned, -0.3 * quarter) << "turns once the friction is low";
  // Reversed, the torque backs the bolt out again to where it started.
  const BoltRun back = drive_bolt(40.0, 0.3, quarter, true);
  std::printf("[ bolt ] in and out: turned %.3f rad, sunk %.2f mm\n", back.turned, 1e3 * back.sunk);
  EXPECT_NEAR(back.turned, 0.0, 0.15 * quarter);
  EXPECT_NEAR(back.sunk, stuck.sunk, 0.15 * pitch / 4);
}

// Eight tori of 96 kg dropped on each other go through each other by 5 to 10 cm at their impacts. Their energy
// (kinetic plus potential) never rises above where it started: a contact's stiffness is fixed while it is deep,
// where re-setting it from the growing stack's load pumped the stack to 3.3 MJ by step 53.
TEST(ImplicitPenaltyScenes, TorusStackGainsNoEnergy) {
  World w = test::load_shipped_scene("torus_stack.json");
  std::string error;
  ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
  const double start = w.kinetic_energy() + w.potential_energy();
  double gain = 0.0;
  for (int i = 0; i < 150; ++i) {
    ASSERT_TRUE(w.step().ok) << "step " << i;
    gain = std::max(gain, w.kinetic_energy() + w.potential_energy() - start);
  }
  EXPECT_LT(gain, 1.0);  // J
}

// Thirty meshes poured into a box gain no energy: in a pair with a mesh the points along their own normals take the
// approximate gradients. With the exact ones (eq. 31-40, not symmetric) a piece was thrown at 142 m/s at step 34,
// the pile's energy from 2.5 kJ to 32 kJ. Allowed: the shipped-scene test's 1% of what the run dissipates and 0.1% of
// the potential energy's size.
TEST(ImplicitPenaltyScenes, MeshPileGainsNoEnergy) {
  World w = test::load_shipped_scene("mesh_pile.json");
  std::string error;
  ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
  const double start = w.kinetic_energy() + w.potential_energy(), potential = std::abs(w.potential_energy());
  double highest = start, lowest = start;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(w.step().ok) << "step " << i;
    const double e = w.kinetic_energy() + w.potential_energy();
    highest = std::max(highest, e);
    lowest = std::min(lowest, e);
  }
  EXPECT_LE(highest - start, 0.01 * (start - lowest) + 1e-3 * potential);
}

// A plank tips on its pivot under a 125 kg box and lands on the ground at 5 m/s. Its corner has no shell point (0.75 m
// face cells), so the world's continuous collision put it back at the ground at each step while the box on it fell
// on into it: 2118 J from 1366 J at step 37. With the box put back with it, no energy is created at the scene's step
// and from 1/30 to 1/1000 s (at 1/30 s it had gained 197 J; it gains nothing there now, at most
// 0.15 J at 1/1000 s). Allowed: the shipped-scene test's 1% of what the run dissipates.
TEST(ImplicitPenaltyScenes, SeesawGainsNoEnergy) {
  for (const double dt : {1.0 / 30, 1.0 / 60, 0.01, 1.0 / 200, 1.0 / 1000}) {
    World w = test::load_shipped_scene("seesaw.json");
    w.settings.dt = dt;
    std::string error;
    ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
    const double start = w.kinetic_energy() + w.potential_energy();
    double highest = start, lowest = start;
    for (int i = 0; i < int(std::lround(3.0 / dt)); ++i) {
      ASSERT_TRUE(w.step().ok) << "dt " << dt << " step " << i;
      const double e = w.kinetic_energy() + w.potential_energy();
      highest = std::max(highest, e);
      lowest = std::min(lowest, e);
    }
    EXPECT_LE(highest - start, 0.01 * (start - lowest)) << "dt " << dt;
  }
}

}  // namespace
}  // namespace cl
