// lcp's contact report: each point contact with the impulses its PGS solved (the first fraction and the
// shock-propagation layers together, thesis sect. 6.4-6.5), divided by h (thesis eq. 6.76 steps by impulses).
#include "solvers/lcp/lcp_solver.h"
#include "solvers/report_contacts.h"

namespace cl {

void LcpSolver::report_contacts(const StepContext& ctx, ContactReport& out) const {
  report_impulses(ctx.bodies, ctx.contacts, ctx.dt, out);
}

}  // namespace cl
