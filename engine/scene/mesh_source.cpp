#include "scene/mesh_source.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <sstream>
#include <utility>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"
#include "world/world.h"

namespace cl {

namespace {

// By the shape's address, checked against a weak pointer so that an address reused by a later shape never
// finds the source of an earlier one.
struct Registry {
  std::mutex mutex;
  std::map<const MeshShape*, std::pair<std::weak_ptr<const MeshShape>, MeshSource>> sources;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The estimated bytes of every mesh shape still in use.
std::uint64_t bytes_in_use() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::uint64_t sum = 0;
  for (auto it = r.sources.begin(); it != r.sources.end();) {
    if (it->second.first.expired()) {
      it = r.sources.erase(it);
    } else {
      sum += it->second.second.bytes;
      ++it;
    }
  }
  return sum;
}

std::atomic<std::uint64_t> budget_override{0};

std::string in_double_quotes(std::string_view s) { return "\"" + escape_for_message(s) + "\""; }

std::string lower_extension(const std::string& name) {
  std::string e = std::filesystem::path(name).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// Finds a mesh file a scene names: next to the scene file, then in <source>/assets, then in <build>/assets
// (where the scanned meshes of libcgal-demo are extracted), then in $CONTACTLAB_ASSETS. A name that is there but
// is not a regular file (a directory, a pipe, a loop of symbolic links) is reported as what it is.
std::string find_mesh_file(const std::string& scene_file, const std::string& name, std::string* error) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (fs::path(name).is_absolute()) candidates.push_back(name);
  else {
    candidates.push_back(fs::path(scene_file).parent_path() / name);
    candidates.push_back(fs::path(CONTACTLAB_ASSETS_SOURCE) / name);
    candidates.push_back(fs::path(CONTACTLAB_ASSETS_BUILD) / name);
    if (const char* env = std::getenv("CONTACTLAB_ASSETS"); env && *env) candidates.push_back(fs::path(env) / name);
  }
  std::string problem;
  for (const fs::path& c : candidates) {
    struct stat st;
    if (::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return c.string();
    struct stat lst;
    if (problem.empty() && ::lstat(c.c_str(), &lst) == 0) {
      // There, but not a file that can be read: say what it is (read_text_file's words).
      std::string text, why;
      read_text_file(c.string(), 0, "mesh file", text, why);
      problem = why;
    }
  }
  *error = !problem.empty() ? problem
                            : "mesh file " + in_double_quotes(name) + " not found next to the scene, in assets/ or in the "
                              "build's assets/ (scanned meshes come from the libcgal-demo package: run bash "
                              ".ci/deps, then cmake again)";
  return {};
}

// Mesh shapes are immutable and shared: the same source (a file, or a generator with its parameters) with
// the same options is built once per process, as long as some body still uses it. `build` runs unlocked.
template <class Build>
std::shared_ptr<const MeshShape> shared_mesh_shape(const std::string& key, Build build) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const MeshShape>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto shared = cache[key].lock()) return shared;
  }
  std::shared_ptr<const MeshShape> shape = build();
  if (shape) {
    std::lock_guard<std::mutex> lock(mutex);
    cache[key] = shape;
  }
  return shape;
}

std::string options_key(const MeshShapeOptions& o) {
  std::ostringstream s;
  s.precision(17);
  s << "|scale=" << o.scale << "|resolution=" << o.sdf_resolution;
  return s.str();
}

// "" when a shape of `triangles` triangles fits the budget beside the shapes in use, else why not; `what` names
// the mesh and its size ("mesh file \"a.obj\" of 5000000 triangles").
std::string over_budget(std::uint64_t triangles, int resolution, const std::string& what) {
  const std::uint64_t need = mesh_shape_bytes(triangles, resolution), used = bytes_in_use(), budget = memory_budget();
  if (need + used <= budget) return "";
  return what + " with a distance grid of resolution " + std::to_string(resolution) + " needs about " + byte_size_text(need) +
         (used > 0 ? " beside the " + byte_size_text(used) + " of the meshes already loaded" : std::string()) +
         ", more than the memory budget of " + byte_size_text(budget) +
         " (--memory-budget or CONTACTLAB_MEMORY_BUDGET; a lower resolution takes less)";
}

// The shape of a mesh: within the budget, built, recorded. A failure to allocate is an error, not a crash.
std::shared_ptr<const MeshShape> build_shape(TriangleMesh mesh, const MeshShapeOptions& options, MeshSource source,
                                             const std::string& what, std::string* error) {
  const std::uint64_t triangles = mesh.triangles.size();
  if (std::string why = over_budget(triangles, options.sdf_resolution, what + " of " + std::to_string(triangles) + " triangles");
      !why.empty()) {
    *error = why;
    return nullptr;
  }
  try {
    std::shared_ptr<const MeshShape> shape = make_mesh_shape(std::move(mesh), options, error);
    if (!shape) return nullptr;
    SdfOptions sdf;
    sdf.resolution = options.sdf_resolution;
    const std::filesystem::path dir = SignedDistanceGrid::default_cache_dir();
    if (!dir.empty())
      source.grid_cache =
          SignedDistanceGrid::cache_file(dir, SignedDistanceGrid::cache_key(shape->mesh.vertices, shape->mesh.triangles, sdf))
              .string();
    source.bytes = mesh_shape_bytes(triangles, options.sdf_resolution);
    remember_mesh_source(shape, std::move(source));
    return shape;
  } catch (const std::bad_alloc&) {
    *error = what + ": out of memory while building its shape (" + std::to_string(triangles) +
             " triangles, distance grid resolution " + std::to_string(options.sdf_resolution) + ")";
    return nullptr;
  }
}

}  // namespace

void remember_mesh_source(const std::shared_ptr<const MeshShape>& shape, MeshSource source) {
  if (!shape) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sources[shape.get()] = {shape, std::move(source)};
}

std::optional<MeshSource> mesh_source(const std::shared_ptr<const MeshShape>& shape) {
  if (!shape) return std::nullopt;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.sources.find(shape.get());
  if (it == r.sources.end() || it->second.first.lock() != shape) return std::nullopt;
  return it->second.second;
}

std::optional<CylinderSize> procedural_cylinder(const Body& body) {
  if (body.shape.type != ShapeType::Mesh) return std::nullopt;
  const std::optional<MeshSource> source = mesh_source(body.shape.mesh);
  if (!source || source->generator != "cylinder") return std::nullopt;
  CylinderSize c;
  for (const auto& [name, values] : source->params) {
    if (name == "radius") c.radius = values[0];
    if (name == "half_height") c.half_height = values[0];
  }
  return c;
}

const TriangleMesh* convex_mesh(const Body& body) {
  if (body.shape.type != ShapeType::Mesh || !body.shape.mesh) return nullptr;
  const TriangleMesh& mesh = body.shape.mesh->mesh;
  return mesh.convex() ? &mesh : nullptr;
}

bool parse_byte_size(const std::string& text, std::uint64_t& bytes) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0) return false;
  std::uint64_t unit = 1;
  const std::string rest = end;
  if (rest == "K" || rest == "k") unit = 1ull << 10;
  else if (rest == "M" || rest == "m") unit = 1ull << 20;
  else if (rest == "G" || rest == "g") unit = 1ull << 30;
  else if (!rest.empty()) return false;
  if (n > UINT64_MAX / unit) return false;
  bytes = n * unit;
  return true;
}

std::string byte_size_text(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
  else if (bytes >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1ull << 20));
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  return buf;
}

std::uint64_t memory_budget() {
  if (const std::uint64_t set = budget_override.load(); set > 0) return set;
  std::uint64_t budget = 0;
  if (const char* env = std::getenv("CONTACTLAB_MEMORY_BUDGET"); env && *env) parse_byte_size(env, budget);
  if (budget == 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    budget = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 2 : std::uint64_t(4) << 30;
  }
  struct rlimit limit;
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    budget = std::min<std::uint64_t>(budget, std::uint64_t(limit.rlim_cur) / 4 * 3);
  return budget;
}

void set_memory_budget(std::uint64_t bytes) { budget_override.store(bytes); }

std::uint64_t mesh_shape_bytes(std::uint64_t triangles, int resolution) {
  // Measured peaks (resident memory): spheres of 500,000 and 1,000,000 triangles loaded at resolution 8 peaked at
  // 392 MB and 767 MB, about 770 bytes a triangle for the file's text, the parse, the mesh, its BVH and point
  // shell; the distance grid takes four bytes a node (a cube's (resolution + 1)^3 at most).
  constexpr std::uint64_t kPerTriangle = 800;
  const std::uint64_t nodes = std::uint64_t(resolution + 1) * std::uint64_t(resolution + 1) * std::uint64_t(resolution + 1);
  return triangles * kPerTriangle + nodes * 4;
}

std::shared_ptr<const MeshShape> load_mesh_shape(const std::string& scene_file, const std::string& name,
                                                 const MeshShapeOptions& options, std::string* error) {
  const std::string ext = lower_extension(name);
  if (ext != ".obj" && ext != ".off") {
    // Not read at all: a scene naming /etc/passwd learns nothing of its bytes.
    *error = "expected a mesh file name ending in .obj or .off, got " + in_double_quotes(name);
    return nullptr;
  }
  const std::string path = find_mesh_file(scene_file, name, error);
  if (path.empty()) return nullptr;
  std::error_code ec;
  const std::string key = "file:" + std::filesystem::weakly_canonical(path, ec).string() + options_key(options);
  return shared_mesh_shape(key, [&]() -> std::shared_ptr<const MeshShape> {
    // A file too big for the budget is refused before it is parsed: an OBJ or OFF file holds about one triangle
    // per 40 bytes (41 in a 1,000,000-triangle sphere). A denser one is caught after the parse, by its count.
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      const std::uint64_t bytes = std::uint64_t(st.st_size);
      const std::string what = "mesh file " + in_double_quotes(path) + " (" + std::to_string(bytes) + " bytes, about " +
                               std::to_string(bytes / 40) + " triangles)";
      if (std::string why = over_budget(bytes / 40, options.sdf_resolution, what); !why.empty()) {
        *error = why;
        return nullptr;
      }
    }
    try {
      MeshLoadResult loaded = load_mesh(path);
      if (!loaded.ok()) {
        *error = "cannot use mesh: " + loaded.error;
        return nullptr;
      }
      return build_shape(std::move(loaded.mesh), options, MeshSource{name, "", {}, path, "", 0},
                         "mesh file " + in_double_quotes(path), error);
    } catch (const std::bad_alloc&) {
      *error = "mesh file " + in_double_quotes(path) + ": out of memory while reading it";
      return nullptr;
    }
  });
}

std::shared_ptr<const MeshShape> procedural_mesh_shape(const std::string& type, const ProceduralParams& params,
                                                       const MeshShapeOptions& options, std::string* error) {
  std::ostringstream key;
  key.precision(17);
  key << "generator:" << type;
  for (const auto& [name, values] : params) {
    key << "|" << name;
    for (double x : values) key << ":" << x;
  }
  return shared_mesh_shape(key.str() + options_key(options), [&]() -> std::shared_ptr<const MeshShape> {
    try {
      TriangleMesh mesh = build_procedural(type, params, error);
      if (mesh.empty()) {
        *error = "cannot build the " + type + ": " + *error;
        return nullptr;
      }
      std::shared_ptr<const MeshShape> shape =
          build_shape(std::move(mesh), options, MeshSource{"", type, params, "", "", 0}, "the " + type, error);
      if (!shape) *error = "cannot use the " + type + ": " + *error;
      return shape;
    } catch (const std::bad_alloc&) {
      *error = "cannot build the " + type + ": out of memory";
      return nullptr;
    }
  });
}

std::vector<ReadFile> mesh_files_read(const World& world, const std::string& scene_file) {
  std::vector<ReadFile> out;
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const std::optional<MeshSource> source = mesh_source(world.bodies[i].shape.mesh);
    if (!source) continue;
    const std::string where = scene_file + ": /bodies/" + std::to_string(i) + "/shape";
    if (!source->path.empty()) out.push_back({"the mesh file of " + where + "/file", source->path});
    if (!source->grid_cache.empty()) out.push_back({"the cached distance grid of " + where, source->grid_cache});
  }
  return out;
}

}  // namespace cl
