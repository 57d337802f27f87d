#include "viewer/scene_browser.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string t) {
  for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

// Reads the fields the browser shows; anything malformed is left at its default (the loader reports it when
// the scene is opened).
void read_fields(SceneEntry& e) {
  std::string text, error;
  constexpr size_t kMaxBytes = size_t(64) << 20;  // as the scene loader
  if (!read_text_file(e.path, kMaxBytes, "scene file", text, error)) {
    e.error = error;
    return;
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    e.error = "not a JSON object";
    return;
  }
  if (const auto it = doc.find("name"); it != doc.end() && it->is_string()) e.name = it->get<std::string>();
  if (const auto it = doc.find("description"); it != doc.end() && it->is_string())
    e.description = it->get<std::string>();
  if (const auto it = doc.find("topic"); it != doc.end() && it->is_string() && !it->get<std::string>().empty())
    e.topic = it->get<std::string>();
  if (const auto it = doc.find("methods"); it != doc.end() && it->is_array())
    for (const auto& m : *it)
      if (m.is_string()) e.methods.push_back(m.get<std::string>());
  if (const auto it = doc.find("solver"); it != doc.end() && it->is_object())
    if (const auto type = it->find("type"); type != it->end() && type->is_string()) e.method = type->get<std::string>();
  // As the loader chooses the starting solver: lcp when the scene allows it, else the first of its methods.
  if (e.method.empty())
    e.method = e.methods.empty() || std::find(e.methods.begin(), e.methods.end(), "lcp") != e.methods.end()
                   ? "lcp"
                   : e.methods.front();
}

}  // namespace

namespace {
SceneEntry scan_entry(const std::string& root, const std::string& file, const std::string& folder) {
  SceneEntry e;
  e.file = file;
  e.path = (fs::path(root) / "scenes" / file).string();
  e.name = fs::path(file).stem().string();
  std::error_code ec;
  const auto time = fs::last_write_time(e.path, ec);
  if (!ec) e.mtime = static_cast<int64_t>(time.time_since_epoch().count());
  read_fields(e);
  if (e.topic.empty()) e.topic = folder.empty() ? "Other" : folder;
  return e;
}
}  // namespace

std::vector<SceneEntry> scan_scenes(const std::string& root) {
  std::vector<SceneEntry> out;
  for (const std::string& file : list_scene_files(root)) out.push_back(scan_entry(root, file, ""));
  std::vector<std::string> folders;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(root) / "scenes", ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path().filename().string());
  std::sort(folders.begin(), folders.end());
  for (const std::string& folder : folders)
    for (const std::string& file : list_json_files((fs::path(root) / "scenes" / folder).string()))
      out.push_back(scan_entry(root, folder + "/" + file, folder));
  return out;
}

std::vector<SceneGroup> group_scenes(const std::vector<SceneEntry>& entries, const std::string& search) {
  const std::string wanted = lower(search);
  std::vector<SceneGroup> groups;
  for (int i = 0; i < int(entries.size()); ++i) {
    const SceneEntry& e = entries[size_t(i)];
    if (!wanted.empty() && lower(e.file + "\n" + e.name + "\n" + e.description + "\n" + e.topic + "\n" + e.method)
                                   .find(wanted) == std::string::npos)
      continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const SceneGroup& s) { return s.topic == e.topic; });
    if (g == groups.end()) {
      groups.push_back({e.topic, {}});
      g = groups.end() - 1;
    }
    g->entries.push_back(i);
  }
  // Known topics in kTopicOrder, the others after them by name.
  auto rank = [](const std::string& topic) {
    const auto it = std::find_if(std::begin(kTopicOrder), std::end(kTopicOrder),
                                 [&](const char* t) { return topic == t; });
    return size_t(it - std::begin(kTopicOrder));
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const SceneGroup& a, const SceneGroup& b) {
    return rank(a.topic) != rank(b.topic) ? rank(a.topic) < rank(b.topic) : a.topic < b.topic;
  });
  return groups;
}

std::string thumbnail_dir() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache != nullptr && *cache != '\0') return (fs::path(cache) / "contactlab" / "thumbs").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return (fs::path(home) / ".cache" / "contactlab" / "thumbs").string();
  return "";
}

std::string thumbnail_path(const SceneEntry& entry) {
  const std::string dir = thumbnail_dir();
  if (dir.empty()) return "";
  // FNV-1a over the absolute path and the modification time.
  std::error_code ec;
  const std::string key = fs::absolute(entry.path, ec).lexically_normal().string() + "\n" + std::to_string(entry.mtime);
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return (fs::path(dir) / (fs::path(entry.file).stem().string() + "-" + hex + ".png")).string();
}

}  // namespace cl::viewer
