// The view set without the mouse (app/viewer/view_spec.cpp): --view tokens.
#include "viewer/view_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/session.h"
#include "viewer/volume_view.h"
#include "app_test_support.h"

namespace cl::viewer {

// --- start-up view settings ------------------------------------------------------------------------------

TEST(ViewSpec, ViewSpecSetsOverlaysAndSelection) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(apply_view_spec(app, "graph, heights,-contacts,-sleeping,select=box,panel,zoom=2", &error)) << error;
  EXPECT_TRUE(app.view.show_graph);
  EXPECT_EQ(app.view.coloring, BodyColoring::Height);
  EXPECT_FALSE(app.view.show_contacts);
  EXPECT_FALSE(app.view.show_sleeping);
  EXPECT_TRUE(app.view.expand_view_panel);
  EXPECT_EQ(app.pick.selected, app.scene.world.find_body("box"));
  ASSERT_TRUE(apply_view_spec(app, "layer=3,path", &error)) << error;
  EXPECT_EQ(app.view.coloring, BodyColoring::Layer);
  EXPECT_EQ(app.view.layer, 3);
  EXPECT_TRUE(app.script.laying);
  ASSERT_TRUE(apply_view_spec(app, "point=1:0.5:4,point=4:0.5:4", &error)) << error;
  EXPECT_EQ(app.script.points.size(), 3u);
  EXPECT_EQ(app.script.points.back(), Vec3(4, 0.5, 4));
  EXPECT_FALSE(apply_view_spec(app, "point=1:2", &error));
  ASSERT_TRUE(apply_view_spec(app, "apply", &error)) << error;
  EXPECT_EQ(app.scene.world.scripts.size(), 1u);
  EXPECT_FALSE(apply_view_spec(app, "point=1:2:3", &error));  // not laying any more
  ASSERT_TRUE(apply_view_spec(app, "color=group", &error)) << error;
  EXPECT_EQ(app.view.coloring, BodyColoring::Group);

  EXPECT_FALSE(apply_view_spec(app, "graph,grpah", &error));
  EXPECT_NE(error.find("grpah"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "select=nobody", &error));
  EXPECT_NE(error.find("nobody"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "joint=0", &error));  // the scene has no joints
  EXPECT_FALSE(apply_view_spec(app, "layer=-1", &error));
  EXPECT_FALSE(apply_view_spec(app, "color=rainbow", &error));
}

TEST(ViewSpec, ViewSpecSetsMeshOverlays) {
  AppState app = open_default();
  std::string error;
  ASSERT_TRUE(apply_view_spec(app, "shells,allshells,meshcolor=normals,slice=z:-0.25", &error)) << error;
  EXPECT_TRUE(app.view.show_point_shells);
  EXPECT_TRUE(app.view.point_shells_all);
  EXPECT_EQ(app.view.mesh_coloring, MeshColoring::Normals);
  EXPECT_TRUE(app.view.show_sdf_slice);
  EXPECT_EQ(app.view.sdf_axis, 2);
  EXPECT_FLOAT_EQ(app.view.sdf_offset, -0.25f);
  ASSERT_TRUE(apply_view_spec(app, "slice=x,meshcolor=body,-sdf,-shells", &error)) << error;
  EXPECT_EQ(app.view.sdf_axis, 0);
  EXPECT_FLOAT_EQ(app.view.sdf_offset, 0.0f);
  EXPECT_FALSE(app.view.show_sdf_slice);
  EXPECT_FALSE(app.view.show_point_shells);
  EXPECT_EQ(app.view.mesh_coloring, MeshColoring::Body);
  EXPECT_FALSE(apply_view_spec(app, "slice=w", &error));
  EXPECT_FALSE(apply_view_spec(app, "slice=y:abc", &error));
  EXPECT_FALSE(apply_view_spec(app, "slice=yy", &error));
  EXPECT_FALSE(apply_view_spec(app, "meshcolor=rainbow", &error));
  EXPECT_NE(error.find("meshcolor"), std::string::npos) << error;
}

// The volume solver's views: tokens, and the capture following the toggles, the steps, parameter
// changes, resets and solver switches (harmless under another solver).
TEST(ViewSpec, ViewSpecSetsVolumeOverlaysAndTheCaptureFollowsThem) {
  AppState app;
  app.scene.root = CONTACTLAB_SOURCE_DIR;
  std::string error;
  ASSERT_TRUE(open_scene(app, std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_interpenetrated.json", nullptr,
                         &error))
      << error;
  auto solver = [&app]() { return dynamic_cast<VolumeSolver*>(&app.scene.world.solver()); };
  auto captures = [&app]() { return current_volume_captures(app.scene.world, app.view); };
  ASSERT_NE(active_volume_solver(app.scene.world), nullptr);
  EXPECT_FALSE(wants_volume_capture(app.view));
  ASSERT_TRUE(step_once(app));
  refresh_volume_capture(app);
  EXPECT_FALSE(solver()->debug_capture());  // off costs nothing
  EXPECT_TRUE(solver()->debug_pairs().empty());

  ASSERT_TRUE(apply_view_spec(app, "volumes=xz,gradients,cells", &error)) << error;
  EXPECT_TRUE(app.view.show_volumes);
  EXPECT_TRUE(app.view.volume_axes[0]);
  EXPECT_FALSE(app.view.volume_axes[1]);
  EXPECT_TRUE(app.view.volume_axes[2]);
  EXPECT_TRUE(app.view.show_volume_gradients);
  EXPECT_TRUE(app.view.show_volume_cells);
  EXPECT_FALSE(app.view.volume_last_stage);
  ASSERT_TRUE(apply_view_spec(app, "-gradients,volumes", &error)) << error;
  EXPECT_FALSE(app.view.show_volume_gradients);
  EXPECT_EQ(app.view.volume_axes, (std::array<bool, 3>{true, true, true}));
  EXPECT_FALSE(apply_view_spec(app, "volumes=w", &error));
  EXPECT_NE(error.find("volumes=w"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "volumes=", &error));
  EXPECT_FALSE(apply_view_spec(app, "-volumes=x", &error));

  // At the drawn poses: recorded at once without a step, stale after a step until the next frame's refresh.
  refresh_volume_capture(app);
  EXPECT_FALSE(solver()->debug_capture());  // the solver's collision stage is not recorded in this mode
  ASSERT_GE(captures().size(), 3u);
  size_t constraints = 0;
  for (const auto* d : captures()) {
    EXPECT_FALSE(d->collision_stage);
    constraints += d->constraints.size();
  }
  EXPECT_GT(constraints, 0u);
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(captures().empty());  // the bodies moved
  refresh_volume_capture(app);
  EXPECT_GE(captures().size(), 3u);
  // A parameter changed while paused: recorded again with it.
  ASSERT_TRUE(app.scene.world.solver().params().set("pixel_size", 0.02, &error)) << error;
  EXPECT_TRUE(captures().empty());
  refresh_volume_capture(app);
  ASSERT_FALSE(captures().empty());
  EXPECT_EQ(captures()[0]->pixel_size, 0.02);

  // As of the last collision stage: recorded by the step, one constraint per contact of the pair.
  ASSERT_TRUE(apply_view_spec(app, "laststage", &error)) << error;
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(solver()->debug_capture());
  refresh_volume_capture(app);
  ASSERT_FALSE(captures().empty());
  for (const auto* d : captures()) {
    if (!d->collision_stage) continue;  // a pair that overlaps only since the step
    // Speculative contacts (the narrow phase's points of the pair still apart, feature bit 31) are no volumes.
    const auto n = std::count_if(app.scene.world.contacts().begin(), app.scene.world.contacts().end(), [d](const Contact& c) {
      return c.a == d->a && c.b == d->b && !(c.feature & (1u << 31));
    });
    EXPECT_EQ(static_cast<size_t>(n), d->constraints.size());
  }
  // Reset gives a fresh solver (capture off); the next frame records again.
  reset_scene(app);
  EXPECT_TRUE(captures().empty());
  refresh_volume_capture(app);
  EXPECT_FALSE(captures().empty());
  // All toggles off: everything dropped.
  ASSERT_TRUE(apply_view_spec(app, "-volumes,-cells", &error)) << error;
  refresh_volume_capture(app);
  ASSERT_TRUE(step_once(app));
  EXPECT_FALSE(solver()->debug_capture());
  EXPECT_TRUE(solver()->debug_pairs().empty());
  // Under another solver the toggles do nothing.
  ASSERT_TRUE(apply_view_spec(app, "volumes,gradients,cells", &error)) << error;
  ASSERT_TRUE(switch_solver(app, "lcp", &error)) << error;
  EXPECT_EQ(active_volume_solver(app.scene.world), nullptr);
  refresh_volume_capture(app);
  ASSERT_TRUE(step_once(app));
  EXPECT_TRUE(captures().empty());
}

}  // namespace cl::viewer
