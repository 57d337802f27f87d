#include "solvers/implicit_penalty/block_forest.h"

#include <algorithm>
#include <vector>

#include <Eigen/LU>

namespace cl::implicit_penalty {

namespace {

using Mat6 = Eigen::Matrix<double, 6, 6>;
using Vec6 = Eigen::Matrix<double, 6, 1>;

// One coupled pair of bodies i < j: G's blocks G_ij and G_ji (zero where G has no entries).
struct Link {
  int i = 0, j = 0;
  Mat6 ij = Mat6::Zero(), ji = Mat6::Zero();
};

}  // namespace

bool solve_block_forest(const Eigen::SparseMatrix<double>& G, const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  const int n = int(G.cols()) / 6;
  if (n <= 0 || G.rows() != G.cols() || 6 * n != G.cols() || rhs.size() != G.rows()) return false;
  thread_local std::vector<Mat6> diagonal;
  thread_local std::vector<Link> links;
  thread_local std::vector<std::vector<int>> links_of;  // the links of each body
  diagonal.assign(size_t(n), Mat6::Zero());
  links.clear();
  links_of.resize(size_t(n));
  for (auto& l : links_of) l.clear();
  auto link_between = [&](int i, int j) -> Link& {
    const int lo = std::min(i, j), hi = std::max(i, j);
    for (const int k : links_of[size_t(lo)])
      if (links[size_t(k)].j == hi) return links[size_t(k)];
    links_of[size_t(lo)].push_back(int(links.size()));
    links_of[size_t(hi)].push_back(int(links.size()));
    Link& made = links.emplace_back();
    made.i = lo;
    made.j = hi;
    return made;
  };
  for (int c = 0; c < G.outerSize(); ++c) {
    const int bj = c / 6, k = c % 6;
    int last = -1;  // the block row of the entries before in this column (they come in runs of up to 6)
    Mat6* block = nullptr;
    for (Eigen::SparseMatrix<double>::InnerIterator it(G, c); it; ++it) {
      const int bi = int(it.row()) / 6;
      if (bi != last) {
        last = bi;
        if (bi == bj) {
          block = &diagonal[size_t(bi)];
        } else {
          Link& l = link_between(bi, bj);
          block = bi < bj ? &l.ij : &l.ji;
        }
      }
      (*block)(int(it.row()) % 6, k) += it.value();
    }
  }

  // Each tree in breadth-first order from its least body; a link to a body already reached closes a cycle.
  thread_local std::vector<int> order, parent, up;  // up: the link to the parent
  order.clear();
  parent.assign(size_t(n), -2);  // -2 unreached, -1 a root
  up.assign(size_t(n), -1);
  for (int root = 0; root < n; ++root) {
    if (parent[size_t(root)] != -2) continue;
    parent[size_t(root)] = -1;
    order.push_back(root);
    for (size_t q = order.size() - 1; q < order.size(); ++q) {
      const int i = order[q];
      for (const int k : links_of[size_t(i)]) {
        if (k == up[size_t(i)]) continue;
        const int other = links[size_t(k)].i == i ? links[size_t(k)].j : links[size_t(k)].i;
        if (parent[size_t(other)] != -2) return false;  // a cycle
        parent[size_t(other)] = i;
        up[size_t(other)] = k;
        order.push_back(other);
      }
    }
  }

  // Leaves first: D_i factorised, y_i = D_i^-1 rhs_i and X_i = D_i^-1 G_ip kept for the way back, and the parent's
  // block and right-hand side take the elimination's update.
  thread_local std::vector<Eigen::FullPivLU<Mat6>> lu;
  thread_local std::vector<Vec6> y;
  thread_local std::vector<Mat6> X;
  lu.resize(size_t(n));
  y.resize(size_t(n));
  X.resize(size_t(n));
  thread_local std::vector<Vec6> b;
  b.resize(size_t(n));
  for (int i = 0; i < n; ++i) b[size_t(i)] = rhs.segment<6>(6 * i);
  for (size_t q = order.size(); q-- > 0;) {
    const int i = order[q];
    lu[size_t(i)].compute(diagonal[size_t(i)]);
    if (!lu[size_t(i)].isInvertible()) return false;
    y[size_t(i)] = lu[size_t(i)].solve(b[size_t(i)]);
    const int p = parent[size_t(i)];
    if (p < 0) continue;
    const Link& l = links[size_t(up[size_t(i)])];
    const Mat6& G_ip = i < p ? l.ij : l.ji;
    const Mat6& G_pi = i < p ? l.ji : l.ij;
    X[size_t(i)] = lu[size_t(i)].solve(G_ip);
    diagonal[size_t(p)].noalias() -= G_pi * X[size_t(i)];
    b[size_t(p)].noalias() -= G_pi * y[size_t(i)];
  }
  // Roots first: x_i = y_i - X_i x_p.
  x.resize(6 * n);
  for (const int i : order) {
    const int p = parent[size_t(i)];
    Vec6 xi = y[size_t(i)];
    if (p >= 0) xi.noalias() -= X[size_t(i)] * x.segment<6>(6 * p);
    x.segment<6>(6 * i) = xi;
  }
  return x.allFinite();
}

}  // namespace cl::implicit_penalty
