// What the viewer's history keeps per step (replay/history.h): a whole copy of a lane's World after 60 steps of a
// shipped scene under each method, its heap (what malloc hands out for it, allocator overhead included) and the
// time the copy takes. `bytes` sizes the history's budget: `steps_in_512MiB` is how many steps of one lane the
// default budget holds.
//
//   ./build/bench/contactlab_bench --benchmark_filter='^WorldCopy'
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_scene.h"
#include "replay/history.h"

namespace {

void WorldCopy(benchmark::State& state, const std::string& scene, const char* solver) {
  cl::World world;
  if (!cl::bench::load_awake(state, scene, solver, world)) return;
  for (int s = 0; s < 60; ++s)
    if (!world.step().ok) {
      state.SkipWithError("the scene stopped in its first 60 steps");
      return;
    }
  const cl::World* lanes[] = {&world};
  uint64_t bytes = 0;
  for (auto _ : state) {
    std::vector<cl::World> copy = cl::copy_worlds(lanes, &bytes);
    benchmark::DoNotOptimize(copy.data());
  }
  state.counters["bytes"] = double(bytes);
  state.counters["bodies"] = double(world.bodies.size());
  state.counters["contacts"] = double(world.contacts().size());
  state.counters["steps_in_512MiB"] = bytes > 0 ? double(cl::StateHistory::kDefaultBudget / bytes) : 0.0;
}

void register_all() {
  for (const char* scene : {"default.json", "excavator.json", "mesh_drop.json", "pyramid20.json", "pile1000.json"})
    for (const char* solver : {"lcp", "implicit-penalty", "volume", "pid-penalty"})
      benchmark::RegisterBenchmark((std::string("WorldCopy/") + scene + "/" + solver).c_str(),
                                   [scene, solver](benchmark::State& s) { WorldCopy(s, scene, solver); })
          ->Unit(benchmark::kMicrosecond);
}

const int registered = (register_all(), 0);

}  // namespace
