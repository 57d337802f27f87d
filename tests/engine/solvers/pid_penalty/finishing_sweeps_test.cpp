// pid-penalty's finishing sweeps (finishing_sweeps.cpp): where the implicit springs' active set does not settle
// and rows still pull, projected Gauss-Seidel sweeps finish the substep with every row within its bounds.
#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "support/builders.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

// The value of the solver's counter `name` in its last step.
double counter(const World& w, const std::string& name) {
  for (const SolverCounter& c : w.solver().counters().counters())
    if (name == c.name) return c.value;
  ADD_FAILURE() << "no counter " << name;
  return 0.0;
}

}  // namespace

// A pyramid of 30 rows of cubes of edge L with no gaps (465 boxes, friction 0.6), released at rest. Its first
// steps' active sets do not settle, and their substeps are finished by the sweeps. It comes to rest within 1/3 s:
// its boxes' rms speed under 0.2 % of sqrt(g L), no box more than 1 % of L below its place (at 1 m and 1/60 s it
// keeps 0.003 J, 0.004 % of sqrt(g L)). Before the sweeps the rows pulled, and the pyramid kept 784 J at 1 m and
// 1/60 s (1.9 %) and blew up in its second step at 10 cm (and at 1 m from 40 rows).
TEST(PidPenaltyFinishingSweeps, ADeepPyramidComesToRest) {
  constexpr int kRows = 30;
  const std::pair<double, double> conditions[] = {{1.0, 1.0 / 60}, {0.1, 1.0 / 60}, {1.0, 1.0 / 30}, {1.0, 1.0 / 240}};
  for (const auto& [size, dt] : conditions) {
    World w;
    w.settings.dt = dt;
    w.settings.gravity = Vec3(0, -kG, 0);
    std::string error;
    ASSERT_TRUE(w.set_solver("pid-penalty", &error)) << error;
    const int material = add_material(w, 0.6, 0.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, material);
    const int first = int(w.bodies.size());
    for (int row = 0; row < kRows; ++row)
      for (int i = 0; i < kRows - row; ++i) {
        const double x = (i - 0.5 * (kRows - row - 1)) * size;
        add_body(w, box(Vec3::Constant(size / 2)), Vec3(x, (row + 0.5) * size, 0), 1000.0, Quat::Identity(),
                 material);
      }
    const std::string where = "size " + std::to_string(size) + " dt " + std::to_string(dt);
    double finished = 0.0;
    for (int s = 0; s < int(std::lround(1.0 / (3.0 * dt))); ++s) {
      const StepResult r = w.step();
      ASSERT_TRUE(r.ok) << where << " step " << s << ": " << r.error;
      finished += counter(w, "finished_substeps");
    }
    EXPECT_GT(finished, 0.0) << where << ": no substep was finished by the sweeps";
    double kinetic = 0.0, mass = 0.0, sunk = 0.0;
    for (int k = first, row = 0, i = 0; k < int(w.bodies.size()); ++k) {
      const Body& b = w.bodies[size_t(k)];
      kinetic += 0.5 * b.mass * b.linear_velocity.squaredNorm() +
                 0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity);
      mass += b.mass;
      sunk = std::max(sunk, (row + 0.5) * size - b.position.y());
      if (++i == kRows - row) {
        ++row;
        i = 0;
      }
    }
    EXPECT_LT(std::sqrt(2.0 * kinetic / mass), 0.002 * std::sqrt(kG * size)) << where << ": not at rest";
    EXPECT_LT(sunk, 0.01 * size) << where;
  }
}

}  // namespace cl
