// The scene browser's catalogue (no GL): every file of scenes/ and of its folders (conformance/) with its name,
// description, topic and the method it starts with, grouped by topic, narrowed by a search text; and where each
// scene's thumbnail is cached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cl::viewer {

struct SceneEntry {
  std::string file;         // path in scenes/ ("pile.json", "conformance/bounce.json")
  std::string path;         // <root>/scenes/<file>
  std::string name;         // the scene's "name", else the file's stem
  std::string description;  // the scene's "description" ("" when it has none)
  std::string topic;        // the scene's "topic", else its folder's name in scenes/ ("conformance"), else "Other"
  std::string method;       // the solver it starts with: solver.type, else the first of methods, else lcp
  std::vector<std::string> methods;  // the scene's "methods" (empty: every solver)
  int64_t mtime = 0;        // the file's modification time (ns since the epoch): part of the thumbnail's key
  std::string error;        // why the file could not be read as JSON ("" when it could)
};

struct SceneGroup {
  std::string topic;
  std::vector<int> entries;  // indices into the catalogue, in file-name order
};

// The order of the topics the shipped scenes use (docs/scene-format.md): from a first look to the papers' own
// experiments and the conformance suite. Other topics follow by name.
inline constexpr const char* kTopicOrder[] = {
    "Getting started",      "Stacking",           "Ball grids and mass ratios", "Friction and sliding",
    "Impacts and piles",    "Joints and machines", "Models",                    "Meshes",
    "Implicit penalty paper", "Volume contact paper", "Conformance"};

// Reads the top-level fields of every *.json of <root>/scenes (list_scene_files' order), then of its folders one
// level down (by folder, then file), without loading the scenes (no meshes, no distance fields): fast enough to
// run whenever the browser opens.
std::vector<SceneEntry> scan_scenes(const std::string& root);
// The catalogue's entries that match `search` (any part of the file name, the name, the description, the topic
// or the method, any case; "" matches all), grouped by topic in kTopicOrder, entries in catalogue order.
std::vector<SceneGroup> group_scenes(const std::vector<SceneEntry>& entries, const std::string& search);

// Folder of the thumbnails: $XDG_CACHE_HOME/contactlab/thumbs, else $HOME/.cache/contactlab/thumbs; "" without
// either variable (then thumbnails are drawn but not kept).
std::string thumbnail_dir();
// The cached thumbnail of a scene: <thumbnail_dir>/<stem>-<hash of path and mtime>.png, so that an edited or
// moved file gets a new one. "" when thumbnail_dir() is "".
std::string thumbnail_path(const SceneEntry& entry);

// Thumbnail size in pixels (16:9, as the window).
inline constexpr int kThumbWidth = 160, kThumbHeight = 90;

}  // namespace cl::viewer
