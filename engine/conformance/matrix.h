// The conformance matrix: every case (rows) under each solver (columns), each cell the case's sweep over its
// conditions (sweep.h), and the matrix's text and Markdown forms. `contactlab --conformance [--markdown]
// [--solver NAME] [--case NAME]...` prints it; docs/conformance.md holds the Markdown form (a test keeps them
// equal).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "conformance/conformance.h"

namespace cl::conformance {

// One cell: a case under a solver at every condition of its sweep.
struct Sweep {
  std::vector<CellResult> points;  // in the order of sweep_conditions

  // Fail when a point fails; else MethodLimit when a point is marked as the method's; else Pass.
  Verdict verdict() const;
  int count(Verdict v) const;
  // The point furthest from its exact value in tolerances (CellResult::badness; a stopped run or a broken
  // secondary check is the furthest), the first of equals.
  const CellResult& worst() const;
  double seconds() const;  // CPU time of the runs
};

struct Matrix {
  std::vector<const Case*> cases;
  std::vector<std::string> solvers;
  std::vector<Sweep> cells;  // row by row: cells[case * solvers.size() + solver]

  const Sweep& cell(size_t case_index, size_t solver_index) const {
    return cells[case_index * solvers.size() + solver_index];
  }
  // True when no point failed (each passed or is marked as its method's limit).
  bool passes() const;
};

struct MatrixOptions {
  std::vector<std::string> solvers;  // every registered solver when empty; an unknown one's points fail saying so
  // The cases in the table's order when empty; an unknown name throws std::invalid_argument listing the cases.
  std::vector<std::string> cases;
  bool sweep = true;  // every condition of each case's sweep; false: its nominal condition only
  ParamOverrides params;  // parameters set on top of each solver's defaults (a name a solver lacks fails its points)
  int jobs = 1;           // threads (at least 1)
  // Called after each point (from the worker that ran it, one call at a time).
  std::function<void(const CellResult&)> done;
};

// Runs the points on `jobs` threads. Points are independent worlds, so the figures do not depend on `jobs` or on
// the order they finish in.
Matrix run_matrix(const std::string& scene_dir, const MatrixOptions& options);
// The case names, comma-separated, for messages.
std::string case_names();

// A figure with 3 significant digits ("4.91", "0.0120", "1.20e-05", "-0.500"), so the matrix reads the same
// on every run and machine; "-" for a missing (non-finite) figure.
std::string format_figure(double value);
// A case's exact value or tolerance: up to 4 significant digits, no trailing zeros ("4.905", "0.5", "0.001").
std::string format_exact(double value);

// The matrix as a Markdown table, a row per case and a column per solver, each cell the verdict over the sweep
// and its worst point (figure, exact value and tolerance there, and the condition); a line per case below it
// (its scene, nominal point, the exact value's source, the tolerance's reason) and a line per marked cell (the
// method's limit). Only figures and verdicts, no timings, so it is the same on every run. Scene links are relative
// to docs/, where the table is kept.
std::string matrix_markdown(const Matrix& m);
// The matrix for a terminal: per case, a line per solver with the verdict over the sweep and its worst point,
// then the counts and the CPU time of the runs per solver.
std::string matrix_text(const Matrix& m);
// Every point of every cell: its condition, figure, exact value and tolerance, verdict and message.
std::string matrix_points_text(const Matrix& m);

}  // namespace cl::conformance
