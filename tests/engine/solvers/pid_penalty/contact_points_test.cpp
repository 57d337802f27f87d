// pid-penalty's contact points and normal (contact_points.cpp): a pair of meshes whose penetrating points lie on
// facets facing many ways takes the mean of their facet normals (our change to eq. 4).
#include <gtest/gtest.h>

#include <string>

#include "scene/scene.h"
#include "world/world.h"

namespace cl {

// scenes/bolt_in_hole.json: a 34 kg bolt resting by its thread flanks in the matching thread of a fixed block.
// With eq. 4's single facet the pair's normal jumped between flanks facing every way round the helix, up to facing
// down, and within 0.2 s the bolt tipped and rang up from 153 J to hundreds of joules. It must rest: its total
// energy never above the start by more than a thousandth of it (the compliant contact settling), and the bolt
// within 5 mm of where it started.
TEST(PidPenaltyContactPoints, ABoltRestsInItsThreadedHole) {
  SceneLoadResult r = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/bolt_in_hole.json");
  ASSERT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  std::string error;
  ASSERT_TRUE(w.set_solver("pid-penalty", &error)) << error;
  int bolt = -1;
  for (size_t i = 0; i < w.bodies.size(); ++i)
    if (w.bodies[i].is_dynamic()) bolt = int(i);
  ASSERT_GE(bolt, 0);
  const Vec3 start = w.bodies[size_t(bolt)].position;
  const double first = w.kinetic_energy() + w.potential_energy();
  for (int s = 0; s < 100; ++s) {
    const StepResult step = w.step();
    ASSERT_TRUE(step.ok) << "step " << s << ": " << step.error;
    EXPECT_LT(w.kinetic_energy() + w.potential_energy(), first + 1e-3 * first) << "step " << s;
  }
  EXPECT_LT((w.bodies[size_t(bolt)].position - start).norm(), 5e-3);
}

}  // namespace cl
