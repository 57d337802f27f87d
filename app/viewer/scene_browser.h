// The scene browser's catalogue (no GL): every file of scenes/ with its name, description and the method it is
// written for, grouped by that method, narrowed by a search text; and where each scene's thumbnail is cached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cl::viewer {

struct SceneEntry {
  std::string file;         // file name in scenes/ ("pile.json")
  std::string path;         // <root>/scenes/<file>
  std::string name;         // the scene's "name", else the file's stem
  std::string description;  // the scene's "description" ("" when it has none)
  std::string method;       // the solver it starts with: solver.type, else the first of methods, else lcp
  std::vector<std::string> methods;  // the scene's "methods" (empty: every solver)
  int64_t mtime = 0;        // the file's modification time (ns since the epoch): part of the thumbnail's key
  std::string error;        // why the file could not be read as JSON ("" when it could)
};

struct SceneGroup {
  std::string method;        // the solver the group's scenes start with
  std::vector<int> entries;  // indices into the catalogue, in file-name order
};

// Reads the top-level fields of every *.json of <root>/scenes (list_scene_files' order), without loading the
// scenes (no meshes, no distance fields): fast enough to run whenever the browser opens.
std::vector<SceneEntry> scan_scenes(const std::string& root);
// The catalogue's entries that match `search` (any part of the file name, the name, the description or the
// method, any case; "" matches all), grouped by method: the registry's order of methods, entries by file name.
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
