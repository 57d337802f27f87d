// The rim of a box's point shell (corners and edges) for the implicit penalty method's physical model.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/shape.h"
#include "solvers/implicit_penalty/box_rim.h"

namespace cl::implicit_penalty {
namespace {

Shape box(const Vec3& h) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = h;
  return s;
}

Shape ground() {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = Vec3(0, 1, 0);
  s.offset = 0.0;
  return s;
}

// A rim point takes the normal of its face most opposed to the field's gradient.
TEST(BoxRim, NormalOfTheFaceFacingTheField) {
  EXPECT_EQ(box_rim_normal(Vec3(1, -1, 1), Vec3(0, 1, 0)), Vec3(0, -1, 0));
  EXPECT_EQ(box_rim_normal(Vec3(1, -1, 0), Vec3(-0.9, 0.1, 0)), Vec3(1, 0, 0));
  EXPECT_EQ(box_rim_normal(Vec3(0, 1, -1), Vec3(0, 0.2, 0.9)), Vec3(0, 0, -1));
}

// Corners and edge points: 8 + 4 per cell along each axis, all on the box's surface.
TEST(BoxRim, CornersAndEdgesOnTheSurface) {
  const Vec3 h(3.0, 0.05, 0.5);
  const double spacing = 0.75;
  const auto rim = box_rim_shell(h, spacing);
  EXPECT_EQ(rim->size(), size_t(8 + 4 * (8 + 1 + 2)));
  for (const Vec3& p : rim->points) {
    int on_faces = 0;
    for (int k = 0; k < 3; ++k) on_faces += std::abs(std::abs(p[k]) - h[k]) < 1e-12;
    EXPECT_GE(on_faces, 2);
  }
}

// A 6 m plank (0.75 m face cells) tilted 11 degrees with its corner 1 cm into the ground: the face shell has no
// point inside (its nearest cell centre is 0.375 m from the end), the rim has its end edge there (two corners and
// two edge points), pushed
// along the face normal facing the ground, with indices after the face shell's.
TEST(BoxRim, PlankCornerOnTheGround) {
  const Shape plank = box(Vec3(3.0, 0.05, 0.5));
  const auto faces = penalty_shell(plank, 0.75);
  const double tilt = 11.0 * std::acos(-1.0) / 180.0;
  const Mat3 R = Eigen::AngleAxisd(-tilt, Vec3::UnitZ()).toRotationMatrix();
  const Vec3 corner = R * Vec3(3.0, -0.05, 0.0);
  const Vec3 x_b(0.0, -0.01 - corner.y(), 0.0);
  std::vector<PenetratingPoint> inside;
  find_penetrating_points(ground(), Vec3::Zero(), Mat3::Identity(), *faces, x_b, R, inside);
  EXPECT_TRUE(inside.empty());
  find_rim_points(ground(), Vec3::Zero(), Mat3::Identity(), plank, x_b, R, *faces, inside, 0.0);
  ASSERT_EQ(inside.size(), 4u);
  for (const PenetratingPoint& p : inside) {
    EXPECT_NEAR(p.d, -0.01, 1e-9);
    EXPECT_EQ(p.n_b, Vec3(0, -1, 0));
    EXPECT_GE(p.index, int(faces->size()));
  }
  // Against another box's field it adds nothing (see box_rim.h).
  std::vector<PenetratingPoint> none;
  find_rim_points(box(Vec3(1, 1, 1)), Vec3(3.0, -1.0, 0.0), Mat3::Identity(), plank, x_b, R, *faces, none, 0.0);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace cl::implicit_penalty
