// run_viewer: the window, the frame loop and screenshot mode. The pieces live in
//   session.cpp  (scenes and stepping), input.cpp (camera and picking), panels*.cpp and menu_bar.cpp (ImGui
//   panels, one file per window or group; panels.h), renderer.cpp and renderer_overlays.cpp (OpenGL drawing),
//   camera.cpp, meshes.cpp, gl_util.cpp.
#include "viewer/viewer.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include "core/text.h"
#include "viewer/capture.h"
#include "viewer/input.h"
#include "viewer/input_glfw.h"
#include "viewer/panels.h"
#include "viewer/renderer.h"
#include "viewer/session.h"
#include "viewer/timeline.h"
#include "viewer/thumbnails.h"
#include "viewer/view_spec.h"
#include "viewer/debug_view.h"

namespace cl {

namespace {

using viewer::AppState;
using viewer::InputQueue;

// GLFW's errors while the window opens are kept for the one message that says it could not (no display: "X11: The
// DISPLAY environment variable is missing"); later ones are printed as they come, one line each.
std::string* glfw_errors_kept = nullptr;

void glfw_error(int code, const char* description) {
  const std::string text = escape_for_message(description != nullptr ? description : "");
  if (glfw_errors_kept != nullptr) {
    *glfw_errors_kept += (glfw_errors_kept->empty() ? "" : "; ") + text;
    return;
  }
  std::cerr << "contactlab: GLFW error " << code << ": " << text << "\n";
}

// ": what GLFW said" when it said anything, for the end of a message.
std::string glfw_said(const std::string& errors) { return errors.empty() ? std::string() : ": " + errors; }

// Owns GLFW, the window and the ImGui context, and tears them down in order on every return path.
struct WindowSystem {
  GLFWwindow* window = nullptr;
  bool glfw_ready = false, imgui_ready = false;

  ~WindowSystem() {
    if (imgui_ready) {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
    }
    if (window != nullptr) glfwDestroyWindow(window);
    if (glfw_ready) glfwTerminate();
  }

  // False with a message on stderr when there is no display or no OpenGL 4.5 core context. The window's input
  // goes into `queue` (input_glfw.h), which ImGui is fed from a frame at a time.
  bool open(int width, int height, bool visible, InputQueue* queue) {
    std::string errors;
    glfw_errors_kept = &errors;
    const bool opened = open_window(width, height, visible, queue, errors);
    glfw_errors_kept = nullptr;
    // Opened all the same: what GLFW said on the way is still said.
    if (opened && !errors.empty()) std::cerr << "contactlab: GLFW: " << errors << "\n";
    return opened;
  }

  bool open_window(int width, int height, bool visible, InputQueue* queue, const std::string& errors) {
    glfwSetErrorCallback(glfw_error);
    if (glfwInit() != GLFW_TRUE) {
      std::cerr << "contactlab: cannot initialise GLFW" << glfw_said(errors)
                << " (no display? under a headless system use xvfb-run -a -s '-screen 0 1280x720x24' contactlab ...)\n";
      return false;
    }
    glfw_ready = true;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    window = glfwCreateWindow(width, height, "ContactLab", nullptr, nullptr);
    if (window == nullptr) {
      std::cerr << "contactlab: cannot create a window with an OpenGL 4.5 core context" << glfw_said(errors)
                << " (the GPU driver may be too old; Mesa's llvmpipe works)\n";
      return false;
    }
    glfwMakeContextCurrent(window);
    if (gladLoadGL(glfwGetProcAddress) == 0) {
      std::cerr << "contactlab: cannot load the OpenGL 4.5 functions" << glfw_said(errors) << "\n";
      return false;
    }

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    imgui_ready = true;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // same layout every start (and screenshots), no file left in the cwd
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    // Opaque: the 3D view has its own part of the window, and text behind a menu must not read as part of it.
    style.Colors[ImGuiCol_WindowBg].w = 1.0f;
    style.Colors[ImGuiCol_PopupBg].w = 1.0f;
    style.Colors[ImGuiCol_MenuBarBg].w = 1.0f;
    ImGui_ImplGlfw_InitForOpenGL(window, false);  // our callbacks queue the events (input_glfw.h)
    install_input_callbacks(window, queue);
    ImGui_ImplOpenGL3_Init("#version 450 core");
    return true;
  }
};

// Reads the back buffer (after the frame is drawn, before the swap): RGB, the bottom row first.
void read_frame(int width, int height, std::vector<unsigned char>& pixels) {
  pixels.resize(static_cast<size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
}

// Writes the back buffer as a PNG: false with *error when it could not be written whole.
bool write_screenshot(const std::string& path, int width, int height, std::string* error) {
  std::vector<unsigned char> pixels;
  read_frame(width, height, pixels);
  return viewer::write_png_file(path, width, height, pixels, error);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

void update_title(GLFWwindow* window, const AppState& app, int& shown_generation) {
  if (shown_generation == app.scene.generation) return;
  shown_generation = app.scene.generation;
  const std::string title = "ContactLab - " + app.scene.world.name + " (" + app.scene.path + ")";
  glfwSetWindowTitle(window, title.c_str());
}

}  // namespace

int run_viewer(const ViewerOptions& options) {
  AppState app;
  app.viewport_width = static_cast<float>(options.width);
  app.viewport_height = static_cast<float>(options.height);
  app.scene.root = viewer::resolve_root();
  app.scene.files = viewer::list_scene_files(app.scene.root);

  // The scene first: a bad file is reported (exit 2) even where no window could be opened.
  const std::string path =
      options.scene_path.empty() ? app.scene.root + "/scenes/default.json" : options.scene_path;
  std::string error;
  if (!options.replay_path.empty()) {  // --replay: the replay's scene, lanes and edits, played with the timeline
    if (!viewer::open_replay(app, options.replay_path, &error)) {
      std::cerr << "contactlab: cannot play the replay: " << escape_for_message(error) << "\n";
      return 2;
    }
  } else if (!viewer::open_scene(app, path, &options, &error)) {
    std::cerr << "contactlab: cannot load scene: " << error << "\n";
    return 2;
  }
  // As headless: what the solver does not honour goes to stderr too (the window shows it in a banner).
  for (const std::string& w : app.scene.world.unsupported_features())
    std::cerr << "contactlab: warning: " << path << ": " << w << "\n";

  // Start-up overlays (for screenshots): a mistake is reported but does not stop the viewer.
  const char* env_view = std::getenv("CONTACTLAB_VIEW");
  const std::string view_spec = !options.view.empty() ? options.view : env_view != nullptr ? env_view : "";
  if (!view_spec.empty() && !viewer::apply_view_spec(app, view_spec, &error)) {
    std::cerr << "contactlab: ignoring the rest of the view settings: " << error << "\n";
  }

  // --record: checked (and begun) before the window opens; written when the viewer closes.
  if (!options.record_path.empty() && !viewer::start_replay_recording(app, options.record_path, &error)) {
    std::cerr << "contactlab: --record: " << escape_for_message(error) << "\n";
    return 2;
  }
  const auto write_record = [&app]() {
    std::string why;
    if (!app.timeline.recording) return true;
    if (viewer::write_replay_recording(app, &why)) {
      std::cout << "recorded the replay " << app.timeline.record_path << " (" << app.timeline.record.steps << " steps, "
                << app.timeline.record.edits.size() << " edits)\n";
      return true;
    }
    std::cerr << "contactlab: " << escape_for_message(why) << "\n";
    return false;
  };

  const bool screenshot = !options.screenshot_path.empty();
  // --video: a replay exported, one step a frame from its start; checked before the window opens as well.
  const bool exporting = !options.video_path.empty();
  if (exporting) {
    if (const std::string why = viewer::check_output(app, options.video_path, "--video"); !why.empty()) {
      std::cerr << "contactlab: " << escape_for_message(why) << "\n";
      return 2;
    }
    app.ui.recording_video = true;
    app.ui.video_png = false;
  }
  const int video_fps = exporting ? options.video_fps : viewer::kVideoFps;
  // The screenshot is checked before the window opens: never the scene or a mesh it reads, never a directory,
  // in a folder that takes a new file.
  if (screenshot) {
    if (const std::string why = viewer::check_output(app, options.screenshot_path, "--screenshot"); !why.empty()) {
      std::cerr << "contactlab: " << escape_for_message(why) << "\n";
      return 2;
    }
  }
  // The first launch (no marker yet) opens with the welcome; screenshots never do, unless --view welcome.
  if (!screenshot) {
    const std::string marker = viewer::welcome_marker_path();
    std::error_code ec;
    if (!marker.empty() && !std::filesystem::exists(marker, ec)) app.ui.welcome = true;
  }
  // The welcome holds the simulation at its start until Start is pressed, so that nothing is missed behind it.
  if (app.ui.welcome) app.sim.playing = false;
  // Test hooks (tests/app/viewer_input.sh): synthetic input put into the queue after given frames, and frames made
  // to last at least a given time, as on a scene that draws at 0.5 fps.
  std::vector<viewer::ScriptedInput> scripted;
  if (const char* script = std::getenv("CONTACTLAB_TEST_INPUT"); script != nullptr) {
    if (!viewer::parse_input_script(script, scripted, &error)) {
      std::cerr << "contactlab: CONTACTLAB_TEST_INPUT: " << error << "\n";
      return 2;
    }
    app.ui.log_actions = true;
  }
  const char* frame_ms_env = std::getenv("CONTACTLAB_TEST_FRAME_MS");
  const int min_frame_ms = frame_ms_env != nullptr ? std::max(0, std::atoi(frame_ms_env)) : 0;
  InputQueue input;
  WindowSystem system;
  if (!system.open(options.width, options.height, true, &input)) return 2;  // no display: the environment
  glfwSwapInterval(screenshot ? 0 : 1);

  viewer::Renderer renderer;
  if (!renderer.init(app.scene.root + "/shaders", &error)) {
    std::cerr << "contactlab: cannot build the shaders: " << escape_for_message(error) << "\n";
    return 2;
  }
  glEnable(GL_MULTISAMPLE);
  // The scene browser's thumbnails: drawn by a renderer of their own (so the scene's GPU meshes stay), cached.
  viewer::ThumbnailCache thumbnails;
  if (!thumbnails.init(app.scene.root + "/shaders", &error))
    std::cerr << "contactlab: the scene browser will have no thumbnails: " << escape_for_message(error) << "\n";

  // ImGui lays out auto-sized windows over the first frames, so screenshots render at least a few.
  const int frames_to_render = screenshot ? std::max(options.frames, 3) : 0;
  int shown_generation = -1;
  std::vector<double> frame_ms, stepping_ms;
  viewer::FrameCapture video;  // F9
  double video_start = 0.0;    // the simulated time the video starts at, s
  std::vector<unsigned char> frame_pixels;
  for (int frame = 0; !glfwWindowShouldClose(system.window); ++frame) {
    const auto frame_start = std::chrono::steady_clock::now();
    app.ui.frame = frame;
    glfwPollEvents();
    for (const viewer::ScriptedInput& s : scripted)
      if (s.frame == frame) viewer::inject_input(system.window, s.event);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    viewer::feed_imgui(system.window, input);
    // Screenshots show no hover (the X server's cursor may rest over the window), unless input is scripted.
    if (screenshot && scripted.empty()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    // While input waits in the queue, frames do not step the simulation, so that it drains at the drawing's rate.
    const bool input_waiting = !input.empty();
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();

    viewer::handle_view_input(app);
    const double time_before_steps = app.scene.world.time();  // a video switched on in this frame starts here
    const auto step_start = std::chrono::steady_clock::now();
    if (screenshot) {
      // One step per frame regardless of wall time, so a screenshot after N frames is reproducible.
      if (frame < options.frames && !app.ui.welcome) viewer::step_once(app);
    } else if (exporting) {
      if (frame > 0) viewer::step_once(app);  // the first frame shows the replay's start
    } else if (!input_waiting) {
      viewer::advance_simulation(app, io.DeltaTime);
    }
    viewer::follow_camera(app);
    viewer::timeline_frame(app, io.DeltaTime);
    const double step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - step_start).count();
    app.stats.fps.push(io.Framerate);
    viewer::update_force_reference(app.view, app.scene.world.contact_report());
    viewer::refresh_debug_drawing(app);  // the solvers' drawing at the poses just stepped to, for panels and drawing
    viewer::draw_panels(app);
    viewer::draw_scene_browser(app, [&thumbnails](const viewer::SceneEntry& e) { return thumbnails.texture(e); });
    // Screenshots wait for a thumbnail being drawn, so that they do not depend on how fast scenes load.
    thumbnails.update(screenshot);
    viewer::refresh_debug_drawing(app);  // and after the panels' toggles and parameters (nothing if unchanged)
    update_title(system.window, app, shown_generation);

    ImGui::Render();
    int fb_width = 0, fb_height = 0;
    glfwGetFramebufferSize(system.window, &fb_width, &fb_height);
    if (fb_width <= 0 || fb_height <= 0) {  // minimised: nothing to draw, don't spin the CPU
      glfwWaitEventsTimeout(0.05);
      continue;
    }
    renderer.draw(app, fb_width, fb_height);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    // Screenshot mode reports the frame's wall time apart from the stepping inside it (every lane's step), so
    // that drawing and stepping can be told apart: the frame ends once its drawing has finished.
    if (screenshot) {
      glFinish();
      frame_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count());
      stepping_ms.push_back(step_ms);
    }
    if (app.ui.screenshot_requested) {  // F12: this frame as drawn, into the output folder
      app.ui.screenshot_requested = false;
      const std::string png = viewer::output_name(app, "") + ".png";
      std::error_code ec;
      std::string folder_error;
      if (!viewer::make_output_dir(app, &folder_error)) app.ui.screenshot_message = folder_error;
      else if (std::string why = viewer::check_output(app, png, "the screenshot"); !why.empty())
        app.ui.screenshot_message = why;
      else
        app.ui.screenshot_message = write_screenshot(png, fb_width, fb_height, &folder_error)
                                        ? "saved " + std::filesystem::absolute(png, ec).string()
                                        : folder_error;
    }
    // F9: a video (or a PNG sequence) from the frame it is switched on to the one it is switched off, timed by
    // simulated time: at 60 frames per second of playback, frame k shows the simulation (k + 1) / 60 s after the
    // start (the time before the steps of the frame it was switched on in), so a video of 3 s of simulation lasts
    // 3 s whatever the speed the window achieved.
    if (app.ui.recording_video && !video.active()) {
      std::string video_error;
      // start() creates the output folder when missing.
      const std::string base = exporting ? options.video_path.substr(0, options.video_path.size() - 4)
                                         : viewer::output_name(app, "video");
      if (!video.start(base, fb_width, fb_height, video_fps, app.ui.video_png, &video_error)) {
        if (exporting) {
          std::cerr << "contactlab: --video: " << escape_for_message(video_error) << "\n";
          return 2;
        }
        app.ui.recording_video = false;
        app.ui.screenshot_message = "cannot record: " + video_error;
      }
      video_start = time_before_steps;
    }
    if (!app.ui.recording_video && video.active()) app.ui.screenshot_message = "recorded " + video.stop();
    if (video.active()) {
      std::string video_error;
      const int due = viewer::video_frames_due(app.scene.world.time() - video_start, video_fps, video.frames());
      if (due > 0) read_frame(fb_width, fb_height, frame_pixels);
      for (int k = 0; k < due && video.active(); ++k) {
        if (!video.add(frame_pixels, fb_width, fb_height, &video_error)) {
          app.ui.recording_video = false;
          app.ui.screenshot_message = video_error;
        }
      }
    }
    // --video: at the replay's end (or where lane 1 stopped), the video is put in place and the viewer closes.
    if (exporting && (app.scene.world.step_count() >= app.timeline.replay.steps || !app.sim.step_error.empty())) {
      const std::string written = video.active() ? video.stop() : std::string();
      if (written.empty() || written.find("no video") != std::string::npos) {
        std::cerr << "contactlab: --video: " << (written.empty() ? app.ui.screenshot_message : written) << "\n";
        return 2;
      }
      std::cout << "recorded " << written << " (" << app.scene.world.step_count() << " steps, "
                << app.scene.world.time() << " s of simulation at " << video_fps << " frames per second)\n";
      if (!app.timeline.message.empty()) std::cout << app.timeline.message << "\n";
      return app.sim.step_error.empty() ? 0 : 3;
    }
    if (screenshot && frame + 1 >= frames_to_render) {
      std::string why;
      if (!write_screenshot(options.screenshot_path, fb_width, fb_height, &why)) {
        std::cerr << "contactlab: " << escape_for_message(why) << "\n";
        return 2;
      }
      const bool had_video = video.active();
      if (had_video) std::cout << "recorded " << video.stop() << "\n";
      if (!write_record()) return 2;
      if (!app.timeline.message.empty()) std::cout << app.timeline.message << "\n";
      if (!had_video && !app.ui.screenshot_message.empty()) std::cout << app.ui.screenshot_message << "\n";
      std::cout << "wrote " << options.screenshot_path << " (" << fb_width << "x" << fb_height << ", "
                << app.scene.world.step_count() << " steps, " << viewer::lane_count(app) << " lanes; median frame "
                << median(frame_ms) << " ms, of which stepping " << median(stepping_ms) << " ms)\n";
      if (thumbnails.drawn() + thumbnails.read() > 0)
        std::cout << "scene browser thumbnails: " << thumbnails.drawn() << " drawn, " << thumbnails.read()
                  << " read from the cache " << viewer::thumbnail_dir() << "\n";
      // As without a window: a simulation that failed is exit 3 (the screenshot shows where it stopped).
      if (!app.sim.step_error.empty()) {
        std::cerr << "contactlab: " << escape_for_message(path) << ": simulation stopped: "
                  << escape_for_message(app.sim.step_error) << "\n";
        return 3;
      }
      return 0;
    }
    glfwSwapBuffers(system.window);
    if (min_frame_ms > 0) std::this_thread::sleep_until(frame_start + std::chrono::milliseconds(min_frame_ms));
  }
  if (video.active()) std::cout << "recorded " << video.stop() << "\n";
  if (!write_record()) return 2;
  if (app.stats.recording) {  // don't lose a recording on close
    viewer::stop_recording(app);
    if (app.stats.error.empty()) std::cout << "recorded " << app.stats.csv_path << " and " << app.stats.trace_path << "\n";
    else std::cerr << "contactlab: " << app.stats.error << "\n";
  }
  return 0;
}

}  // namespace cl
