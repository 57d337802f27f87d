// Physics residuals of one step, computed once from the contact report for every method, each in one unit
// (docs/residuals.md defines them). Le Lidec et al. 2023, "Contact models in robotics: a comparative
// analysis", sect. V measures every solver by these laws; our definitions make them dimensionally consistent.
#pragma once

#include <limits>
#include <span>

#include "core/math.h"
#include "telemetry/contact_report.h"

namespace cl {

struct ContactResiduals {
  // m: the force-weighted mean gap at which contacts push, sum_k f_n,k max(g_k, 0) / sum_k f_n,k, g_k the gap at
  // the end of the step (-depth + h v_n); plus nothing for pulling forces, which `adhesion` counts.
  double signorini = 0.0;
  double adhesion = 0.0;         // N: sum_k max(-f_n,k, 0), normal forces that pull (Signorini's f_n >= 0)
  double cone = 0.0;             // N: sum_k max(|f_t,k| - mu_k f_n,k, 0), friction outside the Coulomb cone
  double dissipation = 0.0;      // W: sum_k (|f_t,k| |v_t,k| + f_t,k . v_t,k), friction not opposing the slip
  double complementarity = 0.0;  // W: sum_k |f_n,k (v_n,k + mu_k |v_t,k|) + f_t,k . v_t,k| (De Saxce's)
  double normal_force = 0.0;     // N: sum_k max(f_n,k, 0), the scale the force residuals compare to
  int contacts = 0;              // entries in the report
};

ContactResiduals contact_residuals(const ContactReport& report);

// Linear and angular momentum (about the origin) and the mechanical energy of a set of bodies, to compare before
// and after a step.
struct MomentumSample {
  Vec3 linear{0, 0, 0};   // N s
  Vec3 angular{0, 0, 0};  // N m s
};

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

}  // namespace cl
