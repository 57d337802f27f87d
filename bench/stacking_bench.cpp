// Stacking benchmarks (issue 2): the 20-row pyramid (210 boxes) and the 20-box tower, headless,
// 600 steps at dt 1/60 with 10 PGS iterations. Reported per repetition: ms per step (wall), the largest
// drift of any box from its start position after the run (m), and the largest penetration seen (m).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "scene/scene.h"

namespace {

cl::World load(const char* name) {
  const std::string path = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name;
  cl::SceneLoadResult r = cl::load_scene_file(path);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.error.c_str());
    std::exit(2);
  }
  return r.world;
}

void run_stack(benchmark::State& state, const char* scene) {
  const cl::World initial = load(scene);
  const int steps = int(state.range(0));
  double ms_per_step = 0, drift = 0, penetration = 0;
  for (auto _ : state) {
    cl::World w = initial;
    penetration = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      if (!w.step().ok) state.SkipWithError("non-finite state");
      penetration = std::max(penetration, w.last_stats().max_penetration);
    }
    ms_per_step = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;
    drift = 0;
    for (size_t i = 0; i < w.bodies.size(); ++i)
      if (w.bodies[i].is_dynamic()) drift = std::max(drift, (w.bodies[i].position - initial.bodies[i].position).norm());
  }
  state.counters["ms_per_step"] = ms_per_step;
  state.counters["max_drift_m"] = drift;
  state.counters["max_penetration_m"] = penetration;
  state.counters["bodies"] = double(initial.bodies.size() - 1);
}

void BM_Pyramid20(benchmark::State& state) { run_stack(state, "pyramid20.json"); }
void BM_Tower20(benchmark::State& state) { run_stack(state, "tower20.json"); }

BENCHMARK(BM_Pyramid20)->Arg(600)->Iterations(1)->Repetitions(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tower20)->Arg(600)->Iterations(1)->Repetitions(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
