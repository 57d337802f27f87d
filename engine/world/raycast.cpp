#include "world/raycast.h"

namespace cl {

RayHit raycast(const World& world, const Vec3& origin, const Vec3& dir, double max_distance) {
  RayHit best;
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const Body& b = world.bodies[i];
    const double limit = std::min(max_distance, best.distance);
    const auto h = raycast_shape(b.shape, b.position, b.orientation, origin, dir, limit);
    if (!h || (best.hit && h->distance >= best.distance)) continue;  // strict: ties keep the lower index
    best.hit = true;
    best.body = static_cast<int>(i);
    best.distance = h->distance;
    best.point = h->point;
    best.normal = h->normal;
  }
  return best;
}

}  // namespace cl
