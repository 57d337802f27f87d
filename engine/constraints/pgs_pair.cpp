#include "constraints/pgs_pair.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "constraints/pgs_sweep.h"

namespace cl {

namespace {

// ---------------------------------------------------------------------------------------------------------
// Long runs of one pair.
//
// The rows are cut into runs: maximal stretches of consecutive rows between the same two bodies. A run of at
// least kMinRunRows rows whose one body no row of the solve moves (a fixed block, the ground: its B = M^-1 J^T
// is zero in every row) is "frozen" on that side: the frozen body's velocity never changes, so its part of
// J u is the same in every sweep and is computed once, and only the moving body's velocity is updated, held in
// registers across the run. Such a run's rows are copied once into compact rows (the frozen side's constant,
// the moving side's J and B, the bounds) of 176 bytes instead of a Row's 264, and rows that provably never
// change (below) are left out; every other row is swept from the caller's list. The arithmetic is the one-row
// path's (pgs_sweep.h, relax), operation for operation:
//   w = J u - target + cfm lambda, J u summed as ((J_a,lin u_a,v + J_a,ang u_a,w) + J_b,lin u_b,v) + J_b,ang u_b,w,
//   each dot product as (x0 y0 + x1 y1) + x2 y2 (Eigen's order for a 3-vector),
//   lambda <- clamp(lambda - w / A_ii, lo, hi), u += B (lambda_new - lambda),
// so the frozen side's constant is exactly the partial sum the one-row path forms first (side a) or adds last
// (side b, two constants, kept apart). A frozen body's velocity is left as it is; the one-row path adds d times
// a zero B to it, which leaves every component unchanged unless it is -0 (then +0 may result): a body with a -0
// component is not taken as frozen.
//
// A row is inert when no update can change anything: its B is zero on both sides (it moves no body), it takes
// its bounds from itself, lo == hi == lambda != 0 and every input is finite. Then lambda - w / A_ii is either
// clamped back to lambda or equals it in value, and being non-zero, in bits: d = 0. The implicit-penalty
// friction's normal rows (a row without a Jacobian that only holds the normal impulse) are such rows; a
// friction row bounded by an inert normal row has the constant bounds +-mu lambda_n, computed as the one-row
// path computes them.
//
// A run whose kept rows all have target = cfm = +0 (friction rows) computes w as J u alone (see sweep_run).
//
// Non-finite values (an overflow in a sweep) would make the skipped and folded parts differ from the one-row
// path's, so a solve that ends with any non-finite impulse or velocity is undone and left to the other paths.
// ---------------------------------------------------------------------------------------------------------

constexpr size_t kMinRunRows = 64;

enum class Frozen { kNone, kA, kB };

struct CompactRow {
  double k0, k1;    // frozen a: k0 = J_a u_a (k1 unused); frozen b: k0 = J_b,lin u_b,v, k1 = J_b,ang u_b,w
  double j[6];      // the moving side's J (linear, angular)
  double m[6];      // the moving side's B = M^-1 J^T (linear, angular)
  double target, cfm, inv_diag, lo, hi, mu;
  int32_t index;    // the row's place in the caller's list (its impulse is lam[index])
  int32_t normal;   // the row whose impulse bounds this one (+-mu lam[normal]), or -1 for [lo, hi]
  int32_t lead;     // 1 when it leads its group (a row and the rows that follow it) among the kept rows
  int32_t cone;     // Row::cone: 0 box, 1 first of a disc pair, 2 second (updated with the row before it)
};

struct Run {
  size_t first = 0, count = 0;            // rows [first, first + count) of the caller's list
  Frozen frozen = Frozen::kNone;          // kNone: swept from the caller's rows
  bool no_bias = false;                   // every compact row has target = cfm = +0
  size_t compact = 0, compact_count = 0;  // its compact rows
  int moving = -1;                        // the body whose velocity it updates (frozen runs)
};

// One per thread, reused between solves.
struct Work {
  std::vector<Run> runs;
  std::vector<CompactRow> compact;
  std::vector<double> lam;
  std::vector<char> moved, inert;
  std::vector<BodyVelocity> saved_u;
};


bool has_negative_zero(const BodyVelocity& b) {
  for (int k = 0; k < 3; ++k)
    if ((b.v[k] == 0.0 && std::signbit(b.v[k])) || (b.w[k] == 0.0 && std::signbit(b.w[k]))) return true;
  return false;
}

bool is_inert(const Row& r) {
  return !r.moves_a() && !r.moves_b() && r.normal_row < 0 && r.lo == r.hi && r.lambda == r.hi && r.lambda != 0.0 &&
         std::isfinite(r.lambda) && all_finite(r.ja_lin) && all_finite(r.ja_ang) && all_finite(r.jb_lin) &&
         all_finite(r.jb_ang) && std::isfinite(r.target) && std::isfinite(r.cfm) && std::isfinite(r.inv_diag);
}

// (x0 y0 + x1 y1) + x2 y2: Eigen's dot product of two 3-vectors, as Row::value evaluates it.
inline double dot3(const double* x, double y0, double y1, double y2) { return x[0] * y0 + x[1] * y1 + x[2] * y2; }

// One sweep over a frozen run's compact rows (backward: its groups last to first, each group's rows in order),
// the moving body's velocity in registers. Returns the largest |change of lambda|.
template <Frozen kSide, bool kNoBias>
double sweep_run(const CompactRow* rows, size_t count, double* lam, BodyVelocity& moving, bool backward) {
  double v0 = moving.v.x(), v1 = moving.v.y(), v2 = moving.v.z();
  double w0 = moving.w.x(), w1 = moving.w.y(), w2 = moving.w.z();
  double residual = 0.0;
  // The unbounded update x = lambda - step w of row r, w = J u - target + cfm lambda (step: 1 / A_ii, or a disc
  // pair's, disc_steps).
  auto unbounded = [&](const CompactRow& r, double step) {
    const double lin = dot3(r.j, v0, v1, v2), ang = dot3(r.j + 3, w0, w1, w2);
    double value;
    if constexpr (kSide == Frozen::kA)
      value = r.k0 + lin + ang;  // ((J_a u_a) + J_b,lin u_b,v) + J_b,ang u_b,w
    else
      value = lin + ang + r.k0 + r.k1;  // ((J_a,lin u_a,v + J_a,ang u_a,w) + J_b,lin u_b,v) + J_b,ang u_b,w
    const double lambda = lam[r.index];
    double w;
    if constexpr (kNoBias) {
      // (value - 0) + 0 lambda, without two operations on the chain from the velocity: value - (+0) is value in
      // every case, and adding 0 lambda (a zero; a non-finite lambda ends in the other paths) can only turn a -0
      // into +0. A zero w's sign changes nothing: lambda - w / A_ii then equals lambda in value, so the clamp
      // gives lo or hi as it would, or a value equal to lambda, and d == 0 leaves everything as it was (in a
      // disc pair, x differs at most in the sign of a zero, and so do x k and d).
      w = value;
    } else {
      w = value - r.target + r.cfm * lambda;
    }
    return lambda - step * w;
  };
  auto apply = [&](const CompactRow& r, double d) {
    v0 += d * r.m[0];
    v1 += d * r.m[1];
    v2 += d * r.m[2];
    w0 += d * r.m[3];
    w1 += d * r.m[4];
    w2 += d * r.m[5];
  };
  auto update = [&](size_t i) {
    const CompactRow& r = rows[i];
    if (r.cone == 1) return;  // a disc pair's first row: updated with its second
    if (r.cone == 2) {
      // The disc pair rows[i - 1], rows[i] (relax_disc in pgs_sweep.h, operation for operation).
      const CompactRow& f = rows[i - 1];
      const double radius = r.normal >= 0 ? r.mu * lam[r.normal] : r.hi;
      double c1, c2;
      disc_steps(f.inv_diag, r.inv_diag, c1, c2);
      const double x1 = unbounded(f, c1), x2 = unbounded(r, c2);
      const double norm2 = x1 * x1 + x2 * x2;
      const double k = norm2 > radius * radius ? radius / std::sqrt(norm2) : 1.0;
      double& l1 = lam[f.index];
      double& l2 = lam[r.index];
      const double d1 = x1 * k - l1, d2 = x2 * k - l2;
      if (d1 != 0.0) {
        l1 = x1 * k;
        apply(f, d1);
      }
      if (d2 != 0.0) {
        l2 = x2 * k;
        apply(r, d2);
      }
      residual = std::max(residual, std::max(std::abs(d1), std::abs(d2)));
      return;
    }
    double lo = r.lo, hi = r.hi;
    if (r.normal >= 0) {
      hi = r.mu * lam[r.normal];
      lo = -hi;
    }
    double& lambda = lam[r.index];
    const double x = unbounded(r, r.inv_diag);
    // d = clamp(x, lo, hi) - lambda with the subtraction taken on each of std::clamp's three outcomes: the same
    // operand minus lambda, so the same bits, but lo - lambda and hi - lambda do not wait for w, and x - lambda
    // runs beside the comparisons instead of after a max and a min (the chain from one row to the next is this
    // solve's time).
    const double d = x < lo ? lo - lambda : hi < x ? hi - lambda : x - lambda;
    if (d == 0.0) return;
    lambda = std::clamp(x, lo, hi);
    apply(r, d);
    residual = std::max(residual, std::abs(d));
  };
  if (!backward) {
    for (size_t i = 0; i < count; ++i) update(i);
  } else {
    backward_by_groups(size_t(0), count, [&](size_t i) { return rows[i].lead != 0; }, update);
  }
  moving.v = Vec3(v0, v1, v2);
  moving.w = Vec3(w0, w1, w2);
  return residual;
}

// Rows [first, last) of a frozen run, `first` leading its group, copied to `out` (the kept ones, in order): the
// moving side's J and B, the still side's constant (`side_a`: the still body is a), the bounds.
CompactRow* copy_compact(std::span<const Row> rows, const Work& W, size_t first, size_t last, bool side_a,
                         const BodyVelocity& still, CompactRow* out) {
  bool lead = true;
  for (size_t i = first; i < last; ++i) {
    const Row& r = rows[i];
    if (!r.follows) lead = true;
    if (W.inert[i]) continue;
    // Written in place, field by field: built in a local and copied out, the row went through the stack in
    // pieces whose wider loads waited on narrower stores (where the copy was compiled into a pool task, 0.113 ms
    // per 4,096 rows against 0.031 in place).
    CompactRow& c = *out++;
    c.k1 = 0.0;
    c.cone = int32_t(r.cone);
    const Vec3& jl = side_a ? r.jb_lin : r.ja_lin;
    const Vec3& ja = side_a ? r.jb_ang : r.ja_ang;
    const Vec3& ml = side_a ? r.bb_lin : r.ba_lin;
    const Vec3& ma = side_a ? r.bb_ang : r.ba_ang;
    for (int k = 0; k < 3; ++k) {
      c.j[k] = jl[k];
      c.j[3 + k] = ja[k];
      c.m[k] = ml[k];
      c.m[3 + k] = ma[k];
    }
    if (side_a) {
      c.k0 = r.ja_lin.dot(still.v) + r.ja_ang.dot(still.w);
    } else {
      c.k0 = r.jb_lin.dot(still.v);
      c.k1 = r.jb_ang.dot(still.w);
    }
    c.target = r.target;
    c.cfm = r.cfm;
    c.inv_diag = r.inv_diag;
    c.lo = r.lo;
    c.hi = r.hi;
    c.mu = r.mu;
    c.normal = r.normal_row;
    if (r.normal_row >= 0 && W.inert[size_t(r.normal_row)]) {
      // An inert normal row's impulse never changes: the bounds are constants.
      c.hi = r.mu * rows[size_t(r.normal_row)].lambda;
      c.lo = -c.hi;
      c.normal = -1;
    }
    c.index = int32_t(i);
    c.lead = lead ? 1 : 0;
    lead = false;
  }
  return out;
}

// Rows per task of lay_out's work on a pool's threads.
constexpr size_t kRowsPerTask = 4096;

// Cuts the rows into runs and copies the frozen runs' rows; false when the list does not qualify. With a pool of
// more than one thread, the inert rows are found and the rows copied in pieces on its threads (each piece writes
// its own places; the copy is the same).
bool lay_out(std::span<const Row> rows, std::span<const BodyVelocity> u, Work& W, TaskPool* pool) {
  const size_t n = rows.size(), bodies = u.size();
  W.runs.clear();
  W.moved.assign(bodies, 0);
  W.inert.resize(n);
  const bool threads = pool && pool->threads() > 1 && n >= 2 * kRowsPerTask;
  if (threads) {
    pool->run(int((n + kRowsPerTask - 1) / kRowsPerTask), [&](int task, int) {
      const size_t end = std::min(n, size_t(task + 1) * kRowsPerTask);
      for (size_t i = size_t(task) * kRowsPerTask; i < end; ++i) W.inert[i] = is_inert(rows[i]);
    });
  }
  for (size_t i = 0; i < n; ++i) {
    const Row& r = rows[i];
    if (r.a < 0 || r.b < 0 || size_t(r.a) >= bodies || size_t(r.b) >= bodies) return false;
    if (r.normal_row >= int(n)) return false;
    const bool same = i > 0 && r.a == rows[i - 1].a && r.b == rows[i - 1].b;
    // A group (a row and the rows that follow it) stays within a run, so that runs can be swept backwards whole.
    if (r.follows && i > 0 && !same) return false;
    if (same) {
      ++W.runs.back().count;
    } else {
      Run run;
      run.first = i;
      run.count = 1;
      W.runs.push_back(run);
    }
    if (r.moves_a()) W.moved[size_t(r.a)] = 1;
    if (r.moves_b()) W.moved[size_t(r.b)] = 1;
    if (!threads) W.inert[i] = is_inert(r);
  }
  size_t frozen_rows = 0;
  for (Run& run : W.runs) {
    if (run.count < kMinRunRows) continue;
    const Row& r = rows[run.first];
    if (r.a == r.b) continue;
    const bool frozen_a = !W.moved[size_t(r.a)] && !has_negative_zero(u[size_t(r.a)]);
    const bool frozen_b = !W.moved[size_t(r.b)] && !has_negative_zero(u[size_t(r.b)]);
    if (frozen_a) {
      run.frozen = Frozen::kA;
      run.moving = r.b;
    } else if (frozen_b) {
      run.frozen = Frozen::kB;
      run.moving = r.a;
    } else {
      continue;
    }
    frozen_rows += run.count;
  }
  // Most of the rows, or the copy does not pay.
  if (2 * frozen_rows < n) return false;

  // Pieces of the frozen runs, each starting at a group's lead, with the place of their first compact row.
  struct Piece {
    size_t first, last, at;
    const Run* run;
  };
  thread_local std::vector<Piece> pieces;
  pieces.clear();
  size_t total = 0;
  for (Run& run : W.runs) {
    if (run.frozen == Frozen::kNone) continue;
    run.compact = total;
    const size_t end = run.first + run.count;
    for (size_t first = run.first; first < end;) {
      size_t last = std::min(end, first + kRowsPerTask);
      while (last < end && rows[last].follows) ++last;
      size_t kept = 0;
      for (size_t i = first; i < last; ++i) kept += W.inert[i] ? 0 : 1;
      pieces.push_back({first, last, total, &run});
      total += kept;
      first = last;
    }
    run.compact_count = total - run.compact;
  }
  W.compact.resize(total);
  auto copy_piece = [&](const Piece& p) {
    const bool side_a = p.run->frozen == Frozen::kA;
    const Row& r = rows[p.run->first];
    copy_compact(rows, W, p.first, p.last, side_a, u[size_t(side_a ? r.a : r.b)], W.compact.data() + p.at);
  };
  if (threads) {
    std::vector<Piece>& all = pieces;  // this thread's (a lambda does not capture a thread_local)
    pool->run(int(all.size()), [&](int task, int) { copy_piece(all[size_t(task)]); });
  } else {
    for (const Piece& p : pieces) copy_piece(p);
  }
  for (Run& run : W.runs) {
    if (run.frozen == Frozen::kNone) continue;
    run.no_bias = true;
    for (size_t k = run.compact; k < run.compact + run.compact_count; ++k) {
      const CompactRow& c = W.compact[k];
      if (!(c.target == 0.0 && !std::signbit(c.target) && c.cfm == 0.0 && !std::signbit(c.cfm))) run.no_bias = false;
    }
  }
  return true;
}

}  // namespace

std::optional<PgsResult> solve_pgs_pair_runs(std::span<Row> rows, std::span<BodyVelocity> u,
                                             const PgsSettings& settings) {
  if (rows.size() < kMinRunRows || settings.iterations < 2 || rows.size() > size_t(INT32_MAX)) return std::nullopt;
  thread_local Work W;
  if (!lay_out(rows, u, W, settings.pool)) return std::nullopt;
  const size_t n = rows.size();
  W.lam.resize(n);
  for (size_t i = 0; i < n; ++i) W.lam[i] = rows[i].lambda;
  W.saved_u.assign(u.begin(), u.end());
  const size_t recorded = settings.residuals ? settings.residuals->size() : 0;
  double* lam = W.lam.data();

  PgsResult result;
  while (result.sweeps < settings.iterations) {
    ++result.sweeps;
    double residual = 0.0;
    const bool backward = sweep_backward(settings, result.sweeps);
    for (size_t k = 0; k < W.runs.size(); ++k) {
      const Run& run = W.runs[backward ? W.runs.size() - 1 - k : k];
      if (run.frozen != Frozen::kNone) {
        const CompactRow* c = W.compact.data() + run.compact;
        BodyVelocity& moving = u[size_t(run.moving)];
        const size_t m = run.compact_count;
        double r;
        if (run.frozen == Frozen::kA)
          r = run.no_bias ? sweep_run<Frozen::kA, true>(c, m, lam, moving, backward)
                          : sweep_run<Frozen::kA, false>(c, m, lam, moving, backward);
        else
          r = run.no_bias ? sweep_run<Frozen::kB, true>(c, m, lam, moving, backward)
                          : sweep_run<Frozen::kB, false>(c, m, lam, moving, backward);
        residual = std::max(residual, r);
      } else {
        auto update = [&](size_t i) {
          residual = std::max(residual, relax(rows, i, [lam](size_t k) -> double& { return lam[k]; }, u));
        };
        if (!backward) {
          for (size_t i = run.first; i < run.first + run.count; ++i) update(i);
        } else {
          backward_by_groups(run.first, run.first + run.count, [&](size_t i) { return !rows[i].follows; }, update);
        }
      }
    }
    result.residual = residual;
    if (settings.residuals) settings.residuals->push_back(residual);
    if (sweep_converged(settings, residual, [&] {
          double largest = 0.0;
          for (size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(lam[i]));
          return largest;
        }))
      break;
  }

  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i) ok = std::isfinite(lam[i]);
  for (size_t i = 0; i < u.size() && ok; ++i) ok = all_finite(u[i].v) && all_finite(u[i].w);
  if (!ok) {
    std::copy(W.saved_u.begin(), W.saved_u.end(), u.begin());
    if (settings.residuals) settings.residuals->resize(recorded);
    return std::nullopt;
  }
  for (size_t i = 0; i < n; ++i) rows[i].lambda = lam[i];
  return result;
}

}  // namespace cl
