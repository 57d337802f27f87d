// Semi-implicit backward Euler for rigid bodies in penalty contact (Xu, Zhao, Barbic 2014, sections 3-4).
//
// The state of a body is S = [x, q, P, L] (eq. 1). One step solves, per contact group, the 6n x 6n system
//     G dS = h Z,   dS_i = [dP_i, dL_i]                                          (eq. 15)
//     G_ij = d_ij I - h [ (1/m_j) dF_ij/dv_j + h dF_ij/dx_j / m_j ,  (dF_ij/dw_j + h dF_ij/dtheta_j V_j) I_j^-1 ]
//                       [ same rows for the torque tau_ij                                            ]  (eq. 16)
//     Z_i  = [ F_i + h sum_k (dF_ik/dx_k v_k + dF_ik/dtheta_k V_k w_k) ; same for tau_i ]                 (eq. 17)
// which is the 13 x 13 backward Euler system of eq. 3-4 reduced symbolically to 6 x 6 blocks (eq. 5-13).
// Then P += dP, L += dL, x += h P / m and the rotation turns by dtheta = h V w(t+h).
//
// V is the rotation map of eq. 8 and 18, V = 4 Q^T (I - h dqdot/dq)^-1 Q. We write it in rotation-vector
// coordinates, where it reads V = (I - h dw/dtheta)^-1 with dw/dtheta = I_world^-1 [L]x - [w]x (w = I_world^-1 L
// turns with the body at fixed L): the same linearisation without the quaternion's fourth, normalising
// direction. The paper sets V_ij = I for i != j; we use body j's own V_j in every block, since the rotation
// body j makes in the step does not depend on whose force looks at it.
//
// The explicit mode (parameter `integrator`) uses the same forces with G = I and no gradient terms in Z:
// symplectic Euler, P += h F, then x and q move with the new velocities.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include "solvers/implicit_penalty/pair_force.h"

namespace cl::implicit_penalty {

enum class Integrator : int { Implicit = 0, Explicit = 1 };

// What the integrator needs of every body of the world.
struct IntegratorBody {
  BodyPose pose;
  double mass = 0.0;               // 0: fixed or kinematic (no unknowns; moves as prescribed)
  Mat3 rotation_map = Mat3::Identity();  // V (identity for fixed and kinematic bodies)
  Vec3 force{0, 0, 0};             // applied force and torque without gradients: gravity, mouse spring, friction
  Vec3 torque{0, 0, 0};
  double mass_inverse() const { return mass > 0.0 ? 1.0 / mass : 0.0; }
};

// V = (I - h dw/dtheta)^-1 (see above); identity in explicit mode or for bodies without inertia.
Mat3 rotation_map(const BodyPose& pose, double h, Integrator mode);

// The assembled system of one contact group: unknowns are the group's bodies in the given order.
struct GroupSystem {
  std::vector<int> bodies;               // world indices, one 6-block of unknowns each
  Eigen::SparseMatrix<double> G;         // 6n x 6n, eq. 16
  Eigen::VectorXd Z;                     // 6n, eq. 17
};

// Assembles G and Z over `forces` (only those with a or b among the group's bodies contribute). `slot`
// maps a world body index to its block in the group (-1 for bodies outside it), sized like `bodies`.
void assemble_group(std::span<const int> group, const std::vector<IntegratorBody>& bodies,
                    std::span<const PairForce> forces, std::span<const int> group_forces,
                    const std::vector<int>& slot, double h, Integrator mode, GroupSystem& out);

// A group's sparse LU kept from step to step: the fill-reducing ordering and elimination tree of G's pattern
// (analyzePattern) are found again only when the pattern changes (a resting stack keeps it for thousands of
// steps), and the factors' buffers are reused. The factors are those a fresh compute() gives.
struct GroupFactor {
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  std::vector<int> outer, inner;  // the analysed pattern (G compressed, column-major)
  bool analysed = false;
  // Factorises G (analysing its pattern first when it differs from the last); false if G is singular.
  bool factorize(const Eigen::SparseMatrix<double>& G);
};

// Solves G dS = h Z: block by block when the group's bodies couple as a forest (block_forest.h), else by sparse
// LU; false if G is singular (then dS = h Z, the explicit step). `factor`, when given, is the group's sparse
// factor of the last step (see GroupFactor).
bool solve_group(const GroupSystem& system, double h, Eigen::VectorXd& dS, GroupFactor* factor = nullptr);

}  // namespace cl::implicit_penalty
