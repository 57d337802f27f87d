#include "constraints/row.h"

namespace cl {

void load_inverse_masses(const std::vector<Body>& bodies, std::vector<InverseMass>& out) {
  out.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    out[i] = b.is_dynamic() ? InverseMass{b.inv_mass, b.inv_inertia_world} : InverseMass{};
  }
}

Row point_row(int a, int b, const Vec3& ra, const Vec3& rb, const Vec3& dir) {
  Row r;
  r.a = a;
  r.b = b;
  r.ja_lin = -dir;
  r.ja_ang = -ra.cross(dir);
  r.jb_lin = dir;
  r.jb_ang = rb.cross(dir);
  return r;
}

void prepare(Row& r, const InverseMass& a, const InverseMass& b) {
  r.ba_lin = a.linear * r.ja_lin;
  r.ba_ang = a.angular * r.ja_ang;
  r.bb_lin = b.linear * r.jb_lin;
  r.bb_ang = b.angular * r.jb_ang;
  const double diag = r.ja_lin.dot(r.ba_lin) + r.ja_ang.dot(r.ba_ang) + r.jb_lin.dot(r.bb_lin) + r.jb_ang.dot(r.bb_ang);
  // CFM softens the row (digest 4.13): A_ii + cfm.
  r.inv_diag = diag + r.cfm > 1e-300 ? 1.0 / (diag + r.cfm) : 0.0;
}

}  // namespace cl
