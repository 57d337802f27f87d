// pid-penalty's contact report: one entry per pair, with the impulses of its impacts (sequential impulses at the
// pair's centroid, Drumwright 2008 sect. III-C) and its penalty forces (eq. 3 and the friction spring at the
// centre of the normal forces) times the substeps they acted over, divided by the step: the force averaged over
// the 1 ms substeps. It acts at the mean of the points weighted by their normal impulses.
#include <algorithm>

#include "solvers/pid_penalty/pid_penalty_solver.h"
#include "solvers/report_contacts.h"

namespace cl {

void PidPenaltySolver::add_to_report(Pair& pair, const Vec3& normal, const Vec3& impulse, const Vec3& point) {
  const double weight = std::max(impulse.dot(normal), 0.0) + 1e-300;
  pair.step_impulse += impulse;
  pair.step_point_sum += weight * point;
  pair.step_weight += weight;
}

void PidPenaltySolver::report_contacts(const StepContext& ctx, ContactReport& out) const {
  out.dt = ctx.dt;
  const double inv_h = ctx.dt > 0.0 ? 1.0 / ctx.dt : 0.0;
  for (const auto& [key, pair] : pairs_) {
    if (!pair.present) continue;
    const Vec3 point = pair.step_weight > 0.0 ? Vec3(pair.step_point_sum / pair.step_weight) : Vec3::Zero();
    report_pair(ctx.bodies, ctx.contacts, key.first, key.second, pair.step_weight > 0.0 ? &point : nullptr,
                Vec3::Zero(), inv_h * pair.step_impulse, out);
  }
}

}  // namespace cl
