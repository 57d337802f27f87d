// `volume` solver benchmarks (Allard et al. 2010, sect. 6 and its timing table): whole steps of
// scenes/volume_armadillos.json, two scanned armadillos (52,000 triangles each, 1.5 m tall) dropped on each
// other onto the ground. Each run steps the scene for its first 2 s (the drop, the impacts, the sliding
// until they come to rest, which is at about 2.1 s) and averages over the steps that have contacts.
//
//   VolumeArmadillos/multi:M/threads:T   the volume method as the scene sets it (1 cm pixels, 10 cm cells;
//                                        M = 0 one volume per pair, 1 multi-volume) with T rasterising
//                                        threads. Per step: ms_per_step (World::step, wall), steps_per_s,
//                                        and its split from VolumeSolver::profile(): images_ms (layered depth
//                                        images, volumes and gradients), modelling_ms (constraints, their
//                                        Jacobian and friction rows), solve_ms (PGS sweeps of the velocity and
//                                        position MLCPs), other_ms (the rest: broad phase, scripts, updates);
//                                        constraints (volume constraints per step, mean) and max_constraints,
//                                        ldi_per_step (intersection volume evaluations: one per pair and step
//                                        plus one per pair and post-stabilisation iteration), rows_per_step.
//   VolumeArmadillosLcp                  the same scene under `lcp` with its distance-field contacts (point
//                                        shells against 48-cell signed distance grids, default parameters,
//                                        sleeping off): ms_per_step, narrow_ms (contact generation), solve_ms,
//                                        contacts (mean), max_contacts.
//   VolumeSweep/px_mm:P/cell_mm:C        multi-volume at pixel P mm and cell C mm (2 threads): ms_per_step,
//                                        images_ms, constraints, max_constraints. The armadillo is 1.5 m tall,
//                                        so 20/10/5 mm pixels are 75/150/300 pixels across it (the paper's
//                                        images are 280 x 240) and 200/100/50 mm cells 7.5/15/30 cells.
//   VolumeSweepMono/px_mm:P              one volume per pair at pixel P mm.
//
// The paper: 41 steps per second with 7 contacts on average and 16 at most (collision detection 18.5 ms,
// modelling 1.2 ms, solver 4.1 ms on a 2010 GPU and CPU), against 57 steps per second and about 200 contacts
// for distance fields.
//
//   ./build/bench/contactlab_bench --benchmark_filter=Volume      (about a minute; 3 runs each, read the medians)
//
// armadillo.off comes from Debian's libcgal-demo (extracted into the build's assets/ at configure); without it
// the scene does not load and every benchmark here is skipped with the loader's message.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "scene/scene.h"
#include "solvers/volume/volume_solver.h"

namespace {

constexpr int kVolumeSteps = 200;  // 2 s at the scene's h = 0.01 s

// The armadillo scene, loaded once per process, into `out`; false (the benchmark skipped with the loader's
// message) when it does not load.
bool load_armadillos(cl::World& out, benchmark::State& state) {
  static const cl::SceneLoadResult loaded =
      cl::load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_armadillos.json");
  if (!loaded.ok()) {
    state.SkipWithError(loaded.error.c_str());
    return false;
  }
  out = loaded.world;
  return true;
}

bool set(cl::World& w, const char* name, double value, benchmark::State& state) {
  std::string error;
  if (w.solver().params().set(name, value, &error)) return true;
  state.SkipWithError(error.c_str());
  return false;
}

struct VolumeTotals {
  int steps = 0;  // steps with contacts
  double ms = 0, images = 0, modelling = 0, solve = 0, constraints = 0, max_constraints = 0, ldi = 0, rows = 0;
};

// Steps `initial` kVolumeSteps times under its volume solver and sums the steps that have contacts.
VolumeTotals run_volume(const cl::World& initial) {
  cl::World w = initial;
  VolumeTotals t;
  const auto& solver = dynamic_cast<const cl::VolumeSolver&>(w.solver());
  for (int s = 0; s < kVolumeSteps; ++s) {
    const cl::VolumeSolver::Profile before = solver.profile();
    if (!w.step().ok) break;
    const cl::VolumeSolver::Profile& after = solver.profile();
    const cl::StepStats& st = w.last_stats();
    if (st.contacts == 0) continue;
    ++t.steps;
    t.ms += st.profile.total;
    t.images += 1e3 * (after.images_s - before.images_s);
    t.modelling += 1e3 * (after.modelling_s - before.modelling_s);
    t.solve += 1e3 * (after.solve_s - before.solve_s);
    t.constraints += st.contacts;
    t.max_constraints = std::max(t.max_constraints, double(st.contacts));
    t.ldi += double(after.pair_computations - before.pair_computations);
    t.rows += double(after.velocity_rows - before.velocity_rows);
  }
  return t;
}

void report(benchmark::State& state, const VolumeTotals& t) {
  const double n = std::max(1, t.steps);
  state.counters["ms_per_step"] = t.ms / n;
  state.counters["steps_per_s"] = t.ms > 0 ? 1e3 * n / t.ms : 0;
  state.counters["images_ms"] = t.images / n;
  state.counters["modelling_ms"] = t.modelling / n;
  state.counters["solve_ms"] = t.solve / n;
  state.counters["other_ms"] = (t.ms - t.images - t.modelling - t.solve) / n;
  state.counters["constraints"] = t.constraints / n;
  state.counters["max_constraints"] = t.max_constraints;
  state.counters["ldi_per_step"] = t.ldi / n;
  state.counters["rows_per_step"] = t.rows / n;
  state.counters["contact_steps"] = t.steps;
}

// Args: multi-volume (0, 1), threads.
void BM_VolumeArmadillos(benchmark::State& state) {
  cl::World initial;
  if (!load_armadillos(initial, state)) return;
  if (!set(initial, "multi_volume", double(state.range(0)), state) || !set(initial, "threads", double(state.range(1)), state))
    return;
  VolumeTotals t;
  for (auto _ : state) t = run_volume(initial);
  report(state, t);
}
BENCHMARK(BM_VolumeArmadillos)
    ->ArgNames({"multi", "threads"})
    ->Args({1, 2})
    ->Args({0, 2})
    ->Args({1, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->Repetitions(3);

void BM_VolumeArmadillosLcp(benchmark::State& state) {
  cl::World initial;
  if (!load_armadillos(initial, state)) return;
  std::string error;
  if (!initial.set_solver("lcp", &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  if (!set(initial, "sleeping", 0, state)) return;
  int steps = 0;
  double ms = 0, narrow = 0, solve = 0, contacts = 0, max_contacts = 0;
  for (auto _ : state) {
    cl::World w = initial;
    steps = 0;
    ms = narrow = solve = contacts = max_contacts = 0;
    for (int s = 0; s < kVolumeSteps; ++s) {
      if (!w.step().ok) break;
      const cl::StepStats& st = w.last_stats();
      if (st.contacts == 0) continue;
      ++steps;
      ms += st.profile.total;
      narrow += st.profile.narrow_phase;
      solve += st.profile.solve + st.profile.integrate;  // velocities, then positions and error correction
      contacts += st.contacts;
      max_contacts = std::max(max_contacts, double(st.contacts));
    }
  }
  const double n = std::max(1, steps);
  state.counters["ms_per_step"] = ms / n;
  state.counters["steps_per_s"] = ms > 0 ? 1e3 * n / ms : 0;
  state.counters["narrow_ms"] = narrow / n;
  state.counters["solve_ms"] = solve / n;
  state.counters["contacts"] = contacts / n;
  state.counters["max_contacts"] = max_contacts;
  state.counters["contact_steps"] = steps;
}
BENCHMARK(BM_VolumeArmadillosLcp)->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(3);

// Args: pixel and cell size in mm (cell 0: one volume per pair).
void sweep(benchmark::State& state, bool multi) {
  cl::World initial;
  if (!load_armadillos(initial, state)) return;
  if (!set(initial, "pixel_size", 1e-3 * double(state.range(0)), state) ||
      !set(initial, "multi_volume", multi ? 1 : 0, state) || !set(initial, "threads", 2, state))
    return;
  if (multi && !set(initial, "cell_size", 1e-3 * double(state.range(1)), state)) return;
  VolumeTotals t;
  for (auto _ : state) t = run_volume(initial);
  report(state, t);
}

void BM_VolumeSweep(benchmark::State& state) { sweep(state, true); }
BENCHMARK(BM_VolumeSweep)
    ->ArgNames({"px_mm", "cell_mm"})
    ->ArgsProduct({{20, 10, 5}, {200, 100, 50}})
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

void BM_VolumeSweepMono(benchmark::State& state) { sweep(state, false); }
BENCHMARK(BM_VolumeSweepMono)
    ->ArgNames({"px_mm"})
    ->Arg(20)
    ->Arg(10)
    ->Arg(5)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
