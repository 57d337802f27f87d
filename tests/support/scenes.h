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

// A kinematic ram (a box 0.6 m deep, 3 m tall, 1 m wide, `max_speed` 1000) scripted along x from x = from to x = to
// at `speed` (it stops there) through a stack of five boxes of 0.5 m and 1 kg ("b0" .. "b4", from the ground up)
// at x = 0; the ram is "ram".
inline std::string ram_scene(double dt, double from, double to, double speed) {
  std::string bodies = R"({"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true})";
  for (int i = 0; i < 5; ++i)
    bodies += R"(, {"name": "b)" + std::to_string(i) + R"(", "shape": {"type": "box", "half_extents": [0.25, 0.25, 0.25]},
                  "mass": 1, "position": [0, )" + std::to_string(0.25 + 0.5 * i) + ", 0]}";
  bodies += R"(, {"name": "ram", "shape": {"type": "box", "half_extents": [0.3, 1.5, 0.5]}, "kinematic": true,
                 "position": [)" + std::to_string(from) + R"(, 1.51, 0]})";
  return R"({"format": 1, "max_speed": 1000, "dt": )" + std::to_string(dt) + R"(, "bodies": [)" + bodies +
         R"(], "scripts": [{"body": "ram", "path": [[)" + std::to_string(from) + ", 1.51, 0], [" +
         std::to_string(to) + R"(, 1.51, 0]], "speed": )" + std::to_string(speed) + R"(, "loop": false}]})";
}

inline int body_named(const World& w, const std::string& name) { return w.find_body(name); }

inline int joint_named(const World& w, const std::string& name) {
  for (size_t i = 0; i < w.joints.size(); ++i)
    if (w.joints[i].name == name) return int(i);
  return -1;
}

}  // namespace cl::test
