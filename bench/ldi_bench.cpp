// Intersection volume benchmarks: two scanned armadillos overlapping a little, volume and gradients
// from layered depth images (Allard et al. 2010, sect. 3.2) per evaluation, at pixel sizes of 1/64 and 1/128 of
// the armadillo's bounding box (its longest side), on 1 and 2 threads; and the same with the multi-volume split
// (cells of 8 pixels, sect. 5).
//
//   ./build/bench/contactlab_bench --benchmark_filter=Ldi --benchmark_repetitions=5 --benchmark_report_aggregates_only
//
// The armadillo is found as in sdf_bench.cpp ($CONTACTLAB_MESHES/armadillo.off, then <build>/assets/armadillo.off);
// without it a generated torus of similar size is used and the label says FALLBACK. The second armadillo is the
// first turned half a turn about the vertical axis (facing it) and moved along x until the intersection holds 2%
// of one armadillo's volume. Meshes are given in world coordinates (the transform is the caller's and not timed).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ldi/intersection_volume.h"
#include "mesh/bvh.h"
#include "mesh/generate.h"
#include "mesh/mesh.h"

namespace {

struct Pair {
  cl::TriangleMesh a, b;
  cl::TriangleBvh tree;  // a's BVH; b is a half turned about y and moved by (b_shift, 0, 0)
  cl::Mat3 b_rotation = cl::Mat3::Identity();
  double b_shift = 0;
  double size = 1;   // longest side of the bounding box, m
  std::string label;
};

double mesh_volume(const cl::TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]]));
  return v / 6.0;
}

const Pair& overlapping_armadillos() {
  static const Pair p = [] {
    Pair out;
    std::vector<std::filesystem::path> candidates;
    if (const char* dir = std::getenv("CONTACTLAB_MESHES"); dir && *dir)
      candidates.push_back(std::filesystem::path(dir) / "armadillo.off");
    candidates.push_back(std::filesystem::path(CONTACTLAB_ASSETS_DIR) / "armadillo.off");
    for (const auto& path : candidates) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) continue;
      cl::MeshLoadResult r = cl::load_mesh(path.string());
      if (!r.ok()) continue;
      out.a = std::move(r.mesh);
      out.label = "armadillo " + std::to_string(out.a.triangles.size()) + " tris";
      break;
    }
    if (out.a.empty()) {
      out.a = cl::make_torus(1.0, 0.35, 260, 100);
      out.label = "FALLBACK torus " + std::to_string(out.a.triangles.size()) + " tris (armadillo.off not found)";
    }
    cl::recentre(out.a);
    const cl::Aabb box = out.a.bounds();
    const cl::Vec3 ext = box.hi - box.lo;
    out.size = ext.maxCoeff();
    // B faces A (half a turn about y) and slides along x until the intersection is 2% of A's volume.
    const cl::Quat face(Eigen::AngleAxisd(3.14159265358979323846, cl::Vec3::UnitY()));
    const double target = 0.02 * mesh_volume(out.a);
    cl::ldi::IntersectionVolume iv;
    cl::ldi::VolumeResult r;
    cl::ldi::VolumeOptions o;
    o.pixel_size = out.size / 128;
    o.threads = 0;
    double lo = 0, hi = 1.2 * ext.x();  // V(lo) > target > V(hi)
    for (int it = 0; it < 30; ++it) {
      const double mid = 0.5 * (lo + hi);
      out.b = out.a;
      cl::transform_mesh(out.b, face, cl::Vec3(mid, 0, 0));
      iv.compute({out.a.vertices, out.a.triangles}, {out.b.vertices, out.b.triangles}, o, r);
      (r.mono.volume > target ? lo : hi) = mid;
    }
    out.b = out.a;
    cl::transform_mesh(out.b, face, cl::Vec3(0.5 * (lo + hi), 0, 0));
    out.tree = cl::TriangleBvh(out.a);
    out.b_rotation = face.toRotationMatrix();
    out.b_shift = 0.5 * (lo + hi);
    return out;
  }();
  return p;
}

// Args: pixels across the bounding box (64, 128), threads (1, 2), multi-volume (0, 1), and whether the meshes come
// with their BVH (MeshInput::tree: only the triangles in nodes that reach the images are visited; same results).
void BM_LdiArmadillos(benchmark::State& state) {
  const Pair& p = overlapping_armadillos();
  cl::ldi::VolumeOptions o;
  o.pixel_size = p.size / double(state.range(0));
  o.threads = int(state.range(1));
  o.multi_volume = state.range(2) != 0;
  o.cell_size = 8 * o.pixel_size;
  cl::ldi::IntersectionVolume iv;
  cl::ldi::VolumeResult r;
  cl::ldi::MeshInput a{p.a.vertices, p.a.triangles, cl::Vec3::Zero()};
  cl::ldi::MeshInput b{p.b.vertices, p.b.triangles, cl::Vec3::Zero()};
  if (state.range(3) != 0) {
    a.tree = &p.tree;
    b.tree = &p.tree;
    b.rotation = p.b_rotation;
    b.position = cl::Vec3(p.b_shift, 0, 0);
  }
  for (auto _ : state) {
    iv.compute(a, b, o, r);
    benchmark::DoNotOptimize(&r);  // (not r.mono.volume: the library's "+r" constraint can clobber a double)
    benchmark::ClobberMemory();
  }
  if (!r.ok()) state.SkipWithError(r.error.c_str());
  state.counters["volume_rel"] = r.mono.volume / mesh_volume(p.a);
  state.counters["cells"] = double(r.cells().size());
  state.counters["crossings"] = double(r.stats.crossings[0] + r.stats.crossings[1] + r.stats.crossings[2]);
  state.counters["intervals"] = double(r.stats.intervals[0] + r.stats.intervals[1] + r.stats.intervals[2]);
  state.counters["tris"] = double(r.stats.candidate_triangles[0] + r.stats.candidate_triangles[1] +
                                  r.stats.candidate_triangles[2]);
  state.counters["tris_x"] = r.stats.candidate_triangles[0];
  state.counters["tris_y"] = r.stats.candidate_triangles[1];
  state.counters["tris_z"] = r.stats.candidate_triangles[2];
  state.counters["px_x"] = r.stats.pixels[0];
  state.counters["px_y"] = r.stats.pixels[1];
  state.counters["px_z"] = r.stats.pixels[2];
  state.counters["grad_vertices"] = double(r.mono.body[0].gradient.size() + r.mono.body[1].gradient.size());
  state.SetLabel(p.label);
}
BENCHMARK(BM_LdiArmadillos)
    ->ArgNames({"px", "threads", "multi", "bvh"})
    ->Args({64, 1, 0, 0})
    ->Args({64, 2, 0, 0})
    ->Args({128, 1, 0, 0})
    ->Args({128, 2, 0, 0})
    ->Args({64, 1, 1, 0})
    ->Args({128, 1, 1, 0})
    ->Args({128, 2, 1, 0})
    ->Args({128, 1, 0, 1})
    ->Args({128, 2, 0, 1})
    ->Args({128, 1, 1, 1})
    ->Args({128, 2, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
