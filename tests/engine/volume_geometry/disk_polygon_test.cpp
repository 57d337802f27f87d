// Polygons cut by disks (volume_geometry/disk_polygon.h): areas and centroids against closed forms (half disk,
// quarter disk, circular segment, disk inside, polygon inside) and against a fine grid count for random cases.
#include "volume_geometry/disk_polygon.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace cl::vg {
namespace {

TEST(DiskPolygon, ClosedForms) {
  const double r = 0.7;
  // The disk inside the rectangle, and the rectangle inside the disk.
  PlaneArea a = rectangle_in_disk(2, 1, Vec2(0.3, -0.1), r);
  EXPECT_NEAR(a.area, M_PI * r * r, 1e-14);
  EXPECT_NEAR((a.moment / a.area - Vec2(0.3, -0.1)).norm(), 0.0, 1e-14);
  a = rectangle_in_disk(0.2, 0.1, Vec2(0.05, 0.02), r);
  EXPECT_NEAR(a.area, 0.08, 1e-15);
  EXPECT_NEAR((a.moment / a.area).norm(), 0.0, 1e-15);
  // A half disk: the rectangle's edge through the centre (centroid 4 r / (3 pi) from it).
  a = rectangle_in_disk(1, 1, Vec2(1, 0), r);
  EXPECT_NEAR(a.area, 0.5 * M_PI * r * r, 1e-14);
  EXPECT_NEAR(a.moment.x() / a.area, 1 - 4 * r / (3 * M_PI), 1e-14);
  EXPECT_NEAR(a.moment.y() / a.area, 0.0, 1e-14);
  // A quarter disk: the centre on the rectangle's corner.
  a = rectangle_in_disk(1, 1, Vec2(1, 1), r);
  EXPECT_NEAR(a.area, 0.25 * M_PI * r * r, 1e-14);
  EXPECT_NEAR(a.moment.x() / a.area, 1 - 4 * r / (3 * M_PI), 1e-14);
  // A circular segment: the edge at distance c from the centre, area r^2 acos(c / r) - c sqrt(r^2 - c^2).
  const double c = 0.4;
  a = rectangle_in_disk(1, 5, Vec2(1 + c, 0), r);
  EXPECT_NEAR(a.area, r * r * std::acos(c / r) - c * std::sqrt(r * r - c * c), 1e-14);
  // Disjoint.
  a = rectangle_in_disk(1, 1, Vec2(1.5, 1.5), r);
  EXPECT_EQ(a.area, 0.0);
}

// Random triangles and disks against counting the points of a fine grid inside both.
TEST(DiskPolygon, RandomCasesAgainstAGridCount) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Vec2> tri = {Vec2(u(rng), u(rng)), Vec2(u(rng), u(rng)), Vec2(u(rng), u(rng))};
    const double orient = (tri[1] - tri[0]).x() * (tri[2] - tri[0]).y() - (tri[1] - tri[0]).y() * (tri[2] - tri[0]).x();
    if (orient < 0) std::swap(tri[1], tri[2]);
    const Vec2 centre(0.5 * u(rng), 0.5 * u(rng));
    const double r = 0.3 + 0.4 * std::abs(u(rng));
    const PlaneArea a = polygon_in_disk(tri, centre, r);
    const int n = 1500;
    const double step = 2.0 / n;
    double count = 0;
    Vec2 moment = Vec2::Zero();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const Vec2 p(-1 + (i + 0.5) * step, -1 + (j + 0.5) * step);
        if ((p - centre).squaredNorm() > r * r) continue;
        bool inside = true;
        for (int k = 0; k < 3 && inside; ++k) {
          const Vec2 e = tri[(k + 1) % 3] - tri[k], q = p - tri[k];
          inside = e.x() * q.y() - e.y() * q.x() >= 0;
        }
        if (inside) {
          count += step * step;
          moment += step * step * p;
        }
      }
    EXPECT_NEAR(a.area, count, 2e-3 * std::max(count, 0.01)) << "trial " << trial;
    if (count > 0.01) {
      EXPECT_NEAR((a.moment / a.area - moment / count).norm(), 0.0, 3e-3) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace cl::vg
