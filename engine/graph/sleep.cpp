#include "graph/sleep.h"

#include <algorithm>

namespace cl {

namespace {
double kinetic_energy(const Body& b) {
  return 0.5 * b.mass * b.linear_velocity.squaredNorm() +
         0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity);
}

void put_to_sleep(Body& b) {
  b.sleeping = true;
  b.linear_velocity.setZero();
  b.angular_velocity.setZero();
}

void wake_up(Body& b) {
  b.sleeping = false;
}

bool group_touches_moving_script(const ContactGroup& group, const std::vector<Body>& bodies, const ContactGraph& graph) {
  for (int k : group.edges) {
    const GraphEdge& e = graph.edges()[k];
    for (int i : {e.a, e.b})
      if (bodies[i].kind == BodyKind::Kinematic &&
          (!bodies[i].linear_velocity.isZero(0.0) || !bodies[i].angular_velocity.isZero(0.0)))
        return true;
  }
  return false;
}
}  // namespace

bool group_asleep(const ContactGroup& group, const std::vector<Body>& bodies, const ContactGraph& graph) {
  for (int i : group.bodies)
    if (!bodies[i].sleeping) return false;
  return !group_touches_moving_script(group, bodies, graph);  // a moving scripted body wakes what it touches
}

int update_sleep(std::vector<Body>& bodies, const ContactGraph& graph, const SleepSettings& settings,
                 const std::vector<char>& restless) {
  const int n = int(bodies.size());
  if (!settings.enabled) {
    for (Body& b : bodies) {
      b.sleeping = false;
      b.calm_steps = 0;
    }
    return 0;
  }
  // Per body: the absolute test (E < tau m) and the relative test (no energy gain), over `steps` steps.
  for (int i = 0; i < n; ++i) {
    Body& b = bodies[i];
    if (!b.is_dynamic() || b.sleeping) continue;
    // The relative test ignores changes at the level of solver noise: energies under 1% of the threshold
    // count as not gaining (else round-off in a resting stack keeps it awake forever).
    const double e = kinetic_energy(b);
    const double threshold = settings.energy_per_mass * b.mass;
    const bool driven = i < int(restless.size()) && restless[i];
    // Kinetic energy alone sleeps a pendulum at its turning point (the thesis's see-saw failure, fig.
    // 6.33): calm also needs the velocity to be changing slowly.
    const bool steady = settings.dt <= 0 || (b.linear_velocity - b.last_velocity).norm() < settings.max_acceleration * settings.dt;
    const bool calm = !driven && steady && e < threshold && e <= std::max(b.last_energy, 0.01 * threshold);
    b.last_velocity = b.linear_velocity;
    b.calm_steps = calm ? b.calm_steps + 1 : 0;
    b.last_energy = e;
  }
  // Per group: asleep only when every body is calm; one restless body keeps (or wakes) the whole group.
  int sleeping = 0;
  std::vector<char> grouped(n, 0);
  for (const ContactGroup& g : graph.groups()) {
    bool all_calm = !group_touches_moving_script(g, bodies, graph);
    for (int i : g.bodies) {
      grouped[i] = 1;
      all_calm = all_calm && (bodies[i].sleeping || bodies[i].calm_steps >= settings.steps);
    }
    for (int i : g.bodies) {
      if (all_calm) {
        if (!bodies[i].sleeping) put_to_sleep(bodies[i]);
        ++sleeping;
      } else if (bodies[i].sleeping) {
        wake_up(bodies[i]);
        bodies[i].calm_steps = 0;
        bodies[i].last_energy = kinetic_energy(bodies[i]);
      }
    }
  }
  // Bodies touching nothing are a group of their own.
  for (int i = 0; i < n; ++i) {
    Body& b = bodies[i];
    if (grouped[i] || !b.is_dynamic()) continue;
    if (b.sleeping || b.calm_steps >= settings.steps) {
      if (!b.sleeping) put_to_sleep(b);
      ++sleeping;
    }
  }
  return sleeping;
}

}  // namespace cl
