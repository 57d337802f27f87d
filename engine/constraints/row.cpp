#include "constraints/row.h"

namespace cl {

void load_inverse_masses(const std::vector<Body>& bodies, std::vector<InverseMass>& out) {
  out.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    out[i] = b.is_dynamic() ? InverseMass{b.inv_mass, b.inv_inertia_world} : InverseMass{};
  }
}

}  // namespace cl
