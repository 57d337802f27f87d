// A shipped scene for a benchmark: loaded from scenes/, under the given method, every body awake (sleeping off
// where the method has it) so that each step does the whole work.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "scene/scene.h"

namespace cl::bench {

// False, with the benchmark skipped and the reason given, when the scene does not load or the method is unknown.
// `solver` null keeps the scene's own method. A benchmark may run a scene under a method its `methods` leaves out.
inline bool load_awake(benchmark::State& state, const std::string& scene, const char* solver, World& out) {
  SceneLoadResult loaded = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + scene);
  if (!loaded.ok()) {
    state.SkipWithError(loaded.error.c_str());
    return false;
  }
  out = std::move(loaded.world);
  out.methods.clear();
  std::string error;
  if ((solver && !out.set_solver(solver, &error)) ||
      (out.solver().params().get("sleeping") && !out.solver().params().set("sleeping", 0, &error))) {
    state.SkipWithError(error.c_str());
    return false;
  }
  return true;
}

}  // namespace cl::bench
