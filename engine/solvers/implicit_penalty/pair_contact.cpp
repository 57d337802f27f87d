#include "solvers/implicit_penalty/pair_contact.h"

namespace cl::implicit_penalty {

Contact pair_contact(int ia, int ib, const Body& a, const Mat3& ra, std::span<const PenetratingPoint> a_in_b,
                     const Body& b, const Mat3& rb, std::span<const PenetratingPoint> b_in_a, double skin) {
  Contact c;
  c.a = ia;
  c.b = ib;
  Vec3 inside = Vec3::Zero(), all = Vec3::Zero();
  int n_inside = 0, n_all = 0;
  double deepest = -1e300;
  auto visit = [&](std::span<const PenetratingPoint> points, const Body& owner, const Mat3& r, bool b_points) {
    for (const PenetratingPoint& p : points) {
      const Vec3 at = owner.position + r * p.r_b;
      const double depth = -(p.d + skin);  // below the owner's own surface
      all += at;
      ++n_all;
      if (depth > 0.0) {
        inside += at;
        ++n_inside;
      }
      if (depth > deepest) {
        deepest = depth;
        const Vec3 n = r * p.n_b;      // outward normal of the point's body
        c.normal = b_points ? -n : n;  // b is pushed along its inward normal; a along its inward -normal
        c.feature = shell_point_key(b_points, p.index);
      }
    }
  };
  visit(a_in_b, a, ra, false);
  visit(b_in_a, b, rb, true);
  c.position = n_inside > 0 ? Vec3(inside / n_inside) : Vec3(all / std::max(n_all, 1));
  c.depth = n_all > 0 ? deepest : 0.0;
  return c;
}

}  // namespace cl::implicit_penalty
