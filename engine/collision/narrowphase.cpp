#include "collision/narrowphase.h"

#include "collision/mesh_contacts.h"
#include "collision/mesh_shape.h"

#include <algorithm>
#include <array>

namespace cl {

// Signed distance from x (box frame) to a box of half extents h, with the outward direction.
double box_signed_distance(const Vec3& h, const Vec3& x, Vec3* direction) {
  const Vec3 q = x.cwiseAbs() - h;
  if ((q.array() > 0).any()) {
    const Vec3 outside = q.cwiseMax(0.0);
    const double d = outside.norm();
    if (direction) *direction = outside.cwiseProduct(x.cwiseSign()) / d;
    return d;
  }
  int k;
  const double d = q.maxCoeff(&k);
  if (direction) {
    *direction = Vec3::Zero();
    (*direction)[k] = x[k] >= 0 ? 1.0 : -1.0;
  }
  return d;
}

bool shape_signed_distance(const Shape& s, const Vec3& p, double& phi, Vec3& gradient) {
  switch (s.type) {
    case ShapeType::Plane:
      phi = s.normal.dot(p) - s.offset;
      gradient = s.normal;
      return true;
    case ShapeType::Sphere: {
      const double d = p.norm();
      if (d < 1e-12) return false;
      phi = d - s.radius;
      gradient = p / d;
      return true;
    }
    case ShapeType::Box:
      phi = box_signed_distance(s.half_extents, p, &gradient);
      return true;
    case ShapeType::Capsule: {
      const Vec3 on_axis(0, std::clamp(p.y(), -s.half_height, s.half_height), 0);
      const Vec3 d = p - on_axis;
      const double len = d.norm();
      if (len < 1e-12) return false;
      phi = len - s.radius;
      gradient = d / len;
      return true;
    }
    case ShapeType::Mesh:
      phi = s.mesh->sdf.value_and_gradient(p, gradient);
      return gradient.squaredNorm() >= 1e-24;
  }
  return false;
}

namespace {

using Points = std::vector<ContactPointOut>;
// A collide function for shapes (A, B) with type(A) <= type(B): normals from A to B.
using CollideFn = void (*)(const Body& a, const Body& b, double margin, Points& out);

// Top of a plane body's half space along its world normal: { x : n.x <= top }.
void plane_world(const Body& p, Vec3& n, double& top) {
  n = p.orientation * p.shape.normal;
  top = p.shape.offset + n.dot(p.position);
}

void capsule_segment(const Body& c, Vec3& p0, Vec3& p1) {
  const Vec3 axis = c.orientation * Vec3(0, c.shape.half_height, 0);
  p0 = c.position - axis;
  p1 = c.position + axis;
}

Vec3 closest_on_segment(const Vec3& p0, const Vec3& p1, const Vec3& x, double* t_out = nullptr) {
  const Vec3 d = p1 - p0;
  const double dd = d.squaredNorm();
  double t = dd > 0 ? std::clamp((x - p0).dot(d) / dd, 0.0, 1.0) : 0.0;
  if (t_out) *t_out = t;
  return p0 + t * d;
}

// Two spheres (centres ca, cb, radii ra, rb): normal from a to b.
bool sphere_sphere_point(const Vec3& ca, double ra, const Vec3& cb, double rb, double margin, uint32_t feature,
                         Points& out) {
  const Vec3 d = cb - ca;
  const double dist = d.norm();
  const double gap = dist - ra - rb;
  if (gap >= margin) return false;
  const Vec3 n = dist > 1e-12 ? Vec3(d / dist) : Vec3(0, 1, 0);
  const Vec3 pa = ca + n * ra, pb = cb - n * rb;
  out.push_back({0.5 * (pa + pb), n, -gap, feature});
  return true;
}

// A point x with a sphere of radius r around it against a plane: normal from plane to sphere.
void plane_sphere_point(const Vec3& n, double top, const Vec3& x, double r, double margin, uint32_t feature,
                        Points& out) {
  const double height = n.dot(x) - top;  // centre above the surface
  const double gap = height - r;
  if (gap >= margin) return;
  out.push_back({x - n * (0.5 * (height + r)), n, -gap, feature});
}

void plane_sphere(const Body& p, const Body& s, double margin, Points& out) {
  Vec3 n; double top;
  plane_world(p, n, top);
  plane_sphere_point(n, top, s.position, s.shape.radius, margin, 0, out);
}

void plane_box(const Body& p, const Body& b, double margin, Points& out) {
  Vec3 n; double top;
  plane_world(p, n, top);
  const Mat3 r = b.rotation();
  const Vec3& h = b.shape.half_extents;
  for (uint32_t c = 0; c < 8; ++c) {
    const Vec3 local((c & 1) ? h.x() : -h.x(), (c & 2) ? h.y() : -h.y(), (c & 4) ? h.z() : -h.z());
    plane_sphere_point(n, top, b.position + r * local, 0.0, margin, c, out);
  }
}

void plane_capsule(const Body& p, const Body& c, double margin, Points& out) {
  Vec3 n; double top, r = c.shape.radius;
  plane_world(p, n, top);
  Vec3 p0, p1;
  capsule_segment(c, p0, p1);
  plane_sphere_point(n, top, p0, r, margin, 0, out);
  plane_sphere_point(n, top, p1, r, margin, 1, out);
}

void sphere_sphere(const Body& a, const Body& b, double margin, Points& out) {
  sphere_sphere_point(a.position, a.shape.radius, b.position, b.shape.radius, margin, 0, out);
}

// A sphere (centre c, radius r) against a box body: normal from the sphere to the box.
void sphere_box_point(const Vec3& c, double r, const Body& box, double margin, uint32_t feature, Points& out) {
  const Mat3 rot = box.rotation();
  const Vec3 local = rot.transpose() * (c - box.position);
  Vec3 dir;
  const double d = box_signed_distance(box.shape.half_extents, local, &dir);
  const double gap = d - r;
  if (gap >= margin) return;
  const Vec3 n = -(rot * dir);             // from sphere towards box
  const Vec3 on_box = c + n * d;           // surface point of the box
  const Vec3 on_sphere = c + n * r;
  out.push_back({0.5 * (on_box + on_sphere), n, -gap, feature});
}

void sphere_box(const Body& s, const Body& b, double margin, Points& out) {
  sphere_box_point(s.position, s.shape.radius, b, margin, 0, out);
}

void sphere_capsule(const Body& s, const Body& c, double margin, Points& out) {
  Vec3 p0, p1;
  capsule_segment(c, p0, p1);
  sphere_sphere_point(s.position, s.shape.radius, closest_on_segment(p0, p1, s.position), c.shape.radius, margin, 0,
                      out);
}

void box_box(const Body& a, const Body& b, double margin, Points& out) {
  collide_box_box(a.position, a.orientation, a.shape.half_extents, b.position, b.orientation, b.shape.half_extents,
                  margin, out);
}

// Drops candidate points that lie within `tolerance` of a deeper one, then orders the rest by feature. Taken in
// feature order, a capsule end touching a box's side face kept its shallow contact and dropped the segment's
// deepest point, 6 cm away on the top face and 12 cm deeper (scenes/default.json, a capsule across the top edge of
// a pyramid box).
void keep_distinct(Points& pts, size_t first, double tolerance) {
  std::sort(pts.begin() + first, pts.end(), [](const auto& x, const auto& y) {
    return x.depth != y.depth ? x.depth > y.depth : x.feature < y.feature;
  });
  size_t w = first;
  for (size_t i = first; i < pts.size(); ++i) {
    bool dup = false;
    for (size_t j = first; j < w; ++j)
      if ((pts[j].position - pts[i].position).norm() < tolerance) dup = true;
    if (!dup) pts[w++] = pts[i];
  }
  pts.resize(w);
  std::sort(pts.begin() + first, pts.end(), [](const auto& x, const auto& y) { return x.feature < y.feature; });
}

// Box against capsule: the point of the segment deepest in the box (the box's signed distance is convex
// along the segment, so a golden-section search finds it) and both segment ends, as spheres against the box.
void box_capsule(const Body& b, const Body& c, double margin, Points& out) {
  Vec3 p0, p1;
  capsule_segment(c, p0, p1);
  const Mat3 rot = b.rotation();
  auto sd = [&](double t) {
    return box_signed_distance(b.shape.half_extents, rot.transpose() * (p0 + t * (p1 - p0) - b.position), nullptr);
  };
  double lo = 0.0, hi = 1.0;
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = sd(x1), f2 = sd(x2);
  for (int it = 0; it < 40; ++it) {
    if (f1 < f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = sd(x1); }
    else { lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = sd(x2); }
  }
  const double t = 0.5 * (lo + hi);
  const size_t first = out.size();
  // sphere_box_point gives normals from the capsule to the box; flip them to box -> capsule.
  sphere_box_point(p0, c.shape.radius, b, margin, 0, out);
  sphere_box_point(p1, c.shape.radius, b, margin, 1, out);
  sphere_box_point(p0 + t * (p1 - p0), c.shape.radius, b, margin, 2, out);
  for (size_t i = first; i < out.size(); ++i) out[i].normal = -out[i].normal;
  keep_distinct(out, first, 0.25 * c.shape.radius);
}

// Capsule against capsule: closest points of the two segments plus each end against the other segment, so
// that parallel capsules lying side by side get two contacts.
void capsule_capsule(const Body& a, const Body& b, double margin, Points& out) {
  Vec3 a0, a1, b0, b1;
  capsule_segment(a, a0, a1);
  capsule_segment(b, b0, b1);
  const double ra = a.shape.radius, rb = b.shape.radius;
  // Closest points between the segments (Ericson, Real-Time Collision Detection 5.1.9).
  const Vec3 d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
  const double aa = d1.squaredNorm(), ee = d2.squaredNorm(), f = d2.dot(r);
  double s = 0, t = 0;
  if (aa <= 1e-12 && ee <= 1e-12) { s = t = 0; }
  else if (aa <= 1e-12) { t = std::clamp(f / ee, 0.0, 1.0); }
  else {
    const double c = d1.dot(r);
    if (ee <= 1e-12) { s = std::clamp(-c / aa, 0.0, 1.0); }
    else {
      const double bb = d1.dot(d2), denom = aa * ee - bb * bb;
      s = denom > 1e-12 ? std::clamp((bb * f - c * ee) / denom, 0.0, 1.0) : 0.0;
      t = (bb * s + f) / ee;
      if (t < 0) { t = 0; s = std::clamp(-c / aa, 0.0, 1.0); }
      else if (t > 1) { t = 1; s = std::clamp((bb - c) / aa, 0.0, 1.0); }
    }
  }
  const size_t first = out.size();
  sphere_sphere_point(a0 + s * d1, ra, b0 + t * d2, rb, margin, 0, out);
  sphere_sphere_point(a0, ra, closest_on_segment(b0, b1, a0), rb, margin, 1, out);
  sphere_sphere_point(a1, ra, closest_on_segment(b0, b1, a1), rb, margin, 2, out);
  sphere_sphere_point(closest_on_segment(a0, a1, b0), ra, b0, rb, margin, 3, out);
  sphere_sphere_point(closest_on_segment(a0, a1, b1), ra, b1, rb, margin, 4, out);
  keep_distinct(out, first, 0.25 * std::min(ra, rb));
}

// The dispatch table, indexed [type A][type B] with type A <= type B (ShapeType order: plane, sphere,
// box, capsule). Plane-plane is empty: planes are fixed and fixed pairs never reach the narrow phase.
// Pairs with a mesh go through its distance field and point shell (collision/mesh_contacts.cpp).
constexpr std::array<std::array<CollideFn, kShapeTypeCount>, kShapeTypeCount> kCollide = {{
    {nullptr, plane_sphere, plane_box, plane_capsule, collide_with_mesh},
    {nullptr, sphere_sphere, sphere_box, sphere_capsule, collide_with_mesh},
    {nullptr, nullptr, box_box, box_capsule, collide_with_mesh},
    {nullptr, nullptr, nullptr, capsule_capsule, collide_with_mesh},
    {nullptr, nullptr, nullptr, nullptr, collide_with_mesh},
}};

}  // namespace

void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  const Body* a = &bodies[ia];
  const Body* b = &bodies[ib];
  const bool swapped = int(a->shape.type) > int(b->shape.type);
  if (swapped) std::swap(a, b);
  const CollideFn fn = kCollide[int(a->shape.type)][int(b->shape.type)];
  if (!fn) return;
  thread_local Points points;
  points.clear();
  fn(*a, *b, margin, points);
  for (const ContactPointOut& p : points) {
    Contact c;
    c.a = ia;
    c.b = ib;
    c.position = p.position;
    c.normal = swapped ? Vec3(-p.normal) : p.normal;
    c.depth = p.depth;
    c.feature = p.feature;
    out.push_back(c);
  }
}

double pair_distance(const Body& a, const Body& b, double margin) {
  const Body* first = &a;
  const Body* second = &b;
  if (int(first->shape.type) > int(second->shape.type)) std::swap(first, second);
  const CollideFn fn = kCollide[int(first->shape.type)][int(second->shape.type)];
  if (!fn) return margin;
  thread_local Points points;
  points.clear();
  fn(*first, *second, margin, points);
  double distance = margin;
  for (const ContactPointOut& p : points) distance = std::min(distance, -p.depth);
  return distance;
}

}  // namespace cl
