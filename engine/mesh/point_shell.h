// Point shells: surface samples with outward unit normals, for signed-distance-map contact (thesis sect. 6.2-6.3),
// and a sphere tree over them for fast rejection of far points (thesis sect. 6.2.2).
#pragma once

#include "mesh/mesh.h"

#include <cstdint>
#include <vector>

namespace cl {

struct PointShell {
  std::vector<Vec3> points;   // in the mesh frame
  std::vector<Vec3> normals;  // unit, outward; same size as points
  size_t size() const { return points.size(); }
};

// The mesh vertices with area-weighted vertex normals (sum of the incident triangles' area normals, normalised).
// Vertices used by no triangle, or whose normals cancel, are left out.
PointShell vertex_point_shell(const TriangleMesh& mesh);

// Even resampling by Poisson-disk dart throwing: candidates drawn uniformly over the surface (triangles chosen by
// area), accepted when no accepted sample lies closer than `spacing` (Euclidean, metres). Normals are the face
// normals. Deterministic for a given seed on every platform (own splitmix64 generator). `candidates_per_area`
// candidates are drawn per spacing^2 of surface area (30 gives a nearly maximal packing); the candidate count is
// capped at 20 million. An empty mesh or spacing <= 0 gives an empty shell.
PointShell poisson_point_shell(const TriangleMesh& mesh, double spacing, std::uint64_t seed = 1,
                               double candidates_per_area = 30.0);

// The thesis's re-sampling (thesis sect. 6.2.1), for a closed mesh:
//  1. vertices with at least one non-coplanar (convex or concave) or boundary incident edge, with angle-weighted
//     normals;
//  2. on each non-coplanar edge longer than `spacing`, interior samples at most `spacing` apart (normal: mean of
//     the two face normals);
//  3. for each coplanar region (BFS over edges whose faces differ by at most coplanar_angle_deg) whose area
//     exceeds face_area_factor * spacing^2, one sample at the mean of the region's vertices (the thesis's
//     "centroid"; for a non-convex region it may lie off the region) with the region's normal.
// The thesis uses spacing = max(user threshold, grid cell diagonal), i.e. a cell face area of spacing^2 / 3, and
// leaves "significantly larger" unquantified: face_area_factor = 1 means three cell faces.
PointShell thesis_point_shell(const TriangleMesh& mesh, double spacing, double coplanar_angle_deg = 1.0,
                              double face_area_factor = 1.0);

// Sphere tree over points (thesis sect. 6.2.2): top-down octree split about the mean of a node's points, one child per
// non-empty octant; a node of 8 or fewer points gets one single-point leaf (radius 0) per point. Each node's ball
// encloses all of its points but is Ritter's approximate bounding ball (typically 5-20% larger than the minimum
// enclosing ball of Welzl's algorithm the thesis uses), slightly padded for rounding.
struct SphereTree {
  struct Node {
    Vec3 centre{0, 0, 0};
    double radius = 0;
    int first_child = -1;  // children are nodes [first_child, first_child + child_count); -1 for a leaf
    int child_count = 0;
    int point = -1;        // leaf: index of its point; interior: -1
    bool is_leaf() const { return first_child < 0; }
  };
  std::vector<Node> nodes;  // nodes[0] is the root; empty for no points
};
SphereTree build_sphere_tree(const std::vector<Vec3>& points);

// Ritter's approximate bounding ball of points[indices] (all points if indices is empty). Returns radius 0 and the
// point itself for a single point; centre 0, radius -1 for no points.
void ritter_ball(const std::vector<Vec3>& points, const std::vector<int>& indices, Vec3& centre, double& radius);

}  // namespace cl
