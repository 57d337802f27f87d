#include "scene/mesh_source.h"

#include <map>
#include <mutex>
#include <utility>

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

}  // namespace cl
