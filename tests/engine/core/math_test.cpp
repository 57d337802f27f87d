#include "core/math.h"

#include <gtest/gtest.h>

#include <random>

namespace cl {

// Digest test 5: the finite quaternion update matches the exact rotation for constant w.
TEST(Math, FiniteOrientationUpdateMatchesExactRotation) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-5, 5);
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 w(u(rng), u(rng), u(rng));
    const Quat q0 = Quat(Eigen::AngleAxisd(u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()));
    const double h = 0.01;
    Quat q = q0;
    for (int s = 0; s < 100; ++s) q = integrate_orientation(q, w, h);
    const Quat exact = Quat(Eigen::AngleAxisd(w.norm() * 1.0, w.normalized())) * q0;
    EXPECT_NEAR(std::abs(q.dot(exact)), 1.0, 1e-12) << "trial " << trial;
    EXPECT_NEAR(q.norm(), 1.0, 1e-14);
  }
}

TEST(Math, SkewIsCrossProduct) {
  const Vec3 a(1, -2, 3), b(0.5, 4, -1);
  EXPECT_TRUE((skew(a) * b).isApprox(a.cross(b)));
}

TEST(Math, TangentBasisIsOrthonormalAndRightHanded) {
  for (const Vec3& n : {Vec3(0, 1, 0), Vec3(1, 0, 0), Vec3(1, 2, 3).normalized(), Vec3(-1, 0.1, 0).normalized()}) {
    Vec3 t1, t2;
    tangent_basis(n, t1, t2);
    EXPECT_NEAR(t1.dot(n), 0, 1e-14);
    EXPECT_NEAR(t2.dot(n), 0, 1e-14);
    EXPECT_NEAR(t1.norm(), 1, 1e-14);
    EXPECT_TRUE(t1.cross(t2).isApprox(n, 1e-12));
  }
}

TEST(Math, SmallRotationIsFirstOrder) {
  const Quat q = Quat::Identity();
  const Vec3 dtheta(0, 1e-4, 0);
  const Quat r = apply_small_rotation(q, dtheta);
  EXPECT_NEAR(Eigen::AngleAxisd(r).angle(), 1e-4, 1e-10);
}

}  // namespace cl
