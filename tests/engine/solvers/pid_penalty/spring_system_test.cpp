// The implicit integrator's linear system: the block Cholesky factorization in minimum degree order solves
// (M + sum_r w_r J_r^T J_r) x = b as a dense solve does, keeps its ordering while only the rows change, refactors only
// the columns a change of weights reaches (to the bit as a full factorization), and refuses a system that is not
// positive definite.
#include "solvers/pid_penalty/spring_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

namespace cl::pid_penalty {
namespace {

struct SpringProblem {
  std::vector<Mat6> mass;
  std::vector<SystemRow> rows;
  std::vector<std::pair<int, int>> couplings;
};

// n bodies of masses 1e-3 .. 1e3 kg, rows between random pairs of them (and some on one body alone, against a fixed
// one) with weights over twelve decades, as stacks of light and heavy bodies give.
SpringProblem random_springs(int n, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  SpringProblem p;
  for (int k = 0; k < n; ++k) {
    const double m = std::pow(10.0, 3.0 * unit(rng));
    Mat6 M = Mat6::Zero();
    M.topLeftCorner<3, 3>() = m * Mat3::Identity();
    Mat3 R = Mat3::Random();
    M.bottomRightCorner<3, 3>() = m * (R * R.transpose() + 0.1 * Mat3::Identity());
    p.mass.push_back(M);
  }
  for (int r = 0; r < rows; ++r) {
    SystemRow row;
    row.sa = int(rng() % unsigned(n + 1)) - 1;  // -1: a fixed body
    row.sb = int(rng() % unsigned(n));
    if (row.sa == row.sb) row.sa = -1;
    row.ja = Vec6::Random();
    row.jb = Vec6::Random();
    row.w = std::pow(10.0, 6.0 * unit(rng));
    p.rows.push_back(row);
    if (row.sa >= 0) p.couplings.push_back(std::minmax(row.sa, row.sb));
  }
  std::sort(p.couplings.begin(), p.couplings.end());
  p.couplings.erase(std::unique(p.couplings.begin(), p.couplings.end()), p.couplings.end());
  return p;
}

Eigen::MatrixXd dense(const SpringProblem& p) {
  const int n = int(p.mass.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(6 * n, 6 * n);
  for (int k = 0; k < n; ++k) A.block<6, 6>(6 * k, 6 * k) = p.mass[size_t(k)];
  for (const SystemRow& row : p.rows) {  // w J^T J by blocks
    A.block<6, 6>(6 * row.sb, 6 * row.sb) += row.w * row.jb * row.jb.transpose();
    if (row.sa < 0) continue;
    A.block<6, 6>(6 * row.sa, 6 * row.sa) += row.w * row.ja * row.ja.transpose();
    A.block<6, 6>(6 * row.sa, 6 * row.sb) += row.w * row.ja * row.jb.transpose();
    A.block<6, 6>(6 * row.sb, 6 * row.sa) += row.w * row.jb * row.ja.transpose();
  }
  return A;
}

TEST(SpringSystem, SolvesAsADenseFactorizationDoes) {
  for (const auto& [n, rows] : {std::pair{1, 3}, std::pair{5, 12}, std::pair{40, 120}, std::pair{120, 400}}) {
    const SpringProblem p = random_springs(n, rows, unsigned(n));
    SpringSystem system;
    ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings)) << n;
    const Eigen::VectorXd b = Eigen::VectorXd::Random(6 * n);
    Eigen::VectorXd x;
    system.solve(b, x);
    const Eigen::MatrixXd A = dense(p);
    const Eigen::VectorXd exact = A.ldlt().solve(b);
    // The residual, relative to the sizes of A x and b (the system spans 15 decades, so its condition is large and
    // the solution itself is only as good as backward-stable factorizations make it).
    EXPECT_LT((A * x - b).norm(), 1e-12 * (A.norm() * x.norm() + b.norm())) << n;
    EXPECT_LT((A * exact - b).norm(), 1e-12 * (A.norm() * exact.norm() + b.norm())) << n;
  }
}

// The ordering is the couplings': rows may change weight, vanish (weight 0) or come back without a new ordering, and
// couplings no row uses yet are allowed.
TEST(SpringSystem, KeepsItsOrderingWhileOnlyTheRowsChange) {
  SpringProblem p = random_springs(30, 90, 7u);
  SpringSystem system;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  for (int round = 0; round < 5; ++round) {
    for (size_t r = 0; r < p.rows.size(); ++r) p.rows[r].w = (r + size_t(round)) % 3 == 0 ? 0.0 : 1e3 * double(round + 1);
    ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
    const Eigen::VectorXd b = Eigen::VectorXd::Random(180);
    Eigen::VectorXd x;
    system.solve(b, x);
    const Eigen::MatrixXd A = dense(p);
    EXPECT_LT((A * x - b).norm(), 1e-12 * (A.norm() * x.norm() + b.norm())) << round;
  }
  EXPECT_EQ(system.orderings(), 1);
  EXPECT_EQ(system.factorizations(), 6);
  for (int k = 0; k + 1 < 30; ++k)  // a new pair: a new ordering
    if (!std::binary_search(p.couplings.begin(), p.couplings.end(), std::pair{k, k + 1})) {
      p.couplings.insert(std::lower_bound(p.couplings.begin(), p.couplings.end(), std::pair{k, k + 1}), {k, k + 1});
      break;
    }
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  EXPECT_EQ(system.orderings(), 2);
}

// A chain (a stack: each body coupled to the next) fills in nothing in minimum degree order, and a body with no rows
// solves M x = b.
TEST(SpringSystem, AStackIsSolvedWithoutFillIn) {
  const int n = 200;
  SpringProblem p;
  for (int k = 0; k < n; ++k) p.mass.push_back(Mat6::Identity() * (1.0 + k));
  for (int k = 0; k + 1 < n - 1; ++k) {  // the last body has no rows
    SystemRow row;
    row.sa = k;
    row.sb = k + 1;
    row.ja << 0, -1, 0, 0, 0, 0;
    row.jb << 0, 1, 0, 0, 0, 0;
    row.w = 1e9;
    p.rows.push_back(row);
    p.couplings.push_back({k, k + 1});
  }
  SpringSystem system;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(6 * n);
  Eigen::VectorXd x;
  system.solve(b, x);
  const Eigen::MatrixXd A = dense(p);
  EXPECT_LT((A * x - b).norm(), 1e-12 * (A.norm() * x.norm() + b.norm()));
  EXPECT_NEAR(x(6 * (n - 1)), 1.0 / n, 1e-15);
  EXPECT_EQ(system.blocks(), size_t(n - 2));
}

// Rows freed or held between solves (an active set) refactor the columns they touch and those after them in the
// elimination tree; the solution is a fresh factorization's to the bit, and a system that changed nowhere refactors
// nothing.
TEST(SpringSystem, RefactorsOnlyWhatAChangeOfWeightsReaches) {
  SpringProblem p = random_springs(60, 70, 11u);  // sparse: several groups of coupled bodies
  SpringSystem system;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  EXPECT_EQ(system.columns_factored(), 60);
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  EXPECT_EQ(system.columns_factored(), 60);
  const Eigen::VectorXd b = Eigen::VectorXd::Random(360);
  for (int round = 0; round < 6; ++round) {
    const long before = system.columns_factored();
    p.rows[size_t(7 * round + 3)].w = round % 2 == 0 ? 0.0 : 1e4;
    ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
    EXPECT_GT(system.columns_factored(), before) << round;
    EXPECT_LT(system.columns_factored() - before, 60) << round;
    SpringSystem fresh;
    ASSERT_TRUE(fresh.factor(p.mass, p.rows, p.couplings));
    Eigen::VectorXd x, y;
    system.solve(b, x);
    fresh.solve(b, y);
    EXPECT_EQ(x, y) << round;
  }
  // A mass that changes (a body's inertia turned in the world) refactors its column on.
  p.mass[5] *= 2.0;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  SpringSystem fresh;
  ASSERT_TRUE(fresh.factor(p.mass, p.rows, p.couplings));
  Eigen::VectorXd x, y;
  system.solve(b, x);
  fresh.solve(b, y);
  EXPECT_EQ(x, y);
}

// After a refused system the next factorization starts afresh.
TEST(SpringSystem, FactorsAfreshAfterARefusedSystem) {
  SpringProblem p = random_springs(10, 20, 5u);
  SpringSystem system;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  const Mat6 mass = p.mass[0];
  p.mass[0] = -1e6 * Mat6::Identity();
  EXPECT_FALSE(system.factor(p.mass, p.rows, p.couplings));
  p.mass[0] = mass;
  ASSERT_TRUE(system.factor(p.mass, p.rows, p.couplings));
  const Eigen::VectorXd b = Eigen::VectorXd::Random(60);
  Eigen::VectorXd x;
  system.solve(b, x);
  const Eigen::MatrixXd A = dense(p);
  EXPECT_LT((A * x - b).norm(), 1e-12 * (A.norm() * x.norm() + b.norm()));
}

TEST(SpringSystem, RefusesASystemThatIsNotPositiveDefinite) {
  SpringProblem p = random_springs(4, 6, 3u);
  p.mass[2] = -p.mass[2];
  p.mass[2].bottomRightCorner<3, 3>() *= 1e-9;  // a negative mass the rows cannot make up for
  for (SystemRow& row : p.rows) row.w = 0.0;
  SpringSystem system;
  EXPECT_FALSE(system.factor(p.mass, p.rows, p.couplings));
}

}  // namespace
}  // namespace cl::pid_penalty
