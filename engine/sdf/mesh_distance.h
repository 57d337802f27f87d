// Exact unsigned distance and sign to a closed triangle mesh, specialised for filling distance grids.
//
// This is the SDF builder's own closest-point structure (a binary AABB tree over triangles). It exists
// next to the general TriangleBvh of engine/mesh/ because the grid build needs two things a general
// query does not give: a starting triangle (the neighbouring grid node's closest triangle, whose distance is
// a tight upper bound that prunes most of the tree), and the closest *feature* (vertex, edge or face) so the
// sign comes from the angle-weighted pseudo-normal of that feature
// (Baerentzen & Aanaes 2005): sign(d) = sign((p - closest) . n_feature), exact for closed, consistently
// oriented (outward) meshes.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/math.h"

namespace cl::sdf_detail {

struct ClosestFeature {
  double distance2 = 0;   // squared distance from the query to the closest point
  Vec3 point{0, 0, 0};    // closest point on the mesh
  Vec3 pseudo_normal{0, 0, 0};  // angle-weighted pseudo-normal of the closest feature (unnormalised)
  int triangle = -1;      // closest triangle (-1 if nothing was found within the bound)
};

class MeshDistance {
 public:
  // Throws std::invalid_argument on an empty mesh, a vertex index out of range or a non-finite vertex.
  MeshDistance(std::span<const Vec3> vertices, std::span<const std::array<int, 3>> triangles);

  // Closest feature to p among triangles closer than sqrt(bound2); triangle == -1 when there is none.
  ClosestFeature closest(const Vec3& p, double bound2 = std::numeric_limits<double>::infinity()) const;

  // Closest feature, starting from triangle 'hint' (an index in this structure's order, e.g. the previous
  // query's result, or -1): its distance bounds the search, which makes coherent queries cheap.
  ClosestFeature closest_from(const Vec3& p, int hint) const;

  // Signed distance: negative inside (pseudo-normal sign). 'hint' as in closest_from; on return it holds this
  // query's closest triangle.
  double signed_distance(const Vec3& p, int* hint = nullptr) const;

  Aabb bounds() const { return bounds_; }
  std::size_t triangle_count() const { return tri_.size(); }

 private:
  struct Node {
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    int first = 0;  // leaf: first triangle in tri_; inner: index of the left child (right = first + 1)
    int count = 0;  // leaf: triangle count (>0); inner: 0
  };
  struct Tri {
    Vec3 a, b, c, lo, hi;
  };
  struct TriNormals {  // pseudo-normals of the features: vertices a, b, c; edges ab, bc, ca; face
    Vec3 n[7];
  };
  ClosestFeature search(const Vec3& p, ClosestFeature best, int best_feature) const;
  int build(int begin, int end, std::vector<Vec3>& centroids, int depth);
  std::vector<Node> nodes_;
  std::vector<Tri> tri_;
  std::vector<TriNormals> normals_;
  Aabb bounds_;
};

}  // namespace cl::sdf_detail
