// A contact group's backward Euler system G dS = h Z (Xu, Zhao, Barbic 2014, eq. 15-16) solved block by block when
// its bodies couple as a forest: a stack or a chain of touching bodies, a plank carrying boxes side by side.
//
// G has one 6 x 6 block per body on its diagonal and one per touching pair off it (eq. 16: only a pair's forces
// couple two bodies). When the pairs form no cycle, eliminating the bodies from the leaves of each tree towards its
// root creates no fill: each leaf's block is folded into its parent's, D_p -= G_pi D_i^-1 G_ip, and the solution
// comes back from the roots, dS_i = D_i^-1 (rhs_i - G_ip dS_p). A stack of n boxes then costs n dense 6 x 6
// factorisations instead of a sparse LU with its symbolic work; a group with a cycle (a pyramid, a wall) is left
// to the sparse LU (implicit_integrator.h).
#pragma once

#include <Eigen/Sparse>

namespace cl::implicit_penalty {

// Solves G x = rhs (G 6n x 6n) by block elimination along G's forest of 6 x 6 blocks. Returns false, leaving x
// unspecified, when G's blocks couple the bodies in a cycle or when a block to be inverted is singular (rank below
// 6 at Eigen's FullPivLU threshold) or the solution is not finite: the caller then solves G otherwise.
bool solve_block_forest(const Eigen::SparseMatrix<double>& G, const Eigen::VectorXd& rhs, Eigen::VectorXd& x);

}  // namespace cl::implicit_penalty
