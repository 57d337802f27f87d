#include "telemetry/residuals.h"

#include <algorithm>
#include <cmath>

namespace cl {

ContactResiduals contact_residuals(const ContactReport& report) {
  ContactResiduals r;
  double weighted_gap = 0.0;
  for (const ReportedContact& c : report.contacts) {
    const double fn = c.normal_value();
    const Vec3& n = c.normal;
    const double vn = c.velocity.dot(n);
    const Vec3 vt = c.velocity - vn * n;
    const Vec3 ft = c.friction_force - c.friction_force.dot(n) * n;
    const double vt_norm = vt.norm(), ft_norm = ft.norm();
    // Signorini (gap >= 0, f_n >= 0, g f_n = 0): the gap at the end of the step to first order in h.
    const double gap = -c.depth + report.dt * vn;
    if (fn > 0.0) {
      weighted_gap += fn * std::max(gap, 0.0);
      r.normal_force += fn;
    } else {
      r.adhesion += -fn;
    }
    // Coulomb: |f_t| <= mu f_n.
    r.cone += std::max(ft_norm - c.friction * std::max(fn, 0.0), 0.0);
    // Maximum dissipation: f_t anti-parallel to the slip (zero when either vanishes).
    r.dissipation += std::max(ft_norm * vt_norm + ft.dot(vt), 0.0);
    // The complementarity of the velocity-level Coulomb problem (De Saxce's bipotential): zero for a contact
    // that rests (v = 0), separates without force (f = 0) or slides on the cone's edge against its slip.
    r.complementarity += std::abs(fn * (vn + c.friction * vt_norm) + ft.dot(vt));
    ++r.contacts;
  }
  r.signorini = r.normal_force > 0.0 ? weighted_gap / r.normal_force : 0.0;
  return r;
}

}  // namespace cl
