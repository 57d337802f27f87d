// The contact graph (thesis ch. 5): bodies are nodes, touching or nearby pairs are
// edges holding their contacts. It is updated incrementally each step, tells the narrow phase which
// pairs have not moved (coherence), groups bodies into contact groups (fixed and kinematic bodies
// insulate), and finds stack heights and layers for shock propagation (thesis sect. 6.4.2).
#pragma once

#include <cstdint>
#include <vector>

#include "collision/broadphase.h"
#include "collision/contact.h"
#include "core/body.h"

namespace cl {

// Events of an edge in the last step (thesis sect. 5.3, Table 5.3), as bits.
enum EdgeEvent : uint8_t {
  kNewProximity = 1,         // the broad phase reported the pair for the first time
  kPersistentProximity = 2,  // reported again
  kVanishedProximity = 4,    // no longer reported
  kNewTouching = 8,          // has contacts now and had none before
  kPersistentTouching = 16,  // had and has contacts
  kVanishedTouching = 32,    // had contacts, has none now
};

struct GraphEdge {
  int a = -1, b = -1;       // body indices, a < b
  // The pair's contacts in World::contacts(): [first_contact, +contact_count) of this step's list after the narrow
  // phase, of the last step's until then (the broad phase keeps them, and the narrow phase reads its last contacts
  // there).
  int first_contact = 0;
  int contact_count = 0;
  uint8_t events = 0;       // EdgeEvent bits of the last step
  int layer = -1;           // stack layer of the edge; -1 outside any stack
  int missing_steps = 0;    // steps since the broad phase last reported the pair (obsolete-edge test)
  // Coherence cache: both bodies' poses when the pair's contacts were last computed. If neither body has
  // moved since (bit for bit, as for resting or sleeping bodies), the contacts are reused as they are.
  bool cached = false;
  Vec3 cached_position_a{0, 0, 0}, cached_position_b{0, 0, 0};
  Quat cached_orientation_a = Quat::Identity(), cached_orientation_b = Quat::Identity();
  bool anchored = false;    // the contacts computed at the cached poses carry their anchors (contact_recycling.h)
  bool touching() const { return contact_count > 0; }
};

// A contact group: dynamic bodies connected through contacts (and joints), solved together.
struct ContactGroup {
  std::vector<int> bodies;  // dynamic bodies, ascending
  std::vector<int> edges;   // indices into ContactGraph::edges(), touching edges only
  bool floating = true;     // no fixed or kinematic body supports it (stack heights are infinite)
  int layer_count = 0;      // stack layers of the group (0 when floating)
};

// One stack layer of a group (thesis sect. 6.4.2): layer i holds the bodies of height i (its bottom, held fixed
// while the layer is solved) and i+1 (its top) and the edges between them.
struct StackLayer {
  std::vector<int> bottom;  // bodies of height i that support bodies of height i+1 (fixed bodies excluded)
  std::vector<int> top;     // bodies of height i+1 supported from height i
  std::vector<int> edges;   // edge indices
};

class ContactGraph {
 public:
  static constexpr int kUnreached = 1 << 30;  // stack height of bodies no fixed body supports

  // Digest 5.3 step 1, after the broad phase: edges for new pairs, events for persisting and vanishing
  // ones, and removal of edges missing for two steps in a row (the obsolete test).
  void update_edges(const std::vector<BodyPair>& pairs);
  // True if neither body of the edge moved since its contacts were computed, so they can be reused
  // without a narrow phase (coherence, thesis sect. 5.2; the thesis's "caching", 5.6).
  static bool unmoved(const GraphEdge& e, const std::vector<Body>& bodies);
  static void remember_placement(GraphEdge& e, const std::vector<Body>& bodies);
  // After the narrow phase: contact ranges and touching events (contacts sorted by pair).
  void attach_contacts(const ContactList& contacts);
  // After a narrow phase that left the last step's list as it was, every pair's contacts where they were (a stack at
  // rest): what attach_contacts would find in it, without reading the list.
  void keep_contacts();
  // Contact groups: connected components of dynamic bodies over touching edges and the extra links
  // (joints), not passing through fixed or kinematic bodies (thesis sect. 5.2).
  void find_groups(const std::vector<Body>& bodies, const std::vector<BodyPair>& links);
  // Stack heights by breadth-first search from fixed and kinematic bodies over each group, then layers
  // (thesis sect. 6.4.2, Figs. 6.50-6.52).
  void find_layers(const std::vector<Body>& bodies);
  void clear();

  std::vector<GraphEdge>& edges() { return edges_; }
  const std::vector<GraphEdge>& edges() const { return edges_; }
  const std::vector<ContactGroup>& groups() const { return groups_; }
  const std::vector<int>& group_of_body() const { return group_of_body_; }    // -1 if in no group
  const std::vector<int>& height_of_body() const { return height_of_body_; }  // 0 fixed, kUnreached floating
  // Layers of group g, bottom-up.
  const std::vector<StackLayer>& layers(int group) const { return layers_[group]; }
  int max_layer_count() const;

 private:
  std::vector<GraphEdge> edges_;  // sorted by (a, b)
  std::vector<ContactGroup> groups_;
  std::vector<int> group_of_body_;
  std::vector<int> height_of_body_;
  std::vector<std::vector<StackLayer>> layers_;
  // What the groups and layers were found for (find_groups): true once an edge was added or removed, or began or
  // ceased to touch, since; and the links and bodies' dynamic flags. kept_groups_: find_groups kept its groups.
  bool shape_changed_ = true;
  std::vector<BodyPair> found_links_;
  std::vector<char> found_dynamic_;
  bool kept_groups_ = false;
  // Room reused from step to step, holding nothing between calls.
  std::vector<GraphEdge> next_edges_;  // update_edges' new list
  struct Scratch {
    std::vector<int> parent, group_of_root;       // find_groups
    std::vector<char> member, dynamic;            // find_groups
    std::vector<std::vector<int>> incident;       // find_layers: each body's edges in the group at hand
  } scratch_;
};

}  // namespace cl
