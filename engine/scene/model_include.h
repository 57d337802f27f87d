// The "models" array of scene files: URDF and MJCF files placed in the scene (import_urdf.h, import_mjcf.h),
// each turned into bodies, joints and materials of the scene before the scene is read, so that every check of
// the scene format applies to them too.
//
// Format (docs/models.md):
//   models    optional array of {
//     file        required: a .urdf file, or an MJCF .xml (or .mjcf) file; looked for next to the scene, then in
//                 the source tree's assets/
//     name        the prefix of its bodies, joints and materials ("NAME/link"); default the file name without
//                 extension; unique among the models, so one file can be placed more than once
//     position    [x, y, z] m, default 0; orientation quaternion [w, x, y, z], default identity: where the model's
//                 frame goes in the scene
//     up          "z" (default: both formats are z up; the model is turned so its z goes along the scene's y) or
//                 "y" (a model written y up, taken as it is)
//     fixed_base  true/false: the root link is fixed (URDF default false: the root moves freely; MJCF: the file
//                 decides, a root body without a free joint is welded to the world; true fixes a free one)
//     attach_to   a fixed scene body that stands for the model's world where a joint joins a link to it (a
//                 pendulum's hinge); default the model's own first world geom (MJCF), else such joints are errors
//     material    a scene material for every geom (default: a material per MJCF friction value, NAME/friction F;
//                 URDF geoms take "default")
//     density     kg/m^3 for the links whose file gives no mass (URDF links without <inertial>), default 1000
//     controls    {ACTUATOR: value}: the MJCF actuators' controls: a motor's or velocity actuator's speed (rad/s
//                 or m/s), a position actuator's target (rad or m); default 0
//     motors      {JOINT: {"speed", "max_force"}}: a velocity motor on a hinge or slider (max_force defaults to the
//                 URDF effort bound or the MJCF actuator's force bound)
//     servos      {JOINT: {"target", "stiffness", "damping", "max_force", "range", "keys", "rate"}}: a servo as the
//                 scene format's joints take it (max_force as for motors) }
// Problems are errors naming the scene's JSON path and, for what lies in the model file, that file, the element
// and its line: "scene.json: /models/0/file: arm.urdf:12: <joint name="elbow">: unknown joint type ...".
#pragma once

#include <nlohmann/json.hpp>

#include "scene/scene_reader.h"

namespace cl {

// When `doc` has a "models" array, sets `expanded` to `doc` with the models' bodies, joints and materials added
// and "models" removed, and returns true; else returns false and leaves `expanded` alone. Throws SceneError.
bool include_models(scene_io::Reader& r, const nlohmann::json& doc, nlohmann::json& expanded);

// Whether this build reads URDF and MJCF files (their libraries were found when it was configured).
bool has_urdf_import();
bool has_mjcf_import();

}  // namespace cl
