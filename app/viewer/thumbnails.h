// Thumbnails of the scene browser, drawn by the viewer itself: each scene is loaded on a worker thread, framed
// whole and drawn by a renderer of its own into an offscreen framebuffer (kThumbWidth x kThumbHeight, drawn at
// twice that and averaged down), then kept as a PNG under thumbnail_dir() keyed by the file's path and
// modification time, so that the next start reads it instead of drawing it again.
#pragma once

#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <string>

#include <glad/gl.h>

#include "scene/scene.h"
#include "viewer/renderer.h"
#include "viewer/scene_browser.h"

namespace cl::viewer {

class ThumbnailCache {
 public:
  ThumbnailCache() = default;
  ThumbnailCache(const ThumbnailCache&) = delete;
  ThumbnailCache& operator=(const ThumbnailCache&) = delete;
  ~ThumbnailCache();

  // Needs a current GL 4.5 context; loads the renderer's shaders from `shader_dir`.
  bool init(const std::string& shader_dir, std::string* error);
  // The GL texture of the scene's thumbnail, 0 while it is not ready yet (asking for it queues it) or when the
  // scene does not load.
  GLuint texture(const SceneEntry& entry);
  // Once per frame: reads cached PNGs of the queue and draws at most one scene whose loading has finished, then
  // starts loading the next one. With `wait` (screenshots, which must not depend on timing) a load under way is
  // waited for. Leaves the default framebuffer bound.
  void update(bool wait = false);
  // Thumbnails drawn (not read from the cache) and read from the cache so far.
  int drawn() const { return drawn_; }
  int read() const { return read_; }

 private:
  enum class Status { Queued, Loading, Ready, Failed };
  struct Item {
    SceneEntry entry;
    Status status = Status::Queued;
    GLuint texture = 0;
  };
  // Makes the item's texture from RGB rows, top row first.
  void upload(Item& item, const unsigned char* rgb);
  bool draw(Item& item, World& world);

  Renderer renderer_;
  bool ready_ = false;
  GLuint framebuffer_ = 0, color_ = 0, depth_ = 0;
  std::map<std::string, Item> items_;  // by thumbnail key (path and modification time)
  std::deque<std::string> queue_;      // keys waiting to be read or drawn, in the order asked
  std::string loading_;                // key of the scene being loaded on the worker
  std::future<SceneLoadResult> load_;
  int drawn_ = 0, read_ = 0;
};

}  // namespace cl::viewer
