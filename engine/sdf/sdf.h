// Signed distance grids of closed triangle meshes (thesis sect. 6.2): the model-frame distance map each
// mesh body keeps for contact detection.
//
// Convention: phi < 0 inside, phi > 0 outside, |phi| = Euclidean distance to the surface.
//
// Build: the mesh's bounding box is padded by a margin on every side and covered by cubic cells, with
// 'resolution' cells along the padded box's longest side. Each grid node holds the exact distance to the
// mesh (closest point through the mesh's AABB tree, TriangleBvh of mesh/bvh.h). The sign is taken from the angle-weighted
// pseudo-normal of the closest feature (vertex, edge or face; Baerentzen & Aanaes 2005), which is exact for
// closed, consistently outward-oriented meshes however thin their walls. (A winding-number sign is not
// implemented: it would only matter for open or self-intersecting meshes, which the mesh loader rejects.)
// The build is split over z-slices on all cores; every node is computed the same way whatever the thread
// count, so the result is bit-identical for any number of threads.
//
// Queries: value(p) is the trilinear interpolant of the node values; gradient(p) its exact derivative
// (piecewise bilinear, not finite differences). Outside the grid box, with c = clamp(p, box):
//   value(p) = value(c) + |p - c|,
// which is continuous and grows with the distance from the box; gradient(p) is the derivative of that
// expression ((p - c)/|p - c| plus the interpolant's derivative along the axes where p is inside the box).
//
// Disk cache: a build is keyed by the mesh's vertex and triangle bytes, the resolution, the padding and the
// file-format version; a hit loads the grid instead of building it. Files carry a header and a checksum;
// anything unreadable, mismatched or corrupt is ignored and rebuilt (and rewritten). Only regular files are
// opened, without blocking (a named pipe at a cache path is skipped, never waited on). The cache's files are held
// to a size limit (SdfOptions::cache_limit): after each store the least recently used grids (by the time they
// were last stored or read) are removed until the rest fit.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/math.h"

namespace cl {

class TriangleBvh;

struct SdfOptions {
  int resolution = 64;    // cells along the longest side of the padded box (>= 2)
  double padding = 0.1;   // margin on each side, as a fraction of the mesh's longest bounding-box side
  int padding_cells = 0;  // if > 0: margin of exactly this many cells instead of 'padding'
  int threads = 0;        // build threads; 0 = all hardware threads
  bool use_cache = true;  // look up / store the grid in the disk cache
  // Cache directory; empty = $XDG_CACHE_HOME/contactlab, else ~/.cache/contactlab. If the directory can't
  // be created or written, the cache is silently skipped.
  std::filesystem::path cache_dir;
  // Bytes the cache's grid files may take together; 0: default_cache_limit(). A grid larger than this is not
  // stored.
  std::uint64_t cache_limit = 0;
};

// How a grid came to be; filled by build().
struct SdfBuildInfo {
  bool loaded_from_cache = false;
  bool cache_rejected = false;  // a cache file existed but was corrupt or mismatched (it was rebuilt)
  bool stored_in_cache = false;
  double seconds = 0;           // wall time of build() (load or compute)
  int threads = 1;
  std::filesystem::path cache_file;  // empty when the cache was not used
};

class SignedDistanceGrid {
 public:
  SignedDistanceGrid() = default;

  // Builds (or loads from the cache) the grid of a closed, outward-oriented triangle mesh. Throws
  // std::invalid_argument on an empty or malformed mesh (bad index, non-finite vertex, zero extent) or a
  // bad option.
  static SignedDistanceGrid build(std::span<const Vec3> vertices, std::span<const std::array<int, 3>> triangles,
                                  const SdfOptions& options = {}, SdfBuildInfo* info = nullptr);
  // Same from a mesh's BVH (mesh/bvh.h), whose closest-point queries fill the grid: a mesh shape builds one
  // tree for its ray casts, closest points and distance grid. The cache is keyed by bvh.mesh().
  static SignedDistanceGrid build(const TriangleBvh& bvh, const SdfOptions& options = {}, SdfBuildInfo* info = nullptr);
  // Same for any mesh type with 'vertices' and 'triangles' vectors (cl::TriangleMesh).
  template <class Mesh>
  static SignedDistanceGrid build(const Mesh& mesh, const SdfOptions& options = {}, SdfBuildInfo* info = nullptr) {
    return build(std::span<const Vec3>(mesh.vertices), std::span<const std::array<int, 3>>(mesh.triangles),
                 options, info);
  }

  // --- queries (p in the mesh's model frame) ---
  double value(const Vec3& p) const { return eval(p.x(), p.y(), p.z(), nullptr); }
  Vec3 gradient(const Vec3& p) const {
    double g[3];
    eval(p.x(), p.y(), p.z(), g);
    return {g[0], g[1], g[2]};
  }
  double value_and_gradient(const Vec3& p, Vec3& grad) const {
    double g[3];
    const double v = eval(p.x(), p.y(), p.z(), g);
    grad = Vec3(g[0], g[1], g[2]);
    return v;
  }
  // Batch for contact detection: points given in another body's frame, mapped into this grid's frame by
  // q = R p + t (R, t = this body's inverse pose times the other body's pose). Writes values[i] and, if
  // 'gradients' is not empty, gradients[i] in THIS grid's frame. values (and gradients) need points.size()
  // entries.
  void value_and_gradient(const Mat3& R, const Vec3& t, std::span<const Vec3> points, std::span<double> values,
                          std::span<Vec3> gradients) const;

  // Asks the memory system for the node values value(p) will read (the 2 x 2 x 2 nodes of p's cell), without
  // waiting for them: a query loop issues this for a batch of points before evaluating them, so that their cache
  // misses overlap instead of following one another (a 256^3 grid is 64 MB).
  void prefetch(const Vec3& p) const {
    const double cx = std::min(std::max((p.x() - origin_.x()) * inv_h_, 0.0), umax_x_);
    const double cy = std::min(std::max((p.y() - origin_.y()) * inv_h_, 0.0), umax_y_);
    const double cz = std::min(std::max((p.z() - origin_.z()) * inv_h_, 0.0), umax_z_);
    const int ix = std::min(static_cast<int>(cx), nx_ - 2);
    const int iy = std::min(static_cast<int>(cy), ny_ - 2);
    const int iz = std::min(static_cast<int>(cz), nz_ - 2);
    const float* c = data_.data() + (ix + static_cast<std::ptrdiff_t>(nx_) * (iy + static_cast<std::ptrdiff_t>(ny_) * iz));
    __builtin_prefetch(c);
    __builtin_prefetch(c + nx_ + 1);
    __builtin_prefetch(c + sxy_);
    __builtin_prefetch(c + sxy_ + nx_ + 1);
  }

  // --- grid description ---
  bool empty() const { return data_.empty(); }
  std::array<int, 3> node_counts() const { return {nx_, ny_, nz_}; }  // nodes per axis (cells + 1)
  Vec3 origin() const { return origin_; }                             // position of node (0, 0, 0)
  double cell_size() const { return h_; }
  Aabb box() const { return {origin_, origin_ + h_ * Vec3(nx_ - 1, ny_ - 1, nz_ - 1)}; }
  Vec3 node_position(int i, int j, int k) const { return origin_ + h_ * Vec3(i, j, k); }
  float node_value(int i, int j, int k) const { return data_[index(i, j, k)]; }
  const std::vector<float>& node_values() const { return data_; }
  std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(i) + static_cast<std::size_t>(nx_) * (j + static_cast<std::size_t>(ny_) * k);
  }

  // Cache helpers (used by build(); public for tests and tools).
  static std::filesystem::path default_cache_dir();  // empty if no home/XDG dir is known
  // $CONTACTLAB_GRID_CACHE_LIMIT (bytes, or with a K, M or G suffix) if set and valid, else 1 GiB.
  static std::uint64_t default_cache_limit();
  // The file of a key in the cache folder `dir`: dir/sdf-<key as 16 hex digits>.bin.
  static std::filesystem::path cache_file(const std::filesystem::path& dir, std::uint64_t key);
  // Removes the least recently used grid files of `dir` (and temporary files of stores that were cut short over
  // an hour ago) until its grids take at most `limit` bytes. Returns the bytes they take then.
  static std::uint64_t trim_cache(const std::filesystem::path& dir, std::uint64_t limit);
  // Cache key of a build: 64-bit FNV-1a-style hash of the format version, mesh bytes, resolution and padding.
  static std::uint64_t cache_key(std::span<const Vec3> vertices, std::span<const std::array<int, 3>> triangles,
                                 const SdfOptions& options);
  // Writes/reads the binary format (header + float values + checksum). read() returns false (leaving the grid
  // untouched) on any mismatch with 'expected_key', a short, oversized or corrupt file, or anything but a
  // regular file; a grid read is marked as just used (its modification time), for the cache's eviction.
  bool write(const std::filesystem::path& file, std::uint64_t key) const;
  bool read(const std::filesystem::path& file, std::uint64_t expected_key);

  static constexpr std::uint32_t kFormatVersion = 1;

 private:
  // Value at (x, y, z); if g is not null, also the gradient. Inline: the contact loop's innermost function.
  double eval(double x, double y, double z, double* g) const {
    const double ux = (x - origin_.x()) * inv_h_, uy = (y - origin_.y()) * inv_h_, uz = (z - origin_.z()) * inv_h_;
    const double cx = std::min(std::max(ux, 0.0), umax_x_);
    const double cy = std::min(std::max(uy, 0.0), umax_y_);
    const double cz = std::min(std::max(uz, 0.0), umax_z_);
    const int ix = std::min(static_cast<int>(cx), nx_ - 2);
    const int iy = std::min(static_cast<int>(cy), ny_ - 2);
    const int iz = std::min(static_cast<int>(cz), nz_ - 2);
    const double fx = cx - ix, fy = cy - iy, fz = cz - iz;
    const float* c = data_.data() + (ix + static_cast<std::ptrdiff_t>(nx_) * (iy + static_cast<std::ptrdiff_t>(ny_) * iz));
    const double c000 = c[0], c100 = c[1], c010 = c[nx_], c110 = c[nx_ + 1];
    const double c001 = c[sxy_], c101 = c[sxy_ + 1], c011 = c[sxy_ + nx_], c111 = c[sxy_ + nx_ + 1];
    const double a00 = c000 + fx * (c100 - c000), a10 = c010 + fx * (c110 - c010);
    const double a01 = c001 + fx * (c101 - c001), a11 = c011 + fx * (c111 - c011);
    const double b0 = a00 + fy * (a10 - a00), b1 = a01 + fy * (a11 - a01);
    double v = b0 + fz * (b1 - b0);
    const double ox = (ux - cx) * h_, oy = (uy - cy) * h_, oz = (uz - cz) * h_;
    const double o2 = ox * ox + oy * oy + oz * oz;
    if (g) {
      const double dx0 = (c100 - c000) + fy * ((c110 - c010) - (c100 - c000));
      const double dx1 = (c101 - c001) + fy * ((c111 - c011) - (c101 - c001));
      g[0] = (dx0 + fz * (dx1 - dx0)) * inv_h_;
      g[1] = ((a10 - a00) + fz * ((a11 - a01) - (a10 - a00))) * inv_h_;
      g[2] = (b1 - b0) * inv_h_;
    }
    if (o2 > 0) [[unlikely]] {
      const double od = std::sqrt(o2);
      v += od;
      if (g) {
        const double inv = 1.0 / od;
        g[0] = ox != 0 ? ox * inv : g[0];
        g[1] = oy != 0 ? oy * inv : g[1];
        g[2] = oz != 0 ? oz * inv : g[2];
      }
    }
    return v;
  }

  int nx_ = 0, ny_ = 0, nz_ = 0;
  std::ptrdiff_t sxy_ = 0;  // nx * ny
  Vec3 origin_{0, 0, 0};
  double h_ = 1, inv_h_ = 1;
  double umax_x_ = 0, umax_y_ = 0, umax_z_ = 0;  // nodes - 1 per axis
  std::vector<float> data_;

  void set_geometry(int nx, int ny, int nz, const Vec3& origin, double h);
  // The build behind both public ones; bvh may be null (one is then built from the mesh on a cache miss).
  static SignedDistanceGrid build(std::span<const Vec3> vertices, std::span<const std::array<int, 3>> triangles,
                                  const TriangleBvh* bvh, const SdfOptions& options, SdfBuildInfo* info);
};

}  // namespace cl
