// A conformance scene scaled to a condition of the sweep (sweep.h), as a scene document: a similar system under
// the same gravity (Froude similarity). Lengths (positions, shape sizes, plane offsets, joint anchors, a slider's
// coordinate and limits) scale by L, masses by M (a density by M / L^3), times by sqrt(L): linear velocities and a
// slider motor's speed by sqrt(L), angular velocities and a hinge motor's speed by 1 / sqrt(L), a slider motor's
// force by M and a hinge motor's torque by M L. Gravity, orientations, axes, angles, materials and the world's
// settings (contact margin, speed limit) stay as they are: they are the same world, only the bodies differ.
// The step is set to the condition's.
#pragma once

#include <nlohmann/json.hpp>

#include "conformance/sweep.h"

namespace cl::conformance {

// The scene `doc` (the scene format, scene/scene.h) at length factor scale.length and mass factor scale.mass,
// stepping at `dt`. A key whose scaling is not known here (scripts, forces, servos, meshes, a solver) throws
// std::runtime_error naming it, so that a scene cannot be swept with a quantity left unscaled.
nlohmann::json scaled_scene(const nlohmann::json& doc, const Scale& scale, double dt);

}  // namespace cl::conformance
