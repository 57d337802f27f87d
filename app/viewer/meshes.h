// Procedural meshes for the primitive shapes, generated once on the CPU at unit size.
// The vertex shader scales them per body: sphere by the radius, box by the half extents, and the
// capsule by the radius with its two hemispheres pushed apart by the half height (`side`), so one
// mesh serves every capsule proportion.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace cl::viewer {

struct MeshVertex {
  glm::vec3 position;  // on the unit shape
  glm::vec3 normal;
  float side;          // capsules: +1 top hemisphere, -1 bottom one (moved by +-half_height); else 0
};

struct MeshData {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;  // triangles, counter-clockwise seen from outside
};

MeshData make_sphere_mesh(int slices, int stacks);
// Like the sphere, with the equator ring doubled: the band between the copies is the cylinder.
MeshData make_capsule_mesh(int slices, int stacks);
MeshData make_box_mesh();  // the cube [-1, 1]^3 with flat faces

}  // namespace cl::viewer
