// The scene browser's catalogue (app/viewer/scene_browser.cpp): the shipped scenes and the conformance suite with
// their descriptions, grouped by the topic each scene file names, narrowed by the search text; thumbnails keyed by
// path and modification time.
#include "viewer/scene_browser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "viewer/session.h"
#include "support/scratch.h"

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

TEST(SceneBrowser, EveryShippedSceneWithItsDescriptionTopicAndMethod) {
  const std::vector<SceneEntry> entries = scan_scenes(CONTACTLAB_SOURCE_DIR);
  const std::vector<std::string> top = list_scene_files(CONTACTLAB_SOURCE_DIR);
  size_t conformance = 0, models = 0, large = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance"))
    conformance += f.path().extension() == ".json";
  for (const auto& f : std::filesystem::directory_iterator(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/models"))
    models += f.path().extension() == ".json";
  for (const auto& f : std::filesystem::directory_iterator(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/large"))
    large += f.path().extension() == ".json";
  ASSERT_GT(conformance, 10u);
  ASSERT_EQ(large, 2u);  // the 100-row pyramids of the speed benchmarks (scenes/generate_large.py)
  ASSERT_EQ(models, 6u);  // the gripper, walker and arm, each from its URDF and its MJCF
  ASSERT_EQ(entries.size(), top.size() + conformance + models + large);
  for (size_t i = 0; i < top.size(); ++i) EXPECT_EQ(entries[i].file, top[i]);  // scenes/ first, as listed
  for (const SceneEntry& e : entries) {
    EXPECT_TRUE(e.error.empty()) << e.file << ": " << e.error;
    // Every shipped scene names a topic of the known order (docs/scene-format.md).
    EXPECT_NE(std::find_if(std::begin(kTopicOrder), std::end(kTopicOrder), [&](const char* t) { return e.topic == t; }),
              std::end(kTopicOrder))
        << e.file << ": " << e.topic;
  }
  const SceneEntry* bounce = entry_named(entries, "conformance/bounce.json");
  ASSERT_NE(bounce, nullptr);
  EXPECT_EQ(bounce->topic, "Conformance");
  EXPECT_EQ(bounce->path, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance/bounce.json");
  EXPECT_EQ(entry_named(entries, "tower20.json")->topic, "Stacking");
  const SceneEntry* pile = entry_named(entries, "pile.json");
  ASSERT_NE(pile, nullptr);
  EXPECT_EQ(pile->name, "pile");
  EXPECT_NE(pile->description.find("Drumwright"), std::string::npos);
  EXPECT_EQ(pile->method, "lcp");
  EXPECT_TRUE(pile->methods.empty());  // every method runs every shipped scene
  EXPECT_EQ(entry_named(entries, "volume_tori.json")->method, "volume");          // solver.type
  EXPECT_EQ(entry_named(entries, "bowl_drop.json")->method, "implicit-penalty");
}

TEST(SceneBrowser, GroupsFollowTheTopicsAndTheSearchNarrowsThem) {
  const std::vector<SceneEntry> entries = scan_scenes(CONTACTLAB_SOURCE_DIR);
  const std::vector<SceneGroup> all = group_scenes(entries, "");
  size_t count = 0, largest = 0;
  for (const SceneGroup& g : all) {
    count += g.entries.size();
    largest = std::max(largest, g.entries.size());
    for (int i : g.entries) EXPECT_EQ(entries[size_t(i)].topic, g.topic);
  }
  EXPECT_EQ(count, entries.size());
  // Every topic of the order has scenes, in that order; none takes a third of the catalogue.
  ASSERT_EQ(all.size(), std::size(kTopicOrder));
  for (size_t k = 0; k < all.size(); ++k) EXPECT_EQ(all[k].topic, kTopicOrder[k]);
  EXPECT_LT(3 * largest, entries.size());
  const std::vector<std::string> first = files_of(entries, all.front());
  EXPECT_NE(std::find(first.begin(), first.end(), "default.json"), first.end());
  // Any case, in the description too: "DRUMWRIGHT" finds the pile and the pushed block, in their two topics.
  const std::vector<SceneGroup> found = group_scenes(entries, "DRUMWRIGHT");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].topic, "Friction and sliding");
  EXPECT_EQ(files_of(entries, found[0]), (std::vector<std::string>{"pushed_block.json"}));
  EXPECT_EQ(files_of(entries, found[1]), (std::vector<std::string>{"pile.json"}));
  // The topic is searched too.
  const std::vector<SceneGroup> meshes = group_scenes(entries, "MESHES");
  const auto group = std::find_if(meshes.begin(), meshes.end(), [](const SceneGroup& g) { return g.topic == "Meshes"; });
  ASSERT_NE(group, meshes.end());
  EXPECT_EQ(group->entries.size(), std::find_if(all.begin(), all.end(), [](const SceneGroup& g) {
                                     return g.topic == "Meshes";
                                   })->entries.size());
  EXPECT_TRUE(group_scenes(entries, "no scene has this").empty());
}

// A scene without a topic goes to its folder's group, or to "Other" at the top level, after the known topics.
TEST(SceneBrowser, AFileWithoutATopicTakesItsFolderOrOther) {
  const std::string root = cl::test::scratch_path("browser_root");
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root + "/scenes/extra");
  std::ofstream(root + "/scenes/a.json") << R"({"name": "a", "topic": "Stacking"})";
  std::ofstream(root + "/scenes/b.json") << R"({"name": "b", "methods": ["volume", "pid-penalty"]})";
  std::ofstream(root + "/scenes/extra/c.json") << R"({"name": "c"})";
  const std::vector<SceneEntry> entries = scan_scenes(root);
  ASSERT_EQ(entries.size(), 3u);
  // A user's scene that names its methods starts with the first of them and lists them.
  EXPECT_EQ(entries[1].methods, (std::vector<std::string>{"volume", "pid-penalty"}));
  EXPECT_EQ(entries[1].method, "volume");
  EXPECT_EQ(entries[2].file, "extra/c.json");
  const std::vector<SceneGroup> groups = group_scenes(entries, "");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].topic, "Stacking");
  EXPECT_EQ(groups[1].topic, "Other");
  EXPECT_EQ(groups[2].topic, "extra");
  std::filesystem::remove_all(root);
}

TEST(SceneBrowser, ThumbnailsAreKeyedByPathAndModificationTime) {
  const char* saved = std::getenv("XDG_CACHE_HOME");
  const std::string before = saved != nullptr ? saved : "";
  const std::string cache = cl::test::scratch_path("thumb_cache");
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
  e.path = cl::test::scratch_path("pile.json");  // another file of that name
  EXPECT_NE(thumbnail_path(e), first);
  if (saved != nullptr) setenv("XDG_CACHE_HOME", before.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
}

}  // namespace cl::viewer
