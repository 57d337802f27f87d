// The "scripts" part of scene files: paths that drive kinematic bodies (engine/scripts/script.h).
//
//   scripts   optional array of {
//     body        required: name of a kinematic body; at most one script per body
//     path        required: [[x, y, z], ...] world-frame points (m) the path passes through, at least 2
//                 (3 when looping); consecutive points distinct (closer than 1e-9 of the coordinate scale
//                 counts as equal); when looping the last point must differ from the first (the path
//                 closes itself); the path must not turn straight back at a point (antiparallel segments)
//     speed       required: m/s > 0 along the path (the mean speed for "ease")
//     timing      "constant" | "ease", default "constant"
//     loop        true/false, default false: go round the closed path repeatedly instead of stopping
//     start_time  s >= 0, default 0: the body waits at the first point until then }
// The script owns the body's motion: the loader places the body at the path's first point and gives it
// the velocity of the first step (linear velocity as apply_scripts sets it, angular velocity 0). A
// "position" given for the body that differs from the first point is replaced, with a warning at
// /bodies/K/position; the body's velocities in the file are replaced silently (saving writes them).
// The body's orientation is kept. Bodies must already have been read.
#pragma once

#include <nlohmann/json.hpp>

#include "scene/scene_reader.h"
#include "world/world.h"

namespace cl {

void read_scripts(scene_io::Reader& r, const nlohmann::json& doc, World& world);

// The scripts in the scene format (an array; empty when the world has none). J is nlohmann::json or
// nlohmann::ordered_json (keys then come in the documented order: body, path, speed, timing, loop,
// start_time).
template <class J>
J scripts_json_as(const World& world);
extern template nlohmann::json scripts_json_as<nlohmann::json>(const World&);
extern template nlohmann::ordered_json scripts_json_as<nlohmann::ordered_json>(const World&);

inline nlohmann::json scripts_json(const World& world) { return scripts_json_as<nlohmann::json>(world); }

}  // namespace cl
