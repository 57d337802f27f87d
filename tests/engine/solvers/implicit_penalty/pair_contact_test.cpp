// pair_contact: the one world contact of a touching pair from its penetrating shell points.
#include "solvers/implicit_penalty/pair_contact.h"

#include <gtest/gtest.h>

#include <vector>

namespace cl::implicit_penalty {
namespace {

PenetratingPoint point(int index, const Vec3& r_b, const Vec3& n_b, double d) {
  PenetratingPoint p;
  p.index = index;
  p.r_b = r_b;
  p.n_b = n_b;
  p.d = d;
  return p;
}

Body at(const Vec3& x) {
  Body b;
  b.position = x;
  return b;
}

// A box's four bottom points 1 cm apart in a field below it, one of them 3 mm deep, the others 1 mm; a point of the
// field body inside the box, 2 mm deep: the contact sits at the points' centroid, along the deepest one's normal
// (b's, pushed along its inward normal), 3 mm deep, keyed by that point.
TEST(PairContact, CentroidOfThePointsAlongTheDeepest) {
  const Body a = at(Vec3(0, -1, 0)), b = at(Vec3(1, 2, 3));
  const Mat3 ra = Mat3::Identity();
  const Mat3 rb = Eigen::AngleAxisd(0.3, Vec3::UnitZ()).toRotationMatrix();
  const Vec3 down(0, -1, 0);
  const std::vector<PenetratingPoint> b_in_a = {point(4, Vec3(-0.005, -0.1, -0.005), down, -0.001),
                                                point(5, Vec3(0.005, -0.1, -0.005), down, -0.003),
                                                point(6, Vec3(-0.005, -0.1, 0.005), down, -0.001),
                                                point(7, Vec3(0.005, -0.1, 0.005), down, -0.001)};
  const std::vector<PenetratingPoint> a_in_b = {point(9, Vec3(0, 0.5, 0), Vec3(0, 1, 0), -0.002)};
  const Contact c = pair_contact(2, 5, a, ra, a_in_b, b, rb, b_in_a, 0.0);
  EXPECT_EQ(c.a, 2);
  EXPECT_EQ(c.b, 5);
  Vec3 centroid = a.position + ra * a_in_b[0].r_b;
  for (const PenetratingPoint& p : b_in_a) centroid += b.position + rb * p.r_b;
  centroid /= 5.0;
  EXPECT_LT((c.position - centroid).norm(), 1e-15);
  EXPECT_DOUBLE_EQ(c.depth, 0.003);
  EXPECT_LT((c.normal - rb * Vec3(0, 1, 0)).norm(), 1e-15);
  EXPECT_EQ(c.feature, shell_point_key(true, 5));
  EXPECT_NE(shell_point_key(true, 5), shell_point_key(false, 5));
}

// With a skin of 2 mm, only the points below the own surfaces (d < -skin) place the contact; its depth is measured
// from the own surface. When every point is within the skin, all of them place it and the depth is negative.
TEST(PairContact, PointsWithinTheSkinPlaceItOnlyWhenNoneIsDeeper) {
  const Body a = at(Vec3::Zero()), b = at(Vec3::Zero());
  const Mat3 r = Mat3::Identity();
  const Vec3 up(0, 1, 0);
  const std::vector<PenetratingPoint> within = {point(0, Vec3(0, 0, 0), up, -0.001),
                                                point(1, Vec3(1, 0, 0), up, -0.0015)};
  Contact c = pair_contact(0, 1, a, r, within, b, r, {}, 0.002);
  EXPECT_LT((c.position - Vec3(0.5, 0, 0)).norm(), 1e-15);
  EXPECT_NEAR(c.depth, -0.0005, 1e-15);
  EXPECT_LT((c.normal - up).norm(), 1e-15);  // a's points: a is pushed along its inward normal, b along a's outward
  std::vector<PenetratingPoint> one_below = within;
  one_below.push_back(point(2, Vec3(0, 0, 4), up, -0.0025));
  c = pair_contact(0, 1, a, r, one_below, b, r, {}, 0.002);
  EXPECT_LT((c.position - Vec3(0, 0, 4)).norm(), 1e-15);
  EXPECT_NEAR(c.depth, 0.0005, 1e-15);
  EXPECT_EQ(c.feature, shell_point_key(false, 2));
}

}  // namespace
}  // namespace cl::implicit_penalty
