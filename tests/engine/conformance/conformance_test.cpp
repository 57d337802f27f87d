// The conformance suite: every case under every registered solver at its defaults, over its whole sweep of
// conditions (time steps, sizes, masses), plus the rules of the table and of run_case. Each cell (case x solver)
// is tested by Cells/Conformance.Nominal/<case>__<solver>, its nominal point (the scene as it is, at h = 1/60 s),
// and Sweep/ConformanceSweep.Points/<case>__<solver>__<steps per second>, the other points of its sweep at each
// step (ctest label conformance_sweep). ctest runs them in parallel and names the failing cell; a failure names
// its points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/conformance.h"
#include "conformance/matrix.h"
#include "engine/conformance/awaiting_fix.h"
#include "scene/scene.h"
#include "solvers/registry.h"

namespace cl::conformance {
namespace {

namespace fs = std::filesystem;

std::string scene_dir() { return CONTACTLAB_SOURCE_DIR "/scenes/conformance"; }

const AwaitingFix* awaiting_fix(const std::string& case_name, const std::string& solver, const Condition& at) {
  const std::string name = condition_name(at);
  for (const AwaitingFix& a : kAwaitingFix)
    if (case_name == a.case_name && solver == a.solver && name == a.condition) return &a;
  return nullptr;
}

bool marked(const Case& c, const std::string& solver) {
  return std::any_of(c.limits.begin(), c.limits.end(), [&](const MethodLimit& l) { return l.solver == solver; });
}

// --- cells -----------------------------------------------------------------------------------------------------

struct Cell {
  std::string case_name, solver;
};
void PrintTo(const Cell& c, std::ostream* os) { *os << c.case_name << " under " << c.solver; }

std::vector<Cell> all_cells() {
  std::vector<Cell> out;
  for (const Case& c : cases())
    for (const SolverInfo& s : solver_registry()) out.push_back({c.name, s.name});
  return out;
}

std::string cell_name(const ::testing::TestParamInfo<Cell>& info) {
  std::string name = info.param.case_name + "__" + info.param.solver;
  std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
  return name;
}

// Runs the cell's points at `conditions` and holds each: a point on kAwaitingFix must still fail (and is reported
// as skipped with its figure), a point of a solver the case marks as the method's limit may fail by the method
// (and one of them must, or the mark is stale), every other point passes.
void hold_points(const Cell& cell, const std::vector<Condition>& conditions) {
  const Case* c = find_case(cell.case_name);
  ASSERT_NE(c, nullptr);
  const bool limit = marked(*c, cell.solver);
  std::string awaiting;
  int awaiting_count = 0, by_method = 0;
  for (const Condition& at : conditions) {
    const CellResult r = run_case(*c, cell.solver, scene_dir(), at);
    const std::string where = condition_name(at);
    std::printf("[ conformance ] %s under %s at %s: %s (exact %g +- %g %s) %s in %.2f s%s%s\n", c->name.c_str(),
                cell.solver.c_str(), where.c_str(), format_figure(r.value).c_str(), r.exact, r.tolerance,
                c->unit.c_str(), verdict_name(r.verdict), r.cpu_seconds, r.message.empty() ? "" : ": ",
                r.message.c_str());
    if (const AwaitingFix* a = awaiting_fix(c->name, cell.solver, at)) {
      EXPECT_NE(r.verdict, Verdict::Pass) << where << " passes now (" << r.value << "): take it off kAwaitingFix";
      awaiting += "\n  " + where + ": " + format_figure(r.value) + " (listed at " + format_figure(a->figure) + "), " +
                  r.message;
      ++awaiting_count;
      continue;
    }
    if (limit) {
      EXPECT_NE(r.verdict, Verdict::Fail) << where << ": " << r.message;
      by_method += r.verdict == Verdict::MethodLimit;
      continue;
    }
    EXPECT_EQ(r.verdict, Verdict::Pass) << where << ": " << r.message;
  }
  if (limit) {
    EXPECT_GT(by_method, 0) << "marked as the method's limit but every point passes: remove the mark";
  }
  if (awaiting_count > 0 && !::testing::Test::HasFailure())
    GTEST_SKIP() << awaiting_count << " of " << conditions.size()
                 << " points await a fix of the method (kAwaitingFix):" << awaiting;
}

class Conformance : public ::testing::TestWithParam<Cell> {};

TEST_P(Conformance, Nominal) {
  const Case* c = find_case(GetParam().case_name);
  ASSERT_NE(c, nullptr);
  hold_points(GetParam(), {nominal(c->scale)});
}

INSTANTIATE_TEST_SUITE_P(Cells, Conformance, ::testing::ValuesIn(all_cells()), cell_name);

// The rest of a cell's sweep, a test per time step (each within the suite's time limit also for the slowest
// method on the largest sizes): its points at that step besides the nominal one.
struct Step {
  Cell cell;
  int rate;  // steps per second
};
void PrintTo(const Step& s, std::ostream* os) { *os << s.cell.case_name << " under " << s.cell.solver << " at 1/" << s.rate << " s"; }

// The points of a cell's sweep at a step besides its nominal point.
std::vector<Condition> points_at(const Case& c, int rate) {
  std::vector<Condition> out;
  for (const Condition& at : sweep_conditions(c.scale))
    if (std::abs(at.dt * rate - 1.0) < 1e-12 && !(at == nominal(c.scale))) out.push_back(at);
  return out;
}

std::vector<Step> all_steps() {
  std::vector<Step> out;
  for (const Cell& cell : all_cells())
    for (int rate : sweep_rates())
      if (!points_at(*find_case(cell.case_name), rate).empty()) out.push_back({cell, rate});
  return out;
}

class ConformanceSweep : public ::testing::TestWithParam<Step> {};

TEST_P(ConformanceSweep, Points) {
  const Case* c = find_case(GetParam().cell.case_name);
  ASSERT_NE(c, nullptr);
  hold_points(GetParam().cell, points_at(*c, GetParam().rate));
}

INSTANTIATE_TEST_SUITE_P(Sweep, ConformanceSweep, ::testing::ValuesIn(all_steps()),
                         [](const ::testing::TestParamInfo<Step>& info) {
                           return cell_name({info.param.cell, info.index}) + "__" + std::to_string(info.param.rate);
                         });

// Sleeping is an optimisation: for every solver that sleeps, every point of every case has the same verdict with
// sleeping off as on (thesis 6.5: a body that gains energy, however slowly, stays awake; a group that sleeps is
// one that would not have moved).
class SleepingChangesNoOutcome : public ::testing::TestWithParam<std::string> {};

TEST_P(SleepingChangesNoOutcome, OfAnyPoint) {
  const Case* c = find_case(GetParam());
  ASSERT_NE(c, nullptr);
  int solvers = 0;
  for (const SolverInfo& s : solver_registry()) {
    if (!std::any_of(s.params.begin(), s.params.end(), [](const ParamSpec& p) { return p.name == "sleeping"; })) continue;
    ++solvers;
    for (const Condition& at : sweep_conditions(c->scale)) {
      const CellResult on = run_case(*c, s.name, scene_dir(), at, {{"sleeping", "true"}});
      const CellResult off = run_case(*c, s.name, scene_dir(), at, {{"sleeping", "false"}});
      EXPECT_EQ(verdict_name(on.verdict), std::string(verdict_name(off.verdict)))
          << s.name << " at " << condition_name(at) << ": asleep " << on.value << " (" << on.message << "), awake "
          << off.value << " (" << off.message << ")";
    }
  }
  EXPECT_GT(solvers, 0) << "no solver has a 'sleeping' parameter: this test shows nothing";
}

std::vector<std::string> all_case_names() {
  std::vector<std::string> out;
  for (const Case& c : cases()) out.push_back(c.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Sweep, SleepingChangesNoOutcome, ::testing::ValuesIn(all_case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// lcp's solver_precision=float (single precision in the PGS's lanes) passes every case at its nominal point as
// double does, within the same tolerances: what float costs in accuracy is printed beside double's figure
// (docs/methods/lcp.md).
TEST(ConformancePrecision, LcpInSinglePrecisionPassesEveryCase) {
  const ParamOverrides single = {{"solver_precision", "float"}};
  for (const Case& c : cases()) {
    const Condition at = nominal(c.scale);
    if (marked(c, "lcp") || awaiting_fix(c.name, "lcp", at)) continue;
    const CellResult d = run_case(c, "lcp", scene_dir(), at);
    const CellResult f = run_case(c, "lcp", scene_dir(), at, single);
    std::printf("[ float ] %-24s double %-12.6g float %-12.6g (exact %g +- %g %s)\n", c.name.c_str(), d.value, f.value,
                f.exact, f.tolerance, c.unit.c_str());
    EXPECT_EQ(f.verdict, Verdict::Pass) << c.name << ": " << f.message;
    EXPECT_NEAR(f.value, f.exact, f.tolerance) << c.name;
  }
  const CellResult bad = run_case(cases()[0], "lcp", scene_dir(), nominal(cases()[0].scale),
                                  ParamOverrides{{"solver_precision", "half"}});
  EXPECT_EQ(bad.verdict, Verdict::Fail);
  EXPECT_NE(bad.message.find("solver_precision"), std::string::npos) << bad.message;
}

// Every entry of kAwaitingFix names a point that exists, once, of a solver not marked as its method's limit unless
// the point's run stopped.
TEST(ConformanceTable, AwaitingFixNamesRealUnmarkedPoints) {
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const AwaitingFix& a : kAwaitingFix) {
    const Case* c = find_case(a.case_name);
    ASSERT_NE(c, nullptr) << a.case_name;
    EXPECT_NE(find_solver(a.solver), nullptr) << a.solver;
    EXPECT_TRUE(seen.insert({a.case_name, a.solver, a.condition}).second)
        << "listed twice: " << a.case_name << " " << a.solver << " " << a.condition;
    const std::vector<Condition> all = sweep_conditions(c->scale);
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Condition& k) { return condition_name(k) == a.condition; }))
        << a.case_name << " has no point " << a.condition;
    // A marked cell's point fails as the method's limit unless its run stopped (no figure), which no mark excuses.
    EXPECT_TRUE(!marked(*c, a.solver) || std::isnan(a.figure))
        << a.case_name << " " << a.condition << ": both marked and awaiting a fix, with a figure";
    EXPECT_TRUE(std::isfinite(a.figure) || std::isnan(a.figure));
  }
}

// --- the table -----------------------------------------------------------------------------------------------

TEST(ConformanceTable, CasesAreCompleteAndNamedOnce) {
  const std::regex identifier("[a-z0-9_]+");
  std::set<std::string> names;
  ASSERT_GE(cases().size(), 24u);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(std::regex_match(c.name, identifier));
    EXPECT_TRUE(names.insert(c.name).second) << "two cases named " << c.name;
    EXPECT_EQ(find_case(c.name), &c);
    EXPECT_FALSE(c.measured.empty());
    EXPECT_FALSE(c.exact_source.empty());
    EXPECT_FALSE(c.tolerance_reason.empty());
    EXPECT_TRUE(std::isfinite(c.exact));
    ASSERT_TRUE(bool(c.tolerance));
    for (const Condition& at : sweep_conditions(c.scale)) {
      EXPECT_GT(tolerance_at(c, at), 0.0) << condition_name(at);
    }
    EXPECT_TRUE(bool(c.measure));
    EXPECT_GT(c.scale.size, 0.0);
    EXPECT_GT(c.scale.mass, 0.0);
    EXPECT_FALSE(c.scale.size_of.empty());
    EXPECT_FALSE(c.scale.mass_of.empty());
    for (const MethodLimit& l : c.limits) {
      EXPECT_NE(find_solver(l.solver), nullptr) << "a limit names solver '" << l.solver << "'";
      EXPECT_FALSE(l.reason.empty());
    }
  }
  EXPECT_EQ(find_case("no_such_case"), nullptr);
}

// The exact values against the numbers the closed forms give by hand, so that a slip in a formula
// shows.
TEST(ConformanceTable, ExactValuesAreTheClosedForms) {
  const std::vector<std::pair<const char*, double>> by_hand = {
      {"incline_frictionless", 4.905},  // 9.81 * 0.5
      {"incline_friction", 2.356},      // 9.81 * (0.5 - 0.3 * 0.8660)
      {"incline_edge_slide", 0.1755},   // 2 * 9.81 * (0.44721 - 0.49 * 0.89443)
      {"slow_slide", 0.08561},          // 5 * 9.81 * sin(0.1 deg)
      {"rolling_speed", 3.504},         // 5/7 * 4.905
      {"slide_stop", 1.631},            // 16 / (2 * 0.5 * 9.81)
      {"bounce_apex", 0.5},             // 0.25 * 2
      {"head_on_elastic", 2.0},
      {"head_on_inelastic", 1.0},
      {"pendulum_period", 1.6408},      // 2 pi sqrt(0.33417 / 4.905) * 1.000476
      {"motor_speed", 3.0},
      {"motor_torque_limit", 0.6},      // 100 N m / 166.67 kg m^2 * 1 s
      {"limit_hold", -0.5},
  };
  for (const auto& [name, value] : by_hand) {
    const Case* c = find_case(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_NEAR(c->exact, value, 1e-3 * std::abs(value)) << name;
  }
}

// At another size the exact value and the tolerance scale as the case says: the incline's speed after 1 s (a
// Froude time, sqrt(L) s) as sqrt(L), its tolerance a h not at all; the bounce's height as L.
TEST(ConformanceTable, ExactValuesAndTolerancesScaleWithTheCondition) {
  const Case* incline = find_case("incline_frictionless");
  ASSERT_NE(incline, nullptr);
  const Condition small{1.0 / 250, 0.04, 1000.0 * 0.04 * 0.04 * 0.04};
  EXPECT_NEAR(exact_at(*incline, small), 4.905 * 0.2, 1e-9);
  EXPECT_NEAR(tolerance_at(*incline, small), 4.905 / 250, 1e-12);
  const Case* bounce = find_case("bounce_apex");
  ASSERT_NE(bounce, nullptr);
  const Condition big{1.0 / 60, 4.0, 1.0};
  EXPECT_NEAR(exact_at(*bounce, big), 0.5 * 4.0, 1e-9);
  // v h + e^2 g h^2 / 2 with the impact speed sqrt(2 g 8 m).
  EXPECT_NEAR(tolerance_at(*bounce, big), std::sqrt(2 * 9.81 * 8.0) / 60 + 0.25 * 9.81 / 3600 / 2, 1e-9);
}

// Every case's scene is in scenes/conformance, loads without warnings, names no solver (each runs at its
// defaults) and steps at h = 1/60 s (the nominal point); every scene there is used.
TEST(ConformanceTable, ScenesLoadAtOneStepAndNoSolver) {
  std::set<std::string> used;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    used.insert(c.scene);
    const std::string path = scene_dir() + "/" + c.scene;
    const SceneLoadResult r = load_scene_file(path);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    EXPECT_DOUBLE_EQ(r.world.settings.dt, 1.0 / 60.0);
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    EXPECT_FALSE(doc.contains("solver")) << "a conformance scene runs under every solver at its defaults";
  }
  for (const auto& entry : fs::directory_iterator(scene_dir())) {
    if (entry.path().extension() == ".json") {
      EXPECT_TRUE(used.count(entry.path().filename().string())) << entry.path() << " is used by no case";
    }
  }
}

// --- run_case -------------------------------------------------------------------------------------------------

// A case on a real scene whose figure is given, to check how run_case judges it.
Case given(double value, std::string violation = {}) {
  Case c;
  c.name = "given";
  c.scene = "box_rest.json";
  c.unit = "m";
  c.exact = 1.0;
  c.tolerance = [](const Condition&, const Scale&) { return 0.1; };
  c.scale = {true, 1.0, 1000.0, "the box's edge", "the box", 1.0};
  c.measure = [value, violation](CaseRun& run) {
    run.until(2.0 / 60.0);
    return Reading{value, violation};
  };
  return c;
}

TEST(RunCase, JudgesTheFigureAgainstTheTolerance) {
  const CellResult inside = run_case(given(1.09), "lcp", scene_dir());
  EXPECT_EQ(inside.verdict, Verdict::Pass) << inside.message;
  EXPECT_EQ(inside.value, 1.09);
  EXPECT_EQ(inside.case_name, "given");
  EXPECT_EQ(inside.solver, "lcp");
  EXPECT_EQ(inside.exact, 1.0);
  EXPECT_EQ(inside.tolerance, 0.1);
  EXPECT_NEAR(inside.badness(), 0.9, 1e-9);

  const CellResult outside = run_case(given(0.8), "lcp", scene_dir());
  EXPECT_EQ(outside.verdict, Verdict::Fail);
  EXPECT_EQ(outside.value, 0.8);
  EXPECT_NE(outside.message.find("off by -0.2 m (tolerance 0.1 m)"), std::string::npos) << outside.message;

  const CellResult violated = run_case(given(1.0, "momentum changed"), "lcp", scene_dir());
  EXPECT_EQ(violated.verdict, Verdict::Fail);
  EXPECT_EQ(violated.message, "momentum changed");
  EXPECT_TRUE(violated.violated);
  EXPECT_EQ(violated.badness(), INFINITY);

  const CellResult missing = run_case(given(std::nan("")), "lcp", scene_dir());
  EXPECT_EQ(missing.verdict, Verdict::Fail);
  EXPECT_NE(missing.message.find("not finite"), std::string::npos) << missing.message;
  EXPECT_EQ(missing.badness(), INFINITY);
}

// At a condition the exact value scales as L^power and the scene is scaled: a box of 10 cm (L = 0.1) has its
// exact value 0.1, its tolerance as the case computes it, and its half extent 5 cm.
TEST(RunCase, ScalesTheSceneAndTheExactValueToTheCondition) {
  Case c = given(0.1);
  double half_extent = 0.0, step = 0.0, mass = 0.0;
  c.measure = [&](CaseRun& run) {
    half_extent = run.body("box").shape.half_extents.x();
    mass = run.body("box").mass;
    step = run.world().settings.dt;
    return Reading{0.1, {}};
  };
  const CellResult r = run_case(c, "lcp", scene_dir(), {1.0 / 250, 0.1, 2.0});
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.message;
  EXPECT_NEAR(r.exact, 0.1, 1e-12);
  EXPECT_NEAR(half_extent, 0.05, 1e-12);
  EXPECT_NEAR(mass, 2.0, 1e-9);
  EXPECT_EQ(step, 1.0 / 250);
}

TEST(RunCase, AMethodLimitMarksOnlyAFailingFigureOfItsSolver) {
  Case c = given(0.5);
  c.limits = {{"lcp", "the paper says so"}};
  const CellResult marked = run_case(c, "lcp", scene_dir());
  EXPECT_EQ(marked.verdict, Verdict::MethodLimit);
  EXPECT_NE(marked.message.find("the paper says so"), std::string::npos) << marked.message;
  EXPECT_EQ(run_case(c, "volume", scene_dir()).verdict, Verdict::Fail);  // another solver: not marked

  Case passing = given(1.0);
  passing.limits = c.limits;
  EXPECT_EQ(run_case(passing, "lcp", scene_dir()).verdict, Verdict::Pass);

  // A run that stops is a failure even for a marked solver.
  Case throwing = c;
  throwing.measure = [](CaseRun&) -> Reading { throw std::runtime_error("blew up"); };
  const CellResult stopped = run_case(throwing, "lcp", scene_dir());
  EXPECT_EQ(stopped.verdict, Verdict::Fail);
  EXPECT_EQ(stopped.message, "blew up");
}

TEST(RunCase, BadInputIsAFailedCellWithAMessage) {
  const CellResult unknown = run_case(given(1.0), "nope", scene_dir());
  EXPECT_EQ(unknown.verdict, Verdict::Fail);
  EXPECT_NE(unknown.message.find("unknown solver 'nope'"), std::string::npos) << unknown.message;

  const CellResult bad_param = run_case(given(1.0), "lcp", scene_dir(), nominal(given(1.0).scale), {{"nope", "1"}});
  EXPECT_EQ(bad_param.verdict, Verdict::Fail);
  EXPECT_NE(bad_param.message.find("nope"), std::string::npos) << bad_param.message;

  Case no_scene = given(1.0);
  no_scene.scene = "no_such_scene.json";
  const CellResult unloaded = run_case(no_scene, "lcp", scene_dir());
  EXPECT_EQ(unloaded.verdict, Verdict::Fail);
  EXPECT_NE(unloaded.message.find("no_such_scene.json"), std::string::npos) << unloaded.message;

  Case no_body = given(1.0);
  no_body.measure = [](CaseRun& run) { return Reading{run.body("ghost").position.x(), {}}; };
  const CellResult absent = run_case(no_body, "lcp", scene_dir());
  EXPECT_EQ(absent.verdict, Verdict::Fail);
  EXPECT_EQ(absent.message, "the scene has no body 'ghost'");

  Case no_joint = given(1.0);
  no_joint.measure = [](CaseRun& run) { return Reading{run.joint("ghost").erp, {}}; };
  EXPECT_EQ(run_case(no_joint, "lcp", scene_dir()).message, "the scene has no joint 'ghost'");
}

// CaseRun::until steps to the nearest step of the nominal time scaled by sqrt(L) and calls back after each one; a
// step that fails stops the run with the world's message.
TEST(RunCase, UntilStepsToTheTimeAndReportsAFailedStep) {
  SceneLoadResult loaded = load_scene_file(scene_dir() + "/box_rest.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  CaseRun run(loaded.world, Scale{});
  int calls = 0;
  run.until(0.5, [&](const World&) { ++calls; });
  EXPECT_EQ(calls, 30);
  EXPECT_EQ(loaded.world.step_count(), 30);
  run.until(0.5);  // already there
  EXPECT_EQ(loaded.world.step_count(), 30);

  SceneLoadResult small = load_scene_file(scene_dir() + "/box_rest.json");
  ASSERT_TRUE(small.ok()) << small.error;
  CaseRun quarter(small.world, Scale{0.25, 1.0});
  quarter.until(1.0);  // 0.5 s: 30 steps of 1/60 s
  EXPECT_EQ(small.world.step_count(), 30);

  const int box = loaded.world.find_body("box");
  loaded.world.bodies[size_t(box)].angular_velocity = Vec3(1e200, 3e200, 0);
  loaded.world.wake(box);  // lcp put the resting box to sleep
  try {
    run.until(1.0);
    FAIL() << "a non-finite step did not stop the run";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("box"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cl::conformance
