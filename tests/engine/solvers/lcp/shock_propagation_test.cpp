// The thesis's own claims about the full LCP method as regression tests: shock propagation
// holds the 25-box column that plain PGS drops, cleans a penetrated grid bottom-up, the see-saw shows the
// weight-feeling trade-off, and the sleepy policy puts a settling stack to sleep in the thesis's order.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "graph/sleep.h"
#include "scene/scene.h"
#include "support/builders.h"
#include "support/scenes.h"

namespace cl {

namespace {
void set(World& w, const char* name, double value) { ASSERT_TRUE(w.solver().params().set(name, value, nullptr)) << name; }

double top_drop(World w, int steps) {
  const Vec3 start = w.bodies.back().position;
  for (int s = 0; s < steps; ++s) EXPECT_TRUE(w.step().ok);
  return (w.bodies.back().position - start).norm();
}

// A cube of edge `size` at rest on the ground, with gravity tilted by `angle` (a slope of that angle), friction mu,
// sleeping off.
World box_on_slope(double mu, double angle, double dt, double size) {
  World w;
  w.materials[0].friction = mu;
  w.materials[0].restitution = 0.0;
  w.settings.dt = dt;
  w.settings.gravity = 9.81 * Vec3(std::sin(angle), -std::cos(angle), 0.0);
  test::add_plane(w);
  test::add_body(w, test::box(Vec3::Constant(size / 2)), Vec3(0, size / 2, 0));
  set(w, "sleeping", 0);
  return w;
}

// A pyramid of `rows` rows of cubes of edge `size`, 5% of the edge apart within a row, each row centred on the one
// below, so that every cube rests on two (scenes/large/pyramid100_gaps.json at 100 rows of 1 m).
World gapped_pyramid(int rows, double size, double density, double friction, double dt) {
  World w;
  w.materials[0].friction = friction;
  w.materials[0].restitution = 0.0;
  w.settings.dt = dt;
  test::add_plane(w);
  const double pitch = 1.05 * size;
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < rows - r; ++i)
      test::add_body(w, test::box(Vec3::Constant(size / 2)),
                     Vec3((i - (rows - r - 1) / 2.0) * pitch, size / 2 + r * size, 0.0), density);
  set(w, "sleeping", 0);
  return w;
}

// The gapped pyramids' spread of time steps, sizes, masses and friction.
struct GapCase {
  double dt, size, density, friction;
};
constexpr GapCase kGapCases[] = {{1.0 / 60, 1.0, 1000, 0.6}, {1.0 / 30, 4.0, 1000, 0.6}, {1.0 / 1000, 0.02, 1000, 0.6},
                                 {1.0 / 60, 1.0, 1e5, 0.2}, {1.0 / 60, 0.5, 10, 1.0}};

// The fastest point of any dynamic body (shape_point_speed).
double fastest_point(const World& w) {
  double fastest = 0.0;
  for (const Body& b : w.bodies)
    if (b.is_dynamic()) fastest = std::max(fastest, shape_point_speed(b.shape, b.linear_velocity, b.angular_velocity));
  return fastest;
}

// The largest distance a body has moved since `start`.
double largest_move(const World& w, const World& start) {
  double largest = 0.0;
  for (size_t i = 0; i < w.bodies.size(); ++i)
    largest = std::max(largest, (w.bodies[i].position - start.bodies[i].position).norm());
  return largest;
}

std::string describe(const GapCase& c) {
  std::ostringstream out;
  out << "dt " << c.dt << " size " << c.size << " density " << c.density << " mu " << c.friction;
  return out.str();
}
}  // namespace

// Thesis S12: the 25-box column fails under plain PGS with 10 iterations and stands under shock
// propagation with 10/5 iterations. The thesis's plain PGS is warm started from the step before alone: the stack's
// balanced warm start (stack_warm_start_test.cpp) holds the column without shock propagation.
TEST(ShockPropagation, ColumnOf25FallsUnderPlainPgsAndStandsWithShockPropagation) {
  World plain = test::load_shipped_scene("column25.json");
  set(plain, "shock_propagation", 0);
  set(plain, "stack_warm_start", 0);
  set(plain, "sleeping", 0);
  World shock = test::load_shipped_scene("column25.json");
  set(shock, "sleeping", 0);
  EXPECT_EQ(shock.solver().params().get("iterations"), 10);
  EXPECT_EQ(shock.solver().params().get("correction_iterations"), 5);
  const int steps = 1000;  // 10 s at h = 0.01
  EXPECT_GT(top_drop(plain, steps), 1.0);   // the top box has fallen
  EXPECT_LT(top_drop(shock, steps), 0.01);  // under a centimetre
}

// Thesis S26: a grid of balls started 10 cm into each other. Shock propagation projects the layers clean
// bottom-up within the first steps (our projection sees how far the layers below moved, so all layers are
// cleaned together); without it the projection has not converged after the same number of steps.
TEST(ShockPropagation, PenetratedBallGridIsCleanedLayerByLayer) {
  auto deepest_after = [](bool shock, int steps) {
    World w = test::load_shipped_scene("ball_grid_penetrated.json");
    set(w, "shock_propagation", shock ? 1 : 0);
    set(w, "sleeping", 0);
    for (int s = 0; s < steps; ++s) EXPECT_TRUE(w.step().ok);
    w.step();  // contacts found at the start of this step measure what the previous steps left
    return w.max_penetration();
  };
  EXPECT_LT(deepest_after(true, 5), 0.002);
  EXPECT_GT(deepest_after(false, 5), 0.01);
  // Bottom-up: after one step the lowest layer is clean and no layer is worse than at the start.
  World w = test::load_shipped_scene("ball_grid_penetrated.json");
  set(w, "sleeping", 0);
  w.step();
  w.step();
  double lowest = 0.0;
  for (const Contact& c : w.contacts())
    if (!w.bodies[c.a].is_dynamic()) lowest = std::max(lowest, c.depth);
  EXPECT_LT(lowest, 0.002);
  EXPECT_LT(w.max_penetration(), 0.1);
}

// Shock propagation holds each layer's bottom bodies fixed, so whatever velocity a layer's PGS leaves its top bodies
// is inherited by every layer above (thesis sect. 6.4.4: only a converged solve propagates no error). In a pyramid
// with gaps every box rests on two others and on nothing beside it; at the thesis's 10 sweeps a layer, one step
// from rest left the top of 30 rows tipping out of the plane at 2.8 cm/s (each layer adding its residual tilt),
// and friction between supports moving apart set the top rows of 50 rocking. Started at rest in equilibrium,
// the step must leave every box at rest, over time steps, sizes, masses and friction.
TEST(ShockPropagation, GappedPyramidStepsFromRestWithoutVelocity) {
  for (const GapCase& c : kGapCases) {
    SCOPED_TRACE(describe(c));
    World w = gapped_pyramid(30, c.size, c.density, c.friction, c.dt);
    ASSERT_TRUE(w.step().ok);
    // The layers are right with the gaps: box of row r at height r + 1, one layer per row.
    EXPECT_EQ(w.last_stats().layers, 30);
    EXPECT_EQ(w.graph().height_of_body()[w.bodies.size() - 1], 30);
    const double fastest = fastest_point(w);
    // A hundredth of one step of gravity, g h. At 10 sweeps a layer: 0.11-0.21 g h in every case; at up to 40,
    // stopped once 4 move no top body by more than 1e-8 g h (layer_tolerance): 4e-9 to 4e-7 g h, and 0.002 g h for
    // the 2 cm boxes at 1 ms, whose 10 uN s impulses met the PGS's impulse tolerance (1e-9 N s) sooner. Now that the
    // layers stop by the velocities alone and leave a top body slower than the stop at rest: 0 in every case.
    EXPECT_LT(fastest, 0.01 * 9.81 * c.dt);
  }
}

// The same at 100 rows (scenes/large/pyramid100_gaps.json), in double and in float: the sweeps' error a layer left its
// top bodies grew about 1.35 times a row, and one step from rest left the top moving at 4e-4 to 4e-2 g h, so that the
// pyramid rocked apart within seconds. A top body left slower than the layer's stop is at rest (its error is the
// sweeps', not motion), and the layers stop by the velocities alone: the 2 cm boxes' impulses at 1 ms met the
// impulse tolerance first (0.0097 g h), as did the light 0.5 m boxes' (5e-5 g h).
TEST(ShockPropagation, GappedPyramidOf100RowsStepsFromRestWithoutVelocity) {
  for (const char* precision : {"double", "float"})
    for (const GapCase& c : kGapCases) {
      SCOPED_TRACE(describe(c) + " " + precision);
      World w = gapped_pyramid(100, c.size, c.density, c.friction, c.dt);
      ASSERT_TRUE(w.solver().params().set_from_string("solver_precision", precision, nullptr));
      ASSERT_TRUE(w.step().ok);
      EXPECT_EQ(w.last_stats().layers, 100);
      EXPECT_LT(fastest_point(w), 1e-6 * 9.81 * c.dt);
    }
}

// And it stays at rest, in double and in float, where float's rounding alone leaves a resting body moving at up to
// about one float epsilon g h: at rest only below the stop's one epsilon, a first-layer box was left moving at step
// 218, and the kinetic energy was 2e-5 J at step 300 and 2e5 J at step 600 (top box 1.1 m away).
TEST(ShockPropagation, GappedPyramidOf100RowsStaysAtRestInDoubleAndFloat) {
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    World w = gapped_pyramid(100, 1.0, 1000, 0.6, 1.0 / 60);
    ASSERT_TRUE(w.solver().params().set_from_string("solver_precision", precision, nullptr));
    const World start = w;
    for (int s = 0; s < 300; ++s) ASSERT_TRUE(w.step().ok) << s;
    double energy = 0.0;
    for (const Body& b : w.bodies) energy += 0.5 * b.mass * b.linear_velocity.squaredNorm();
    EXPECT_LT(largest_move(w, start), 1e-6);
    EXPECT_LT(energy, 1e-9);
  }
}

// A layer leaves a top body at rest only below 1e-6 g h, however loose layer_tolerance is: the rest holds a body
// that would start to move slower than that. A box on a slope steeper than its friction angle by 2 % of its tangent
// gains 0.5 to 0.9 % of g h a step; at layer_tolerance 1 a rest at the stop (1 g h) held it for good. It slides, and
// at the default tolerance as Coulomb's law says, s = a t^2 / 2 with a = g (sin - mu cos), over time steps and sizes
// (a tolerance of 1 stops each layer after one round, and the box slides up to 1.44 times as far).
TEST(ShockPropagation, ALooseLayerToleranceHoldsNoSlidingStart) {
  const double mu = 0.5, angle = std::atan(mu * 1.02), t = 1.0;
  const double coulomb = 0.5 * 9.81 * (std::sin(angle) - mu * std::cos(angle)) * t * t;
  for (double dt : {1.0 / 30, 1.0 / 60, 1.0 / 1000})
    for (double size : {0.02, 1.0})
      for (double tolerance : {1e-8, 1.0}) {
        SCOPED_TRACE(testing::Message() << "dt " << dt << " size " << size << " layer_tolerance " << tolerance);
        World w = box_on_slope(mu, angle, dt, size);
        set(w, "layer_tolerance", tolerance);
        const int steps = int(std::lround(t / dt));
        for (int s = 0; s < steps; ++s) ASSERT_TRUE(w.step().ok);
        EXPECT_GT(w.last_stats().layers, 0);
        const double slid = w.bodies.back().position.x();
        if (tolerance < 1.0)
          EXPECT_NEAR(slid, coulomb, 0.05 * coulomb);
        else
          EXPECT_GT(slid, 0.5 * coulomb);
      }
}

// Thesis sect. 6.4: the full method holds a pyramid where each box rests on two across a gap. 50 rows is the smallest
// that moved more than 1 cm in 10 s at 10 sweeps a layer (40 rows: 2.3 mm); its top rows rocked from the first steps
// (7 mm by step 50).
TEST(ShockPropagation, GappedPyramidOf50RowsStands) {
  World w = gapped_pyramid(50, 1.0, 1000, 0.6, 1.0 / 60);
  const World start = w;
  for (int s = 0; s < 60; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_LT(largest_move(w, start), 1e-4);
}

namespace {
// The sweeps of 10 steps after 60 that let a gapped pyramid settle; -1 if a step fails.
int settled_sweeps(World& w) {
  for (int s = 0; s < 60; ++s)
    if (!w.step().ok) return -1;
  int sweeps = 0;
  for (int s = 0; s < 10; ++s) {
    if (!w.step().ok) return -1;
    sweeps += w.last_stats().iterations;
  }
  return sweeps;
}
}  // namespace

// A settled layer's sweeps stop once a round of them no longer moves its top bodies (layer_tolerance, a fraction of
// g h), over time steps, sizes, masses and friction. Its impulses never stop changing by the absolute tolerance: a
// box face's contact points whose targets differ by rounding pass impulse between them sweep after sweep.
TEST(ShockPropagation, SettledGappedPyramidStopsItsLayersEarly) {
  for (const GapCase& c : kGapCases) {
    SCOPED_TRACE(describe(c));
    World w = gapped_pyramid(20, c.size, c.density, c.friction, c.dt);
    const int sweeps = settled_sweeps(w);
    ASSERT_GE(sweeps, 0);
    // The first phase's 10 sweeps and 20 layers of at most 8 rounds of 2 on average (186 to 227 sweeps a step in
    // all; 215 to 277 in rounds of 4; the impulses' tolerance alone took every layer's 40: 810).
    EXPECT_LT(sweeps, 10 * (10 + 20 * 16));
  }
}

// In single precision (solver_precision=float) a settled layer's round changes its top bodies by float's rounding,
// 1e-8 to 5e-8 g h, never below layer_tolerance's 1e-8: every layer took all its 40 sweeps (810 a step) until the
// stop was raised to float's resolution, 1.2e-7 g h. The pyramid still stands.
TEST(ShockPropagation, InSinglePrecisionSettledLayersStopAtFloatsResolution) {
  for (const GapCase& c : kGapCases) {
    SCOPED_TRACE(describe(c));
    World w = gapped_pyramid(20, c.size, c.density, c.friction, c.dt);
    ASSERT_TRUE(w.solver().params().set_from_string("solver_precision", "float", nullptr));
    const World start = w;
    const int sweeps = settled_sweeps(w);
    ASSERT_GE(sweeps, 0);
    EXPECT_LT(sweeps, 10 * (10 + 20 * 16));
    EXPECT_LT(largest_move(w, start), 1e-4 * c.size);
  }
}

namespace {
// The first_phase_sweeps counter of the step just taken.
double first_phase_sweeps(const World& w) {
  for (const SolverCounter& c : w.last_stats().counters.counters())
    if (std::string(c.name) == "first_phase_sweeps") return c.value;
  ADD_FAILURE() << "lcp reports no first_phase_sweeps";
  return -1.0;
}
}  // namespace

// Shock propagation's first phase sweeps the whole group only until a round of its sweeps moves no body by more than
// first_tolerance f g h: the layers solve every body again on its held supports. Started balanced (stack_warm_start),
// a settled gapped pyramid's first phase takes one round of 2 sweeps a step. Started from the step before's impulses
// alone, it takes fewer sweeps than at first_tolerance 0 (the layers' stop), never more, over time steps, sizes,
// masses, friction and both precisions. The pyramid stands in every case.
TEST(ShockPropagation, FirstPhaseStopsOnceItsOwnStepHasSettled) {
  double early_total = 0.0, full_total = 0.0;
  for (const GapCase& c : kGapCases)
    for (const char* precision : {"double", "float"})
      for (bool balanced : {true, false}) {
        SCOPED_TRACE(describe(c) + " solver_precision " + precision + (balanced ? "" : " stack_warm_start off"));
        World early = gapped_pyramid(20, c.size, c.density, c.friction, c.dt);
        ASSERT_TRUE(early.solver().params().set_from_string("solver_precision", precision, nullptr));
        set(early, "stack_warm_start", balanced ? 1 : 0);
        World full = early;
        set(full, "first_tolerance", 0);
        const World start = early;
        double early_sweeps = 0.0, full_sweeps = 0.0;
        for (int s = 0; s < 70; ++s) {
          ASSERT_TRUE(early.step().ok);
          ASSERT_TRUE(full.step().ok);
          if (s < 60) continue;  // settled
          early_sweeps += first_phase_sweeps(early);
          full_sweeps += first_phase_sweeps(full);
        }
        if (balanced) {
          EXPECT_LE(early_sweeps, 10 * 2.0);
        } else {
          // At 0, all 10 a step; early, 2 to 10 (the 2 cm boxes at 1/1000 s take all 10 at either stop).
          EXPECT_LE(early_sweeps, full_sweeps);
          early_total += early_sweeps;
          full_total += full_sweeps;
        }
        EXPECT_LT(largest_move(early, start), 1e-4 * c.size);
      }
  EXPECT_LT(early_total, 0.5 * full_total);
}

// At the edge between sticking and sliding the layers' disc friction is Coulomb's law: a box released on a slope
// steeper than its friction angle by 0.1 % or 1 % of its tangent slides a h^2 n (n + 1) / 2 in n steps (the
// discrete law, a = g (sin - mu cos)), one 0.1 % less steep never moves, over friction, time steps, sizes and both
// solver precisions. Before the pairs' friction was balanced (constraints/friction_balance.h) the first steps'
// sweeps spun the box about the normal, its corners' frictions turned apart, and the box slid up to 1.6 times as far
// (mu 0.5, 1/30 s, 0.1 %).
TEST(ShockPropagation, TheEdgeOfSlidingIsCoulombsLaw) {
  for (double mu : {0.2, 0.9})
    for (double excess : {0.001, 0.01, -0.001})
      for (double dt : {1.0 / 30, 1.0 / 240})
        for (double size : {0.02, 1.0})
          for (double precision : {0.0, 1.0}) {  // solver_precision double, float
            SCOPED_TRACE(testing::Message() << "mu " << mu << " excess " << excess << " dt " << dt << " size " << size
                                            << " solver_precision " << precision);
            const double angle = std::atan(mu * (1.0 + excess));
            World w = box_on_slope(mu, angle, dt, size);
            set(w, "solver_precision", precision);
            const int steps = int(std::lround(1.0 / dt));
            for (int s = 0; s < steps; ++s) ASSERT_TRUE(w.step().ok);
            EXPECT_GT(w.last_stats().layers, 0);
            const double slid = w.bodies.back().position.x();
            if (excess > 0) {
              const double a = 9.81 * (std::sin(angle) - mu * std::cos(angle));
              const double coulomb = a * dt * dt * steps * (steps + 1) / 2;
              EXPECT_NEAR(slid, coulomb, 0.02 * coulomb);
            } else {
              EXPECT_LT(std::abs(slid), 1e-6 * size);
            }
          }
}

// The rounds of a layer's sweeps sweep as one solve would: with a tolerance no round meets, the step is the one that
// takes all layer_iterations at once (layer_tolerance = 0), bit for bit. Frictionless: with friction, the friction
// balance after a round (constraints/friction_balance.h) may move impulses in a round that changes no velocity, which
// any tolerance takes for settled while layer_tolerance = 0 sweeps on.
TEST(ShockPropagation, LayerRoundsSweepAsOneSolve) {
  World rounds = gapped_pyramid(12, 1.0, 1000, 0.0, 1.0 / 60);
  World whole = rounds;
  set(rounds, "layer_tolerance", 1e-300);
  set(whole, "layer_tolerance", 0);
  for (int s = 0; s < 30; ++s) {
    ASSERT_TRUE(rounds.step().ok);
    ASSERT_TRUE(whole.step().ok);
  }
  EXPECT_GT(whole.last_stats().iterations, 2 * 2);  // layers of more than one round
  EXPECT_EQ(rounds.last_stats().iterations, whole.last_stats().iterations);
  for (size_t i = 0; i < rounds.bodies.size(); ++i) {
    EXPECT_EQ(rounds.bodies[i].position, whole.bodies[i].position) << i;
    EXPECT_EQ(rounds.bodies[i].linear_velocity, whole.bodies[i].linear_velocity) << i;
  }
}

// Weight feeling (thesis 6.4.4, fig. 6.33): with f = 0 the layers never let the plank feel the load, so a
// see-saw that should tip stays level; with f = 1 (the whole step over the group) it tips. (At 10
// iterations and f = 0 solver error alone tips it after a while; 30 iterations keep that error out.)
TEST(ShockPropagation, SeesawTipsOnlyWhenTheFractionLetsTheLoadBeFelt) {
  auto plank_tilt = [](double f) {
    World w = test::load_shipped_scene("seesaw.json");
    set(w, "shock_fraction", f);
    set(w, "iterations", 30);
    set(w, "sleeping", 0);
    const int plank = w.find_body("plank");
    for (int s = 0; s < 300; ++s) EXPECT_TRUE(w.step().ok);
    return Eigen::AngleAxisd(w.bodies[plank].orientation).angle();
  };
  EXPECT_LT(plank_tilt(0.0), 0.01);
  EXPECT_GT(plank_tilt(1.0), 0.1);
}

// Shock propagation also holds the thesis's heavy-on-light pair (S15) that plain PGS (warm started from the step
// before alone) needs tens of thousands of iterations for.
TEST(ShockPropagation, HeavyBallOnLightBallStands) {
  World plain = test::load_shipped_scene("two_balls.json");
  set(plain, "shock_propagation", 0);
  set(plain, "stack_warm_start", 0);
  set(plain, "sleeping", 0);
  World shock = test::load_shipped_scene("two_balls.json");
  set(shock, "sleeping", 0);
  EXPECT_GT(top_drop(plain, 300), 0.05);
  EXPECT_LT(top_drop(shock, 300), 0.005);
}

// Thesis S29 (figs. 6.67-6.69): a settling stack falls asleep within a few frames for restitution 0.1,
// later for 0.4, never for 1.0.
TEST(Sleeping, StackFallsAsleepSoonerForLowerRestitution) {
  auto frames_to_sleep = [](double e) {
    World w = test::load_shipped_scene("sleepy_stack.json");
    w.materials[0].restitution = e;
    for (int s = 1; s <= 1000; ++s) {
      EXPECT_TRUE(w.step().ok);
      if (w.last_stats().sleeping == 10) return s;
    }
    return 100000;
  };
  const int low = frames_to_sleep(0.1), high = frames_to_sleep(0.4), elastic = frames_to_sleep(1.0);
  EXPECT_LT(low, 50);
  EXPECT_LT(low, high);
  EXPECT_EQ(elastic, 100000);  // e = 1 keeps the stack bouncing (the thesis's blows up)
}

// With contact recycling off, a sleeping pair keeps the contacts of its last narrow phase as they are; with it (the
// default), it keeps them re-projected to its unchanged poses (tests/engine/world/contact_recycling_test.cpp).
TEST(Sleeping, SleepingBodiesStayPutAndWakeWhenHit) {
  for (const double recycle : {0.0, 0.0005}) {
    SCOPED_TRACE(recycle);
    World w = test::load_shipped_scene("sleepy_stack.json");
    ASSERT_TRUE(w.solver().params().set("recycle_distance", recycle, nullptr));
    for (int s = 0; s < 300; ++s) ASSERT_TRUE(w.step().ok);
    ASSERT_EQ(w.last_stats().sleeping, 10);
    const World asleep = w;
    for (int s = 0; s < 50; ++s) ASSERT_TRUE(w.step().ok);
    for (size_t i = 0; i < w.bodies.size(); ++i) EXPECT_EQ(w.bodies[i].position, asleep.bodies[i].position);
    // Their contacts are reused without a narrow phase: without recycling, every touching pair is unmoved since it
    // was collided.
    if (recycle == 0.0) {
      for (const GraphEdge& e : w.graph().edges()) {
        if (e.touching()) {
          EXPECT_TRUE(ContactGraph::unmoved(e, w.bodies)) << e.a << "-" << e.b;
        }
      }
    }

    // A ball thrown at the top box wakes the whole stack.
    Body ball;
    ball.name = "ball";
    ball.shape.type = ShapeType::Sphere;
    ball.shape.radius = 0.3;
    ball.set_mass_properties(1000, 0);
    ball.position = w.bodies.back().position + Vec3(-2.0, 0, 0);
    ball.linear_velocity = Vec3(15, 0, 0);
    w.bodies.push_back(ball);
    w.reset_contacts();
    for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
    EXPECT_LT(w.last_stats().sleeping, 10);
    EXPECT_GT(w.bodies[w.bodies.size() - 2].linear_velocity.norm(), 0.1);  // the top box was knocked
  }
}

TEST(Sleeping, CanBeTurnedOff) {
  World w = test::load_shipped_scene("sleepy_stack.json");
  set(w, "sleeping", 0);
  for (int s = 0; s < 300; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_EQ(w.last_stats().sleeping, 0);
}

}  // namespace cl
