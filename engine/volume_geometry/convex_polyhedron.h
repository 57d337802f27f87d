// A convex polyhedron kept as its face polygons, cut by half spaces: the exact intersection of two boxes or of a
// box and a half space, and the parts of such an intersection in the cells of the multi-volume grid (Allard et al.
// 2010, sect. 5). Each face remembers the body it lies on, so that the integrals over the faces give the
// intersection volume and its gradient with respect to either body's motion (sect. 3.2: dV/dx of a body is the
// integral of its outward normal over its part of the intersection's boundary).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/math.h"

namespace cl::vg {

// The body a face of an intersection lies on: the pair's first body, its second, or a wall of a grid cell.
enum class FaceOwner : std::int8_t { A = 0, B = 1, Wall = 2 };

struct PolyFace {
  int first = 0, count = 0;    // its vertices, [first, first + count) of the polyhedron's list, counter-clockwise
                               // seen from outside
  Vec3 normal = Vec3::Zero();  // outward, unit
  double offset = 0;           // normal . p for every point p of the face, m
  FaceOwner owner = FaceOwner::A;
};

// Area (m^2) and centroid of one face.
struct FaceArea {
  double area = 0;
  Vec3 centroid = Vec3::Zero();
};

class ConvexPolyhedron {
 public:
  // The box centre + R [-h, h] (h the half extents along the columns of R), every face owned by `owner`. The
  // tolerance of the later cuts is 1e-9 of its diagonal.
  void set_box(const Vec3& centre, const Mat3& rotation, const Vec3& half, FaceOwner owner);
  // The part { p : n . p <= d } (n unit) into `out` (not this), the cut a new face owned by `owner`; the faces
  // keep their owners. False (and `out` empty) when nothing is left but a sliver within the tolerance of the
  // plane. Vertices within the tolerance of the plane count as on it, so a face that lies in the cutting plane
  // (two boxes face to face) is kept, not cut into slivers.
  bool clip(const Vec3& n, double d, FaceOwner owner, ConvexPolyhedron& out) const;
  // The same in place.
  bool clip(const Vec3& n, double d, FaceOwner owner);
  void clear() {
    vertices_.clear();
    faces_.clear();
  }

  bool empty() const { return faces_.empty(); }
  std::span<const PolyFace> faces() const { return faces_; }
  std::span<const Vec3> vertices(const PolyFace& f) const {
    return {vertices_.data() + f.first, std::size_t(f.count)};
  }
  std::span<const Vec3> all_vertices() const { return vertices_; }
  FaceArea face_area(const PolyFace& f) const;
  // Volume (m^3), and its centroid when asked, by the divergence theorem over the faces' triangle fans.
  double volume(Vec3* centroid = nullptr) const;
  Aabb bounds() const;
  // max n . p - min n . p over the vertices, m.
  double extent(const Vec3& n) const;
  // The length of the chord through p along the unit direction n (0 when the line misses), m.
  double chord(const Vec3& p, const Vec3& n) const;
  double tolerance() const { return tolerance_; }

 private:
  std::vector<Vec3> vertices_;  // the faces' vertices, face after face (a vertex shared by faces is repeated)
  std::vector<PolyFace> faces_;
  double tolerance_ = 0;  // m: a vertex this close to a cutting plane is on it
  // Scratch of clip(): the signed distances of the vertices, the points on the cut and their order, and the
  // in-place result before it is swapped in.
  mutable std::vector<double> side_;
  mutable std::vector<Vec3> cut_;
  mutable std::vector<std::pair<double, int>> order_;
  std::vector<Vec3> next_vertices_;
  std::vector<PolyFace> next_faces_;
  bool clip_to(const Vec3& n, double d, FaceOwner owner, std::vector<Vec3>& vertices,
               std::vector<PolyFace>& faces) const;
};

}  // namespace cl::vg
