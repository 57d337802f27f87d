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

// Bodies touching only each other (a floating group) carry nothing in a stack.
TEST(StackLoads, AFloatingGroupCarriesNothing) {
  const std::vector<Body> bodies = {body_of(BodyKind::Dynamic, 1, Vec3(0, 5, 0)),
                                    body_of(BodyKind::Dynamic, 2, Vec3(0, 6, 0))};
  std::vector<double> load;
  stack_loads(loads_graph(bodies, {{0, 1}}), bodies, load);
  EXPECT_EQ(load, (std::vector<double>{0.0, 0.0}));
}

}  // namespace cl
