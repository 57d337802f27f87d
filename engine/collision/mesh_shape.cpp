#include "collision/mesh_shape.h"

#include <algorithm>
#include <cmath>

#include "mesh/mass_properties.h"
#include "mesh/point_shell.h"

namespace cl {

std::shared_ptr<MeshShape> make_mesh_shape(TriangleMesh mesh, const MeshShapeOptions& options, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return std::shared_ptr<MeshShape>();
  };
  if (mesh.empty()) return fail("the mesh has no triangles");
  if (!(options.scale > 0) || !std::isfinite(options.scale)) return fail("the scale must be a positive number");
  if (options.sdf_resolution < 4 || options.sdf_resolution > 512) return fail("the resolution must be in [4, 512]");
  scale_mesh(mesh, options.scale);
  const MeshValidation check = validate_mesh(mesh);
  if (!check.ok()) {
    std::string why = "not a closed, outward, manifold mesh";
    for (const std::string& p : check.problems) why += "; " + p;
    return fail(why);
  }
  recentre(mesh);
  const MassProperties props = mass_properties(mesh, 1.0);
  if (!props.valid || !(props.volume > 0)) return fail("the mesh encloses no volume");

  auto shape = std::make_shared<MeshShape>();
  shape->options = options;
  MeshProperties& p = shape->properties;
  p.volume = props.volume;
  p.unit_inertia = props.inertia / props.mass;
  p.local_bounds = mesh.bounds();
  for (const Vec3& v : mesh.vertices) p.bounding_radius = std::max(p.bounding_radius, v.norm());
  // One tree for the ray casts, the closest points and the distance grid's build.
  shape->bvh = TriangleBvh(mesh);
  try {
    SdfOptions sdf;
    sdf.resolution = options.sdf_resolution;
    shape->sdf = SignedDistanceGrid::build(shape->bvh, sdf);
  } catch (const std::exception& e) {
    return fail(std::string("distance field: ") + e.what());
  }
  // The thesis's point re-sampling (thesis sect. 6.2.1) at the grid spacing.
  PointShell shell = thesis_point_shell(mesh, shape->sdf.cell_size());
  shape->points = std::move(shell.points);
  shape->normals = std::move(shell.normals);
  shape->tree = build_sphere_tree(shape->points);
  shape->mesh = std::move(mesh);
  return shape;
}

void set_mesh(Shape& shape, std::shared_ptr<const MeshShape> mesh) {
  shape.type = ShapeType::Mesh;
  shape.mesh_properties = mesh ? mesh->properties : MeshProperties{};
  shape.mesh = std::move(mesh);
}

}  // namespace cl
