// The projected Gauss-Seidel kernel alone (engine/constraints/pgs.cpp): the contact rows of the settled 20-row
// pyramid (210 boxes, about 2,400 contact points, a normal and two friction rows each, as `lcp` builds them in
// its first phase, warm started from the step's impulses), swept 10 times: one row at a time, in vector lanes in
// the given order, in lanes coloured (the order `lcp` uses by default), and coloured on two threads. The first
// two give the same result bit for bit, and so do the last two. Timed on the wall clock per solve, layout
// (blocks, levels, batches, the structure-of-arrays copy) included as in a step; `layout_us` is a solve of no
// sweep, and `ns_per_row_update_in_sweeps` takes its median out: (solve - layout) / (rows x sweeps).
//
//   ./build/bench/contactlab_bench --benchmark_filter='^Pgs'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "compare/summary.h"
#include "constraints/pgs.h"
#include "core/task_pool.h"
#include "scene/scene.h"

namespace {

struct PyramidRows {
  std::vector<cl::Row> rows;
  std::vector<cl::BodyVelocity> u;
};

// The pyramid after 2 s under lcp with every body awake; its contacts become rows as lcp builds them.
const PyramidRows& pyramid_rows() {
  static const PyramidRows built = [] {
    cl::SceneLoadResult r = cl::load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/pyramid20.json");
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.error.c_str());
      std::exit(2);
    }
    cl::World& w = r.world;
    w.solver().params().set("sleeping", 0, nullptr);
    for (int s = 0; s < int(2.0 / w.settings.dt); ++s) w.step();
    PyramidRows out;
    std::vector<cl::InverseMass> masses;
    cl::load_inverse_masses(w.bodies, masses);
    for (const cl::Body& b : w.bodies) out.u.push_back({b.linear_velocity, b.angular_velocity});
    for (const cl::Contact& c : w.contacts()) {
      const cl::Vec3 ra = c.position - w.bodies[size_t(c.a)].position, rb = c.position - w.bodies[size_t(c.b)].position;
      const int first = int(out.rows.size());
      cl::Row n = cl::point_row(c.a, c.b, ra, rb, c.normal);
      n.lo = 0.0;
      n.lambda = c.normal_impulse;
      cl::prepare(n, masses);
      out.rows.push_back(n);
      cl::Vec3 t[2];
      cl::tangent_basis(c.normal, t[0], t[1]);
      for (const cl::Vec3& dir : t) {
        cl::Row f = cl::point_row(c.a, c.b, ra, rb, dir);
        f.normal_row = first;
        f.follows = true;
        f.mu = c.friction;
        f.lambda = c.friction_impulse.dot(dir);
        cl::prepare(f, masses);
        out.rows.push_back(f);
      }
    }
    cl::apply_impulses(out.rows, out.u);
    return out;
  }();
  return built;
}

enum class Mode { OneRow, Lanes, Coloured, ColouredTwoThreads };

void run_pgs(benchmark::State& state, Mode mode) {
  const PyramidRows& p = pyramid_rows();
  cl::PgsSettings settings{int(state.range(0)), 0.0, false};
  settings.lanes = mode != Mode::OneRow;
  settings.coloured = mode == Mode::Coloured || mode == Mode::ColouredTwoThreads;
  static cl::TaskPool pool(2);
  if (mode == Mode::ColouredTwoThreads) settings.pool = &pool;
  std::vector<cl::Row> rows;
  std::vector<cl::BodyVelocity> u;
  int threads = 1;
  // One solve on fresh copies of the rows, timed on the wall clock.
  auto solve = [&](const cl::PgsSettings& s) {
    rows = p.rows;
    u = p.u;
    const auto start = std::chrono::steady_clock::now();
    const cl::PgsResult r = cl::solve_pgs(rows, u, s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    threads = r.threads;
    benchmark::DoNotOptimize(r);
    return seconds;
  };
  // The layout alone: solves of no sweep.
  cl::PgsSettings layout_only = settings;
  layout_only.iterations = 0;
  std::vector<double> layout, whole;
  for (int i = 0; i < 21; ++i) layout.push_back(solve(layout_only));
  for (auto _ : state) {
    whole.push_back(solve(settings));
    state.SetIterationTime(whole.back());
  }
  const double updates = double(p.rows.size()) * settings.iterations;
  state.counters["rows"] = double(p.rows.size());
  state.counters["threads"] = threads;
  const double whole_median = cl::quantile(whole, 0.5);
  const double layout_median = cl::quantile(layout, 0.5);
  state.counters["solve_us"] = whole_median * 1e6;
  state.counters["layout_us"] = layout_median * 1e6;
  // Wall time per row update of the whole solve (layout included) and of the sweeps alone (the layout's median
  // taken out), medians over the benchmark's iterations.
  state.counters["ns_per_row_update"] = whole_median * 1e9 / updates;
  state.counters["ns_per_row_update_in_sweeps"] = (whole_median - layout_median) * 1e9 / updates;
}

void PgsPyramidOneRowAtATime(benchmark::State& state) { run_pgs(state, Mode::OneRow); }
void PgsPyramidLanes(benchmark::State& state) { run_pgs(state, Mode::Lanes); }
void PgsPyramidColoured(benchmark::State& state) { run_pgs(state, Mode::Coloured); }
void PgsPyramidColouredTwoThreads(benchmark::State& state) { run_pgs(state, Mode::ColouredTwoThreads); }

}  // namespace

BENCHMARK(PgsPyramidOneRowAtATime)->Arg(10)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(PgsPyramidLanes)->Arg(10)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(PgsPyramidColoured)->Arg(10)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(PgsPyramidColouredTwoThreads)->Arg(10)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
