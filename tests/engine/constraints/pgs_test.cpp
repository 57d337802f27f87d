#include "constraints/pgs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "support/builders.h"

namespace cl {
namespace {

// A 2 kg body above a fixed one: body 1 dynamic, body 0 fixed.
struct TwoBodies {
  std::vector<InverseMass> masses{InverseMass{}, InverseMass{0.5, Mat3::Identity()}};
  std::vector<BodyVelocity> u{BodyVelocity{}, BodyVelocity{}};
};

Row normal_row(double target = 0.0) {
  Row r = point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitY());
  r.lo = 0.0;
  r.target = target;
  return r;
}

// A body falling at 3 m/s onto a contact is stopped: lambda = m v, in one sweep.
TEST(Pgs, UnilateralRowStopsTheApproach) {
  TwoBodies s;
  s.u[1].v = Vec3(0, -3, 0);
  std::vector<Row> rows{normal_row()};
  prepare(rows[0], s.masses);
  const PgsResult r = solve_pgs(rows, s.u, {10, 1e-12, false});
  EXPECT_NEAR(rows[0].lambda, 6.0, 1e-12);
  EXPECT_NEAR(s.u[1].v.y(), 0.0, 1e-12);
  EXPECT_EQ(r.sweeps, 2);  // the second sweep changes nothing and stops early
  EXPECT_EQ(r.residual, 0.0);

  // Separating: the row stays at its lower bound 0 and nothing changes.
  TwoBodies t;
  t.u[1].v = Vec3(0, 1, 0);
  std::vector<Row> apart{normal_row()};
  prepare(apart[0], t.masses);
  solve_pgs(apart, t.u, {10, 0.0, false});
  EXPECT_EQ(apart[0].lambda, 0.0);
  EXPECT_EQ(t.u[1].v.y(), 1.0);
}

// Friction coupled to its normal row: a body sliding at 5 m/s, pressed by a normal impulse of 4 N s, loses
// exactly mu * 4 N s of momentum (mu 0.25: 1 N s, 0.5 m/s for 2 kg); with mu 10 it stops.
TEST(Pgs, FrictionRowIsBoundedByMuTimesTheNormalImpulse) {
  for (double mu : {0.25, 10.0}) {
    TwoBodies s;
    s.u[1].v = Vec3(5, -2, 0);  // 2 m/s into the contact: lambda_n = 4 N s
    std::vector<Row> rows{normal_row(), point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitX())};
    rows[1].normal_row = 0;
    rows[1].follows = true;
    rows[1].mu = mu;
    for (Row& r : rows) prepare(r, s.masses);
    solve_pgs(rows, s.u, {20, 0.0, false});
    EXPECT_NEAR(rows[0].lambda, 4.0, 1e-12);
    EXPECT_NEAR(s.u[1].v.x(), mu < 1 ? 4.5 : 0.0, 1e-12) << "mu " << mu;
    EXPECT_LE(std::abs(rows[1].lambda), mu * rows[0].lambda + 1e-12);
  }
}

// A contact's two friction rows as a disc pair: a body sliding at 45 degrees between them (3 m/s along each) and
// pressed by 4 N s loses mu * 4 N s of momentum opposite its sliding (mu 0.25: 1 N s, 0.5 m/s of 2 kg), the same
// as along one axis; as two boxes (each +-mu lambda_n) it loses sqrt(2) times that. With mu 10 it stops, the
// friction inside the disc. Contact at the centre of mass with an isotropic body: the two rows do not couple,
// so the first sweep is exact.
TEST(Pgs, DiscPairHoldsFrictionInCoulombsCircle) {
  for (FrictionCone cone : {FrictionCone::First, FrictionCone::Box})
    for (double mu : {0.25, 10.0}) {
      TwoBodies s;
      s.u[1].v = Vec3(3, -2, 3);
      std::vector<Row> rows{normal_row(), point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitX()),
                            point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitZ())};
      for (int k = 1; k <= 2; ++k) {
        rows[size_t(k)].normal_row = 0;
        rows[size_t(k)].follows = true;
        rows[size_t(k)].mu = mu;
        rows[size_t(k)].cone = tangent_cone(k - 1, 2, cone != FrictionCone::Box);
      }
      for (Row& r : rows) prepare(r, s.masses);
      solve_pgs(rows, s.u, {20, 0.0, false});
      const double friction = std::hypot(rows[1].lambda, rows[2].lambda);
      const std::string at = std::string(cone == FrictionCone::Box ? "box" : "disc") + ", mu " + std::to_string(mu);
      EXPECT_NEAR(rows[0].lambda, 4.0, 1e-12) << at;
      if (mu > 1) {
        EXPECT_NEAR(s.u[1].v.x(), 0.0, 1e-12) << at;
        EXPECT_NEAR(s.u[1].v.z(), 0.0, 1e-12) << at;
        EXPECT_LT(friction, mu * rows[0].lambda) << at;
      } else if (cone == FrictionCone::Box) {
        EXPECT_NEAR(friction, std::sqrt(2.0) * mu * rows[0].lambda, 1e-12) << at;
      } else {
        EXPECT_NEAR(friction, mu * rows[0].lambda, 1e-12) << at;
        EXPECT_NEAR(s.u[1].v.x(), 3.0 - 0.5 / std::sqrt(2.0), 1e-12) << at;
        EXPECT_NEAR(s.u[1].v.z(), 3.0 - 0.5 / std::sqrt(2.0), 1e-12) << at;
      }
    }
}

// A disc pair without a normal impulse holds nothing, and a lone row marked as a pair's half is still a friction
// row bounded by its normal row's impulse times mu in every path.
TEST(Pgs, DiscPairWithoutNormalImpulseHoldsNothing) {
  TwoBodies s;
  s.u[1].v = Vec3(3, 1, -2);  // separating: lambda_n stays 0
  std::vector<Row> rows{normal_row(), point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitX()),
                        point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitZ())};
  for (int k = 1; k <= 2; ++k) {
    rows[size_t(k)].normal_row = 0;
    rows[size_t(k)].follows = true;
    rows[size_t(k)].mu = 0.5;
    rows[size_t(k)].cone = tangent_cone(k - 1, 2, true);
    rows[size_t(k)].lambda = 0.3;  // a stale warm start
  }
  for (Row& r : rows) prepare(r, s.masses);
  apply_impulses(rows, s.u);
  solve_pgs(rows, s.u, {5, 0.0, false});
  EXPECT_EQ(rows[0].lambda, 0.0);
  EXPECT_EQ(rows[1].lambda, 0.0);
  EXPECT_EQ(rows[2].lambda, 0.0);
  EXPECT_NEAR(s.u[1].v.x(), 3.0, 1e-12);
  EXPECT_NEAR(s.u[1].v.z(), -2.0, 1e-12);
}

// A soft row (CFM) solves (A + cfm) lambda = -(J u - target): the spring-damper form of thesis sect. 4.15.
TEST(Pgs, CfmSoftensTheRow) {
  TwoBodies s;
  s.u[1].v = Vec3(0, -3, 0);
  std::vector<Row> rows{normal_row()};
  rows[0].lo = -Row::kInfinity;
  rows[0].cfm = 0.5;
  prepare(rows[0], s.masses);
  solve_pgs(rows, s.u, {50, 1e-14, false});
  EXPECT_NEAR(rows[0].lambda, 3.0 / (0.5 + 0.5), 1e-10);  // A = 1/m = 0.5
}

// Coupled bilateral rows: the sweeps converge to the solution of the linear system A lambda = b, forward and
// symmetric alike, and warm starting from the solution needs no sweep that changes anything.
TEST(Pgs, CoupledBilateralRowsConvergeToTheLinearSolution) {
  World w;
  test::add_body(w, test::box(Vec3(0.5, 0.1, 0.1)), Vec3(0, 0, 0), 1000.0);
  test::add_body(w, test::box(Vec3(0.5, 0.1, 0.1)), Vec3(1, 0, 0), 1000.0,
                 Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())));
  std::vector<InverseMass> masses;
  load_inverse_masses(w.bodies, masses);
  auto make_rows = [&] {
    std::vector<Row> rows;
    for (int i = 0; i < 3; ++i) {
      Row r = point_row(0, 1, Vec3(0.5, 0, 0), Vec3(-0.5, 0, 0), Vec3::Unit(i));
      r.target = 0.1 * (i + 1);
      r.follows = i > 0;
      prepare(r, masses);
      rows.push_back(r);
    }
    return rows;
  };
  const std::vector<BodyVelocity> u0{{Vec3(0.3, -1, 0), Vec3(0, 0, 2)}, {Vec3(0, 0.5, 0.2), Vec3(1, 0, 0)}};
  // The exact solution: A = J M^-1 J^T, A lambda = target - J u0.
  std::vector<Row> rows = make_rows();
  Eigen::Matrix3d A;
  Eigen::Vector3d b;
  for (int i = 0; i < 3; ++i) {
    b[i] = rows[i].target - rows[i].value(u0[0], u0[1]);
    for (int j = 0; j < 3; ++j) {
      std::vector<BodyVelocity> du(2);
      rows[j].apply(1.0, du);
      A(i, j) = rows[i].value(du[0], du[1]);
    }
  }
  const Eigen::Vector3d exact = A.ldlt().solve(b);
  for (bool symmetric : {false, true}) {
    std::vector<Row> solved = make_rows();
    std::vector<BodyVelocity> u = u0;
    std::vector<double> residuals;
    const PgsResult r = solve_pgs(solved, u, {500, 1e-13, symmetric, &residuals});
    EXPECT_LT(r.sweeps, 500) << "symmetric " << symmetric;
    // The convergence record: one residual per sweep, the last the result's, and it falls to the tolerance.
    ASSERT_EQ(residuals.size(), size_t(r.sweeps));
    EXPECT_EQ(residuals.back(), r.residual);
    EXPECT_LE(residuals.back(), 1e-13);
    EXPECT_GT(residuals.front(), 1e3 * residuals.back());
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(solved[i].lambda, exact[i], 1e-9) << i;
      EXPECT_NEAR(solved[i].value(u[0], u[1]), solved[i].target, 1e-9) << i;
    }
    // Warm start from the solution: apply_impulses reproduces the solved velocities.
    std::vector<BodyVelocity> warm = u0;
    apply_impulses(solved, warm);
    EXPECT_TRUE(warm[1].v.isApprox(u[1].v, 1e-9));
    EXPECT_LE(solve_pgs(solved, warm, {10, 1e-9, symmetric}).sweeps, 1);
  }
}

// Backward sweeps keep each block's order: with a single block, forward and symmetric sweeps agree exactly.
TEST(Pgs, SymmetricSweepsKeepTheOrderInsideABlock) {
  std::vector<Row> forward, symmetric;
  TwoBodies s;
  s.u[1].v = Vec3(5, -2, 1);
  std::vector<Row> rows{normal_row()};
  for (int i = 0; i < 2; ++i) {
    Row f = point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::Unit(i == 0 ? 0 : 2));
    f.normal_row = 0;
    f.follows = true;
    f.mu = 0.3;
    rows.push_back(f);
  }
  for (Row& r : rows) prepare(r, s.masses);
  forward = symmetric = rows;
  std::vector<BodyVelocity> uf = s.u, us = s.u;
  solve_pgs(forward, uf, {4, 0.0, false});
  solve_pgs(symmetric, us, {4, 0.0, true});
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(forward[i].lambda, symmetric[i].lambda) << i;
}


// A symmetric solve ends on the rows listed first (a backward last sweep) or, with end_forward, on those listed last,
// whatever the number of sweeps: rows that want the body at different speeds along x (the first 1 m/s, the others
// 2 m/s), which no sweep reconciles, leave it at the speed of the row updated last. On every path: one row at a
// time, the lanes, and the runs of one pair's rows (64 rows against a fixed body are a run).
TEST(Pgs, SymmetricSweepsEndAsAsked) {
  for (int path = 0; path < 3; ++path)
    for (int sweeps : {1, 2, 5, 20})
      for (bool end_forward : {false, true}) {
        SCOPED_TRACE(testing::Message() << "path " << path << ", sweeps " << sweeps << ", end_forward " << end_forward);
        TwoBodies s;
        std::vector<Row> rows;
        for (int i = 0; i < 64; ++i) {
          rows.push_back(point_row(0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitX()));
          rows.back().target = i == 0 ? 1.0 : 2.0;
          prepare(rows.back(), s.masses);
        }
        PgsSettings settings{sweeps, 0.0, true};
        settings.end_forward = end_forward;
        settings.lanes = path == 1;
        settings.pair_runs = path == 2;
        EXPECT_EQ(sweep_backward(settings, sweeps), !end_forward);
        solve_pgs(rows, s.u, settings);
        EXPECT_DOUBLE_EQ(s.u[1].v.x(), end_forward ? 2.0 : 1.0);
      }
  PgsSettings plain{5, 0.0, false};
  for (int sweep = 1; sweep <= 5; ++sweep) EXPECT_FALSE(sweep_backward(plain, sweep));
}

// Contact-like blocks (a normal row and two friction rows) between body pairs, with random geometry: bodies
// 0 .. fixed-1 are fixed, the rest dynamic with unit-ish masses; pairs[i] gives block i's bodies.
struct BlockProblem {
  std::vector<InverseMass> masses;
  std::vector<BodyVelocity> u;
  std::vector<Row> rows;
};

BlockProblem blocks(int bodies, int fixed, const std::vector<std::pair<int, int>>& pairs, unsigned seed,
                    bool disc = false) {
  BlockProblem p;
  std::srand(seed);
  auto rnd = [] { return 2.0 * std::rand() / RAND_MAX - 1.0; };
  for (int i = 0; i < bodies; ++i) {
    p.masses.push_back(i < fixed ? InverseMass{} : InverseMass{1.0 / (1.0 + 0.5 * i), (1.0 + 0.1 * i) * Mat3::Identity()});
    p.u.push_back({Vec3(rnd(), rnd() - 2.0, rnd()), Vec3(rnd(), rnd(), rnd())});
  }
  for (auto [a, b] : pairs) {
    const Vec3 n = Vec3(0.2 * rnd(), 1.0, 0.2 * rnd()).normalized();
    const Vec3 ra(rnd(), rnd(), rnd()), rb(rnd(), rnd(), rnd());
    const int first = int(p.rows.size());
    Row normal = point_row(a, b, ra, rb, n);
    normal.lo = 0.0;
    normal.target = 0.1 * rnd();
    prepare(normal, p.masses);
    p.rows.push_back(normal);
    Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    for (int j = 0; j < 2; ++j) {
      Row f = point_row(a, b, ra, rb, j == 0 ? t1 : t2);
      f.normal_row = first;
      f.follows = true;
      f.mu = 0.5;
      f.cone = tangent_cone(j, 2, disc);
      prepare(f, p.masses);
      p.rows.push_back(f);
    }
  }
  return p;
}

// Bit for bit: every impulse and every velocity component.
void expect_identical(const BlockProblem& x, const BlockProblem& y) {
  for (size_t i = 0; i < x.rows.size(); ++i) EXPECT_EQ(x.rows[i].lambda, y.rows[i].lambda) << "row " << i;
  for (size_t i = 0; i < x.u.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(x.u[i].v[c], y.u[i].v[c]) << "body " << i;
      EXPECT_EQ(x.u[i].w[c], y.u[i].w[c]) << "body " << i;
    }
}

// Solves the problem one row at a time and in lanes, forward and symmetric, and expects the same result.
void expect_lanes_match(const BlockProblem& base, int iterations) {
  for (bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "forward");
    BlockProblem single = base, lanes = base;
    PgsSettings one{iterations, 0.0, symmetric};
    one.lanes = false;
    const PgsSettings many{iterations, 0.0, symmetric};
    std::vector<double> r1, r2;
    one.residuals = &r1;
    PgsSettings recorded = many;
    recorded.residuals = &r2;
    const PgsResult a = solve_pgs(single.rows, single.u, one);
    const PgsResult b = solve_pgs(lanes.rows, lanes.u, recorded);
    EXPECT_EQ(a.sweeps, b.sweeps);
    EXPECT_EQ(a.residual, b.residual);
    EXPECT_EQ(r1, r2);
    expect_identical(single, lanes);
  }
}

// Blocks that share no moving body (body 0 is fixed): nine of them fill two batches of four lanes and one
// with three empty lanes, all in the first level.
TEST(Pgs, LanesOfIndependentBlocksGiveTheOneRowResult) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 9; ++i) pairs.push_back({0, 1 + i});
  expect_lanes_match(blocks(10, 1, pairs, 7), 6);
}

// Blocks that all share one moving body: each comes a level after the one before, so nothing runs side by
// side, and runs of blocks between the same two bodies are split at 24 rows.
TEST(Pgs, LanesOfBlocksSharingABodyGiveTheOneRowResult) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 100; ++i) pairs.push_back({1, 2 + (i / 10) % 7});  // runs of ten blocks per pair
  expect_lanes_match(blocks(9, 1, pairs, 11), 3);
}

// A random network of 300 contacts among 60 bodies, 5 of them fixed, with friction: the levels interleave
// blocks from all over the network, and the result is still the one-row-at-a-time result.
TEST(Pgs, LanesOfARandomNetworkGiveTheOneRowResult) {
  std::vector<std::pair<int, int>> pairs;
  std::srand(3);
  while (pairs.size() < 300) {
    const int a = std::rand() % 60, b = std::rand() % 60;
    if (a != b && (a >= 5 || b >= 5)) pairs.push_back({a, b});
  }
  BlockProblem p = blocks(60, 5, pairs, 5);
  // Warm started, with some soft rows, as a step gives them.
  for (size_t i = 0; i < p.rows.size(); ++i) {
    if (i % 7 == 0) p.rows[i].cfm = 0.01;
    if (p.rows[i].normal_row < 0) p.rows[i].lambda = 0.1 * double(i % 5);
  }
  for (size_t i = 0; i < p.rows.size(); ++i) prepare(p.rows[i], p.masses);
  apply_impulses(p.rows, p.u);
  expect_lanes_match(p, 10);
}

// The same with each contact's friction rows a disc pair (Row::cone): the lanes update the pair as the one-row
// path does, operation for operation, in both sweep directions.
TEST(Pgs, LanesGiveTheOneRowResultWithDiscPairs) {
  std::vector<std::pair<int, int>> independent, sharing, random;
  for (int i = 0; i < 9; ++i) independent.push_back({0, 1 + i});
  expect_lanes_match(blocks(10, 1, independent, 7, true), 6);
  for (int i = 0; i < 100; ++i) sharing.push_back({1, 2 + (i / 10) % 7});
  expect_lanes_match(blocks(9, 1, sharing, 11, true), 3);
  std::srand(3);
  while (random.size() < 300) {
    const int a = std::rand() % 60, b = std::rand() % 60;
    if (a != b && (a >= 5 || b >= 5)) random.push_back({a, b});
  }
  BlockProblem p = blocks(60, 5, random, 5, true);
  for (size_t i = 0; i < p.rows.size(); ++i) {
    if (i % 7 == 0) p.rows[i].cfm = 0.01;
    p.rows[i].lambda = p.rows[i].normal_row < 0 ? 0.1 * double(i % 5) : 0.02 * double(i % 3) - 0.02;
  }
  for (size_t i = 0; i < p.rows.size(); ++i) prepare(p.rows[i], p.masses);
  apply_impulses(p.rows, p.u);
  expect_lanes_match(p, 10);
  // After a solve every pair's impulse lies in its disc (up to the rounding of the scaling), some on its rim.
  solve_pgs(p.rows, p.u, PgsSettings{10, 0.0, false});
  int on_rim = 0;
  for (const Row& r : p.rows)
    if (r.cone == FrictionCone::Second) {
      const Row& f = (&r)[-1];
      const double radius = r.mu * p.rows[size_t(r.normal_row)].lambda;
      const double friction = std::hypot(f.lambda, r.lambda);
      EXPECT_LE(friction, radius * (1 + 1e-14));  // a few roundings of 1.1e-16 each
      on_rim += friction > radius * (1 - 1e-12) && radius > 0;
    }
  EXPECT_GT(on_rim, 10);
}

// Row lists the lanes cannot take are swept one row at a time: a friction row whose normal row is in another
// block, and a row between a body and itself.
TEST(Pgs, UnusualRowListsAreSweptOneRowAtATime) {
  std::vector<std::pair<int, int>> pairs{{0, 1}, {1, 2}, {2, 3}};
  BlockProblem linked = blocks(4, 1, pairs, 9);
  linked.rows[4].normal_row = 0;  // the second block's friction bounded by the first block's normal
  expect_lanes_match(linked, 4);
  BlockProblem self = blocks(4, 1, pairs, 9);
  self.rows[3].b = self.rows[3].a;
  expect_lanes_match(self, 4);
}

// A random network of `contacts` single contacts among `bodies` bodies (the first 5 fixed), no two consecutive
// contacts between the same pair, warm started: each contact is a block of its own.
BlockProblem network(int bodies, int contacts, unsigned seed, bool disc = false) {
  std::vector<std::pair<int, int>> pairs;
  std::srand(seed);
  while (int(pairs.size()) < contacts) {
    const int a = std::rand() % bodies, b = std::rand() % bodies;
    if (a == b || (a < 5 && b < 5) || (!pairs.empty() && pairs.back() == std::pair(a, b))) continue;
    pairs.push_back({a, b});
  }
  BlockProblem p = blocks(bodies, 5, pairs, seed + 1, disc);
  for (size_t i = 0; i < p.rows.size(); ++i)
    if (p.rows[i].normal_row < 0) p.rows[i].lambda = 0.1 * double(i % 5);
  apply_impulses(p.rows, p.u);
  return p;
}

// The problem after a solve one row at a time in the given order.
BlockProblem solved_one_row_at_a_time(BlockProblem p, int iterations, bool symmetric) {
  PgsSettings settings{iterations, 0.0, symmetric};
  settings.lanes = false;
  solve_pgs(p.rows, p.u, settings);
  return p;
}

// The problem after a coloured solve one row at a time, and after one in lanes.
std::pair<BlockProblem, BlockProblem> solved_coloured(const BlockProblem& base, int iterations, bool symmetric) {
  std::pair<BlockProblem, BlockProblem> out{base, base};
  PgsSettings settings{iterations, 0.0, symmetric};
  settings.coloured = true;
  settings.lanes = false;
  solve_pgs(out.first.rows, out.first.u, settings);
  settings.lanes = true;
  solve_pgs(out.second.rows, out.second.u, settings);
  return out;
}

// Coloured sweeps take the contacts colour by colour: each contact gets the lowest colour that no earlier
// contact moving one of its moving bodies has, and the sweep is then an ordinary Gauss-Seidel sweep over the
// contacts sorted by (colour, given order). Checked against that order built here and swept one row at a time.
TEST(Pgs, ColouredSweepsAreGaussSeidelInColourOrder) {
  for (bool disc : {false, true}) {
  SCOPED_TRACE(disc ? "disc pairs" : "boxes");
  const BlockProblem base = network(40, 200, 21, disc);
  std::vector<std::vector<int>> colours_of(base.masses.size());
  auto moving = [&](int body) { return base.masses[size_t(body)].linear != 0.0; };
  std::vector<std::pair<int, int>> order;  // (colour, contact)
  int most = 0;
  for (int k = 0; k < int(base.rows.size()) / 3; ++k) {
    const Row& r = base.rows[size_t(3 * k)];
    int colour = 0;
    auto taken = [&](int c) {
      for (int body : {r.a, r.b})
        if (moving(body) && std::count(colours_of[size_t(body)].begin(), colours_of[size_t(body)].end(), c)) return true;
      return false;
    };
    while (taken(colour)) ++colour;
    for (int body : {r.a, r.b})
      if (moving(body)) colours_of[size_t(body)].push_back(colour);
    order.push_back({colour, k});
    most = std::max(most, colour);
  }
  ASSERT_GT(most, 2);  // the network needs several colours, so the order differs from the given one
  std::stable_sort(order.begin(), order.end(), [](auto x, auto y) { return x.first < y.first; });
  BlockProblem sorted = base;
  sorted.rows.clear();
  for (auto [colour, k] : order)
    for (int i = 0; i < 3; ++i) {
      sorted.rows.push_back(base.rows[size_t(3 * k + i)]);
      if (i > 0) sorted.rows.back().normal_row = int(sorted.rows.size()) - 1 - i;
    }
  for (bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "forward");
    const BlockProblem reference = solved_one_row_at_a_time(sorted, 7, symmetric);
    const auto [coloured, lanes] = solved_coloured(base, 7, symmetric);
    for (size_t j = 0; j < order.size(); ++j)
      for (int i = 0; i < 3; ++i) {
        const size_t at = size_t(3 * order[j].second + i);
        EXPECT_EQ(coloured.rows[at].lambda, reference.rows[3 * j + size_t(i)].lambda) << "contact " << order[j].second;
      }
    for (size_t i = 0; i < base.u.size(); ++i) {
      EXPECT_EQ(coloured.u[i].v, reference.u[i].v) << "body " << i;
      EXPECT_EQ(coloured.u[i].w, reference.u[i].w) << "body " << i;
    }
    expect_identical(coloured, lanes);
  }
  }
}

// A body in more blocks than there are colours (300 contacts on one moving body): the coloured sweep keeps the
// given order, with and without lanes.
TEST(Pgs, ColouredSweepsOfABodyInMoreBlocksThanColoursKeepTheGivenOrder) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 300; ++i) pairs.push_back({1, 2 + i % 7});
  const BlockProblem base = blocks(9, 1, pairs, 13);
  const BlockProblem given = solved_one_row_at_a_time(base, 5, true);
  const auto [one, lanes] = solved_coloured(base, 5, true);
  expect_identical(given, one);
  expect_identical(given, lanes);
}

// A network large enough to be split between two threads gives the one-thread result bit for bit, forward,
// symmetric and with a relative tolerance that stops it early.
TEST(Pgs, TwoThreadsGiveTheResultOfOne) {
  TaskPool pool(2);
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    const BlockProblem base = network(1000, 5000, 31, variant == 3);  // 3: disc pairs
    BlockProblem one = base, two = base;
    PgsSettings settings{12, 0.0, variant == 1};
    settings.coloured = true;
    if (variant == 2) {
      settings.relative = true;
      settings.tolerance = 0.1;
    }
    std::vector<double> r1, r2;
    settings.residuals = &r1;
    const PgsResult a = solve_pgs(one.rows, one.u, settings);
    settings.residuals = &r2;
    settings.pool = &pool;
    const PgsResult b = solve_pgs(two.rows, two.u, settings);
    EXPECT_EQ(a.threads, 1);
    EXPECT_EQ(b.threads, 2);
    EXPECT_EQ(a.sweeps, b.sweeps);
    if (variant == 2) {
      EXPECT_LT(a.sweeps, 12);
    }
    EXPECT_EQ(r1, r2);
    expect_identical(one, two);
  }
}

// Single precision in the lanes (PgsSettings::precision): the coloured solve of a large network is split between
// two threads with the one-thread result bit for bit, as in double.
TEST(Pgs, SinglePrecisionOnTwoThreadsGivesTheResultOfOne) {
  TaskPool pool(2);
  for (bool disc : {false, true}) {
  SCOPED_TRACE(disc ? "disc pairs" : "boxes");
  const BlockProblem base = network(1000, 5000, 37, disc);
  BlockProblem one = base, two = base;
  PgsSettings settings{12, 0.0, false};
  settings.coloured = true;
  settings.precision = PgsPrecision::Single;
  const PgsResult a = solve_pgs(one.rows, one.u, settings);
  settings.pool = &pool;
  const PgsResult b = solve_pgs(two.rows, two.u, settings);
  EXPECT_EQ(a.threads, 1);
  EXPECT_EQ(b.threads, 2);
  expect_identical(one, two);
  }
}

// Single precision solves the same problem as double to about float's precision: every impulse and velocity
// within 1e-4 of the largest (10 sweeps of rounding in 24 bits), and not bit for bit (the float path ran).
TEST(Pgs, SinglePrecisionIsDoublePrecisionToFloatRounding) {
  for (int variant = 0; variant < 3; ++variant) {
    const bool symmetric = variant == 1;
    SCOPED_TRACE(variant == 0 ? "forward" : variant == 1 ? "symmetric" : "forward, disc pairs");
    const BlockProblem base = network(200, 800, 41, variant == 2);
    BlockProblem d = base, f = base;
    PgsSettings settings{10, 0.0, symmetric};
    settings.coloured = true;
    solve_pgs(d.rows, d.u, settings);
    settings.precision = PgsPrecision::Single;
    solve_pgs(f.rows, f.u, settings);
    double largest = 0.0, speed = 0.0;
    for (const Row& r : d.rows) largest = std::max(largest, std::abs(r.lambda));
    for (const BodyVelocity& v : d.u) speed = std::max({speed, v.v.lpNorm<Eigen::Infinity>(), v.w.lpNorm<Eigen::Infinity>()});
    ASSERT_GT(largest, 0.0);
    int differ = 0;
    for (size_t i = 0; i < d.rows.size(); ++i) {
      EXPECT_NEAR(f.rows[i].lambda, d.rows[i].lambda, 1e-4 * largest) << "row " << i;
      differ += f.rows[i].lambda != d.rows[i].lambda ? 1 : 0;
    }
    for (size_t i = 0; i < d.u.size(); ++i) {
      EXPECT_LT((f.u[i].v - d.u[i].v).lpNorm<Eigen::Infinity>(), 1e-4 * speed) << "body " << i;
      EXPECT_LT((f.u[i].w - d.u[i].w).lpNorm<Eigen::Infinity>(), 1e-4 * speed) << "body " << i;
    }
    EXPECT_GT(differ, 0);
  }
}

}  // namespace
}  // namespace cl
