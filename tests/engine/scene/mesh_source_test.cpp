#include "scene/mesh_source.h"

#include <gtest/gtest.h>

#include "mesh/generate.h"
#include "scene/scene.h"

namespace cl {
namespace {

// Shapes made by scene files know where they came from; shapes made in code do not.
TEST(MeshSource, ScenesRecordFilesAndGenerators) {
  const SceneLoadResult r = load_scene_text(R"({"format": 1, "bodies": [
      {"name": "bowl", "shape": {"type": "bowl", "outer_radius": 0.2, "thickness": 0.02}, "density": 1000},
      {"name": "bunny", "shape": {"type": "mesh", "file": "bunny00.off", "resolution": 16}, "density": 1000,
       "position": [1, 0, 0]}]})", std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/inline.json");
  ASSERT_TRUE(r.ok()) << r.error;
  const auto bowl = mesh_source(r.world.bodies[0].shape.mesh);
  ASSERT_TRUE(bowl);
  EXPECT_EQ(bowl->generator, "bowl");
  EXPECT_TRUE(bowl->file.empty());
  ASSERT_FALSE(bowl->params.empty());
  const auto bunny = mesh_source(r.world.bodies[1].shape.mesh);
  ASSERT_TRUE(bunny);
  EXPECT_EQ(bunny->file, "bunny00.off");
  EXPECT_TRUE(bunny->generator.empty());

  std::string error;
  const std::shared_ptr<const MeshShape> made = make_mesh_shape(make_box(Vec3(0.5, 0.5, 0.5), 1), {}, &error);
  ASSERT_TRUE(made) << error;
  EXPECT_FALSE(mesh_source(made));
  EXPECT_FALSE(mesh_source(nullptr));
}

// set_mesh copies the mesh's mass properties into the shape, which is all the core reads of it.
TEST(MeshSource, SetMeshCopiesThePropertiesTheCoreUses) {
  std::string error;
  Shape s;
  set_mesh(s, make_mesh_shape(make_box(Vec3(0.5, 0.25, 1.0), 2), {}, &error));
  ASSERT_TRUE(s.mesh) << error;
  EXPECT_EQ(s.type, ShapeType::Mesh);
  EXPECT_NEAR(shape_volume(s), 1.0, 1e-12);
  EXPECT_NEAR(shape_bounding_radius(s), Vec3(0.5, 0.25, 1.0).norm(), 1e-12);
  set_mesh(s, nullptr);
  EXPECT_EQ(shape_volume(s), 0.0);
}

}  // namespace
}  // namespace cl
