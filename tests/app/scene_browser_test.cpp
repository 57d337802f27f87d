// The scene browser's catalogue (app/viewer/scene_browser.cpp): the shipped scenes with their descriptions, grouped
// by the method they start with, narrowed by the search text; thumbnails keyed by path and modification time.
#include "viewer/scene_browser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "viewer/session.h"

namespace cl::viewer {

namespace {
const SceneEntry* entry_named(const std::vector<SceneEntry>& entries, const std::string& file) {
  for (const SceneEntry& e : entries)
    if (e.file == file) return &e;
  return nullptr;
}
std::vector<std::string> files_of(const std::vector<SceneEntry>& entries, const SceneGroup& g) {
  std::vector<std::string> out;
  for (int i : g.entries) out.push_back(entries[size_t(i)].file);
  return out;
}
}  // namespace

TEST(SceneBrowser, EveryShippedSceneWithItsDescriptionAndMethod) {
  const std::vector<SceneEntry> entries = scan_scenes(CONTACTLAB_SOURCE_DIR);
  ASSERT_EQ(entries.size(), list_scene_files(CONTACTLAB_SOURCE_DIR).size());
  for (const SceneEntry& e : entries) EXPECT_TRUE(e.error.empty()) << e.file << ": " << e.error;
  const SceneEntry* pile = entry_named(entries, "pile.json");
  ASSERT_NE(pile, nullptr);
  EXPECT_EQ(pile->name, "pile");
  EXPECT_NE(pile->description.find("Drumwright"), std::string::npos);
  EXPECT_EQ(pile->method, "lcp");
  EXPECT_EQ(pile->methods, (std::vector<std::string>{"lcp", "volume", "pid-penalty"}));
  EXPECT_EQ(entry_named(entries, "volume_tori.json")->method, "volume");          // solver.type
  EXPECT_EQ(entry_named(entries, "bowl_drop.json")->method, "implicit-penalty");  // its only method
}

TEST(SceneBrowser, GroupsFollowTheRegistryAndTheSearchNarrowsThem) {
  const std::vector<SceneEntry> entries = scan_scenes(CONTACTLAB_SOURCE_DIR);
  const std::vector<SceneGroup> all = group_scenes(entries, "");
  size_t count = 0;
  for (const SceneGroup& g : all) {
    count += g.entries.size();
    for (int i : g.entries) EXPECT_EQ(entries[size_t(i)].method, g.method);
  }
  EXPECT_EQ(count, entries.size());
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().method, "lcp");
  const auto volume = std::find_if(all.begin(), all.end(), [](const SceneGroup& g) { return g.method == "volume"; });
  ASSERT_NE(volume, all.end());
  const std::vector<std::string> volume_files = files_of(entries, *volume);
  EXPECT_NE(std::find(volume_files.begin(), volume_files.end(), "volume_tori.json"), volume_files.end());
  // Any case, in the description too: "DRUMWRIGHT" finds the pile and the pushed block.
  const std::vector<SceneGroup> found = group_scenes(entries, "DRUMWRIGHT");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(files_of(entries, found[0]), (std::vector<std::string>{"pile.json", "pushed_block.json"}));
  EXPECT_TRUE(group_scenes(entries, "no scene has this").empty());
}

TEST(SceneBrowser, ThumbnailsAreKeyedByPathAndModificationTime) {
  const char* saved = std::getenv("XDG_CACHE_HOME");
  const std::string before = saved != nullptr ? saved : "";
  const std::string cache = testing::TempDir() + "/thumb_cache";
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  EXPECT_EQ(thumbnail_dir(), cache + "/contactlab/thumbs");
  SceneEntry e;
  e.file = "pile.json";
  e.path = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/pile.json";
  e.mtime = 1;
  const std::string first = thumbnail_path(e);
  EXPECT_EQ(first.rfind(cache + "/contactlab/thumbs/pile-", 0), 0u) << first;
  EXPECT_EQ(first.substr(first.size() - 4), ".png");
  EXPECT_EQ(thumbnail_path(e), first);
  e.mtime = 2;  // an edited file
  EXPECT_NE(thumbnail_path(e), first);
  e.mtime = 1;
  e.path = testing::TempDir() + "/pile.json";  // another file of that name
  EXPECT_NE(thumbnail_path(e), first);
  if (saved != nullptr) setenv("XDG_CACHE_HOME", before.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
}

}  // namespace cl::viewer
