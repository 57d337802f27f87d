// Conversions between the engine's double-precision Eigen types and the viewer's float GLM types.
#pragma once

#include <array>

#include <glm/glm.hpp>

#include "core/math.h"

namespace cl::viewer {

inline glm::vec3 to_glm(const Vec3& v) {
  return glm::vec3(static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z()));
}
inline Vec3 to_vec3(const glm::vec3& v) { return Vec3(v.x, v.y, v.z); }
// An RGBA colour (the engine's DebugColor).
inline glm::vec4 to_glm(const std::array<float, 4>& c) { return glm::vec4(c[0], c[1], c[2], c[3]); }

}  // namespace cl::viewer
