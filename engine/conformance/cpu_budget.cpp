#include "conformance/cpu_budget.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <time.h>
#include <vector>

namespace cl::conformance {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

namespace {

// The workload's system, built once: row i reads x at 4 columns drawn by a fixed linear congruential generator.
struct Workload {
  static constexpr uint32_t kRows = 1u << 16, kPerRow = 4, kSweeps = 24;
  std::vector<uint32_t> columns = std::vector<uint32_t>(kRows * kPerRow);
  std::vector<double> entries = std::vector<double>(kRows * kPerRow), rhs = std::vector<double>(kRows);
  Workload() {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    const auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return uint32_t(state >> 33);
    };
    for (uint32_t k = 0; k < kRows * kPerRow; ++k) {
      columns[k] = next() % kRows;
      entries[k] = -0.2 + 0.1 * double(next() % 4) / 3.0;  // |row sum| < 1 = the diagonal: the sweeps converge
    }
    for (uint32_t i = 0; i < kRows; ++i) rhs[i] = double(int(next() % 200) - 100) / 100.0;
  }
};

}  // namespace

// The workload's result, stored where the compiler must keep it, so that the sweeps are never optimised away.
volatile double machine_workload_result = 0.0;

double machine_workload_seconds() {
  static const Workload w;
  std::vector<double> x(Workload::kRows, 0.0);
  const double start = thread_cpu_seconds();
  for (uint32_t sweep = 0; sweep < Workload::kSweeps; ++sweep)
    for (uint32_t i = 0; i < Workload::kRows; ++i) {
      double r = w.rhs[i];
      for (uint32_t k = i * Workload::kPerRow; k < (i + 1) * Workload::kPerRow; ++k)
        r -= w.entries[k] * x[w.columns[k]];
      x[i] = std::max(0.0, r);  // the projection onto x >= 0 (unit diagonal)
    }
  const double seconds = thread_cpu_seconds() - start;
  machine_workload_result = x[Workload::kRows / 2];
  return seconds;
}

double slowness_of_runs(std::span<const double> run_seconds) {
  if (run_seconds.empty()) return 1.0;
  std::vector<double> runs(run_seconds.begin(), run_seconds.end());
  const auto middle = runs.begin() + std::ptrdiff_t(runs.size() / 2);
  std::nth_element(runs.begin(), middle, runs.end());
  return std::clamp(*middle / kReferenceWorkloadSeconds, kMinSlowness, kMaxSlowness);
}

double machine_slowness() {
  std::array<double, 9> runs{};
  for (double& r : runs) r = machine_workload_seconds();
  return slowness_of_runs(runs);
}

CpuBudget::CpuBudget(double reference_seconds) : reference_(reference_seconds), start_(thread_cpu_seconds()) {}

void CpuBudget::raise_to(double reference_seconds) {
  if (reference_ > 0) reference_ = std::max(reference_, reference_seconds);
}

bool CpuBudget::exceeded() {
  if (reference_ <= 0) return false;
  const double used = used_seconds();
  if (!measured_ && used > kMinSlowness * reference_) {
    slowness_ = machine_slowness();
    measured_ = true;
  }
  return measured_ && used > allowed_seconds();
}

std::string CpuBudget::describe() const {
  char text[120];
  if (measured_)
    std::snprintf(text, sizeof text, "%g s of CPU on the reference machine (%.3g s here, %.3g times slower)",
                  reference_, allowed_seconds(), slowness_);
  else
    std::snprintf(text, sizeof text, "%g s of CPU on the reference machine", reference_);
  return text;
}

}  // namespace cl::conformance
