// Ray casts against a whole world, used by the viewer to pick bodies with the mouse.
#pragma once

#include <limits>

#include "collision/raycast.h"
#include "world/world.h"

namespace cl {

// The nearest body a ray meets in a world.
struct RayHit {
  bool hit = false;
  int body = -1;  // index into World::bodies, -1 on a miss
  double distance = std::numeric_limits<double>::infinity();
  Vec3 point{0, 0, 0};
  Vec3 normal{0, 1, 0};
};

// Casts the ray origin + t dir against every body of the world (raycast_shape) and returns the nearest hit
// (ties go to the lower index).
RayHit raycast(const World& world, const Vec3& origin, const Vec3& dir,
               double max_distance = std::numeric_limits<double>::infinity());

}  // namespace cl
