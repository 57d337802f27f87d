#include "viewer/servo_control.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

namespace cl::viewer {

std::vector<int> servo_joints(const World& world) {
  std::vector<int> out;
  for (int j = 0; j < static_cast<int>(world.joints.size()); ++j) {
    const Joint& joint = world.joints[j];
    if (joint.servo.enabled && joint_type_has_servo(joint.type)) out.push_back(j);
  }
  return out;
}

void servo_target_bounds(const Joint& joint, double* lower, double* upper) {
  *lower = joint.servo.lower;
  *upper = joint.servo.upper;
  if (joint.type != JointType::Slider) {
    *lower = std::max(*lower, -std::numbers::pi);
    *upper = std::min(*upper, std::numbers::pi);
  }
}

bool set_joint_servo_target(AppState& app, int joint, double target) {
  World& world = app.scene.world;
  if (joint < 0 || joint >= static_cast<int>(world.joints.size()) || !std::isfinite(target)) return false;
  Joint& j = world.joints[joint];
  if (!j.servo.enabled || !joint_type_has_servo(j.type)) return false;
  double lo = 0.0, hi = 0.0;
  servo_target_bounds(j, &lo, &hi);
  const double clamped = std::clamp(target, lo, hi);
  if (clamped == j.servo.target) return false;
  j.servo.target = clamped;
  world.wake(j.body_a);
  world.wake(j.body_b);
  return true;
}

bool drive_servo(AppState& app, int joint, int direction, double seconds) {
  const World& world = app.scene.world;
  if (direction == 0 || !(seconds > 0.0) || joint < 0 || joint >= static_cast<int>(world.joints.size())) return false;
  const JointServo& servo = world.joints[joint].servo;
  const double step = (direction > 0 ? 1.0 : -1.0) * servo.rate * seconds;
  return set_joint_servo_target(app, joint, servo.target + step);
}

void drive_held_servos(AppState& app, double seconds) {
  const std::string& held = app.servos.held;
  if (held.empty()) return;
  for (int j : servo_joints(app.scene.world)) {
    const JointServo& servo = app.scene.world.joints[j].servo;
    if (servo.key_raise == '\0') continue;
    const int direction = (held.find(servo.key_raise) != std::string::npos ? 1 : 0) -
                          (held.find(servo.key_lower) != std::string::npos ? 1 : 0);
    drive_servo(app, j, direction, seconds);
  }
}

std::string servo_key_label(const JointServo& servo) {
  if (servo.key_raise == '\0' || servo.key_lower == '\0') return "";
  const auto upper = [](char c) { return static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c); };
  return std::string(1, upper(servo.key_raise)) + " / " + std::string(1, upper(servo.key_lower));
}

// handle_keys in input.cpp: R reset, F frame the selection or the scene, V split or overlaid lanes.
std::string viewer_shortcut_keys() { return "rfvc"; }

}  // namespace cl::viewer
