// Ray casts in the body frame: the ray is moved into the shape's frame, where every primitive is centred
// and axis aligned, intersected there in closed form, and the hit is moved back.
#include "collision/raycast.h"

#include "collision/mesh_shape.h"

#include <algorithm>
#include <cmath>


namespace cl {
namespace {

// A hit in the body frame: distance along the unit local direction and the local outward normal.
struct LocalHit {
  double t = 0.0;
  Vec3 normal{0, 1, 0};
};

// Ray o + t d (d unit) against the sphere |x - c| = r, for an origin known to be outside it.
std::optional<LocalHit> ray_sphere_outside(const Vec3& o, const Vec3& d, const Vec3& c, double r) {
  const Vec3 m = o - c;
  const double b = m.dot(d);
  const double cc = m.squaredNorm() - r * r;
  if (b > 0.0 && cc > 0.0) return std::nullopt;  // outside and pointing away
  const double disc = b * b - cc;
  if (disc < 0.0) return std::nullopt;
  const double t = std::max(0.0, -b - std::sqrt(disc));
  const Vec3 n = (m + t * d) / r;
  return LocalHit{t, n.normalized()};
}

std::optional<LocalHit> ray_plane(const Shape& s, const Vec3& o, const Vec3& d) {
  const double height = s.normal.dot(o) - s.offset;  // > 0 outside the half space
  if (height <= 0.0) return LocalHit{0.0, -d};
  const double approach = s.normal.dot(d);
  if (approach >= 0.0) return std::nullopt;  // parallel or moving away
  return LocalHit{-height / approach, s.normal};
}

std::optional<LocalHit> ray_sphere(const Shape& s, const Vec3& o, const Vec3& d) {
  if (o.squaredNorm() <= s.radius * s.radius) return LocalHit{0.0, -d};
  return ray_sphere_outside(o, d, Vec3::Zero(), s.radius);
}

// Slab method: the ray is inside the box for t in [max of the entry times, min of the exit times].
std::optional<LocalHit> ray_box(const Shape& s, const Vec3& o, const Vec3& d) {
  const Vec3& h = s.half_extents;
  if ((o.array().abs() <= h.array()).all()) return LocalHit{0.0, -d};
  double t_enter = -std::numeric_limits<double>::infinity();
  double t_exit = std::numeric_limits<double>::infinity();
  int enter_axis = -1;
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (std::abs(o[i]) > h[i]) return std::nullopt;  // parallel to this slab and outside it
      continue;
    }
    double t0 = (-h[i] - o[i]) / d[i];
    double t1 = (h[i] - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > t_enter) { t_enter = t0; enter_axis = i; }
    t_exit = std::min(t_exit, t1);
  }
  if (enter_axis < 0 || t_enter > t_exit || t_enter < 0.0) return std::nullopt;
  Vec3 n = Vec3::Zero();
  n[enter_axis] = d[enter_axis] > 0.0 ? -1.0 : 1.0;  // the face the ray comes through faces against it
  return LocalHit{t_enter, n};
}

// A capsule is the union of a finite cylinder and two end spheres. From outside, the first entry into
// the union is the earliest entry into any part (a cap disc lies inside an end sphere, so it never
// comes first and the cylinder's lateral surface is enough).
std::optional<LocalHit> ray_capsule(const Shape& s, const Vec3& o, const Vec3& d) {
  const double r = s.radius, hh = s.half_height;
  const Vec3 closest(0.0, std::clamp(o.y(), -hh, hh), 0.0);
  if ((o - closest).squaredNorm() <= r * r) return LocalHit{0.0, -d};

  std::optional<LocalHit> best;
  auto keep = [&best](const std::optional<LocalHit>& h) {
    if (h && (!best || h->t < best->t)) best = h;
  };
  const double a = d.x() * d.x() + d.z() * d.z();
  if (a > 1e-300) {
    const double b = o.x() * d.x() + o.z() * d.z();
    const double c = o.x() * o.x() + o.z() * o.z() - r * r;
    const double disc = b * b - a * c;
    if (disc >= 0.0) {
      const double t = (-b - std::sqrt(disc)) / a;
      const double y = o.y() + t * d.y();
      if (t >= 0.0 && std::abs(y) <= hh) {
        const Vec3 n(o.x() + t * d.x(), 0.0, o.z() + t * d.z());
        keep(LocalHit{t, n.normalized()});
      }
    }
  }
  keep(ray_sphere_outside(o, d, Vec3(0, hh, 0), r));
  keep(ray_sphere_outside(o, d, Vec3(0, -hh, 0), r));
  return best;
}

// A mesh through its BVH; a ray starting inside (negative distance) hits at once, as for the primitives.
std::optional<LocalHit> ray_mesh(const Shape& s, const Vec3& o, const Vec3& d) {
  if (!s.mesh) return std::nullopt;
  if (s.mesh->sdf.value(o) < 0.0) return LocalHit{0.0, -d};
  const MeshRayHit h = s.mesh->bvh.raycast(o, d);
  if (!h.hit) return std::nullopt;
  return LocalHit{h.t, h.normal};
}

}  // namespace

std::optional<ShapeHit> raycast_shape(const Shape& shape, const Vec3& position, const Quat& orientation,
                                      const Vec3& origin, const Vec3& dir, double max_distance) {
  const double len = dir.norm();
  if (!(len > 0.0) || !std::isfinite(len) || !all_finite(origin)) return std::nullopt;
  const Vec3 unit = dir / len;

  // Into the body frame: x_local = R^T (x - p).
  const Mat3 rot = orientation.normalized().toRotationMatrix();
  const Vec3 o = rot.transpose() * (origin - position);
  const Vec3 d = rot.transpose() * unit;

  std::optional<LocalHit> local;
  switch (shape.type) {
    case ShapeType::Plane: local = ray_plane(shape, o, d); break;
    case ShapeType::Sphere: local = ray_sphere(shape, o, d); break;
    case ShapeType::Box: local = ray_box(shape, o, d); break;
    case ShapeType::Capsule: local = ray_capsule(shape, o, d); break;
    case ShapeType::Mesh: local = ray_mesh(shape, o, d); break;
  }
  if (!local || local->t > max_distance) return std::nullopt;

  ShapeHit hit;
  hit.distance = local->t;
  hit.point = origin + local->t * unit;
  hit.normal = (rot * local->normal).normalized();
  return hit;
}

}  // namespace cl
