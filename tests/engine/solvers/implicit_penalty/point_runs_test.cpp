// Runs of penetrating points that share their field gradient and normal, and their moments (point_runs.h).
#include "solvers/implicit_penalty/point_runs.h"

#include <gtest/gtest.h>

#include <vector>

namespace cl::implicit_penalty {
namespace {

PenetratingPoint run_point(const Vec3& g, const Vec3& n, const Vec3& r, double d) {
  PenetratingPoint p;
  p.g_a = g;
  p.n_b = n;
  p.r_b = r;
  p.d = d;
  return p;
}

TEST(PointRuns, ARunEndsWhereTheGradientOrTheNormalChanges) {
  const Vec3 up(0, 1, 0), down(0, -1, 0), side(1, 0, 0);
  const std::vector<PenetratingPoint> points = {
      run_point(up, down, Vec3(0, 0, 0), -1e-3), run_point(up, down, Vec3(1, 0, 0), -2e-3), run_point(up, down, Vec3(2, 0, 0), -1e-3),
      run_point(up, side, Vec3(0, 0, 0), -1e-3),  // another normal
      run_point(up, down, Vec3(0, 0, 0), -1e-3),
      run_point(Vec3(0, 1, 1e-17), down, Vec3(0, 0, 0), -1e-3),  // another gradient, however near
      run_point(Vec3(-0.0, 1, 0), down, Vec3(0, 0, 0), -1e-3), run_point(Vec3(0.0, 1, 0), down, Vec3(0, 0, 0), -1e-3)};
  EXPECT_EQ(point_run_length(points, 0), 3u);
  EXPECT_EQ(point_run_length(points, 1), 2u);
  EXPECT_EQ(point_run_length(points, 3), 1u);
  EXPECT_EQ(point_run_length(points, 4), 1u);
  EXPECT_EQ(point_run_length(points, 5), 1u);
  EXPECT_EQ(point_run_length(points, 6), 2u);  // a signed zero equals its opposite
}

TEST(PointRuns, MomentsAreTheSumsOverThePoints) {
  const Vec3 g(0, 1, 0), n(0, -1, 0);
  const std::vector<PenetratingPoint> run = {run_point(g, n, Vec3(1, 2, 3), -1e-3), run_point(g, n, Vec3(-4, 0.5, 2), -3e-3),
                                             run_point(g, n, Vec3(0.25, -1, 7), -2e-3)};
  const RunMoments m = run_moments(run);
  EXPECT_EQ(m.count, 3);
  double d = 0.0;
  Vec3 r = Vec3::Zero(), dr = Vec3::Zero();
  Mat3 rr = Mat3::Zero();
  for (const PenetratingPoint& p : run) {
    d += p.d;
    r += p.r_b;
    dr += p.d * p.r_b;
    rr += p.r_b * p.r_b.transpose();
  }
  EXPECT_DOUBLE_EQ(m.d, d);
  EXPECT_LT((m.r - r).norm(), 1e-15 * r.norm());
  EXPECT_LT((m.dr - dr).norm(), 1e-15 * dr.norm());
  EXPECT_LT((m.rr - rr).norm(), 1e-15 * rr.norm());
  EXPECT_EQ(m.rr, m.rr.transpose());
}

}  // namespace
}  // namespace cl::implicit_penalty
