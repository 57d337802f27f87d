#include "viewer/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace cl::viewer {

namespace {
// Just short of straight up or down, where the look-at basis would flip.
constexpr float kMaxPitch = glm::radians(89.0f);
constexpr float kOrbitRadiansPerPixel = 0.008f;
}  // namespace

glm::vec3 OrbitCamera::eye() const {
  const glm::vec3 offset(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
  return target + distance * offset;
}

glm::vec3 OrbitCamera::forward() const { return glm::normalize(target - eye()); }

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target, glm::vec3(0.0f, 1.0f, 0.0f)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
  // The near plane follows the distance so close-ups keep depth precision; the far plane reaches past
  // the whole scene seen from the far side.
  const float near_plane = std::max(1e-3f, 0.02f * distance);
  const float far_plane = distance + 60.0f * scene_radius + 10.0f;
  return glm::perspective(fov_y, std::max(aspect, 1e-3f), near_plane, far_plane);
}

void OrbitCamera::orbit(float dx_pixels, float dy_pixels) {
  yaw -= dx_pixels * kOrbitRadiansPerPixel;
  pitch = std::clamp(pitch + dy_pixels * kOrbitRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx_pixels, float dy_pixels, float viewport_height) {
  // Metres per pixel at the target's depth, so the point under the cursor follows the cursor.
  const float metres_per_pixel = 2.0f * distance * std::tan(0.5f * fov_y) / std::max(viewport_height, 1.0f);
  const glm::vec3 f = forward();
  const glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0.0f, 1.0f, 0.0f)));
  const glm::vec3 up = glm::cross(right, f);
  target += (-dx_pixels * right + dy_pixels * up) * metres_per_pixel;
}

void OrbitCamera::zoom(float wheel_steps) {
  // Multiplicative, so each wheel notch feels the same near and far.
  distance = std::clamp(distance * std::pow(0.88f, wheel_steps), 0.05f, 200.0f * scene_radius + 100.0f);
}

void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi, float aspect, float top) {
  const glm::vec3 centre = 0.5f * (lo + hi);
  scene_radius = std::max(0.5f * glm::length(hi - lo), 0.25f);
  // Keep the viewing direction and find the nearest distance at which all eight corners of the box
  // are inside the frustum (with a margin): tighter than fitting the bounding sphere, which leaves
  // wide or tall scenes small in the middle of the window.
  const glm::vec3 back(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
  const glm::vec3 right = glm::normalize(glm::cross(-back, glm::vec3(0.0f, 1.0f, 0.0f)));
  const glm::vec3 up = glm::cross(right, -back);
  // In tangent units (screen y = (p . up - shift) / depth): the view spans [-T, T]; the free part [-T, T - 2 f T],
  // centred at -f T with half height T (1 - f), less a tenth on each side. The eye is raised by f T D, so that
  // the box's centre projects to the free part's centre.
  const float t = std::tan(0.5f * fov_y);
  const float f = std::clamp(top, 0.0f, 0.9f);
  const float half = 0.9f * t * (1.0f - f);
  const float tan_x = 0.9f * t * std::max(aspect, 1e-3f);
  float needed = 0.0f;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 c((corner & 1) ? hi.x : lo.x, (corner & 2) ? hi.y : lo.y, (corner & 4) ? hi.z : lo.z);
    const glm::vec3 p = c - centre;
    const float towards_eye = glm::dot(p, back);
    const float y = glm::dot(p, up);
    // Within the free part's top, its bottom and the sides, each a lower bound on the distance D.
    needed = std::max({needed, towards_eye + std::abs(glm::dot(p, right)) / tan_x,
                       (y + (half - f * t) * towards_eye) / half, ((f * t + half) * towards_eye - y) / half});
  }
  distance = std::max(needed, 0.5f);
  target = centre + up * (f * t * distance);
}

Ray OrbitCamera::ray_through(float x, float y, float width, float height) const {
  const float aspect = width / std::max(height, 1.0f);
  const glm::mat4 inverse = glm::inverse(projection(aspect) * view());
  const float ndc_x = 2.0f * x / std::max(width, 1.0f) - 1.0f;
  const float ndc_y = 1.0f - 2.0f * y / std::max(height, 1.0f);
  glm::vec4 near_point = inverse * glm::vec4(ndc_x, ndc_y, -1.0f, 1.0f);
  glm::vec4 far_point = inverse * glm::vec4(ndc_x, ndc_y, 1.0f, 1.0f);
  near_point /= near_point.w;
  far_point /= far_point.w;
  Ray ray;
  ray.origin = glm::vec3(near_point);
  ray.dir = glm::normalize(glm::vec3(far_point - near_point));
  return ray;
}

}  // namespace cl::viewer
