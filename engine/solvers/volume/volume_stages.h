// The `volume` method's own stages and counters (Solver::sub_stages, Solver::counters), shared by its files.
#pragma once

#include <chrono>

#include "solvers/solver.h"

namespace cl::volume_stages {

using Clock = std::chrono::steady_clock;

// The method's own stages, in step order.
enum Stage { kImages, kModelling, kRows, kVelocityPgs, kStackLayers, kStabilization };
inline constexpr SubStage kStages[] = {
    {"images", StepStage::NarrowPhase},       // intersection volumes of the colliding pairs (exact or images)
    {"volume_modelling", StepStage::NarrowPhase},  // their volume constraints (sect. 4-5)
    {"velocity_rows", StepStage::Solve},      // rows of the velocity MLCP and the joints, warm start
    {"velocity_pgs", StepStage::Solve},       // PGS of the velocity MLCP (eq. 16-17, 20-21)
    {"stack_layers", StepStage::Solve},       // shock propagation: the rest of the step by layers (stack_layers)
    {"stabilization", StepStage::Integrate},  // post-stabilisation: volumes again and position MLCPs (eq. 18-19)
};

// The method's own counters (StepStats::counters).
enum Counter { kCountImages, kCountExactVolumes, kCountVolumeRows, kCountStabilizationPasses };
inline constexpr SolverCounter kCounters[] = {
    {"images", ""},                 // pairs whose layered depth images were computed (collision and stabilisation)
    {"exact_volumes", ""},          // pairs whose volumes were computed in closed form (collision and stabilisation)
    {"volume_rows", ""},            // normal rows of volume constraints in the velocity MLCP
    {"stabilization_passes", ""},   // position corrections taken (Algorithm 1 lines 5-9)
};

}  // namespace cl::volume_stages
