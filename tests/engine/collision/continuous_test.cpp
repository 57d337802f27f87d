#include "collision/continuous.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "collision/narrowphase.h"
#include "support/builders.h"

namespace cl {

using namespace cl::test;

namespace {

Body ground() {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = Vec3(0, 1, 0);
  s.offset = 0.0;
  return make_body(s, Vec3::Zero(), Quat::Identity(), 0.0, BodyKind::Fixed);
}

StepMotion moving(const Body& b, const Vec3& to, const Quat& turned_to) {
  StepMotion m(b);
  m.position1 = to;
  m.orientation1 = turned_to;
  return m;
}

}  // namespace

// A ball falling 4 m in the step onto the ground: it first overlaps it by the depth when its centre is at
// r - depth, a fraction (2 - (r - depth)) / 4 of the way.
TEST(Continuous, BallOntoGroundStopsAtTheDepth) {
  const Body ball = make_body(sphere(0.5), Vec3(0, 2, 0), Quat::Identity(), 1000.0);
  const Body floor = ground();
  const double depth = 0.01, tolerance = 1e-5;
  const Impact impact = time_of_impact(ball, moving(ball, Vec3(0, -2, 0), Quat::Identity()), floor, StepMotion(floor), false,
                                       depth, tolerance);
  ASSERT_TRUE(impact.hit);
  EXPECT_NEAR(impact.distance0, 1.5, 1e-12);
  const double exact = (2.0 - (0.5 - depth)) / 4.0;
  EXPECT_LE(impact.t, exact);  // never past it
  EXPECT_GT(impact.t, exact - tolerance / 4.0);
}

// Passing by, or stopping short, is no hit.
TEST(Continuous, NoHitWhenThePathMissesOrFallsShort) {
  const Body ball = make_body(sphere(0.5), Vec3(0, 2, 0), Quat::Identity(), 1000.0);
  const Body floor = ground();
  EXPECT_FALSE(time_of_impact(ball, moving(ball, Vec3(5, 2, 0), Quat::Identity()), floor, StepMotion(floor), false, 0.01, 1e-5).hit);
  EXPECT_FALSE(time_of_impact(ball, moving(ball, Vec3(0, 0.495, 0), Quat::Identity()), floor, StepMotion(floor), false, 0.01, 1e-5).hit);
  const Body still = make_body(sphere(0.5), Vec3(0, 0.4, 0), Quat::Identity(), 1000.0);
  EXPECT_FALSE(time_of_impact(still, StepMotion(still), floor, StepMotion(floor), false, 0.01, 1e-5).hit);
}

// Two bodies that move together close on each other by nothing, however fast: a box touching a ram that carries it
// 8.3 m in the step (500 m/s at 1/60 s), or that leaves it a little behind, is no hit; one the ram closes on by 0.2
// m in the step is. The bound on their closing counts their relative translation: with their two reaches summed,
// the touching box advanced 6 cm of allowance per 16.7 m of reach, ran out of advances at a quarter of the step and
// was reported hit there.
TEST(Continuous, BodiesMovingTogetherDoNotHit) {
  const Body ram = make_body(box(Vec3(0.3, 0.5, 0.5)), Vec3(-0.3, 0.5, 0), Quat::Identity(), 0.0, BodyKind::Kinematic);
  const Body load = make_body(box(Vec3(0.25, 0.25, 0.25)), Vec3(0.249, 0.25, 0), Quat::Identity(), 1000.0);
  const StepMotion rammed = moving(ram, ram.position + Vec3(8.3, 0, 0), Quat::Identity());
  for (const double extra : {0.0, 0.05}) {
    const Impact impact = time_of_impact(load, moving(load, load.position + Vec3(8.3 + extra, 0, 0), Quat::Identity()),
                                         ram, rammed, true, 0.001, 1e-4);
    EXPECT_FALSE(impact.hit) << "extra " << extra << ": hit at " << impact.t;
  }
  const Impact closing = time_of_impact(load, moving(load, load.position + Vec3(8.1, 0, 0), Quat::Identity()), ram,
                                        rammed, true, 0.001, 1e-4);
  ASSERT_TRUE(closing.hit);
  // It may go a quarter of its half thickness deeper than at the start (0.0625 m) before it is stopped: the ram
  // gains 0.2 m on it over the step, so at 0.0625 / 0.2 of it.
  EXPECT_NEAR(closing.t, 0.0625 / 0.2, 0.01);
}

// A flat box turning a quarter turn about z in the step while it falls: its corner swings into the ground. At the
// fraction found the pair overlaps by the depth (to the tolerance); just before, by less.
TEST(Continuous, TurningBoxStopsWhereItsCornerReachesTheDepth) {
  const Body slab = make_body(box(Vec3(1.0, 0.05, 0.2)), Vec3(0, 0.3, 0), Quat::Identity(), 500.0);
  const Body floor = ground();
  const StepMotion m = moving(slab, Vec3(0, 0.2, 0), Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ())));
  const double depth = 0.002, tolerance = 1e-5;
  const Impact impact = time_of_impact(slab, m, floor, StepMotion(floor), false, depth, tolerance);
  ASSERT_TRUE(impact.hit);
  Body at = slab;
  m.place(at, impact.t);
  EXPECT_NEAR(pair_distance(at, floor, 1.0), -depth, tolerance);
  m.place(at, 0.99 * impact.t);
  EXPECT_GT(pair_distance(at, floor, 1.0), -depth);
}

// A ball already 3 mm into a 5 cm wall (in contact) and still driving on at a metre a step may go a quarter of the
// wall's half thickness deeper (the wall is the thinner body), not through it, even where the solver had no contact for it.
TEST(Continuous, PairOverlappingAtTheStartMayGoDeeperButNotThrough) {
  const Body wall = make_body(box(Vec3(0.025, 0.5, 0.5)), Vec3::Zero(), Quat::Identity(), 0.0, BodyKind::Fixed);
  const Body ball = make_body(sphere(0.05), Vec3(-0.072, 0, 0), Quat::Identity(), 1000.0);
  const double depth = 0.001, tolerance = 1e-5;
  const Impact impact = time_of_impact(ball, moving(ball, Vec3(0.928, 0, 0), Quat::Identity()), wall, StepMotion(wall),
                                       true, depth, tolerance);
  ASSERT_TRUE(impact.hit);
  EXPECT_NEAR(impact.distance0, -0.003, 1e-12);
  const double allowed = 0.003 + 0.25 * 0.025;
  EXPECT_NEAR(-0.072 + impact.t * 1.0, -0.075 + allowed, tolerance);
  const Impact unseen = time_of_impact(ball, moving(ball, Vec3(0.928, 0, 0), Quat::Identity()), wall, StepMotion(wall),
                                       false, depth, tolerance);
  ASSERT_TRUE(unseen.hit);
  EXPECT_EQ(unseen.t, impact.t);  // overlapping at the start counts as in contact
}

// A 0.2 mm sheet falling 10 cm in the step onto the ground, for a solver whose contacts start 1 mm deep: the new
// contact overlaps by half the sheet's half thickness at most, so the sheet lands with its middle above the ground
// (1 mm deep it was wholly through).
TEST(Continuous, ANewContactOverlapsAThinBodyByHalfItsHalfThickness) {
  const double half = 1e-4;
  const Body sheet = make_body(box(Vec3(0.5, half, 0.5)), Vec3(0, 0.05, 0), Quat::Identity(), 1000.0);
  const Body floor = ground();
  const double depth = 0.001, tolerance = 1e-5;
  const StepMotion m = moving(sheet, Vec3(0, -0.05, 0), Quat::Identity());
  const Impact impact = time_of_impact(sheet, m, floor, StepMotion(floor), false, depth, tolerance);
  ASSERT_TRUE(impact.hit);
  Body at = sheet;
  m.place(at, impact.t);
  EXPECT_NEAR(pair_distance(at, floor, 1.0), -0.5 * half, tolerance);
  EXPECT_GT(at.position.y(), 0.0);
}

// A body touching the ground and moving along it closes on it by nothing, however far it goes in the step and
// however fast it turns: no hit. A 2 cm ball rolling 14 cm a step (7 diameters, 14 rad) once ran out of advances
// (its 2.5 mm allowance per 17 cm of reach) and was put back at 0.91 of its step as if it had hit.
TEST(Continuous, BodiesSlidingOrRollingAlongAPlaneTheyTouchDoNotHit) {
  const Body floor = ground();
  const double depth = 0.001, tolerance = 1e-5;
  for (const double r : {0.01, 0.1, 1.0, 2.0}) {
    const Body ball = make_body(sphere(r), Vec3(0, r - 0.5 * depth, 0), Quat::Identity(), 1000.0);
    for (const double travel : {10.0 * r, 100.0 * r}) {
      // Rolling: turned by travel / r about z (angularDistance sees it modulo a full turn).
      const Quat rolled(Eigen::AngleAxisd(-travel / r, Vec3::UnitZ()));
      const StepMotion m = moving(ball, ball.position + Vec3(travel, 0, 0), rolled);
      EXPECT_EQ(m.turn_reach(), 0.0) << r;  // a sphere's turning moves none of its surface
      EXPECT_FALSE(time_of_impact(ball, m, floor, StepMotion(floor), true, depth, tolerance).hit) << r << " " << travel;
      EXPECT_FALSE(time_of_impact(floor, StepMotion(floor), ball, m, true, depth, tolerance).hit) << r << " " << travel;
    }
    // A flat box sliding 100 sizes along the ground.
    const Body slab = make_body(box(Vec3(r, 0.5 * r, r)), Vec3(0, 0.5 * r - 0.5 * depth, 0), Quat::Identity(), 1000.0);
    EXPECT_FALSE(time_of_impact(slab, moving(slab, slab.position + Vec3(0, 0, 100 * r), Quat::Identity()), floor,
                                StepMotion(floor), true, depth, tolerance).hit) << r;
  }
}

// The bound along the plane's normal still stops a body that slides fast and sinks: a ball in contact running 100
// radii along the ground while its centre drops by a radius stops where it is a quarter of its radius deeper than
// at the start (the allowance of a pair in contact), a fraction 0.25 of the way down, to the tolerance.
TEST(Continuous, BodySlidingAlongAPlaneWhileSinkingStopsAtItsAllowance) {
  const Body floor = ground();
  const double depth = 0.001, tolerance = 1e-5;
  for (const double r : {0.01, 1.0}) {
    const Body ball = make_body(sphere(r), Vec3(0, r, 0), Quat::Identity(), 1000.0);
    const StepMotion m = moving(ball, Vec3(100 * r, 0, 0), Quat(Eigen::AngleAxisd(-100.0, Vec3::UnitZ())));
    const Impact impact = time_of_impact(ball, m, floor, StepMotion(floor), true, depth, tolerance);
    ASSERT_TRUE(impact.hit) << r;
    EXPECT_LE(impact.t, 0.25) << r;  // never past it
    EXPECT_GT(impact.t, 0.25 - tolerance / r) << r;
  }
}

}  // namespace cl
