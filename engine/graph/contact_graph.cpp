#include "graph/contact_graph.h"

#include <algorithm>
#include <deque>
#include <numeric>

namespace cl {

namespace {
bool pair_less(int a1, int b1, int a2, int b2) { return a1 != a2 ? a1 < a2 : b1 < b2; }

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

void join(std::vector<int>& parent, int a, int b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a != b) parent[std::max(a, b)] = std::min(a, b);
}
}  // namespace

void ContactGraph::clear() {
  shape_changed_ = true;
  edges_.clear();
  groups_.clear();
  group_of_body_.clear();
  height_of_body_.clear();
  layers_.clear();
}

// Merge of the sorted edge list with the sorted broad-phase pairs (thesis sect. 5.2, Fig. 5.3).
void ContactGraph::update_edges(const std::vector<BodyPair>& pairs) {
  // The pairs are the edges', none of which was missing (a scene at rest): every edge persists, where it is. The
  // merge below would copy a 100-row pyramid's 15,000 edges, 3 MB, to the same result. An edge found different ends
  // this walk; those it set are set again by the merge.
  if (pairs.size() == edges_.size()) {
    size_t same = 0;
    for (; same < pairs.size(); ++same) {
      GraphEdge& e = edges_[same];
      if (e.a != pairs[same].a || e.b != pairs[same].b || e.missing_steps != 0) break;
      e.events = kPersistentProximity;
    }
    if (same == pairs.size()) return;
  }
  shape_changed_ = true;
  // Built in the list of the step before last, whose room is kept: a large scene's edges are megabytes, and a new
  // list each step took fresh pages from the system, each cleared before use.
  std::vector<GraphEdge>& next = next_edges_;
  next.clear();
  next.reserve(pairs.size());
  size_t e = 0;
  for (const BodyPair& p : pairs) {
    // Edges before this pair are no longer reported: vanishing, and obsolete the second time.
    while (e < edges_.size() && pair_less(edges_[e].a, edges_[e].b, p.a, p.b)) {
      GraphEdge& old = edges_[e++];
      if (old.missing_steps >= 1) continue;  // already vanished last step: obsolete, removed
      old.events = kVanishedProximity | (old.touching() ? kVanishedTouching : 0);
      old.missing_steps = 1;
      old.contact_count = 0;
      old.layer = -1;
      next.push_back(old);
    }
    if (e < edges_.size() && edges_[e].a == p.a && edges_[e].b == p.b) {
      GraphEdge& kept = edges_[e++];
      kept.events = kept.missing_steps > 0 ? kNewProximity : kPersistentProximity;
      kept.missing_steps = 0;
      next.push_back(kept);
    } else {
      GraphEdge fresh;
      fresh.a = p.a;
      fresh.b = p.b;
      fresh.events = kNewProximity;
      next.push_back(fresh);
    }
  }
  for (; e < edges_.size(); ++e) {
    GraphEdge& old = edges_[e];
    if (old.missing_steps >= 1) continue;
    old.events = kVanishedProximity | (old.touching() ? kVanishedTouching : 0);
    old.missing_steps = 1;
    old.contact_count = 0;
    old.layer = -1;
    next.push_back(old);
  }
  std::swap(edges_, next);
}

bool ContactGraph::unmoved(const GraphEdge& e, const std::vector<Body>& bodies) {
  if (!e.cached) return false;
  const Body& a = bodies[e.a];
  const Body& b = bodies[e.b];
  return a.position == e.cached_position_a && b.position == e.cached_position_b &&
         a.orientation.coeffs() == e.cached_orientation_a.coeffs() &&
         b.orientation.coeffs() == e.cached_orientation_b.coeffs();
}

void ContactGraph::remember_placement(GraphEdge& e, const std::vector<Body>& bodies) {
  e.cached = true;
  e.cached_position_a = bodies[e.a].position;
  e.cached_position_b = bodies[e.b].position;
  e.cached_orientation_a = bodies[e.a].orientation;
  e.cached_orientation_b = bodies[e.b].orientation;
}

void ContactGraph::attach_contacts(const ContactList& contacts) {
  size_t c = 0;
  for (GraphEdge& e : edges_) {
    const bool was_touching = e.touching() && !(e.events & kVanishedProximity);
    while (c < contacts.size() && pair_less(contacts[c].a, contacts[c].b, e.a, e.b)) ++c;
    const size_t first = c;
    while (c < contacts.size() && contacts[c].a == e.a && contacts[c].b == e.b) ++c;
    e.first_contact = int(first);
    e.contact_count = int(c - first);
    if (e.events & kVanishedProximity) continue;
    if (e.touching()) e.events |= was_touching ? kPersistentTouching : kNewTouching;
    else if (was_touching) e.events |= kVanishedTouching;
    if (e.touching() != was_touching) shape_changed_ = true;
  }
}

// The touching edges' ranges tile the list in edge order, so an edge without contacts starts where the touching
// edge before it ends, as attach_contacts's walk would put it; every touching edge was touching before.
void ContactGraph::keep_contacts() {
  int end = 0;
  for (GraphEdge& e : edges_) {
    if (e.touching() && !(e.events & kVanishedProximity)) {
      e.events |= kPersistentTouching;
      end = e.first_contact + e.contact_count;
    } else {
      e.first_contact = end;
    }
  }
}

// Connected components of dynamic bodies (thesis sect. 5.2, made iterative by union-find). Fixed and
// kinematic bodies have infinite mass and insulate: a floor does not merge every stack standing on it.
void ContactGraph::find_groups(const std::vector<Body>& bodies, const std::vector<BodyPair>& links) {
  const int n = int(bodies.size());
  // The groups and layers depend on which edges touch, the links and which bodies are dynamic alone: where none of
  // these changed since they were found (a scene at rest), they are still the same, and are kept.
  std::vector<char>& dynamic = scratch_.dynamic;
  dynamic.resize(size_t(n));
  for (int i = 0; i < n; ++i) dynamic[size_t(i)] = bodies[size_t(i)].is_dynamic();
  kept_groups_ = !shape_changed_ && links == found_links_ && dynamic == found_dynamic_;
  if (kept_groups_) return;
  shape_changed_ = false;
  found_links_ = links;
  std::swap(found_dynamic_, dynamic);
  std::vector<int>& parent = scratch_.parent;
  parent.resize(size_t(n));
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<char>& member = scratch_.member;
  member.assign(size_t(n), 0);
  auto connect = [&](int a, int b) {
    const bool da = bodies[a].is_dynamic(), db = bodies[b].is_dynamic();
    if (da) member[a] = 1;
    if (db) member[b] = 1;
    if (da && db) join(parent, a, b);
  };
  for (const GraphEdge& e : edges_)
    if (e.touching()) connect(e.a, e.b);
  for (const BodyPair& l : links) connect(l.a, l.b);

  groups_.clear();
  group_of_body_.assign(n, -1);
  std::vector<int>& group_of_root = scratch_.group_of_root;
  group_of_root.assign(size_t(n), -1);
  for (int i = 0; i < n; ++i) {
    if (!member[i]) continue;
    const int r = find_root(parent, i);
    if (group_of_root[r] < 0) {
      group_of_root[r] = int(groups_.size());
      groups_.emplace_back();
    }
    group_of_body_[i] = group_of_root[r];
    groups_[group_of_body_[i]].bodies.push_back(i);
  }
  for (int k = 0; k < int(edges_.size()); ++k) {
    const GraphEdge& e = edges_[k];
    if (!e.touching()) continue;
    const int g = group_of_body_[bodies[e.a].is_dynamic() ? e.a : e.b];
    if (g < 0) continue;  // two non-dynamic bodies (never reported by the broad phase)
    groups_[g].edges.push_back(k);
    if (!bodies[e.a].is_dynamic() || !bodies[e.b].is_dynamic()) groups_[g].floating = false;
  }
}

// Stack heights and layers per group (thesis sect. 6.4.2, Figs. 6.50-6.52). Height is the least number of
// contact edges to a fixed (or kinematic) body; layer i holds the bodies of heights i and i+1 and the
// edges between them; an edge between two bodies of equal height i+1 belongs to layer i.
void ContactGraph::find_layers(const std::vector<Body>& bodies) {
  if (kept_groups_) {  // the groups find_groups kept: so are their layers
    kept_groups_ = false;
    return;
  }
  const int n = int(bodies.size());
  height_of_body_.assign(n, kUnreached);
  // The layers' lists keep their room from step to step (a 100-row pyramid has a hundred layers of each list).
  layers_.resize(groups_.size());
  for (std::vector<StackLayer>& group_layers : layers_)
    for (StackLayer& layer : group_layers) {
      layer.bottom.clear();
      layer.top.clear();
      layer.edges.clear();
    }
  for (int i = 0; i < n; ++i)
    if (!bodies[i].is_dynamic()) height_of_body_[i] = 0;

  // Incident edges of each body, restricted per group (fixed bodies are shared between groups).
  // Left empty after each group, and kept with their room.
  std::vector<std::vector<int>>& incident = scratch_.incident;
  if (incident.size() < size_t(n)) incident.resize(size_t(n));
  for (int g = 0; g < int(groups_.size()); ++g) {
    ContactGroup& group = groups_[g];
    group.layer_count = 0;
    if (group.floating) {
      layers_[g].clear();
      continue;
    }
    for (int k : group.edges) {
      incident[edges_[k].a].push_back(k);
      incident[edges_[k].b].push_back(k);
    }
    // Multi-source breadth-first search from the group's fixed and kinematic bodies.
    std::deque<int> queue;
    std::vector<int> sources;
    for (int k : group.edges)
      for (int body : {edges_[k].a, edges_[k].b})
        if (!bodies[body].is_dynamic() && std::find(sources.begin(), sources.end(), body) == sources.end())
          sources.push_back(body);
    std::sort(sources.begin(), sources.end());
    for (int s : sources) queue.push_back(s);
    while (!queue.empty()) {
      const int a = queue.front();
      queue.pop_front();
      for (int k : incident[a]) {
        const int b = edges_[k].a == a ? edges_[k].b : edges_[k].a;
        if (!bodies[b].is_dynamic()) continue;
        if (height_of_body_[b] == kUnreached) {
          height_of_body_[b] = height_of_body_[a] + 1;
          queue.push_back(b);
        }
      }
    }
    // Edge layers, then the bodies at the bottom and top of each layer.
    int max_layer = -1;
    for (int k : group.edges) {
      GraphEdge& e = edges_[k];
      const int ha = height_of_body_[e.a], hb = height_of_body_[e.b];
      if (ha == kUnreached || hb == kUnreached) {
        e.layer = -1;
        continue;
      }
      e.layer = (ha == hb && ha != 0) ? ha - 1 : std::min(ha, hb);
      max_layer = std::max(max_layer, e.layer);
    }
    std::vector<StackLayer>& layers = layers_[g];
    layers.resize(max_layer + 1);
    group.layer_count = max_layer + 1;
    for (int k : group.edges)
      if (edges_[k].layer >= 0) layers[edges_[k].layer].edges.push_back(k);
    for (int a : group.bodies) {
      const int ha = height_of_body_[a];
      if (ha == kUnreached) continue;
      bool lower = false, upper = false;
      for (int k : incident[a]) {
        const int b = edges_[k].a == a ? edges_[k].b : edges_[k].a;
        const int hb = height_of_body_[b];
        if (hb == kUnreached) continue;
        lower = lower || hb < ha;
        upper = upper || hb > ha;
      }
      if (upper && ha < int(layers.size())) layers[ha].bottom.push_back(a);
      if (lower) layers[ha - 1].top.push_back(a);
    }
    for (int k : group.edges) {
      incident[edges_[k].a].clear();
      incident[edges_[k].b].clear();
    }
  }
}

int ContactGraph::max_layer_count() const {
  int m = 0;
  for (const ContactGroup& g : groups_) m = std::max(m, g.layer_count);
  return m;
}

}  // namespace cl
