// The mesh shapes of scene files: loading them (a file the scene names, or a procedural generator) within the
// memory budget, sharing each one built, and remembering where it came from, for saving it back and for the
// files a run reads. Kept by the scene layer, so that a MeshShape itself carries geometry only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collision/mesh_shape.h"
#include "core/body.h"
#include "scene/scene_procedural.h"

namespace cl {

class World;

struct MeshSource {
  std::string file;       // as the scene named it; empty for a generated shape
  std::string generator;  // the procedural shape type ("bowl", ...); empty for a file
  ProceduralParams params;  // the generator's parameters as the scene gave them
  std::string path;         // the file read (found next to the scene or in assets/); empty for a generated shape
  std::string grid_cache;   // the distance grid's file in the disk cache ("" without a cache)
  std::uint64_t bytes = 0;  // the memory the shape was estimated to take
};

// Records the source of a shape the scene layer built (process-wide and thread-safe, like the shape cache).
void remember_mesh_source(const std::shared_ptr<const MeshShape>& shape, MeshSource source);
// The source of a shape the scene layer built; nothing for a shape made elsewhere (tests, code).
std::optional<MeshSource> mesh_source(const std::shared_ptr<const MeshShape>& shape);
// A body whose mesh is the procedural "cylinder" (axis along its y axis): its radius and half height (m), for
// writers and peer engines that have cylinders of their own; nothing for any other body.
struct CylinderSize {
  double radius = kCylinderRadius, half_height = kCylinderHalfHeight;
};
std::optional<CylinderSize> procedural_cylinder(const Body& body);
// A mesh body's triangles (body frame, about its centre of mass) when they bound a convex solid, for writers and
// peer engines that take convex shapes; null for any other body or mesh.
const TriangleMesh* convex_mesh(const Body& body);

// The memory that mesh shapes may take together, bytes: set_memory_budget's, else $CONTACTLAB_MEMORY_BUDGET
// (bytes, or with a K, M or G suffix), else half the machine's memory, and never more than three quarters of
// the process's address-space limit (ulimit -v).
std::uint64_t memory_budget();
void set_memory_budget(std::uint64_t bytes);  // 0: back to the default
// Parses a size such as 512M, 4G or 1000000 (bytes); false if it is not one.
bool parse_byte_size(const std::string& text, std::uint64_t& bytes);
// "3.8 GB" for messages.
std::string byte_size_text(std::uint64_t bytes);

// The memory, bytes, that loading and keeping a mesh shape of `triangles` triangles takes at its peak, with a
// distance grid of `resolution` cells along its longest side (an upper bound: a cube's grid).
std::uint64_t mesh_shape_bytes(std::uint64_t triangles, int resolution);

// The mesh shape of the file `name` that the scene file `scene_file` names, found next to the scene, then in
// <source>/assets, <build>/assets and $CONTACTLAB_ASSETS. Null with *error when it is not found, is not a
// regular file, is not a mesh, or would not fit the memory budget; the message never quotes the bytes of a
// file that is not a mesh.
std::shared_ptr<const MeshShape> load_mesh_shape(const std::string& scene_file, const std::string& name,
                                                 const MeshShapeOptions& options, std::string* error);
// The mesh shape of a procedural generator (type "bowl", "rock", ...), within the memory budget.
std::shared_ptr<const MeshShape> procedural_mesh_shape(const std::string& type, const ProceduralParams& params,
                                                       const MeshShapeOptions& options, std::string* error);

// The files a loaded world's mesh shapes were read from, and their distance grids in the disk cache, each with
// what it is, the scene file and its JSON path ("the mesh file of a.json: /bodies/2/shape/file"), for the output
// plan.
struct ReadFile {
  std::string role, path;
};
std::vector<ReadFile> mesh_files_read(const World& world, const std::string& scene_file);

}  // namespace cl
