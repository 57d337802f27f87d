// The linear system of the implicit integrator (implicit_springs.cpp): (M + sum_r w_r J_r^T J_r) x = b over 6-blocks
// (v, w) of bodies, M block diagonal (m I, I_world), each row r coupling at most two blocks. Symmetric positive
// definite for positive masses and weights w_r >= 0.
//
// Solved directly by a sparse Cholesky factorization L L^T over 6 x 6 blocks, the blocks eliminated in minimum
// degree order (a stack's bodies one after another from the top, a pile's in the order that fills in least). The
// order and the fill-in (the symbolic factorization) depend only on which blocks the rows couple, which changes
// only when pairs come into or out of touch, so they are kept until it does.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "core/math.h"

namespace cl::pid_penalty {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

struct SystemRow {
  int sa = -1, sb = -1;  // the blocks of its two sides (-1: no unknowns there)
  Vec6 ja = Vec6::Zero(), jb = Vec6::Zero();
  double w = 0.0;        // >= 0
};

class SpringSystem {
 public:
  // Factors the system of `mass` (one block per unknown) and `rows`. `couplings` (lower, higher block) must hold
  // every pair of blocks a row couples, sorted and unique; it may hold more (pairs that may touch later), so that the
  // ordering is kept while rows come and go. False if the system is not positive definite (a non-positive or
  // non-finite pivot).
  bool factor(std::span<const Mat6> mass, std::span<const SystemRow> rows,
              std::span<const std::pair<int, int>> couplings);
  // x = the solution for b, of the last successful factor().
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  // Symbolic factorizations (a new pattern of blocks) and numeric ones since construction.
  long orderings() const { return orderings_; }
  long factorizations() const { return factorizations_; }
  // Off-diagonal blocks of L: the couplings and their fill-in.
  size_t blocks() const { return rows_.size(); }

 private:
  void analyse(int n, std::span<const std::pair<int, int>> couplings);
  // Where block (i, k) of L lies (positions in the elimination order, i > k): its index in blocks_.
  int find(int i, int k) const;

  std::vector<std::pair<int, int>> edges_;  // the pattern analysed: coupled blocks (lower, higher), sorted
  int n_ = -1;
  std::vector<int> position_;  // per block: its place in the elimination order
  std::vector<int> start_;     // per position k: its column's first entry in rows_/blocks_ (n_ + 1 of them)
  std::vector<int> rows_;      // per entry: the row position i > k of block L_ik, ascending within a column
  std::vector<Mat6> diagonal_;  // per position: L_kk^-1 (lower triangular)
  std::vector<Mat6> blocks_;    // per entry: L_ik
  long orderings_ = 0, factorizations_ = 0;
};

}  // namespace cl::pid_penalty
