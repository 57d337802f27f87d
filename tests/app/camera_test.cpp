// The orbit camera's framing (app/viewer/camera.cpp): the box fits the view, or the part of it below a window
// over its top, with a margin.
#include "viewer/camera.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace cl::viewer {

namespace {
// The box's corners in normalised device coordinates of a view of the given aspect: the lowest and highest y and
// the largest |x|.
struct Extent {
  float low = 1e9f, high = -1e9f, side = 0.0f;
};
Extent project(const OrbitCamera& camera, const glm::vec3& lo, const glm::vec3& hi, float aspect) {
  const glm::mat4 m = camera.projection(aspect) * camera.view();
  Extent e;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 c((corner & 1) ? hi.x : lo.x, (corner & 2) ? hi.y : lo.y, (corner & 4) ? hi.z : lo.z);
    const glm::vec4 p = m * glm::vec4(c, 1.0f);
    e.low = std::min(e.low, p.y / p.w);
    e.high = std::max(e.high, p.y / p.w);
    e.side = std::max(e.side, std::abs(p.x / p.w));
  }
  return e;
}
}  // namespace

// A tall tower (1 x 20 x 1 m) in a 16:9 view whose panels leave the middle 55%: framed whole, it spans nearly
// the whole height; below a window over the top 30%, it stays under the window's edge (NDC y = 1 - 2 * 0.3) and
// still fills most of the rest; a wide wall fits the sides either way.
TEST(Camera, FramesTheBoxBelowAWindowOverTheTop) {
  const float aspect = 16.0f / 9.0f;
  const glm::vec3 lo(-0.5f, 0.0f, -0.5f), hi(0.5f, 20.0f, 0.5f);
  OrbitCamera whole;
  whole.frame(lo, hi, 0.55f * aspect);
  const Extent a = project(whole, lo, hi, aspect);
  EXPECT_LE(a.high, 1.0f);
  EXPECT_GE(a.low, -1.0f);
  EXPECT_GT(a.high - a.low, 1.6f);  // most of the view's height of 2
  OrbitCamera below;
  below.frame(lo, hi, 0.55f * aspect, 0.3f);
  const Extent b = project(below, lo, hi, aspect);
  EXPECT_LE(b.high, 1.0f - 2.0f * 0.3f);
  EXPECT_GE(b.low, -1.0f);
  EXPECT_GT(b.high - b.low, 0.75f * (2.0f - 2.0f * 0.3f));
  EXPECT_EQ(below.yaw, whole.yaw);  // the direction is kept
  EXPECT_EQ(below.pitch, whole.pitch);
  const glm::vec3 wall_lo(-10.0f, 0.0f, -0.5f), wall_hi(10.0f, 5.0f, 0.5f);
  for (float top : {0.0f, 0.3f}) {
    OrbitCamera c;
    c.frame(wall_lo, wall_hi, 0.55f * aspect, top);
    const Extent w = project(c, wall_lo, wall_hi, aspect);
    EXPECT_LE(w.side, 0.55f + 1e-4f) << top;
    EXPECT_LE(w.high, 1.0f - 2.0f * top + 1e-4f) << top;
    EXPECT_GE(w.low, -1.0f - 1e-4f) << top;
  }
}

}  // namespace cl::viewer
