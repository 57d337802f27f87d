#include "solvers/pid_penalty/spring_system.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <Eigen/Cholesky>

namespace cl::pid_penalty {

namespace {

// Column j of A B^T: the columns of A weighted by row j of B, summed in ascending inner index, as Eigen's lazy 6 x 6
// product sums each coefficient's terms. So the factors are those of `C.noalias() -= A * B.transpose()` to the bit,
// a quarter faster: the columns of A stay in registers over the whole product (the factorization's products are two
// fifths of a resting pyramid's step). Forced inline: called, it cost the step 8 %.
EIGEN_STRONG_INLINE Vec6 product_transposed_column(const Mat6& A, const Mat6& B, int j) {
  Vec6 sum = A.col(0) * B(j, 0);
  for (int l = 1; l < 6; ++l) sum += A.col(l) * B(j, l);
  return sum;
}

// C -= A B^T.
void subtract_product_transposed(Mat6& C, const Mat6& A, const Mat6& B) {
  for (int j = 0; j < 6; ++j) C.col(j) -= product_transposed_column(A, B, j);
}

// M += w x y^T, column by column: the same products as Eigen's `M.noalias() += w * x * y.transpose()`.
void add_outer(Mat6& M, double w, const Vec6& x, const Vec6& y) {
  const Vec6 wx = w * x;
  for (int j = 0; j < 6; ++j) M.col(j) += wx * y(j);
}

}  // namespace

// Minimum degree ordering on the graph of the blocks (each elimination joins the eliminated block's remaining
// neighbours into a clique: the fill-in), ties to the lowest index so that the order is deterministic. Each block's
// neighbours at its elimination are its column's pattern in L.
void SpringSystem::analyse(int n, std::span<const std::pair<int, int>> couplings) {
  ++orderings_;
  n_ = n;
  edges_.assign(couplings.begin(), couplings.end());
  std::vector<std::vector<int>> adjacent(static_cast<size_t>(n));
  for (const auto& [i, k] : couplings) {
    adjacent[size_t(i)].push_back(k);
    adjacent[size_t(k)].push_back(i);
  }
  for (auto& list : adjacent) std::sort(list.begin(), list.end());  // edges are unique: no duplicates
  std::vector<char> done(size_t(n), 0);
  std::vector<int> order;
  std::vector<std::vector<int>> pattern(static_cast<size_t>(n));
  std::vector<int> merged;
  order.reserve(size_t(n));
  for (int step = 0; step < n; ++step) {
    int v = -1;
    for (int i = 0; i < n; ++i)
      if (!done[size_t(i)] && (v < 0 || adjacent[size_t(i)].size() < adjacent[size_t(v)].size())) v = i;
    done[size_t(v)] = 1;
    order.push_back(v);
    const std::vector<int>& clique = adjacent[size_t(v)];
    for (const int u : clique) {
      merged.clear();
      std::set_union(adjacent[size_t(u)].begin(), adjacent[size_t(u)].end(), clique.begin(), clique.end(),
                     std::back_inserter(merged));
      merged.erase(std::remove_if(merged.begin(), merged.end(), [&](int w) { return w == u || w == v; }),
                   merged.end());
      adjacent[size_t(u)].swap(merged);
    }
    pattern[size_t(v)] = std::move(adjacent[size_t(v)]);
    adjacent[size_t(v)].clear();
  }
  position_.assign(size_t(n), 0);
  for (int p = 0; p < n; ++p) position_[size_t(order[size_t(p)])] = p;
  start_.assign(size_t(n) + 1, 0);
  rows_.clear();
  for (int p = 0; p < n; ++p) {
    start_[size_t(p)] = int(rows_.size());
    const size_t first = rows_.size();
    for (const int u : pattern[size_t(order[size_t(p)])]) rows_.push_back(position_[size_t(u)]);
    std::sort(rows_.begin() + std::ptrdiff_t(first), rows_.end());
  }
  start_[size_t(n)] = int(rows_.size());
  column_.resize(rows_.size());
  row_start_.assign(size_t(n) + 1, 0);
  for (int k = 0; k < n; ++k)
    for (int e = start_[size_t(k)]; e < start_[size_t(k) + 1]; ++e) {
      column_[size_t(e)] = k;
      ++row_start_[size_t(rows_[size_t(e)]) + 1];
    }
  for (int i = 0; i < n; ++i) row_start_[size_t(i) + 1] += row_start_[size_t(i)];
  row_entries_.resize(rows_.size());
  std::vector<int> fill(row_start_.begin(), row_start_.end() - 1);
  for (int e = 0; e < int(rows_.size()); ++e) row_entries_[size_t(fill[size_t(rows_[size_t(e)])]++)] = e;
  diagonal_.resize(size_t(n));
  blocks_.resize(rows_.size());
  a_diagonal_.resize(size_t(n));
  a_blocks_.assign(rows_.size(), Mat6::Zero());
  next_diagonal_.resize(size_t(n));
  next_blocks_.assign(rows_.size(), Mat6::Zero());
  // The entries of A's couplings; the others are fill-in, zero in A whatever the rows' weights.
  coupled_.assign(rows_.size(), 0);
  for (const auto& [i, k] : couplings) {
    const int pi = position_[size_t(i)], pk = position_[size_t(k)];
    coupled_[size_t(pi > pk ? find(pi, pk) : find(pk, pi))] = 1;
  }
  factored_ = false;
}

int SpringSystem::find(int i, int k) const {
  const auto first = rows_.begin() + start_[size_t(k)], last = rows_.begin() + start_[size_t(k) + 1];
  return int(std::lower_bound(first, last, i) - rows_.begin());
}

bool SpringSystem::factor(std::span<const Mat6> mass, std::span<const SystemRow> rows,
                          std::span<const std::pair<int, int>> couplings) {
  const int n = int(mass.size());
  if (n != n_ || !std::equal(couplings.begin(), couplings.end(), edges_.begin(), edges_.end())) analyse(n, couplings);
  ++factorizations_;
  // A's lower triangle in elimination order.
  for (int k = 0; k < n; ++k) next_diagonal_[size_t(position_[size_t(k)])] = mass[size_t(k)];
  for (size_t e = 0; e < next_blocks_.size(); ++e)
    if (coupled_[e]) next_blocks_[e].setZero();
  for (const SystemRow& row : rows) {
    if (!(row.w > 0.0)) continue;
    const int pa = row.sa >= 0 ? position_[size_t(row.sa)] : -1, pb = row.sb >= 0 ? position_[size_t(row.sb)] : -1;
    if (pa >= 0) add_outer(next_diagonal_[size_t(pa)], row.w, row.ja, row.ja);
    if (pb >= 0) add_outer(next_diagonal_[size_t(pb)], row.w, row.jb, row.jb);
    if (pa < 0 || pb < 0) continue;
    if (pa > pb) add_outer(next_blocks_[size_t(find(pa, pb))], row.w, row.ja, row.jb);
    else if (pb > pa) add_outer(next_blocks_[size_t(find(pb, pa))], row.w, row.jb, row.ja);
    else next_diagonal_[size_t(pa)].noalias() += row.w * (row.ja * row.jb.transpose() + row.jb * row.ja.transpose());
  }
  // The columns whose blocks of A changed since the last factorization, and the columns after them in the
  // elimination tree (L_ik nonzero makes i an ancestor of k: whatever column k changes, only its ancestors read).
  dirty_.assign(size_t(n), factored_ ? 0 : 1);
  for (int k = 0; k < n; ++k) {
    if (!dirty_[size_t(k)] && next_diagonal_[size_t(k)] != a_diagonal_[size_t(k)]) dirty_[size_t(k)] = 1;
    for (int e = start_[size_t(k)]; e < start_[size_t(k) + 1] && !dirty_[size_t(k)]; ++e)
      if (coupled_[size_t(e)] && next_blocks_[size_t(e)] != a_blocks_[size_t(e)]) dirty_[size_t(k)] = 1;
    if (dirty_[size_t(k)] && start_[size_t(k)] < start_[size_t(k) + 1]) dirty_[size_t(rows_[size_t(start_[size_t(k)])])] = 1;
  }
  a_diagonal_.swap(next_diagonal_);
  a_blocks_.swap(next_blocks_);
  factored_ = false;
  for (int k = 0; k < n; ++k)
    if (dirty_[size_t(k)] && !factor_column(k)) return false;
  for (const Mat6& d : diagonal_)
    if (!d.allFinite()) return false;
  factored_ = true;
  return true;
}

// Left-looking: A_kk and A_ik (i > k) lose L_kl L_kl^T and L_il L_kl^T of each column l < k with a block in row k,
// in ascending l; then L_kk = chol(A_kk), L_ik = A_ik L_kk^-T. The diagonal keeps L_kk^-1 (what the solves multiply
// by).
bool SpringSystem::factor_column(int k) {
  ++columns_factored_;
  const int first = start_[size_t(k)], last = start_[size_t(k) + 1];
  Mat6 D = a_diagonal_[size_t(k)];
  for (int e = first; e < last; ++e) blocks_[size_t(e)] = a_blocks_[size_t(e)];
  for (int r = row_start_[size_t(k)]; r < row_start_[size_t(k) + 1]; ++r) {
    const int b = row_entries_[size_t(r)];  // L_kl
    const Mat6& Bb = blocks_[size_t(b)];
    subtract_product_transposed(D, Bb, Bb);
    // The blocks below L_kl in column l (rows i > k): block (i, k) is there by the fill-in of the ordering.
    // Both columns' rows ascend: one walk down column k finds them.
    const int end = start_[size_t(column_[size_t(b)]) + 1];
    int at = first;
    for (int a = b + 1; a < end; ++a) {
      while (rows_[size_t(at)] < rows_[size_t(a)]) ++at;
      subtract_product_transposed(blocks_[size_t(at)], blocks_[size_t(a)], Bb);
    }
  }
  const Eigen::LLT<Mat6> llt(D);
  if (llt.info() != Eigen::Success) return false;
  Mat6 inverse = Mat6::Identity();
  llt.matrixL().solveInPlace(inverse);
  diagonal_[size_t(k)] = inverse;
  for (int e = first; e < last; ++e) {  // L_ik = A_ik L_kk^-T
    const Mat6 A = blocks_[size_t(e)];
    for (int j = 0; j < 6; ++j) blocks_[size_t(e)].col(j) = product_transposed_column(A, inverse, j);
  }
  return true;
}

void SpringSystem::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  const int n = n_;
  thread_local std::vector<Vec6> y;
  y.resize(size_t(n));
  for (int k = 0; k < n; ++k) y[size_t(position_[size_t(k)])] = b.segment<6>(6 * k);
  for (int k = 0; k < n; ++k) {  // L y' = y
    const Vec6 yk = diagonal_[size_t(k)] * y[size_t(k)];
    y[size_t(k)] = yk;
    for (int e = start_[size_t(k)]; e < start_[size_t(k) + 1]; ++e)
      y[size_t(rows_[size_t(e)])].noalias() -= blocks_[size_t(e)] * yk;
  }
  for (int k = n - 1; k >= 0; --k) {  // L^T x = y'
    Vec6 yk = y[size_t(k)];
    for (int e = start_[size_t(k)]; e < start_[size_t(k) + 1]; ++e)
      yk.noalias() -= blocks_[size_t(e)].transpose() * y[size_t(rows_[size_t(e)])];
    y[size_t(k)].noalias() = diagonal_[size_t(k)].transpose() * yk;
  }
  x.resize(6 * n);
  for (int k = 0; k < n; ++k) x.segment<6>(6 * k) = y[size_t(position_[size_t(k)])];
}

}  // namespace cl::pid_penalty
