// Solving a joint's motor rows together with contacts (thesis sect. 4.11 and 6.1.4): the motor is a velocity target
// the contacts then correct.
//
// A motor is a boxed row, dx/dt = speed with |lambda| <= lambda_max (thesis eqs. 4.205-4.210), and a contact with a
// fixed body a unilateral row with lambda >= 0 and no upper bound (eq. 4.215). When the motor drives its body into
// the fixed body, the boxed LCP's exact solution stops the joint: the motor sits at its bound (w < 0) and the
// contact's impulse answers it. Projected Gauss-Seidel (sect. 6.1.4) gets there only after about lambda_max / (the
// impulse one sweep adds) sweeps: for a motor of 1e30 N m never. Instead each sweep the motor and the contact add
// against each other, both impulses grow without end from step to step through the warm starts, and the contact's
// last correction, which knows nothing of the joint, breaks it: a door driven against a post turned about the post
// instead of its hinge and went past it (0.63 rad against the post's 0.37 at 1/30 s under `lcp`).
//
// So the motor takes part in the first half of the sweeps, with every row, and the second half solves the joints,
// limits and contacts with the motor's impulse held (its bounds closed on it). A held impulse is an applied impulse,
// which the contact can always answer: what is left has a solution, the sweeps converge to it, and they end with
// the door stopped at the post and its hinge whole. A motor that reaches its speed has done so in the first half
// (the joint rows are solved exactly in a pass, JointRowForm::Decoupled), so holding it changes little; the warm
// start (ODE's 0.9 of the last impulse, sect. 6.1.4) carries its impulse to the next step, where it grows by at most
// the first half's sweeps: a blocked motor's impulse stays bounded.
#pragma once

#include <span>
#include <vector>

#include "constraints/pgs.h"
#include "joints/joint.h"

namespace cl {

// The indices in the solver's row list of the motor rows among `joint_rows`, which sit there from `first` on in the
// same order.
void motor_row_indices(std::span<const JointRow> joint_rows, int first, std::vector<int>& out);

// solve_pgs over `rows` (prepared, warm start applied), with the rows listed in `motors` held at their impulses for
// the second half of the sweeps (all sweeps when there are none). The result adds up the sweeps of both halves.
PgsResult solve_pgs_holding_motors(std::span<Row> rows, std::span<const int> motors, std::span<BodyVelocity> u,
                                   const PgsSettings& settings);

}  // namespace cl
