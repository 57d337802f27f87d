#include "world/contact_recycling.h"

#include <algorithm>

#include "collision/continuous.h"

namespace cl {

namespace {

// A tenth of the thinner body's half thickness, as for the allowed penetration (solvers/lcp): a contact of a thin
// sheet is not recycled over more than its own depth allowance.
constexpr double kThinRecycle = 0.1;

}  // namespace

double relative_motion(const GraphEdge& e, const std::vector<Body>& bodies) {
  const Body& a = bodies[size_t(e.a)];
  const Body& b = bodies[size_t(e.b)];
  const double ra = shape_bounding_radius(a.shape), rb = shape_bounding_radius(b.shape);
  // The inner body's pose in the outer one's frame, now and at the cache: x_i = q_o^-1 (p_i - p_o), q = q_o^-1 q_i.
  const bool b_inner = rb <= ra;
  const Vec3& p_o = b_inner ? a.position : b.position;
  const Vec3& p_i = b_inner ? b.position : a.position;
  const Quat& q_o = b_inner ? a.orientation : b.orientation;
  const Quat& q_i = b_inner ? b.orientation : a.orientation;
  const Vec3& p_o0 = b_inner ? e.cached_position_a : e.cached_position_b;
  const Vec3& p_i0 = b_inner ? e.cached_position_b : e.cached_position_a;
  const Quat& q_o0 = b_inner ? e.cached_orientation_a : e.cached_orientation_b;
  const Quat& q_i0 = b_inner ? e.cached_orientation_b : e.cached_orientation_a;
  const Vec3 t = q_o.conjugate() * (p_i - p_o);
  const Vec3 t0 = q_o0.conjugate() * (p_i0 - p_o0);
  // The turn between the two relative orientations: |vec| of (q_o0^-1 q_i0)^-1 (q_o^-1 q_i) is sin(theta / 2), and
  // a point at r from the inner body's origin moves 2 sin(theta / 2) r with it.
  const Quat turn = (q_o0.conjugate() * q_i0).conjugate() * (q_o.conjugate() * q_i);
  const double r = std::min(ra, rb);
  return (t - t0).norm() + 2.0 * turn.vec().norm() * r;
}

double recycle_limit(double distance, const Body& a, const Body& b) {
  auto flat = [](const Shape& s) { return s.type == ShapeType::Box || s.type == ShapeType::Plane; };
  if (distance <= 0.0 || !flat(a.shape) || !flat(b.shape)) return 0.0;
  return std::min(distance, kThinRecycle * std::min(half_thickness(a.shape), half_thickness(b.shape)));
}

void anchor_contacts(const Body& a, const Body& b, Contact* first, Contact* last) {
  const Mat3 ra_t = a.rotation().transpose(), rb_t = b.rotation().transpose();
  for (Contact* c = first; c != last; ++c) {
    c->anchor_a = ra_t * (c->position - a.position);
    c->anchor_b = rb_t * (c->position - b.position);
    c->anchor_normal = ra_t * c->normal;
    c->anchor_depth = c->depth;
  }
}

void recycle_contacts(const Body& a, const Body& b, Contact* first, Contact* last) {
  const Mat3 ra = a.rotation(), rb = b.rotation();
  for (Contact* c = first; c != last; ++c) {
    const Vec3 pa = a.position + ra * c->anchor_a, pb = b.position + rb * c->anchor_b;
    c->normal = ra * c->anchor_normal;
    // Both points were at the contact's position when it was computed; b's point moving against the normal
    // (towards a) deepens the contact.
    c->depth = c->anchor_depth + (pa - pb).dot(c->normal);
    c->position = 0.5 * (pa + pb);
  }
}

}  // namespace cl
