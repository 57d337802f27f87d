// The projected Gauss-Seidel's path for long runs of rows between the same two bodies (one touching pair's many
// contact points: a bolt in its thread gives 44,000 friction rows of one pair), which solve_pgs (pgs.h) takes
// before its lanes. Every row update of such a run reads and writes the same two bodies, so the run cannot go
// side by side in lanes; instead its rows are streamed from a compact copy with the moving body's velocity held
// in registers. Internal to the constraints layer.
#pragma once

#include <optional>
#include <span>

#include "constraints/pgs.h"

namespace cl {

// Solves the rows as solve_pgs does one row at a time, with the same arithmetic in the same order, so the
// impulses, the velocities, the residuals and the sweep count are the same bit for bit. Returns nothing (and
// leaves rows and u untouched) when the row list is not mostly long runs of one pair with one side that no row
// moves, where the copy would not pay.
std::optional<PgsResult> solve_pgs_pair_runs(std::span<Row> rows, std::span<BodyVelocity> u,
                                             const PgsSettings& settings);

}  // namespace cl
