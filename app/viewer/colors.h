// Colours shared by the renderer (bodies, overlays) and the panels (legends), so a legend always shows
// exactly the colours drawn in the scene. GLM and the engine's debug palette only: no GL, no ImGui.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/glm.hpp>

#include "solvers/debug_draw.h"

namespace cl::viewer {

// Stack heights: a blue-to-red ramp over the heights 1..max (height 0 is a fixed or kinematic body, drawn
// in its usual grey). Blue to red reads as "bottom to top" and every step stays bright enough on the
// dark background, which the dark ends of viridis or magma are not.
inline glm::vec3 height_ramp(float t) {  // t in [0, 1]
  static constexpr std::array<glm::vec3, 5> kStops = {{
      {0.25f, 0.45f, 0.95f}, {0.20f, 0.78f, 0.82f}, {0.45f, 0.82f, 0.30f}, {0.96f, 0.84f, 0.25f},
      {0.95f, 0.33f, 0.25f}}};
  t = std::clamp(t, 0.0f, 1.0f) * static_cast<float>(kStops.size() - 1);
  const int i = std::min(static_cast<int>(t), static_cast<int>(kStops.size()) - 2);
  return glm::mix(kStops[i], kStops[i + 1], t - static_cast<float>(i));
}
// Colour of stack height `h` (>= 1) when the tallest stack reaches `max_height`.
inline glm::vec3 height_color(int h, int max_height) {
  return height_ramp(max_height <= 1 ? 0.0f : static_cast<float>(h - 1) / static_cast<float>(max_height - 1));
}
// Bodies of a floating group (nothing fixed supports them: heights are infinite) and dynamic bodies in
// no group at all (touching nothing).
inline constexpr glm::vec3 kFloatingColor{0.88f, 0.42f, 0.92f};
inline constexpr glm::vec3 kNoGroupColor{0.42f, 0.43f, 0.46f};

// Contact group g: hues spaced by the golden angle, so any number of groups gets distinct neighbours.
inline glm::vec3 group_color(int g) {
  const float hue = std::fmod(0.58f + 0.6180340f * static_cast<float>(g), 1.0f) * 6.0f;
  const float s = 0.62f, v = 0.92f;
  const float f = hue - std::floor(hue);
  const float p = v * (1 - s), q = v * (1 - s * f), u = v * (1 - s * (1 - f));
  switch (static_cast<int>(hue) % 6) {
    case 0: return {v, u, p};
    case 1: return {q, v, p};
    case 2: return {p, v, u};
    case 3: return {p, q, v};
    case 4: return {u, p, v};
    default: return {v, p, q};
  }
}

// The highlighted stack layer: its bottom bodies (held fixed while it is solved) and its top bodies.
inline constexpr glm::vec3 kLayerBottomColor{0.30f, 0.56f, 1.00f};
inline constexpr glm::vec3 kLayerTopColor{1.00f, 0.62f, 0.20f};
inline constexpr glm::vec3 kLayerEdgeColor{1.00f, 1.00f, 0.45f};

// The volume layers of the methods' drawing (solvers/debug_draw.h's palette, which the methods draw with), for
// the legends: image axes x, y, z as in Allard et al. 2010, Fig. 1; vertex gradients of the pair's first body (a)
// and second body (b).
inline constexpr glm::vec3 rgb(const DebugColor& c) { return {c[0], c[1], c[2]}; }
inline constexpr std::array<glm::vec3, 3> kVolumeAxisColors = {
    {rgb(debug_colors::kAxes[0]), rgb(debug_colors::kAxes[1]), rgb(debug_colors::kAxes[2])}};
inline constexpr glm::vec3 kGradientColorA = rgb(debug_colors::kFirstBody);
inline constexpr glm::vec3 kGradientColorB = rgb(debug_colors::kSecondBody);

// Sleeping bodies: desaturated, darker and shifted towards a cold blue, so they read as "switched off"
// whatever colouring is active.
inline glm::vec3 sleeping_tint(const glm::vec3& c) {
  const float grey = glm::dot(c, glm::vec3(0.299f, 0.587f, 0.114f));
  const glm::vec3 muted = glm::mix(c, glm::vec3(grey), 0.6f);  // some hue stays, so colourings still read
  return glm::mix(muted, glm::vec3(0.40f, 0.50f, 0.80f) * (0.5f + grey), 0.3f) * 0.8f;
}

}  // namespace cl::viewer
