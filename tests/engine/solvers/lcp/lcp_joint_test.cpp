// Joints inside the lcp solver: sleeping must not freeze a swinging pendulum, warm-started chains must not
// gain energy, jointed bodies do not collide with each other, and a limit met within one step holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "joints/joint.h"
#include "support/builders.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {
// A chain of `links` spheres hanging from a fixed anchor body by ball joints, displaced sideways.
World chain(int links, double angle) {
  World w;
  w.settings.dt = 0.01;
  const int anchor = add_body(w, sphere(0.05), Vec3(0, 5, 0), 0, Quat::Identity(), 0, BodyKind::Fixed);
  int previous = anchor;
  Vec3 joint_point(0, 5, 0);
  const Vec3 dir(std::sin(angle), -std::cos(angle), 0);
  for (int i = 0; i < links; ++i) {
    const Vec3 centre = joint_point + dir * 0.5;
    const int link = add_body(w, sphere(0.1), centre, 1000.0);
    w.joints.push_back(make_joint(JointType::Ball, w.bodies, previous, link, joint_point, Vec3::UnitX(), Vec3::UnitZ()));
    joint_point = centre;
    previous = link;
  }
  return w;
}

// A double pendulum of two 1 m bars on hinges about z, released from horizontal.
World double_pendulum() {
  World w;
  w.settings.dt = 0.01;
  const int anchor = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 3, 0), 0, Quat::Identity(), 0, BodyKind::Fixed);
  const int a = add_body(w, box(Vec3(0.5, 0.05, 0.05)), Vec3(0.5, 3, 0), 500.0);
  const int b = add_body(w, box(Vec3(0.5, 0.05, 0.05)), Vec3(1.5, 3, 0), 500.0);
  w.joints.push_back(make_joint(JointType::Hinge, w.bodies, anchor, a, Vec3(0, 3, 0), Vec3::UnitZ(), Vec3::UnitX()));
  w.joints.push_back(make_joint(JointType::Hinge, w.bodies, a, b, Vec3(1, 3, 0), Vec3::UnitZ(), Vec3::UnitX()));
  return w;
}

double mechanical_energy(const World& w) { return w.kinetic_energy() + w.potential_energy(); }
}  // namespace

TEST(LcpJoints, SmallPendulumDoesNotFallAsleepAtItsTurningPoint) {
  World w = chain(1, 5.0 * M_PI / 180.0);
  ASSERT_EQ(w.solver().params().get("sleeping"), 1);
  double highest_speed_late = 0.0;
  for (int s = 0; s < 500; ++s) {
    ASSERT_TRUE(w.step().ok);
    if (s > 300) highest_speed_late = std::max(highest_speed_late, w.bodies[1].linear_velocity.norm());
  }
  EXPECT_EQ(w.last_stats().sleeping, 0);
  EXPECT_GT(highest_speed_late, 0.1);  // still swinging (peak about 0.27 m/s)
}

// A guard, not a demonstration: with these chains the energy also stays bounded at a warm-start factor of 1
// (the gain reported with decoupled rows did not reproduce here), so this catches gross energy gain only.
TEST(LcpJoints, WarmStartedChainsDoNotGainEnergy) {
  for (World w : {chain(5, 1.0), double_pendulum()}) {
    const double e0 = mechanical_energy(w);
    for (int s = 0; s < 1000; ++s) {
      ASSERT_TRUE(w.step().ok);
      ASSERT_LT(mechanical_energy(w), e0 + 0.01 * std::abs(e0) + 1.0) << "step " << s;
    }
  }
}

TEST(LcpJoints, JoinedBodiesDoNotCollide) {
  World w;
  w.settings.gravity = Vec3::Zero();
  const int a = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0, 0));
  const int b = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0.9, 0, 0));  // overlapping by 10 cm
  w.joints.push_back(make_joint(JointType::Fixed, w.bodies, a, b, Vec3(0.45, 0, 0), Vec3::UnitX(), Vec3::UnitZ()));
  for (int s = 0; s < 10; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_TRUE(w.contacts().empty());
  EXPECT_LT(w.kinetic_energy(), 1e-9);  // no contact pushing them apart against the joint
}

// A 2 cm bar hinged at one end, released horizontal onto a limit at -0.5 rad, at h = 1/30 s: gravity swings it
// 0.8 rad in its first step from rest, past the limit within that step. The limit's row is there from the start
// (speculative), so the bar stops at the limit instead of passing it by 0.2 rad and creeping back.
TEST(LcpJoints, ALimitMetWithinOneStepFromRestHolds) {
  World w;
  w.settings.dt = 1.0 / 30.0;
  std::string error;
  ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error)) << error;
  const int frame = add_body(w, sphere(0.001), Vec3(0, 0.06, -0.02), 0, Quat::Identity(), 0, BodyKind::Fixed);
  const int bar = add_body(w, box(Vec3(0.01, 0.001, 0.001)), Vec3(0.01, 0.06, 0), 1000.0);
  Joint hinge = make_joint(JointType::Hinge, w.bodies, frame, bar, Vec3(0, 0.06, 0), Vec3::UnitZ(), Vec3::UnitX());
  hinge.limit = JointLimit{true, -0.5, 0.5};
  w.joints.push_back(hinge);
  double lowest = 0.0;
  for (int s = 0; s < 15; ++s) {
    ASSERT_TRUE(w.step().ok);
    lowest = std::min(lowest, joint_coordinate(w.joints[0], w.bodies));
  }
  EXPECT_GT(lowest, -0.51);
  EXPECT_NEAR(joint_coordinate(w.joints[0], w.bodies), -0.5, 0.005);
}

// A box squeezed between two servo-driven fingers and lifted holds where Coulomb's law holds it, and slides out where
// it does not (tests/support/scenes.h, expect_gripper_holds_what_coulomb_holds). The fingers' servos and the box
// form a loop of stiff rows that plain sweeps do not settle within a step: the joint block (joints/joint_solve.h)
// settles the servos against the contacts after every sweep. Before it, at 1/30 s the 2 cm box slid 11 to 14 % of
// its size down the fingers during the lift.
TEST(LcpJoints, AGripperHoldsWhatCoulombHolds) { expect_gripper_holds_what_coulomb_holds("lcp"); }

// Boxes between the test's sizes at 1/30 s, each held with 30 % to spare: the squeeze's first step parted a finger
// from the box's face by half a millimetre with the two faces turned 0.1 degree apart, the pair's contact fell to
// one edge point (collision/box_box.cpp), the other finger's impulses spun the box, and it fell out of the grip
// (3.1 cm at mu 0.25, 4.9 cm at mu 0.4; every other of 132 cases from 2 to 19 cm at 1/30 to 1/60 s held).
TEST(LcpJoints, AGripperHoldsBoxesItsFingersPartFromAtACoarseStep) {
  for (const auto& [size, mu] : {std::pair{0.031, 0.25}, std::pair{0.049, 0.4}}) {
    SCOPED_TRACE(testing::Message() << "size " << size << " mu " << mu);
    const GripLift held = grip_and_lift("lcp", 1.0 / 30, size, 1.3, mu);
    ASSERT_TRUE(held.ok);
    EXPECT_LT(std::abs(held.slid), 0.05 * size);
    EXPECT_GT(held.rose, 0.9 * held.lift);
  }
}

}  // namespace cl
