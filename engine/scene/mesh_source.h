// Where the mesh shapes of scene files came from, for saving them back: the file the scene named, or the
// procedural generator and its parameters. Kept by the scene layer, beside its cache of built shapes, so that
// a MeshShape itself carries geometry only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collision/mesh_shape.h"
#include "scene/scene_procedural.h"

namespace cl {

struct MeshSource {
  std::string file;       // as the scene named it; empty for a generated shape
  std::string generator;  // the procedural shape type ("bowl", ...); empty for a file
  ProceduralParams params;  // the generator's parameters as the scene gave them
};

// Records the source of a shape the scene layer built (process-wide and thread-safe, like the shape cache).
void remember_mesh_source(const std::shared_ptr<const MeshShape>& shape, MeshSource source);
// The source of a shape the scene layer built; nothing for a shape made elsewhere (tests, code).
std::optional<MeshSource> mesh_source(const std::shared_ptr<const MeshShape>& shape);

}  // namespace cl
