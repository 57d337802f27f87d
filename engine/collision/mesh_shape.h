// A triangle mesh as a rigid body's shape: the mesh recentred on its centre of mass, with what the contact
// methods need from it, built once and shared (immutable) by every copy of the world: a BVH for ray casts and
// closest points, a signed distance grid, and a point shell (surface samples with normals, digest 7.2).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mesh/bvh.h"
#include "mesh/mesh.h"
#include "mesh/point_shell.h"
#include "sdf/sdf.h"

namespace cl {

struct MeshShapeOptions {
  int sdf_resolution = 48;  // cells along the longest side of the distance grid
  double scale = 1.0;       // applied to the mesh before anything else
};

struct MeshShape {
  std::string source;       // the file name the scene named, for saving (empty for generated meshes)
  std::string generator;    // the procedural shape type that made it ("bowl", ...), empty for files
  std::vector<std::pair<std::string, std::vector<double>>> generator_params;  // as given in the scene
  MeshShapeOptions options;
  TriangleMesh mesh;        // body frame: centre of mass at the origin
  TriangleBvh bvh;
  SignedDistanceGrid sdf;   // negative inside
  std::vector<Vec3> points;   // point shell in the body frame
  std::vector<Vec3> normals;  // outward unit normals of the points
  SphereTree tree;            // over the points, to skip far ones in contact queries (digest 7.3)
  double volume = 0.0;        // m^3
  Mat3 unit_inertia = Mat3::Zero();  // inertia about the centre of mass per kg
  Aabb local_bounds;
  double bounding_radius = 0.0;  // of the vertices about the origin
};

// Builds a mesh shape from a closed mesh (scaled, then recentred on its centre of mass). On failure returns
// null and explains in *error.
std::shared_ptr<MeshShape> make_mesh_shape(TriangleMesh mesh, const std::string& source,
                                           const MeshShapeOptions& options, std::string* error);

}  // namespace cl
