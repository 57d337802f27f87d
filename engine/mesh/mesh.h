// Triangle meshes: storage, loading (OBJ, OFF), validation and orientation repair, recentring and scaling.
//
// Units: coordinates are in the file's units (metres in scenes). Triangles are counter-clockwise seen from
// outside, so the face normal (b - a) x (c - a) points outward on a valid closed mesh.
#pragma once

#include "core/math.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cl {

struct TriangleMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;  // indices into vertices, counter-clockwise seen from outside

  bool empty() const { return triangles.empty(); }
  // (b - a) x (c - a): twice the area times the unit normal. Zero for a degenerate triangle.
  Vec3 area_normal(int t) const;
  // Unit outward normal of triangle t; (0, 0, 0) if the triangle is degenerate.
  Vec3 normal(int t) const;
  double area(int t) const;
  double surface_area() const;
  // Bounding box of the vertices; lo = hi = 0 for a mesh without vertices.
  Aabb bounds() const;
  // Whether the closed mesh bounds a convex solid: every vertex lies on or behind the plane of every triangle,
  // to within a millionth of the bounding box's diagonal (a mesh file's rounding).
  bool convex() const;
};

// Options of load_mesh. The defaults reject everything a rigid body cannot use.
// A mesh file larger than this is refused unread (the largest scanned mesh shipped is a few MB).
constexpr size_t kMaxMeshFileBytes = size_t(256) << 20;

struct MeshLoadOptions {
  bool require_closed = true;     // boundary edges (open mesh) are an error; false: a warning
  bool require_manifold = true;   // edges shared by more than 2 triangles are an error; false: a warning
  bool drop_degenerate = false;   // degenerate triangles are an error; true: dropped with a warning
  bool repair_orientation = true; // inconsistent or inside-out orientation is flipped with a warning; false: error
};

// Result of loading a mesh. Never throws: on failure `error` is non-empty ("path:line: message" when a line is
// to blame, else "path: message") and `mesh` is empty. Repairs (flipped triangles, dropped degenerate ones,
// ignored OBJ statements) are reported in `warnings`, each naming the file.
struct MeshLoadResult {
  TriangleMesh mesh;
  std::vector<std::string> warnings;
  std::string error;
  bool ok() const { return error.empty(); }
};

// Loads a Wavefront OBJ (.obj) or Object File Format (.off, also COFF/NOFF) mesh, chosen by extension (content
// sniffed when the extension is unknown). OBJ: `v` statements (read by tinyobjloader) and `f` (or `fo`)
// statements; faces may use v, v/vt, v//vn, v/vt/vn and negative (relative) indices; comments and `\` line
// continuations are handled, the other standard statements ignored (lines and points with a warning), unknown
// statements are errors. OFF is read by our own parser. Polygons of both are triangulated by
// triangulate_polygon (a polygon it cannot triangulate is an error naming its line). Files that are not
// regular files, larger than kMaxMeshFileBytes or holding a NUL byte are refused.
// Checks, in order: readable, non-empty, finite coordinates, valid indices, no degenerate triangles, closed,
// manifold, consistent and outward orientation (see MeshLoadOptions). Vertices referenced by no triangle are
// kept (a warning is given).
MeshLoadResult load_mesh(const std::string& path, const MeshLoadOptions& options = {});
// The same from text in memory; `name` is used in messages; `format` is "obj" or "off".
MeshLoadResult load_mesh_from_string(const std::string& text, const std::string& format, const std::string& name,
                                     const MeshLoadOptions& options = {});

// Topological and geometric state of a mesh.
struct MeshValidation {
  int non_finite_vertices = 0;
  int bad_indices = 0;            // triangles with an index out of range
  int degenerate_triangles = 0;   // repeated index or area below 1e-12 * (bounding box diagonal)^2
  int boundary_edges = 0;         // edges used by exactly one triangle
  int non_manifold_edges = 0;     // edges used by more than two triangles
  int inconsistent_edges = 0;     // interior edges traversed in the same direction by both triangles
  int unreferenced_vertices = 0;
  int components = 0;             // edge-connected components of triangles
  double signed_volume = 0;       // from the divergence theorem; > 0 for a closed outward mesh
  std::vector<std::string> problems;  // one human-readable line per kind of problem found
  bool closed() const { return boundary_edges == 0 && non_manifold_edges == 0; }
  // Usable as a rigid body: finite, valid, non-degenerate, closed, manifold, consistently oriented, outward.
  bool ok() const {
    return non_finite_vertices == 0 && bad_indices == 0 && degenerate_triangles == 0 && closed() &&
           inconsistent_edges == 0 && signed_volume > 0 && !empty_mesh;
  }
  bool empty_mesh = false;
};

// Checks a mesh without changing it. Never throws.
MeshValidation validate_mesh(const TriangleMesh& mesh);

// Makes the orientation of every edge-connected, manifold component consistent (by flipping triangles), then
// orients each closed component outward (inner shells of a hollow body inward). Returns the number of
// triangles flipped; sets *non_orientable when some component cannot be oriented (e.g. a Moebius strip).
int orient_mesh(TriangleMesh& mesh, bool* non_orientable = nullptr);

// Translates the mesh so its centre of mass (uniform density, closed mesh) is at the origin. Returns the
// translation applied (minus the old centre of mass). For a mesh without positive volume, the area centroid of
// the surface is used instead.
Vec3 recentre(TriangleMesh& mesh);
// Multiplies every coordinate by s (uniform) or by s componentwise. A negative determinant flips the triangles
// so the mesh stays outward.
void scale_mesh(TriangleMesh& mesh, double s);
void scale_mesh(TriangleMesh& mesh, const Vec3& s);
// Applies x -> R x + t to every vertex.
void transform_mesh(TriangleMesh& mesh, const Quat& rotation, const Vec3& translation);

// The key of the undirected edge between vertices a and b: the same for (a, b) and (b, a).
inline std::uint64_t undirected_edge_key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

}  // namespace cl
