#include "constraints/friction_balance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace cl {
namespace {

struct Effect {
  Vec3 force = Vec3::Zero(), moment = Vec3::Zero();
};
Effect effect_of(const std::vector<FrictionPoint>& points) {
  Effect e;
  for (const FrictionPoint& p : points) {
    e.force += p.friction;
    e.moment += p.position.cross(p.friction);
  }
  return e;
}

// A face's four corners under normal n (half sizes hx, hz in the tangent frame), `height` along n from the origin.
std::vector<FrictionPoint> face(const Vec3& n, double hx, double hz, double height, const double (&load)[4],
                                double mu) {
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  const double sx[4] = {-1, 1, 1, -1}, sz[4] = {-1, -1, 1, 1};
  std::vector<FrictionPoint> points;
  for (int i = 0; i < 4; ++i)
    points.push_back({height * n + sx[i] * hx * t1 + sz[i] * hz * t2, load[i], mu, Vec3::Zero()});
  return points;
}

// The net effect is kept to rounding (the balance moves a pair only when its target's effect is the same to 1e-12 of
// the pair's friction, per component), and every point ends in its disc.
void expect_same_effect_in_discs(const std::vector<FrictionPoint>& before, const std::vector<FrictionPoint>& after) {
  const Effect a = effect_of(before), b = effect_of(after);
  double scale = 0.0, size = 0.0;
  for (const FrictionPoint& p : before) {
    scale += p.mu * p.normal_impulse;
    size = std::max(size, p.position.norm());
  }
  EXPECT_LE((a.force - b.force).norm(), 2e-12 * scale);
  EXPECT_LE((a.moment - b.moment).norm(), 2e-12 * scale * size);
  for (const FrictionPoint& p : after) EXPECT_LE(p.friction.norm(), p.mu * p.normal_impulse * (1 + 1e-12));
}

TEST(FrictionBalance, SlidingFaceGetsParallelFrictionInProportionToLoad) {
  // A box sliding along t1 whose corners took opposing sideways parts, every corner on the edge of its disc, so
  // that the net friction along t1 is short of mu sum lambda_n.
  const Vec3 n = Vec3(0.2, 1.0, -0.1).normalized();
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  const double load[4] = {1.0, 2.0, 3.0, 2.0}, mu = 0.5;
  std::vector<FrictionPoint> points = face(n, 0.5, 0.3, -0.5, load, mu);
  const double side = 0.3;
  for (int i = 0; i < 4; ++i) {
    const double along = mu * load[i] * std::sqrt(1.0 - side * side);
    points[size_t(i)].friction = -along * t1 + (i % 2 == 0 ? 1.0 : -1.0) * side * mu * load[i] * t2;
  }
  const std::vector<FrictionPoint> before = points;
  ASSERT_TRUE(balance_pair_friction(n, points));
  expect_same_effect_in_discs(before, points);
  // The sideways parts (loads 1, 2, 3, 2 alternately signed: no net sideways force) shrink.
  double side_before = 0.0, side_after = 0.0;
  for (size_t i = 0; i < 4; ++i) {
    side_before += std::abs(before[i].friction.dot(t2));
    side_after += std::abs(points[i].friction.dot(t2));
  }
  EXPECT_LT(side_after, side_before);
}

TEST(FrictionBalance, PureSlideEndsExactlyProportional) {
  // Frictions with no net twist about the load's centre and sideways parts that cancel: the balanced impulses are the
  // net force times lambda_n,i / sum lambda_n, each on the edge of its disc when the net force is mu sum lambda_n.
  const Vec3 n(0, 1, 0);
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  const double load[4] = {2.0, 2.0, 2.0, 2.0}, mu = 0.8;
  std::vector<FrictionPoint> points = face(n, 0.5, 0.5, -0.5, load, mu);
  // Every corner on the edge of its disc, the two at -t2 pulled towards -t2 and the two at +t2 towards +t2: a
  // tension across the face, no net force or twist sideways.
  const double r = mu * 2.0, c = std::cos(0.2), s = std::sin(0.2);
  points[0].friction = r * (-c * t1 - s * t2);
  points[1].friction = r * (-c * t1 - s * t2);
  points[2].friction = r * (-c * t1 + s * t2);
  points[3].friction = r * (-c * t1 + s * t2);
  const std::vector<FrictionPoint> before = points;
  ASSERT_TRUE(balance_pair_friction(n, points));
  expect_same_effect_in_discs(before, points);
  const Vec3 share = effect_of(before).force / 4.0;
  for (const FrictionPoint& p : points) EXPECT_LE((p.friction - share).norm(), 1e-12 * r);
}

TEST(FrictionBalance, KeepsTheEffectOfRandomPairsInAndOutOfOnePlane) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int changed = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 n = Vec3(u(random), u(random), u(random)).normalized();
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    const int count = 2 + trial % 5;
    const double size = std::pow(10.0, 2.0 * u(random));  // 1 cm to 100 m
    const double mass = std::pow(10.0, 3.0 * u(random));
    const bool planar = trial % 2 == 0;
    std::vector<FrictionPoint> points;
    for (int i = 0; i < count; ++i) {
      FrictionPoint p;
      p.position = size * (u(random) * t1 + u(random) * t2 + (planar ? 0.3 : 0.3 + 0.1 * u(random)) * n);
      p.normal_impulse = trial % 7 == 0 && i == 0 ? 0.0 : mass * (0.1 + std::abs(u(random)));
      p.mu = 0.1 + std::abs(u(random));
      const double angle = 3.2 * u(random), fill = i == 0 ? 1.0 : std::abs(u(random));
      p.friction = fill * p.mu * p.normal_impulse * (std::cos(angle) * t1 + std::sin(angle) * t2);
      points.push_back(p);
    }
    const std::vector<FrictionPoint> before = points;
    if (balance_pair_friction(n, points)) ++changed;
    expect_same_effect_in_discs(before, points);
    // A point with no normal impulse is left alone.
    for (size_t i = 0; i < points.size(); ++i) {
      if (before[i].normal_impulse == 0.0) {
        EXPECT_EQ(points[i].friction, before[i].friction);
      }
    }
  }
  EXPECT_GT(changed, 250);
}

TEST(FrictionBalance, RemovesTensionBetweenTwoPoints) {
  // Two points pulling apart along the line between them (no effect on the body) and sliding together: the pull is
  // the part that takes their discs' room.
  const Vec3 n(0, 0, 1);
  std::vector<FrictionPoint> points{{Vec3(-1, 0, 0), 1.0, 0.5, Vec3(-0.3, 0.4, 0)},
                                    {Vec3(1, 0, 0), 1.0, 0.5, Vec3(0.3, 0.4, 0)}};
  ASSERT_TRUE(balance_pair_friction(n, points));
  EXPECT_NEAR(points[0].friction.x(), 0.0, 1e-15);
  EXPECT_NEAR(points[1].friction.x(), 0.0, 1e-15);
  EXPECT_NEAR(points[0].friction.y(), 0.4, 1e-15);
  EXPECT_NEAR(points[1].friction.y(), 0.4, 1e-15);
}

TEST(FrictionBalance, NearTheEdgeMeansNinetyNinePercentOfTheDisc) {
  EXPECT_TRUE(near_disc_edge(2.0, 0.6, 0.8, 0.5, 10.0, 0.0));    // on the edge
  EXPECT_TRUE(near_disc_edge(2.0, 0.0, -0.995, 0.5, 10.0, 0.0));  // 99.5 %
  EXPECT_FALSE(near_disc_edge(2.0, 0.6, 0.78, 0.5, 10.0, 0.0));  // 98.4 %
  EXPECT_FALSE(near_disc_edge(0.0, 0.0, 0.0, 0.5, 10.0, 0.0));   // no normal impulse
  EXPECT_FALSE(near_disc_edge(2.0, 0.0, 0.0, 0.0, 10.0, 0.0));   // frictionless
  // Worth it when mu lambda_n (1 N s) moves the point's 10 kg by at least the least speed.
  EXPECT_TRUE(near_disc_edge(2.0, 0.6, 0.8, 0.5, 10.0, 0.1));
  EXPECT_FALSE(near_disc_edge(2.0, 0.6, 0.8, 0.5, 10.0, 0.11));
}

TEST(FrictionBalance, OnePointIsNoPair) {
  const Vec3 n(0, 1, 0);
  std::vector<FrictionPoint> one{{Vec3(1, 0, 0), 1.0, 0.5, Vec3(0.5, 0, 0)}};
  EXPECT_FALSE(balance_pair_friction(n, one));
  std::vector<FrictionPoint> unloaded{{Vec3(1, 0, 0), 1.0, 0.5, Vec3(0.5, 0, 0)},
                                      {Vec3(-1, 0, 0), 0.0, 0.5, Vec3::Zero()}};
  EXPECT_FALSE(balance_pair_friction(n, unloaded));
  EXPECT_EQ(unloaded[0].friction, Vec3(0.5, 0, 0));
}

}  // namespace
}  // namespace cl
