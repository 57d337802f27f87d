#include "sdf/sdf.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/task_pool.h"
#include "mesh/bvh.h"

namespace cl {

void SignedDistanceGrid::set_geometry(int nx, int ny, int nz, const Vec3& origin, double h) {
  nx_ = nx;
  ny_ = ny;
  nz_ = nz;
  sxy_ = static_cast<std::ptrdiff_t>(nx) * ny;
  origin_ = origin;
  h_ = h;
  inv_h_ = 1.0 / h;
  umax_x_ = nx - 1;
  umax_y_ = ny - 1;
  umax_z_ = nz - 1;
}

SignedDistanceGrid SignedDistanceGrid::build(std::span<const Vec3> vertices,
                                             std::span<const std::array<int, 3>> triangles,
                                             const SdfOptions& options, SdfBuildInfo* info) {
  return build(vertices, triangles, nullptr, options, info);
}

SignedDistanceGrid SignedDistanceGrid::build(const TriangleBvh& bvh, const SdfOptions& options, SdfBuildInfo* info) {
  return build(std::span<const Vec3>(bvh.mesh().vertices),
               std::span<const std::array<int, 3>>(bvh.mesh().triangles), &bvh, options, info);
}

SignedDistanceGrid SignedDistanceGrid::build(std::span<const Vec3> vertices,
                                             std::span<const std::array<int, 3>> triangles, const TriangleBvh* bvh,
                                             const SdfOptions& options, SdfBuildInfo* info) {
  const auto t0 = std::chrono::steady_clock::now();
  SdfBuildInfo local;
  SdfBuildInfo& out = info ? *info : local;
  out = {};
  if (options.resolution < 2 || options.resolution > 4096)
    throw std::invalid_argument("signed distance: resolution must be in [2, 4096]");
  if (!(options.padding >= 0) || !std::isfinite(options.padding))
    throw std::invalid_argument("signed distance: padding must be finite and >= 0");
  if (options.padding_cells < 0 || (options.padding_cells > 0 && options.resolution - 2 * options.padding_cells < 1))
    throw std::invalid_argument("signed distance: padding_cells leaves no room for the mesh");

  // Validation and bounds first (cheap), so a cache hit skips building the distance tree.
  if (vertices.empty() || triangles.empty()) throw std::invalid_argument("signed distance: empty mesh");
  for (const Vec3& v : vertices)
    if (!all_finite(v)) throw std::invalid_argument("signed distance: mesh has a non-finite vertex");
  Aabb bb{Vec3::Constant(std::numeric_limits<double>::infinity()),
          Vec3::Constant(-std::numeric_limits<double>::infinity())};
  const int nv = static_cast<int>(vertices.size());
  for (const auto& t : triangles)
    for (int k = 0; k < 3; ++k) {
      if (t[k] < 0 || t[k] >= nv)
        throw std::invalid_argument("signed distance: triangle vertex index " + std::to_string(t[k]) +
                                    " out of range");
      bb.lo = bb.lo.cwiseMin(vertices[t[k]]);
      bb.hi = bb.hi.cwiseMax(vertices[t[k]]);
    }
  const Vec3 ext = bb.hi - bb.lo;
  const double longest = ext.maxCoeff();
  if (!(longest > 0)) throw std::invalid_argument("signed distance: mesh has zero extent");

  // Cache lookup.
  std::filesystem::path cache_file;
  std::uint64_t key = 0;
  if (options.use_cache) {
    std::filesystem::path dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
    std::error_code ec;
    if (!dir.empty()) {
      std::filesystem::create_directories(dir, ec);
      if (!ec && std::filesystem::is_directory(dir, ec)) {
        key = cache_key(vertices, triangles, options);
        cache_file = SignedDistanceGrid::cache_file(dir, key);
      }
    }
  }
  out.cache_file = cache_file;
  if (!cache_file.empty()) {
    SignedDistanceGrid grid;
    if (grid.read(cache_file, key)) {
      out.loaded_from_cache = true;
      out.threads = 0;
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return grid;
    }
    std::error_code ec;
    out.cache_rejected = std::filesystem::symlink_status(cache_file, ec).type() != std::filesystem::file_type::not_found;
  }

  // Grid geometry: cubic cells, 'resolution' cells along the padded box's longest side, centred on the mesh.
  double h, pad;
  if (options.padding_cells > 0) {
    h = longest / (options.resolution - 2 * options.padding_cells);
    pad = options.padding_cells * h;
  } else {
    pad = options.padding * longest;
    h = (longest + 2 * pad) / options.resolution;
  }
  std::array<int, 3> cells;
  for (int a = 0; a < 3; ++a)
    cells[a] = std::clamp(static_cast<int>(std::ceil((ext[a] + 2 * pad) / h - 1e-9)), 1, options.resolution);
  const Vec3 centre = 0.5 * (bb.lo + bb.hi);
  const Vec3 origin = centre - 0.5 * h * Vec3(cells[0], cells[1], cells[2]);

  // The mesh's closest-point tree: the caller's (a mesh shape's BVH), or one built here for this build.
  std::optional<TriangleBvh> own;
  if (!bvh) {
    TriangleMesh mesh;
    mesh.vertices.assign(vertices.begin(), vertices.end());
    mesh.triangles.assign(triangles.begin(), triangles.end());
    own.emplace(mesh);
    bvh = &*own;
  }
  SignedDistanceGrid grid;
  grid.set_geometry(cells[0] + 1, cells[1] + 1, cells[2] + 1, origin, h);
  grid.data_.assign(static_cast<std::size_t>(grid.nx_) * grid.ny_ * grid.nz_, 0.0f);

  // One task per z-slice on the task pool. A slice is walked in blocks of 2 x 2 nodes (two x-rows at a time,
  // two nodes along each), the four searched together through the tree (TriangleBvh::signed_distances), each
  // block's search started from the previous block's closest triangles (tight bounds for its nodes, a cell or
  // two away). A node's value is its exact closest distance whatever the block and the hints, so the grid is
  // identical for any thread count. At an odd edge a block repeats its last row or column.
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp(threads, 1, grid.nz_);
  TaskPool pool(threads);
  pool.run(grid.nz_, [&](int k, int) {
    for (int j = 0; j < grid.ny_; j += 2) {
      const int j1 = std::min(j + 1, grid.ny_ - 1);
      float* row0 = grid.data_.data() + grid.index(0, j, k);
      float* row1 = grid.data_.data() + grid.index(0, j1, k);
      std::array<int, 4> hints = {-1, -1, -1, -1};  // the previous block's closest triangles
      for (int i = 0; i < grid.nx_; i += 2) {
        const int i1 = std::min(i + 1, grid.nx_ - 1);
        const std::array<Vec3, 4> p = {grid.node_position(i, j, k), grid.node_position(i1, j, k),
                                       grid.node_position(i, j1, k), grid.node_position(i1, j1, k)};
        std::array<double, 4> d;
        bvh->signed_distances(p, hints, d);
        row0[i] = static_cast<float>(d[0]);
        row0[i1] = static_cast<float>(d[1]);
        row1[i] = static_cast<float>(d[2]);
        row1[i1] = static_cast<float>(d[3]);
      }
    }
  });
  out.threads = threads;

  if (!cache_file.empty()) {
    // Stored only if it fits the limit; then the least recently used grids make room for it.
    const std::uint64_t limit = options.cache_limit > 0 ? options.cache_limit : default_cache_limit();
    const std::uint64_t bytes = grid.data_.size() * sizeof(float) + 96;
    if (bytes <= limit) out.stored_in_cache = grid.write(cache_file, key);
    if (out.stored_in_cache) trim_cache(cache_file.parent_path(), limit);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return grid;
}

void SignedDistanceGrid::value_and_gradient(const Mat3& R, const Vec3& t, std::span<const Vec3> points,
                                            std::span<double> values, std::span<Vec3> gradients) const {
  if (values.size() < points.size() || (!gradients.empty() && gradients.size() < points.size()))
    throw std::invalid_argument("signed distance: output spans shorter than the point span");
  const double r00 = R(0, 0), r01 = R(0, 1), r02 = R(0, 2);
  const double r10 = R(1, 0), r11 = R(1, 1), r12 = R(1, 2);
  const double r20 = R(2, 0), r21 = R(2, 1), r22 = R(2, 2);
  const double tx = t.x(), ty = t.y(), tz = t.z();
  const std::size_t n = points.size();
  const Vec3* p = points.data();
  double* v = values.data();
  if (gradients.empty()) {
    for (std::size_t i = 0; i < n; ++i) {
      const double x = p[i].x(), y = p[i].y(), z = p[i].z();
      v[i] = eval(r00 * x + r01 * y + r02 * z + tx, r10 * x + r11 * y + r12 * z + ty,
                  r20 * x + r21 * y + r22 * z + tz, nullptr);
    }
    return;
  }
  double* g = gradients.data()->data();
  for (std::size_t i = 0; i < n; ++i) {
    const double x = p[i].x(), y = p[i].y(), z = p[i].z();
    v[i] = eval(r00 * x + r01 * y + r02 * z + tx, r10 * x + r11 * y + r12 * z + ty, r20 * x + r21 * y + r22 * z + tz,
                g + 3 * i);
  }
}

}  // namespace cl
