// The sleepy policy (thesis sect. 6.5): bodies whose kinetic energy stays under a mass-scaled
// threshold and does not grow fall asleep, a whole contact group at a time; a group with a body that
// fails the tests (an impact, a drag) wakes entirely.
#pragma once

#include <vector>

#include "core/body.h"
#include "graph/contact_graph.h"

namespace cl {

struct SleepSettings {
  bool enabled = true;
  double energy_per_mass = 1e-3;  // J/kg: the absolute test E < energy_per_mass * m
  int steps = 5;                  // consecutive steps both tests must pass
  double dt = 0.0;                // s, the step: with it, calm also needs an acceleration under max_acceleration
  double max_acceleration = 0.1;  // m/s^2: a pendulum at the top of its swing is slow but not calm
};

// Updates Body::calm_steps, last_energy and sleeping after a step; sleeping bodies get zero velocity.
// Bodies flagged in `restless` (e.g. driven by a running motor) never count as calm. Returns the number of
// sleeping bodies.
int update_sleep(std::vector<Body>& bodies, const ContactGraph& graph, const SleepSettings& settings,
                 const std::vector<char>& restless = {});

// True if every body of the group is asleep and no moving scripted body touches it: the group is not
// simulated this step.
bool group_asleep(const ContactGroup& group, const std::vector<Body>& bodies, const ContactGraph& graph);

}  // namespace cl
