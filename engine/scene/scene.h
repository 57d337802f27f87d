// Scene files (JSON, "format": 1): loading with full validation, saving, and final-state output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "world/world.h"

namespace cl {

struct SceneLoadResult {
  World world;
  std::vector<std::string> warnings;  // e.g. "scene.json: /bodies/2/orientation: normalised (norm was 2)"
  std::string error;                  // "FILE: /json/path: what was expected, what was found"; empty if ok
  bool ok() const { return error.empty(); }
};

// Reads and validates a scene file. Never throws; every problem is reported in `error`.
SceneLoadResult load_scene_file(const std::string& path);
// Same for text already in memory; `file_label` names it in messages.
SceneLoadResult load_scene_text(std::string_view text, const std::string& file_label);
SceneLoadResult load_scene_json(const nlohmann::json& doc, const std::string& file_label);

// The world's description (not its contact cache) in the scene format; loading it back gives the same world.
nlohmann::json scene_to_json(const World& world);
bool save_scene_file(const World& world, const std::string& path, std::string* error);

// {"time": t, "bodies": [{"name", "position", "orientation" [w,x,y,z], "linear_velocity", "angular_velocity"}]}
nlohmann::json state_to_json(const World& world);

}  // namespace cl
