// The sleepy policy (thesis sect. 6.5): a body is calm while its kinetic energy stays under a threshold scaled by its
// mass and size (the absolute test) and has not grown over its calm steps (the relative test), and its velocity
// changes slowly; a whole contact group falls asleep when all its bodies have been calm for a number of steps,
// and a group with a body that fails the tests (an impact, a drag) wakes entirely.
#pragma once

#include <vector>

#include "core/body.h"
#include "graph/contact_graph.h"

namespace cl {

struct SleepSettings {
  bool enabled = true;
  // J/(kg m): the absolute test E < energy_per_mass * m * r, r the body's bounding radius in m. Scaled by the
  // size as well as the mass, the test is the same for similar bodies under the same gravity: a body L times
  // smaller moves sqrt(L) times slower (Froude), so its kinetic energy per kg is L times smaller.
  double energy_per_mass = 1e-3;
  int steps = 5;                  // consecutive steps both tests must pass
  double dt = 0.0;                // s, the step: with it, calm also needs an acceleration under max_acceleration
  double max_acceleration = 0.1;  // m/s^2: a pendulum at the top of its swing is slow but not calm
  double gravity = 0.0;           // m/s^2, |g|: with dt, the scale of the round-off the relative test ignores
  double noise = 1e-4;            // speeds under noise |g| dt are round-off to the relative test
};

// Updates Body::calm_steps, calm_energy, last_energy, last_velocity and sleeping after a step; sleeping bodies get
// zero velocity.
// Bodies flagged in `restless` (e.g. driven by a running motor) never count as calm. Returns the number of
// sleeping bodies.
int update_sleep(std::vector<Body>& bodies, const ContactGraph& graph, const SleepSettings& settings,
                 const std::vector<char>& restless = {});

// True if every body of the group is asleep and no moving scripted body touches it: the group is not
// simulated this step.
bool group_asleep(const ContactGroup& group, const std::vector<Body>& bodies, const ContactGraph& graph);

}  // namespace cl
