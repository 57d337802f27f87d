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

}  // namespace cl
