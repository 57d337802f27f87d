// The view set without the mouse (app/viewer/view_spec.cpp): --view tokens.
#include "viewer/view_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/session.h"
#include "viewer/debug_view.h"
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

// The volume layers' tokens, and the request to the solvers' drawing they give.
TEST(ViewSpec, ViewSpecSetsVolumeOverlays) {
  AppState app = open_default();
  std::string error;
  EXPECT_FALSE(wants_volume_layers(app.view));
  EXPECT_EQ(debug_request(app.view, 1.0 / 60.0).layers, unsigned(kDebugMethod));  // the method's own drawing is on by default
  ASSERT_TRUE(apply_view_spec(app, "volumes=xz,gradients,cells", &error)) << error;
  EXPECT_TRUE(app.view.show_volumes);
  EXPECT_TRUE(app.view.volume_axes[0]);
  EXPECT_FALSE(app.view.volume_axes[1]);
  EXPECT_TRUE(app.view.volume_axes[2]);
  EXPECT_TRUE(app.view.show_volume_gradients);
  EXPECT_TRUE(app.view.show_volume_cells);
  EXPECT_FALSE(app.view.volume_last_stage);
  const DebugRequest r = debug_request(app.view, 1.0 / 60.0);
  EXPECT_EQ(r.layers, unsigned(kDebugMethod | kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells));
  EXPECT_EQ(r.volume_axes, (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(r.max_intervals_per_axis, app.view.volume_interval_limit);
  ASSERT_TRUE(apply_view_spec(app, "-gradients,volumes,-method,laststage", &error)) << error;
  EXPECT_FALSE(app.view.show_volume_gradients);
  EXPECT_TRUE(app.view.volume_last_stage);
  EXPECT_EQ(app.view.volume_axes, (std::array<bool, 3>{true, true, true}));
  EXPECT_EQ(debug_request(app.view, 1.0 / 60.0).layers, unsigned(kDebugVolumes | kDebugVolumeCells));
  EXPECT_FALSE(apply_view_spec(app, "volumes=w", &error));
  EXPECT_NE(error.find("volumes=w"), std::string::npos) << error;
  EXPECT_FALSE(apply_view_spec(app, "volumes=", &error));
  EXPECT_FALSE(apply_view_spec(app, "-volumes=x", &error));
}

}  // namespace cl::viewer
