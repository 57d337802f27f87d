// pid-penalty against lcp (Drumwright sect. IV-C, the pile; and the 20-row pyramid): the same scene stepped
// headless at its dt under each method's defaults, every body awake (lcp's sleeping off; pid-penalty never
// sleeps). Reported per run: the median and 95th percentile of the step's wall time (ms), the deepest and the mean
// penetration after the first 3 s (m, when the bodies have landed), the kinetic energy at the end (J) and the
// largest distance any body ends from its start (m).
//
//   ./build/bench/contactlab_bench --benchmark_filter=PidVsLcp
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_scene.h"
#include "compare/summary.h"

namespace {

void run_pid_scene(benchmark::State& state, const char* scene, const char* solver, double seconds) {
  // The pyramid lists lcp alone among its methods (the shipped-scene test would take too long under the others);
  // the benchmark runs it under both on purpose.
  cl::World initial;
  if (!cl::bench::load_awake(state, scene, solver, initial)) return;
  const int steps = int(std::lround(seconds / initial.settings.dt));
  const int settled = int(std::lround(3.0 / initial.settings.dt));
  std::vector<double> ms(static_cast<size_t>(steps));
  double deepest = 0, mean_sum = 0, energy = 0, moved = 0;
  for (auto _ : state) {
    cl::World w = initial;
    deepest = mean_sum = 0;
    for (int s = 0; s < steps; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      const bool ok = w.step().ok;
      ms[size_t(s)] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!ok) {
        state.SkipWithError("the step failed (non-finite state or blow-up)");
        return;
      }
      if (s >= settled) {
        deepest = std::max(deepest, w.max_penetration());
        mean_sum += w.mean_penetration();
      }
    }
    energy = w.kinetic_energy();
    moved = 0;
    for (size_t i = 0; i < w.bodies.size(); ++i)
      if (w.bodies[i].is_dynamic()) moved = std::max(moved, (w.bodies[i].position - initial.bodies[i].position).norm());
  }
  state.counters["ms_median"] = cl::quantile(ms, 0.5);
  state.counters["ms_p95"] = cl::quantile(ms, 0.95);
  state.counters["max_penetration_m"] = deepest;
  state.counters["mean_penetration_m"] = steps > settled ? mean_sum / (steps - settled) : 0.0;
  state.counters["kinetic_energy_J"] = energy;
  state.counters["max_moved_m"] = moved;
}

void BM_PidVsLcp_Pile_Lcp(benchmark::State& s) { run_pid_scene(s, "pile.json", "lcp", 10.0); }
void BM_PidVsLcp_Pile_Pid(benchmark::State& s) { run_pid_scene(s, "pile.json", "pid-penalty", 10.0); }
void BM_PidVsLcp_Pyramid20_Lcp(benchmark::State& s) { run_pid_scene(s, "pyramid20.json", "lcp", 5.0); }
void BM_PidVsLcp_Pyramid20_Pid(benchmark::State& s) { run_pid_scene(s, "pyramid20.json", "pid-penalty", 5.0); }

BENCHMARK(BM_PidVsLcp_Pile_Lcp)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PidVsLcp_Pile_Pid)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PidVsLcp_Pyramid20_Lcp)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PidVsLcp_Pyramid20_Pid)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
