// The shared narrow phase (collision/narrowphase.h): contact points of primitive pairs.
#include "collision/narrowphase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "support/builders.h"

namespace cl {

using namespace cl::test;

namespace {
// m: the depth of a capsule in a box, r less the least distance of its segment from the box, sampled along the
// segment every 0.05 mm (the distance is 1-Lipschitz along it, so the sample is within that of the least).
double capsule_depth_in_box(const Body& capsule_body, const Body& box_body) {
  const Vec3 axis = capsule_body.rotation().col(1);
  const Mat3 r = box_body.rotation();
  const double hh = capsule_body.shape.half_height;
  double least = 1e300;
  for (double t = -hh; t <= hh + 1e-12; t += 5e-5) {
    const Vec3 p = capsule_body.position + t * axis;
    least = std::min(least, box_signed_distance(box_body.shape.half_extents, r.transpose() * (p - box_body.position),
                                                nullptr));
  }
  return capsule_body.shape.radius - least;
}
}  // namespace

// A capsule lying across the top edge of a box, one end by its side face (scenes/default.json, a capsule on a
// pyramid's box, step 112): the deepest point of its segment, over the top face, lies 6 cm from the end's contact
// and 12 cm deeper. The contacts must hold it; the end's point, kept first, dropped it.
TEST(NarrowPhase, CapsuleAcrossABoxEdgeKeepsItsDeepestPoint) {
  std::vector<Body> bodies;
  bodies.push_back(make_body(box(Vec3(0.5, 0.5, 0.5)), Vec3(1.052832, 3.499712, 0.022529),
                             Quat(0.99988356, -0.00001158, 0.01526020, 0.00002116).normalized(), 1000.0));
  bodies.push_back(make_body(capsule(0.25, 0.5), Vec3(1.572723, 4.178520, -0.237370),
                             Quat(0.70417608, 0.57831390, 0.33174435, 0.24420231).normalized(), 1000.0));
  ContactList found;
  collide(bodies, 0, 1, 0.01, found);
  double deepest = -1e300;
  for (const Contact& c : found) deepest = std::max(deepest, c.depth);
  const double exact = capsule_depth_in_box(bodies[1], bodies[0]);
  EXPECT_GT(exact, 0.12);
  EXPECT_NEAR(deepest, exact, 1e-4);
}

// Capsules of 2 cm to 1 m against boxes, at random poses that overlap: the deepest contact is the capsule's depth.
TEST(NarrowPhase, BoxCapsuleDeepestContactIsTheCapsulesDepth) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int overlapping = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const double size = trial % 2 ? 0.02 : 1.0;
    std::vector<Body> bodies;
    const Quat qa = Quat(unit(rng), unit(rng), unit(rng), unit(rng)).normalized();
    const Quat qb = Quat(unit(rng), unit(rng), unit(rng), unit(rng)).normalized();
    bodies.push_back(make_body(box(size * Vec3(0.5, 0.3, 0.4)), Vec3::Zero(), qa, 1000.0));
    bodies.push_back(make_body(capsule(0.25 * size, 0.5 * size), size * Vec3(unit(rng), unit(rng), unit(rng)), qb,
                               1000.0));
    const double exact = capsule_depth_in_box(bodies[1], bodies[0]);
    // Overlapping, and the segment outside the box (its depth then r less a distance, not a penetration depth).
    if (exact <= 0.0 || exact >= bodies[1].shape.radius) continue;
    ++overlapping;
    ContactList found;
    collide(bodies, 0, 1, 0.0, found);
    double deepest = -1e300;
    for (const Contact& c : found) deepest = std::max(deepest, c.depth);
    EXPECT_NEAR(deepest, exact, 1e-4 * size + 1e-9) << "trial " << trial;
  }
  EXPECT_GT(overlapping, 50);
}

}  // namespace cl
