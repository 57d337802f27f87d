// Everything the viewer remembers between frames, grouped by the panel that edits it.
// Panels and input handlers receive this struct; none of them keeps function-local statics, so the
// whole UI state is visible here (and a second viewer instance would not share anything).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "telemetry/telemetry.h"
#include "viewer/camera.h"
#include "world/world.h"

namespace cl::viewer {

// A fixed-length history of samples for ImGui::PlotLines: a ring buffer read with values_offset.
struct History {
  static constexpr int kLength = 240;
  std::array<float, kLength> values{};
  int next = 0;  // where the next sample goes, which is also the oldest sample

  void push(float v) { values[next] = v; next = (next + 1) % kLength; }
  float latest() const { return values[(next + kLength - 1) % kLength]; }
  float max() const {
    float m = 0.0f;
    for (float v : values) m = v > m ? v : m;
    return m;
  }
};

struct SceneState {
  std::string root;       // directory holding scenes/ and shaders/
  std::string path;       // file currently loaded
  World loaded;           // the world as loaded (with command-line overrides): Reset returns here
  World world;            // the running simulation
  std::vector<std::string> files;  // file names found in <root>/scenes, for the combo
  std::string open_path;  // what is typed in the Scene panel
  std::string save_path;
  std::string error;      // last load or save error, shown in red; the current scene stays
  std::string message;    // last success message ("saved to ...")
  std::vector<std::string> warnings;  // from the last successful load
  bool keep_settings_on_reset = true;  // Reset and Reload keep the solver, its parameters and dt chosen in the UI
  int generation = 0;  // bumped on every load so views can notice a new scene
};

struct SimState {
  bool playing = true;
  float speed = 1.0f;          // simulated seconds per real second
  double accumulator = 0.0;    // simulated time owed to the world, s
  int max_steps_per_frame = 4; // beyond this the simulation slows down instead of freezing the UI
  std::string step_error;      // set when a step failed; stepping stays off until Reset
};

struct SolverUiState {
  std::string error;  // last rejected parameter or solver switch
};

struct ViewState {
  bool show_contacts = true;
  bool show_normals = false;
  bool show_impulses = false;
  bool show_grid = true;
  bool show_shadows = true;
  bool wireframe = false;
  float normal_length = 0.25f;     // m
  bool auto_impulse_scale = true;  // the largest recent impulse is drawn `impulse_length` long
  float impulse_length = 0.6f;     // m, with the automatic scale
  float impulse_scale = 1.0f;      // m per N s, without it
  float impulse_reference = 0.0f;  // N s: slowly decaying maximum for the automatic scale
  float drag_stiffness = 100.0f;   // N/m per kg of the dragged body
  float drag_damping = 12.0f;      // N s/m per kg
};

struct StatsState {
  // Wall time per stage over the last steps (ms), in StepProfile order, and frames per second.
  static constexpr int kStages = 6;
  std::array<History, kStages> stage_ms;
  History fps;
  Recorder recorder;
  bool recording = false;
  std::string csv_path, trace_path;  // written by the last Stop
  std::string error;
};

struct PickState {
  int selected = -1;       // body index, -1 for none
  bool dragging = false;
  Vec3 local_anchor{0, 0, 0};  // grabbed point in the body frame
  Vec3 plane_point{0, 0, 0};   // the target moves in the plane through this point facing the camera
  Vec3 plane_normal{0, 0, 1};
  Vec3 target{0, 0, 0};
};

struct AppState {
  SceneState scene;
  SimState sim;
  SolverUiState solver;
  ViewState view;
  StatsState stats;
  PickState pick;
  OrbitCamera camera;
  float viewport_width = 1280.0f, viewport_height = 720.0f;  // window size in ImGui units (mouse space)
};

}  // namespace cl::viewer
