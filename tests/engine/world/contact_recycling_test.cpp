#include "world/contact_recycling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "collision/narrowphase.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {

namespace {

using test::box;
using test::make_body;

constexpr double kMargin = 0.01;

// An edge whose cache holds the bodies' poses now, as the narrow phase leaves it.
GraphEdge cached_edge(const std::vector<Body>& bodies) {
  GraphEdge e;
  e.a = 0;
  e.b = 1;
  ContactGraph::remember_placement(e, bodies);
  return e;
}

ContactList fresh(const std::vector<Body>& bodies) {
  ContactList out;
  collide(bodies, 0, 1, kMargin, out);
  return out;
}

double deepest(const ContactList& contacts) {
  double d = -1e300;
  for (const Contact& c : contacts) d = std::max(d, c.depth);
  return d;
}

Quat random_turn(std::mt19937& rng, double angle) {
  std::normal_distribution<double> g;
  return Quat(Eigen::AngleAxisd(angle, Vec3(g(rng), g(rng), g(rng)).normalized()));
}

// Moves body b by a random rigid motion and scales it back until the pair's relative motion is `motion`.
void move_by(std::vector<Body>& bodies, const std::vector<Body>& start, const GraphEdge& e, std::mt19937& rng,
             double motion) {
  std::normal_distribution<double> g;
  const Vec3 dx(g(rng), g(rng), g(rng));
  const Quat turn = random_turn(rng, 1.0);
  const Eigen::AngleAxisd axis(turn);
  auto place = [&](double s) {
    bodies[1].position = start[1].position + s * dx;
    bodies[1].orientation = (Quat(Eigen::AngleAxisd(s * axis.angle(), axis.axis())) * start[1].orientation).normalized();
    return relative_motion(e, bodies);
  };
  double lo = 0.0, hi = 1.0;
  while (place(hi) < motion) hi *= 2.0;
  for (int it = 0; it < 60; ++it) (place(0.5 * (lo + hi)) < motion ? lo : hi) = 0.5 * (lo + hi);
  place(lo);
}

}  // namespace

// The bound covers every point of the moved body: the corners of a box, carried by its motion relative to the
// other, move no further than relative_motion says, and it is exactly 0 at the cached poses.
TEST(ContactRecycling, RelativeMotionBoundsEveryPoint) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Body> bodies = {make_body(box(Vec3(0.5, 0.3, 0.4)), Vec3(u(rng), u(rng), u(rng)), random_turn(rng, 3 * u(rng)), 1000),
                                make_body(box(Vec3(0.2, 0.1, 0.25)), Vec3(u(rng), u(rng), u(rng)), random_turn(rng, 3 * u(rng)), 1000)};
    const GraphEdge e = cached_edge(bodies);
    EXPECT_EQ(relative_motion(e, bodies), 0.0);
    const std::vector<Body> start = bodies;
    bodies[0].position += 0.01 * Vec3(u(rng), u(rng), u(rng));
    bodies[0].orientation = (random_turn(rng, 0.02 * u(rng)) * bodies[0].orientation).normalized();
    bodies[1].position += 0.01 * Vec3(u(rng), u(rng), u(rng));
    bodies[1].orientation = (random_turn(rng, 0.02 * u(rng)) * bodies[1].orientation).normalized();
    const double bound = relative_motion(e, bodies);
    double most = 0.0;
    for (int c = 0; c < 8; ++c) {
      const Vec3& h = start[1].shape.half_extents;
      const Vec3 local((c & 1) ? h.x() : -h.x(), (c & 2) ? h.y() : -h.y(), (c & 4) ? h.z() : -h.z());
      // The corner in a's frame, then and now.
      const Vec3 then = start[0].rotation().transpose() * (start[1].position + start[1].rotation() * local - start[0].position);
      const Vec3 now = bodies[0].rotation().transpose() * (bodies[1].position + bodies[1].rotation() * local - bodies[0].position);
      most = std::max(most, (now - then).norm());
    }
    EXPECT_LE(most, bound + 1e-12) << "trial " << trial;
    EXPECT_GT(most, 0.3 * bound) << "trial " << trial;  // and is not a loose bound
  }
}

// Re-projected at the poses they were computed at, the contacts are the narrow phase's.
TEST(ContactRecycling, UnmovedContactsAreTheNarrowPhases) {
  std::vector<Body> bodies = {make_body(box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0, 0), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized())), 1000),
                              make_body(box(Vec3(0.5, 0.5, 0.5)), Vec3(0.3, 0.995, 0.1), Quat::Identity(), 1000)};
  bodies[1].position = bodies[0].position + bodies[0].rotation() * Vec3(0.3, 0.995, 0.1);
  bodies[1].orientation = bodies[0].orientation;
  ContactList contacts = fresh(bodies);
  ASSERT_EQ(contacts.size(), 4u);
  std::vector<ContactAnchor> anchors(contacts.size());
  anchor_contacts(bodies[0], bodies[1], contacts.data(), contacts.data() + contacts.size(), anchors.data());
  const ContactList before = contacts;
  recycle_contacts(bodies[0], bodies[1], anchors.data(), contacts.data(), contacts.data() + contacts.size());
  for (size_t k = 0; k < contacts.size(); ++k) {
    EXPECT_NEAR((contacts[k].position - before[k].position).norm(), 0.0, 1e-14);
    EXPECT_NEAR((contacts[k].normal - before[k].normal).norm(), 0.0, 1e-14);
    EXPECT_NEAR(contacts[k].depth, before[k].depth, 1e-14);
  }
}

// Recycling never changes a result by more than its threshold: a pair moved by up to the recycle distance, at any
// size from 2 cm to 4 m, has recycled contacts whose deepest is within that distance of the narrow phase's deepest
// at the new poses, and each recycled contact is within it of the depth it had; the re-projected depths follow the
// narrow phase's far more closely than the depths left as they were. Box on box (equal, as in a pyramid,
// and unequal), box on the ground.
TEST(ContactRecycling, NeverChangesADepthBeyondTheThreshold) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double size : {0.02, 0.3, 1.0, 4.0}) {
    for (int kind = 0; kind < 3; ++kind) {
      double recycled_error = 0.0, stale_error = 0.0;  // summed over the trials
      for (int trial = 0; trial < 60; ++trial) {
        const double half = 0.5 * size;
        Body a = kind == 2 ? make_body(test::plane_shape(), Vec3::Zero(), Quat::Identity(), 0, BodyKind::Fixed)
                           : make_body(box(Vec3(half, half, half)), Vec3::Zero(), random_turn(rng, 0.5 * u(rng)), 1000);
        Shape sb = kind == 1 ? box(Vec3(0.6 * half, 0.4 * half, 0.8 * half))
                               : box(Vec3(half, half, half));
        // b on top of a, its lowest point 1 % of the size deep (a slight twist and offset, as a stack has).
        const Quat qb = (random_turn(rng, 0.02 * u(rng)) * a.orientation).normalized();
        const Vec3 up = a.rotation().col(1);
        Body b = make_body(sb, Vec3::Zero(), qb, 1000);
        const Aabb box_b = shape_aabb(sb, Vec3::Zero(), Quat(a.orientation.conjugate() * qb));
        const double top = kind == 2 ? 0.0 : half;
        const Vec3 side = a.rotation().col(0) * (0.2 * half * (u(rng) - 0.5));
        b.position = a.position + up * (top - box_b.lo.y() - 0.01 * half) + side;
        std::vector<Body> bodies = {a, b};
        ContactList contacts = fresh(bodies);
        ASSERT_FALSE(contacts.empty()) << size << " " << kind;
        const GraphEdge e = cached_edge(bodies);
        std::vector<ContactAnchor> anchors(contacts.size());
        anchor_contacts(bodies[0], bodies[1], contacts.data(), contacts.data() + contacts.size(), anchors.data());
        const ContactList before = contacts;
        const double threshold = recycle_limit(0.0005, bodies[0], bodies[1]);
        const std::vector<Body> start = bodies;
        move_by(bodies, start, e, rng, threshold * u(rng));
        ASSERT_LE(relative_motion(e, bodies), threshold);
        recycle_contacts(bodies[0], bodies[1], anchors.data(), contacts.data(), contacts.data() + contacts.size());
        for (size_t k = 0; k < contacts.size(); ++k)
          EXPECT_LE(std::abs(contacts[k].depth - before[k].depth), threshold) << size << " " << kind;
        const double now = deepest(fresh(bodies));
        EXPECT_LE(std::abs(deepest(contacts) - now), threshold)
            << "size " << size << " kind " << kind << " trial " << trial;
        recycled_error += std::abs(deepest(contacts) - now);
        stale_error += std::abs(deepest(before) - now);
      }
      // Re-projection follows the narrow phase: its deepest depth is 50 times closer to it than the stale one
      // (measured: 0.3 % for equal boxes, 1e-5 and less for the others).
      EXPECT_LT(recycled_error, 0.02 * stale_error) << "size " << size << " kind " << kind;
    }
  }
}

// The limit: the parameter, at most a tenth of the thinner body's half thickness, and only for boxes and planes.
TEST(ContactRecycling, LimitFollowsTheThinnerBody) {
  const Body big = make_body(box(Vec3(1, 1, 1)), Vec3::Zero(), Quat::Identity(), 1000);
  const Body sheet = make_body(box(Vec3(1, 0.001, 1)), Vec3::Zero(), Quat::Identity(), 1000);
  const Body ground = make_body(test::plane_shape(), Vec3::Zero(), Quat::Identity(), 0, BodyKind::Fixed);
  EXPECT_EQ(recycle_limit(0.0005, big, ground), 0.0005);
  EXPECT_NEAR(recycle_limit(0.0005, sheet, ground), 0.0001, 1e-15);
  EXPECT_EQ(recycle_limit(0.0, big, ground), 0.0);
  const Body ball = make_body(test::sphere(0.5), Vec3::Zero(), Quat::Identity(), 1000);
  EXPECT_EQ(recycle_limit(0.0005, ball, ground), 0.0);
  EXPECT_EQ(recycle_limit(0.0005, big, ball), 0.0);
}

// In a world: a 3-row pyramid of 1 m boxes set down with zero gaps (as scenes/pyramid20.json) ends where it ends
// without recycling to within the recycle distance, with as many contacts; a box sliding over the ground (5 cm a
// step or more, far beyond it) is collided every step, bit for bit as without.
TEST(ContactRecycling, WorldResultsStayWithinTheThreshold) {
  auto pyramid = [](double recycle) {
    World w;
    test::add_material(w, 0.6, 0.0);
    test::add_plane(w);
    for (int row = 0; row < 3; ++row)
      for (int i = 0; i < 3 - row; ++i)
        test::add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(i - 1.0 + 0.5 * row, 0.5 + row, 0.0));
    EXPECT_TRUE(w.solver().params().set("recycle_distance", recycle, nullptr));
    EXPECT_TRUE(w.solver().params().set("sleeping", 0, nullptr));
    for (int s = 0; s < 120; ++s) EXPECT_TRUE(w.step().ok);
    return w;
  };
  const World off = pyramid(0.0), on = pyramid(0.0005);
  EXPECT_EQ(on.contacts().size(), off.contacts().size());
  for (size_t i = 0; i < on.bodies.size(); ++i) EXPECT_LE((on.bodies[i].position - off.bodies[i].position).norm(), 0.0005);

  auto slide = [](double recycle) {
    World w;
    const int m = test::add_material(w, 0.3, 0.0);
    test::add_plane(w, Vec3(0, 1, 0), 0.0, m);
    const int b = test::add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5, 0), 1000.0, Quat::Identity(), m);
    w.bodies[size_t(b)].linear_velocity = Vec3(6.0, 0, 0);  // 0.1 m a step at first, 5 cm after 1.5 s
    EXPECT_TRUE(w.solver().params().set("recycle_distance", recycle, nullptr));
    for (int s = 0; s < 90; ++s) EXPECT_TRUE(w.step().ok);
    EXPECT_GT(w.bodies[size_t(b)].linear_velocity.x(), 1.0);
    return w.bodies[size_t(b)];
  };
  const Body x = slide(0.0), y = slide(0.0005);
  EXPECT_EQ(x.position, y.position);
  EXPECT_EQ(x.linear_velocity, y.linear_velocity);
  EXPECT_GT(x.position.x(), 3.0);
}

// In a world the anchors kept beside the contact list stay with their contacts: two boxes stacked on the ground,
// frictionless, drifting and turning by less than the recycle distance a step, have every step each contact within
// that distance of the narrow phase's contact of the same features at the poses the step found its contacts at
// (an anchor of another contact, of this pair or the other, would put it a corner away), and on some steps not the
// narrow phase's bit for bit (recycled, not collided again).
TEST(ContactRecycling, WorldKeepsEachAnchorWithItsContact) {
  World w;
  const int m = test::add_material(w, 0.0, 0.0);
  test::add_plane(w, Vec3(0, 1, 0), 0.0, m);
  const int low = test::add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5, 0), 1000.0, Quat::Identity(), m);
  const int high = test::add_body(w, box(Vec3(0.3, 0.3, 0.3)), Vec3(0.1, 1.3, 0.05), 1000.0, Quat::Identity(), m);
  for (int b : {low, high}) w.bodies[size_t(b)].linear_velocity = Vec3(0.006, 0, 0.003);  // 0.1 mm a step
  w.bodies[size_t(low)].angular_velocity = Vec3(0, 0.02, 0);  // its corners 0.24 mm a step
  ASSERT_TRUE(w.solver().params().set("recycle_distance", 0.0005, nullptr));
  ASSERT_TRUE(w.solver().params().set("sleeping", 0, nullptr));
  int recycled_steps = 0;
  for (int s = 0; s < 60; ++s) {
    const std::vector<Body> poses = w.bodies;  // where the step finds its contacts
    ASSERT_TRUE(w.step().ok);
    ASSERT_FALSE(w.contacts().empty());
    bool recycled = false;
    for (const Contact& c : w.contacts()) {
      ContactList now;
      collide(poses, c.a, c.b, w.settings.contact_margin, now);
      const auto same = std::find_if(now.begin(), now.end(), [&](const Contact& x) { return x.feature == c.feature; });
      ASSERT_NE(same, now.end()) << "step " << s << " pair " << c.a << " " << c.b;
      EXPECT_LE((c.position - same->position).norm(), 0.0005) << "step " << s << " pair " << c.a << " " << c.b;
      EXPECT_LE(std::abs(c.depth - same->depth), 0.0005) << "step " << s << " pair " << c.a << " " << c.b;
      recycled = recycled || c.position != same->position || c.depth != same->depth;
    }
    recycled_steps += recycled ? 1 : 0;
  }
  EXPECT_GT(recycled_steps, 10);
}

}  // namespace cl
