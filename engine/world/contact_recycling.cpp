#include "world/contact_recycling.h"

#include <algorithm>

#include "collision/continuous.h"
#include "collision/relative_motion.h"

namespace cl {

namespace {

// A tenth of the thinner body's half thickness, as for the allowed penetration (solvers/lcp): a contact of a thin
// sheet is not recycled over more than its own depth allowance.
constexpr double kThinRecycle = 0.1;

}  // namespace

double relative_motion(const GraphEdge& e, const std::vector<Body>& bodies) {
  const Body& a = bodies[size_t(e.a)];
  const Body& b = bodies[size_t(e.b)];
  return relative_motion(a.shape, a.position, a.orientation, e.cached_position_a, e.cached_orientation_a, b.shape,
                         b.position, b.orientation, e.cached_position_b, e.cached_orientation_b);
}

double recycle_limit(double distance, const Body& a, const Body& b) {
  auto flat = [](const Shape& s) { return s.type == ShapeType::Box || s.type == ShapeType::Plane; };
  if (distance <= 0.0 || !flat(a.shape) || !flat(b.shape)) return 0.0;
  return std::min(distance, kThinRecycle * thinner_half_thickness(a.shape, b.shape));
}

void anchor_contacts(const Body& a, const Body& b, const Contact* first, const Contact* last, ContactAnchor* out) {
  const Mat3 ra_t = a.rotation().transpose(), rb_t = b.rotation().transpose();
  for (const Contact* c = first; c != last; ++c, ++out) {
    out->a = ra_t * (c->position - a.position);
    out->b = rb_t * (c->position - b.position);
    out->normal = ra_t * c->normal;
    out->depth = c->depth;
  }
}

void recycle_contacts(const Body& a, const Body& b, const ContactAnchor* anchors, Contact* first, Contact* last) {
  const Mat3 ra = a.rotation(), rb = b.rotation();
  for (Contact* c = first; c != last; ++c, ++anchors) {
    const Vec3 pa = a.position + ra * anchors->a, pb = b.position + rb * anchors->b;
    c->normal = ra * anchors->normal;
    // Both points were at the contact's position when it was computed; b's point moving against the normal
    // (towards a) deepens the contact.
    c->depth = anchors->depth + (pa - pb).dot(c->normal);
    c->position = 0.5 * (pa + pb);
  }
}

}  // namespace cl
