// implicit-penalty benchmarks (Xu, Zhao, Barbic 2014):
//
//   StableStep/<scene>/<integrator>   the largest stable time step, found by bisection on log(h): a run of
//                                     `seconds` of simulated time is stable if every value stays finite, no
//                                     body sinks deeper than `max_depth` into another and the kinetic energy
//                                     never exceeds the potential energy the bodies can release (plus the
//                                     initial kinetic energy) by more than 20 %. The paper's Fig. 11 reports
//                                     a ratio of 10 between implicit and explicit for the 20 bowls.
//   StepSplit/<scene>                 time per step split into collision (point shells against distance
//                                     fields), forces (contact, friction and servo forces with their
//                                     gradients), assembly (G, Z, joint rows) and solve, with the number of
//                                     contacts; and the slope of the per-step time against the contact count
//                                     over the run (the paper reports time linear in the contacts).
//
//   ContactScaling/<res>              the bolt in its thread with shells at res cells: time per step against the
//                                     contact count from ~1,000 to ~14,000 contacts (paper: linear in N).
//   ContactScalingThreads/res:<res>/threads:<n>   the same on n world threads.
//
//   ./build/bench/contactlab_bench --benchmark_filter=StableStep
//   ./build/bench/contactlab_bench --benchmark_filter=StepSplit
//   ./build/bench/contactlab_bench --benchmark_filter=ContactScaling
//
//   ShellQuery/<res>                  the collision of ContactScaling alone: both point shell queries
//                                     (find_penetrating_points) of the settled bolt and block, repeated.
//   ShellQueryThreads/res:<res>/threads:<n>   the same with the trees' subtrees split among n threads.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "collision/shell_points.h"
#include "core/task_pool.h"
#include "scene/scene.h"
#include "solvers/implicit_penalty/implicit_penalty_solver.h"

namespace {

// The scene, switched to implicit-penalty if it names another solver; false (with the reason) on failure.
bool load_implicit(const std::string& name, cl::World& world, std::string& error) {
  const std::string path = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name;
  cl::SceneLoadResult r = cl::load_scene_file(path);
  if (!r.ok()) {
    error = r.error;
    return false;
  }
  world = std::move(r.world);
  if (world.solver().name() != "implicit-penalty" && !world.set_solver("implicit-penalty", &error)) return false;
  return true;
}

// Runs `seconds` of `initial` at step h; true if it stays stable (see the header).
bool stable(const cl::World& initial, double h, double seconds, double max_depth) {
  cl::World w = initial;
  w.settings.dt = h;
  double potential_min = w.potential_energy();
  const double budget0 = w.kinetic_energy() + w.potential_energy();
  // The energy a run may release: down to the lowest point any body can reach (the ground at y = 0).
  double releasable = 0.0;
  for (const cl::Body& b : w.bodies)
    if (b.is_dynamic()) releasable += b.mass * std::abs(w.settings.gravity.y()) * std::max(0.0, b.position.y());
  const int steps = int(std::ceil(seconds / h));
  for (int s = 0; s < steps; ++s) {
    if (!w.step().ok) return false;
    if (w.last_stats().max_penetration > max_depth) return false;
    potential_min = std::min(potential_min, w.potential_energy());
    if (w.kinetic_energy() > 1.2 * (budget0 - w.potential_energy()) + 0.2 * releasable + 1e-9) return false;
  }
  return true;
}

// Bisection on log h between a stable lower and an unstable upper bound.
double largest_stable_step(const cl::World& initial, double seconds, double max_depth, int* runs) {
  double lo = 1e-6, hi = 0.1;
  if (stable(initial, hi, seconds, max_depth)) return hi;
  *runs = 1;
  for (int i = 0; i < 9; ++i) {
    const double mid = std::sqrt(lo * hi);
    ++*runs;
    (stable(initial, mid, seconds, max_depth) ? lo : hi) = mid;
  }
  return lo;
}

void StableStep(benchmark::State& state, const char* scene, const char* integrator, double seconds,
                double max_depth, const char* gradients = "exact") {
  cl::World initial;
  std::string error;
  if (!load_implicit(scene, initial, error) ||
      !initial.solver().params().set_from_string("integrator", integrator, &error) ||
      !initial.solver().params().set_from_string("gradients", gradients, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  double h = 0;
  int runs = 0;
  for (auto _ : state) h = largest_stable_step(initial, seconds, max_depth, &runs);
  state.counters["stable_dt"] = h;
  state.counters["runs"] = runs;
}

// Bowls: 0.3 m bowls with 3 cm walls (scenes/generate_implicit.py); sinking deeper than the wall means a
// pop-through.
BENCHMARK_CAPTURE(StableStep, bowls20_implicit, "bowls20.json", "implicit", 1.0, 0.03)
    ->Unit(benchmark::kSecond)->Iterations(1);
// Tori: tube radius 0.12 m (assets/torus.obj); sinking a tube radius (0.12 m) into another is a pop-through.
BENCHMARK_CAPTURE(StableStep, torus_stack_implicit, "torus_stack.json", "implicit", 1.5, 0.12)
    ->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StableStep, torus_stack_implicit_approximate, "torus_stack.json", "implicit", 1.5, 0.12,
                  "approximate")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StableStep, torus_stack_explicit, "torus_stack.json", "explicit", 1.5, 0.12)
    ->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StableStep, bowls20_implicit_approximate, "bowls20.json", "implicit", 1.0, 0.03, "approximate")
    ->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StableStep, bowls20_explicit, "bowls20.json", "explicit", 1.0, 0.03)
    ->Unit(benchmark::kSecond)->Iterations(1);

// Per-step sums of a run of `steps` steps of the implicit-penalty world `w`, and each step's contact count and
// collision + force time (ms) for the fit against contacts.
struct Split {
  double collision = 0, forces = 0, assembly = 0, solve = 0, total = 0, contacts = 0, max_contacts = 0;
  std::vector<double> step_contacts, step_ms;
  bool ok = true;
};

Split run_split(cl::World w, int steps) {
  Split r;
  for (int s = 0; s < steps; ++s) {
    if (!w.step().ok) {
      r.ok = false;
      break;
    }
    const auto& p = dynamic_cast<const cl::ImplicitPenaltySolver&>(w.solver()).profile();
    const cl::StepStats& st = w.last_stats();
    r.collision += st.profile.narrow_phase;
    r.forces += 1e3 * p.forces;
    r.assembly += 1e3 * p.assembly;
    r.solve += 1e3 * p.solve;
    r.total += st.profile.total;
    r.contacts += st.contacts;
    r.max_contacts = std::max(r.max_contacts, double(st.contacts));
    r.step_contacts.push_back(st.contacts);
    r.step_ms.push_back(st.profile.narrow_phase + 1e3 * p.forces);
  }
  return r;
}

void StepSplit(benchmark::State& state, const char* scene, double seconds) {
  cl::World initial;
  std::string error;
  if (!load_implicit(scene, initial, error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const int steps = int(std::lround(seconds / initial.settings.dt));
  Split r;
  for (auto _ : state) r = run_split(initial, steps);
  if (!r.ok) state.SkipWithError("non-finite state");
  // Least-squares line ms = a + b contacts over the steps, and its R^2.
  const std::vector<double>& xs = r.step_contacts;
  const std::vector<double>& ys = r.step_ms;
  const double n = double(xs.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) * (xs[i] - mx);
    syy += (ys[i] - my) * (ys[i] - my);
  }
  state.counters["collision_ms"] = r.collision / steps;
  state.counters["forces_ms"] = r.forces / steps;
  state.counters["assembly_ms"] = r.assembly / steps;
  state.counters["solve_ms"] = r.solve / steps;
  state.counters["step_ms"] = r.total / steps;
  state.counters["contacts"] = r.contacts / steps;
  state.counters["max_contacts"] = r.max_contacts;
  state.counters["us_per_contact"] = 1e3 * (sxx > 0 ? sxy / sxx : 0);
  state.counters["r2"] = sxx > 0 && syy > 0 ? sxy * sxy / (sxx * syy) : 0;
}

BENCHMARK_CAPTURE(StepSplit, torus_stack, "torus_stack.json", 3.0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StepSplit, bolt_in_hole, "bolt_in_hole.json", 1.0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StepSplit, bowls20, "bowls20.json", 2.0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StepSplit, bowl_drop, "bowl_drop.json", 2.0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StepSplit, bolt_screwdriver, "bolt_screwdriver.json", 1.0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(StepSplit, excavator, "excavator.json", 2.0)->Unit(benchmark::kSecond)->Iterations(1);

// The bolt in its thread with the bolt's and the block's distance grids (and so their point shells) at `res` cells
// along the longest side, h = 5 ms; false (and the benchmark skipped with the reason) when it does not load.
bool load_bolt_at(benchmark::State& state, int res, cl::World& out) {
  std::ifstream in(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/bolt_in_hole.json");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) {
    state.SkipWithError("scenes/bolt_in_hole.json does not parse");
    return false;
  }
  for (auto& body : doc["bodies"])
    if (body["shape"].contains("resolution")) body["shape"]["resolution"] = res;
  doc["dt"] = 0.005;
  doc["solver"] = {{"type", "implicit-penalty"}, {"params", {{"stiffness", 200000}, {"damping", 20}}}};
  cl::SceneLoadResult r = cl::load_scene_json(doc, "bolt_in_hole.json (resolution " + std::to_string(res) + ")");
  if (!r.ok()) {
    state.SkipWithError(r.error.c_str());
    return false;
  }
  out = std::move(r.world);
  return true;
}

// The paper's claim that contact time is linear in the number of contacts (Fig. 7, the bolt at full
// insertion with 30,000-45,000 contacts), across an order of magnitude: the bolt in its thread with the
// bolt's and the block's distance grids (and so their point shells, resampled at the cell size) at `res`
// cells along the longest side, pressed into the thread flanks by gravity, 0.1 s at h = 5 ms after two
// warm-up steps. Finer grids take a while to build the first time (cached on disk after). Counters as
// StepSplit, per step.
void contact_scaling(benchmark::State& state, int threads) {
  cl::World settled;
  if (!load_bolt_at(state, int(state.range(0)), settled)) return;
  settled.settings.threads = threads;
  const int warmup = 2, steps = 20;  // the first steps build the point shells and their sphere trees
  for (int s = 0; s < warmup; ++s) settled.step();
  Split split;
  for (auto _ : state) split = run_split(settled, steps);
  if (!split.ok) state.SkipWithError("non-finite state");
  state.counters["contacts"] = split.contacts / steps;
  state.counters["collision_ms"] = split.collision / steps;
  state.counters["forces_ms"] = split.forces / steps;
  state.counters["assembly_solve_ms"] = (split.assembly + split.solve) / steps;
  state.counters["step_ms"] = split.total / steps;
  state.counters["us_per_contact"] = split.contacts > 0 ? 1e3 * (split.collision + split.forces) / split.contacts : 0;
}
void ContactScaling(benchmark::State& state) { contact_scaling(state, 1); }
BENCHMARK(ContactScaling)->Arg(64)->Arg(96)->Arg(128)->Arg(192)->Arg(256)->Unit(benchmark::kSecond)->Iterations(1);
// The same on `threads` world threads (WorldSettings::threads: the one pair's shell queries split between them),
// wall time; the results are the same bit for bit as on one.
void ContactScalingThreads(benchmark::State& state) { contact_scaling(state, int(state.range(1))); }
BENCHMARK(ContactScalingThreads)->ArgNames({"res", "threads"})->Args({256, 1})->Args({256, 2})
    ->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// The shell queries of ContactScaling's pair on its own, timed over many repetitions: the bolt's points in the
// block's grid and the block's in the bolt's, at the pose ContactScaling settles to, on `threads` threads (a
// TaskPool: each tree's subtrees split among them, as the world's threads do). Counters: points found, and the
// shells' sizes. The least of the repetitions (`_min`) is the time with the cores least disturbed by other work.
void shell_query(benchmark::State& state, int threads) {
  cl::World w;
  if (!load_bolt_at(state, int(state.range(0)), w)) return;
  for (int s = 0; s < 12; ++s) w.step();  // ContactScaling's warm-up and half its run
  const cl::Body& a = w.bodies[1];  // block
  const cl::Body& b = w.bodies[2];  // bolt
  const auto shell_a = cl::penalty_shell(a.shape, 0.01), shell_b = cl::penalty_shell(b.shape, 0.01);
  const cl::Mat3 ra = a.rotation(), rb = b.rotation();
  std::vector<cl::PenetratingPoint> a_in_b, b_in_a;
  cl::TaskPool pool(threads);
  cl::TaskPool* split = threads > 1 ? &pool : nullptr;
  for (auto _ : state) {
    cl::find_penetrating_points(b.shape, b.position, rb, *shell_a, a.position, ra, a_in_b, 0.0, nullptr, split);
    cl::find_penetrating_points(a.shape, a.position, ra, *shell_b, b.position, rb, b_in_a, 0.0, nullptr, split);
    benchmark::DoNotOptimize(a_in_b.data());
    benchmark::DoNotOptimize(b_in_a.data());
  }
  state.counters["points_found"] = double(a_in_b.size() + b_in_a.size());
  state.counters["shell_points"] = double(shell_a->size() + shell_b->size());
}
double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
void ShellQuery(benchmark::State& state) { shell_query(state, 1); }
BENCHMARK(ShellQuery)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
void ShellQueryThreads(benchmark::State& state) { shell_query(state, int(state.range(1))); }
BENCHMARK(ShellQueryThreads)->ArgNames({"res", "threads"})->Args({256, 1})->Args({256, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(9)->ComputeStatistics("min", least)
    ->ReportAggregatesOnly(true);

}  // namespace
