// The projected Gauss-Seidel kernel alone (engine/constraints/pgs.cpp): the contact rows of the settled 20-row
// pyramid (210 boxes, about 2,400 contact points, a normal and two friction rows each, as `lcp` builds them in
// its first phase, warm started from the step's impulses), swept 1 and 10 times. Reported: ns per row update
// (CPU time of the solve over rows x sweeps), with the blocks laid out in vector lanes (the default) and one
// row at a time; both give the same result bit for bit. The layout (levels, batches, the structure-of-arrays
// copy) is inside the timed solve, as in a step: the difference between the 1- and 10-sweep figures
// separates it from the sweeps.
//
//   ./build/bench/contactlab_bench --benchmark_filter='^Pgs' 
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "constraints/pgs.h"
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

void run(benchmark::State& state, bool lanes) {
  const PyramidRows& p = pyramid_rows();
  cl::PgsSettings settings{int(state.range(0)), 0.0, false};
  settings.lanes = lanes;
  std::vector<cl::Row> rows;
  std::vector<cl::BodyVelocity> u;
  for (auto _ : state) {
    state.PauseTiming();
    rows = p.rows;
    u = p.u;
    state.ResumeTiming();
    benchmark::DoNotOptimize(cl::solve_pgs(rows, u, settings));
  }
  state.counters["rows"] = double(p.rows.size());
  state.counters["ns_per_row_update"] =
      benchmark::Counter(double(p.rows.size()) * settings.iterations * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                                               benchmark::Counter::kInvert);
}

void PgsPyramidLanes(benchmark::State& state) { run(state, true); }
void PgsPyramidOneRowAtATime(benchmark::State& state) { run(state, false); }

}  // namespace

BENCHMARK(PgsPyramidLanes)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(PgsPyramidOneRowAtATime)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
