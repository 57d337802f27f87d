// Solving joints' rows together with contacts (thesis sect. 4.11 and 6.1.4).
//
// The joint block. A robot standing on its feet is a loop: each foot's contact holds up a leg whose hinges' servo
// rows and equality rows hold up the body, whose weight presses the feet. Projected Gauss-Seidel passes an impulse
// one row further per sweep, so 10 sweeps over all rows leave the loop far from settled, and the warm starts carry
// what they leave into the next step: at 1/60 s the sway of scenes/models/walker_urdf.json grew from 0.002 J to
// 70 J in 6 s, the arm's to 11 J, and at 1/30 s the walker reached 800 J. So each sweep over all rows is followed by
// up to `JointBlock::sweeps` sweeps over the joints' rows alone (a block Gauss-Seidel: the joint block solved, by
// the same projected Gauss-Seidel to the solve's tolerance, against the contacts' present impulses), and the solve
// ends on the joint block: the joints then hold exactly what the contacts last gave them, and what the contacts
// still miss shows as a velocity into the ground that the position correction takes back. With 10 block sweeps the
// walker stands still at 1/30, 1/60, 1/120 and 1/250 s (below 2e-4 J after its first second), a gripped box is held
// at 1/30 s where it slid 11 to 14 % of its size, and the arm sweeps its blocks. A joint block of a few rows per body
// costs little beside the contacts' sweeps. The servos' warm start then needs no share of their springs' force
// (joints/joint.h, JointWarmStart).
//
// The motors. A motor's row is a velocity target the contacts then correct.
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
// what the first half's sweeps (and their joint blocks) add: a blocked motor's impulse stays bounded. With a joint
// block, a solve that meets its tolerance within the first half ends there, its motors never held.
#pragma once

#include <span>
#include <vector>

#include "constraints/pgs.h"
#include "joints/joint.h"

namespace cl {

// The indices in the solver's row list of the motor rows among `joint_rows`, which sit there from `first` on in the
// same order.
void motor_row_indices(std::span<const JointRow> joint_rows, int first, std::vector<int>& out);

// The joints' rows lead the row list, rows [0, rows); after each sweep over all rows, up to `sweeps` sweeps over
// them alone, each solve's tolerance stopping them early (0: none, plain sweeps over all rows).
struct JointBlock {
  int rows = 0;
  int sweeps = 0;
};

// solve_pgs over `rows` (prepared, warm start applied), each sweep followed by the joint block's sweeps, with the
// rows listed in `motors` held at their impulses for the second half of the sweeps (all sweeps when there are
// none). `settings.iterations` counts the sweeps over all rows, which the result's `sweeps` adds up;
// `settings.residuals` gets theirs. Without a joint block, the same as solve_pgs bit for bit when there are no
// motors.
PgsResult solve_joints_and_contacts(std::span<Row> rows, JointBlock joints, std::span<const int> motors,
                                    std::span<BodyVelocity> u, const PgsSettings& settings);

}  // namespace cl
