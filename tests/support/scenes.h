// Shipped scenes for tests: load one from scenes/ (failing the test with the loader's message if it does not
// load), and find its bodies and joints by name.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string>

#include "joints/joint.h"
#include "scene/scene.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl::test {

// The repository's root (the tests are built with CONTACTLAB_SOURCE_DIR).
inline std::filesystem::path source_dir() { return CONTACTLAB_SOURCE_DIR; }

inline World load_shipped_scene(const std::string& name) {
  SceneLoadResult r = load_scene_file((source_dir() / "scenes" / name).string());
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.world);
}

// A kinematic ram (a box 0.6 m deep, 3 m tall, 1 m wide, `max_speed` 1000) scripted along x from x = from to x = to
// at `speed` (it stops there) through a stack of five boxes of 0.5 m and 1 kg ("b0" .. "b4", from the ground up)
// at x = 0; the ram is "ram".
inline std::string ram_scene(double dt, double from, double to, double speed) {
  std::string bodies = R"({"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true})";
  for (int i = 0; i < 5; ++i)
    bodies += R"(, {"name": "b)" + std::to_string(i) + R"(", "shape": {"type": "box", "half_extents": [0.25, 0.25, 0.25]},
                  "mass": 1, "position": [0, )" + std::to_string(0.25 + 0.5 * i) + ", 0]}";
  bodies += R"(, {"name": "ram", "shape": {"type": "box", "half_extents": [0.3, 1.5, 0.5]}, "kinematic": true,
                 "position": [)" + std::to_string(from) + R"(, 1.51, 0]})";
  return R"({"format": 1, "max_speed": 1000, "dt": )" + std::to_string(dt) + R"(, "bodies": [)" + bodies +
         R"(], "scripts": [{"body": "ram", "path": [[)" + std::to_string(from) + ", 1.51, 0], [" +
         std::to_string(to) + R"(, 1.51, 0]], "speed": )" + std::to_string(speed) + R"(, "loop": false}]})";
}

inline int body_named(const World& w, const std::string& name) { return w.find_body(name); }

inline int joint_named(const World& w, const std::string& name) {
  for (size_t i = 0; i < w.joints.size(); ++i)
    if (w.joints[i].name == name) return int(i);
  return -1;
}

// A 0.2 mm sheet (1 m x 1 m, 1000 kg/m^3: 0.2 kg) dropped from 0.5 m onto the ground, flat or tilted 5 degrees
// about x, stepped `seconds` at `dt` under `solver`: whether every step was ok (a blow-up stops the loop), and
// where the sheet ended: the depth of its deepest and shallowest corners below the ground (m, < 0 above it) and
// its speed (m/s).
struct SheetDrop {
  bool ok = true;
  std::string error;
  double deepest = 0.0, shallowest = 0.0, speed = 0.0;
  static constexpr double kHalfThickness = 1e-4;  // m
};
inline SheetDrop drop_sheet(const std::string& solver, double dt, bool tilted, double seconds = 2.0) {
  SheetDrop out;
  const std::string orientation = tilted ? "[0.9990482, 0.0436194, 0, 0]" : "[1, 0, 0, 0]";
  SceneLoadResult r = load_scene_text(
      R"({"format": 1, "dt": )" + std::to_string(dt) + R"(, "solver": {"type": ")" + solver + R"("}, "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "sheet", "shape": {"type": "box", "half_extents": [0.5, 0.0001, 0.5]}, "density": 1000,
       "position": [0, 0.5, 0], "orientation": )" + orientation + "}]}",
      "sheet.json");
  EXPECT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  for (int s = 0; s < int(std::lround(seconds / dt)) && out.ok; ++s) {
    const StepResult step = w.step();
    out.ok = step.ok;
    if (!step.ok) out.error = step.error;
  }
  const Body& b = w.bodies[1];
  out.deepest = -std::numeric_limits<double>::infinity();
  out.shallowest = std::numeric_limits<double>::infinity();
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner(c & 1 ? 0.5 : -0.5, c & 2 ? 1e-4 : -1e-4, c & 4 ? 0.5 : -0.5);
    const double depth = -(b.position + b.rotation() * corner).y();
    out.deepest = std::max(out.deepest, depth);
    out.shallowest = std::min(out.shallowest, depth);
  }
  out.speed = b.linear_velocity.norm() + 0.5 * b.angular_velocity.norm();
  return out;
}

// Issue 31's check: the sheet dropped flat and tilted under `solver` at each step in `dts` comes to rest lying on
// the ground, less than half its half thickness in it, no corner higher than its thickness, slower than 1 cm/s.
inline void expect_sheet_rests(const std::string& solver, std::initializer_list<double> dts) {
  constexpr double ht = SheetDrop::kHalfThickness;
  for (double dt : dts)
    for (bool tilted : {false, true}) {
      const SheetDrop d = drop_sheet(solver, dt, tilted);
      SCOPED_TRACE(testing::Message() << solver << " dt " << dt << (tilted ? " tilted" : " flat"));
      ASSERT_TRUE(d.ok) << d.error;
      EXPECT_LT(d.deepest, 0.5 * ht);                 // resting on the ground, not in it
      EXPECT_GT(d.shallowest, -2.0 * ht - 0.5 * ht);  // lying flat: no corner higher than its thickness
      EXPECT_LT(d.speed, 0.01);
    }
}

// A door (1 m x 2 m x 5 cm, 20 kg/m^3) on a hinge about y at its edge, driven by a motor of 1 rad/s and max_force
// 1e30 N m, no limit and no gravity, against a fixed post (10 cm square) 0.7 m from the hinge: stepped `seconds` at
// h under `solver`: whether every step was ok, the largest hinge angle reached (rad) until the end or a failed step,
// the angle at the end, how far it still turned over the last half second, and the largest angle between the
// hinge's axes in the two bodies (the door turned out of its axis). The door's face meets the post's corner at
// kTouch and reaches its middle at kMiddle.
struct DoorAgainstPost {
  double most = 0.0, last = 0.0, late_travel = 0.0, off_axis = 0.0;  // rad
  bool ok = true;
  static constexpr double kTouch = 0.3714, kMiddle = 0.4643;  // rad
  static constexpr double kPostReach = 0.7, kPostHalf = 0.05;  // m: the post's distance from the hinge, half width
};
inline DoorAgainstPost door_against_post(const std::string& solver, double h, double seconds = 1.5) {
  World w;
  const int frame = add_body(w, box(Vec3(0.1, 1, 0.1)), Vec3(-0.65, 1.07, 0), 0.0, Quat::Identity(), 0, BodyKind::Fixed);
  const int door = add_body(w, box(Vec3(0.5, 1, 0.025)), Vec3(0, 1.07, 0), 20.0);
  add_body(w, box(Vec3(0.05, 1, 0.05)), Vec3(-0.5 + 0.7 * std::cos(0.5), 1.07, -0.7 * std::sin(0.5)), 0.0,
           Quat::Identity(), 0, BodyKind::Fixed);
  Joint j = make_joint(JointType::Hinge, w.bodies, frame, door, Vec3(-0.5, 1.07, 0), Vec3::UnitY(), Vec3::UnitX());
  j.motor = JointMotor{true, 1.0, 1e30};
  w.joints.push_back(j);
  std::string error;
  EXPECT_TRUE(w.set_solver(solver, &error)) << error;
  w.settings.dt = h;
  w.settings.gravity = Vec3::Zero();
  DoorAgainstPost out;
  const int steps = int(std::lround(seconds / h)), late = int(std::lround((seconds - 0.5) / h));
  double at_late = 0.0;
  const Body& post = w.bodies[size_t(frame)];
  const Body& leaf = w.bodies[size_t(door)];
  for (int s = 0; s < steps; ++s) {
    if (!w.step().ok) {
      out.ok = false;
      break;
    }
    out.last = joint_coordinate(w.joints[0], w.bodies);
    out.most = std::max(out.most, out.last);
    const Vec3 axis_a = post.orientation * w.joints[0].axis_a, axis_b = leaf.orientation * w.joints[0].axis_b;
    out.off_axis = std::max(out.off_axis, std::asin(std::min(axis_a.cross(axis_b).norm(), 1.0)));
    if (s + 1 == late) at_late = out.last;
  }
  out.late_travel = std::abs(out.last - at_late);
  return out;
}

// A box of edge `size` held between two fingers on sliders of a palm, squeezed by the fingers' position servos, then
// lifted by the palm's servo (the shipped gripper, issue 38, at any size and step, with no ground). Coulomb's law
// holds the box while the fingers' friction 2 mu N exceeds m (g + a), a the lift's acceleration, largest at its
// start: a critically damped servo that lifts by X = 2 size from rest accelerates at most omega^2 X, here g / 4.
// The squeeze N = k s, the fingers' servo stiffness k times the travel s left to their target, is set so that
// 2 mu N = `margin` m (g + g / 4) (1.3: held with 30 % to spare; below 0.8 the box slides out even at rest).
// Fingers and palm weigh a quarter and a half of the box, as the shipped gripper's do. Measured from 0.5 s after
// the squeeze starts (the grip built) to 6 / omega later (the lift done): how far the box slid down relative to the
// palm, and how far it rose.
struct GripLift {
  double slid = 0.0, rose = 0.0, lift = 0.0;  // m; lift: X
  bool ok = true;
};
inline GripLift grip_and_lift(const std::string& solver, double dt, double size, double margin, double mu = 0.5) {
  World w;
  w.settings.dt = dt;
  w.materials[0].friction = mu;
  const double half = size / 2, g = 9.81, density = 500.0;
  const int base = add_body(w, box(Vec3(half, half, half)), Vec3(0, 10 * size, 0), 0.0, Quat::Identity(), 0,
                            BodyKind::Fixed);
  const int palm = add_body(w, box(Vec3(1.5 * half, 0.25 * half, half)), Vec3(0, 1.5 * size, 0), 0.5 * density / 0.75);
  const int left = add_body(w, box(Vec3(0.25 * half, half, 0.5 * half)), Vec3(-1.25 * half, half, 0), 2 * density);
  const int right = add_body(w, box(Vec3(0.25 * half, half, 0.5 * half)), Vec3(1.25 * half, half, 0), 2 * density);
  const int held = add_body(w, box(Vec3(half, half, half)), Vec3(0, half, 0), density);
  const double m = w.bodies[size_t(held)].mass;
  const double total = m + w.bodies[size_t(palm)].mass + w.bodies[size_t(left)].mass + w.bodies[size_t(right)].mass;
  const double X = 2 * size, omega = std::sqrt(0.25 * g / X);
  const double squeeze = margin * m * 1.25 * g / (2 * mu);  // N per finger
  const double travel = 0.2 * size;                        // s: the fingers' target lies this far inside the box
  Joint lift = make_joint(JointType::Slider, w.bodies, base, palm, Vec3(0, 1.5 * size, 0), Vec3::UnitY(), Vec3::UnitX());
  lift.servo.enabled = true;
  lift.servo.stiffness = omega * omega * total;
  lift.servo.damping = 2 * omega * total;
  const double sag = total * g / lift.servo.stiffness;
  lift.servo.target = sag;  // held where it is until the lift
  w.joints.push_back(lift);
  for (const int finger : {left, right}) {
    const double side = finger == left ? 1.0 : -1.0;  // the finger closes along +x (left) or -x (right)
    Joint j = make_joint(JointType::Slider, w.bodies, palm, finger, w.bodies[size_t(finger)].position,
                         Vec3(side, 0, 0), Vec3::UnitY());
    j.servo.enabled = true;
    j.servo.stiffness = squeeze / travel;
    j.servo.damping = 2 * std::sqrt(j.servo.stiffness * w.bodies[size_t(finger)].mass);
    j.servo.target = travel;
    w.joints.push_back(j);
  }
  std::string error;
  EXPECT_TRUE(w.set_solver(solver, &error)) << error;
  GripLift out;
  out.lift = X;
  const auto offset = [&] { return w.bodies[size_t(held)].position.y() - w.bodies[size_t(palm)].position.y(); };
  const auto run = [&](double seconds) {
    for (int s = 0, n = int(std::lround(seconds / dt)); s < n && out.ok; ++s) out.ok = w.step().ok;
  };
  run(0.5);
  const double offset0 = offset(), y0 = w.bodies[size_t(held)].position.y();
  w.joints[0].servo.target = sag + X;
  for (int i = 0; i < int(w.bodies.size()); ++i) w.wake(i);  // as the viewer's servo keys do (lcp sleeps)
  run(6.0 / omega);  // the lift 98 % done: 1 - 7 e^-6
  out.slid = offset0 - offset();
  out.rose = w.bodies[size_t(held)].position.y() - y0;
  return out;
}

// The sweep of grip_and_lift each method's gripper test runs, at 1/30, 1/60, 1/250 and 1/1000 s, 2 cm, 10 cm and
// 0.5 m, and mu 0.3, 0.5 and 1: held with 30 % to spare, the box rises with the palm and slides down it less than
// 5 % of its size; 30 % short of its weight at rest, it slides out. `skip_held` and `skip_short` leave out the cases
// of each kind that a method does not get right yet (its test says why).
using GripCase = bool (*)(double dt, double size, double mu);
inline void expect_gripper_holds_what_coulomb_holds(const std::string& solver, GripCase skip_held = nullptr,
                                                    GripCase skip_short = nullptr) {
  for (const double dt : {1.0 / 30, 1.0 / 60, 1.0 / 250, 1.0 / 1000})
    for (const double size : {0.02, 0.1, 0.5})
      for (const double mu : {0.3, 0.5, 1.0}) {
        SCOPED_TRACE(testing::Message() << solver << ", dt " << dt << " size " << size << " mu " << mu);
        if (!(skip_held && skip_held(dt, size, mu))) {
          const GripLift held = grip_and_lift(solver, dt, size, 1.3, mu);
          ASSERT_TRUE(held.ok);
          EXPECT_LT(std::abs(held.slid), 0.05 * size);
          EXPECT_GT(held.rose, 0.9 * held.lift);
        }
        if (skip_short && skip_short(dt, size, mu)) continue;
        const GripLift slips = grip_and_lift(solver, dt, size, 0.7 / 1.25, mu);  // 30 % short at rest
        ASSERT_TRUE(slips.ok);
        EXPECT_GT(slips.slid, size);
      }
}

}  // namespace cl::test
