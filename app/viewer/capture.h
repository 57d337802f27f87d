// Recording the 3D view frame by frame: into a video through ffmpeg when the `ffmpeg` program is on the PATH
// (Debian's ffmpeg package; optional), else as a numbered PNG sequence in a folder. The viewer reads each drawn
// frame back (RGB, bottom row first, as OpenGL gives it) and hands it over.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace cl::viewer {

// Writes width x height RGB pixels (bottom row first, as OpenGL reads them) as a PNG file, whole to a temporary
// file first, then put in place: a full disk or an unwritable place is an error (false with *error), and the
// earlier file stays.
bool write_png_file(const std::string& path, int width, int height, const std::vector<unsigned char>& bottom_up_rgb,
                    std::string* error);

// Videos are timed by simulated time: frame k of a video covers [k, k + 1) / fps seconds of simulation after its
// start. The frames due when `elapsed` seconds of simulation have passed and `written` frames are in the video:
// none while paused (or stepped back), several when the simulation passed more than one frame's time since the
// window drew last.
inline constexpr int kVideoFps = 60;
inline int video_frames_due(double elapsed, int fps, int written) {
  if (!(elapsed > 0.0)) return 0;
  // A hair of tolerance: 3 s at 60 fps is 180 frames, not 179 because 3.0 * 60 came out as 179.99999.
  const double due = std::floor(elapsed * fps + 1e-6);
  return due > double(written) ? int(due) - written : 0;
}

class FrameCapture {
 public:
  FrameCapture() = default;
  FrameCapture(const FrameCapture&) = delete;
  FrameCapture& operator=(const FrameCapture&) = delete;
  ~FrameCapture() { stop(); }

  // Starts a recording of width x height frames at `fps` named `base` (a path without extension): base.mp4
  // through ffmpeg (unless `png_only`), else the folder base/ with frame_00000.png, ... False with *error when
  // neither can be opened. The video goes to a temporary file beside base.mp4 until stop() puts it in place.
  bool start(const std::string& base, int width, int height, int fps, bool png_only, std::string* error);
  // Adds one frame (width * height * 3 bytes, RGB, bottom row first). A frame of another size (the window was
  // resized) ends the recording: false with *error.
  bool add(const std::vector<unsigned char>& bottom_up_rgb, int width, int height, std::string* error);
  // Ends the recording (closes the video, waiting for ffmpeg); returns what was written, e.g. "120 frames in
  // X.mp4", or "" when nothing was recording.
  std::string stop();

  bool active() const { return active_; }
  int frames() const { return frames_; }
  const std::string& target() const { return target_; }  // the video file or the PNG folder

  static bool ffmpeg_available();  // `ffmpeg` on the PATH (looked up once)

 private:
  bool active_ = false;
  FILE* pipe_ = nullptr;  // ffmpeg's stdin, or nullptr for a PNG sequence
  int width_ = 0, height_ = 0, frames_ = 0;
  std::string target_;
  std::string partial_;  // the video being written, renamed to target_ by stop()
};

}  // namespace cl::viewer
