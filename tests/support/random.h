// Seeded random states for tests: each test names its seed, so every run draws the same numbers.
#pragma once

#include <cstdint>
#include <random>

#include "core/math.h"

namespace cl::test {

struct Rng {
  explicit Rng(uint32_t seed) : gen(seed) {}

  std::mt19937 gen;
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
  // Each component uniform in [-scale, scale].
  Vec3 vec(double scale) { return Vec3(uniform(-scale, scale), uniform(-scale, scale), uniform(-scale, scale)); }
  // A unit vector, uniform over directions (rejection sampling in the unit ball).
  Vec3 unit() {
    Vec3 v;
    do v = vec(1.0);
    while (v.norm() < 0.1 || v.norm() > 1.0);
    return v.normalized();
  }
  // A unit quaternion from four uniform components (not uniform over rotations, but covering them all).
  Quat quat() {
    Quat q(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    q.normalize();
    return q;
  }
};

}  // namespace cl::test
