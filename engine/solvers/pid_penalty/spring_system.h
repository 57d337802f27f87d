// The linear system of the implicit integrator (implicit_springs.cpp): (M + sum_r w_r J_r^T J_r) x = b over 6-blocks
// (v, w) of bodies, M block diagonal (m I, I_world), each row r coupling at most two blocks. Symmetric positive
// definite for positive masses and weights w_r >= 0.
//
// Solved directly by a sparse Cholesky factorization L L^T over 6 x 6 blocks, the blocks eliminated in minimum
// degree order (a stack's bodies one after another from the top, a pile's in the order that fills in least). The
// order and the fill-in (the symbolic factorization) depend only on which blocks the rows couple, which changes
// only when pairs come into or out of touch, so they are kept until it does.
//
// The factorization is left-looking, so that a system whose rows' weights changed in a few places refactors only
// the columns those change and the columns after them in the elimination tree (each column's parent: the first
// block below its diagonal); the others keep their blocks. An active set that frees or holds a few rows of a pile
// then refactors a part of it, and the result is the full factorization's to the bit (the same sums in the same
// order: each block of L takes the columns before it in ascending order, as a right-looking one gives them).
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
  // Columns (blocks of unknowns) refactored since construction: n per full factorization, fewer where only some
  // rows' weights changed since the last.
  long columns_factored() const { return columns_factored_; }
  // Off-diagonal blocks of L: the couplings and their fill-in.
  size_t blocks() const { return rows_.size(); }

 private:
  void analyse(int n, std::span<const std::pair<int, int>> couplings);
  // Where block (i, k) of L lies (positions in the elimination order, i > k): its index in blocks_.
  int find(int i, int k) const;
  // Column k of L (its diagonal and blocks) from column k of A and the columns before it; false if not positive
  // definite there.
  bool factor_column(int k);

  std::vector<std::pair<int, int>> edges_;  // the pattern analysed: coupled blocks (lower, higher), sorted
  int n_ = -1;
  std::vector<int> position_;  // per block: its place in the elimination order
  std::vector<int> start_;     // per position k: its column's first entry in rows_/blocks_ (n_ + 1 of them)
  std::vector<int> rows_;      // per entry: the row position i > k of block L_ik, ascending within a column
  std::vector<Mat6> diagonal_;  // per position: L_kk^-1 (lower triangular)
  std::vector<Mat6> blocks_;    // per entry: L_ik
  std::vector<int> column_;     // per entry: its column k
  std::vector<int> row_start_;  // per position i: its row's first entry in row_entries_ (n_ + 1 of them)
  std::vector<int> row_entries_;  // per row i: the entries L_ik, k ascending
  std::vector<Mat6> a_diagonal_, a_blocks_;  // A's lower triangle in elimination order, as last factored
  std::vector<Mat6> next_diagonal_, next_blocks_;  // the same of the system being factored
  std::vector<char> coupled_;   // per entry: a block of A (a coupling), else fill-in (zero in A)
  std::vector<char> dirty_;     // per position: its column is refactored
  bool factored_ = false;       // L is that of a_diagonal_, a_blocks_
  long orderings_ = 0, factorizations_ = 0, columns_factored_ = 0;
};

}  // namespace cl::pid_penalty
