#include "constraints/pgs_contacts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "core/task_pool.h"

namespace cl {
namespace {

// Random contacts between random bodies: the same problem as ContactPgs's contacts and as rows for solve_pgs.
struct ContactProblem {
  std::vector<InverseMass> masses;
  std::vector<BodyVelocity> u;
  std::vector<ContactBodies> bodies;
  std::vector<ContactPoint> points;
};

Vec3 unit_direction(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Vec3(g(rng), g(rng), g(rng)).normalized();
}

// `pairs` touching pairs among `body_count` bodies (body 0 fixed, and every seventh one, as a layer's held bodies
// are), each with 1 to `most` contact points (more than a block's 8 when `most` is larger), random lever arms,
// normals and tangents, targets, mu and warm starts.
ContactProblem random_problem(unsigned seed, int body_count, int pairs, int most) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0), pos(0.05, 2.0);
  ContactProblem p;
  for (int i = 0; i < body_count; ++i) {
    InverseMass m;
    if (i % 7 != 0) {
      const Eigen::Matrix3d r = Eigen::Quaterniond(uni(rng), uni(rng), uni(rng), uni(rng)).normalized().toRotationMatrix();
      m.linear = pos(rng);
      m.angular = r * Vec3(pos(rng), pos(rng), pos(rng)).asDiagonal() * r.transpose();
    }
    p.masses.push_back(m);
    p.u.push_back({Vec3(uni(rng), uni(rng), uni(rng)), Vec3(uni(rng), uni(rng), uni(rng))});
  }
  std::uniform_int_distribution<int> body(0, body_count - 1), count(1, most);
  for (int k = 0; k < pairs; ++k) {
    int a = body(rng), b = body(rng);
    while (b == a) b = body(rng);
    const int n = count(rng);
    const double mu = 0.1 + 0.5 * (uni(rng) + 1.0);
    for (int i = 0; i < n; ++i) {
      ContactPoint c;
      c.ra = Vec3(uni(rng), uni(rng), uni(rng));
      c.rb = Vec3(uni(rng), uni(rng), uni(rng));
      c.dir[0] = unit_direction(rng);
      sliding_tangents(c.dir[0], unit_direction(rng), c.dir[1], c.dir[2]);
      c.target = 0.5 * uni(rng);
      c.mu = mu;
      c.lambda[0] = std::max(0.0, uni(rng));
      c.lambda[1] = 0.2 * uni(rng);
      c.lambda[2] = 0.2 * uni(rng);
      p.bodies.push_back({a, b});
      p.points.push_back(c);
    }
  }
  return p;
}

// The contacts as lcp builds them as rows: normal (bounds [0, inf)), then its tangent rows.
std::vector<Row> rows_of(const ContactProblem& p, int rows, bool disc) {
  std::vector<Row> out;
  for (size_t k = 0; k < p.points.size(); ++k) {
    const ContactPoint& c = p.points[k];
    const auto [a, b] = p.bodies[k];
    const int first = int(out.size());
    Row normal = point_row(a, b, c.ra, c.rb, c.dir[0]);
    normal.lo = 0.0;
    normal.target = c.target;
    normal.lambda = c.lambda[0];
    prepare(normal, p.masses);
    out.push_back(normal);
    for (int f = 0; f + 1 < rows; ++f) {
      Row t = point_row(a, b, c.ra, c.rb, c.dir[1 + f]);
      t.normal_row = first;
      t.follows = true;
      t.mu = c.mu;
      t.cone = tangent_cone(f, rows - 1, disc);
      t.lambda = c.lambda[1 + f];
      prepare(t, p.masses);
      out.push_back(t);
    }
  }
  return out;
}

struct Solved {
  std::vector<double> lambda;  // contact by contact, row by row
  std::vector<BodyVelocity> u;
  PgsResult result;
};

PgsSettings coloured(int iterations, PgsPrecision precision = PgsPrecision::Double, TaskPool* pool = nullptr) {
  PgsSettings s{iterations, 1e-9, false};
  s.coloured = true;
  s.precision = precision;
  s.pool = pool;
  return s;
}

Solved solve_as_rows(const ContactProblem& p, int rows, bool disc, const PgsSettings& settings) {
  Solved s{{}, p.u, {}};
  std::vector<Row> r = rows_of(p, rows, disc);
  apply_impulses(r, s.u);
  s.result = solve_pgs(r, s.u, settings);
  for (const Row& row : r) s.lambda.push_back(row.lambda);
  return s;
}

// The compact path: warm started by its own warm_start, or (`as_rows`) from the velocities apply_impulses gives.
Solved solve_compact(ContactPgs& lanes, const ContactProblem& p, int rows, bool disc, const PgsSettings& settings,
                     bool as_rows = false) {
  Solved s{{}, p.u, {}};
  EXPECT_TRUE(lanes.plan(p.bodies, rows, disc, p.masses, settings.precision));
  lanes.write(p.points);
  if (as_rows)
    apply_impulses(rows_of(p, rows, disc), s.u);
  else
    lanes.warm_start(s.u, settings.pool);
  s.result = lanes.solve(s.u, settings);
  for (size_t k = 0; k < p.points.size(); ++k)
    for (int r = 0; r < rows; ++r) s.lambda.push_back(lanes.lambda(int(k), r));
  return s;
}

// In double precision, from the same warm-started velocities, the compact contacts give what the rows give, bit for
// bit: the impulses, the velocities, the sweeps and the residual, for the normal alone, one tangent, two in boxes
// and two in the disc, with pairs of more points than a block holds and bodies the solve does not move.
TEST(PgsContacts, DoubleGivesTheRowsResultBitForBit) {
  for (unsigned seed : {1u, 2u, 3u})
    for (int rows : {1, 2, 3})
      for (bool disc : {false, true}) {
        if (disc && rows != 3) continue;
        SCOPED_TRACE("seed " + std::to_string(seed) + ", rows " + std::to_string(rows) + (disc ? ", disc" : ""));
        const ContactProblem p = random_problem(seed, 30, 60, 11);
        const Solved expected = solve_as_rows(p, rows, disc, coloured(10));
        ContactPgs lanes;
        const Solved got = solve_compact(lanes, p, rows, disc, coloured(10), true);
        ASSERT_EQ(got.lambda.size(), expected.lambda.size());
        for (size_t i = 0; i < got.lambda.size(); ++i) ASSERT_EQ(got.lambda[i], expected.lambda[i]) << "row " << i;
        for (size_t i = 0; i < p.u.size(); ++i) {
          ASSERT_EQ(got.u[i].v, expected.u[i].v) << "body " << i;
          ASSERT_EQ(got.u[i].w, expected.u[i].w) << "body " << i;
        }
        EXPECT_EQ(got.result.sweeps, expected.result.sweeps);
        EXPECT_EQ(got.result.residual, expected.result.residual);
        EXPECT_GT(got.result.residual, 0.0);
      }
}

// The warm start adds each contact's lambda B in lanes, a body's contacts colour by colour: u is apply_impulses's
// up to the rounding of the order of the additions, in both precisions (the velocities stay double), and a body the
// solve does not move keeps its velocity exactly.
TEST(PgsContacts, WarmStartIsApplyImpulsesUpToTheOrderOfTheAdditions) {
  for (PgsPrecision precision : {PgsPrecision::Double, PgsPrecision::Single})
    for (int rows : {1, 2, 3}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + (precision == PgsPrecision::Single ? ", float" : ""));
      const ContactProblem p = random_problem(6, 30, 60, 11);
      std::vector<BodyVelocity> expected = p.u, got = p.u;
      apply_impulses(rows_of(p, rows, false), expected);
      ContactPgs lanes;
      ASSERT_TRUE(lanes.plan(p.bodies, rows, false, p.masses, precision));
      lanes.write(p.points);
      lanes.warm_start(got);
      // Float fields hold B and lambda to 6e-8 relative; double ones differ only in the order of the sums.
      const double tolerance = precision == PgsPrecision::Single ? 1e-5 : 1e-12;
      double moved = 0.0;
      for (size_t i = 0; i < p.u.size(); ++i) {
        if (i % 7 == 0) {
          EXPECT_EQ(got[i].v, p.u[i].v) << "body " << i;
          EXPECT_EQ(got[i].w, p.u[i].w) << "body " << i;
          continue;
        }
        moved = std::max(moved, (expected[i].v - p.u[i].v).norm());
        EXPECT_LE((got[i].v - expected[i].v).norm(), tolerance * (1.0 + expected[i].v.norm())) << "body " << i;
        EXPECT_LE((got[i].w - expected[i].w).norm(), tolerance * (1.0 + expected[i].w.norm())) << "body " << i;
      }
      EXPECT_GT(moved, 0.1);  // the warm start does move the bodies
    }
}

// In single precision the compact contacts agree with the rows' double solve to float rounding (a few units of
// the seventh digit of the impulses), not bit for bit.
TEST(PgsContacts, FloatAgreesWithDoubleToRounding) {
  const ContactProblem p = random_problem(4, 30, 60, 6);
  const Solved expected = solve_as_rows(p, 3, false, coloured(10));
  ContactPgs lanes;
  const Solved got = solve_compact(lanes, p, 3, false, coloured(10, PgsPrecision::Single));
  double largest = 0.0;
  for (double l : expected.lambda) largest = std::max(largest, std::abs(l));
  for (size_t i = 0; i < got.lambda.size(); ++i) EXPECT_NEAR(got.lambda[i], expected.lambda[i], 1e-4 * largest) << i;
}

// The layout is kept while the contacts' bodies, their row count and the bodies the solve moves stay the same, and
// a solve on the kept layout gives what one on a fresh layout gives.
TEST(PgsContacts, LayoutIsKeptWhileTheContactsKeepTheirBodies) {
  ContactProblem p = random_problem(5, 20, 30, 5);
  ContactPgs lanes;
  const Solved first = solve_compact(lanes, p, 3, false, coloured(10));
  EXPECT_FALSE(lanes.kept_layout());
  const Solved again = solve_compact(lanes, p, 3, false, coloured(10));
  EXPECT_TRUE(lanes.kept_layout());
  EXPECT_EQ(again.lambda, first.lambda);
  // Another row count, or a body held (shock propagation's layers): a new layout.
  solve_compact(lanes, p, 2, false, coloured(10));
  EXPECT_FALSE(lanes.kept_layout());
  solve_compact(lanes, p, 2, false, coloured(10));
  EXPECT_TRUE(lanes.kept_layout());
  p.masses[size_t(p.bodies[0].b)] = InverseMass{};
  const Solved held = solve_compact(lanes, p, 2, false, coloured(10), true);
  EXPECT_FALSE(lanes.kept_layout());
  const Solved rows = solve_as_rows(p, 2, false, coloured(10));
  EXPECT_EQ(held.lambda, rows.lambda);
}

// Solves that keep their lanes' values in one ContactLaneValues, taken in turn as lcp takes its stack layers (a
// small one, a larger one, the small one again on its kept layout, and one whose values move to a fresh, empty
// store), give each what it gives with values of its own, bit for bit, in both precisions.
TEST(PgsContacts, SolvesThatShareTheirValuesGiveTheirOwnResults) {
  for (PgsPrecision precision : {PgsPrecision::Double, PgsPrecision::Single}) {
    SCOPED_TRACE(precision == PgsPrecision::Single ? "float" : "double");
    const ContactProblem small = random_problem(8, 12, 10, 5), large = random_problem(9, 40, 90, 9);
    ContactPgs own_small, own_large;
    const Solved small_alone = solve_compact(own_small, small, 3, true, coloured(10, precision));
    const Solved large_alone = solve_compact(own_large, large, 3, true, coloured(10, precision));
    ContactLaneValues values, fresh;
    ContactPgs a, b;
    a.share_values(&values);
    b.share_values(&values);
    for (int step = 0; step < 2; ++step) {
      const Solved got_small = solve_compact(a, small, 3, true, coloured(10, precision));
      const Solved got_large = solve_compact(b, large, 3, true, coloured(10, precision));
      EXPECT_EQ(a.kept_layout(), step == 1);
      EXPECT_EQ(got_small.lambda, small_alone.lambda);
      EXPECT_EQ(got_large.lambda, large_alone.lambda);
    }
    b.share_values(&fresh);  // the kept layout's values in a store too small for it
    const Solved moved = solve_compact(b, large, 3, true, coloured(10, precision));
    EXPECT_TRUE(b.kept_layout());
    EXPECT_EQ(moved.lambda, large_alone.lambda);
    EXPECT_FALSE(precision == PgsPrecision::Single ? fresh.f.empty() : fresh.d.empty());
  }
}

// A 2 kg body falling at 3 m/s onto a fixed one is stopped by lambda = m v; sliding at 5 m/s it loses mu lambda_n
// of momentum (mu 0.25: 0.5 m/s), its friction within mu lambda_n.
TEST(PgsContacts, ContactStopsTheApproachAndFrictionIsBoundedByMu) {
  for (PgsPrecision precision : {PgsPrecision::Double, PgsPrecision::Single}) {
    ContactProblem p;
    p.masses = {InverseMass{}, InverseMass{0.5, Mat3::Identity()}};
    p.u = {BodyVelocity{}, BodyVelocity{Vec3(5, -3, 0), Vec3::Zero()}};
    p.bodies = {{0, 1}};
    ContactPoint c;
    c.dir[0] = Vec3::UnitY();
    c.dir[1] = Vec3::UnitX();
    c.dir[2] = Vec3::UnitZ();
    c.mu = 0.25;
    p.points = {c};
    ContactPgs lanes;
    const Solved s = solve_compact(lanes, p, 3, false, coloured(20, precision));
    EXPECT_NEAR(s.lambda[0], 6.0, 1e-6);
    EXPECT_NEAR(s.u[1].v.y(), 0.0, 1e-6);
    EXPECT_NEAR(s.u[1].v.x(), 5.0 - 0.25 * 6.0 * 0.5, 1e-6);
    EXPECT_LE(std::abs(s.lambda[1]), 0.25 * s.lambda[0] + 1e-6);
  }
}

// The contacts written batch range by batch range (as lcp hands the ranges to the world's threads), in any order,
// give the solve of the contacts written at once, bit for bit.
TEST(PgsContacts, WritingTheBatchesInRangesGivesTheWholeWrite) {
  const ContactProblem p = random_problem(7, 60, 200, 6);
  ContactPgs whole, pieces;
  const Solved expected = solve_compact(whole, p, 3, false, coloured(10));
  ASSERT_TRUE(pieces.plan(p.bodies, 3, false, p.masses, PgsPrecision::Double));
  const int n = pieces.batch_count();
  ASSERT_GT(n, 3);
  pieces.write(p.points, n / 2, n);
  pieces.write(p.points, n / 3, n / 2);
  pieces.write(p.points, 0, n / 3);
  Solved got{{}, p.u, {}};
  pieces.warm_start(got.u);
  got.result = pieces.solve(got.u, coloured(10));
  for (size_t k = 0; k < p.points.size(); ++k)
    for (int r = 0; r < 3; ++r) got.lambda.push_back(pieces.lambda(int(k), r));
  EXPECT_EQ(got.lambda, expected.lambda);
  for (size_t i = 0; i < got.u.size(); ++i) {
    EXPECT_EQ(got.u[i].v, expected.u[i].v) << "body " << i;
    EXPECT_EQ(got.u[i].w, expected.u[i].w) << "body " << i;
  }
}

// Batches as wide as AVX-512's registers (8 doubles, 16 floats) and as AVX2's (4, 8) give the same impulses and
// velocities bit for bit, in both precisions, the disc and the box, on one thread and two: how the blocks of a
// colour are batched changes no result.
TEST(PgsContacts, WideAndNarrowLanesGiveTheSameResult) {
  const ContactProblem p = random_problem(8, 300, 1200, 6);
  TaskPool pool(2);
  for (PgsPrecision precision : {PgsPrecision::Double, PgsPrecision::Single})
    for (bool disc : {false, true})
      for (TaskPool* threads : {static_cast<TaskPool*>(nullptr), &pool}) {
        SCOPED_TRACE(std::string(precision == PgsPrecision::Single ? "float" : "double") + (disc ? ", disc" : "") +
                     (threads ? ", two threads" : ""));
        ContactPgs narrow(LaneWidth::Narrow), wide(LaneWidth::Wide);
        const Solved a = solve_compact(narrow, p, 3, disc, coloured(10, precision, threads));
        const Solved b = solve_compact(wide, p, 3, disc, coloured(10, precision, threads));
        EXPECT_LT(wide.batch_count(), narrow.batch_count());  // the wide batches do hold more lanes
        EXPECT_EQ(a.lambda, b.lambda);
        for (size_t i = 0; i < p.u.size(); ++i) {
          ASSERT_EQ(a.u[i].v, b.u[i].v) << "body " << i;
          ASSERT_EQ(a.u[i].w, b.u[i].w) << "body " << i;
        }
        EXPECT_EQ(a.result.sweeps, b.result.sweeps);
        EXPECT_EQ(a.result.residual, b.result.residual);
      }
}

// Contacts the lanes cannot take (a body on both sides, a body out of range): plan says so.
TEST(PgsContacts, PlanRefusesContactsItCannotLayOut) {
  const std::vector<InverseMass> masses(2, InverseMass{1.0, Mat3::Identity()});
  ContactPgs lanes;
  const std::vector<ContactBodies> self{{1, 1}}, outside{{0, 2}}, fine{{0, 1}};
  EXPECT_FALSE(lanes.plan(self, 3, false, masses, PgsPrecision::Double));
  EXPECT_FALSE(lanes.plan(outside, 3, false, masses, PgsPrecision::Double));
  EXPECT_FALSE(lanes.plan(fine, 2, true, masses, PgsPrecision::Double));  // a disc needs two tangents
  EXPECT_TRUE(lanes.plan(fine, 3, true, masses, PgsPrecision::Double));
}

// A large solve on two threads (the levels' batches split between them) gives the one-thread result bit for bit,
// and the rows' result, in batches of either width (the same solve is split in both: a thread's share of a level
// is counted in batches of the narrow width).
TEST(PgsContacts, TwoThreadsGiveTheResultOfOne) {
  TaskPool pool(2);
  for (const LaneWidth width : {LaneWidth::Narrow, LaneWidth::Wide}) {
    SCOPED_TRACE(width == LaneWidth::Wide ? "wide" : "narrow");
    const ContactProblem p = random_problem(6, 400, 1600, 4);
    ContactPgs one(width), two(width);
    const Solved a = solve_compact(one, p, 3, false, coloured(10));
    const Solved b = solve_compact(two, p, 3, false, coloured(10, PgsPrecision::Double, &pool));
    EXPECT_EQ(a.result.threads, 1);
    EXPECT_EQ(b.result.threads, 2);
    EXPECT_EQ(a.lambda, b.lambda);
    // From the rows' warm start, the rows' impulses.
    const Solved rows = solve_as_rows(p, 3, false, coloured(10));
    EXPECT_EQ(solve_compact(one, p, 3, false, coloured(10), true).lambda, rows.lambda);
    // In single precision too (twice the lanes a batch, so half as many batches: a larger solve), disc or box.
    const ContactProblem large = random_problem(7, 800, 3200, 4);
    for (const bool disc : {false, true}) {
      ContactPgs one_f(width), two_f(width);
      const Solved af = solve_compact(one_f, large, 3, disc, coloured(10, PgsPrecision::Single));
      const Solved bf = solve_compact(two_f, large, 3, disc, coloured(10, PgsPrecision::Single, &pool));
      EXPECT_EQ(bf.result.threads, 2);
      EXPECT_EQ(af.lambda, bf.lambda);
      EXPECT_EQ(af.result.sweeps, bf.result.sweeps);
    }
  }
}

// The warm start of a large layout on two threads (the colours' batches split between them, as the sweeps split
// them) gives the one-thread velocities bit for bit: each body's impulses are added in the same order.
TEST(PgsContacts, WarmStartOnTwoThreadsGivesTheVelocitiesOfOne) {
  TaskPool pool(2);
  for (const PgsPrecision precision : {PgsPrecision::Double, PgsPrecision::Single}) {
    SCOPED_TRACE(precision == PgsPrecision::Single ? "float" : "double");
    const ContactProblem p = random_problem(8, 800, 3200, 4);
    ContactPgs lanes;
    ASSERT_TRUE(lanes.plan(p.bodies, 3, false, p.masses, precision));
    lanes.write(p.points);
    std::vector<BodyVelocity> one = p.u, two = p.u;
    lanes.warm_start(one);
    lanes.warm_start(two, &pool);
    // The layout is large enough to split: its solve on the same pool takes both threads.
    std::vector<BodyVelocity> swept = two;
    ASSERT_EQ(lanes.solve(swept, coloured(1, precision, &pool)).threads, 2);
    for (size_t i = 0; i < p.u.size(); ++i) {
      ASSERT_EQ(two[i].v, one[i].v) << "body " << i;
      ASSERT_EQ(two[i].w, one[i].w) << "body " << i;
    }
    EXPECT_NE(one[1].v, p.u[1].v);  // the warm start does move the bodies
  }
}

}  // namespace
}  // namespace cl
