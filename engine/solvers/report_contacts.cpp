#include "solvers/report_contacts.h"

#include <algorithm>

namespace cl {

ReportedContact contact_entry(const std::vector<Body>& bodies, const Contact& c) {
  ReportedContact e;
  e.a = c.a;
  e.b = c.b;
  e.point = c.position;
  e.normal = c.normal;
  e.depth = c.depth;
  e.friction = c.friction;
  e.velocity = bodies[size_t(c.b)].velocity_at(c.position) - bodies[size_t(c.a)].velocity_at(c.position);
  return e;
}

void set_force(ReportedContact& entry, const Vec3& force_on_b) {
  const double fn = force_on_b.dot(entry.normal);
  entry.normal_force = fn * entry.normal;
  entry.friction_force = force_on_b - entry.normal_force;
}

void report_impulses(const std::vector<Body>& bodies, const ContactList& contacts, double dt, ContactReport& out) {
  out.dt = dt;
  const double inv_h = dt > 0.0 ? 1.0 / dt : 0.0;
  for (const Contact& c : contacts) {
    ReportedContact e = contact_entry(bodies, c);
    set_force(e, inv_h * (c.normal_impulse * c.normal + c.friction_impulse));
    out.contacts.push_back(e);
  }
}

void report_pair(const std::vector<Body>& bodies, const ContactList& contacts, int a, int b, const Vec3* point,
                 const Vec3& normal, const Vec3& force_on_b, ContactReport& out) {
  const auto first = std::lower_bound(contacts.begin(), contacts.end(), std::pair(a, b),
                                      [](const Contact& c, const std::pair<int, int>& p) {
                                        return c.a != p.first ? c.a < p.first : c.b < p.second;
                                      });
  ReportedContact e;
  e.a = a;
  e.b = b;
  e.normal = normal;
  e.depth = -1e300;
  for (auto it = first; it != contacts.end() && it->a == a && it->b == b; ++it) {
    e.friction = it->friction;
    if (it->depth > e.depth) {
      e.depth = it->depth;
      e.point = it->position;
      if (normal.isZero()) e.normal = it->normal;
    }
  }
  if (e.depth == -1e300) e.depth = 0.0;
  if (e.normal.isZero()) e.normal = Vec3(0, 1, 0);
  e.normal.normalize();
  if (point) e.point = *point;
  e.velocity = bodies[size_t(b)].velocity_at(e.point) - bodies[size_t(a)].velocity_at(e.point);
  set_force(e, force_on_b);
  out.contacts.push_back(e);
}

}  // namespace cl
