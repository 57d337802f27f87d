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
  // M = L L^T, block diagonal [m_a I, I_a, m_b I, I_b]: L per block (a body's inertia by its Cholesky factor).
  Mat12 L = Mat12::Zero();
  const EndMetric* ends[2] = {&a, &b};
  for (int e = 0; e < 2; ++e) {
    const EndMetric& m = *ends[e];
    if (!(m.mass > 0.0)) return false;
    L.block<3, 3>(6 * e, 6 * e) = std::sqrt(m.mass) * Mat3::Identity();
    const Eigen::LLT<Mat3> llt(m.inertia);
    if (llt.info() != Eigen::Success) return false;
    L.block<3, 3>(6 * e + 3, 6 * e + 3) = llt.matrixL();
  }
  const Mat12 S = 0.5 * (d_pos + d_pos.transpose());
  // S' = L^-1 S L^-T.
  const auto lower = L.triangularView<Eigen::Lower>();
  Mat12 Sp = lower.solve(S);
  Sp = lower.solve(Sp.transpose()).transpose();
  Sp = 0.5 * (Sp + Sp.transpose());
  const Eigen::SelfAdjointEigenSolver<Mat12> eig(Sp);
  if (eig.info() != Eigen::Success) return false;
  const Eigen::Matrix<double, 12, 1>& lambda = eig.eigenvalues();  // ascending
  const double scale = std::max(std::abs(lambda[0]), std::abs(lambda[11]));
  if (!(lambda[11] > 1e-12 * scale)) return false;
  Eigen::Matrix<double, 12, 1> clipped = lambda.cwiseMin(0.0);
  const Mat12& Q = eig.eigenvectors();
  const Mat12 Sm = L * (Q * clipped.asDiagonal() * Q.transpose()) * L.transpose();
  // W is kept: x^T W x = 0 leaves the bound, and without it (D replaced by S_-) the 320-brick tower of
  // scenes/tower320.json lost the turning of its contacts' normals with the bricks and fell at step 485.
  const Mat12 W = 0.5 * (d_pos - d_pos.transpose());
  d_pos = Sm + W;
  return true;
}

}  // namespace cl::implicit_penalty
