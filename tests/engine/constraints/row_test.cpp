#include "constraints/row.h"

#include <gtest/gtest.h>

#include "support/builders.h"

namespace cl {
namespace {

Body dynamic_box(const Vec3& position, const Quat& orientation) {
  World w;
  test::add_body(w, test::box(Vec3(0.3, 0.2, 0.1)), position, 800.0, orientation);
  return w.bodies[0];
}

// J u of a point row is the relative velocity of b's point minus a's along the direction.
TEST(Row, PointRowMeasuresTheRelativePointVelocity) {
  const Vec3 point(0.3, 1.1, -0.2), dir = Vec3(1, 2, -0.5).normalized();
  const Vec3 ca(0, 1, 0), cb(0.5, 1.5, 0.1);
  const Row r = point_row(0, 1, point - ca, point - cb, dir);
  const BodyVelocity ua{Vec3(0.2, -1, 0.4), Vec3(1.5, 0.3, -2)}, ub{Vec3(-0.7, 0.1, 0.9), Vec3(-0.4, 2.2, 0.6)};
  const Vec3 va = ua.v + ua.w.cross(point - ca), vb = ub.v + ub.w.cross(point - cb);
  EXPECT_NEAR(r.value(ua, ub), (vb - va).dot(dir), 1e-14);
}

// prepare() gives B = M^-1 J^T and 1 / (J M^-1 J^T + cfm); a fixed body contributes nothing.
TEST(Row, PrepareComputesInverseMassTimesJacobianAndTheDiagonal) {
  const Body A = dynamic_box(Vec3(0, 1, 0), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())));
  const Body B = dynamic_box(Vec3(1, 1, 0), Quat(Eigen::AngleAxisd(-0.4, Vec3(0, 1, 1).normalized())));
  std::vector<InverseMass> masses;
  load_inverse_masses({A, B}, masses);
  Row r = point_row(0, 1, Vec3(0.1, 0.2, 0.05), Vec3(-0.2, 0.1, 0.0), Vec3(0, 1, 0));
  r.cfm = 0.25;
  prepare(r, masses);
  EXPECT_TRUE(r.ba_lin.isApprox(A.inv_mass * r.ja_lin));
  EXPECT_TRUE(r.ba_ang.isApprox(A.inv_inertia_world * r.ja_ang));
  EXPECT_TRUE(r.bb_ang.isApprox(B.inv_inertia_world * r.jb_ang));
  const double diag = A.inv_mass + B.inv_mass + r.ja_ang.dot(A.inv_inertia_world * r.ja_ang) +
                      r.jb_ang.dot(B.inv_inertia_world * r.jb_ang);
  EXPECT_NEAR(r.inv_diag, 1.0 / (diag + 0.25), 1e-12 / diag);

  World w;
  test::add_plane(w);
  std::vector<InverseMass> fixed;
  load_inverse_masses(w.bodies, fixed);
  EXPECT_EQ(fixed[0].linear, 0.0);
  EXPECT_TRUE(fixed[0].angular.isZero(0.0));
  Row none = point_row(0, 0, Vec3::Zero(), Vec3::Zero(), Vec3::UnitY());
  prepare(none, fixed[0], fixed[0]);
  EXPECT_EQ(none.inv_diag, 0.0);  // nothing can move: the row is never changed
}

}  // namespace
}  // namespace cl
