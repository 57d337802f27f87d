// The one projected Gauss-Seidel of the engine (thesis sect. 6.1.4-6.1.7), matrix-free: a row update reads
// and writes only its two bodies' velocities. Used for velocity solves and for position corrections (then the
// "velocities" are displacements and the targets are position errors).
#pragma once

#include <span>
#include <vector>

#include "constraints/row.h"
#include "core/task_pool.h"

namespace cl {

// The arithmetic of the vector lanes: double, or float for the rows' fields, the impulses and the velocity
// updates inside a batch (half the memory a sweep streams; the velocities are kept in double between batches).
enum class PgsPrecision { Double, Single };

struct PgsSettings {
  int iterations = 10;     // most sweeps over all rows
  double tolerance = 0.0;  // stop once a sweep changes no lambda by more than this (0: always all sweeps)
  // Alternate the sweep direction (symmetric Gauss-Seidel), so that the rows taken first do not take more of
  // the load. Backward sweeps reverse the order of blocks, not of the rows in a block (Row::follows): a friction
  // row still comes after its normal row, and a joint's limit row after its equality rows.
  bool symmetric = false;
  // When set, each sweep's residual (the largest |change of lambda| in it) is appended here: the convergence.
  std::vector<double>* residuals = nullptr;
  // Update blocks of rows that share no moving body side by side in vector lanes (see pgs.cpp). The rows are
  // still updated in an order equivalent to the given one, with the same arithmetic, so the result is the same
  // bit for bit as one row at a time (false), only sooner.
  bool lanes = true;
  // Sweep the blocks (see pgs.cpp) colour by colour instead of in the given order: each block takes the lowest
  // colour no earlier block sharing a moved body has, so the blocks of a colour commute, fill the vector lanes
  // and can be split among threads (`pool`). A different Gauss-Seidel order than the given one, the same with and
  // without lanes bit for bit. Falls back to the given order for row lists that cannot be cut into blocks or that need more than 256 colours.
  bool coloured = false;
  // With a pool of more than one thread, a lane solve whose levels are large (many batches each, as colouring
  // gives) is split among the threads level by level, and the one-pair path (pgs_pair.h) copies its rows on
  // them; the result is the same bit for bit as on one.
  TaskPool* pool = nullptr;
  // With `relative`, the tolerance is a fraction of the largest |lambda| after the sweep rather than an impulse: the stop then
  // does not depend on the unit of mass (scaling every mass by k scales every lambda by k).
  bool relative = false;
  // Stream long runs of rows between the same two bodies, one of them moved by no row (one touching pair's many
  // points against a fixed body), from a compact copy (see pgs_pair.h): the same result bit for bit as one row
  // at a time, sooner. Taken before the lanes, which cannot put rows of one pair side by side.
  bool pair_runs = true;
  // Single precision in the vector lanes: a different result (about 7 significant digits per update), sooner on
  // solves too large for the caches. The one-row paths (lanes off, rows the lanes cannot take) stay in double.
  PgsPrecision precision = PgsPrecision::Double;
  // With `symmetric`: whether the last sweep runs forward, ending on the rows listed last, or backward, ending on
  // the rows listed first. A solve short of convergence leaves in the velocities the error of the rows it did not
  // update last: end on the contacts, whose friction error no position correction takes back. Ended on the joints,
  // a box held by the friction of two servo-driven fingers crept down them step after step (volume, 20 sweeps, 2 cm
  // at 1/1000 s: 0.75 mm during a 0.77 s lift; with 19 or 21 sweeps, none). A solve with a joint block
  // (joints/joint_solve.h) ends on that block instead, which settles the joints against those contacts.
  bool end_forward = false;
};

struct PgsResult {
  int sweeps = 0;         // sweeps done
  double residual = 0.0;  // largest |change of lambda| in the last sweep
  int threads = 1;        // threads the sweeps were split among
};

// Whether sweep `sweep` (1, 2, ...) of a solve goes backwards: a symmetric solve alternates directions and ends
// as settings.end_forward says, whatever the number of sweeps.
inline bool sweep_backward(const PgsSettings& settings, int sweep) {
  return settings.symmetric && (settings.iterations - sweep) % 2 == (settings.end_forward ? 1 : 0);
}

// The early exit every sweep of solve_pgs ends with (thesis sect. 6.1.4, SOR-LCP-4): true when the sweep moved no
// impulse by more than the tolerance, or with `relative` by more than that fraction of largest(), the largest
// |lambda| after the sweep (called only then).
template <class Largest>
bool sweep_converged(const PgsSettings& settings, double residual, Largest&& largest) {
  return residual <= (settings.relative ? settings.tolerance * largest() : settings.tolerance);
}

// u += M^-1 J^T lambda for every row: the warm start, before solve_pgs.
void apply_impulses(std::span<const Row> rows, std::span<BodyVelocity> u);

// Sweeps lambda_i <- clamp(lambda_i - (w_i / A_ii), lo_i, hi_i) over the rows (in the settings' order), updating u with each
// change, until the tolerance is met or the iterations are spent. Rows must be prepare()d, and u must already
// include M^-1 J^T lambda of the initial lambdas (apply_impulses).
PgsResult solve_pgs(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings);

}  // namespace cl
