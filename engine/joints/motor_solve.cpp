#include "joints/motor_solve.h"

#include <algorithm>
#include <utility>

namespace cl {

void motor_row_indices(std::span<const JointRow> joint_rows, int first, std::vector<int>& out) {
  out.clear();
  for (size_t i = 0; i < joint_rows.size(); ++i)
    if (joint_rows[i].kind == kRowMotor) out.push_back(first + int(i));
}

PgsResult solve_pgs_holding_motors(std::span<Row> rows, std::span<const int> motors, std::span<BodyVelocity> u,
                                   const PgsSettings& settings) {
  if (motors.empty() || settings.iterations < 2) return solve_pgs(rows, u, settings);
  PgsSettings half = settings;
  half.iterations = (settings.iterations + 1) / 2;
  PgsResult result = solve_pgs(rows, u, half);
  // Hold each motor at its impulse: bounds closed on it, opened again after the sweeps.
  // The motors' own bounds, kept to reopen them: a buffer reused across calls (pid-penalty solves its joints every
  // substep).
  thread_local std::vector<std::pair<double, double>> bounds;
  bounds.clear();
  for (int i : motors) {
    Row& r = rows[size_t(i)];
    bounds.emplace_back(r.lo, r.hi);
    r.lo = r.hi = r.lambda;
  }
  half.iterations = settings.iterations - half.iterations;
  const PgsResult held = solve_pgs(rows, u, half);
  for (size_t k = 0; k < motors.size(); ++k) std::tie(rows[size_t(motors[k])].lo, rows[size_t(motors[k])].hi) = bounds[k];
  result.sweeps += held.sweeps;
  result.residual = held.residual;
  result.threads = std::max(result.threads, held.threads);
  return result;
}

}  // namespace cl
