// The world's threads (scene key `threads`) in the narrow phase: the same scene stepped on 1 and on 2 threads.
// The results are bit-identical (tests/engine/world/world_test.cpp); this measures what the second thread buys.
// Per run: the median narrow-phase time and the median whole step, over the last two thirds of the steps.
//
//   ./build/bench/contactlab_bench --benchmark_filter=NarrowPhaseThreads
//
// Scenes: bowl_drop (64 bowls under implicit-penalty, point shells against distance fields: collision is most of
// the step) and pile1000 (1,000 primitives under lcp, the shared narrow phase). Timings on a machine shared with
// other work are upper bounds: a worker that is not scheduled holds up the pairs it took.
//
// StageHandoff (at the end): the hand-off of short stages to the second thread, TaskPool::run against StageRun.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_scene.h"
#include "compare/summary.h"
#include "core/stage_run.h"

namespace {

void step_scene(benchmark::State& state, const char* scene, const char* solver, int steps) {
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

void BM_NarrowPhaseThreads_BowlDrop(benchmark::State& s) { step_scene(s, "bowl_drop.json", "implicit-penalty", 300); }
void BM_NarrowPhaseThreads_Pile1000(benchmark::State& s) { step_scene(s, "pile1000.json", "lcp", 180); }

BENCHMARK(BM_NarrowPhaseThreads_BowlDrop)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_NarrowPhaseThreads_Pile1000)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);


// The hand-off of short parallel stages to a second thread: a run of two tasks of about 11 us each (a spin on the
// clock), 30 us of serial work apart, as TaskPool::run (the sleeping worker woken for each run) and as stages of one
// StageRun (the worker woken once, then waiting for each stage by spinning; core/stage_run.h), which the depth images
// use. Counters: median_us, the median of a run or stage over 2,000 (about 11 us when the second task ran beside the
// first, about 22 when one thread ran both), and helped, the share of the tasks the second thread took. On a machine
// whose other core is busy the worker is not scheduled in time and both read about 2 x 11 us.
//
//   ./build/bench/contactlab_bench --benchmark_filter=StageHandoff
void spin_for(double us) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() < us) {
  }
}

void BM_StageHandoff(benchmark::State& state) {
  const bool stages = state.range(0) != 0;
  constexpr int kRuns = 2000, kPerStageRun = 10;
  constexpr double kTask = 11, kGap = 30;
  cl::TaskPool pool(2);
  std::vector<double> us;
  long helped = 0;
  for (auto _ : state) {
    us.clear();
    helped = 0;
    auto timed = [&](auto&& run_two) {
      const auto start = std::chrono::steady_clock::now();
      run_two();
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      spin_for(kGap);
    };
    if (!stages) {
      for (int r = 0; r < kRuns; ++r)
        timed([&] {
          pool.run(2, [&](int, int worker) {
            spin_for(kTask);
            if (worker != 0) __atomic_fetch_add(&helped, 1, __ATOMIC_RELAXED);
          });
        });
    } else {
      for (int r = 0; r < kRuns / kPerStageRun; ++r)
        cl::run_stages(pool, [&](cl::StageRun& st) {
          for (int s = 0; s < kPerStageRun; ++s)
            timed([&] {
              st.parallel(2, [&](int, int worker) {
                spin_for(kTask);
                if (worker != st.driver()) __atomic_fetch_add(&helped, 1, __ATOMIC_RELAXED);
              });
            });
        });
    }
  }
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us.empty() ? 0 : us[us.size() / 2];
  state.counters["helped"] = double(helped) / (2.0 * kRuns);
}
BENCHMARK(BM_StageHandoff)->ArgNames({"stage_run"})->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
