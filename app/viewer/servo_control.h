// Joint servos driven from the keyboard and the Servos panel: their targets, keys and bounds.
#pragma once

#include <string>
#include <vector>

#include "viewer/viewer_state.h"

namespace cl::viewer {

// Indices of the joints that have a servo (hinges and sliders with "servo" in the scene), in order.
std::vector<int> servo_joints(const World& world);
// The values a servo's target may take: its range, within [-pi, pi] for a hinge (the angles scene files
// accept, so that a driven target still saves into a loadable file).
void servo_target_bounds(const Joint& joint, double* lower, double* upper);
// Sets the running world's servo target of `joint`, clamped to servo_target_bounds, and wakes the joint's
// bodies when it changed (a sleeping arm would otherwise ignore its new target). Reset goes back to the
// target of the file, like the bodies' poses. False if the joint has no servo or the target did not change.
bool set_joint_servo_target(AppState& app, int joint, double target);
// Moves a servo's target by direction * rate * seconds (direction > 0 raises it, < 0 lowers it, 0 nothing),
// clamped like set_joint_servo_target, and wakes the bodies when it moved.
bool drive_servo(AppState& app, int joint, int direction, double seconds);
// Drives every servo whose keys are in app.servos.held for `seconds` (a key pair held together cancels).
// step_once calls it before each step with the step's dt, so a held key moves the target at `rate` per
// simulated second while the simulation runs.
void drive_held_servos(AppState& app, double seconds);
// The key bindings of a servo for display: "U / J" (raise / lower); "" when it has none.
std::string servo_key_label(const JointServo& servo);
// The letter and digit keys the viewer uses itself (lower case), which servos may not take: the scene
// loader refuses them (kServoReservedKeys in joints/joint.h must list them all).
std::string viewer_shortcut_keys();

}  // namespace cl::viewer
