// Analytic ray casts against the primitive shapes, used by the viewer to pick bodies with the mouse.
// Pure geometry: no GL, no allocation.
//
// Convention for rays that start inside (or exactly on) a solid shape, as in PhysX: the hit is reported
// at distance 0, at the ray origin, with the normal opposite to the ray direction. Planes are solid
// half spaces, so a ray starting below a ground plane hits it at distance 0.
#pragma once

#include <limits>
#include <optional>

#include "core/math.h"
#include "core/shape.h"

namespace cl {

class World;

// Where a ray meets one shape.
struct ShapeHit {
  double distance = 0.0;   // along the (normalised) ray direction, m, >= 0
  Vec3 point{0, 0, 0};     // world point on the surface (the origin when the ray starts inside)
  Vec3 normal{0, 1, 0};    // unit outward surface normal in the world frame
};

// The nearest body a ray meets in a world.
struct RayHit {
  bool hit = false;
  int body = -1;  // index into World::bodies, -1 on a miss
  double distance = std::numeric_limits<double>::infinity();
  Vec3 point{0, 0, 0};
  Vec3 normal{0, 1, 0};
};

// Casts the ray origin + t dir (dir need not be unit; t is measured in metres along it) against `shape`
// placed at (position, orientation). Returns the first hit with distance <= max_distance, or nothing.
// A zero or non-finite direction never hits.
std::optional<ShapeHit> raycast_shape(const Shape& shape, const Vec3& position, const Quat& orientation,
                                      const Vec3& origin, const Vec3& dir,
                                      double max_distance = std::numeric_limits<double>::infinity());

// Casts the ray against every body of the world and returns the nearest hit (ties go to the lower index).
RayHit raycast(const World& world, const Vec3& origin, const Vec3& dir,
               double max_distance = std::numeric_limits<double>::infinity());

}  // namespace cl
