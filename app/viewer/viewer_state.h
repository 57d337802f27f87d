// Everything the viewer remembers between frames, grouped by the panel that edits it.
// Panels and input handlers receive this struct; none of them keeps function-local statics, so the
// whole UI state is visible here (and a second viewer instance would not share anything).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "compare/lanes.h"
#include "core/task_pool.h"
#include "scripts/script.h"
#include "telemetry/telemetry.h"
#include "viewer/camera.h"
#include "viewer/scene_browser.h"
#include "viewer/timeline_state.h"
#include "world/world.h"

namespace cl::viewer {

// A fixed-length history of samples for ImGui::PlotLines: a ring buffer read with values_offset.
struct History {
  static constexpr int kLength = 240;
  std::array<float, kLength> values{};
  int next = 0;   // where the next sample goes, which is also the oldest sample
  int count = 0;  // samples pushed since the last clear, at most kLength

  void push(float v) {
    values[next] = v;
    next = (next + 1) % kLength;
    count = count < kLength ? count + 1 : kLength;
  }
  // Sample i of the last count() ones, oldest first.
  float at(int i) const { return values[(next + kLength - count + i) % kLength]; }
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
  std::string search;              // the Scene menu's and the scene browser's filter of the scenes
  std::vector<SceneEntry> catalogue;  // the scene browser's entries (scan_scenes), read each time it opens
  std::string open_path;  // what is typed in the Scene panel
  std::string save_path;
  std::string error;      // last load or save error, shown in red; the current scene stays
  std::string message;    // last success message ("saved to ...")
  bool confirm_overwrite = false;  // Save as names the open scene: the question is open
  std::vector<std::string> warnings;  // from the last successful load
  std::vector<SceneKeyframe> keyframes;  // the file's "keyframes" (the timeline's keyframes start from them)
  std::string text;                      // the file's text as loaded (a replay's scene)
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

// How bodies are coloured: their own palette colour, or by a property of the contact graph (one at a
// time, since each one repaints every body).
enum class BodyColoring : int { Body = 0, Group, Height, Layer };
inline constexpr int kBodyColoringCount = 4;

// How triangle-mesh bodies are shaded: like every body, or by their surface normal in the body frame
// (rgb = 0.5 + 0.5 n, so +x red, +y green, +z blue), which shows the orientation and smoothness of the mesh.
enum class MeshColoring : int { Body = 0, Normals };

struct ViewState {
  bool show_contacts = true;
  bool show_normals = false;
  bool show_impulses = true;        // the contact force arrows (overlay "impulses"), from the contact report
  bool show_method = true;         // the method's own drawing (Solver::draw_debug; pid-penalty's pair states)
  bool show_grid = true;
  bool show_shadows = true;
  bool wireframe = false;
  float normal_length = 0.25f;     // m
  bool auto_force_scale = true;    // the largest recent contact force is drawn `force_length` long
  float force_length = 0.6f;       // m, with the automatic scale
  float force_scale = 0.01f;       // m per N, without it
  float force_reference = 0.0f;    // N: slowly decaying maximum for the automatic scale
  // Metres of arrow per newton of contact force, as drawn now (0 before any force was seen).
  double force_arrow_scale() const {
    return auto_force_scale ? (force_reference > 0.0f ? double(force_length) / force_reference : 0.0) : force_scale;
  }
  float drag_stiffness = 100.0f;   // N/m per kg of the dragged body
  float drag_damping = 12.0f;      // N s/m per kg

  // Contact graph overlays: its edges, bodies coloured by contact group, stack height or layer, sleeping bodies.
  bool show_graph = false;          // touching edges as lines between body centres
  bool show_proximity = false;      // also the edges of pairs that are near but not touching, faint
  BodyColoring coloring = BodyColoring::Body;
  int layer = 0;                    // stack layer highlighted in BodyColoring::Layer
  bool show_sleeping = true;        // sleeping bodies darker and bluish: always useful, so on by default
  // Joints and scripts. Both only draw something in scenes that have joints or scripts.
  bool show_joints = true;          // anchors, axes, hinge limit arcs
  float joint_axis_length = 0.0f;   // m; 0 picks one per joint from the size of its bodies
  bool show_scripts = true;         // paths of the scripted bodies
  // Triangle-mesh bodies.
  MeshColoring mesh_coloring = MeshColoring::Body;
  bool show_point_shells = false;   // the shell points (surface samples used for contacts) as small dots
  bool point_shells_all = false;    // of every mesh body, not only the selected one
  bool show_sdf_slice = false;      // a slice of the selected mesh body's signed distance grid
  int sdf_axis = 1;                 // 0 x, 1 y, 2 z: the slice is perpendicular to this body axis
  float sdf_offset = 0.0f;          // m from the centre of mass along that axis (clamped to the grid)
  int follow = -1;                  // the body the camera follows (C, View menu), -1 none
  Vec3 follow_at{0, 0, 0};          // where that body was when the camera last moved with it
  bool contacts_through = false;    // contact points, normals and impulses also where bodies hide them (faint)
  bool expand_view_panel = false;   // open the (normally collapsed) View panel once, for screenshots
  bool expand_compare_panel = false;  // the same for the Compare panel
  // Volume contacts: what a volume method computes for its constraints (the DebugLayer kDebugVolume* layers of
  // Solver::draw_debug). While one of these is on, the solver computes its images once more per pair for each
  // frame whose poses, step or parameters changed (debug_view.h); nothing is drawn under other solvers.
  bool show_volumes = false;        // the intervals inside both meshes, per image axis (the paper's Fig. 1)
  std::array<bool, 3> volume_axes{true, true, true};  // which image axes' intervals: x, y, z
  bool show_volume_gradients = false;  // dV/dp_k as arrows from the vertices (eq. 13-14)
  float gradient_length = 0.1f;     // m: the largest gradient of the frame is drawn this long
  bool show_volume_cells = false;   // multi-volume grid cells holding a constraint, contact frames, forces
  int volume_interval_limit = 20000;  // segments kept per pair and image axis (subsampled beyond)
  // false: recorded at the drawn poses after each frame's steps (what the next collision stage will see);
  // true: as the solver used them at the last step's collision stage, before the step moved the bodies.
  bool volume_last_stage = false;
};

// What a lane's solver drew through DebugDraw (debug_view.h), kept while what it was drawn from is unchanged.
struct DebugRecording {
  struct Line {
    Vec3 a, b;
    DebugColor color;
    bool arrow = false;  // with a head at b
  };
  struct Point {
    Vec3 p;
    DebugColor color;
  };
  std::vector<Line> lines;
  std::vector<Point> points;
  std::vector<std::pair<std::string, double>> notes;  // the method's totals (DebugDraw::note), in its order
  bool at_collision_stage = false;  // drawn at the poses of the last step's collision stage, not the current ones
  // What it was drawn from: redrawn when any of these differs.
  bool valid = false;
  DebugRequest request;
  std::string solver;
  std::vector<double> params;
  int64_t step = -1;
  std::vector<Vec3> positions;
  std::vector<Quat> orientations;
};

// The poses a lane's last step had at its collision stage: its bodies before the step, with the scripts applied
// as World::step applies them first. Kept only while the view draws as of the last collision stage.
struct CollisionPoses {
  int64_t step = -1;  // the world's step count before that step
  std::string solver;
  std::vector<Body> bodies;
};

struct DebugViewState {
  std::vector<DebugRecording> lanes;  // by lane
  std::vector<CollisionPoses> stage;  // by lane
};

struct StatsState {
  // Wall time per stage over the last steps (ms), in StepProfile order, and frames per second.
  static constexpr int kStages = 6;
  std::array<History, kStages> stage_ms;
  // The solver's own stages (StepStats::sub_stages) over the last steps, ms: slot i holds the stage declared
  // i-th, under the name and parent it had when pushed (a slot is cleared when its name changes).
  std::array<History, SubStages::kCapacity> sub_stage_ms;
  std::array<SubStage, SubStages::kCapacity> sub_stage_names{};
  int sub_stage_count = 0;
  // The solver's own counters (StepStats::counters) over the last steps, slot by slot as the sub-stages.
  std::array<History, SolverCounters::kCapacity> counter_values;
  std::array<SolverCounter, SolverCounters::kCapacity> counter_names{};
  int counter_count = 0;
  History fps;
  Recorder recorder;
  bool recording = false;
  std::string csv_path, trace_path;  // written by the last Stop
  std::string error;
};

struct PickState {
  int selected = -1;       // body index, -1 for none
  int selected_joint = -1; // joint index, -1 for none; a body and a joint are never selected together
  bool focus_joint_settings = false;  // bring the Inspector's joint settings tab forward once
  bool dragging = false;
  int lane = 0;                // the comparison lane the body was grabbed in (its cell gives the mouse ray)
  Vec3 local_anchor{0, 0, 0};  // grabbed point in the body frame
  Vec3 plane_point{0, 0, 0};   // the target moves in the plane through this point facing the camera
  Vec3 plane_normal{0, 0, 1};
  Vec3 target{0, 0, 0};
};

// The mass a body had before a script made it kinematic, so Clear can give it back.
struct OriginalMass {
  int body = -1;
  BodyKind kind = BodyKind::Dynamic;
  double density = 0.0;  // kg/m^3 (0 when the mass was given directly)
  double mass = 0.0;     // kg
};

// The script being edited in the Inspector for one body (the draft), before Apply commits it.
struct ScriptEditState {
  int body = -1;                // whose draft this is; a new selection loads that body's draft
  int generation = -1;          // scene generation of the draft (a newly loaded scene drops it)
  bool laying = false;          // "Script path" mode: left clicks in the scene add points
  bool focus_tab = false;       // bring the Inspector's Script tab forward (set when laying starts)
  bool plane_only = false;      // put clicked points on the horizontal plane through the body centre
  std::vector<Vec3> points;     // control points, world frame; the first is where the body was
  bool has_hover = false;       // while laying: where a click at the cursor would put the next point
  Vec3 hover{0, 0, 0};
  double speed = 1.0;           // m/s
  ScriptTiming timing = ScriptTiming::Constant;
  bool loop = false;
  double delay = 0.0;           // s after Apply (after the start for Reset and saved scenes)
  bool restore_on_clear = true;     // Clear makes the body dynamic (or fixed) again
  double restore_density = 1000.0;  // kg/m^3 for Clear of a body whose original mass is unknown
  std::vector<OriginalMass> originals;  // per body made kinematic by Apply in this scene
  std::string error, message;
};

// Keyboard control of the joint servos.
struct ServoUiState {
  std::string held;  // the servo keys ('a'-'z', '0'-'9') held down this frame; empty while ImGui has the keyboard
};

// Comparison lanes: the running scene is lane 1 (scene.world); up to three more copies of it under their own
// methods and parameters step in lockstep with it, on the task pool. Interaction (drag, servo keys, scripts,
// materials, joint settings, dt, pause, step, reset) acts on every lane.
enum class CompareLayout : int { Split = 0, Overlay };

// What the comparison plots show per lane, over the last History::kLength steps.
struct LanePlots {
  History step_ms, max_penetration, mean_penetration, kinetic_energy, contacts, iterations, residual;
  History divergence_max, divergence_mean;  // m, against lane 1
  // The physics residuals from the contact report (docs/residuals.md): m, N, W, W, J, N s (momentum: 0 where
  // not measured).
  History signorini, cone, dissipation, complementarity, energy_change, momentum_error;
};

struct CompareState {
  std::vector<World> lanes;               // lanes 2..: copies of the scene under their own method
  std::vector<std::string> lane_errors;   // per lane of `lanes`: why it stopped ("" while it runs)
  CompareLayout layout = CompareLayout::Split;
  std::shared_ptr<TaskPool> pool;         // made on the first lockstep step (all hardware threads)
  std::array<LanePlots, kMaxLanes> plots; // [0] lane 1
  std::array<Recorder, kMaxLanes - 1> recorders;  // the extra lanes' steps while recording
  std::string add_solver = "implicit-penalty";    // the Compare panel's choice for a new lane
  std::string error;                      // last refused lane change
  bool panel_open = false;                // the Compare panel was expanded last frame (its height follows)
  float panel_height = 0.0f;              // its height with lanes as the user dragged it (0: the default)
};

// A rectangle of the window in ImGui units (pixels at 100% scale) from its top-left corner.
struct ScreenRect {
  float x = 0, y = 0, width = 0, height = 0;
  bool operator==(const ScreenRect&) const = default;
};

// The window's own state: panels shown or hidden, the help overlay, the scene description, screenshots.
struct UiState {
  bool hidden = false;               // Tab: the 3D view alone, without panels (or the menu bar)
  float menu_height = 0.0f;          // of the main menu bar as last drawn (0 while hidden)
  bool help = false;                 // F1: every key and mouse control
  bool welcome = false;              // the first launch's welcome (until closed; see welcome_marker_path)
  bool browser = false;              // the scene browser (Scene menu): scenes by method, with thumbnails
  int description_shown = -1;        // scene generation whose description was folded to one line (else it shows
                                     // whole above the view, once per load)
  // The 3D view's part of the window: between the panel columns, below the menu bar, the Servos panel and the
  // header (description, banners, legend, errors), above the Compare panel; the whole window while unset. The
  // split comparison divides it into cells, each with a strip of `lane_label_height` for its label at its top.
  ScreenRect scene_area;
  float lane_label_height = 0.0f;
  float header_height = 0.0f;        // of the header above the view, as drawn in the last frame (0: none)
  OrbitCamera auto_framed;           // the camera as frame_scene last left it (the user has not moved it since
                                     // while they are equal, so a change of the view's area frames it again)
  bool screenshot_requested = false; // F12: the next drawn frame is written as a PNG
  std::string screenshot_message;    // "saved ..." or the error of the last one (screenshots and videos)
  std::string output_dir = ".";      // where screenshots, videos and recordings go (created when missing)
  bool recording_video = false;      // F9: every drawn frame goes to a video (ffmpeg) or a PNG sequence
  bool video_png = false;            // a PNG sequence even when ffmpeg is there
  std::vector<std::string> dismissed;  // error messages the user closed (shown again only when they change)
  int frame = 0;                     // frames drawn since the start
  bool log_actions = false;          // print each shortcut's action and each scene opened (test input, log_action)
  // Which panels of the right column were open (not collapsed) in the last frame: the column is laid out from them.
  bool stats_open = true, inspector_open = true, view_open = false;
};

struct AppState {
  SceneState scene;
  SimState sim;
  SolverUiState solver;
  ViewState view;
  StatsState stats;
  PickState pick;
  ScriptEditState script;
  ServoUiState servos;
  CompareState compare;
  DebugViewState debug;
  TimelineState timeline;  // history, keyframes, replays (timeline.h)
  UiState ui;
  OrbitCamera camera;
  float viewport_width = 1280.0f, viewport_height = 720.0f;  // window size in ImGui units (mouse space)
};

}  // namespace cl::viewer
