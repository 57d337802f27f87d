// The contact graph on hand-built configurations: edges and events, groups insulated by fixed bodies,
// stack heights and layers (thesis sect. 6.4.2), floating groups and cycles.
#include "graph/contact_graph.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cl {

namespace {
// Bodies 0.. with the given kinds; positions do not matter for the graph.
std::vector<Body> bodies_of(const std::string& kinds) {
  std::vector<Body> out(kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    out[i].name = std::string(1, kinds[i]) + std::to_string(i);
    out[i].kind = kinds[i] == 'F' ? BodyKind::Fixed : kinds[i] == 'K' ? BodyKind::Kinematic : BodyKind::Dynamic;
    out[i].shape.type = ShapeType::Box;
    out[i].set_mass_properties(1000, 0);
  }
  return out;
}

// One contact per listed pair (a < b), sorted like the world's contact list.
ContactList contacts_of(std::vector<BodyPair> pairs) {
  std::sort(pairs.begin(), pairs.end());
  ContactList out;
  for (const BodyPair& p : pairs) {
    Contact c;
    c.a = p.a;
    c.b = p.b;
    out.push_back(c);
  }
  return out;
}

ContactGraph graph_of(const std::vector<Body>& bodies, std::vector<BodyPair> pairs, std::vector<BodyPair> links = {}) {
  std::sort(pairs.begin(), pairs.end());
  ContactGraph g;
  g.update_edges(pairs);
  g.attach_contacts(contacts_of(pairs));
  g.find_groups(bodies, links);
  g.find_layers(bodies);
  return g;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

const GraphEdge& edge(const ContactGraph& g, int a, int b) {
  for (const GraphEdge& e : g.edges())
    if (e.a == a && e.b == b) return e;
  throw std::runtime_error("no edge");
}
}  // namespace

// A column on the floor: heights 1, 2, 3; layer i has bottom {height i} and top {height i+1}.
TEST(ContactGraph, ColumnHeightsAndLayers) {
  const auto bodies = bodies_of("FDDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {1, 2}, {2, 3}});
  ASSERT_EQ(g.groups().size(), 1u);
  EXPECT_FALSE(g.groups()[0].floating);
  EXPECT_EQ(g.height_of_body(), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(g.groups()[0].layer_count, 3);
  const auto& layers = g.layers(0);
  EXPECT_TRUE(layers[0].bottom.empty());  // the floor is fixed already
  EXPECT_EQ(layers[0].top, (std::vector<int>{1}));
  EXPECT_EQ(layers[1].bottom, (std::vector<int>{1}));
  EXPECT_EQ(layers[1].top, (std::vector<int>{2}));
  EXPECT_EQ(layers[2].bottom, (std::vector<int>{2}));
  EXPECT_EQ(layers[2].top, (std::vector<int>{3}));
  EXPECT_EQ(edge(g, 0, 1).layer, 0);
  EXPECT_EQ(edge(g, 2, 3).layer, 2);
}

// Digest 8.3: an edge between two bodies of equal height i+1 belongs to layer i.
TEST(ContactGraph, EqualHeightEdgeGoesToTheLayerBelow) {
  // Floor 0; boxes 1 and 2 side by side on it, touching; box 3 on both.
  const auto bodies = bodies_of("FDDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}});
  EXPECT_EQ(g.height_of_body(), (std::vector<int>{0, 1, 1, 2}));
  EXPECT_EQ(edge(g, 1, 2).layer, 0);
  EXPECT_EQ(edge(g, 1, 3).layer, 1);
  EXPECT_EQ(sorted(g.layers(0)[0].top), (std::vector<int>{1, 2}));
  EXPECT_EQ(sorted(g.layers(0)[1].bottom), (std::vector<int>{1, 2}));
}

// Height is the fewest edges to a fixed body, not "up" (thesis fig. 6.49): a ring of bodies closing back
// onto the floor (a cycle) gets heights from both ends.
TEST(ContactGraph, CycleTakesTheShortestWayDown) {
  // Floor 0; chain 1-2-3-4-5 with 1 and 5 on the floor: heights 1 2 3 2 1.
  const auto bodies = bodies_of("FDDDDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 5}});
  EXPECT_EQ(g.height_of_body(), (std::vector<int>{0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(g.groups()[0].layer_count, 3);
  EXPECT_EQ(edge(g, 2, 3).layer, 2);
  EXPECT_EQ(edge(g, 3, 4).layer, 2);
}

// Bodies touching no fixed body float: no heights, no layers.
TEST(ContactGraph, FloatingGroupHasNoLayers) {
  const auto bodies = bodies_of("FDDDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {2, 3}, {3, 4}});
  ASSERT_EQ(g.groups().size(), 2u);
  const int floating = g.group_of_body()[2];
  EXPECT_TRUE(g.groups()[floating].floating);
  EXPECT_EQ(g.groups()[floating].layer_count, 0);
  EXPECT_EQ(g.height_of_body()[3], ContactGraph::kUnreached);
  EXPECT_EQ(edge(g, 2, 3).layer, -1);
  EXPECT_FALSE(g.groups()[g.group_of_body()[1]].floating);
}

// Fixed and kinematic bodies insulate: two stacks on one floor, or on one pusher, are two groups.
TEST(ContactGraph, FixedAndKinematicBodiesInsulateGroups) {
  const auto bodies = bodies_of("FDDKD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {0, 2}, {2, 3}, {3, 4}});
  EXPECT_EQ(g.groups().size(), 3u);
  EXPECT_NE(g.group_of_body()[1], g.group_of_body()[2]);
  EXPECT_NE(g.group_of_body()[2], g.group_of_body()[4]);
  EXPECT_EQ(g.group_of_body()[0], -1);
  EXPECT_EQ(g.group_of_body()[3], -1);
  EXPECT_EQ(g.height_of_body()[4], 1);  // a kinematic body supports like a fixed one
}

// Joints link bodies into one group even without contact.
TEST(ContactGraph, JointLinksJoinGroups) {
  const auto bodies = bodies_of("FDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}}, {{1, 2}});
  ASSERT_EQ(g.groups().size(), 1u);
  EXPECT_EQ(g.groups()[0].bodies, (std::vector<int>{1, 2}));
}

// Events: new, persistent and vanishing proximity and touching; an edge missing two steps is removed.
TEST(ContactGraph, EdgeEventsAndObsoleteEdges) {
  ContactGraph g;
  g.update_edges({{0, 1}, {1, 2}});
  g.attach_contacts(contacts_of({{0, 1}}));
  ASSERT_EQ(g.edges().size(), 2u);
  EXPECT_EQ(g.edges()[0].events, kNewProximity | kNewTouching);
  EXPECT_EQ(g.edges()[1].events, kNewProximity);

  g.update_edges({{0, 1}, {1, 2}});
  g.attach_contacts(contacts_of({{1, 2}}));
  EXPECT_EQ(g.edges()[0].events, kPersistentProximity | kVanishedTouching);
  EXPECT_EQ(g.edges()[1].events, kPersistentProximity | kNewTouching);

  g.update_edges({{0, 1}});
  g.attach_contacts(contacts_of({{0, 1}}));
  ASSERT_EQ(g.edges().size(), 2u);  // kept one step as vanishing
  EXPECT_EQ(g.edges()[1].events, kVanishedProximity | kVanishedTouching);
  EXPECT_FALSE(g.edges()[1].touching());

  g.update_edges({{0, 1}});
  g.attach_contacts(contacts_of({{0, 1}}));
  ASSERT_EQ(g.edges().size(), 1u);  // obsolete now
  EXPECT_EQ(g.edges()[0].events, kPersistentProximity | kPersistentTouching);
}

// A list left as it was (every touching pair keeps its contacts in place): keep_contacts finds what
// attach_contacts's walk finds in it, ranges and events, beside new, untouching and vanishing edges.
TEST(ContactGraph, KeptContactsAsAttachFindsThem) {
  ContactList list;
  for (const BodyPair& p : std::vector<BodyPair>{{0, 1}, {0, 1}, {0, 3}, {1, 2}, {1, 2}, {1, 2}, {2, 4}}) {
    Contact c;
    c.a = p.a;
    c.b = p.b;
    list.push_back(c);
  }
  ContactGraph walked;
  walked.update_edges({{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 4}, {3, 4}});
  walked.attach_contacts(list);
  // The next step: {0, 2} vanishes, {1, 3} and {4, 5} are new, none of them touching; the list stays.
  walked.update_edges({{0, 1}, {0, 3}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
  ContactGraph kept = walked;
  walked.attach_contacts(list);
  kept.keep_contacts();
  ASSERT_EQ(kept.edges().size(), walked.edges().size());
  for (size_t i = 0; i < kept.edges().size(); ++i) {
    const GraphEdge& k = kept.edges()[i];
    const GraphEdge& w = walked.edges()[i];
    SCOPED_TRACE("edge " + std::to_string(k.a) + "-" + std::to_string(k.b));
    EXPECT_EQ(k.first_contact, w.first_contact);
    EXPECT_EQ(k.contact_count, w.contact_count);
    EXPECT_EQ(k.events, w.events);
  }
  EXPECT_EQ(edge(kept, 1, 2).first_contact, 3);
  EXPECT_EQ(edge(kept, 1, 2).events, kPersistentProximity | kPersistentTouching);
  EXPECT_EQ(edge(kept, 1, 3).first_contact, 6);  // new, where {1, 2}'s contacts end
}

// A pyramid of 3 rows: heights by row, one layer per row boundary.
TEST(ContactGraph, PyramidLayersFollowTheRows) {
  // Floor 0; row 0: 1 2 3; row 1: 4 (on 1,2) 5 (on 2,3); row 2: 6 (on 4,5); row neighbours touch.
  const auto bodies = bodies_of("FDDDDDD");
  const ContactGraph g = graph_of(bodies, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}, {1, 4}, {2, 4}, {2, 5}, {3, 5},
                                           {4, 5}, {4, 6}, {5, 6}});
  EXPECT_EQ(g.height_of_body(), (std::vector<int>{0, 1, 1, 1, 2, 2, 3}));
  EXPECT_EQ(g.groups()[0].layer_count, 3);
  EXPECT_EQ(sorted(g.layers(0)[1].top), (std::vector<int>{4, 5}));
  EXPECT_EQ(sorted(g.layers(0)[2].bottom), (std::vector<int>{4, 5}));
}

namespace {
// A graph's groups and layers by body pairs (edge indices differ between graphs with different histories).
struct Found {
  std::vector<std::vector<int>> bodies;
  std::vector<std::vector<BodyPair>> edges, layer_edges;
  std::vector<std::vector<std::vector<int>>> bottoms, tops;
  std::vector<int> floating, layer_counts, heights;
  bool operator==(const Found&) const = default;
};
Found found_of(const ContactGraph& g) {
  Found f;
  auto pairs = [&](const std::vector<int>& edges) {
    std::vector<BodyPair> out;
    for (int k : edges) out.push_back({g.edges()[size_t(k)].a, g.edges()[size_t(k)].b});
    std::sort(out.begin(), out.end());
    return out;
  };
  for (int i = 0; i < int(g.groups().size()); ++i) {
    const ContactGroup& group = g.groups()[size_t(i)];
    f.bodies.push_back(group.bodies);
    f.edges.push_back(pairs(group.edges));
    f.floating.push_back(group.floating);
    f.layer_counts.push_back(group.layer_count);
    f.bottoms.emplace_back();
    f.tops.emplace_back();
    for (const StackLayer& layer : g.layers(i)) {
      f.layer_edges.push_back(pairs(layer.edges));
      f.bottoms.back().push_back(sorted(layer.bottom));
      f.tops.back().push_back(sorted(layer.top));
    }
  }
  f.heights = g.height_of_body();
  return f;
}
}  // namespace

// A graph stepped through changes finds, each step, the groups and layers a new graph finds for the same edges,
// touching pairs, links and bodies: whether it kept them (nothing changed) or found them again.
TEST(ContactGraph, SteppedGraphFindsWhatANewOneFinds) {
  struct Step {
    std::string kinds;
    std::vector<BodyPair> pairs, touching, links;
  };
  const std::vector<BodyPair> column{{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  const std::vector<Step> steps = {
      {"FDDDD", column, column, {}},
      {"FDDDD", column, column, {}},                                // nothing changed: kept
      {"FDDDD", column, {{0, 1}, {1, 2}, {3, 4}}, {}},               // an edge ceased to touch
      {"FDDDD", column, {{0, 1}, {1, 2}, {3, 4}}, {}},               // kept
      {"FDDDD", column, {{0, 1}, {1, 2}, {3, 4}}, {{2, 3}}},         // a link joins the two parts again
      {"FDFDD", column, {{0, 1}, {1, 2}, {3, 4}}, {{2, 3}}},         // a body became fixed
      {"FDFDD", {{0, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 4}}, column, {}},  // a new pair, an edge touching again
      {"FDDDD", {{0, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 4}}, column, {}},  // the body dynamic again
      {"FDDDD", {{0, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 4}}, column, {}},
  };
  ContactGraph stepped;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    const auto bodies = bodies_of(step.kinds);
    auto find = [&](ContactGraph& g) {
      g.update_edges(step.pairs);
      g.attach_contacts(contacts_of(step.touching));
      g.find_groups(bodies, step.links);
      g.find_layers(bodies);
    };
    find(stepped);
    ContactGraph fresh;
    find(fresh);
    EXPECT_TRUE(found_of(stepped) == found_of(fresh)) << "step " << i;
    for (const GraphEdge& e : stepped.edges()) {
      if (e.events & kPersistentProximity) {
        EXPECT_EQ(e.events & ~(kPersistentTouching | kNewTouching | kVanishedTouching), kPersistentProximity);
      }
    }
  }
  // The column's heights where nothing changed (steps 7 and 8): the pair (1, 3) does not touch.
  EXPECT_EQ(stepped.height_of_body(), (std::vector<int>{0, 1, 2, 3, 4}));
}

}  // namespace cl
