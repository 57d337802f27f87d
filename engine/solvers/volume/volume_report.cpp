// volume's contact report: one entry per volume constraint (per pair, or per grid cell with multi_volume) at its
// point of application, with its multipliers as forces. The solve writes each constraint's normal impulse
// (lambda |dV/dx|, Allard et al. 2010 eq. 12) and friction impulse back onto its contact; divided by h they are
// the forces of the step.
#include "solvers/report_contacts.h"
#include "solvers/volume/volume_solver.h"

namespace cl {

void VolumeSolver::report_contacts(const StepContext& ctx, ContactReport& out) const {
  report_impulses(ctx.bodies, ctx.contacts, ctx.dt, out);
}

}  // namespace cl
