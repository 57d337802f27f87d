#include "world/applied_forces.h"

#include <algorithm>
#include <cmath>

namespace cl {

std::string_view force_resample_name(ForceResample r) {
  switch (r) {
    case ForceResample::Step: return "step";
    case ForceResample::Window: return "window";
  }
  return "window";
}

std::optional<ForceResample> force_resample_from_name(std::string_view name) {
  for (int i = 0; i < kForceResampleCount; ++i)
    if (force_resample_name(static_cast<ForceResample>(i)) == name) return static_cast<ForceResample>(i);
  return std::nullopt;
}

namespace {

// splitmix64's output function: a bijection of 64-bit words that mixes every input bit into every output bit.
uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Components of the draws: the force's x, y, z, then the point's, then the torque's.
constexpr uint64_t kForceComponent = 0, kPointComponent = 3, kTorqueComponent = 6;

// lo + u (hi - lo) written so that it stays finite for ranges wider than the largest double (-1e308 to 1e308),
// clamped so that rounding never leaves the range, and exactly lo when lo == hi.
double lerp_in_range(double lo, double hi, double u) {
  if (lo == hi) return lo;
  return std::clamp((1.0 - u) * lo + u * hi, lo, hi);
}

Vec3 draw(const VecRange& r, uint64_t seed, uint64_t sample, uint64_t first_component) {
  if (!r.random) return r.lo;
  Vec3 v;
  for (int k = 0; k < 3; ++k) v[k] = lerp_in_range(r.lo[k], r.hi[k], force_uniform(seed, sample, first_component + k));
  return v;
}

}  // namespace

double force_uniform(uint64_t seed, uint64_t sample, uint64_t component) {
  const uint64_t z = mix64(mix64(mix64(seed) ^ sample) ^ component);
  return double(z >> 11) * (1.0 / 9007199254740992.0);  // the top 53 bits: [0, 1) in steps of 2^-53
}

ForceSample sample_applied_force(const AppliedForce& f, const Body& body, int64_t step, double t, double h) {
  ForceSample s;
  const double mid = t + 0.5 * h;
  if (!(mid >= f.start && mid < f.end)) return s;
  uint64_t window = 0;
  if (f.period > 0.0) {
    const double n = std::floor((mid - f.start) / f.period);
    if (mid - f.start - n * f.period >= f.on) return s;
    // The index as a 64-bit word: periods far shorter than the time (1e-300 s) count past 2^64 windows, which
    // wrap around rather than overflow the conversion.
    window = uint64_t(std::fmod(n, 18446744073709551616.0));
  }
  s.active = true;
  s.sample = f.resample == ForceResample::Step ? uint64_t(step) : window;
  s.force = draw(f.force, f.seed, s.sample, kForceComponent);
  s.point = draw(f.point, f.seed, s.sample, kPointComponent);
  s.torque = draw(f.torque, f.seed, s.sample, kTorqueComponent) + (body.orientation * s.point).cross(s.force);
  return s;
}

void apply_forces(const std::vector<AppliedForce>& forces, std::vector<Body>& bodies, int64_t step, double t,
                  double h) {
  for (const AppliedForce& f : forces) {
    if (f.body < 0 || size_t(f.body) >= bodies.size()) continue;
    Body& b = bodies[size_t(f.body)];
    if (!b.is_dynamic()) continue;
    const ForceSample s = sample_applied_force(f, b, step, t, h);
    if (!s.active) continue;
    b.force += s.force;
    b.torque += s.torque;
    if (s.force != Vec3::Zero() || s.torque != Vec3::Zero()) {
      b.sleeping = false;  // as World::wake: a pushed body is simulated, and wakes what it touches
      b.calm_steps = 0;
    }
  }
}

}  // namespace cl
