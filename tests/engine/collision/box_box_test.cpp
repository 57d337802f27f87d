#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

#include "collision/narrowphase.h"

namespace cl {

namespace {
std::vector<ContactPointOut> collide(const Vec3& pa, const Quat& qa, const Vec3& ha, const Vec3& pb, const Quat& qb,
                                     const Vec3& hb, double margin = 0.0) {
  std::vector<ContactPointOut> out;
  collide_box_box(pa, qa, ha, pb, qb, hb, margin, out);
  return out;
}
const Vec3 kHalf(0.5, 0.5, 0.5);
}  // namespace

// Face-face: a unit box resting 1 cm deep on another gives the 4 corners of the contact square,
// normal straight up (from a to b), depth 1 cm each.
TEST(BoxBox, FaceFaceGivesFourCorners) {
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0, 0.99, 0), Quat::Identity(), kHalf);
  ASSERT_EQ(pts.size(), 4u);
  std::set<uint32_t> features;
  for (const auto& p : pts) {
    EXPECT_TRUE(p.normal.isApprox(Vec3(0, 1, 0), 1e-12));
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
    EXPECT_NEAR(std::abs(p.position.x()), 0.5, 1e-12);
    EXPECT_NEAR(std::abs(p.position.z()), 0.5, 1e-12);
    EXPECT_NEAR(p.position.y(), 0.495, 1e-12);
    features.insert(p.feature);
  }
  EXPECT_EQ(features.size(), 4u);
}

// Rotation noise must not turn a face case into an edge case (thesis sect. 6.3), nor add points.
TEST(BoxBox, RotationNoiseKeepsFaceContact) {
  const Quat noise(Eigen::AngleAxisd(3e-7, Vec3(1, 2, 3).normalized()));
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0, 0.995, 0), noise, kHalf);
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) EXPECT_TRUE(p.normal.isApprox(Vec3(0, 1, 0), 1e-6));
}

// A smaller box on a bigger one: the small box's 4 corners (incident corners inside the reference face).
// A bigger box on a smaller one: the reference face corners inside the incident face.
TEST(BoxBox, SmallOnLargeAndLargeOnSmall) {
  auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), Vec3(2, 0.5, 2), Vec3(0.3, 0.99, 0), Quat::Identity(), kHalf);
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) EXPECT_NEAR(std::abs(p.position.x() - 0.3), 0.5, 1e-12);
  pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0.3, 1.49, 0), Quat::Identity(), Vec3(2, 1, 2));
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) {
    EXPECT_NEAR(std::abs(p.position.x()), 0.5, 1e-12);
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
  }
}

// Offset boxes (as in a pyramid): the overlap rectangle's 4 corners, 2 from each box, no duplicates.
TEST(BoxBox, OffsetBoxesGiveOverlapRectangle) {
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0.5, 0.999, 0.2), Quat::Identity(), kHalf);
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) {
    EXPECT_TRUE(std::abs(p.position.x() - 0.0) < 1e-9 || std::abs(p.position.x() - 0.5) < 1e-9);
    EXPECT_TRUE(std::abs(p.position.z() + 0.3) < 1e-9 || std::abs(p.position.z() - 0.5) < 1e-9);
  }
}

// A narrow box flush against a wide one of the same height, the narrow one first (a gripper's finger on its box):
// the narrow face's corners lie on the wide face's edges, on no crossing of edges (those end at them) and not
// strictly inside it. They are its four contact points; there were none, and a gripped box fell out of the fingers.
TEST(BoxBox, ANarrowFaceFlushWithAWideOneGivesItsCorners) {
  for (const double size : {0.01, 1.0, 100.0}) {
    SCOPED_TRACE(size);
    const Vec3 finger = size * Vec3(0.1, 0.5, 0.2), box = size * kHalf;
    const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), finger, size * Vec3(0.599, 0, 0), Quat::Identity(), box);
    ASSERT_EQ(pts.size(), 4u);
    for (const auto& p : pts) {
      EXPECT_TRUE(p.normal.isApprox(Vec3(1, 0, 0), 1e-12));
      EXPECT_NEAR(p.depth, 0.001 * size, 1e-9 * size);
      EXPECT_NEAR(std::abs(p.position.y()), 0.5 * size, 1e-9 * size);
      EXPECT_NEAR(std::abs(p.position.z()), 0.2 * size, 1e-9 * size);
    }
  }
}

// The same finger half a millimetre from its box, the box's face turned about 0.1 degree from the finger's (as a
// squeeze at 1/30 s left them): still the finger face's four points, apart by about the gap, normal along x. Along
// the crossing of a finger edge with a box edge the two were a little further apart than along the face's normal,
// and that edge axis gave one point: the box, held on one side only, spun out of the grip.
TEST(BoxBox, NearlyParallelFacesApartGiveTheFacesPoints) {
  for (const double size : {0.049, 1.0}) {
    SCOPED_TRACE(size);
    const double half = size / 2;
    const Vec3 finger(0.25 * half, half, 0.5 * half), box(half, half, half);
    const Quat turned = Quat(Eigen::AngleAxisd(-2.1e-3, Vec3::UnitX())) *
                        Quat(Eigen::AngleAxisd(5.3e-4, Vec3::UnitY())) * Quat(Eigen::AngleAxisd(1.2e-3, Vec3::UnitZ()));
    const double gap = 0.00047 * size / 0.049;
    const Vec3 at(-(1.25 * half + gap), 0.0034 * half, -0.026 * half);
    const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), finger, at, turned, box, 0.2 * size);
    ASSERT_EQ(pts.size(), 4u);
    for (const auto& p : pts) {
      EXPECT_GT(std::abs(p.normal.x()), 0.9999);
      EXPECT_LT(p.depth, 0.0);
      EXPECT_GT(p.depth, -3 * gap);
    }
  }
}

// A box turned 45 degrees about the normal on another: an octagon, 8 crossing points, no corners.
TEST(BoxBox, TwistedFaceGivesOctagon) {
  const Quat q(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitY()));
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0, 0.99, 0), q, kHalf);
  ASSERT_EQ(pts.size(), 8u);
  for (const auto& p : pts) EXPECT_NEAR(p.depth, 0.01, 1e-9);
}

// Edge-edge: two boxes each balanced on an edge, crossed at right angles: one point at the middle.
TEST(BoxBox, CrossedEdgesGiveOnePoint) {
  const Quat qa(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitZ()));  // edge along z on top
  const Quat qb(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitX()));  // edge along x at the bottom
  const double reach = 0.5 * std::sqrt(2.0);
  const auto pts = collide(Vec3(0, 0, 0), qa, kHalf, Vec3(0, 2 * reach - 0.01, 0), qb, kHalf);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_TRUE(pts[0].normal.isApprox(Vec3(0, 1, 0), 1e-9));
  EXPECT_NEAR(pts[0].depth, 0.01, 1e-9);
  EXPECT_TRUE(pts[0].position.isApprox(Vec3(0, reach - 0.005, 0), 1e-9));
}

// Corner: a box standing on its corner above a face gives that single corner.
TEST(BoxBox, CornerOnFace) {
  // Rotate so that the body diagonal (1,1,1) points down: corner (-,-,-)... use a quaternion taking -y to it.
  const Quat q = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3(0, -1, 0));
  const double reach = kHalf.norm();
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), Vec3(2, 0.5, 2), Vec3(0, 0.5 + reach - 0.02, 0), q, kHalf);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.02, 1e-9);
  EXPECT_TRUE(pts[0].normal.isApprox(Vec3(0, 1, 0), 1e-9));
}

TEST(BoxBox, SeparatedBoxesGiveNothingButMarginGivesSpeculativePoints) {
  EXPECT_TRUE(collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0, 1.02, 0), Quat::Identity(), kHalf).empty());
  const auto pts = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0, 1.005, 0), Quat::Identity(), kHalf, 0.01);
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) EXPECT_NEAR(p.depth, -0.005, 1e-12);
}

// Feature ids do not change under small motion, so warm starting finds the same contacts.
TEST(BoxBox, FeaturesPersistUnderSmallMotion) {
  auto features = [](const std::vector<ContactPointOut>& pts) {
    std::set<uint32_t> f;
    for (const auto& p : pts) f.insert(p.feature);
    return f;
  };
  const auto a = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0.2, 0.99, 0.1), Quat::Identity(), kHalf);
  const Quat small(Eigen::AngleAxisd(1e-3, Vec3::UnitY()));
  const auto b = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0.201, 0.992, 0.1), small, kHalf);
  EXPECT_EQ(features(a), features(b));
}

// Swapping the boxes flips the normals and keeps the points.
TEST(BoxBox, SymmetricUnderSwap) {
  const Quat q(Eigen::AngleAxisd(0.3, Vec3(0.2, 1, 0.1).normalized()));
  const auto ab = collide(Vec3(0, 0, 0), Quat::Identity(), kHalf, Vec3(0.1, 0.95, 0.05), q, kHalf);
  const auto ba = collide(Vec3(0.1, 0.95, 0.05), q, kHalf, Vec3(0, 0, 0), Quat::Identity(), kHalf);
  ASSERT_EQ(ab.size(), ba.size());
  ASSERT_FALSE(ab.empty());
  for (const auto& p : ab) {
    bool found = false;
    for (const auto& r : ba)
      if ((r.position - p.position).norm() < 1e-9 && (r.normal + p.normal).norm() < 1e-9) found = true;
    EXPECT_TRUE(found);
  }
}

}  // namespace cl
