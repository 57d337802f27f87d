// Procedural mesh shapes in scene files: {"type": "bowl" | "torus" | "rock" | "perforated_box" |
// "hex_bolt" | "threaded_block" | "screwdriver", <parameters>, "resolution"}. Each becomes a mesh body built
// by engine/mesh/procedural.h; parameters are optional and default as documented there and in docs/scene-format.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collision/mesh_shape.h"

namespace cl {

// A generator's parameters as (name, values): one value for numbers, three for "half_extents".
using ProceduralParams = std::vector<std::pair<std::string, std::vector<double>>>;

bool is_procedural_shape(std::string_view type);
std::vector<std::string> procedural_shape_names();
// Parameter names a generator takes (without "type" and "resolution").
std::vector<std::string> procedural_param_names(std::string_view type);
// Names taking three numbers.
bool procedural_param_is_vector(std::string_view name);
// The largest value of a parameter that is a whole number (a count or a seed), or 0 for the others.
double procedural_param_whole_max(std::string_view name);
// Builds the mesh; on failure returns an empty mesh and explains in *error (naming the parameter).
TriangleMesh build_procedural(std::string_view type, const ProceduralParams& params, std::string* error);

// The "cylinder" generator's defaults (m); its axis is the body's y axis, as a capsule's.
inline constexpr double kCylinderRadius = 0.1, kCylinderHalfHeight = 0.1;

}  // namespace cl
