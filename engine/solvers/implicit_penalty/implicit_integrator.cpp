#include "solvers/implicit_penalty/implicit_integrator.h"

#include <algorithm>

#include <Eigen/LU>
#include <Eigen/SparseLU>

#include "solvers/implicit_penalty/block_forest.h"

namespace cl::implicit_penalty {

Mat3 rotation_map(const BodyPose& pose, double h, Integrator mode) {
  if (mode == Integrator::Explicit || pose.inv_inertia.isZero(0.0)) return Mat3::Identity();
  const Mat3 dw_dtheta = pose.inv_inertia * skew(pose.L) - skew(pose.w);
  return (Mat3::Identity() - h * dw_dtheta).inverse();
}

void assemble_group(std::span<const int> group, const std::vector<IntegratorBody>& bodies,
                    std::span<const PairForce> forces, std::span<const int> group_forces,
                    const std::vector<int>& slot, double h, Integrator mode, GroupSystem& out) {
  const int n = int(group.size());
  out.bodies.assign(group.begin(), group.end());
  out.Z.setZero(6 * n);
  for (int s = 0; s < n; ++s) {
    const IntegratorBody& body = bodies[group[s]];
    out.Z.segment<3>(6 * s) += body.force;
    out.Z.segment<3>(6 * s + 3) += body.torque;
  }
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(6 * n + 72 * group_forces.size());
  for (int i = 0; i < 6 * n; ++i) triplets.emplace_back(i, i, 1.0);

  for (const int fi : group_forces) {
    const PairForce& f = forces[fi];
    const int ends[2] = {f.a, f.b};
    for (int e = 0; e < 2; ++e) {  // rows: the wrench on end e
      if (ends[e] < 0 || slot[ends[e]] < 0) continue;
      const int row = 6 * slot[ends[e]];
      out.Z.segment<6>(row) += f.wrench.segment<6>(6 * e);
      if (mode == Integrator::Explicit) continue;
      for (int c = 0; c < 2; ++c) {  // columns: the state of end c
        if (ends[c] < 0) continue;
        const IntegratorBody& body = bodies[ends[c]];
        const auto dx = f.d_pos.block<6, 3>(6 * e, 6 * c);
        const auto dtheta = f.d_pos.block<6, 3>(6 * e, 6 * c + 3);
        const auto dv = f.d_vel.block<6, 3>(6 * e, 6 * c);
        const auto dw = f.d_vel.block<6, 3>(6 * e, 6 * c + 3);
        // Z: the force keeps changing as the bodies move at their current velocities (eq. 17).
        out.Z.segment<6>(row) += h * (dx * body.pose.v + dtheta * (body.rotation_map * body.pose.w));
        // G: how the force answers the unknowns dP_c, dL_c (eq. 16); fixed and kinematic bodies have none.
        if (body.mass <= 0.0 || slot[ends[c]] < 0) continue;
        const int col = 6 * slot[ends[c]];
        const Eigen::Matrix<double, 6, 3> g_lin = -h * (h * dx + dv) / body.mass;
        const Eigen::Matrix<double, 6, 3> g_ang = -h * (h * dtheta * body.rotation_map + dw) * body.pose.inv_inertia;
        for (int r = 0; r < 6; ++r)
          for (int k = 0; k < 3; ++k) {
            if (g_lin(r, k) != 0.0) triplets.emplace_back(row + r, col + k, g_lin(r, k));
            if (g_ang(r, k) != 0.0) triplets.emplace_back(row + r, col + 3 + k, g_ang(r, k));
          }
      }
    }
  }
  out.G.resize(6 * n, 6 * n);
  out.G.setFromTriplets(triplets.begin(), triplets.end());  // duplicates are summed
}

bool GroupFactor::factorize(const Eigen::SparseMatrix<double>& G) {
  const int n = int(G.outerSize());
  const int nnz = int(G.nonZeros());
  const bool same = analysed && G.isCompressed() && int(outer.size()) == n + 1 && int(inner.size()) == nnz &&
                    std::equal(outer.begin(), outer.end(), G.outerIndexPtr()) &&
                    std::equal(inner.begin(), inner.end(), G.innerIndexPtr());
  if (!same) {
    lu.analyzePattern(G);
    outer.assign(G.outerIndexPtr(), G.outerIndexPtr() + n + 1);
    inner.assign(G.innerIndexPtr(), G.innerIndexPtr() + nnz);
    analysed = G.isCompressed();
  }
  lu.factorize(G);
  return lu.info() == Eigen::Success;
}

bool solve_group(const GroupSystem& system, double h, Eigen::VectorXd& dS, GroupFactor* factor) {
  const Eigen::VectorXd rhs = h * system.Z;
  if (system.bodies.size() == 1) {  // the common single body: a dense 6 x 6 solve
    const Eigen::Matrix<double, 6, 6> g = Eigen::Matrix<double, 6, 6>(system.G);
    const Eigen::FullPivLU<Eigen::Matrix<double, 6, 6>> lu(g);
    if (!lu.isInvertible()) {
      dS = rhs;
      return false;
    }
    dS = lu.solve(rhs);
    return true;
  }
  // A stack or chain: its blocks eliminated from the leaves up, without the sparse LU (block_forest.h).
  if (solve_block_forest(system.G, rhs, dS)) return true;
  GroupFactor local;
  GroupFactor& f = factor ? *factor : local;
  if (!f.factorize(system.G)) {
    dS = rhs;
    return false;
  }
  dS = f.lu.solve(rhs);
  return f.lu.info() == Eigen::Success;
}

}  // namespace cl::implicit_penalty
