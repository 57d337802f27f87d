// Shared by the viewer's GL-free tests (tests/app/*_test.cpp): a session opened on a shipped scene.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "viewer/session.h"

namespace cl::viewer {

// A session on the scene file `path`, opened as the Scene panel does. A scene that does not open throws, which
// GoogleTest reports as the test's failure with the loader's message: the test stops there instead of going on
// with an empty world (and indexing bodies or joints it does not have).
inline AppState open_or_throw(const std::string& path) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  if (!open_scene(app, path, nullptr, &error)) throw std::runtime_error("cannot open " + path + ": " + error);
  return app;
}

// sphere_and_box.json.
inline AppState open_default() {
  return open_or_throw(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/sphere_and_box.json");
}

// The index of the body called `name` (a test failure when there is none).
inline int body_named(const AppState& app, const char* name) {
  const int i = app.scene.world.find_body(name);
  EXPECT_GE(i, 0) << name;
  return i;
}

}  // namespace cl::viewer
