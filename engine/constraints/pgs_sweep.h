// What every sweep of the projected Gauss-Seidel shares (pgs.cpp's one-row and lane paths, pgs_pair.cpp): the
// one-row update and the order of a backward sweep. Internal to the constraints layer but for pid-penalty's
// finishing sweeps (solvers/pid_penalty/finishing_sweeps.cpp), which take the one-row update pair by pair, each
// pair's friction bounded by the sum of its points' impulses.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

#include "constraints/row.h"

namespace cl {

// The step of a disc pair's rows: one for both, 1 / max(A_11, A_22), so that a sliding contact's friction ends
// opposite its slip (the fixed point of x = lambda - c w projected onto the disc has w along -lambda only when c is
// the same for both rows; with each row's own 1 / A_kk a corner of a box, whose A_kk differ, pushed a little
// sideways and braked less); each row's own where one cannot move (A_kk = 0).
inline void disc_steps(double inv1, double inv2, double& c1, double& c2) {
  const double c = std::min(inv1, inv2);
  c1 = c > 0.0 ? c : inv1;
  c2 = c > 0.0 ? c : inv2;
}

// The update of a disc pair (Row::cone), rows i - 1 and i, both from the same velocities: each row's unbounded
// update x_k = lambda_k - c_k w_k (disc_steps), then (x_1, x_2) scaled onto the disc of radius mu lambda_n if it
// lies outside (the projection onto Coulomb's cone at this normal impulse; Jolt Physics solves a contact's two
// friction rows so), then u += B_1 d_1 + B_2 d_2. The paths that update lanes or compact rows (pgs.cpp,
// pgs_pair.cpp) compute it with the same operations in the same order. Returns the larger |d|.
template <class Lambda>
inline double relax_disc(std::span<const Row> rows, size_t i, Lambda&& lambda, std::span<BodyVelocity> u) {
  const Row& f = rows[i - 1];
  const Row& s = rows[i];
  const double radius = s.mu * lambda(size_t(s.normal_row));
  double& l1 = lambda(i - 1);
  double& l2 = lambda(i);
  double c1, c2;
  disc_steps(f.inv_diag, s.inv_diag, c1, c2);
  const double x1 = l1 - c1 * (f.value(u[size_t(f.a)], u[size_t(f.b)]) - f.target + f.cfm * l1);
  const double x2 = l2 - c2 * (s.value(u[size_t(s.a)], u[size_t(s.b)]) - s.target + s.cfm * l2);
  const double norm2 = x1 * x1 + x2 * x2;
  const double k = norm2 > radius * radius ? radius / std::sqrt(norm2) : 1.0;
  const double d1 = x1 * k - l1, d2 = x2 * k - l2;
  if (d1 != 0.0) {
    l1 = x1 * k;
    f.apply(d1, u);
  }
  if (d2 != 0.0) {
    l2 = x2 * k;
    s.apply(d2, u);
  }
  return std::max(std::abs(d1), std::abs(d2));
}

// The update of row i (thesis sect. 6.1.5): w = J u - target + cfm lambda, lambda <- clamp(lambda - w / A_ii, lo, hi)
// (a friction row's bounds +-mu lambda_normal), u += B d with d the change of lambda; a disc pair's rows together
// (relax_disc). The impulses are read and written through lambda(k), a double& of row k's. Returns |d|.
template <class Lambda>
inline double relax(std::span<const Row> rows, size_t i, Lambda&& lambda, std::span<BodyVelocity> u) {
  const Row& r = rows[i];
  // A disc pair is updated as one, at its second row.
  if (r.cone != FrictionCone::Box) return r.cone == FrictionCone::Second ? relax_disc(rows, i, lambda, u) : 0.0;
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
