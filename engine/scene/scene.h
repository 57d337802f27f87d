// Scene files (JSON, "format": 1): loading with full validation, saving, and final-state output.
//
// Format (units SI, y is up). docs/scene-format.md describes every field with examples;
// scenes/reference.json uses every field but the mesh and procedural shapes, joints and scripts, which are
// described further in the headers named below:
//   format          required, 1
//   name            string, default: the file name without extension
//   description     string, shown by the viewer and saved back
//   gravity         [x, y, z] m/s^2, default [0, -9.81, 0]
//   dt              s, in [1e-6, 1], default 1/60
//   contact_margin  m, in [0, 1], default 0.01
//   methods         the solvers the scene is meant for, a non-empty array of registered names each once; the
//                   world refuses the others (World::set_solver); default: every solver
//   solver          {"type": name (required, one of methods), "params": {name: number | true/false | choice name},
//                    "params_by_solver": {another solver (of methods): {name: value}}}: the active method and its
//                   parameters, and those of the other methods, which they take when the world switches to them;
//                   default lcp (the first of methods when it lacks lcp) with default parameters
//   materials       {name: {"friction" >= 0 (default 0.5), "restitution" in [0, 1] (default 0)}};
//                   "default" always exists and may be redefined
//   bodies          required array of {
//     name              required, non-empty, unique
//     shape             required: {"type": "plane", "normal" (non-zero, normalised), "offset" (default 0)}
//                       | {"type": "sphere", "radius"} | {"type": "box", "half_extents": [x, y, z]}
//                       | {"type": "capsule", "radius", "half_height"}
//                       | {"type": "mesh", "file" (.obj or .off), "scale" (default 1), "resolution" (whole, in
//                         [4, 512], default 48: distance grid cells along the longest side)} (mesh/mesh.h)
//                       | {"type": a procedural shape, its parameters, "resolution"} (scene_procedural.h);
//                       sizes > 0; keys of another shape type are errors
//     fixed, kinematic  true/false, default false (not both); planes must be fixed
//     density | mass    exactly one for dynamic bodies (> 0, kg/m^3 | kg), neither for fixed/kinematic ones
//     position          [x, y, z], default 0 (a mesh body's centre of mass goes there)
//     orientation       quaternion [w, x, y, z], default identity; non-zero, normalised
//     linear_velocity, angular_velocity  [x, y, z], default 0 (must be 0 for fixed bodies)
//     material          name, default "default" }
//   joints          optional array of joints between the bodies (scene_joints.h)
//   scripts         optional array of paths driving kinematic bodies (scene_scripts.h)
//   forces          optional array of forces and torques on dynamic bodies over time windows (scene_forces.h)
//   keyframes, start  optional: saved states of the lanes, and the one the scene starts from (scene_keyframes.h)
// Any other key, wrong type, non-finite number, out-of-range value or duplicate key is an error.
// Non-unit quaternions and plane normals are normalised, with a warning when |norm - 1| > 1e-6.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/lanes.h"
#include "scene/scene_keyframes.h"
#include "world/world.h"

namespace cl {

struct SceneLoadResult {
  World world;
  std::vector<LaneSpec> lanes;        // "lanes": the comparison lanes beside the scene's own method
  std::vector<SceneKeyframe> keyframes;  // "keyframes"
  int start_keyframe = -1;               // "start": the keyframe the world was set to (its lane 1), -1 for none
  std::vector<std::string> warnings;  // e.g. "scene.json: /bodies/2/orientation: normalised (norm was 2)"
  std::string error;                  // "FILE: /json/path: what was expected, what was found"; empty if ok
  bool ok() const { return error.empty(); }
};

// Reads and validates a scene file. Never throws; every problem is reported in `error`.
SceneLoadResult load_scene_file(const std::string& path);
// Same for text already in memory; `file_label` names it in messages.
SceneLoadResult load_scene_text(std::string_view text, const std::string& file_label);
SceneLoadResult load_scene_json(const nlohmann::json& doc, const std::string& file_label);

// The world's description (not its contact cache) in the scene format, with its comparison lanes (each lane's
// parameters those it sets on top of the scene's for its method); loading it back gives the same world and lanes.
// With `keyframes` the scene keeps them, and with a `start` name starts from that one.
nlohmann::json scene_to_json(const World& world, std::span<const LaneSpec> lanes = {},
                             const std::vector<SceneKeyframe>& keyframes = {}, const std::string& start = {});
bool save_scene_file(const World& world, const std::string& path, std::string* error,
                     std::span<const LaneSpec> lanes = {}, const std::vector<SceneKeyframe>& keyframes = {},
                     const std::string& start = {});
// Every parameter of a set, typed as scene files give them (numbers, true/false, choice names).
nlohmann::ordered_json params_to_json(const ParamSet& set);
// The sidecar of a comparison CSV: the scene (its file, name and dt), the CSV, and each lane's number (from 1),
// solver, label and every parameter.
nlohmann::ordered_json lanes_sidecar_json(const std::string& scene_path, std::span<const World* const> lanes,
                                          const std::string& csv_path);

// {"time": t, "bodies": [{"name", "position", "orientation" [w,x,y,z], "linear_velocity", "angular_velocity"}]}
nlohmann::json state_to_json(const World& world);

}  // namespace cl
