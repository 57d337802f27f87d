// The load each body carries in a stack (graph/stack_loads.h): the mass at or above its height in its group.
#include "graph/stack_loads.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cl {

namespace {
Body body_of(BodyKind kind, double mass, const Vec3& position) {
  Body b;
  b.kind = kind;
  b.shape.type = ShapeType::Box;
  b.shape.half_extents = Vec3(0.5, 0.5, 0.5);
  b.set_mass_properties(kind == BodyKind::Dynamic ? mass : 0.0, 0);  // a 1 m box: density = mass
  b.position = position;
  return b;
}

ContactGraph loads_graph(const std::vector<Body>& bodies, std::vector<BodyPair> pairs) {
  ContactGraph g;
  g.update_edges(pairs);
  ContactList contacts;
  for (const BodyPair& p : pairs) {
    Contact c;
    c.a = p.a;
    c.b = p.b;
    contacts.push_back(c);
  }
  g.attach_contacts(contacts);
  g.find_groups(bodies, {});
  g.find_layers(bodies);
  return g;
}
}  // namespace

// A column of 1, 2 and 3 kg on the floor: each carries itself and what is above it; the floor carries anything.
TEST(StackLoads, AColumnCarriesWhatIsAbove) {
  const std::vector<Body> bodies = {body_of(BodyKind::Fixed, 0, Vec3(0, 0, 0)),
                                    body_of(BodyKind::Dynamic, 1, Vec3(0, 0.5, 0)),
                                    body_of(BodyKind::Dynamic, 2, Vec3(0, 1.5, 0)),
                                    body_of(BodyKind::Dynamic, 3, Vec3(0, 2.5, 0))};
  std::vector<double> load;
  std::vector<Vec3> centre;
  stack_loads(loads_graph(bodies, {{0, 1}, {1, 2}, {2, 3}}), bodies, load, &centre);
  ASSERT_EQ(load.size(), 4u);
  EXPECT_TRUE(std::isinf(load[0]));
  EXPECT_DOUBLE_EQ(load[1], 6.0);
  EXPECT_DOUBLE_EQ(load[2], 5.0);
  EXPECT_DOUBLE_EQ(load[3], 3.0);
  EXPECT_NEAR(centre[1].y(), (1 * 0.5 + 2 * 1.5 + 3 * 2.5) / 6.0, 1e-12);
  EXPECT_NEAR(centre[2].y(), (2 * 1.5 + 3 * 2.5) / 5.0, 1e-12);
}

// A pyramid of three rows of 1 kg boxes (3, 2, 1) on the floor: each row carries the 6, 3 and 1 kg at or above it,
// and shares it among its boxes, 2, 1.5 and 1 kg each; a column's share is its load.
TEST(StackLoads, ARowSharesWhatIsAbove) {
  std::vector<Body> bodies = {body_of(BodyKind::Fixed, 0, Vec3(0, 0, 0))};
  std::vector<BodyPair> pairs;
  for (int row = 0, first = 1; row < 3; first += 3 - row, ++row)
    for (int k = 0; k < 3 - row; ++k) {
      const int index = int(bodies.size());
      bodies.push_back(body_of(BodyKind::Dynamic, 1, Vec3(k + 0.5 * row, 0.5 + row, 0)));
      if (row == 0) pairs.push_back({0, index});
      else {  // on boxes k and k + 1 of the row below
        const int below = first - (4 - row) + k;
        pairs.push_back({below, index});
        pairs.push_back({below + 1, index});
      }
    }
  std::vector<double> load, share;
  stack_loads(loads_graph(bodies, pairs), bodies, load, nullptr, &share, Vec3::UnitY());
  ASSERT_EQ(share.size(), 7u);
  EXPECT_TRUE(std::isinf(share[0]));
  for (int i = 1; i <= 3; ++i) {
    EXPECT_DOUBLE_EQ(load[size_t(i)], 6.0);
    EXPECT_DOUBLE_EQ(share[size_t(i)], 2.0);
  }
  for (int i = 4; i <= 5; ++i) {
    EXPECT_DOUBLE_EQ(load[size_t(i)], 3.0);
    EXPECT_DOUBLE_EQ(share[size_t(i)], 1.5);
  }
  EXPECT_DOUBLE_EQ(share[6], 1.0);

  const std::vector<Body> column = {body_of(BodyKind::Fixed, 0, Vec3(0, 0, 0)),
                                    body_of(BodyKind::Dynamic, 1, Vec3(0, 0.5, 0)),
                                    body_of(BodyKind::Dynamic, 2, Vec3(0, 1.5, 0))};
  stack_loads(loads_graph(column, {{0, 1}, {1, 2}}), column, load, nullptr, &share, Vec3::UnitY());
  EXPECT_DOUBLE_EQ(share[1], load[1]);
  EXPECT_DOUBLE_EQ(share[2], load[2]);

  // Without gravity nothing is shared.
  stack_loads(loads_graph(bodies, pairs), bodies, load, nullptr, &share);
  EXPECT_DOUBLE_EQ(share[1], 6.0);
}

// A column of three 1 kg boxes that a wall (fixed) touches at every height: all three are at height 1, but stacked,
// not side by side; each is given what is at or above its height, as without sharing.
TEST(StackLoads, AColumnAgainstAWallSharesNothing) {
  const std::vector<Body> bodies = {body_of(BodyKind::Fixed, 0, Vec3(0, -0.5, 0)),
                                    body_of(BodyKind::Fixed, 0, Vec3(-1, 1.5, 0)),
                                    body_of(BodyKind::Dynamic, 1, Vec3(0, 0.5, 0)),
                                    body_of(BodyKind::Dynamic, 1, Vec3(0, 1.5, 0)),
                                    body_of(BodyKind::Dynamic, 1, Vec3(0, 2.5, 0))};
  const ContactGraph graph = loads_graph(bodies, {{0, 2}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {3, 4}});
  ASSERT_EQ(graph.height_of_body()[2], graph.height_of_body()[4]);
  std::vector<double> load, share;
  stack_loads(graph, bodies, load, nullptr, &share, Vec3::UnitY());
  for (int i = 2; i <= 4; ++i) {
    EXPECT_DOUBLE_EQ(load[size_t(i)], 3.0);
    EXPECT_DOUBLE_EQ(share[size_t(i)], 3.0);
  }
}

// Bodies touching only each other (a floating group) carry nothing in a stack.
TEST(StackLoads, AFloatingGroupCarriesNothing) {
  const std::vector<Body> bodies = {body_of(BodyKind::Dynamic, 1, Vec3(0, 5, 0)),
                                    body_of(BodyKind::Dynamic, 2, Vec3(0, 6, 0))};
  std::vector<double> load;
  stack_loads(loads_graph(bodies, {{0, 1}}), bodies, load);
  EXPECT_EQ(load, (std::vector<double>{0.0, 0.0}));
}

}  // namespace cl
