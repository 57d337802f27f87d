// Signed distance grid benchmarks: building a 128^3 field for the armadillo, and value+gradient
// queries of points transformed from another body's frame (the contact loop), per core, in cache.
//
// The armadillo comes from Debian's libcgal-demo (/usr/share/doc/libcgal-dev/data.tar.gz, data/meshes/
// armadillo.off), looked up at $CONTACTLAB_MESHES/armadillo.off, then
// <build>/assets/armadillo.off (extracted from libcgal-demo at configure). Without it a generated torus of a similar triangle
// count is used, and the benchmark label says so.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "mesh/generate.h"
#include "mesh/mesh.h"
#include "sdf/sdf.h"

namespace {

struct BenchMesh {
  cl::TriangleMesh mesh;
  std::string label;
};

const BenchMesh& armadillo() {
  static const BenchMesh m = [] {
    std::vector<std::filesystem::path> candidates;
    if (const char* dir = std::getenv("CONTACTLAB_MESHES"); dir && *dir)
      candidates.push_back(std::filesystem::path(dir) / "armadillo.off");
    candidates.push_back(std::filesystem::path(CONTACTLAB_ASSETS_DIR) / "armadillo.off");  // extracted at configure
    for (const auto& path : candidates) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) continue;
      cl::MeshLoadResult r = cl::load_mesh(path.string());
      if (!r.ok()) continue;
      std::string label = "armadillo " + std::to_string(r.mesh.triangles.size()) + " tris";
      return BenchMesh{std::move(r.mesh), std::move(label)};
    }
    cl::TriangleMesh t = cl::make_torus(1.0, 0.35, 260, 100);  // 52000 triangles, like the armadillo
    return BenchMesh{t, "FALLBACK torus " + std::to_string(t.triangles.size()) +
                            " tris (armadillo.off not found; set CONTACTLAB_MESHES)"};
  }();
  return m;
}

const cl::SignedDistanceGrid& armadillo_grid() {
  static const cl::SignedDistanceGrid g = [] {
    cl::SdfOptions o;
    o.resolution = 128;
    o.use_cache = false;
    return cl::SignedDistanceGrid::build(armadillo().mesh, o);
  }();
  return g;
}

// Build of a 128^3 field without the disk cache; Arg = threads (0 = all cores).
void BM_SdfBuildArmadillo128(benchmark::State& state) {
  const BenchMesh& m = armadillo();
  cl::SdfOptions o;
  o.resolution = 128;
  o.use_cache = false;
  o.threads = static_cast<int>(state.range(0));
  cl::SdfBuildInfo info;
  std::size_t nodes = 0;
  for (auto _ : state) {
    const cl::SignedDistanceGrid g = cl::SignedDistanceGrid::build(m.mesh, o, &info);
    nodes = g.node_values().size();
    benchmark::DoNotOptimize(g.node_values().data());
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["threads"] = info.threads;
  state.counters["nodes_per_s"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(m.label);
}
BENCHMARK(BM_SdfBuildArmadillo128)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// Second start: the same build served by the disk cache (in a temporary directory).
void BM_SdfBuildArmadillo128Cached(benchmark::State& state) {
  const BenchMesh& m = armadillo();
  cl::SdfOptions o;
  o.resolution = 128;
  o.cache_dir = std::filesystem::temp_directory_path() / "contactlab_sdf_bench_cache";
  cl::SdfBuildInfo info;
  cl::SignedDistanceGrid::build(m.mesh, o, &info);  // fill the cache
  for (auto _ : state) {
    const cl::SignedDistanceGrid g = cl::SignedDistanceGrid::build(m.mesh, o, &info);
    benchmark::DoNotOptimize(g.node_values().data());
  }
  if (!info.loaded_from_cache) state.SkipWithError("cache not used");
  std::error_code ec;
  std::filesystem::remove_all(o.cache_dir, ec);
  state.SetLabel(m.label);
}
BENCHMARK(BM_SdfBuildArmadillo128Cached)->Unit(benchmark::kMillisecond)->UseRealTime();

// Value + gradient of N points given in another body's frame (batch with a rotation and translation), single
// thread = per core. Points lie within a few cells of the surface (where contact queries happen), and the
// whole working set stays in cache as in the contact loop.
void BM_SdfQueryValueGradient(benchmark::State& state) {
  const BenchMesh& m = armadillo();
  const cl::SignedDistanceGrid& g = armadillo_grid();
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  // Pose of the other body relative to this one: q = R p + t.
  const cl::Mat3 R = Eigen::AngleAxisd(0.8, cl::Vec3(0.3, -1, 0.5).normalized()).toRotationMatrix();
  const cl::Vec3 t(0.05, -0.02, 0.1);
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> pick(0, m.mesh.vertices.size() - 1);
  std::normal_distribution<double> noise(0, 2 * g.cell_size());
  std::vector<cl::Vec3> points(n);
  for (auto& p : points) {
    const cl::Vec3 q = m.mesh.vertices[pick(rng)] + cl::Vec3(noise(rng), noise(rng), noise(rng));
    p = R.transpose() * (q - t);  // in the other body's frame
  }
  std::vector<double> values(n);
  std::vector<cl::Vec3> grads(n);
  for (auto _ : state) {
    g.value_and_gradient(R, t, points, values, grads);
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(grads.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
  state.SetLabel(m.label + ", 128^3, queries/s per core = items_per_second");
}
BENCHMARK(BM_SdfQueryValueGradient)->Arg(4096)->Arg(1 << 16);

// The same with single-point calls (value_and_gradient(p, grad) after an explicit transform).
void BM_SdfQuerySinglePoint(benchmark::State& state) {
  const BenchMesh& m = armadillo();
  const cl::SignedDistanceGrid& g = armadillo_grid();
  const std::size_t n = 4096;
  std::mt19937 rng(12);
  std::uniform_int_distribution<std::size_t> pick(0, m.mesh.vertices.size() - 1);
  std::normal_distribution<double> noise(0, 2 * g.cell_size());
  std::vector<cl::Vec3> points(n);
  for (auto& p : points) p = m.mesh.vertices[pick(rng)] + cl::Vec3(noise(rng), noise(rng), noise(rng));
  const cl::Mat3 R = cl::Mat3::Identity();
  const cl::Vec3 t = cl::Vec3::Zero();
  double sum = 0;
  for (auto _ : state) {
    for (const auto& p : points) {
      cl::Vec3 grad;
      sum += g.value_and_gradient(R * p + t, grad) + grad.x();
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
  state.SetLabel(m.label);
}
BENCHMARK(BM_SdfQuerySinglePoint);

}  // namespace
