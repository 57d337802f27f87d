// Contact points as the narrow phase produces them and the solvers consume them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/math.h"

namespace cl {

// A contact between bodies a < b. The normal points from a towards b (thesis sect. 4.3, Fig. 4.1),
// so the relative normal velocity (b minus a) is positive when they separate.
struct Contact {
  int a = -1;
  int b = -1;
  Vec3 position{0, 0, 0};  // world point, midway between the two surfaces
  Vec3 normal{0, 1, 0};    // unit, from a to b
  double depth = 0.0;      // > 0 penetration, < 0 a gap smaller than the contact margin
  uint32_t feature = 0;    // feature pair id within the pair, stable while the same features touch
  double friction = 0.0;     // combined coefficient (geometric mean)
  double restitution = 0.0;  // combined coefficient (maximum)

  // Impulses of the last solve, carried to the next step for warm starting (matched by pair and feature).
  double normal_impulse = 0.0;  // N s
  Vec3 friction_impulse{0, 0, 0};  // N s, world frame, tangent to the normal
  // The part of them solved layer by layer under shock propagation: each phase warm starts from its own.
  double layer_normal_impulse = 0.0;
  Vec3 layer_friction_impulse{0, 0, 0};
  bool persisted = false;          // true if this contact matched one from the previous step
  // What contact recycling keeps of a contact (ContactAnchor, world/contact_recycling.h) is held beside the list,
  // not here: every pass over a step's contacts reads each one whole.
};

// Contacts of one step, sorted by (a, b, feature) so that matching and solving are deterministic.
using ContactList = std::vector<Contact>;

}  // namespace cl
