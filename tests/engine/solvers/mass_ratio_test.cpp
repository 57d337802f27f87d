// Extreme mass ratios under every method (issue 31): a load a trillion times heavier than the body it rests on.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "solvers/registry.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {
namespace {

// 1e6 kg resting on 1e-6 kg, 1 m balls and boxes, at 1/30 to 1/1000 s for 2 s: each rests where it was set, within
// 5 mm (a few of its contacts' depths), straight on top of the other, and still: never the light one thrown out or
// through the other, nor a run stopped (exit 3, which the faults allow, but every method does better). Under
// implicit-penalty the balls' friction patch took its normal from the shell points' sampled pushes, 0.024 rad off
// the line of the centres along which the pair is pushed, and its friction, bounded by the heavy ball's weight,
// threw the light ball out through the heavy one at 420 m/s (1/60 s); it now rubs across that line
// (implicit_penalty/friction_stage.cpp).
TEST(MassRatio, EveryMethodRestsAHeavyLoadOnALightBody) {
  for (const SolverInfo& info : solver_registry())
    for (const bool balls : {true, false})
      for (double h : {1.0 / 30, 1.0 / 60, 1.0 / 240, 1.0 / 1000}) {
        World w;
        std::string error;
        ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
        w.settings.dt = h;
        test::add_plane(w);
        const Shape shape = balls ? test::sphere(0.5) : test::box(Vec3(0.5, 0.5, 0.5));
        const double volume = balls ? 4.0 / 3.0 * std::acos(-1.0) * 0.125 : 1.0;
        const int light = test::add_body(w, shape, Vec3(0, 0.5, 0), 1e-6 / volume);
        const int heavy = test::add_body(w, shape, Vec3(0, 1.5, 0), 1e6 / volume);
        SCOPED_TRACE(testing::Message() << info.name << (balls ? " balls" : " boxes") << " h " << h);
        for (int i = 0; i < int(std::lround(2.0 / h)); ++i) ASSERT_TRUE(w.step().ok) << "step " << i;
        for (const int id : {light, heavy}) {
          const Body& b = w.bodies[size_t(id)];
          EXPECT_NEAR(b.position.y(), id == light ? 0.5 : 1.5, 5e-3) << b.name;
          EXPECT_LT(std::hypot(b.position.x(), b.position.z()), 1e-3) << b.name;
          EXPECT_LT(b.linear_velocity.norm(), 0.01) << b.name;
        }
      }
}

}  // namespace
}  // namespace cl
