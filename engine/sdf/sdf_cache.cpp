// Disk cache of signed distance grids: key, file format, atomic writes, validated reads.
//
// File layout (little-endian host order; a file written on another architecture fails the checks and is
// rebuilt):
//   Header (magic "CLSDFGRD", version, key, node counts, origin, cell size, value count)
//   float values[count]            (x fastest, then y, then z)
//   uint64 checksum                (64-bit FNV-1a-style hash of header and values)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <unistd.h>

#include "sdf/sdf.h"

namespace cl {

namespace {

constexpr char kMagic[8] = {'C', 'L', 'S', 'D', 'F', 'G', 'R', 'D'};

struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  // FNV-1a style over 64-bit words (then the tail bytes): a few ms for a 128^3 grid.
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      h ^= w;
      h *= 1099511628211ull;
      h ^= h >> 29;
    }
    for (; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  }
  template <class T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
};

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_size;
  std::uint64_t key;
  std::int32_t nx, ny, nz, reserved;
  double origin[3];
  double h;
  std::uint64_t count;
};
static_assert(sizeof(Header) == 80);

}  // namespace

std::filesystem::path SignedDistanceGrid::default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "contactlab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "contactlab";
  return {};
}

std::uint64_t SignedDistanceGrid::cache_key(std::span<const Vec3> vertices,
                                            std::span<const std::array<int, 3>> triangles, const SdfOptions& options) {
  Fnv f;
  f.value(kFormatVersion);
  f.value(static_cast<std::uint64_t>(vertices.size()));
  for (const Vec3& v : vertices) {
    const double xyz[3] = {v.x(), v.y(), v.z()};
    f.bytes(xyz, sizeof xyz);
  }
  f.value(static_cast<std::uint64_t>(triangles.size()));
  for (const auto& t : triangles) {
    const std::int32_t ijk[3] = {t[0], t[1], t[2]};
    f.bytes(ijk, sizeof ijk);
  }
  f.value(static_cast<std::int32_t>(options.resolution));
  f.value(options.padding_cells > 0 ? 0.0 : options.padding);
  f.value(static_cast<std::int32_t>(options.padding_cells));
  return f.h;
}

bool SignedDistanceGrid::write(const std::filesystem::path& file, std::uint64_t key) const {
  if (data_.empty()) return false;
  Header hd{};
  std::memcpy(hd.magic, kMagic, sizeof kMagic);
  hd.version = kFormatVersion;
  hd.header_size = sizeof(Header);
  hd.key = key;
  hd.nx = nx_;
  hd.ny = ny_;
  hd.nz = nz_;
  for (int a = 0; a < 3; ++a) hd.origin[a] = origin_[a];
  hd.h = h_;
  hd.count = data_.size();
  Fnv f;
  f.value(hd);
  f.bytes(data_.data(), data_.size() * sizeof(float));
  const std::uint64_t checksum = f.h;

  // Write to a unique temporary name in the same directory, then rename: readers never see a partial file,
  // and concurrent builders of the same grid each publish a complete one.
  std::random_device rd;
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%08x", static_cast<long>(::getpid()), rd());
  const std::filesystem::path tmp = file.string() + suffix;
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) return false;
    os.write(reinterpret_cast<const char*>(&hd), sizeof hd);
    os.write(reinterpret_cast<const char*>(data_.data()), static_cast<std::streamsize>(data_.size() * sizeof(float)));
    os.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    os.flush();
    if (!os) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

bool SignedDistanceGrid::read(const std::filesystem::path& file, std::uint64_t expected_key) {
  std::ifstream is(file, std::ios::binary);
  if (!is) return false;
  is.seekg(0, std::ios::end);
  const std::streamoff size = is.tellg();
  is.seekg(0, std::ios::beg);
  if (size < static_cast<std::streamoff>(sizeof(Header) + sizeof(std::uint64_t))) return false;
  Header hd;
  if (!is.read(reinterpret_cast<char*>(&hd), sizeof hd)) return false;
  if (std::memcmp(hd.magic, kMagic, sizeof kMagic) != 0 || hd.version != kFormatVersion ||
      hd.header_size != sizeof(Header) || hd.key != expected_key)
    return false;
  if (hd.nx < 2 || hd.ny < 2 || hd.nz < 2 || hd.nx > 1 << 16 || hd.ny > 1 << 16 || hd.nz > 1 << 16) return false;
  const std::uint64_t count = static_cast<std::uint64_t>(hd.nx) * hd.ny * hd.nz;
  if (hd.count != count) return false;
  if (static_cast<std::uint64_t>(size) != sizeof(Header) + count * sizeof(float) + sizeof(std::uint64_t)) return false;
  if (!(hd.h > 0) || !std::isfinite(hd.h) || !std::isfinite(hd.origin[0]) || !std::isfinite(hd.origin[1]) ||
      !std::isfinite(hd.origin[2]))
    return false;
  std::vector<float> values(count);
  std::uint64_t checksum = 0;
  if (!is.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(float)))) return false;
  if (!is.read(reinterpret_cast<char*>(&checksum), sizeof checksum)) return false;
  Fnv f;
  f.value(hd);
  f.bytes(values.data(), values.size() * sizeof(float));
  if (f.h != checksum) return false;
  for (float v : values)
    if (!std::isfinite(v)) return false;
  set_geometry(hd.nx, hd.ny, hd.nz, Vec3(hd.origin[0], hd.origin[1], hd.origin[2]), hd.h);
  data_ = std::move(values);
  return true;
}

}  // namespace cl
