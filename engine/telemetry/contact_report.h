// The contact report: what every method says, after each step, about each contact it acted through, in one form
// (issue 34). The residuals (telemetry/residuals.h), the --metrics and --compare columns and the viewer's force
// arrows read it, whatever the method.
#pragma once

#include <vector>

#include "core/math.h"

namespace cl {

// One contact as a method reports it. Forces are those acting on body b (a feels the opposite), in newtons,
// averaged over the step: an impulse method gives its impulse / h, a penalty method the forces it applied
// (averaged over its substeps); a method that acts on a pair as a whole (pid-penalty's spring at the centre of
// the pair's normal forces, implicit-penalty's pair wrench) gives one entry at the pair's point of application.
struct ReportedContact {
  int a = -1, b = -1;                   // bodies, a < b
  Vec3 point{0, 0, 0};                  // world, where the force acts, m
  Vec3 normal{0, 1, 0};                 // unit, from a to b
  double depth = 0.0;                   // m: > 0 penetration, < 0 a gap (at the start of the step, as found)
  Vec3 normal_force{0, 0, 0};           // N, on b, along the normal (f_n n; f_n > 0 pushes b away from a)
  Vec3 friction_force{0, 0, 0};         // N, on b, in the tangent plane
  Vec3 velocity{0, 0, 0};               // m/s: b's point minus a's at the end of the step
  double friction = 0.0;                // the coefficient of friction mu of the pair's materials
  double normal_value() const { return normal_force.dot(normal); }  // f_n, N
};

struct ContactReport {
  double dt = 0.0;                       // s: the step the forces are averaged over
  std::vector<ReportedContact> contacts;
  void clear() { contacts.clear(); }
};

}  // namespace cl
