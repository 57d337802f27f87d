#include "solvers/implicit_penalty/block_forest.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace cl::implicit_penalty {
namespace {

// A 6n x 6n matrix shaped like a group's G: the identity plus, per coupled pair (i, j), a stiffness-like term on
// the blocks ii, ij, ji, jj (random, not symmetric), scaled by `stiffness` against the identity.
Eigen::SparseMatrix<double> coupled(int n, const std::vector<std::pair<int, int>>& pairs, double stiffness,
                                    std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd G = Eigen::MatrixXd::Identity(6 * n, 6 * n);
  for (const auto& [i, j] : pairs) {
    Eigen::Matrix<double, 6, 6> K, skew;
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) {
        K(r, c) = normal(rng);
        skew(r, c) = 0.1 * normal(rng);
      }
    const Eigen::Matrix<double, 6, 6> spd = stiffness * (K * K.transpose() / 6.0) + stiffness * skew;
    G.block<6, 6>(6 * i, 6 * i) += spd;
    G.block<6, 6>(6 * j, 6 * j) += spd;
    G.block<6, 6>(6 * i, 6 * j) -= spd;
    G.block<6, 6>(6 * j, 6 * i) -= spd.transpose();
  }
  return G.sparseView();
}

Eigen::VectorXd random_rhs(int n, std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd b(6 * n);
  for (int i = 0; i < 6 * n; ++i) b[i] = normal(rng);
  return b;
}

// A stack (a chain), a body carrying others (a star), and a forest of a chain, a pair and a lone body, each in a
// scrambled numbering: the block elimination solves them as the dense LU does, to rounding, from soft couplings
// to couplings ten thousand times the identity (h^2 K / m of a stiff contact at a long step).
TEST(BlockForest, SolvesChainsStarsAndForestsAsTheDenseLu) {
  std::mt19937 rng(3);
  const std::vector<std::pair<int, std::vector<std::pair<int, int>>>> cases = {
      {6, {{0, 3}, {3, 1}, {1, 5}, {5, 2}, {2, 4}}},
      {5, {{2, 0}, {2, 1}, {2, 3}, {4, 2}}},
      {7, {{6, 0}, {0, 4}, {4, 2}, {1, 5}}},
  };
  for (const auto& [n, pairs] : cases)
    for (double stiffness : {0.1, 10.0, 1e4}) {
      const Eigen::SparseMatrix<double> G = coupled(n, pairs, stiffness, rng);
      const Eigen::VectorXd b = random_rhs(n, rng);
      Eigen::VectorXd x;
      ASSERT_TRUE(solve_block_forest(G, b, x)) << n << " bodies, stiffness " << stiffness;
      const Eigen::VectorXd dense = Eigen::MatrixXd(G).fullPivLu().solve(b);
      EXPECT_LT((x - dense).norm(), 1e-10 * dense.norm()) << n << " bodies, stiffness " << stiffness;
      EXPECT_LT((G * x - b).lpNorm<Eigen::Infinity>(), 1e-12 * stiffness * x.lpNorm<Eigen::Infinity>() + 1e-13);
    }
}

// A cycle of couplings (three boxes touching each other) is left to the sparse LU, as is a singular block.
TEST(BlockForest, RefusesCyclesAndSingularBlocks) {
  std::mt19937 rng(5);
  Eigen::VectorXd x;
  const Eigen::SparseMatrix<double> ring = coupled(3, {{0, 1}, {1, 2}, {2, 0}}, 1.0, rng);
  EXPECT_FALSE(solve_block_forest(ring, random_rhs(3, rng), x));
  Eigen::MatrixXd dense = Eigen::MatrixXd(coupled(2, {{0, 1}}, 1.0, rng));
  dense.block<6, 6>(6, 0).setZero();  // body 1 alone, its own block singular
  dense.block<6, 6>(0, 6).setZero();
  dense.block<6, 6>(6, 6).setZero();
  dense(6, 6) = 1.0;
  const Eigen::SparseMatrix<double> singular = dense.sparseView();
  EXPECT_FALSE(solve_block_forest(singular, random_rhs(2, rng), x));
}

}  // namespace
}  // namespace cl::implicit_penalty
