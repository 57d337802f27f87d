// Bounding volume hierarchy over the triangles of a mesh: ray casts, closest points with angle-weighted
// pseudo-normals, generalized winding numbers, and triangle-triangle overlap between two posed meshes.
//
// The tree is an AABB tree built top-down with a binned surface-area heuristic, stored as a flat node array.
// It keeps its own copy of the mesh, so the mesh passed to the constructor may go away.
#pragma once

#include "mesh/mesh.h"
#include "mesh/triangle.h"

#include <array>
#include <limits>
#include <utility>
#include <vector>

namespace cl {

// Nearest ray hit on a mesh (named MeshRayHit: cl::RayHit is the world ray cast of world/raycast.h).
// hit == false (and triangle == -1) when nothing is hit within [0, max_t].
struct MeshRayHit {
  bool hit = false;
  double t = 0;           // ray parameter: point = origin + t * dir (distance if dir is unit)
  Vec3 point{0, 0, 0};
  int triangle = -1;
  Vec3 normal{0, 0, 0};   // unit face normal of the triangle hit (outward on a valid mesh; not flipped to the ray)
  double u = 0, v = 0;    // barycentric coordinates: point = (1-u-v) a + u b + v c
};

// Closest point on the mesh surface to a query point.
struct ClosestPoint {
  Vec3 point{0, 0, 0};
  int triangle = -1;      // -1 only for an empty mesh (distance is then +infinity)
  double distance = 0;    // unsigned, >= 0
  Vec3 pseudo_normal{0, 0, 0};  // unit; angle-weighted at the feature: face normal, mean of the two face normals
                                // at an edge, angle-weighted vertex normal at a vertex (Baerentzen-Aanaes)
  TriangleFeature feature = TriangleFeature::Face;
  int feature_index = -1;       // Edge: local edge k of the triangle (vertices k, k+1 mod 3); Vertex: mesh vertex
                                // index; Face: -1
};

class TriangleBvh {
 public:
  struct Node {
    Aabb box;
    int left = -1;   // interior: index of the first child (the second is right); leaf: -1
    int right = -1;
    int first = 0;   // leaf: triangles order_[first, first + count)
    int count = 0;
    // For the fast winding number: sum of area normals (x0.5) and their area-weighted centroid, and the radius
    // of the ball around that centroid containing the node's triangles.
    Vec3 area_normal{0, 0, 0};
    Vec3 centroid{0, 0, 0};
    Mat3 moment = Mat3::Zero();  // sum of area * (triangle centroid - centroid) * normal^T (second-order term)
    std::array<Mat3, 3> moment2{Mat3::Zero(), Mat3::Zero(), Mat3::Zero()};  // [k]: sum of n_k * integral of
                                                                           // (x - centroid)(x - centroid)^T dA
    double radius = 0;
    bool is_leaf() const { return left < 0; }
  };

  TriangleBvh() = default;
  // Builds the tree (O(n log n)). An empty mesh gives an empty tree whose queries report no hit.
  explicit TriangleBvh(const TriangleMesh& mesh, int max_leaf_size = 4);

  // Nearest intersection of origin + t dir, t in [0, max_t]; dir need not be unit (t is then in units of |dir|).
  MeshRayHit raycast(const Vec3& origin, const Vec3& dir, double max_t = std::numeric_limits<double>::infinity()) const;
  // Any intersection in [0, max_t]: raycast(origin, dir, max_t).hit.
  bool ray_hits(const Vec3& origin, const Vec3& dir, double max_t) const;

  // Closest point on the surface to p. Ties between triangles are broken towards the lower triangle index.
  ClosestPoint closest_point(const Vec3& p) const;
  // Closest point only if it is within max_distance; otherwise triangle == -1 and distance == +infinity.
  ClosestPoint closest_point(const Vec3& p, double max_distance) const;
  // Signed distance: negative inside a closed outward mesh; sign from the pseudo-normal at the closest feature.
  double signed_distance(const Vec3& p) const;
  // Four points searched together: one walk of the tree serves all four (a subtree is entered when it may hold
  // a closer triangle for any of them), and each triangle reached is tested against the four points at once.
  // For neighbouring points (a 2 x 2 block of a distance grid's nodes, sdf/sdf.h) the four searches visit
  // nearly the same subtrees. Every point starts from the best of the four `hints` (triangle indices, -1 for
  // none, such as the previous block's closest triangles). Each result is what closest_point(p[l]) returns;
  // points may repeat (a block at the grid's edge).
  void closest_points_from(const std::array<Vec3, 4>& p, const std::array<int, 4>& hints,
                           std::array<ClosestPoint, 4>& out) const;
  // Signed distances of four points searched together as above, the closest triangles left in `hints`.
  void signed_distances(const std::array<Vec3, 4>& p, std::array<int, 4>& hints, std::array<double, 4>& out) const;

  // Generalized winding number (1 inside a closed outward mesh, 0 outside, fractional near holes), by the fast
  // hierarchical method (Barill et al. 2018: dipole expansion to third order for nodes whose ball is seen from
  // further than `beta` radii; absolute error typically below 0.01 at beta = 2, falling as beta^-3). beta <= 0 gives the exact O(n) sum.
  double winding_number(const Vec3& p, double beta = 2.0) const;
  double winding_number_exact(const Vec3& p) const { return winding_number(p, 0.0); }

  // All pairs (triangle of this mesh, triangle of other) that overlap when this mesh is placed at pose
  // (pos_a, rot_a) and other at (pos_b, rot_b), both mapping model to world coordinates. If first_only, stops at
  // the first pair found. Touching counts as overlap.
  std::vector<std::pair<int, int>> overlapping_triangles(const Vec3& pos_a, const Quat& rot_a, const TriangleBvh& other,
                                                         const Vec3& pos_b, const Quat& rot_b,
                                                         bool first_only = false) const;
  bool overlaps(const Vec3& pos_a, const Quat& rot_a, const TriangleBvh& other, const Vec3& pos_b,
                const Quat& rot_b) const {
    return !overlapping_triangles(pos_a, rot_a, other, pos_b, rot_b, true).empty();
  }

  const TriangleMesh& mesh() const { return mesh_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // The tree's boxes alone, 64 bytes a node (a cache line), indexed as nodes(): what the walks that need only
  // boxes read (the layered depth images' culling, ldi/intersection_volume.h) instead of the
  // 500-byte Node. Every node, interior or leaf, covers the leaf slots [first, first + count).
  struct BoxNode {
    Vec3 lo, hi;
    int left, right;   // interior: children; leaf: -1, -1
    int first, count;  // leaf slots [first, first + count)
  };
  const std::vector<BoxNode>& box_nodes() const { return box_nodes_; }
  // The triangle of each leaf slot (a permutation of the mesh's triangles).
  const std::vector<int>& leaf_triangles() const { return order_; }
  Aabb bounds() const { return nodes_.empty() ? Aabb{} : nodes_[0].box; }
  // Unit angle-weighted normal at vertex i, and unit normal of edge k (vertices k, k+1) of triangle t.
  const Vec3& vertex_normal(int i) const { return vertex_normals_[i]; }
  const Vec3& edge_normal(int t, int k) const { return edge_normals_[t][k]; }

 private:
  int build(int first, int count, int max_leaf, std::vector<Aabb>& tri_boxes, std::vector<Vec3>& centres);
  // The closest-point search of four points at once (closest_points_from), each below its bound max_d2[l].
  void closest_search(const std::array<Vec3, 4>& p, const std::array<double, 4>& max_d2,
                      const std::array<int, 4>& hints, std::array<ClosestPoint, 4>& out) const;
  friend struct ClosestWalk;  // the search's loop (mesh/bvh_closest.cpp)
  double winding_rec(int node, const Vec3& p, double beta) const;

  TriangleMesh mesh_;
  std::vector<Node> nodes_;
  std::vector<int> order_;  // triangle indices in leaf order
  // What closest-point queries read, apart from the winding-number data of Node: the tree's boxes and children
  // and per leaf slot (order_) its triangle's corners and box, so that a query reads contiguous memory instead of
  // a 500-byte node and three vertex lookups per triangle. The closest-point search walks a four-wide copy of the tree: each node holds up to four children's boxes as
  // floats rounded outwards, laid out by axis so that the four box distances are computed together (two levels
  // of the binary tree per step, half the memory of double boxes). Children: an interior node (count 0), a leaf
  // (slots [child, child + count)), or absent (not in `valid`).
  struct alignas(64) DistanceNode {
    float lo[3][4], hi[3][4];  // [axis][child]
    int child[4];
    int count[4];
    int valid;  // bit k: child k exists
  };
  struct DistanceSlot {
    Vec3 a, b, c, lo, hi;
    int triangle;
  };
  std::vector<DistanceNode> distance_nodes_;
  std::vector<DistanceSlot> distance_slots_;
  std::vector<BoxNode> box_nodes_;  // the binary tree's boxes (box_nodes())
  int distance_depth_ = 0;  // the four-wide tree's depth
  // Collapses binary node `b` and its descendants into four-wide nodes; returns the new node's index.
  int collapse(int b, int depth);
  std::vector<Vec3> face_normals_;
  std::vector<Vec3> vertex_normals_;
  std::vector<std::array<Vec3, 3>> edge_normals_;
};

}  // namespace cl
