// The conformance matrix's figures, its sweep summaries and its text and Markdown forms, on matrices built by hand
// (the points themselves are run by conformance_test.cpp).
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

// Two hand-made cases under two solvers, two points each: passes, failures, a marked cell and a run that stopped.
Matrix hand_made(std::vector<Case>& storage) {
  storage.resize(2);
  storage[0].name = "slope";
  storage[0].scene = "slope.json";
  storage[0].measured = "largest |v - w r| in 1 s";
  storage[0].unit = "m/s";
  storage[0].exact = 4.905;
  storage[0].tolerance = [](const Condition& c, const Scale&) { return 4.905 * c.dt; };
  storage[0].exact_source = "g sin 30 t";
  storage[0].tolerance_reason = "a h";
  storage[0].scale = {true, 1.0, 1000.0, "the box's edge", "the box", 0.5};
  storage[1].name = "spin";
  storage[1].scene = "spin.json";
  storage[1].measured = "relative change";
  storage[1].exact = 0.0;
  storage[1].tolerance = [](const Condition&, const Scale&) { return 0.001; };
  storage[1].exact_source = "Euler's equations";
  storage[1].tolerance_reason = "drift";
  storage[1].scale = {false, 1.0, 180.0, "the box's edge", "the box", 0.0};
  storage[1].limits = {{"b", "the paper's argument"}};
  const Condition nominal{1.0 / 60, 1.0, 1000.0}, coarse{1.0 / 30, 0.02, 0.008}, spin{1.0 / 60, 1.0, 180.0},
      spin_fine{1.0 / 1000, 1.0, 180.0};
  auto point = [](const char* c, const char* s, Condition at, double value, double exact, double tol, Verdict v,
                  const char* message, double seconds) {
    CellResult r;
    r.case_name = c;
    r.solver = s;
    r.condition = at;
    r.value = value;
    r.exact = exact;
    r.tolerance = tol;
    r.verdict = v;
    r.message = message;
    r.cpu_seconds = seconds;
    return r;
  };
  Matrix m;
  m.cases = {&storage[0], &storage[1]};
  m.solvers = {"a", "b"};
  m.cells.resize(4);
  m.cells[0].points = {point("slope", "a", nominal, 4.9051, 4.905, 0.08175, Verdict::Pass, "", 0.5),
                       point("slope", "a", coarse, 0.66, 0.6937, 0.1635, Verdict::Pass, "", 0.25)};
  m.cells[1].points = {point("slope", "b", nominal, 4.9, 4.905, 0.08175, Verdict::Pass, "", 0.5),
                       point("slope", "b", coarse, 0.12, 0.6937, 0.1635, Verdict::Fail,
                             "off by -0.574 m/s (tolerance 0.164 m/s)", 1.5)};
  m.cells[2].points = {point("spin", "a", spin, std::nan(""), 0.0, 0.001, Verdict::Fail, "step 3: box: non-finite", 0.25),
                       point("spin", "a", spin_fine, 0.0, 0.0, 0.001, Verdict::Pass, "", 0.25)};
  m.cells[3].points = {point("spin", "b", spin, 0.02, 0.0, 0.001, Verdict::MethodLimit,
                             "off by 0.02; the method's limit: the paper's argument", 0.75),
                       point("spin", "b", spin_fine, 0.0005, 0.0, 0.001, Verdict::Pass, "", 0.25)};
  return m;
}

TEST(Sweep, VerdictCountsAndWorstPoint) {
  std::vector<Case> storage;
  const Matrix m = hand_made(storage);
  EXPECT_EQ(m.cell(0, 0).verdict(), Verdict::Pass);
  EXPECT_EQ(m.cell(0, 1).verdict(), Verdict::Fail);
  EXPECT_EQ(m.cell(0, 1).count(Verdict::Fail), 1);
  EXPECT_EQ(m.cell(1, 1).verdict(), Verdict::MethodLimit);
  // The worst point is the furthest in tolerances: 0.0337 / 0.1635 = 0.21 beats 0.0001 / 0.08175.
  EXPECT_EQ(m.cell(0, 0).worst().value, 0.66);
  EXPECT_EQ(m.cell(0, 1).worst().value, 0.12);
  EXPECT_TRUE(std::isnan(m.cell(1, 0).worst().value));  // a stopped run is the worst of all
  EXPECT_DOUBLE_EQ(m.cell(0, 1).seconds(), 2.0);
  EXPECT_EQ(Sweep{}.verdict(), Verdict::Fail);  // no point: nothing was shown
}

TEST(Matrix, PassesOnlyWithoutFailedPoints) {
  std::vector<Case> storage;
  Matrix m = hand_made(storage);
  EXPECT_FALSE(m.passes());
  EXPECT_EQ(m.cell(1, 0).points[0].case_name, "spin");
  EXPECT_EQ(m.cell(1, 0).points[0].solver, "a");
  m.cells[1].points[1].verdict = Verdict::Pass;
  m.cells[2].points[0].verdict = Verdict::Pass;
  EXPECT_TRUE(m.passes());  // the marked point does not fail the matrix
}

TEST(Matrix, MarkdownHasARowPerCaseWithTheWorstPointAndNotesWithoutTimings) {
  std::vector<Case> storage;
  const std::string md = matrix_markdown(hand_made(storage));
  EXPECT_NE(md.find("| case | figure | exact | tolerance at 1/60 s | `a` | `b` |\n|---|---|---|---|---|---|\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| `slope` | largest \\|v - w r\\| in 1 s, m/s | 4.905 at 1 m, 1 t | 0.08175 | pass 2; worst 0.660 "
                    "(exact 0.6937 +- 0.1635) at 1/30 s, 2 cm, 8 g | **FAIL** 1 of 2; worst 0.120 (exact 0.6937 +- "
                    "0.1635) at 1/30 s, 2 cm, 8 g |\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| `spin` | relative change | 0 at 1 m, 180 kg | 0.001 | **FAIL** 1 of 2; worst - (exact 0 +- 0.001) "
                    "at 1/60 s, 1 m, 180 kg | method 1 of 2; worst 0.0200 (exact 0 +- 0.001) at 1/60 s, 1 m, 180 kg |\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- `slope` ([`slope.json`](../scenes/conformance/slope.json)): exact 4.905 m/s at 1 m, 1 t, g sin 30 "
                    "t. Tolerance: a h. Swept over sizes and masses: the box's edge and the mass of the box; the figure "
                    "scales as L^0.5.\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("Swept over the time step only.\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- `b` on `spin` (method 1 of 2): the paper's argument.\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.5 s"), std::string::npos) << "no timings in the Markdown";
}

TEST(Matrix, TextHasALinePerCellWithItsWorstPointAndTheTimes) {
  std::vector<Case> storage;
  const std::string text = matrix_text(hand_made(storage));
  EXPECT_NE(text.find("slope: largest |v - w r| in 1 s (m/s), exact 4.905 at 1 m, 1 t\n"
                      "  a       pass 2         worst 0.660 (exact 0.6937 +- 0.1635) at 1/30 s, 2 cm, 8 g\n"
                      "  b       FAIL 1 of 2    worst 0.120 (exact 0.6937 +- 0.1635) at 1/30 s, 2 cm, 8 g\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("4 cells, 8 points: 5 pass, 1 fail because of the method, 2 FAIL\n"), std::string::npos) << text;
  EXPECT_NE(text.find("CPU time of the runs: a 1.2 s, b 3.0 s\n"), std::string::npos) << text;
}

TEST(Matrix, PointsTextListsEveryPointWithItsMessage) {
  std::vector<Case> storage;
  const std::string text = matrix_points_text(hand_made(storage));
  EXPECT_NE(text.find("slope under b: largest |v - w r| in 1 s (m/s), FAIL 1 of 2\n"
                      "  1/60 s, 1 m, 1 t: 4.90 (exact 4.905 +- 0.08175) pass [0.50 s]\n"
                      "  1/30 s, 2 cm, 8 g: 0.120 (exact 0.6937 +- 0.1635) FAIL, off by -0.574 m/s (tolerance 0.164 "
                      "m/s) [1.50 s]\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("  1/60 s, 1 m, 180 kg: - (exact 0 +- 0.001) FAIL, step 3: box: non-finite [0.25 s]\n"),
            std::string::npos) << text;
}

// Two quick cases under every solver at their nominal points: the cells come in the table's order whatever the
// number of threads, with the same figures (each point is its own world).
TEST(RunMatrix, CellsInOrderAndTheSameOnAnyNumberOfThreads) {
  const std::string dir = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance";
  int reported = 0;
  MatrixOptions options;
  options.cases = {"head_on_inelastic", "incline_stick"};
  options.sweep = false;
  const Matrix one = run_matrix(dir, options);
  options.jobs = 3;
  options.done = [&](const CellResult&) { ++reported; };
  const Matrix two = run_matrix(dir, options);
  ASSERT_EQ(one.solvers.size(), solver_registry().size());
  ASSERT_EQ(one.cells.size(), 2 * one.solvers.size());
  EXPECT_EQ(reported, int(two.cells.size()));
  for (size_t i = 0; i < 2; ++i) {
    for (size_t s = 0; s < one.solvers.size(); ++s) {
      ASSERT_EQ(one.cell(i, s).points.size(), 1u);
      ASSERT_EQ(two.cell(i, s).points.size(), 1u);
      const CellResult& a = one.cell(i, s).points[0];
      const CellResult& b = two.cell(i, s).points[0];
      EXPECT_EQ(a.case_name, i == 0 ? "head_on_inelastic" : "incline_stick");
      EXPECT_EQ(a.solver, solver_registry()[s].name);
      EXPECT_EQ(b.case_name, a.case_name);
      EXPECT_EQ(b.solver, a.solver);
      EXPECT_EQ(b.verdict, a.verdict);
      EXPECT_EQ(a.condition, nominal(one.cases[i]->scale));
      if (std::isfinite(a.value)) {
        EXPECT_EQ(b.value, a.value);
      }
    }
  }
}

// The sweep of one cell: its points in the order of sweep_conditions.
TEST(RunMatrix, ASweptCellHasAPointPerCondition) {
  MatrixOptions options;
  options.cases = {"head_on_inelastic"};
  options.solvers = {"lcp"};
  options.jobs = 2;
  const Matrix m = run_matrix(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance", options);
  const std::vector<Condition> conditions = sweep_conditions(m.cases[0]->scale);
  ASSERT_EQ(m.cells.size(), 1u);
  ASSERT_EQ(m.cells[0].points.size(), conditions.size());
  for (size_t k = 0; k < conditions.size(); ++k) EXPECT_EQ(m.cells[0].points[k].condition, conditions[k]);
}

TEST(RunMatrix, AnUnknownCaseIsRefusedWithTheList) {
  MatrixOptions options;
  options.solvers = {"lcp"};
  options.cases = {"nope"};
  try {
    run_matrix(".", options);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown conformance case 'nope' (cases: incline_frictionless, "), std::string::npos)
        << e.what();
  }
  options.solvers = {"nope"};
  options.cases = {"incline_stick"};
  options.sweep = false;
  const Matrix m = run_matrix(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance", options);
  ASSERT_EQ(m.cells.size(), 1u);
  EXPECT_EQ(m.cells[0].verdict(), Verdict::Fail);
  EXPECT_NE(m.cells[0].points[0].message.find("unknown solver 'nope'"), std::string::npos) << m.cells[0].points[0].message;
}

}  // namespace
}  // namespace cl::conformance
