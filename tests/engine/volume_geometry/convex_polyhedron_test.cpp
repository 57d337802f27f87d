// Convex polyhedra cut by half spaces (volume_geometry/convex_polyhedron.h): volumes, centroids and faces against
// closed forms, faces that lie in a cutting plane kept whole, chords and extents.
#include "volume_geometry/convex_polyhedron.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cl::vg {
namespace {

Mat3 rotation_about(double angle, const Vec3& axis) { return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix(); }

TEST(ConvexPolyhedron, BoxVolumeCentroidAndFaces) {
  ConvexPolyhedron p;
  const Vec3 c(1.5, -2, 0.25), h(0.3, 0.2, 0.1);
  p.set_box(c, rotation_about(0.7, Vec3(1, 2, 3)), h, FaceOwner::A);
  Vec3 centroid;
  EXPECT_NEAR(p.volume(&centroid), 8 * h.prod(), 1e-15);
  EXPECT_NEAR((centroid - c).norm(), 0.0, 1e-14);
  ASSERT_EQ(p.faces().size(), 6u);
  // Each face's outward normal points away from the centre, its area is that of its rectangle.
  double area = 0;
  for (const PolyFace& f : p.faces()) {
    const FaceArea fa = p.face_area(f);
    EXPECT_GT(f.normal.dot(fa.centroid - c), 0.0);
    EXPECT_NEAR(f.offset, f.normal.dot(fa.centroid), 1e-14);
    area += fa.area;
  }
  EXPECT_NEAR(area, 8 * (h.x() * h.y() + h.y() * h.z() + h.z() * h.x()), 1e-14);
}

// A cube turned 45 degrees about z, its lower edge d under the plane y = 0: a prism of triangular section (base 2d,
// height d) and the cube's length.
TEST(ConvexPolyhedron, EdgeDownCubeCutByAPlaneIsAPrism) {
  const double h = 0.5, d = 0.1;
  ConvexPolyhedron p;
  p.set_box(Vec3(0.3, h * std::sqrt(2.0) - d, -1), rotation_about(M_PI / 4, Vec3::UnitZ()), Vec3(h, h, h), FaceOwner::B);
  ASSERT_TRUE(p.clip(Vec3::UnitY(), 0.0, FaceOwner::A));
  Vec3 centroid;
  EXPECT_NEAR(p.volume(&centroid), d * d * 2 * h, 1e-14);
  EXPECT_NEAR(centroid.y(), -d / 3, 1e-14);
  EXPECT_NEAR(p.extent(Vec3::UnitY()), d, 1e-14);
  // The cut face: the plane's, 2 d by 2 h; the cube keeps two faces, each sqrt(2) d by 2 h, under it.
  double cut = 0, own = 0;
  for (const PolyFace& f : p.faces()) (f.owner == FaceOwner::A ? cut : own) += p.face_area(f).area;
  EXPECT_NEAR(cut, 2 * d * 2 * h, 1e-14);
  EXPECT_NEAR(own, 2 * std::sqrt(2.0) * d * 2 * h + 2 * d * d, 1e-13);  // plus the two triangular ends
  EXPECT_NEAR(p.chord(Vec3(0.3, -0.05, -1), Vec3::UnitY()), d, 1e-14);
  EXPECT_EQ(p.chord(Vec3(5, 0, 0), Vec3::UnitY()), 0.0);
}

// Two boxes face to face with equal sides (a column): the shared side faces lie in the cutting planes and are kept
// whole, the volume is the overlap layer, and nothing is left where they only touch.
TEST(ConvexPolyhedron, CoplanarFacesAreKeptWhole) {
  ConvexPolyhedron p;
  p.set_box(Vec3(0, 1.0 - 0.004, 0), Mat3::Identity(), Vec3(0.5, 0.5, 0.5), FaceOwner::B);
  for (int k = 0; k < 3; ++k)
    for (double side : {1.0, -1.0}) {
      const Vec3 n = side * Vec3::Unit(k);
      ASSERT_TRUE(p.clip(n, 0.5, FaceOwner::A));
    }
  EXPECT_NEAR(p.volume(), 0.004, 1e-15);
  EXPECT_EQ(p.faces().size(), 6u);
  ConvexPolyhedron touching;
  touching.set_box(Vec3(0, 1.0, 0), Mat3::Identity(), Vec3(0.5, 0.5, 0.5), FaceOwner::B);
  EXPECT_FALSE(touching.clip(Vec3::UnitY(), 0.5, FaceOwner::A));
  EXPECT_TRUE(touching.empty());
}

// Cut after cut into the eight octants of a cube: the parts add up to the whole, each an eighth.
TEST(ConvexPolyhedron, PartsOfACutAddUpToTheWhole) {
  ConvexPolyhedron box;
  box.set_box(Vec3(0.1, 0.2, 0.3), rotation_about(0.4, Vec3(1, 1, 0)), Vec3(0.5, 0.3, 0.2), FaceOwner::A);
  const double whole = box.volume();
  double sum = 0;
  ConvexPolyhedron x, y, z;
  for (double sx : {1.0, -1.0})
    for (double sy : {1.0, -1.0})
      for (double sz : {1.0, -1.0}) {
        if (!box.clip(sx * Vec3::UnitX(), sx * 0.1, FaceOwner::Wall, x)) continue;
        if (!x.clip(sy * Vec3::UnitY(), sy * 0.2, FaceOwner::Wall, y)) continue;
        if (!y.clip(sz * Vec3::UnitZ(), sz * 0.3, FaceOwner::Wall, z)) continue;
        sum += z.volume();
      }
  EXPECT_NEAR(sum, whole, 1e-14);
}

}  // namespace
}  // namespace cl::vg
