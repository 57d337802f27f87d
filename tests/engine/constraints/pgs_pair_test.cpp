#include "constraints/pgs_pair.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace cl {
namespace {

// Bodies 0 (fixed, like a threaded block), 1 and 2 (dynamic, like the bolt and a second body) with rows laid out
// as the implicit-penalty friction lays them out and as contacts do.
struct PairProblem {
  std::vector<InverseMass> masses{InverseMass{}, InverseMass{0.25, Mat3::Identity() * 0.8},
                                  InverseMass{0.5, Mat3::Identity() * 1.3}};
  std::vector<BodyVelocity> u{BodyVelocity{}, {Vec3(0.3, -1.2, 0.1), Vec3(0.5, 2.0, -0.4)},
                              {Vec3(-0.2, 0.4, 0.7), Vec3(0.1, -0.3, 0.2)}};
  std::vector<Row> rows;
};

double rnd() { return 2.0 * std::rand() / RAND_MAX - 1.0; }

// `points` points between `field` and `owner`, each a normal row and two friction rows that follow it. With
// `impulse_rows`, the normal row is the implicit-penalty friction's: no Jacobian, its impulse fixed by lo = hi =
// lambda (inert). Otherwise it is a contact's normal row (lo = 0, a target, sometimes soft) that the sweeps move.
void add_points(PairProblem& p, int field, int owner, int points, bool impulse_rows, bool disc = false) {
  for (int k = 0; k < points; ++k) {
    const Vec3 n = Vec3(0.3 * rnd(), 1.0, 0.3 * rnd()).normalized();
    const Vec3 rf(rnd(), rnd(), rnd()), ro(rnd(), rnd(), rnd());
    const int first = int(p.rows.size());
    Row normal;
    if (impulse_rows) {
      normal.a = field;
      normal.b = owner;
      normal.lambda = normal.lo = normal.hi = 0.01 + 0.05 * std::abs(rnd());
    } else {
      normal = point_row(field, owner, rf, ro, n);
      normal.lo = 0.0;
      normal.target = 0.1 * rnd();
      if (k % 5 == 0) normal.cfm = 0.02;
      normal.lambda = 0.02 * std::abs(rnd());  // warm start
    }
    prepare(normal, p.masses);
    p.rows.push_back(normal);
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    for (int j = 0; j < 2; ++j) {
      Row f = point_row(field, owner, rf, ro, j == 0 ? t1 : t2);
      f.normal_row = first;
      f.follows = true;
      f.mu = k % 3 == 0 ? 0.3 : 0.6;
      f.cone = tangent_cone(j, 2, disc);
      f.lambda = 0.001 * rnd();
      prepare(f, p.masses);
      p.rows.push_back(f);
    }
  }
}

// Solved as solve_pgs sweeps one row at a time and by solve_pgs_pair_runs: the path must be taken and give the
// same impulses, velocities, residuals and sweep count bit for bit.
void expect_pair_runs_match(const PairProblem& base, int iterations, double tolerance = 0.0, bool relative = false,
                            TaskPool* pool = nullptr) {
  for (bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "forward");
    PairProblem one = base, pair = base;
    std::vector<double> r1, r2;
    PgsSettings s{iterations, tolerance, symmetric};
    s.relative = relative;
    s.pool = pool;
    PgsSettings plain = s;
    plain.lanes = false;
    plain.pair_runs = false;
    plain.residuals = &r1;
    s.residuals = &r2;
    apply_impulses(one.rows, one.u);
    apply_impulses(pair.rows, pair.u);
    const PgsResult a = solve_pgs(one.rows, one.u, plain);
    const std::optional<PgsResult> b = solve_pgs_pair_runs(pair.rows, pair.u, s);
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(a.sweeps, b->sweeps);
    EXPECT_EQ(a.residual, b->residual);
    EXPECT_EQ(r1, r2);
    for (size_t i = 0; i < one.rows.size(); ++i) EXPECT_EQ(one.rows[i].lambda, pair.rows[i].lambda) << "row " << i;
    for (size_t i = 0; i < one.u.size(); ++i)
      for (int c = 0; c < 3; ++c) {
        // Bits, so that a -0 against a +0 counts too.
        EXPECT_EQ(std::signbit(one.u[i].v[c]), std::signbit(pair.u[i].v[c])) << "body " << i;
        EXPECT_EQ(one.u[i].v[c], pair.u[i].v[c]) << "body " << i;
        EXPECT_EQ(one.u[i].w[c], pair.u[i].w[c]) << "body " << i;
      }
    // solve_pgs dispatches to the same path by default.
    PairProblem via = base;
    apply_impulses(via.rows, via.u);
    PgsSettings by_default{iterations, tolerance, symmetric};
    by_default.relative = relative;
    solve_pgs(via.rows, via.u, by_default);
    for (size_t i = 0; i < via.rows.size(); ++i) EXPECT_EQ(via.rows[i].lambda, pair.rows[i].lambda) << "row " << i;
  }
}

// The bolt in its thread: the bolt's points in the block's field (the block frozen on side a) and the block's in
// the bolt's (frozen on side b), each with the implicit-penalty friction's impulse-only normal rows.
TEST(PgsPair, OnePairAgainstAFixedBodyGivesTheOneRowResult) {
  std::srand(21);
  PairProblem p;
  add_points(p, 0, 1, 60, true);
  add_points(p, 1, 0, 40, true);
  expect_pair_runs_match(p, 20);
}

// Contact normal rows that the sweeps move (warm started, some soft, with targets) bound their friction rows
// through their changing impulses; short runs of another pair between two dynamic bodies are swept from the row
// list in between.
TEST(PgsPair, MovingNormalRowsAndShortRunsGiveTheOneRowResult) {
  std::srand(22);
  PairProblem p;
  add_points(p, 0, 1, 50, false);
  add_points(p, 1, 2, 3, false);
  add_points(p, 2, 0, 30, true);
  add_points(p, 1, 2, 2, true);
  add_points(p, 0, 2, 3, false);
  expect_pair_runs_match(p, 9);
  expect_pair_runs_match(p, 40, 1e-3, true);  // an early stop on the relative tolerance
}

// Long runs (thousands of points, as the bolt's) whose rows are copied in pieces on two threads: the same result.
TEST(PgsPair, RowsCopiedOnTwoThreadsGiveTheOneRowResult) {
  std::srand(23);
  PairProblem p;
  add_points(p, 0, 1, 2500, true);
  add_points(p, 1, 0, 1200, false);
  add_points(p, 2, 0, 900, true);
  ASSERT_GE(p.rows.size(), 12000u);  // several pieces per run
  TaskPool pool(2);
  expect_pair_runs_match(p, 6, 0.0, false, &pool);
}

// Each point's friction rows a disc pair (Row::cone), against inert normal rows (the bounds folded into the
// compact rows) and moving ones, on one and on two threads: the same result as one row at a time.
TEST(PgsPair, DiscPairsGiveTheOneRowResult) {
  std::srand(24);
  PairProblem p;
  add_points(p, 0, 1, 60, true, true);
  add_points(p, 1, 0, 40, false, true);
  add_points(p, 1, 2, 3, false, true);
  expect_pair_runs_match(p, 20);
  expect_pair_runs_match(p, 40, 1e-3, true);
  PairProblem large;
  add_points(large, 0, 1, 2500, true, true);
  add_points(large, 1, 0, 1500, false, true);
  TaskPool pool(2);
  expect_pair_runs_match(large, 6, 0.0, false, &pool);
}

// Lists where the path does not pay or cannot keep the one-row result are left to the other paths, untouched.
TEST(PgsPair, DeclinesListsItCannotTake) {
  auto declined = [](PairProblem p) {
    const PairProblem before = p;
    std::vector<double> residuals;
    PgsSettings s{10, 0.0, true};
    s.residuals = &residuals;
    EXPECT_FALSE(solve_pgs_pair_runs(p.rows, p.u, s).has_value());
    EXPECT_TRUE(residuals.empty());
    for (size_t i = 0; i < p.rows.size(); ++i) EXPECT_EQ(p.rows[i].lambda, before.rows[i].lambda);
    for (size_t i = 0; i < p.u.size(); ++i) EXPECT_EQ(p.u[i].v, before.u[i].v);
  };
  std::srand(23);
  PairProblem both_move;  // no side that no row moves
  add_points(both_move, 1, 2, 40, true);
  declined(both_move);
  PairProblem short_runs;  // runs of 15 rows
  for (int k = 0; k < 10; ++k) add_points(short_runs, k % 2 ? 0 : 2, 1, 5, true);
  declined(short_runs);
  PairProblem negative_zero;  // the fixed body's velocity has a -0, which the one-row path would turn into +0
  add_points(negative_zero, 0, 1, 40, true);
  negative_zero.u[0].v.x() = -0.0;
  declined(negative_zero);
  PairProblem overflow;  // a sweep overflows: the skipped rows would no longer match the one-row path
  add_points(overflow, 0, 1, 40, true);
  overflow.rows[1].target = -std::numeric_limits<double>::max();
  overflow.rows[1].normal_row = -1;
  overflow.rows[1].lo = -std::numeric_limits<double>::infinity();
  overflow.rows[1].hi = std::numeric_limits<double>::infinity();
  overflow.rows[1].inv_diag = 1e300;
  declined(overflow);
}

}  // namespace
}  // namespace cl
