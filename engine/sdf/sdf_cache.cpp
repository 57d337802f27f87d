// Disk cache of signed distance grids: key, file format, atomic writes, validated reads of regular files only,
// and a size limit kept by removing the least recently used grids.
//
// File layout (little-endian host order; a file written on another architecture fails the checks and is
// rebuilt):
//   Header (magic "CLSDFGRD", version, key, node counts, origin, cell size, value count)
//   float values[count]            (x fastest, then y, then z)
//   uint64 checksum                (64-bit FNV-1a-style hash of header and values)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <algorithm>
#include <random>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
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

namespace {

// Reads exactly n bytes; false at the end of the file or on an error.
bool read_all(int fd, void* data, std::size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= std::size_t(got);
  }
  return true;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool SignedDistanceGrid::read(const std::filesystem::path& file, std::uint64_t expected_key) {
  // Opened without blocking and checked to be a regular file before anything is read: a named pipe or a device
  // at the cache path is skipped, never waited on.
  const Fd f{::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return false;
  struct stat st;
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < sizeof(Header) + sizeof(std::uint64_t)) return false;
  Header hd;
  if (!read_all(f.fd, &hd, sizeof hd)) return false;
  if (std::memcmp(hd.magic, kMagic, sizeof kMagic) != 0 || hd.version != kFormatVersion ||
      hd.header_size != sizeof(Header) || hd.key != expected_key)
    return false;
  if (hd.nx < 2 || hd.ny < 2 || hd.nz < 2 || hd.nx > 1 << 16 || hd.ny > 1 << 16 || hd.nz > 1 << 16) return false;
  const std::uint64_t count = static_cast<std::uint64_t>(hd.nx) * hd.ny * hd.nz;
  if (hd.count != count) return false;
  if (size != sizeof(Header) + count * sizeof(float) + sizeof(std::uint64_t)) return false;
  if (!(hd.h > 0) || !std::isfinite(hd.h) || !std::isfinite(hd.origin[0]) || !std::isfinite(hd.origin[1]) ||
      !std::isfinite(hd.origin[2]))
    return false;
  std::vector<float> values(count);
  std::uint64_t checksum = 0;
  if (!read_all(f.fd, values.data(), count * sizeof(float))) return false;
  if (!read_all(f.fd, &checksum, sizeof checksum)) return false;
  Fnv h;
  h.value(hd);
  h.bytes(values.data(), values.size() * sizeof(float));
  if (h.h != checksum) return false;
  for (float v : values)
    if (!std::isfinite(v)) return false;
  set_geometry(hd.nx, hd.ny, hd.nz, Vec3(hd.origin[0], hd.origin[1], hd.origin[2]), hd.h);
  data_ = std::move(values);
  ::futimens(f.fd, nullptr);  // just used: the last to be evicted
  return true;
}

std::uint64_t SignedDistanceGrid::default_cache_limit() {
  constexpr std::uint64_t kDefault = std::uint64_t(1) << 30;
  const char* text = std::getenv("CONTACTLAB_GRID_CACHE_LIMIT");
  if (!text || !*text) return kDefault;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return kDefault;
  std::uint64_t unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm') unit = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g') unit = 1ull << 30, ++end;
  if (*end != 0 || n > UINT64_MAX / unit) return kDefault;
  return n * unit;
}

std::filesystem::path SignedDistanceGrid::cache_file(const std::filesystem::path& dir, std::uint64_t key) {
  char name[40];
  std::snprintf(name, sizeof name, "sdf-%016llx.bin", static_cast<unsigned long long>(key));
  return dir / name;
}

std::uint64_t SignedDistanceGrid::trim_cache(const std::filesystem::path& dir, std::uint64_t limit) {
  namespace fs = std::filesystem;
  struct Entry {
    fs::path path;
    std::uint64_t bytes;
    struct timespec used;
  };
  std::vector<Entry> grids;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto now = ::time(nullptr);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (name.rfind("sdf-", 0) != 0) continue;
    if (name.find(".tmp.") != std::string::npos) {
      // A store cut short (the process killed while writing): gone after an hour.
      if (now - st.st_mtim.tv_sec > 3600) ::unlink(it->path().c_str());
      continue;
    }
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".bin") != 0) continue;
    grids.push_back({it->path(), std::uint64_t(st.st_size), st.st_mtim});
    total += std::uint64_t(st.st_size);
  }
  if (total <= limit) return total;
  std::sort(grids.begin(), grids.end(), [](const Entry& a, const Entry& b) {
    return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec : a.used.tv_nsec < b.used.tv_nsec;
  });
  for (const Entry& e : grids) {
    if (total <= limit) break;
    if (::unlink(e.path.c_str()) == 0) total -= e.bytes;
  }
  return total;
}

}  // namespace cl
