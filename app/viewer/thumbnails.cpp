#include "viewer/thumbnails.h"

#include <chrono>
#include <filesystem>
#include <system_error>
#include <vector>

#include <unistd.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "viewer/session.h"

namespace cl::viewer {

namespace fs = std::filesystem;

namespace {
constexpr int kSupersample = 2;  // drawn at twice the size, averaged down (the default framebuffer's MSAA is not there)

std::string item_key(const SceneEntry& e) { return e.path + "\n" + std::to_string(e.mtime); }
}  // namespace

ThumbnailCache::~ThumbnailCache() {
  if (load_.valid()) load_.wait();
  for (auto& [key, item] : items_)
    if (item.texture != 0) glDeleteTextures(1, &item.texture);
  if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
  if (color_ != 0) glDeleteRenderbuffers(1, &color_);
  if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
}

bool ThumbnailCache::init(const std::string& shader_dir, std::string* error) {
  if (!renderer_.init(shader_dir, error)) return false;
  const int w = kThumbWidth * kSupersample, h = kThumbHeight * kSupersample;
  glCreateRenderbuffers(1, &color_);
  glNamedRenderbufferStorage(color_, GL_RGBA8, w, h);
  glCreateRenderbuffers(1, &depth_);
  glNamedRenderbufferStorage(depth_, GL_DEPTH_COMPONENT24, w, h);
  glCreateFramebuffers(1, &framebuffer_);
  glNamedFramebufferRenderbuffer(framebuffer_, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
  glNamedFramebufferRenderbuffer(framebuffer_, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  if (glCheckNamedFramebufferStatus(framebuffer_, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    *error = "the thumbnails' offscreen framebuffer is incomplete";
    return false;
  }
  ready_ = true;
  return true;
}

GLuint ThumbnailCache::texture(const SceneEntry& entry) {
  const std::string key = item_key(entry);
  auto it = items_.find(key);
  if (it == items_.end()) {
    it = items_.emplace(key, Item{entry, Status::Queued, 0}).first;
    queue_.push_back(key);
  }
  return it->second.texture;
}

void ThumbnailCache::upload(Item& item, const unsigned char* rgb) {
  glCreateTextures(GL_TEXTURE_2D, 1, &item.texture);
  glTextureStorage2D(item.texture, 1, GL_RGB8, kThumbWidth, kThumbHeight);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTextureSubImage2D(item.texture, 0, 0, 0, kThumbWidth, kThumbHeight, GL_RGB, GL_UNSIGNED_BYTE, rgb);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureParameteri(item.texture, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(item.texture, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  item.status = Status::Ready;
}

bool ThumbnailCache::draw(Item& item, World& world) {
  const int w = kThumbWidth * kSupersample, h = kThumbHeight * kSupersample;
  // The scene as it was loaded, framed whole (no panels around a thumbnail), with the view's defaults.
  auto app = std::make_unique<AppState>();
  app->viewport_width = float(w);
  app->viewport_height = float(h);
  app->scene.world = std::move(world);
  frame_scene(*app, true);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  renderer_.draw(*app, w, h);
  std::vector<unsigned char> pixels(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // Averaged down, and turned upside down (OpenGL's first row is the bottom one).
  std::vector<unsigned char> rgb(size_t(kThumbWidth) * kThumbHeight * 3);
  for (int y = 0; y < kThumbHeight; ++y)
    for (int x = 0; x < kThumbWidth; ++x)
      for (int c = 0; c < 3; ++c) {
        int sum = 0;
        for (int dy = 0; dy < kSupersample; ++dy)
          for (int dx = 0; dx < kSupersample; ++dx)
            sum += pixels[(size_t(y * kSupersample + dy) * size_t(w) + size_t(x * kSupersample + dx)) * 4 + size_t(c)];
        rgb[(size_t(kThumbHeight - 1 - y) * kThumbWidth + size_t(x)) * 3 + size_t(c)] =
            static_cast<unsigned char>(sum / (kSupersample * kSupersample));
      }
  upload(item, rgb.data());
  ++drawn_;
  // Kept for the next start; written under a name of this process's then renamed, so that another viewer never
  // reads half a file. A cache that cannot be written only means drawing it again next time.
  const std::string path = thumbnail_path(item.entry);
  if (!path.empty()) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    const std::string part = path + ".part" + std::to_string(::getpid());
    if (!ec && stbi_write_png(part.c_str(), kThumbWidth, kThumbHeight, 3, rgb.data(), kThumbWidth * 3) != 0)
      fs::rename(part, path, ec);
    else ec = std::make_error_code(std::errc::io_error);
    if (ec) fs::remove(part, ec);
  }
  return true;
}

void ThumbnailCache::update(bool wait) {
  if (!ready_) return;
  if (wait && load_.valid()) load_.wait();
  // A finished load: draw it.
  if (load_.valid() && load_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    SceneLoadResult result = load_.get();
    Item& item = items_[loading_];
    if (result.ok()) draw(item, result.world);
    else item.status = Status::Failed;
    loading_.clear();
  }
  // Cached ones at once (reading a small PNG is quick); the next scene to draw goes to the worker.
  while (!queue_.empty() && !load_.valid()) {
    const std::string key = queue_.front();
    queue_.pop_front();
    Item& item = items_[key];
    const std::string path = thumbnail_path(item.entry);
    int w = 0, h = 0, channels = 0;
    unsigned char* rgb = path.empty() ? nullptr : stbi_load(path.c_str(), &w, &h, &channels, 3);
    if (rgb != nullptr && w == kThumbWidth && h == kThumbHeight) {
      upload(item, rgb);
      ++read_;
      stbi_image_free(rgb);
      continue;
    }
    if (rgb != nullptr) stbi_image_free(rgb);
    item.status = Status::Loading;
    loading_ = key;
    load_ = std::async(std::launch::async, [p = item.entry.path] { return load_scene_file(p); });
  }
}

}  // namespace cl::viewer
