// Stacking benchmarks of the lcp solver: scenes from scenes/ stepped headless for 10 s at their dt, with
// the lcp solver's defaults (10 iterations, 5 correction iterations, shock propagation on) and sleeping
// off, so every step does the full work. Reported per repetition: ms per step (wall), the largest drift of
// any body from its start (m), the top body's drift (m) and the deepest penetration seen (m).
//
//   ./build/bench/contactlab_bench                          everything
//   ./build/bench/contactlab_bench --benchmark_filter=Tower  the tower series 10..100
//   ./build/bench/contactlab_bench --benchmark_filter='LargePyramid|Pyramid100'  the 5,050-box pyramids
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <string>

#include "bench_scene.h"

namespace {

// Steps `scene` for 10 s, optionally with one parameter changed; one run per benchmark iteration.
void run_scene(benchmark::State& state, const std::string& scene, const char* param = nullptr, double value = 0) {
  cl::World initial;
  if (!cl::bench::load_awake(state, scene, nullptr, initial)) return;
  if (param && !initial.solver().params().set(param, value, nullptr)) state.SkipWithError("bad parameter");
  const int steps = int(std::lround(10.0 / initial.settings.dt));
  double ms_per_step = 0, drift = 0, top = 0, penetration = 0;
  for (auto _ : state) {
    cl::World w = initial;
    penetration = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      if (!w.step().ok) {
        state.SkipWithError("non-finite state");
        break;
      }
      penetration = std::max(penetration, w.last_stats().max_penetration);
    }
    ms_per_step = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;
    drift = top = 0;
    double top_y = -1e300;
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      if (!w.bodies[i].is_dynamic()) continue;
      const double d = (w.bodies[i].position - initial.bodies[i].position).norm();
      drift = std::max(drift, d);
      if (initial.bodies[i].position.y() > top_y) {
        top_y = initial.bodies[i].position.y();
        top = d;
      }
    }
  }
  state.counters["ms_per_step"] = ms_per_step;
  state.counters["max_drift_m"] = drift;
  state.counters["top_drift_m"] = top;
  state.counters["max_penetration_m"] = penetration;
  state.counters["stands"] = top < 0.01 && penetration < 0.005 ? 1 : 0;
}

void BM_Pyramid20(benchmark::State& s) { run_scene(s, "pyramid20.json"); }
void BM_Pyramid20_PlainPgs(benchmark::State& s) { run_scene(s, "pyramid20.json", "shock_propagation", 0); }
// The same steps with the PGS one row at a time instead of in vector lanes (the results are identical).
void BM_Pyramid20_OneRowAtATime(benchmark::State& s) { run_scene(s, "pyramid20.json", "vector_lanes", 0); }
void BM_Tower(benchmark::State& s) {
  const int n = int(s.range(0));
  run_scene(s, n == 20 ? "tower20.json" : "tower" + std::to_string(n) + ".json");
}
void BM_Tower_PlainPgs(benchmark::State& s) { run_scene(s, "tower20.json", "shock_propagation", 0); }
void BM_Wall200(benchmark::State& s) { run_scene(s, "wall200.json"); }
void BM_Tower320(benchmark::State& s) { run_scene(s, "tower320.json"); }
// The 100-row pyramids of issue 37 (scenes/large/): 5,050 boxes, 10 s each, about 1-2 minutes per run. The
// ratios to Bullet that the targets name are measured by bench/peers/targets.py.
void BM_LargePyramid(benchmark::State& s) { run_scene(s, "large/large_pyramid.json"); }
void BM_LargePyramid_Float(benchmark::State& s) { run_scene(s, "large/large_pyramid.json", "solver_precision", 1); }
void BM_Pyramid100Gaps(benchmark::State& s) { run_scene(s, "large/pyramid100_gaps.json"); }

BENCHMARK(BM_Pyramid20)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pyramid20_PlainPgs)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pyramid20_OneRowAtATime)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tower)->Arg(10)->Arg(20)->Arg(40)->Arg(80)->Arg(100)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tower_PlainPgs)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Wall200)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tower320)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LargePyramid)->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LargePyramid_Float)->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pyramid100Gaps)->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
