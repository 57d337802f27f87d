// A triangle mesh as a rigid body's shape: the mesh recentred on its centre of mass, with what the contact
// methods need from it, built once and shared (immutable) by every copy of the world: a BVH for ray casts and
// closest points, a signed distance grid, and a point shell (surface samples with normals, thesis sect. 6.2.1).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/shape.h"
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
  MeshShapeOptions options;
  TriangleMesh mesh;        // body frame: centre of mass at the origin
  TriangleBvh bvh;
  SignedDistanceGrid sdf;   // negative inside
  std::vector<Vec3> points;   // point shell in the body frame
  std::vector<Vec3> normals;  // outward unit normals of the points
  SphereTree tree;            // over the points, to skip far ones in contact queries (thesis sect. 6.2.2)
  MeshProperties properties;  // volume, inertia per kg, bounds
};

// Builds a mesh shape from a closed mesh (scaled, then recentred on its centre of mass). On failure returns
// null and explains in *error.
std::shared_ptr<MeshShape> make_mesh_shape(TriangleMesh mesh, const MeshShapeOptions& options, std::string* error);

// Makes `shape` the mesh body shape of `mesh` (null: a mesh shape with nothing loaded), with its properties.
void set_mesh(Shape& shape, std::shared_ptr<const MeshShape> mesh);

}  // namespace cl
