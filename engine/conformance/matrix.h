// The conformance matrix: every case (rows) under each solver (columns), and its text and Markdown forms.
// `contactlab --conformance [--markdown] [--solver NAME]` prints it; docs/conformance.md is the
// Markdown form (a test keeps them equal).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "conformance/conformance.h"

namespace cl::conformance {

struct Matrix {
  std::vector<const Case*> cases;
  std::vector<std::string> solvers;
  std::vector<CellResult> cells;  // row by row: cells[case * solvers.size() + solver]

  const CellResult& cell(size_t case_index, size_t solver_index) const {
    return cells[case_index * solvers.size() + solver_index];
  }
  // True when no cell failed (each passed or is marked as its method's limit).
  bool passes() const;
};

// Runs the cases named in `case_names` (every case, in the table's order, when empty; an unknown name throws
// std::invalid_argument listing the cases) under each of `solvers` (every registered solver when empty; an
// unknown one makes its cells fail saying so) on `jobs` threads (at least 1). Cells are independent worlds, so
// the figures do not depend on `jobs` or on the order they finish in. `done`, if given, is called after each
// cell (from the worker that ran it, one call at a time).
Matrix run_matrix(const std::string& scene_dir, std::vector<std::string> solvers,
                  const std::vector<std::string>& case_names = {}, int jobs = 1,
                  const std::function<void(const CellResult&)>& done = {});
// The case names, comma-separated, for messages.
std::string case_names();

// A figure with 3 significant digits ("4.91", "0.0120", "1.20e-05", "-0.500"), so the matrix reads the same
// on every run and machine; "-" for a missing (non-finite) figure.
std::string format_figure(double value);
// A case's exact value or tolerance: up to 4 significant digits, no trailing zeros ("4.905", "0.5", "0.001").
std::string format_exact(double value);

// The matrix as a Markdown table with a line per case below it (its scene, the exact value's source, the
// tolerance's reason) and a line per marked cell (the method's limit). Only figures and verdicts, no timings,
// so it is the same on every run. Scene links are relative to docs/, where the table is kept (docs/conformance.md).
std::string matrix_markdown(const Matrix& m);
// The matrix for a terminal: a row per case, then every failed or marked cell with its message and the wall
// time of the run.
std::string matrix_text(const Matrix& m);

}  // namespace cl::conformance
