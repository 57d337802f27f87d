#include "viewer/meshes.h"

#include <cmath>
#include <numbers>

namespace cl::viewer {

namespace {

// A latitude-longitude sphere from the north pole down. With `capsule`, the rings of the upper
// half get side +1 and an extra copy of the equator starts the lower half with side -1.
MeshData make_round_mesh(int slices, int stacks, bool capsule) {
  MeshData mesh;
  const int half = stacks / 2;
  std::vector<int> ring_stack;  // latitude index of each ring
  std::vector<float> ring_side;
  for (int i = 0; i <= stacks; ++i) {
    if (capsule && i == half) {
      ring_stack.push_back(i);
      ring_side.push_back(1.0f);
      ring_stack.push_back(i);
      ring_side.push_back(-1.0f);
      continue;
    }
    ring_stack.push_back(i);
    ring_side.push_back(capsule ? (i < half ? 1.0f : -1.0f) : 0.0f);
  }
  const int columns = slices + 1;  // the seam is duplicated so each ring is a simple strip
  for (size_t r = 0; r < ring_stack.size(); ++r) {
    const float theta = std::numbers::pi_v<float> * static_cast<float>(ring_stack[r]) / static_cast<float>(stacks);
    for (int j = 0; j < columns; ++j) {
      const float phi = 2.0f * std::numbers::pi_v<float> * static_cast<float>(j) / static_cast<float>(slices);
      const glm::vec3 p(std::sin(theta) * std::cos(phi), std::cos(theta), -std::sin(theta) * std::sin(phi));
      mesh.vertices.push_back({p, p, ring_side[r]});
    }
  }
  for (size_t r = 0; r + 1 < ring_stack.size(); ++r) {
    for (int j = 0; j < slices; ++j) {
      const uint32_t a = static_cast<uint32_t>(r * columns + j), b = a + 1;
      const uint32_t c = a + static_cast<uint32_t>(columns), d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
    }
  }
  return mesh;
}

}  // namespace

MeshData make_sphere_mesh(int slices, int stacks) { return make_round_mesh(slices, stacks, false); }

MeshData make_capsule_mesh(int slices, int stacks) { return make_round_mesh(slices, stacks + stacks % 2, true); }

MeshData make_box_mesh() {
  MeshData mesh;
  // Each face: its normal n and two in-face axes u, v with u x v = n, so (0,1,2),(0,2,3) faces outwards.
  const glm::vec3 normals[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const glm::vec3& n : normals) {
    const glm::vec3 u = std::abs(n.y) > 0.5f ? glm::vec3(0, 0, n.y) : glm::vec3(-n.z, 0, n.x);
    const glm::vec3 v = glm::cross(n, u);
    const uint32_t base = static_cast<uint32_t>(mesh.vertices.size());
    for (const glm::vec2 c : {glm::vec2(-1, -1), glm::vec2(1, -1), glm::vec2(1, 1), glm::vec2(-1, 1)}) {
      mesh.vertices.push_back({n + c.x * u + c.y * v, n, 0.0f});
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return mesh;
}

}  // namespace cl::viewer
