#include "solvers/solver.h"

#include "collision/narrowphase.h"
#include "constraints/motion.h"

namespace cl {

void Solver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  cl::collide(bodies, ia, ib, margin, out);
}

void Solver::integrate_positions(StepContext& ctx) { advance_poses(ctx.bodies, ctx.dt); }

}  // namespace cl
