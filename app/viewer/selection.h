// Picking and selecting bodies and joints, where joints are drawn (anchors, axes, angles), and the joint
// settings the Inspector edits.
#pragma once

#include "viewer/viewer_state.h"

namespace cl::viewer {

// Selects a body (-1: nothing) and drops any joint selection. A sleeping body is woken: the user is about
// to look at it or pull it, and a frozen body would look broken.
void select_body(AppState& app, int body);
// Selects a joint (-1: nothing) and drops any body selection.
void select_joint(AppState& app, int joint);
// Window position (ImGui units, from the top-left corner) of a world point; false if behind the camera.
bool project_to_window(const AppState& app, const Vec3& point, float* x, float* y);
// World position of a joint's anchor on its body a (side 0) or b (side 1), and its first axis (carried by
// body a) or second axis (carried by body b). A body index of -1 is the world frame.
Vec3 joint_anchor_world(const World& world, const Joint& joint, int side);
Vec3 joint_axis_world(const World& world, const Joint& joint, bool second);
// For joints with an angle about the first axis (hinge, hinge-2, universal): unit directions across the
// axis at the angle 0 (*zero) and at the current angle (*needle), so that the needle lies at
// joint_coordinate from zero, right-handed about joint_axis_world(first). False for other types.
bool joint_angle_frame(const World& world, const Joint& joint, Vec3* zero, Vec3* needle);
// The joint whose anchor is drawn nearest to window point (x, y), within `radius` (ImGui units); -1 if none.
int pick_joint(const AppState& app, float x, float y, float radius);
// Changes a joint's limit, motor, ERP and CFM in the running world and in the reset state (like the
// solver's parameters, these are settings the user tunes, so Reset keeps them), and wakes its bodies.
void set_joint_settings(AppState& app, int joint, const JointLimit& limit, const JointMotor& motor, double erp,
                        double cfm);

}  // namespace cl::viewer
