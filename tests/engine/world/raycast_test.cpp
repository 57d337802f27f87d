#include "world/raycast.h"

#include <gtest/gtest.h>

#include <cmath>
#include "support/builders.h"

namespace cl {
namespace {

TEST(Raycast, WorldReturnsNearestBody) {
  World w;
  auto add = [&w](const char* name, Shape s, Vec3 p) {
    Body b;
    b.name = name;
    b.shape = s;
    b.position = p;
    w.bodies.push_back(b);
  };
  add("ground", test::plane_shape(Vec3(0, 1, 0), 0.0), Vec3::Zero());
  add("far", test::sphere(0.5), Vec3(0, 1, -5));
  add("near", test::box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 1, -2));
  add("twin", test::box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 1, -2));  // same place: the lower index wins

  RayHit h = raycast(w, Vec3(0, 1, 5), Vec3(0, 0, -1));
  ASSERT_TRUE(h.hit);
  EXPECT_EQ(h.body, 2);
  EXPECT_NEAR(h.distance, 6.5, 1e-12);
  EXPECT_TRUE(h.normal.isApprox(Vec3(0, 0, 1)));

  h = raycast(w, Vec3(0, 1, 5), Vec3(0, -1, -1));  // down onto the ground before reaching anything
  ASSERT_TRUE(h.hit);
  EXPECT_EQ(h.body, 0);
  EXPECT_NEAR(h.distance, std::sqrt(2.0), 1e-12);

  h = raycast(w, Vec3(0, 1, 5), Vec3(0, 1, 0));
  EXPECT_FALSE(h.hit);
  EXPECT_EQ(h.body, -1);

  h = raycast(w, Vec3(0, 1, 5), Vec3(0, 0, -1), 3.0);  // limited reach
  EXPECT_FALSE(h.hit);
}

}  // namespace
}  // namespace cl
