// An orbit camera: it circles a target point at a distance, with yaw about the world y axis and pitch
// above the horizon. Mouse deltas map to orbit, pan and zoom; the scene bounds choose the start view.
#pragma once

#include <glm/glm.hpp>

namespace cl::viewer {

struct Ray {
  glm::vec3 origin{0.0f};
  glm::vec3 dir{0.0f, 0.0f, -1.0f};  // unit
};

struct OrbitCamera {
  glm::vec3 target{0.0f};
  float yaw = 0.6f;      // rad about +y; 0 puts the eye on the +z side of the target
  float pitch = 0.4f;    // rad; positive looks down on the target
  float distance = 10.0f;  // m from the eye to the target
  float fov_y = glm::radians(45.0f);
  float scene_radius = 5.0f;  // m, sets the depth range so the whole scene stays between the clip planes
  bool operator==(const OrbitCamera&) const = default;

  glm::vec3 eye() const;
  glm::vec3 forward() const;  // unit, from the eye towards the target
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;

  // Mouse drags in pixels; `viewport_height` converts pixels to metres at the target's depth.
  void orbit(float dx_pixels, float dy_pixels);
  void pan(float dx_pixels, float dy_pixels, float viewport_height);
  void zoom(float wheel_steps);
  // Looks at the box [lo, hi] from the current direction, far enough to see all of it. `aspect`: the width the box
  // may take over the view's height; `top`: the fraction of the view's height at its top the box must stay below
  // (a window over it), in [0, 0.9]: the box then fits the rest, the target raised so that it sits there.
  void frame(const glm::vec3& lo, const glm::vec3& hi, float aspect, float top = 0.0f);

  // The ray through a window point (pixels from the top-left corner of a viewport of the given size).
  Ray ray_through(float x, float y, float width, float height) const;
};

}  // namespace cl::viewer
