// The currency of the implicit penalty method (Xu, Zhao, Barbic 2014, section 4): a force and torque that one
// body exerts on another (or an external force on one body), with its exact gradients with respect to both
// bodies' positions, rotations, velocities and angular velocities. Contacts, contact damping and PD servos
// all produce these; the integrator assembles them into the 6n x 6n system (eq. 15-18).
#pragma once

#include <Eigen/Core>

#include "core/body.h"
#include "core/math.h"

namespace cl::implicit_penalty {

using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat12 = Eigen::Matrix<double, 12, 12>;

// A body's state as the gradients need it (world frame, about the centre of mass). The angular velocity is
// w = I_world^-1 L (paper section 3); at fixed angular momentum L it changes with the rotation as
// dw/dtheta = I_world^-1 [L]x - [w]x, which the damping gradients include (paper eq. 45-48).
struct BodyPose {
  Vec3 x{0, 0, 0};          // centre of mass
  Mat3 R = Mat3::Identity();  // rotation, body to world
  Vec3 v{0, 0, 0};          // linear velocity
  Vec3 w{0, 0, 0};          // angular velocity
  Mat3 inv_inertia = Mat3::Zero();  // world frame; zero for fixed and kinematic bodies (w then does not
                                    // depend on the rotation)
  Vec3 L{0, 0, 0};          // angular momentum I_world w (zero for fixed and kinematic bodies)
};

// A body's pose for the contact and joint gradients alike.
inline BodyPose body_pose(const Body& body) {
  BodyPose p;
  p.x = body.position;
  p.R = body.rotation();
  p.v = body.linear_velocity;
  p.w = body.angular_velocity;
  if (body.is_dynamic()) {
    p.inv_inertia = p.R * body.inv_inertia_body * p.R.transpose();
    p.L = p.R * (body.inertia_body * (p.R.transpose() * p.w));
  }
  return p;
}

// The wrench pair and its gradients. Ordering of the 12 entries, both for the wrench and for the variables:
//   wrench    [F_a (3), tau_a (3), F_b (3), tau_b (3)]   forces on a and b, torques about each centre of mass
//   variables [x_a, theta_a, x_b, theta_b] for d_pos   (theta: infinitesimal world-frame rotation, R -> (I + [dtheta]x) R)
//             [v_a, w_a,     v_b, w_b]     for d_vel
// d_pos includes the dependence of w on the rotation at fixed L (see BodyPose). For an external force on one
// body only, b = -1 and the b entries are zero.
struct PairForce {
  int a = -1;
  int b = -1;
  Vec12 wrench = Vec12::Zero();
  Mat12 d_pos = Mat12::Zero();
  Mat12 d_vel = Mat12::Zero();
  int points = 0;  // penetrating points that contributed (contacts), for statistics and stiffness scaling

  void clear() {
    wrench.setZero();
    d_pos.setZero();
    d_vel.setZero();
    points = 0;
  }
};

// How contact gradients are computed (parameter `gradients`).
enum class GradientMode : int {
  Exact = 0,        // the paper's exact gradients, with the rotating normal (eq. 22-34, 43-51)
  Approximate = 1,  // the symmetric approximation of Barbic and James [35] the paper compares against (Fig. 12):
                    // distance gradient replaced by the contact normal, rotating-normal terms dropped
};

}  // namespace cl::implicit_penalty
