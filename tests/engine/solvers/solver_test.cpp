// The plumbing every method shares through Solver (solvers/solver.h): its parameters made from its table, read into
// its settings at begin_step and not before, and its stages, counters and convergence started afresh each step.
#include "solvers/solver.h"

#include <cmath>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "solvers/registry.h"
#include "support/builders.h"

namespace cl {
namespace {

using test::add_body;
using test::add_material;
using test::add_plane;
using test::box;

TEST(Solver, EveryMethodStartsWithItsPublishedParametersAtTheirDefaults) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    const std::unique_ptr<Solver> solver = info.make();
    const std::span<const ParamSpec> specs = solver->params().specs();
    ASSERT_EQ(specs.size(), info.params.size());
    ASSERT_FALSE(specs.empty());
    for (size_t i = 0; i < specs.size(); ++i) {
      EXPECT_EQ(specs[i].name, info.params[i].name);
      EXPECT_EQ(solver->params().value(i), specs[i].default_value) << specs[i].name;
    }
  }
}

TEST(Solver, BeginStepStartsTheStepsFiguresAfresh) {
  // After a step of a box landing on a plane, every method has counted something; begin_step declares its
  // stages and counters again, at zero, and clears the convergence record.
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w;
    const int mat = add_material(w, 0.5, 0.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    add_body(w, box(Vec3(0.2, 0.1, 0.2)), Vec3(0, 0.099, 0), 1000.0, Quat::Identity(), mat);
    w.settings.dt = 1.0 / 60.0;
    ASSERT_TRUE(w.set_solver(info.name, nullptr));
    for (int step = 0; step < 3; ++step) ASSERT_TRUE(w.step().ok);
    Solver& solver = w.solver();
    const size_t counters = solver.counters().counters().size();
    const size_t stages = solver.sub_stages().stages().size();
    ASSERT_GT(counters + stages, 0u);
    double counted = 0.0;
    for (const SolverCounter& c : solver.counters().counters()) counted += std::abs(c.value);
    for (const SubStage& s : solver.sub_stages().stages()) counted += s.ms;
    EXPECT_GT(counted, 0.0);
    solver.begin_step();
    ASSERT_EQ(solver.counters().counters().size(), counters);
    ASSERT_EQ(solver.sub_stages().stages().size(), stages);
    for (const SolverCounter& c : solver.counters().counters()) EXPECT_EQ(c.value, 0.0) << c.name;
    for (const SubStage& s : solver.sub_stages().stages()) EXPECT_EQ(s.ms, 0.0) << s.name;
    EXPECT_TRUE(solver.convergence().empty());
  }
}

TEST(Solver, AParameterSetBetweenStepsIsReadAtTheNextBeginStep) {
  // Each method's continuous_depth() reads its settings: a new value changes it at begin_step, not before.
  struct Case {
    const char* solver;
    const char* param;
    double value;
    double depth;  // continuous_depth() after begin_step
  };
  const Case cases[] = {
      {"lcp", "allowed_penetration", 0.004, 0.004},       // the penetration its error correction leaves
      {"volume", "pixel_size", 0.02, 0.5 * 0.02},          // rest_depth (0.5 pixels) in metres
      {"pid-penalty", "proportional_gain", 1000.0, 9.81 / 1000.0},  // the depth at which k_p carries g
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.solver);
    const std::unique_ptr<Solver> solver = find_solver(c.solver)->make();
    const double before = solver->continuous_depth();
    std::string error;
    ASSERT_TRUE(solver->params().set(c.param, c.value, &error)) << error;
    EXPECT_EQ(solver->continuous_depth(), before);
    solver->begin_step();
    EXPECT_NEAR(solver->continuous_depth(), c.depth, 1e-12);
    EXPECT_NE(solver->continuous_depth(), before);
  }
}

}  // namespace
}  // namespace cl
