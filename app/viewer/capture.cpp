#include "viewer/capture.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <stb_image_write.h>

#include "core/output_file.h"

namespace cl::viewer {

bool write_png_file(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb,
                    std::string* error) {
  // OpenGL's first row is the bottom one; PNG's is the top one: stb writes the rows from the last up.
  const int stride = width * 3;
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  stbi_flip_vertically_on_write(1);
  const int encoded = stbi_write_png_to_func(append, &png, width, height, 3, rgb.data(), stride);
  stbi_flip_vertically_on_write(0);
  if (!encoded) {
    *error = path + ": cannot encode the PNG";
    return false;
  }
  return write_output_file(path, png, "PNG image", *error);
}

bool FrameCapture::ffmpeg_available() {
  static const bool found = std::system("command -v ffmpeg > /dev/null 2>&1") == 0;
  return found;
}

bool FrameCapture::start(const std::string& base, int width, int height, int fps, bool png_only, std::string* error) {
  stop();
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(base).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) {
    *error = "cannot create the folder " + parent.string() + ": " + ec.message();
    return false;
  }
  width_ = width;
  height_ = height;
  frames_ = 0;
  if (!png_only && ffmpeg_available()) {
    // Raw RGB frames on stdin, flipped by ffmpeg (OpenGL's rows run bottom up); H.264 in yuv420p plays everywhere
    // (it needs even sides: the filter crops a pixel where one is odd). Into a temporary file beside the target.
    target_ = base + ".mp4";
    const fs::path t(target_);
    partial_ = (t.parent_path() / ("." + t.filename().string() + ".partial")).string();
    const std::string command = "ffmpeg -loglevel error -y -f rawvideo -pixel_format rgb24 -video_size " +
                                std::to_string(width) + "x" + std::to_string(height) + " -framerate " +
                                std::to_string(fps) + " -i - -vf \"vflip,crop=trunc(iw/2)*2:trunc(ih/2)*2\" " +
                                "-c:v libx264 -pix_fmt yuv420p -f mp4 \"" + partial_ + "\"";
    pipe_ = popen(command.c_str(), "w");
    if (!pipe_) {
      *error = "cannot start ffmpeg for " + target_;
      return false;
    }
  } else {
    target_ = base;
    partial_.clear();
    fs::create_directories(target_, ec);
    if (ec) {
      *error = "cannot create the folder " + target_ + ": " + ec.message();
      return false;
    }
  }
  active_ = true;
  return true;
}

bool FrameCapture::add(const std::vector<unsigned char>& rgb, int width, int height, std::string* error) {
  if (!active_) return false;
  if (width != width_ || height != height_) {
    *error = "the window changed size: recording stopped (" + stop() + ")";
    return false;
  }
  if (pipe_) {
    if (std::fwrite(rgb.data(), 1, rgb.size(), pipe_) != rgb.size()) {
      *error = "ffmpeg stopped taking frames: recording stopped (" + stop() + ")";
      return false;
    }
  } else {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%05d.png", frames_);
    const std::string path = (std::filesystem::path(target_) / name).string();
    std::string why;
    if (!write_png_file(path, width, height, rgb, &why)) {
      *error = why + ": recording stopped (" + stop() + ")";
      return false;
    }
  }
  ++frames_;
  return true;
}

std::string FrameCapture::stop() {
  if (!active_) return "";
  active_ = false;
  bool ok = true;
  std::error_code ec;
  if (pipe_) {
    ok = pclose(pipe_) == 0;
    pipe_ = nullptr;
    // Only a video that ffmpeg finished replaces an earlier file of that name.
    if (ok) std::filesystem::rename(partial_, target_, ec);
    if (!ok || ec) {
      std::filesystem::remove(partial_, ec);
      return std::to_string(frames_) + " frames, but no video: ffmpeg reported an error writing " + target_;
    }
  }
  const std::string where = std::filesystem::absolute(target_, ec).string();
  return std::to_string(frames_) + (frames_ == 1 ? " frame in " : " frames in ") + where;
}

}  // namespace cl::viewer
