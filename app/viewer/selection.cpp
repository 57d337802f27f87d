#include "viewer/selection.h"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

#include "viewer/convert.h"
#include "viewer/script_edit.h"
#include "viewer/session.h"

namespace cl::viewer {

void select_body(AppState& app, int body) {
  World& world = app.scene.world;
  if (body < 0 || body >= static_cast<int>(world.bodies.size())) body = -1;
  app.pick.selected = body;
  app.pick.selected_joint = -1;
  if (body >= 0 && world.bodies[body].sleeping) world.wake(body);
  // Clicks would go on laying a path for a body the Inspector no longer shows.
  if (app.script.laying && app.script.body != body) end_script_path(app);
}

void select_joint(AppState& app, int joint) {
  if (joint < 0 || joint >= static_cast<int>(app.scene.world.joints.size())) joint = -1;
  app.pick.selected_joint = joint;
  if (joint >= 0) {
    app.pick.selected = -1;
    end_script_path(app);
  }
}

bool project_to_window(const AppState& app, const Vec3& point, float* x, float* y) {
  const LaneCell cell = lane_cell(app, 0);  // the view's part of the window (lane 1's cell when split)
  const float w = std::max(cell.width, 1.0f), h = std::max(cell.height, 1.0f);
  const glm::vec4 clip = app.camera.projection(w / h) * app.camera.view() * glm::vec4(to_glm(point), 1.0f);
  if (!(clip.w > 1e-6f)) return false;
  *x = cell.x + (0.5f * clip.x / clip.w + 0.5f) * w;
  *y = cell.y + (0.5f - 0.5f * clip.y / clip.w) * h;
  return std::isfinite(*x) && std::isfinite(*y);
}

namespace {
// Pose of a joint's body; the world frame for -1 (or a stale index).
void body_pose(const World& world, int body, Vec3& position, Quat& orientation) {
  if (body >= 0 && body < static_cast<int>(world.bodies.size())) {
    position = world.bodies[body].position;
    orientation = world.bodies[body].orientation;
  } else {
    position.setZero();
    orientation = Quat::Identity();
  }
}
}  // namespace

Vec3 joint_anchor_world(const World& world, const Joint& joint, int side) {
  Vec3 p;
  Quat q;
  body_pose(world, side == 0 ? joint.body_a : joint.body_b, p, q);
  return p + q * (side == 0 ? joint.anchor_a : joint.anchor_b);
}

Vec3 joint_axis_world(const World& world, const Joint& joint, bool second) {
  // The second axis (hinge-2 wheel, universal second) is fixed in body b and turns with it.
  Vec3 p;
  Quat q;
  body_pose(world, second ? joint.body_b : joint.body_a, p, q);
  const Vec3 axis = q * (second ? joint.axis2_b : joint.axis_a);
  const double n = axis.norm();
  return n > 0 ? Vec3(axis / n) : Vec3(1, 0, 0);
}

bool joint_angle_frame(const World& world, const Joint& joint, Vec3* zero, Vec3* needle) {
  if (joint.type != JointType::Hinge && joint.type != JointType::Hinge2 && joint.type != JointType::Universal) {
    return false;
  }
  const Vec3 axis = joint_axis_world(world, joint, false);
  auto flat = [&axis](const Vec3& v, Vec3* out) {  // v without its part along the axis, unit
    const Vec3 p = v - v.dot(axis) * axis;
    const double n = p.norm();
    if (!(n > 1e-9) || !std::isfinite(n)) return false;
    *out = p / n;
    return true;
  };
  Vec3 pa, pb;
  Quat qa, qb;
  body_pose(world, joint.body_a, pa, qa);
  body_pose(world, joint.body_b, pb, qb);
  if (joint.type != JointType::Hinge) {
    // Hinge-2 and universal: the angle of b's second axis about the first, zero at a's reference axis2_a.
    return flat(qa * joint.axis2_a, zero) && flat(qb * joint.axis2_b, needle);
  }
  // Hinge: a direction fixed in b, towards b's centre when it is off the axis (the needle then follows the
  // door or the link), else any direction across the axis (a wheel's centre is on it). The same direction
  // at the zero angle is where b would have it with the relative rotation of the zero pose:
  // q_b,zero = q_a relative_rotation.
  Vec3 in_b;
  const Vec3 anchor = joint_anchor_world(world, joint, 0);
  if (joint.body_b < 0 || joint.body_b >= static_cast<int>(world.bodies.size()) ||
      world.bodies[joint.body_b].shape.type == ShapeType::Plane || !flat(pb - anchor, needle)) {
    Vec3 t1, t2;
    tangent_basis(qb.conjugate() * axis, t1, t2);
    if (!flat(qb * t1, needle)) return false;
  }
  in_b = qb.conjugate() * *needle;
  return flat(qa * (joint.relative_rotation * in_b), zero);
}

int pick_joint(const AppState& app, float x, float y, float radius) {
  const World& world = app.scene.world;
  int best = -1;
  float best_d2 = radius * radius;
  for (int j = 0; j < static_cast<int>(world.joints.size()); ++j) {
    float px = 0, py = 0;
    if (!project_to_window(app, joint_anchor_world(world, world.joints[j], 0), &px, &py)) continue;
    const float d2 = (px - x) * (px - x) + (py - y) * (py - y);
    if (d2 <= best_d2) {
      best_d2 = d2;
      best = j;
    }
  }
  return best;
}

void set_joint_settings(AppState& app, int joint, const JointLimit& limit, const JointMotor& motor, double erp,
                        double cfm) {
  for (World* w : {&app.scene.world, &app.scene.loaded}) {
    if (joint < 0 || joint >= static_cast<int>(w->joints.size())) continue;
    Joint& j = w->joints[joint];
    j.limit = limit;
    j.motor = motor;
    // A servo drives the coordinate already; a scene may not have both (it would not load again).
    if (j.servo.enabled && joint_type_has_servo(j.type)) j.motor.enabled = false;
    j.erp = std::clamp(erp, 0.0, 1.0);
    j.cfm = std::max(cfm, 0.0);
  }
  if (joint >= 0 && joint < static_cast<int>(app.scene.world.joints.size())) {
    // A sleeping door would ignore its new motor until something bumped it.
    app.scene.world.wake(app.scene.world.joints[joint].body_a);
    app.scene.world.wake(app.scene.world.joints[joint].body_b);
  }
}

}  // namespace cl::viewer
