// The interactive viewer: a GLFW window with OpenGL 4.5 rendering and Dear ImGui panels.
#pragma once

#include <string>
#include <vector>

namespace cl {

struct ViewerOptions {
  std::string scene_path;       // scene to open (the default scene when empty)
  std::string solver;           // override the scene's solver ("" keeps it)
  std::vector<std::pair<std::string, std::string>> params;  // --set name=value overrides
  double dt = 0.0;              // override the scene's dt (0 keeps it)
  std::string screenshot_path;  // when set: render `frames` frames, save a PNG, exit
  int frames = 60;
  int width = 1280, height = 720;
  // Overlays and selection to start with, e.g. "graph,heights,select=box3" (see apply_view_spec in
  // viewer/session.h). Empty: $CONTACTLAB_VIEW if set. Mostly for screenshots of the overlays.
  std::string view;
  // --lanes "lcp,volume": comparison lanes, the first replacing the scene's solver (as --solver would), the
  // others beside it. Empty: the scene's own "lanes", if any.
  std::string lanes;
  std::string record_path;  // --record FILE: the run as a replay, written when the viewer closes
  std::string replay_path;  // --replay FILE: plays the replay (its scene, lanes and edits) with the timeline
  // --video FILE.mp4 with --replay: the replay played from its start, one step a frame, into a video timed by
  // simulated time at `video_fps` frames per second; the viewer closes at the replay's end.
  std::string video_path;
  int video_fps = 60;
};

// Runs the viewer until the window closes. Returns the process exit code
// (0 ok, 2 bad input such as an unreadable scene given on the command line, 1 no OpenGL context).
int run_viewer(const ViewerOptions& options);

}  // namespace cl
