// Shipped scenes for tests: load one from scenes/ (failing the test with the loader's message if it does not
// load), and find its bodies and joints by name.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scene/scene.h"
#include "world/world.h"

namespace cl::test {

// The repository's root (the tests are built with CONTACTLAB_SOURCE_DIR).
inline std::filesystem::path source_dir() { return CONTACTLAB_SOURCE_DIR; }

inline World load_shipped_scene(const std::string& name) {
  SceneLoadResult r = load_scene_file((source_dir() / "scenes" / name).string());
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.world);
}

inline int body_named(const World& w, const std::string& name) { return w.find_body(name); }

inline int joint_named(const World& w, const std::string& name) {
  for (size_t i = 0; i < w.joints.size(); ++i)
    if (w.joints[i].name == name) return int(i);
  return -1;
}

}  // namespace cl::test
