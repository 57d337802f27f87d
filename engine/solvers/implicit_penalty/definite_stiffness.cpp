#include "solvers/implicit_penalty/definite_stiffness.h"

#include <algorithm>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

namespace cl::implicit_penalty {

EndMetric end_metric(const IntegratorBody& own, const IntegratorBody& other) {
  for (const IntegratorBody* s : {&own, &other})
    if (s->mass > 0.0) return {s->mass, s->pose.inv_inertia.inverse()};
  return {};
}

bool make_definite(Mat12& d_pos, const EndMetric& a, const EndMetric& b) {
  // M = L L^T, block diagonal [m_a I, I_a, m_b I, I_b]: L per 3 x 3 block (a mass by its square root, a body's
  // inertia by its Cholesky factor). It is applied block by block: L^-1 as the blocks' inverses.
  Mat3 L[4], Linv[4];
  const EndMetric* ends[2] = {&a, &b};
  for (int e = 0; e < 2; ++e) {
    const EndMetric& m = *ends[e];
    if (!(m.mass > 0.0)) return false;
    const double root = std::sqrt(m.mass);
    L[2 * e] = root * Mat3::Identity();
    Linv[2 * e] = (1.0 / root) * Mat3::Identity();
    const Eigen::LLT<Mat3> llt(m.inertia);
    if (llt.info() != Eigen::Success) return false;
    L[2 * e + 1] = llt.matrixL();
    Linv[2 * e + 1] = llt.matrixL().solve(Mat3::Identity());
  }
  // S' = L^-1 S L^-T with S = (D + D^T) / 2, block by block, then made exactly symmetric.
  Mat12 Sp;
  for (int i = 0; i < 4; ++i)
    for (int j = i; j < 4; ++j) {
      const Mat3 S_ij = 0.5 * (d_pos.block<3, 3>(3 * i, 3 * j) + d_pos.block<3, 3>(3 * j, 3 * i).transpose());
      Sp.block<3, 3>(3 * i, 3 * j) = Linv[i] * S_ij * Linv[j].transpose();
      if (i == j) Sp.block<3, 3>(3 * i, 3 * i) = 0.5 * (Sp.block<3, 3>(3 * i, 3 * i) + Sp.block<3, 3>(3 * i, 3 * i).transpose()).eval();
      else Sp.block<3, 3>(3 * j, 3 * i) = Sp.block<3, 3>(3 * i, 3 * j).transpose();
    }
  // S leaves a common translation of both bodies alone (u = [t, 0, t, 0]: the pair's forces depend on where the
  // bodies are relative to each other, so D u = 0, and the force rows of a and b are opposite, so D^T u = 0): in the
  // metric, S' has the null space [sqrt(m_a) t, 0, sqrt(m_b) t, 0]. Where it does (to rounding), S' is decomposed
  // on its 9-dimensional complement, the relative translation and the two rotations, instead of all 12.
  Mat12 B;
  Eigen::Matrix<double, 12, 1> values;
  int negative = 0;
  double scale = 0.0, top = 0.0;
  const double ma = ends[0]->mass, mb = ends[1]->mass;
  const double c = std::sqrt(ma / (ma + mb)), s = std::sqrt(mb / (ma + mb));
  // The common translation's rows of S' (its columns: the transpose, S' being symmetric).
  const Eigen::Matrix<double, 3, 12> common = c * Sp.middleRows<3>(0) + s * Sp.middleRows<3>(6);
  // The eigenvalues (ascending) of either decomposition: their range, the top one and the negative ones' count.
  auto take = [&](const auto& lambda) {
    const int n = int(lambda.size());
    scale = std::max(std::abs(lambda[0]), std::abs(lambda[n - 1]));
    top = lambda[n - 1];
    while (negative < n && lambda[negative] < 0.0) ++negative;
    values.head(n) = lambda;
  };
  if (common.norm() <= 1e-14 * Sp.norm()) {
    // The complement's basis: the relative translation r = [s t, 0, -c t, 0], then theta_a, theta_b.
    using Mat9 = Eigen::Matrix<double, 9, 9>;
    const Eigen::Matrix<double, 3, 12> relative = s * Sp.middleRows<3>(0) - c * Sp.middleRows<3>(6);
    Mat9 R;
    R.block<3, 3>(0, 0) = s * relative.middleCols<3>(0) - c * relative.middleCols<3>(6);
    R.block<3, 3>(0, 3) = relative.middleCols<3>(3);
    R.block<3, 3>(0, 6) = relative.middleCols<3>(9);
    R.block<3, 3>(3, 3) = Sp.block<3, 3>(3, 3);
    R.block<3, 3>(3, 6) = Sp.block<3, 3>(3, 9);
    R.block<3, 3>(6, 6) = Sp.block<3, 3>(9, 9);
    R.block<3, 3>(3, 0) = R.block<3, 3>(0, 3).transpose();
    R.block<3, 3>(6, 0) = R.block<3, 3>(0, 6).transpose();
    R.block<3, 3>(6, 3) = R.block<3, 3>(3, 6).transpose();
    R.block<3, 3>(0, 0) = 0.5 * (R.block<3, 3>(0, 0) + R.block<3, 3>(0, 0).transpose()).eval();
    const Eigen::SelfAdjointEigenSolver<Mat9> eig(R);
    if (eig.info() != Eigen::Success) return false;
    take(eig.eigenvalues());
    // B = L E Q: E embeds the complement's coordinates in the 12 of the metric.
    const Mat9& Q = eig.eigenvectors();
    B.middleRows<3>(0).leftCols(9) = L[0] * (s * Q.middleRows<3>(0));
    B.middleRows<3>(3).leftCols(9) = L[1] * Q.middleRows<3>(3);
    B.middleRows<3>(6).leftCols(9) = L[2] * (-c * Q.middleRows<3>(0));
    B.middleRows<3>(9).leftCols(9) = L[3] * Q.middleRows<3>(6);
  } else {
    const Eigen::SelfAdjointEigenSolver<Mat12> eig(Sp);
    if (eig.info() != Eigen::Success) return false;
    take(eig.eigenvalues());
    const Mat12& Q = eig.eigenvectors();
    for (int i = 0; i < 4; ++i) B.middleRows<3>(3 * i) = L[i] * Q.middleRows<3>(3 * i);
  }
  if (!(top > 1e-12 * scale)) return false;
  // S_- = L Q Lambda_- Q^T L^T = B Lambda_- B^T with B = L Q, over the negative eigenvalues only (ascending: the
  // first `negative` columns).
  // Summed column by column, lambda_k b_k b_k^T (fixed sizes: a general product of so few columns costs more in
  // its setup than in its arithmetic).
  Mat12 Sm = Mat12::Zero();
  for (int k = 0; k < negative; ++k) Sm.noalias() += (values[k] * B.col(k)) * B.col(k).transpose();
  // W is kept: x^T W x = 0 leaves the bound, and without it (D replaced by S_-) the 320-brick tower of
  // scenes/tower320.json lost the turning of its contacts' normals with the bricks and fell at step 485.
  // d_pos = S_- + W entry by entry, in place: W_ij = (D_ij - D_ji) / 2, W_ji = (D_ji - D_ij) / 2, W_ii = +0.
  for (int j = 0; j < 12; ++j) {
    for (int i = 0; i < j; ++i) {
      const double dij = d_pos(i, j), dji = d_pos(j, i);
      d_pos(i, j) = Sm(i, j) + 0.5 * (dij - dji);
      d_pos(j, i) = Sm(j, i) + 0.5 * (dji - dij);
    }
    d_pos(j, j) = Sm(j, j) + 0.0;
  }
  return true;
}

}  // namespace cl::implicit_penalty
