// The world's threads (scene key `threads`) in the narrow phase: the same scene stepped on 1 and on 2 threads.
// The results are bit-identical (tests/engine/world/world_test.cpp); this measures what the second thread buys.
// Per run: the median narrow-phase time and the median whole step, over the last two thirds of the steps.
//
//   ./build/bench/contactlab_bench --benchmark_filter=NarrowPhaseThreads
//
// Scenes: bowl_drop (64 bowls under implicit-penalty, point shells against distance fields: collision is most of
// the step) and pile1000 (1,000 primitives under lcp, the shared narrow phase). Timings on a machine shared with
// other work are upper bounds: a worker that is not scheduled holds up the pairs it took.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_scene.h"
#include "compare/summary.h"

namespace {

void run(benchmark::State& state, const char* scene, const char* solver, int steps) {
  cl::World initial;
  if (!cl::bench::load_awake(state, scene, solver, initial)) return;
  initial.settings.threads = int(state.range(0));
  const int skip = steps / 3;
  std::vector<double> narrow, step;
  for (auto _ : state) {
    cl::World w = initial;
    narrow.clear();
    step.clear();
    for (int s = 0; s < steps; ++s) {
      if (!w.step().ok) {
        state.SkipWithError("the run stopped");
        return;
      }
      if (s < skip) continue;
      narrow.push_back(w.last_stats().profile.narrow_phase);
      step.push_back(w.last_stats().profile.total);
    }
  }
  state.counters["narrow_ms"] = cl::quantile(narrow, 0.5);
  state.counters["step_ms"] = cl::quantile(step, 0.5);
}

void BM_NarrowPhaseThreads_BowlDrop(benchmark::State& s) { run(s, "bowl_drop.json", "implicit-penalty", 300); }
void BM_NarrowPhaseThreads_Pile1000(benchmark::State& s) { run(s, "pile1000.json", "lcp", 180); }

BENCHMARK(BM_NarrowPhaseThreads_BowlDrop)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_NarrowPhaseThreads_Pile1000)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
