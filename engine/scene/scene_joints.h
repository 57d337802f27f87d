// The "joints" array of scene files: reading with full validation (through the scene Reader, so every
// problem is "FILE: /joints/N/key: expected ..., got ...") and writing back.
//
// Format (units SI; the bodies must be read first):
//   joints   optional array of {
//     name       optional, non-empty, unique among the joints
//     type       required: "ball" | "hinge" | "slider" | "hinge2" | "universal" | "fixed"
//     bodies     required: ["A", "B"], two different existing body names, at least one of them dynamic
//     anchor     required: [x, y, z], the joint point in world coordinates at the bodies' poses in the file
//     axis       [x, y, z] world direction, non-zero (normalised; a warning when not unit): required for
//                hinge (rotation axis), slider (sliding axis), hinge2 (steering axis, carried by A, the
//                chassis), universal (first axis, carried by A); an error for ball and fixed
//     axis2      [x, y, z] world direction: required for hinge2 (wheel axis, carried by B) and universal
//                (second axis, carried by B), at least 10 degrees from parallel to axis; an error otherwise
//     coordinate the joint coordinate at the poses in the file (hinge: angle about axis, rad; slider:
//                displacement along axis, m; hinge2/universal: angle of axis2 about axis, rad); default 0;
//                limits are in the same terms. Only for hinge, slider, hinge2, universal
//     limits     {"lower", "upper"} (both required, lower <= upper; rad within [-pi, pi] for the angles, m
//                for the slider) on the coordinate; only for hinge, slider, hinge2, universal. A warning
//                when the coordinate starts outside them
//     motor      {"speed" (rad/s or m/s), "max_force" >= 0 (N m or N)}, both required: drives the rate of
//                the coordinate (hinge, slider) or the spin of B about axis2 relative to A (hinge2,
//                universal) to speed; only for hinge, slider, hinge2, universal
//     servo      {"target", "stiffness", "damping", "range": [lower, upper]}: a position servo on the
//                coordinate (Xu et al. 2014, eq. 65-66; JointServo in joints/joint.h); only for hinge and
//                slider, not together with a motor. target required (rad in [-pi, pi] or m), within range
//                (default unbounded; lower <= upper, rad in [-pi, pi] for the hinge). Slider: stiffness (N/m)
//                and damping (N s/m) required, >= 0, not both 0 (a PD force). Hinge: no gains (the angle is
//                held by a constraint). Optional keyboard control in the viewer: "keys": ["u", "j"], the
//                key that raises the target and the one that lowers it (single letters a-z or digits 0-9,
//                either case, saved in lower case; two different keys, none used by another servo of the
//                scene nor by the viewer itself: kServoReservedKeys, R, F, V, C), and "rate" > 0, how fast a
//                held key moves the target (rad/s or m/s; default 0.5; only with "keys"). Saving writes
//                both when the servo has keys
//     erp        error reduction parameter in [0, 1], default 0.2
//     cfm        constraint force mixing >= 0, default 0 }
#pragma once

#include <nlohmann/json.hpp>

#include "scene/scene_reader.h"
#include "world/world.h"

namespace cl {

// Reads the optional top-level "joints" array of `doc` into world.joints (bodies already read).
void read_joints(scene_io::Reader& r, const nlohmann::json& doc, World& world);

// The joints in the scene format (an array; empty when the world has none). joints_json_as<J> works for
// nlohmann::json and nlohmann::ordered_json (keys in the documented order).
template <class J>
J joints_json_as(const World& world);
extern template nlohmann::json joints_json_as<nlohmann::json>(const World& world);
extern template nlohmann::ordered_json joints_json_as<nlohmann::ordered_json>(const World& world);
nlohmann::json joints_json(const World& world);

}  // namespace cl
