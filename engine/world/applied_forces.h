// Applied forces: forces and torques a scene puts on dynamic bodies over time windows, constant or random.
// The world adds them to Body::force and Body::torque at the start of each step (World::step, before the
// solver), so every contact method integrates them as it integrates gravity (constraints/motion.h under `lcp`
// and `volume`, the backward Euler step's external force under `implicit-penalty`).
//
// When a force acts. Step k runs from t_k to t_k + h; it carries the force when its midpoint m = t_k + h/2 lies
// in [start, end) and, for repeating windows, in the first `on` seconds of its period:
//   frac(m - start, period) < on.
// Deciding by the midpoint makes a window whose ends are whole steps (0.5 s at h = 1e-3 s) hold exactly that
// many steps, whatever the rounding of t_k; the impulse a window gives is F h times its steps.
//
// Random values. A force, point or torque given as a range {min, max} is drawn uniformly per component
// in [min, max]. Each draw is a pure function of (seed, sample, component): a counter-based generator
// (splitmix64's finaliser over the three), with no state carried from step to step. `sample` is the step index
// (resample Step: a new value every step) or the window index (resample Window: one value per on-window, the
// same for all its steps). So a force's values depend on nothing but its seed, the step count and the time:
// not on the solver, the thread count, the other forces, or the bodies' motion; copies of a world (comparison
// lanes) draw the same values step for step.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <optional>
#include <vector>

#include "core/body.h"

namespace cl {

// A vector that is either constant (lo == hi) or drawn uniformly per component in [lo, hi].
struct VecRange {
  Vec3 lo = Vec3::Zero();
  Vec3 hi = Vec3::Zero();
  bool random = false;  // true when given as a range (saved as {"min", "max"}, even if lo == hi)

  static VecRange constant(const Vec3& v) { return {v, v, false}; }
  static VecRange uniform(const Vec3& lo, const Vec3& hi) { return {lo, hi, true}; }
};

enum class ForceResample : int { Step = 0, Window };
inline constexpr int kForceResampleCount = 2;
std::string_view force_resample_name(ForceResample r);  // "step", "window"
std::optional<ForceResample> force_resample_from_name(std::string_view name);

inline constexpr double kForever = std::numeric_limits<double>::infinity();

struct AppliedForce {
  int body = -1;                               // a dynamic body
  VecRange force;                              // N, world frame
  VecRange point;                              // m, body frame, from the centre of mass (default: the centre)
  VecRange torque;                             // N m, world frame, besides the moment of the force about the centre
  double start = 0.0;                          // s
  double end = kForever;                       // s, after start
  double period = 0.0;                         // s; 0: one window [start, end)
  double on = 0.0;                             // s in (0, period]: the part of each period the force acts
  ForceResample resample = ForceResample::Window;
  uint64_t seed = 0;

  bool is_random() const { return force.random || point.random || torque.random; }
};

// A uniform number in [0, 1) from (seed, sample, component), the same on every platform and compiler.
double force_uniform(uint64_t seed, uint64_t sample, uint64_t component);

// What an applied force does in one step: its value and its point, the resulting force and torque about the
// centre of mass (world frame), or nothing when the step is outside its windows.
struct ForceSample {
  bool active = false;
  uint64_t sample = 0;          // the draw's index: the step (resample Step) or the window (resample Window)
  Vec3 force = Vec3::Zero();    // N, world frame
  Vec3 point = Vec3::Zero();    // m, body frame
  Vec3 torque = Vec3::Zero();   // N m, world frame: the given torque plus (R point) x force
};

// The sample of `f` for the step with index `step` (0 for the first) starting at time t with step h; `body`
// turns the point into the world frame for the moment.
ForceSample sample_applied_force(const AppliedForce& f, const Body& body, int64_t step, double t, double h);

// Adds every active force and torque to its body's Body::force / Body::torque for the step with index `step`
// starting at t, and wakes the bodies it pushes (a sleeping body would not feel them under `lcp`). Forces
// naming no dynamic body are skipped.
void apply_forces(const std::vector<AppliedForce>& forces, std::vector<Body>& bodies, int64_t step, double t, double h);

}  // namespace cl
