// Scaling benchmarks (issue 17): ms per step against the number of bodies, against the iteration count and
// against the number of contacts, for each contact method, and heap memory per body and per contact.
//
//   ./build/bench/contactlab_bench --benchmark_filter='^BM_Scale' --benchmark_out_format=json
//       --benchmark_out=scaling.json      (one command line)
//   /usr/bin/python3 bench/plot_scaling.py scaling.json        (bench/results/scaling.csv, assets/scaling.svg)
//
// The worlds are built here in code, as scenes/generate.py builds pyramid20 and tower20: cubes of 1 m
// (density 1000) resting with zero gaps on a ground plane, friction 0.6, restitution 0, dt 1/60 s, each
// method at its defaults (lcp: 10 iterations, shock propagation on), every body awake (lcp's sleeping off;
// the other methods never sleep).
//
// Series (each run is one benchmark iteration of up to kScalingSteps steps):
// (<method> in the names with '_' for '-'; the label is the method's name)
//   ScalePyramid/<method>/<rows>   pyramids of 10, 20, 30, 40 rows (55, 210, 465, 820 boxes)
//   ScaleTower/<method>/<boxes>    towers of 10, 20, 40, 80 boxes: a second family in which the contacts grow
//   ScaleIterations/<method>/<n>   lcp on the 20-row pyramid and volume on the 10-row one at n iterations
// Counters: bodies (dynamic), contacts_mean (over the steps taken), ms_median and ms_p95 (wall time of one
// World::step), steps (taken), budget_stopped (1 when the time budget ended the run early), and the heap
// measures below.
//
// Time budget: a run stops after kBudgetSeconds of stepping (budget_stopped = 1, the steps it took kept). A run
// is not started, and is reported as skipped "too slow", when the same method's previous size in the series
// took so long per step that even at linear growth in the bodies it would fit fewer than kMinSteps steps in the
// budget: a single step cannot be interrupted, so this is what keeps volume on 820 boxes from hanging the run.
//
// Memory: glibc's mallinfo2() (uordblks, bytes in use in every arena, plus hblkhd, bytes in mmapped chunks) is
// read before copying the prepared world (bodies, materials, solver and its parameters), after the copy, and
// after the steps. heap_world_B / bodies is heap_per_body_B; the growth over the steps (contacts, the contact
// cache of the previous step, the contact graph, the solver's rows and state; what each container holds at the
// end, as its capacity: the heap does not shrink back) divided by the last step's contacts is
// heap_per_contact_B. It counts what the engine keeps, not the transient peak inside a step.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/summary.h"
#include "scene/scene.h"

namespace {

constexpr int kScalingSteps = 120;       // 2 s at 1/60 s
constexpr double kBudgetSeconds = 20.0;  // stepping time a run may take
constexpr int kMinSteps = 5;             // a run expected to fit fewer steps than this in the budget is skipped

// Bytes the allocator has handed out and not had back, over every arena and the mmapped chunks.
double heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return double(m.uordblks) + double(m.hblkhd);
}

nlohmann::json box(const std::string& name, double x, double y) {
  return {{"name", name},
          {"shape", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}},
          {"density", 1000},
          {"position", {x, y, 0.0}}};
}

// A scene document with the ground plane and the given boxes, under `method` at its defaults.
nlohmann::json scene(const std::string& name, const std::string& method, nlohmann::json boxes) {
  nlohmann::json bodies = nlohmann::json::array();
  bodies.push_back({{"name", "ground"},
                    {"shape", {{"type", "plane"}, {"normal", {0, 1, 0}}, {"offset", 0}}},
                    {"fixed", true}});
  for (auto& b : boxes) bodies.push_back(std::move(b));
  return {{"format", 1},
          {"name", name},
          {"gravity", {0, -9.81, 0}},
          {"dt", 1.0 / 60.0},
          {"solver", {{"type", method}}},
          {"materials", {{"default", {{"friction", 0.6}, {"restitution", 0}}}}},
          {"bodies", std::move(bodies)}};
}

// scenes/generate.py's pyramid_rows: row r has rows - r cubes, centred on x = 0, half a box in from the row below.
nlohmann::json pyramid(int rows, const std::string& method) {
  nlohmann::json boxes = nlohmann::json::array();
  for (int r = 0; r < rows; ++r) {
    const int n = rows - r;
    for (int i = 0; i < n; ++i)
      boxes.push_back(box("box_" + std::to_string(r) + "_" + std::to_string(i), i - (n - 1) / 2.0, 0.5 + r));
  }
  return scene("pyramid" + std::to_string(rows), method, std::move(boxes));
}

// scenes/generate.py's tower20 with n boxes: a column of cubes with zero gaps.
nlohmann::json tower(int n, const std::string& method) {
  nlohmann::json boxes = nlohmann::json::array();
  for (int i = 0; i < n; ++i) boxes.push_back(box("box_" + std::to_string(i), 0.0, 0.5 + i));
  return scene("tower" + std::to_string(n), method, std::move(boxes));
}

// The previous run of each series and method: its dynamic bodies and median ms per step, for the "too slow" rule.
struct Previous {
  int bodies = 0;
  double ms_median = 0;
};
std::map<std::string, Previous>& previous_runs() {
  static std::map<std::string, Previous> runs;
  return runs;
}

// Loads `doc`, sets `param` (if any) on its method, and steps it up to kScalingSteps times within the budget.
void run_series(benchmark::State& state, const std::string& series, const std::string& method,
                const nlohmann::json& doc, const char* param = nullptr, double value = 0) {
  cl::SceneLoadResult loaded = cl::load_scene_json(doc, doc["name"].get<std::string>());
  if (!loaded.ok()) {
    state.SkipWithError(loaded.error.c_str());
    return;
  }
  cl::World initial = std::move(loaded.world);
  std::string error;
  if (initial.solver().params().get("sleeping") && !initial.solver().params().set("sleeping", 0, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  if (param && !initial.solver().params().set(param, value, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  state.SetLabel(method);  // the method's registered name (the benchmark's name has '_' for '-')
  int bodies = 0;
  for (const cl::Body& b : initial.bodies) bodies += b.is_dynamic() ? 1 : 0;

  const std::string key = series + "/" + method;
  const auto prev = previous_runs().find(key);
  if (prev != previous_runs().end() && prev->second.bodies > 0) {
    const double expected_ms = prev->second.ms_median * bodies / prev->second.bodies;
    if (expected_ms * kMinSteps > kBudgetSeconds * 1000.0) {
      const std::string why = "too slow: " + std::to_string(prev->second.ms_median) + " ms/step at " +
                              std::to_string(prev->second.bodies) + " bodies, so at least " +
                              std::to_string(expected_ms) + " ms/step expected";
      state.SkipWithError(why.c_str());
      return;
    }
  }

  std::vector<double> ms;
  ms.reserve(kScalingSteps);
  double contacts_sum = 0, last_contacts = 0, heap_world = 0, heap_steps = 0;
  bool stopped = false;
  for (auto _ : state) {
    ms.clear();
    contacts_sum = 0;
    stopped = false;
    const double heap0 = heap_in_use();
    {
      cl::World w = initial;
      const double heap1 = heap_in_use();
      const auto start = std::chrono::steady_clock::now();
      for (int s = 0; s < kScalingSteps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        const cl::StepResult r = w.step();
        const auto t1 = std::chrono::steady_clock::now();
        if (!r.ok) {
          const std::string why = "failed at step " + std::to_string(s + 1) + ": " + r.error;
          state.SkipWithError(why.c_str());
          return;
        }
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        contacts_sum += w.last_stats().contacts;
        if (std::chrono::duration<double>(t1 - start).count() > kBudgetSeconds && s + 1 < kScalingSteps) {
          stopped = true;
          break;
        }
      }
      last_contacts = w.last_stats().contacts;
      heap_world = heap1 - heap0;
      heap_steps = heap_in_use() - heap1;
    }
  }
  const double median = cl::quantile(ms, 0.5);
  previous_runs()[key] = Previous{bodies, median};
  state.counters["bodies"] = bodies;
  state.counters["contacts_mean"] = contacts_sum / double(ms.size());
  state.counters["contacts_last"] = last_contacts;
  state.counters["ms_median"] = median;
  state.counters["ms_p95"] = cl::quantile(ms, 0.95);
  state.counters["steps"] = double(ms.size());
  state.counters["budget_stopped"] = stopped ? 1 : 0;
  state.counters["heap_world_B"] = heap_world;
  state.counters["heap_steps_B"] = heap_steps;
  state.counters["heap_per_body_B"] = heap_world / bodies;
  state.counters["heap_per_contact_B"] = last_contacts > 0 ? heap_steps / last_contacts : 0.0;
}

void BM_ScalePyramid(benchmark::State& state, const char* method) {
  run_series(state, "pyramid", method, pyramid(int(state.range(0)), method));
}
void BM_ScaleTower(benchmark::State& state, const char* method) {
  run_series(state, "tower", method, tower(int(state.range(0)), method));
}
// `iterations` of lcp on the 20-row pyramid, of volume on the 10-row one (volume takes seconds per step on 210).
void BM_ScaleIterations(benchmark::State& state, const char* method) {
  const int rows = std::string(method) == "lcp" ? 20 : 10;
  run_series(state, "iterations", method, pyramid(rows, method), "iterations", double(state.range(0)));
}

// Registered smallest first within each method, so that the "too slow" rule sees the previous size.
BENCHMARK_CAPTURE(BM_ScalePyramid, lcp, "lcp")->Arg(10)->Arg(20)->Arg(30)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalePyramid, implicit_penalty, "implicit-penalty")->Arg(10)->Arg(20)->Arg(30)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalePyramid, volume, "volume")->Arg(10)->Arg(20)->Arg(30)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalePyramid, pid_penalty, "pid-penalty")->Arg(10)->Arg(20)->Arg(30)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleTower, lcp, "lcp")->Arg(10)->Arg(20)->Arg(40)->Arg(80)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleTower, implicit_penalty, "implicit-penalty")->Arg(10)->Arg(20)->Arg(40)->Arg(80)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleTower, volume, "volume")->Arg(10)->Arg(20)->Arg(40)->Arg(80)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleTower, pid_penalty, "pid-penalty")->Arg(10)->Arg(20)->Arg(40)->Arg(80)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleIterations, lcp, "lcp")->Arg(5)->Arg(10)->Arg(20)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScaleIterations, volume, "volume")->Arg(5)->Arg(10)->Arg(20)->Arg(40)
    ->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
