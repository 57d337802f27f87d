#include "core/shape.h"


#include <limits>
#include <numbers>

namespace cl {

namespace {
constexpr double kPi = std::numbers::pi;
constexpr double kHuge = 1e6;  // half size of a plane's box, m: bigger than any scene, finite for sorting
}  // namespace

std::string_view shape_type_name(ShapeType t) {
  switch (t) {
    case ShapeType::Plane: return "plane";
    case ShapeType::Sphere: return "sphere";
    case ShapeType::Box: return "box";
    case ShapeType::Capsule: return "capsule";
    case ShapeType::Mesh: return "mesh";
  }
  return "unknown";
}

std::optional<ShapeType> shape_type_from_name(std::string_view name) {
  for (int i = 0; i < kShapeTypeCount; ++i)
    if (shape_type_name(ShapeType(i)) == name) return ShapeType(i);
  return std::nullopt;
}

double shape_volume(const Shape& s) {
  switch (s.type) {
    case ShapeType::Plane: return std::numeric_limits<double>::infinity();
    case ShapeType::Sphere: return 4.0 / 3.0 * kPi * s.radius * s.radius * s.radius;
    case ShapeType::Box: return 8.0 * s.half_extents.prod();
    case ShapeType::Capsule:
      return kPi * s.radius * s.radius * (2.0 * s.half_height) + 4.0 / 3.0 * kPi * std::pow(s.radius, 3);
    case ShapeType::Mesh: return s.mesh_properties.volume;
  }
  return 0.0;
}

Mat3 shape_unit_inertia(const Shape& s) {
  switch (s.type) {
    case ShapeType::Plane: return Mat3::Zero();
    case ShapeType::Sphere: return Mat3::Identity() * (0.4 * s.radius * s.radius);
    case ShapeType::Box: {
      const Vec3 e2 = (2.0 * s.half_extents).cwiseAbs2();
      return Vec3(e2.y() + e2.z(), e2.x() + e2.z(), e2.x() + e2.y()).asDiagonal() * (1.0 / 12.0);
    }
    case ShapeType::Capsule: {
      // Cylinder of length 2h plus two hemispheres whose centres of mass sit 3r/8 beyond the segment ends.
      const double r = s.radius, h = s.half_height;
      const double mc = kPi * r * r * 2.0 * h;            // cylinder volume
      const double ms = 4.0 / 3.0 * kPi * r * r * r;      // both hemispheres
      const double m = mc + ms;
      const double axial = mc * (0.5 * r * r) + ms * (0.4 * r * r);
      const double cyl_perp = mc * (0.25 * r * r + (2.0 * h) * (2.0 * h) / 12.0);
      // Each hemisphere: I_own_cm = (83/320) m r^2 about its cm; shift to the capsule centre by (h + 3r/8).
      const double d = h + 3.0 * r / 8.0;
      const double hemi_perp = ms * (83.0 / 320.0 * r * r + d * d);
      const double perp = cyl_perp + hemi_perp;
      return Vec3(perp, axial, perp).asDiagonal() * (1.0 / m);
    }
    case ShapeType::Mesh: return s.mesh_properties.unit_inertia;
  }
  return Mat3::Zero();
}

double shape_bounding_radius(const Shape& s) {
  switch (s.type) {
    case ShapeType::Plane: return std::numeric_limits<double>::infinity();
    case ShapeType::Sphere: return s.radius;
    case ShapeType::Box: return s.half_extents.norm();
    case ShapeType::Capsule: return s.half_height + s.radius;
    case ShapeType::Mesh: return s.mesh_properties.bounding_radius;
  }
  return 0.0;
}

double shape_point_speed(const Shape& s, const Vec3& v, const Vec3& w) {
  // Not turning, a bounded shape's points all move at v (a resting stack's bodies, tested every layer round).
  if (s.type != ShapeType::Plane && w.isZero(0.0)) return v.norm();
  return v.norm() + w.norm() * shape_bounding_radius(s);
}

Aabb shape_aabb(const Shape& s, const Vec3& p, const Quat& q) {
  switch (s.type) {
    case ShapeType::Plane: {
      // A plane's half space is unbounded, except that it is bounded above along an axis-aligned normal.
      Aabb box{Vec3::Constant(-kHuge), Vec3::Constant(kHuge)};
      const Vec3 n = q * s.normal;
      const double top = s.offset + n.dot(p);
      for (int k = 0; k < 3; ++k)
        if (std::abs(n[k]) > 1.0 - 1e-12) (n[k] > 0 ? box.hi[k] : box.lo[k]) = n[k] > 0 ? top : -top;
      return box;
    }
    case ShapeType::Sphere: return {p.array() - s.radius, p.array() + s.radius};
    case ShapeType::Box: {
      const Vec3 ext = q.toRotationMatrix().cwiseAbs() * s.half_extents;
      return {p - ext, p + ext};
    }
    case ShapeType::Capsule: {
      const Vec3 axis = q * Vec3(0, s.half_height, 0);
      const Vec3 ext = axis.cwiseAbs().array() + s.radius;
      return {p - ext, p + ext};
    }
    case ShapeType::Mesh: {
      if (!s.mesh) return {p, p};
      const Aabb& b = s.mesh_properties.local_bounds;
      const Vec3 centre = 0.5 * (b.lo + b.hi), half = 0.5 * (b.hi - b.lo);
      const Mat3 r = q.toRotationMatrix();
      const Vec3 ext = r.cwiseAbs() * half;
      return {p + r * centre - ext, p + r * centre + ext};
    }
  }
  return {};
}

}  // namespace cl
