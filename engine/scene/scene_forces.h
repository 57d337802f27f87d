// The "forces" part of scene files: forces and torques applied to dynamic bodies over time windows
// (world/applied_forces.h says when they act and how random values are drawn).
//
//   forces    optional array of {
//     body      required: name of a dynamic body
//     force     [x, y, z] N, world frame, or {"min": [x, y, z], "max": [x, y, z]}: drawn uniformly per
//               component (min <= max component by component)
//     point     where the force acts, body frame, m from the centre of mass: [x, y, z] or {"min", "max"};
//               default the centre of mass; only with "force". A point off the centre adds (R point) x force
//     torque    [x, y, z] N m, world frame, or {"min", "max"}; at least one of "force" and "torque"
//     start     s >= 0, default 0
//     end       s > start, default: forever
//     on        s > 0: repeating windows, the force acts the first "on" seconds of each period; with either
//     period    s >= on, or
//     off       s >= 0 (period = on + off)
//     resample  "window" (default: one value per window) | "step" (a new value every step); only with a range
//     seed      whole number in [0, 2^53 - 1], default the entry's index; only with a range }
// Saving writes "period" and "on" for repeating windows, "resample" and "seed" for random ones, and leaves out
// what is at its default (a point at the centre, no torque, start 0, no end); a force on a body that is no longer
// dynamic is left out.
#pragma once

#include <nlohmann/json.hpp>

#include "scene/scene_reader.h"
#include "world/world.h"

namespace cl {

void read_forces(scene_io::Reader& r, const nlohmann::json& doc, World& world);

// The forces in the scene format (an array; empty when the world has none). J is nlohmann::json or
// nlohmann::ordered_json (keys then come in the documented order).
template <class J>
J forces_json_as(const World& world);
extern template nlohmann::json forces_json_as<nlohmann::json>(const World&);
extern template nlohmann::ordered_json forces_json_as<nlohmann::ordered_json>(const World&);

}  // namespace cl
