// What every sweep of the projected Gauss-Seidel shares (pgs.cpp's one-row and lane paths, pgs_pair.cpp): the
// one-row update and the order of a backward sweep. Internal to the constraints layer.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

#include "constraints/row.h"

namespace cl {

// The update of row i (thesis sect. 6.1.5): w = J u - target + cfm lambda, lambda <- clamp(lambda - w / A_ii, lo, hi)
// (a friction row's bounds +-mu lambda_normal), u += B d with d the change of lambda. The impulses are read and
// written through lambda(k), a double& of row k's. Returns |d|.
template <class Lambda>
inline double relax(std::span<const Row> rows, size_t i, Lambda&& lambda, std::span<BodyVelocity> u) {
  const Row& r = rows[i];
  double lo = r.lo, hi = r.hi;
  if (r.normal_row >= 0) {
    hi = r.mu * lambda(size_t(r.normal_row));
    lo = -hi;
  }
  double& l = lambda(i);
  const double w = r.value(u[size_t(r.a)], u[size_t(r.b)]) - r.target + r.cfm * l;
  const double x = l - r.inv_diag * w;
  // d = clamp(x, lo, hi) - lambda, the subtraction taken on each of std::clamp's outcomes (the same bits), so that
  // only x - lambda and the comparisons wait for w (see pgs_pair.cpp, where this chain is the solve's time).
  const double d = x < lo ? lo - l : hi < x ? hi - l : x - l;
  if (d == 0.0) return 0.0;
  l = std::clamp(x, lo, hi);
  r.apply(d, u);
  return std::abs(d);
}

// Calls visit(i) for every i in [begin, end) as a backward sweep takes them (PgsSettings::symmetric): the groups
// (a row and the rows that follow it) last to first, each group's rows in order. leads(i) tells whether row i
// leads its group; `begin` always does.
template <class Index, class Leads, class Visit>
inline void backward_by_groups(Index begin, Index end, Leads&& leads, Visit&& visit) {
  while (end > begin) {
    Index first = end - 1;
    while (first > begin && !leads(first)) --first;
    for (Index i = first; i < end; ++i) visit(i);
    end = first;
  }
}

}  // namespace cl
