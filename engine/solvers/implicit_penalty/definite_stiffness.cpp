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
  const Eigen::SelfAdjointEigenSolver<Mat12> eig(Sp);
  if (eig.info() != Eigen::Success) return false;
  const Eigen::Matrix<double, 12, 1>& lambda = eig.eigenvalues();  // ascending
  const double scale = std::max(std::abs(lambda[0]), std::abs(lambda[11]));
  if (!(lambda[11] > 1e-12 * scale)) return false;
  // S_- = L Q Lambda_- Q^T L^T = B Lambda_- B^T with B = L Q, over the negative eigenvalues only (ascending: the
  // first `negative` columns).
  int negative = 0;
  while (negative < 12 && lambda[negative] < 0.0) ++negative;
  const Mat12& Q = eig.eigenvectors();
  Mat12 B;
  for (int i = 0; i < 4; ++i) B.middleRows<3>(3 * i) = L[i] * Q.middleRows<3>(3 * i);
  const auto Bn = B.leftCols(negative);
  Mat12 Sm = Bn * lambda.head(negative).asDiagonal() * Bn.transpose();
  // W is kept: x^T W x = 0 leaves the bound, and without it (D replaced by S_-) the 320-brick tower of
  // scenes/tower320.json lost the turning of its contacts' normals with the bricks and fell at step 485.
  const Mat12 W = 0.5 * (d_pos - d_pos.transpose());
  d_pos = Sm + W;
  return true;
}

}  // namespace cl::implicit_penalty
