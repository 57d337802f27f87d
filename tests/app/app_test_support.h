// Shared by the viewer's GL-free tests (tests/app/*_test.cpp): a session opened on a shipped scene.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "viewer/session.h"

namespace cl::viewer {

// sphere_and_box.json, opened as the Scene panel does.
inline AppState open_default() {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  EXPECT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/sphere_and_box.json", nullptr, &error))
      << error;
  return app;
}

// The index of the body called `name` (a test failure when there is none).
inline int body_named(const AppState& app, const char* name) {
  const int i = app.scene.world.find_body(name);
  EXPECT_GE(i, 0) << name;
  return i;
}

}  // namespace cl::viewer
