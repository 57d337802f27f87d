// The solvers' own drawing in the viewer (app/viewer/debug_view.cpp): the recording follows the toggles, the
// steps, parameter changes, resets and solver switches, is kept while nothing it depends on changed, draws as of
// the last collision stage when asked, and never changes the simulation; and the viewer knows no solver's type.
#include "viewer/debug_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "viewer/session.h"
#include "viewer/view_spec.h"
#include "app_test_support.h"

namespace cl::viewer {

namespace {

AppState open_volume_scene() {
  return open_or_throw(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_interpenetrated.json");
}

double note(const DebugRecording& rec, const char* label) {
  for (const auto& [name, value] : rec.notes)
    if (name == label) return value;
  ADD_FAILURE() << "no note " << label;
  return -1;
}

// The volume contacts of the last step (speculative ones, feature bit 31, are no volumes).
size_t volume_contacts(const World& w) {
  return size_t(std::count_if(w.contacts().begin(), w.contacts().end(),
                              [](const Contact& c) { return !(c.feature & (1u << 31)); }));
}

}  // namespace

TEST(DebugView, RecordingFollowsTogglesStepsParametersResetsAndSolvers) {
  AppState app = open_volume_scene();
  std::string error;
  ASSERT_TRUE(step_once(app));
  refresh_debug_drawing(app);
  // Off: the volume solver draws nothing (no method layer of its own) and computes nothing.
  EXPECT_TRUE(debug_recording(app, 0).valid);
  EXPECT_TRUE(debug_recording(app, 0).lines.empty());
  EXPECT_TRUE(debug_recording(app, 0).notes.empty());

  ASSERT_TRUE(apply_view_spec(app, "volumes,cells", &error)) << error;
  refresh_debug_drawing(app);
  const DebugRecording& rec = debug_recording(app, 0);
  EXPECT_FALSE(rec.at_collision_stage);
  EXPECT_FALSE(rec.lines.empty());
  EXPECT_GE(note(rec, "pairs"), 3.0);
  EXPECT_GT(note(rec, "constraints"), 0.0);
  // Kept while nothing changed: the same recording, not drawn again (the first line's storage is the same).
  const DebugRecording::Line* first = rec.lines.data();
  refresh_debug_drawing(app);
  EXPECT_EQ(debug_recording(app, 0).lines.data(), first);
  // A step moves the bodies: drawn again, at the new poses.
  ASSERT_TRUE(step_once(app));
  refresh_debug_drawing(app);
  EXPECT_EQ(debug_recording(app, 0).step, app.scene.world.step_count());
  EXPECT_EQ(debug_recording(app, 0).positions[1], app.scene.world.bodies[1].position);
  // As of the last collision stage: drawn at the poses the step collided at, so its constraints are the step's
  // volume contacts, one for one.
  ASSERT_TRUE(apply_view_spec(app, "laststage", &error)) << error;
  ASSERT_TRUE(step_once(app));
  refresh_debug_drawing(app);
  EXPECT_TRUE(debug_recording(app, 0).at_collision_stage);
  EXPECT_EQ(note(debug_recording(app, 0), "constraints"), double(volume_contacts(app.scene.world)));
  EXPECT_NE(debug_recording(app, 0).positions[1], app.scene.world.bodies[1].position);  // where it was
  // A parameter changed while paused: drawn again with it (coarser pixels, fewer intervals).
  const double intervals = note(debug_recording(app, 0), "intervals x");
  ASSERT_TRUE(app.scene.world.solver().params().set("pixel_size", 0.02, &error)) << error;
  refresh_debug_drawing(app);
  EXPECT_LT(note(debug_recording(app, 0), "intervals x"), intervals);

  // Reset: no step yet, so at the current poses.
  reset_scene(app);
  refresh_debug_drawing(app);
  EXPECT_FALSE(debug_recording(app, 0).at_collision_stage);
  EXPECT_EQ(debug_recording(app, 0).positions[1], app.scene.world.bodies[1].position);
  EXPECT_GT(note(debug_recording(app, 0), "constraints"), 0.0);
  // Under another solver the volume toggles draw nothing.
  ASSERT_TRUE(switch_solver(app, "lcp", &error)) << error;
  ASSERT_TRUE(step_once(app));
  refresh_debug_drawing(app);
  EXPECT_TRUE(debug_recording(app, 0).lines.empty());
  EXPECT_TRUE(debug_recording(app, 0).notes.empty());
}

// The viewer with every volume layer drawn each frame steps bit for bit as one that draws nothing.
TEST(DebugView, DrawingDoesNotChangeTheSimulation) {
  AppState drawn = open_volume_scene(), plain = open_volume_scene();
  std::string error;
  ASSERT_TRUE(apply_view_spec(drawn, "volumes,gradients,cells", &error)) << error;
  ASSERT_TRUE(apply_view_spec(plain, "-method", &error)) << error;
  for (int s = 0; s < 8; ++s) {
    if (s == 4) {
      ASSERT_TRUE(apply_view_spec(drawn, "laststage", &error)) << error;
    }
    refresh_debug_drawing(drawn);
    refresh_debug_drawing(plain);
    ASSERT_TRUE(step_once(drawn));
    ASSERT_TRUE(step_once(plain));
  }
  EXPECT_FALSE(debug_recording(drawn, 0).lines.empty());
  for (size_t i = 0; i < plain.scene.world.bodies.size(); ++i) {
    EXPECT_EQ(drawn.scene.world.bodies[i].position, plain.scene.world.bodies[i].position) << i;
    EXPECT_EQ(drawn.scene.world.bodies[i].orientation.coeffs(), plain.scene.world.bodies[i].orientation.coeffs()) << i;
  }
}

// The viewer reaches the solvers only through the Solver interface: no file of app/ includes a solver's own
// header (solvers/<method>/...) or casts to a solver class.
TEST(DebugView, TheAppKnowsNoSolverType) {
  const std::regex own_header(R"re(#\s*include\s*"solvers/[a-z_]+/)re");
  const std::regex cast(R"re((dynamic|static|reinterpret)_cast<\s*(const\s+)?[A-Za-z_:]*Solver\b)re");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(CONTACTLAB_SOURCE_DIR) + "/app")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".h") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    EXPECT_FALSE(std::regex_search(s, own_header)) << entry.path() << " includes a solver's own header";
    EXPECT_FALSE(std::regex_search(s, cast)) << entry.path() << " casts to a solver class";
    ++files;
  }
  EXPECT_GT(files, 20);
  // The patterns do catch what they are for.
  EXPECT_TRUE(std::regex_search(std::string("#include \"solvers/volume/volume_solver.h\""), own_header));
  EXPECT_TRUE(std::regex_search(std::string("dynamic_cast<const VolumeSolver*>(&s)"), cast));
  EXPECT_FALSE(std::regex_search(std::string("#include \"solvers/solver.h\""), own_header));
}

}  // namespace cl::viewer
