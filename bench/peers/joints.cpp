// The joints of a ContactLab scene as the Bullet and ODE peers build them (joints.h).
#include "joints.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace peers {

JointStart joint_start(const cl::Joint& joint, const std::vector<cl::Body>& bodies) {
  JointStart s;
  cl::Vec3 on_b;
  cl::joint_anchors_world(joint, bodies, s.anchor, on_b);
  const cl::Body& a = bodies[size_t(joint.body_a)];
  s.axis = (a.orientation * joint.axis_a).normalized();
  if (cl::joint_type_has_coordinate(joint.type)) s.coordinate = cl::joint_coordinate(joint, bodies);
  return s;
}

std::pair<double, double> engine_limits(const cl::Joint& joint, double start, double sign) {
  const double lower = sign * (joint.limit.lower - start), upper = sign * (joint.limit.upper - start);
  return {std::min(lower, upper), std::max(lower, upper)};
}

std::string joint_not_converted(const cl::Joint& joint, const std::vector<cl::Body>& bodies) {
  using cl::JointType;
  if (joint.type == JointType::Hinge2 || joint.type == JointType::Universal)
    return std::string("a ") + std::string(cl::joint_type_name(joint.type)) +
           " joint is not converted (the peers take hinge, slider, ball and fixed joints)";
  if (joint.motor.enabled && joint.servo.enabled)
    return "a joint driven by both a motor and a servo is not converted (an engine's joint has one drive)";
  // The engines' hinge angles run over one turn about the starting pose.
  if (joint.type == JointType::Hinge && joint.limit.enabled) {
    const auto [lower, upper] = engine_limits(joint, joint_start(joint, bodies).coordinate, 1.0);
    if (lower <= -std::numbers::pi || upper >= std::numbers::pi)
      return "a hinge limit half a turn or more from the starting angle is not converted (the engines' hinge "
             "angles run from -pi to pi about the pose a joint is made at)";
  }
  return {};
}

JointDrives::JointDrives(const cl::World& world) : bodies_(world.bodies), joints_(world.joints) {
  for (const cl::Joint& j : joints_) any_ = any_ || j.motor.enabled || j.servo.enabled;
}

void JointDrives::update(const Peer& peer) {
  peer.read_state(state_);
  for (size_t i = 0; i < state_.size() && i < bodies_.size(); ++i) {
    cl::Body& b = bodies_[i];
    if (!b.is_dynamic()) continue;
    copy_state(state_[i], b);
    b.update_world_inertia();
  }
  cl::update_servo_coordinates(joints_, bodies_);
}

std::optional<cl::JointRow> JointDrives::drive_row(size_t j, double h) const {
  const cl::Joint& joint = joints_[j];
  if (!joint.motor.enabled && !joint.servo.enabled) return std::nullopt;
  thread_local std::vector<cl::JointRow> rows;
  rows.clear();
  cl::joint_rows(joint, int(j), bodies_, h, rows);
  const int kind = joint.motor.enabled ? cl::kRowMotor : cl::kRowServo;
  for (const cl::JointRow& row : rows)
    if (row.kind == kind) return row;
  return std::nullopt;  // a motor of max_force 0, a servo without gains on a slider: no row
}

}  // namespace peers
