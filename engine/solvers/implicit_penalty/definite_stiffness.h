// The exact contact gradients made safe for backward Euler (our change to Xu, Zhao, Barbic 2014, sect. 4.1).
//
// The exact position gradient D of a pair's wrench (eq. 31-40: the rotating normal, the moving lever arms) is the
// stiffness of a force that is not the gradient of an energy: it is not symmetric, and its symmetric part need not
// be negative semi-definite. Those terms grow with the force, |F| |s| against a body's inertia I: once h^2 |F| |s|
// passes I, the step's matrix M - h D_v - h^2 D (eq. 3-4, 16) is indefinite, and its solution is no longer bounded
// by the force's impulse. A 2.5 kg brick of scenes/scripted_wall_hit.json (I = 0.26 kg m^2, h = 0.01 s) met by a
// 9 kN contact 0.2 m off its centre turned at 154 rad/s after one step, and the wall blew up in the next.
//
// So the pair keeps D's non-symmetric part W = (D - D^T) / 2 and the negative semi-definite part of its
// symmetric part S = (D + D^T) / 2, taken in the bodies' mass metric (S' = L^-1 S L^-T with M = L L^T, its positive
// eigenvalues set to zero, S = L S'_- L^T): the projected Newton step of nonlinear elasticity (Teran, Sifakis,
// Irving and Fedkiw 2005, sect. 4). With x^T W x = 0, the step's matrix A then has x^T A x >= x^T M x, so the
// momentum change it gives, dS = A^-1 h Z, is bounded in the kinetic metric by the impulse h Z itself:
// |dS|_{M^-1} <= |h Z|_{M^-1}. The approximate gradients (-k J^T J) are negative semi-definite and unchanged.
#pragma once

#include "solvers/implicit_penalty/implicit_integrator.h"
#include "solvers/implicit_penalty/pair_force.h"

namespace cl::implicit_penalty {

// The mass metric of one end of a pair: its mass and world inertia. A fixed or kinematic end takes the other end's
// (its columns act on no unknowns; the metric only weighs its part of the projection).
struct EndMetric {
  double mass = 0.0;
  Mat3 inertia = Mat3::Zero();
};

// The metric of `own`: its mass and world inertia, or `other`'s when it has none (fixed, kinematic).
EndMetric end_metric(const IntegratorBody& own, const IntegratorBody& other);

// Replaces d_pos's symmetric part by its negative semi-definite part in the metric of the two ends (above). Returns
// whether anything changed (a positive eigenvalue above rounding was removed).
bool make_definite(Mat12& d_pos, const EndMetric& a, const EndMetric& b);

}  // namespace cl::implicit_penalty
