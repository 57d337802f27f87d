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
  // Per body: the absolute test (E < tau m r) and the relative test (no energy gained), over `steps` steps.
  for (int i = 0; i < n; ++i) {
    Body& b = bodies[i];
    if (!b.is_dynamic() || b.sleeping) continue;
    const double e = kinetic_energy(b);
    const double threshold = settings.energy_per_mass * b.mass * shape_bounding_radius(b.shape);
    const bool driven = i < int(restless.size()) && restless[i];
    // Kinetic energy alone sleeps a pendulum at its turning point (the thesis's see-saw failure, fig.
    // 6.33): calm also needs the velocity to be changing slowly.
    const bool steady = settings.dt <= 0 || (b.linear_velocity - b.last_velocity).norm() < settings.max_acceleration * settings.dt;
    // The relative test looks at the trend over the calm steps (thesis sect. 6.5: the total change of the kinetic
    // energy over them must not be positive), not at one step: the energy may not exceed what it was at the
    // first calm step, and that step may not have gained on the one before. A body that accelerates gains at
    // every step, so it is never calm two steps running. Gains within the solver's round-off do not count:
    // energies under that of a speed of `noise` g h, a small fraction of what one step of gravity gives, are
    // noise (a resting wall's bricks move at about 2e-5 g h), else one restless brick of a wall keeps the
    // whole wall awake. A body accelerating at more than noise g leaves that band in its first step; one slower
    // than noise g / steps (2e-4 m/s^2 at the defaults) is lost in the round-off.
    const double noise_speed = settings.noise * settings.gravity * settings.dt;
    const bool gained = e > 0.5 * b.mass * noise_speed * noise_speed &&
                        (b.calm_steps > 0 ? e > b.calm_energy : e > b.last_energy);
    const bool calm = !driven && steady && e < threshold && !gained;
    if (calm && b.calm_steps == 0) b.calm_energy = e;
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
