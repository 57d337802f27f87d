#include "volume_geometry/exact_volume.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "volume_geometry/sphere_volume.h"

namespace cl::vg {

namespace {

bool primitive(ShapeType t) { return t == ShapeType::Plane || t == ShapeType::Sphere || t == ShapeType::Box; }

// The world half space { p : n . p <= d } of a plane body.
void world_plane(const PosedShape& s, Vec3& n, double& d) {
  n = (s.rotation * s.shape->normal).normalized();
  d = n.dot(s.position) + s.shape->offset;
}

// A contact computed with the bodies the other way round, turned into this pair's: the bodies swap, the normal
// turns, and eq. 20's weights A = n . dV/dp change sign with it.
void swap_bodies(ldi::VolumeContact& c) {
  std::swap(c.body[0], c.body[1]);
  c.normal = -c.normal;
  for (auto& b : c.body) {
    b.area_sum = -b.area_sum;
    b.area_moment = -b.area_moment;
  }
}

}  // namespace

bool has_exact_volume(ShapeType a, ShapeType b) {
  return primitive(a) && primitive(b) && !(a == ShapeType::Plane && b == ShapeType::Plane);
}

ldi::VolumeContact& ExactVolume::next_cell(ExactResult& out, const Aabb& bounds) const {
  if (out.cells_.size() <= out.num_cells_) {
    out.cells_.resize(out.num_cells_ + 1);
    out.bounds_.resize(out.num_cells_ + 1);
  }
  out.bounds_[out.num_cells_] = bounds;
  ldi::VolumeContact& c = out.cells_[out.num_cells_++];
  for (auto& b : c.body) b.gradient.clear();
  return c;
}

bool ExactVolume::compute(const PosedShape& a, const PosedShape& b, const ExactOptions& options, ExactResult& out) {
  out.overlap = false;
  out.num_cells_ = 0;
  out.mono = ldi::VolumeContact{};
  for (auto& list : out.boundary) list.clear();
  const ShapeType ta = a.shape->type, tb = b.shape->type;
  if (!has_exact_volume(ta, tb)) return false;
  // Each kernel takes its shapes in one order (a plane first, a sphere before a box); `swapped` when this pair
  // comes the other way.
  const bool swapped = (tb == ShapeType::Plane) || (ta == ShapeType::Box && tb == ShapeType::Sphere);
  const PosedShape& p = swapped ? b : a;
  const PosedShape& q = swapped ? a : b;
  const Vec3 centre[2] = {p.position, q.position};
  const ShapeType tp = p.shape->type, tq = q.shape->type;
  bool polyhedron = false;
  Vec3 centroid = Vec3::Zero();  // of a cap, a lens or a sphere's part of a box
  if (tq == ShapeType::Box && (tp == ShapeType::Box || tp == ShapeType::Plane)) {
    // The second box cut by the first one's face planes, or by the plane.
    intersection_.set_box(q.position, q.rotation, q.shape->half_extents, FaceOwner::B);
    bool left = true;
    if (tp == ShapeType::Plane) {
      Vec3 n;
      double d;
      world_plane(p, n, d);
      left = intersection_.clip(n, d, FaceOwner::A);
    } else {
      const Vec3& h = p.shape->half_extents;
      for (int k = 0; k < 3 && left; ++k)
        for (double side : {1.0, -1.0}) {
          const Vec3 n = side * p.rotation.col(k);
          left = left && intersection_.clip(n, n.dot(p.position) + h[k], FaceOwner::A);
        }
    }
    if (!left) return true;
    polyhedron_contact(centre, out);
    polyhedron = true;
  } else if (tq == ShapeType::Sphere && tp == ShapeType::Plane) {
    Vec3 n;
    double d;
    world_plane(p, n, d);
    if (!sphere_plane(q.position, q.shape->radius, n, d, p.position, out.mono, out.boundary, centroid)) return true;
  } else if (tp == ShapeType::Sphere && tq == ShapeType::Sphere) {
    if (!sphere_sphere(p.position, p.shape->radius, q.position, q.shape->radius, out.mono, out.boundary, centroid))
      return true;
  } else {  // sphere, box
    if (!sphere_box(p.position, p.shape->radius, q.position, q.rotation, q.shape->half_extents, out.mono,
                    out.boundary, centroid))
      return true;
  }
  out.overlap = true;
  if (options.multi_volume) {
    if (polyhedron) {
      polyhedron_columns(centre, options.rim, out);
    } else if (!out.mono.normal.isZero(0.0)) {
      // A cap or a lens: one volume.
      ldi::VolumeContact& c = next_cell(out, Aabb{centroid, centroid});
      c = out.mono;
      c.cell = {0, 0, 0};
    }
  }
  if (swapped) {
    swap_bodies(out.mono);
    for (std::size_t k = 0; k < out.num_cells_; ++k) swap_bodies(out.cells_[k]);
    std::swap(out.boundary[0], out.boundary[1]);
  }
  return true;
}

// The whole intersection (intersection_) as one volume: sums over its faces, each on body A or B.
void ExactVolume::polyhedron_contact(const Vec3 (&centre)[2], ExactResult& out) const {
  ldi::VolumeContact& c = out.mono;
  const ConvexPolyhedron& I = intersection_;
  Vec3 lin[2] = {Vec3::Zero(), Vec3::Zero()}, ang[2] = {Vec3::Zero(), Vec3::Zero()};
  double total = 0;
  for (const PolyFace& f : I.faces()) {
    if (f.owner == FaceOwner::Wall) continue;
    const FaceArea fa = I.face_area(f);
    const int s = int(f.owner);
    const Vec3 term = fa.area * f.normal;
    lin[s] += term;
    ang[s] += (fa.centroid - centre[s]).cross(term);
    total += fa.area;
    out.boundary[std::size_t(s)].push_back({fa.centroid, term});
  }
  const double volume = I.volume();
  c.volume = volume;
  c.axis_volume = {volume, volume, volume};
  const Vec3 net = lin[0] - lin[1];
  const double len = net.norm();
  c.normal = len > 1e-9 * total ? Vec3(net / len) : Vec3::Zero();
  c.area = 0;
  for (int s = 0; s < 2; ++s) {
    c.body[s].linear = lin[s];
    c.body[s].angular = ang[s];
    c.body[s].area_sum = 0;
    c.body[s].area_moment.setZero();
  }
  // Eq. 20 per face: A = n . n_f times its area, at its centroid; the contact surface estimate from the positive
  // ones (sect. 4.3).
  for (const PolyFace& f : I.faces()) {
    if (f.owner == FaceOwner::Wall) continue;
    const FaceArea fa = I.face_area(f);
    const int s = int(f.owner);
    const double a = c.normal.dot(f.normal) * fa.area;
    c.body[s].area_sum += a;
    c.body[s].area_moment += a * (fa.centroid - centre[s]);
    c.area += std::max(a, 0.0);
  }
  c.exact_deepest = c.normal.isZero(0.0) ? 0.0 : I.extent(c.normal);
}

// The intersection cut into 3 x 3 columns along the normal (see the header): by two planes across each tangent
// direction, a rim fraction of the intersection's extent in from either side.
void ExactVolume::polyhedron_columns(const Vec3 (&centre)[2], double rim, ExactResult& out) {
  const ldi::VolumeContact& mono = out.mono;
  if (mono.normal.isZero(0.0)) return;
  const Vec3 n = mono.normal;
  Vec3 t[2];
  tangent_basis(n, t[0], t[1]);
  const ConvexPolyhedron& I = intersection_;
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (const Vec3& p : I.all_vertices())
    for (int k = 0; k < 2; ++k) {
      lo[k] = std::min(lo[k], t[k].dot(p));
      hi[k] = std::max(hi[k], t[k].dot(p));
    }
  // Column m of axis k is [wall(k, m), wall(k, m + 1)]; the outer walls cut nothing.
  const auto wall = [&](int k, int m) {
    const double width = hi[k] - lo[k];
    return m == 1 ? lo[k] + rim * width : hi[k] - rim * width;
  };
  const auto cut = [&](const ConvexPolyhedron& from, int k, int m, ConvexPolyhedron& to) {
    if (m == 0) return from.clip(t[k], wall(k, 1), FaceOwner::Wall, to);
    if (m == 2) return from.clip(-t[k], -wall(k, 2), FaceOwner::Wall, to);
    return from.clip(-t[k], -wall(k, 1), FaceOwner::Wall, to) && to.clip(t[k], wall(k, 2), FaceOwner::Wall);
  };
  parts_.clear();
  double footprints = 0;
  for (int j = 0; j < 3; ++j) {
    if (!cut(I, 1, j, slab_)) continue;
    for (int i = 0; i < 3; ++i) {
      if (!cut(slab_, 0, i, part_)) continue;
      Part part;
      part.volume = part_.volume(&part.centroid);
      if (!(part.volume > 0)) continue;
      // A convex part's boundary covers its projection on the contact plane twice.
      part.footprint = 0;
      for (const PolyFace& f : part_.faces())
        part.footprint += 0.5 * std::abs(n.dot(f.normal)) * part_.face_area(f).area;
      part.deepest = part_.extent(n);
      part.cell = {i, j, 0};
      part.bounds = part_.bounds();
      parts_.push_back(part);
      footprints += part.footprint;
    }
  }
  if (!(footprints > 0)) return;
  // The columns' pushes add up to the whole intersection's, n . dV/dx_a (its footprint when the first body's
  // part of the boundary lies over it once).
  const double push = n.dot(mono.body[0].linear) / footprints;
  for (const Part& part : parts_) {
    const double share = push * part.footprint;
    if (!(share > 0)) continue;
    ldi::VolumeContact& c = next_cell(out, part.bounds);
    c.volume = part.volume;
    c.axis_volume = {part.volume, part.volume, part.volume};
    c.axis_longest = {0, 0, 0};
    c.exact_deepest = part.deepest;
    c.cell = part.cell;
    c.normal = n;
    c.area = share;
    for (int s = 0; s < 2; ++s) {
      const double sign = s == 0 ? 1.0 : -1.0;
      ldi::BodyTerms& b = c.body[s];
      b.linear = sign * share * n;
      b.angular = (part.centroid - centre[s]).cross(b.linear);
      b.area_sum = sign * share;
      b.area_moment = b.area_sum * (part.centroid - centre[s]);
    }
  }
}

bool line_inside(const PosedShape& s, const Vec3& origin, int axis, double& t0, double& t1) {
  const Vec3 e = Vec3::Unit(axis);
  switch (s.shape->type) {
    case ShapeType::Plane: {
      Vec3 n;
      double d;
      world_plane(s, n, d);
      const double along = n[axis], gap = d - n.dot(origin);
      t0 = -1e300;
      t1 = 1e300;
      if (std::abs(along) < 1e-15) return gap >= 0;
      (along > 0 ? t1 : t0) = gap / along;
      return true;
    }
    case ShapeType::Sphere: {
      const Vec3 r = origin - s.position;
      const double b = r[axis], c = r.squaredNorm() - s.shape->radius * s.shape->radius, disc = b * b - c;
      if (disc <= 0) return false;
      t0 = -b - std::sqrt(disc);
      t1 = -b + std::sqrt(disc);
      return true;
    }
    case ShapeType::Box: {
      const Vec3 o = s.rotation.transpose() * (origin - s.position), dir = s.rotation.transpose() * e;
      t0 = -1e300;
      t1 = 1e300;
      for (int k = 0; k < 3; ++k) {
        const double hk = s.shape->half_extents[k];
        if (std::abs(dir[k]) < 1e-15) {
          if (std::abs(o[k]) > hk) return false;
          continue;
        }
        const double ta = (-hk - o[k]) / dir[k], tb = (hk - o[k]) / dir[k];
        t0 = std::max(t0, std::min(ta, tb));
        t1 = std::min(t1, std::max(ta, tb));
      }
      return t1 > t0;
    }
    default:
      return false;
  }
}

}  // namespace cl::vg
