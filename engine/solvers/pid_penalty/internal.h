// What the files of `pid-penalty` share: its stages, counters and the stability bounds of its explicit substeps.
#pragma once

#include "core/shape.h"
#include "telemetry/telemetry.h"

namespace cl::pid_penalty {

enum Stage { kShellQueries, kImpacts, kForces, kJoints, kUpdate };
inline constexpr SubStage kStages[] = {
    {"shell_queries", StepStage::NarrowPhase},  // candidate points, contact normal (eq. 4), bottom polygon
    {"impacts", StepStage::Solve},              // the state machine and the sequential impulses
    {"forces", StepStage::Solve},               // PID penalty and friction forces (eq. 1-3)
    {"joints", StepStage::Solve},               // joint rows by projected Gauss-Seidel
    {"update", StepStage::Solve},               // the integrator
};

// The method's own counters (StepStats::counters), of the step's last substep but for the impulse passes, the
// spring solves and the finished substeps (over all its substeps).
enum Counter { kCountPenaltyPairs, kCountImpactPairs, kCountLargestIntegral, kCountImpulsePasses, kCountSpringSolves,
              kCountFinishedSubsteps };
inline constexpr SolverCounter kCounters[] = {
    {"penalty_pairs", ""},         // pairs in penalty (resting) mode (Fig. 2)
    {"impact_pairs", ""},          // pairs in impact mode
    {"largest_integral", "m"},     // the largest integral term I of eq. 2 over the pairs
    {"impulse_passes", ""},        // passes of sequential impulses over the impacting pairs, all substeps
    {"spring_solves", ""},         // factorizations of the implicit integrator's system, all substeps
    {"finished_substeps", ""},     // substeps whose springs were finished by sweeps (finishing_sweeps.cpp)
};

// m: a point this far outside still touches. Boxes stacked exactly touching (depth 0) that all fall by the same
// amount in a substep read depths of +-1e-15 m; a pair that read below 0 counted as separated, met the box below
// again approaching at g h and more, and became an impact, whose impulses struck the pairs above (Fig. 2) until
// the whole column was impacts without penalty forces and sank.
inline constexpr double kTouchSlack = 1e-9;

// m: a round shape's shell has a point under any contact this deep (round_shell_spacing).
inline constexpr double kRoundCapDepth = 0.001;
// Stability bounds of the explicit force integration on the pair's reduced mass m, shared among the pairs of its
// busiest body: the springs k h^2 / m <= 1 (omega h <= 1; symplectic Euler is stable below 2), and the explicit
// dampers (friction; the normal damping is implicit under semi-implicit Euler) c h / m <= 1, so that one substep
// never more than stops a contact's slip by itself.
inline constexpr double kStiffnessBound = 1.0;
inline constexpr double kDampingBound = 1.0;

// m/s^2: standard gravity, g0 of the stack rule's depth (gain_mass).
inline constexpr double kStandardGravity = 9.81;
// c of the stack rule (gain_mass): each contact of a stack of n layers at most J / (c H n) deep.
inline constexpr double kStackMargin = 2.0;
// The deepest a pair's load is held (gain_mass), as a fraction of the thinner body's half thickness: a resting depth
// that scales with the body. At a tenth, a 2 cm box rested 0.82 mm deep and a 2 cm ball 1.4 mm, 4 and 7 % of their
// size; now 0.08 mm.
inline constexpr double kThinDepth = 0.01;
// How many times critical the implicit normal damping of a pair may be (pair_gains).
inline constexpr double kDampingCap = 5.0;

// SpringRow::point of a pair's two friction rows (kFrictionRow and kFrictionRow - 1); -1 is its centre's damping.
inline constexpr int kFrictionRow = -2;
// SpringRow::point of a pair's tilt rows (before its friction rows, which stay last).
inline constexpr int kTiltRow = -4;

// A surface point is on the bottom of the penetration volume (sect. III-A) when its outward normal faces the other
// body by at least this cosine (60 degrees), else on a side of the volume.
inline constexpr double kBottomCosine = 0.5;

// Spheres and capsules: their surface normals pass through their centre or axis.
inline bool is_round(const Shape& s) { return s.type == ShapeType::Sphere || s.type == ShapeType::Capsule; }

}  // namespace cl::pid_penalty
