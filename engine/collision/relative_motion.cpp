#include "collision/relative_motion.h"

#include <algorithm>

namespace cl {

double relative_motion(const Shape& a, const Vec3& pa, const Quat& qa, const Vec3& pa0, const Quat& qa0,
                       const Shape& b, const Vec3& pb, const Quat& qb, const Vec3& pb0, const Quat& qb0) {
  const double ra = shape_bounding_radius(a), rb = shape_bounding_radius(b);
  // The inner body's pose in the outer one's frame, now and then: x_i = q_o^-1 (p_i - p_o), q = q_o^-1 q_i.
  const bool b_inner = rb <= ra;
  const Vec3& p_o = b_inner ? pa : pb;
  const Vec3& p_i = b_inner ? pb : pa;
  const Quat& q_o = b_inner ? qa : qb;
  const Quat& q_i = b_inner ? qb : qa;
  const Vec3& p_o0 = b_inner ? pa0 : pb0;
  const Vec3& p_i0 = b_inner ? pb0 : pa0;
  const Quat& q_o0 = b_inner ? qa0 : qb0;
  const Quat& q_i0 = b_inner ? qb0 : qa0;
  const Vec3 t = q_o.conjugate() * (p_i - p_o);
  const Vec3 t0 = q_o0.conjugate() * (p_i0 - p_o0);
  // The turn between the two relative orientations: |vec| of (q_o0^-1 q_i0)^-1 (q_o^-1 q_i) is sin(theta / 2), and
  // a point at r from the inner body's origin moves 2 sin(theta / 2) r with it.
  const Quat turn = (q_o0.conjugate() * q_i0).conjugate() * (q_o.conjugate() * q_i);
  return (t - t0).norm() + 2.0 * turn.vec().norm() * std::min(ra, rb);
}

}  // namespace cl
