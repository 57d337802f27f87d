// Analytic ray casts against one shape (world/raycast.h casts against a whole world).
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

// Where a ray meets one shape.
struct ShapeHit {
  double distance = 0.0;   // along the (normalised) ray direction, m, >= 0
  Vec3 point{0, 0, 0};     // world point on the surface (the origin when the ray starts inside)
  Vec3 normal{0, 1, 0};    // unit outward surface normal in the world frame
};

// Casts the ray origin + t dir (dir need not be unit; t is measured in metres along it) against `shape`
// placed at (position, orientation). Returns the first hit with distance <= max_distance, or nothing.
// A zero or non-finite direction never hits.
std::optional<ShapeHit> raycast_shape(const Shape& shape, const Vec3& position, const Quat& orientation,
                                      const Vec3& origin, const Vec3& dir,
                                      double max_distance = std::numeric_limits<double>::infinity());

}  // namespace cl
