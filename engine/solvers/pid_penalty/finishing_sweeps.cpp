// The finishing sweeps of the implicit springs (implicit_springs.cpp): where the active set has not settled within
// its solves and rows still pull, the substep's forces are finished by projected Gauss-Seidel sweeps of the engine's
// one row update (constraints/pgs_sweep.h, thesis sect. 6.1.5) on the same rows and the same laws, from where the
// last solve left them.
//
// Each spring row is a soft constraint row. Its force F = s - e u (eq. 3 linearly implicit, u the row's rate: see
// implicit_springs.cpp) is an impulse lambda = h F over the substep, so w = J u - s / e + lambda / (h e) = 0 is the
// row's law: the shared Row's target s / e and constraint force mixing 1 / (h e) (thesis sect. 4.15). A point's
// row is bounded below by its least force (no pull, the max of eq. 3); the pair's two tilt rows within their reach
// times the pair's normal force N, and its two friction rows as a disc pair within mu (N + pressed) (Coulomb's
// cone), N re-read from the pair's point rows just swept. Every force after a sweep lies within its bounds and the
// velocities are those its forces give, so nothing pulls; what the sweeps leave unconverged is a little less support,
// which the springs' depth takes up over the next substeps. Held at their pull instead, 2,800 rows of a 60-row
// pyramid's first substep pulled by 5 MN in all, friction held against the slip of the solve before pushed along
// the slip of the last, and the pyramid blew up in its second step.
#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>

#include "constraints/pgs_sweep.h"
#include "constraints/row.h"
#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

namespace {
// Sweeps over the rows. With 20 a 60-row pyramid settles to 0.2 J within 20 steps (it rattles at some 5 kJ
// without), and `tower320` (80 courses of 4 bricks) rests at 1e-4 J (4 J before; with 10 sweeps 0.02 J, its
// substeps then finished at every one).
constexpr int kFinishingSweeps = 20;
}  // namespace

void PidPenaltySolver::finish_springs(const std::vector<Body>& work, double h, std::span<const int> slot,
                                      std::span<const SystemRow> system, Eigen::VectorXd& v,
                                      std::vector<double>& force) const {
  const size_t nr = springs_.size();
  // The velocities of every body: the unknowns' from v, the others' (fixed, kinematic) as they move.
  thread_local std::vector<BodyVelocity> u;
  thread_local std::vector<InverseMass> inverse;
  u.resize(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    const int k = slot[i];
    u[i] = k >= 0 ? BodyVelocity{v.segment<3>(6 * k), v.segment<3>(6 * k + 3)}
                  : BodyVelocity{work[i].linear_velocity, work[i].angular_velocity};
  }
  load_inverse_masses(work, inverse);
  // lambda: the rows' impulses, then two per pair: h N and h (N + pressed), the bounds of its tilt and friction rows.
  thread_local std::vector<Row> rows;
  thread_local std::vector<double> lambda;
  thread_local std::vector<size_t> pair_end;  // per pair: one past its last row
  rows.resize(nr);
  pair_end.clear();
  for (size_t r = 0; r < nr; ++r)
    if (r + 1 == nr || springs_[r + 1].pair != springs_[r].pair) pair_end.push_back(r + 1);
  lambda.resize(nr + 2 * pair_end.size());
  for (size_t p = 0, first = 0; p < pair_end.size(); first = pair_end[p++]) {
    const size_t end = pair_end[p];
    const bool friction = end - first >= 2 && springs_[end - 2].point == kFrictionRow;
    for (size_t r = first; r < end; ++r) {
      const SpringRow& spring = springs_[r];
      Row& row = rows[r];
      row = Row{};
      row.a = spring.a;
      row.b = spring.b;
      row.ja_lin = system[r].ja.head<3>();
      row.ja_ang = system[r].ja.tail<3>();
      row.jb_lin = system[r].jb.head<3>();
      row.jb_ang = system[r].jb.tail<3>();
      if (spring.e > 0.0) {
        row.target = spring.s / spring.e;
        row.cfm = 1.0 / (h * spring.e);
      } else {  // a force that does not depend on the rate: fixed at s
        row.lo = row.hi = h * spring.s;
      }
      if (spring.angular) {
        row.normal_row = int(nr + 2 * p);
        row.mu = spring.reach;
      } else if (friction && r >= end - 2) {
        row.normal_row = int(nr + 2 * p + 1);
        row.mu = spring.pair->friction;
        row.cone = r == end - 2 ? FrictionCone::First : FrictionCone::Second;
      } else if (spring.e > 0.0) {
        row.lo = h * spring.lower;
      }
      prepare(row, inverse);
      lambda[r] = h * force[r];
    }
  }
  const auto at = [&](size_t k) -> double& { return lambda[k]; };
  const std::span<const Row> view(rows);
  for (int sweep = 0; sweep < kFinishingSweeps; ++sweep) {
    for (size_t p = 0, first = 0; p < pair_end.size(); first = pair_end[p++]) {
      const size_t end = pair_end[p];
      double N = 0.0;  // N s: the pair's normal impulse
      for (size_t r = first; r < end; ++r)
        if (!springs_[r].angular && springs_[r].point > kFrictionRow) {
          relax(view, r, at, u);
          N += lambda[r];
        }
      lambda[nr + 2 * p] = std::max(N, 0.0);
      lambda[nr + 2 * p + 1] = std::max(N + h * springs_[first].pair->pressed, 0.0);
      for (size_t r = first; r < end; ++r)
        if (springs_[r].angular || springs_[r].point <= kFrictionRow) relax(view, r, at, u);
    }
  }
  for (size_t r = 0; r < nr; ++r) force[r] = lambda[r] / h;
  for (size_t i = 0; i < work.size(); ++i) {
    const int k = slot[i];
    if (k < 0) continue;
    v.segment<3>(6 * k) = u[i].v;
    v.segment<3>(6 * k + 3) = u[i].w;
  }
}

}  // namespace cl
