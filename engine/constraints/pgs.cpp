#include "constraints/pgs.h"

#include <algorithm>
#include <cmath>

namespace cl {

namespace {

// One row update; returns |change of lambda|.
inline double relax(std::span<Row> rows, Row& r, std::span<BodyVelocity> u) {
  double lo = r.lo, hi = r.hi;
  if (r.normal_row >= 0) {
    // Friction box (digest 4.6): |lambda_t| <= mu lambda_n with the normal impulse of this sweep.
    hi = r.mu * rows[size_t(r.normal_row)].lambda;
    lo = -hi;
  }
  const double w = r.value(u[r.a], u[r.b]) - r.target + r.cfm * r.lambda;
  const double next = std::clamp(r.lambda - r.inv_diag * w, lo, hi);
  const double d = next - r.lambda;
  if (d == 0.0) return 0.0;  // inactive rows (separating, or friction with no load) change nothing
  r.lambda = next;
  r.apply(d, u);
  return std::abs(d);
}

}  // namespace

void apply_impulses(std::span<const Row> rows, std::span<BodyVelocity> u) {
  for (const Row& r : rows)
    if (r.lambda != 0.0) r.apply(r.lambda, u);
}

PgsResult solve_pgs(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings) {
  PgsResult result;
  if (rows.empty()) return result;
  const size_t n = rows.size();
  while (result.sweeps < settings.iterations) {
    ++result.sweeps;
    double residual = 0.0;
    if (!settings.symmetric || result.sweeps % 2 == 1) {
      for (Row& r : rows) residual = std::max(residual, relax(rows, r, u));
    } else {
      // Backward over blocks (a row and the rows that follow it), each block still in its own order.
      for (size_t end = n; end > 0;) {
        size_t begin = end - 1;
        while (begin > 0 && rows[begin].follows) --begin;
        for (size_t i = begin; i < end; ++i) residual = std::max(residual, relax(rows, rows[i], u));
        end = begin;
      }
    }
    result.residual = residual;
    if (settings.residuals) settings.residuals->push_back(residual);
    // Early exit (digest 6.5, SOR-LCP-4): a sweep that moved no impulse by more than the tolerance.
    if (residual <= settings.tolerance) break;
  }
  return result;
}

}  // namespace cl
