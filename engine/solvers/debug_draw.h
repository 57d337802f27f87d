// What a method draws of its own state, for the viewer (as Box2D's b2DebugDraw and Jolt's DebugRenderer): the
// solver emits world-space lines and points through this interface and never sees the renderer; the viewer
// implements it. Colours are linear RGBA in [0, 1].
#pragma once

#include <array>

#include "core/math.h"

namespace cl {

using DebugColor = std::array<float, 4>;

class DebugDraw {
 public:
  virtual ~DebugDraw() = default;
  virtual void line(const Vec3& a, const Vec3& b, const DebugColor& color) = 0;
  virtual void point(const Vec3& p, const DebugColor& color) = 0;
};

}  // namespace cl
