// The normal impulses a stack's velocity solve starts from: the first phase of shock propagation (thesis sect. 6.4,
// Fig. 6.56: the dynamics step of fraction f), or without it the whole step (f = 1), found once a step for a contact
// group, top-down over its stack layers.
//
// Why: the sweeps over the whole group start from what they found the step before. On a tall stack they cannot
// carry a load down many rows, so they end with velocities of the order of f g h. Under shock propagation the
// layers then have to take them out, each layer sweep after sweep (a 100-row pyramid's layers took 11 sweeps each,
// where 2 settle a layer that starts at rest). Without it nothing takes them out: a 20-row pyramid built at rest
// fell into itself in its first steps, its contacts sank to the allowed penetration, and its top box ended 1.7 cm
// lower. A stack at rest is held by impulses that one pass from the top can find: each body's contacts with the
// layer below take the body's own f h of gravity and applied force plus what the bodies above press on it, at the
// points where they press. So each body's lower contacts start from the impulses of the step before (0 for a
// contact new this step), changed by the least that balances the body (force and moment) over f h, before the
// layer below is balanced in turn.
//
// Only normal impulses are found, and only for a body whose lower contacts share one normal (a face on faces): friction
// keeps its warm start, and its impulses count as given. What the normals cannot balance (a sideways push, the
// moment about the normal, a load outside the support: the impulses never go below 0) is left to the sweeps. A body
// whose lower normals differ (a bowl in a bowl) keeps the warm start of the step before, which is handed down. The
// sweeps decide the solve as they always did: this is a starting point only.
#pragma once

#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "collision/contact.h"
#include "constraints/motion.h"
#include "core/body.h"
#include "core/task_pool.h"
#include "graph/contact_graph.h"

namespace cl {

class StackWarmStart {
 public:
  // Forgets every contact's impulse (a step's contacts, before any group is found).
  void clear(size_t contacts);
  // The first phase's normal impulses of group `group`'s persisting layer contacts. free: each body's velocity change
  // over the whole step from gravity and applied forces (free_velocity_change); fraction: f.
  // With a pool, a large group's layers are read on one thread while another balances them: the same bit for bit.
  // `beside`, if any, is work of the caller's that needs nothing find() does and touches nothing it touches: it is
  // called on the thread that reads the layers once it has read them, while the other may still balance them, or
  // without the threads once the balance is done.
  void find(const std::vector<Body>& bodies, const ContactList& contacts, const ContactGraph& graph, int group,
            const std::vector<BodyVelocity>& free, double fraction, TaskPool* pool = nullptr,
            const std::function<void()>& beside = nullptr);
  bool has(int contact) const { return !std::isnan(normal_[size_t(contact)]); }
  double normal(int contact) const { return normal_[size_t(contact)]; }

  // The first phase's warm start of the step before: a contact's impulses less the layers' part.
  static double previous_normal(const Contact& c) { return c.normal_impulse - c.layer_normal_impulse; }
  static Vec3 previous_friction(const Contact& c) { return c.friction_impulse - c.layer_friction_impulse; }

 private:
  // An impulse on a dynamic body, as it adds to the body's sums (force and moment about its centre of mass).
  struct Push {
    int body;
    Vec3 force, moment;
  };
  // One stack layer as the balance takes it, read from the contacts: its top bodies' lower contacts, and what the
  // contacts between bodies of one height push (their impulses of the step before). What is read of a layer does
  // not depend on the balance of the layers above it, so a large group's layers are read on one thread, each into
  // its own LayerPlan, while another balances them (find).
  struct LayerPlan {
    std::vector<std::pair<int, int>> lower;         // (top body, contact) of contacts between heights, sorted
    std::vector<std::pair<size_t, size_t>> spans;   // each top body's lower contacts, [first, last) of lower
    std::vector<Push> side;                         // the pushes of the contacts side by side, in edge order
  };
  void read_layer(const std::vector<Body>& bodies, const ContactList& contacts, const ContactGraph& graph,
                  const StackLayer& layer, LayerPlan& plan) const;
  // One body's persisting lower contacts as balance reads them: the other body, the point, and the normal and
  // friction impulse of the step before as they push the body.
  struct LowerPoint {
    int contact, other;
    Vec3 position, normal;
    double lambda0;
    Vec3 friction;
  };
  // The lower contacts of body s: lower[first, last) of its layer. Reads only what is found on s so far, and adds
  // what they push on the bodies below to those.
  void balance(const std::vector<Body>& bodies, const ContactList& contacts, int s,
               std::span<const std::pair<int, int>> lower);

  std::vector<double> normal_;  // per contact; NaN: none found
  // Per body: the impulses found on it so far (its own f h of gravity counted as one), force and moment about its
  // centre of mass.
  std::vector<Vec3> force_, moment_;
  std::vector<LayerPlan> plans_;       // per layer of the group, bottom-up as the graph lists them
  std::vector<LowerPoint> points_;     // balance's scratch
};

}  // namespace cl
