// The conformance matrix's figures and its text and Markdown forms, on matrices built by hand (the cells
// themselves are run by conformance_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "conformance/matrix.h"
#include "solvers/registry.h"

namespace cl::conformance {
namespace {

TEST(FormatFigure, ThreeSignificantDigits) {
  EXPECT_EQ(format_figure(4.9051), "4.91");
  EXPECT_EQ(format_figure(2.0), "2.00");
  EXPECT_EQ(format_figure(-0.5), "-0.500");
  EXPECT_EQ(format_figure(0.0123456), "0.0123");
  EXPECT_EQ(format_figure(100.0), "100");
  EXPECT_EQ(format_figure(1234.5), "1.23e+03");
  EXPECT_EQ(format_figure(1.2e-5), "1.20e-05");
  EXPECT_EQ(format_figure(3e7), "3.00e+07");
  EXPECT_EQ(format_figure(0.0), "0.00");
  EXPECT_EQ(format_figure(-0.0), "0.00");
  EXPECT_EQ(format_figure(std::nan("")), "-");
  EXPECT_EQ(format_figure(INFINITY), "-");
}

TEST(FormatExact, UpToFourSignificantDigits) {
  EXPECT_EQ(format_exact(4.905), "4.905");
  EXPECT_EQ(format_exact(0.5), "0.5");
  EXPECT_EQ(format_exact(0.001), "0.001");
  EXPECT_EQ(format_exact(1.640780), "1.641");
  EXPECT_EQ(format_exact(-0.5), "-0.5");
}

// Two hand-made cases under two solvers: a pass, a failure, a marked cell and a run that stopped.
Matrix hand_made(std::vector<Case>& storage) {
  storage.resize(2);
  storage[0].name = "slope";
  storage[0].scene = "slope.json";
  storage[0].measured = "largest |v - w r| in 1 s";
  storage[0].unit = "m/s";
  storage[0].exact = 4.905;
  storage[0].tolerance = 0.08175;
  storage[0].exact_source = "g sin 30 t";
  storage[0].tolerance_reason = "a h";
  storage[1].name = "spin";
  storage[1].scene = "spin.json";
  storage[1].measured = "relative change";
  storage[1].exact = 0.0;
  storage[1].tolerance = 0.001;
  storage[1].exact_source = "Euler's equations";
  storage[1].tolerance_reason = "drift";
  storage[1].limits = {{"b", "the paper's argument"}};
  Matrix m;
  m.cases = {&storage[0], &storage[1]};
  m.solvers = {"a", "b"};
  m.cells = {{"slope", "a", 4.9051, Verdict::Pass, "", 0.5},
             {"slope", "b", 0.12, Verdict::Fail, "off by -4.79 m/s (tolerance 0.0818 m/s)", 1.5},
             {"spin", "a", std::nan(""), Verdict::Fail, "step 3: box: non-finite", 0.25},
             {"spin", "b", 0.02, Verdict::MethodLimit, "off by 0.02; the method's limit: the paper's argument", 0.75}};
  return m;
}

TEST(Matrix, PassesOnlyWithoutFailedCells) {
  std::vector<Case> storage;
  Matrix m = hand_made(storage);
  EXPECT_FALSE(m.passes());
  EXPECT_EQ(m.cell(1, 0).case_name, "spin");
  EXPECT_EQ(m.cell(1, 0).solver, "a");
  m.cells[1].verdict = Verdict::Pass;
  m.cells[2].verdict = Verdict::Pass;
  EXPECT_TRUE(m.passes());  // the marked cell does not fail the matrix
}

TEST(Matrix, MarkdownHasARowPerCaseAndNotesWithoutTimings) {
  std::vector<Case> storage;
  const std::string md = matrix_markdown(hand_made(storage));
  EXPECT_NE(md.find("| case | figure | exact | tolerance | `a` | `b` |\n|---|---|---|---|---|---|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `slope` | largest \\|v - w r\\| in 1 s, m/s | 4.905 | 0.08175 | 4.91 pass | 0.120 **FAIL** |\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| `spin` | relative change | 0 | 0.001 | - **FAIL** | 0.0200 method |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- `slope` ([`slope.json`](../scenes/conformance/slope.json)): exact 4.905 m/s, g sin 30 t. "
                    "Tolerance 0.08175 m/s: a h.\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- `b` on `spin` (0.0200): the paper's argument.\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.5 s"), std::string::npos) << "no timings in the Markdown";
}

TEST(Matrix, TextListsEveryCellThatDidNotPassWithItsMessage) {
  std::vector<Case> storage;
  const std::string text = matrix_text(hand_made(storage));
  EXPECT_NE(text.find("slope  4.905 +- 0.08175 m/s  4.91 pass"), std::string::npos) << text;
  EXPECT_NE(text.find("4 cells: 1 pass, 1 fail because of the method, 2 FAIL (3.0 s of runs)"), std::string::npos) << text;
  EXPECT_NE(text.find("  b / slope: FAIL, off by -4.79 m/s (tolerance 0.0818 m/s) [1.50 s]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  a / spin: FAIL, step 3: box: non-finite [0.25 s]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  b / spin: method, off by 0.02; the method's limit: the paper's argument [0.75 s]\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("a / slope"), std::string::npos) << "a passing cell has no detail line";
}

// Two quick cases under every solver: the cells come in the table's order whatever the number of threads, with
// the same figures (each cell is its own world).
TEST(RunMatrix, CellsInOrderAndTheSameOnAnyNumberOfThreads) {
  const std::string dir = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance";
  int reported = 0;
  const Matrix one = run_matrix(dir, {}, {"head_on_inelastic", "incline_stick"}, 1);
  const Matrix two = run_matrix(dir, {}, {"head_on_inelastic", "incline_stick"}, 3, [&](const CellResult&) { ++reported; });
  ASSERT_EQ(one.solvers.size(), solver_registry().size());
  ASSERT_EQ(one.cells.size(), 2 * one.solvers.size());
  EXPECT_EQ(reported, int(two.cells.size()));
  for (size_t i = 0; i < 2; ++i) {
    for (size_t s = 0; s < one.solvers.size(); ++s) {
      EXPECT_EQ(one.cell(i, s).case_name, i == 0 ? "head_on_inelastic" : "incline_stick");
      EXPECT_EQ(one.cell(i, s).solver, solver_registry()[s].name);
      EXPECT_EQ(two.cell(i, s).case_name, one.cell(i, s).case_name);
      EXPECT_EQ(two.cell(i, s).solver, one.cell(i, s).solver);
      EXPECT_EQ(two.cell(i, s).verdict, one.cell(i, s).verdict);
      if (std::isfinite(one.cell(i, s).value)) {
        EXPECT_EQ(two.cell(i, s).value, one.cell(i, s).value);
      }
    }
  }
}

TEST(RunMatrix, AnUnknownCaseIsRefusedWithTheList) {
  try {
    run_matrix(".", {"lcp"}, {"nope"});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown conformance case 'nope' (cases: incline_frictionless, "), std::string::npos)
        << e.what();
  }
  const Matrix m = run_matrix(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance", {"nope"}, {"incline_stick"});
  ASSERT_EQ(m.cells.size(), 1u);
  EXPECT_EQ(m.cells[0].verdict, Verdict::Fail);
  EXPECT_NE(m.cells[0].message.find("unknown solver 'nope'"), std::string::npos) << m.cells[0].message;
}

}  // namespace
}  // namespace cl::conformance
