#include "constraints/motion.h"

#include <Eigen/LU>

namespace cl {

BodyVelocity free_velocity_change(const Body& b, const Vec3& gravity, double h) {
  if (!b.is_dynamic()) return {};
  const Mat3 r = b.rotation();
  const Vec3 w = r.transpose() * b.angular_velocity;  // body frame
  const Mat3& inertia = b.inertia_body;
  const Vec3 f = h * (w.cross(inertia * w) - r.transpose() * b.torque);
  const Mat3 jacobian = inertia + h * (skew(w) * inertia - skew(inertia * w));
  return {h * (gravity + b.inv_mass * b.force), r * (w - jacobian.partialPivLu().solve(f)) - b.angular_velocity};
}

void advance_pose(Body& b, double h) {
  b.position += h * b.linear_velocity;
  b.orientation = integrate_orientation(b.orientation, b.angular_velocity, h);
  b.update_world_inertia();
}

void advance_poses(std::vector<Body>& bodies, double h) {
  for (Body& b : bodies)
    if (b.kind != BodyKind::Fixed) advance_pose(b, h);
}

void displace(Body& b, const Vec3& dx, const Vec3& dtheta) {
  b.position += dx;
  b.orientation = apply_small_rotation(b.orientation, dtheta);
  b.update_world_inertia();
}

}  // namespace cl
