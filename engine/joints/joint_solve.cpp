#include "joints/joint_solve.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace cl {

void motor_row_indices(std::span<const JointRow> joint_rows, int first, std::vector<int>& out) {
  out.clear();
  for (size_t i = 0; i < joint_rows.size(); ++i)
    if (joint_rows[i].kind == kRowMotor) out.push_back(first + int(i));
}

namespace {

// Closes each motor's bounds on its impulse (holds it), keeping its own bounds to reopen them. A buffer reused
// across calls (pid-penalty solves its joints every substep).
class HeldMotors {
 public:
  HeldMotors(std::span<Row> rows, std::span<const int> motors) : rows_(rows), motors_(motors) {}
  ~HeldMotors() { release(); }
  void hold() {
    bounds().clear();
    for (int i : motors_) {
      Row& r = rows_[size_t(i)];
      bounds().emplace_back(r.lo, r.hi);
      r.lo = r.hi = r.lambda;
    }
    held_ = true;
  }
  void release() {
    if (!held_) return;
    for (size_t k = 0; k < motors_.size(); ++k) {
      Row& r = rows_[size_t(motors_[k])];
      std::tie(r.lo, r.hi) = bounds()[k];
    }
    held_ = false;
  }

 private:
  static std::vector<std::pair<double, double>>& bounds() {
    thread_local std::vector<std::pair<double, double>> kept;
    return kept;
  }
  std::span<Row> rows_;
  std::span<const int> motors_;
  bool held_ = false;
};

PgsResult solve_holding_motors(std::span<Row> rows, std::span<const int> motors, std::span<BodyVelocity> u,
                               const PgsSettings& settings) {
  if (motors.empty() || settings.iterations < 2) return solve_pgs(rows, u, settings);
  PgsSettings half = settings;
  half.iterations = (settings.iterations + 1) / 2;
  PgsResult result = solve_pgs(rows, u, half);
  HeldMotors held(rows, motors);
  held.hold();
  half.iterations = settings.iterations - half.iterations;
  const PgsResult second = solve_pgs(rows, u, half);
  result.sweeps += second.sweeps;
  result.residual = second.residual;
  result.threads = std::max(result.threads, second.threads);
  return result;
}

}  // namespace

PgsResult solve_joints_and_contacts(std::span<Row> rows, JointBlock joints, std::span<const int> motors,
                                    std::span<BodyVelocity> u, const PgsSettings& settings) {
  joints.rows = std::clamp(joints.rows, 0, int(rows.size()));
  if (joints.rows == 0 || joints.sweeps <= 0) return solve_holding_motors(rows, motors, u, settings);
  const std::span<Row> joint_rows = rows.first(size_t(joints.rows));
  // One sweep over all rows at a time, in the direction the whole solve would take it (a symmetric solve of one
  // sweep runs backward unless it ends forward), then the joint block's own solve.
  PgsSettings all = settings;
  all.iterations = 1;
  all.residuals = nullptr;
  PgsSettings block = settings;
  block.iterations = joints.sweeps;
  block.residuals = nullptr;
  const int held_from = motors.empty() || settings.iterations < 2 ? settings.iterations : (settings.iterations + 1) / 2;
  HeldMotors held(rows, motors);
  PgsResult result;
  for (int sweep = 1; sweep <= settings.iterations; ++sweep) {
    if (sweep == held_from + 1) held.hold();
    all.symmetric = sweep_backward(settings, sweep);
    all.end_forward = false;
    const PgsResult one = solve_pgs(rows, u, all);
    solve_pgs(joint_rows, u, block);
    result.sweeps += 1;
    result.residual = one.residual;
    result.threads = std::max(result.threads, one.threads);
    if (settings.residuals) settings.residuals->push_back(one.residual);
    const bool converged = sweep_converged(settings, one.residual, [&] {
      double largest = 0.0;
      for (const Row& r : rows) largest = std::max(largest, std::abs(r.lambda));
      return largest;
    });
    if (converged) break;
  }
  return result;
}

}  // namespace cl
