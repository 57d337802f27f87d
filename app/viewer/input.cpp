#include "viewer/input.h"

#include <cmath>
#include <string>

#include <imgui.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "world/raycast.h"
#include "viewer/convert.h"
#include "viewer/panels.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"
#include "viewer/timeline.h"

namespace cl::viewer {

namespace {

void apply_drag_spring(AppState& app) {
  DragSpring spring;
  spring.body = app.pick.selected;
  spring.local_anchor = app.pick.local_anchor;
  spring.target = app.pick.target;
  spring.stiffness = app.view.drag_stiffness;
  spring.damping = app.view.drag_damping;
  app.scene.world.set_drag(spring);
}

// The ray under the mouse in lane `lane`'s view: its cell of the split layout, else the whole window.
Ray mouse_ray(const AppState& app, int lane) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const LaneCell c = lane_cell(app, lane);
  return app.camera.ray_through(mouse.x - c.x, mouse.y - c.y, c.width, c.height);
}

// True while the servo key `key` ('a'-'z', '0'-'9') is held; digits also on the keypad.
bool servo_key_down(char key) {
  // ImGui 1.86 indexes keys by the GLFW key codes the backend reports.
  if (key >= 'a' && key <= 'z') return ImGui::IsKeyDown(GLFW_KEY_A + (key - 'a'));
  if (key >= '0' && key <= '9') {
    return ImGui::IsKeyDown(GLFW_KEY_0 + (key - '0')) || ImGui::IsKeyDown(GLFW_KEY_KP_0 + (key - '0'));
  }
  return false;
}

// Which servo keys are held: step_once moves their servos' targets (drive_held_servos).
void update_servo_keys(AppState& app) {
  std::string& held = app.servos.held;
  held.clear();
  if (ImGui::GetIO().WantCaptureKeyboard) return;  // typing in a panel drives nothing
  for (int j : servo_joints(app.scene.world)) {
    const JointServo& servo = app.scene.world.joints[j].servo;
    for (char key : {servo.key_raise, servo.key_lower}) {
      if (key != '\0' && servo_key_down(key)) held += key;
    }
  }
}

// The viewer's own letter shortcuts; viewer_shortcut_keys() (session.cpp) lists them for the scene loader,
// which keeps servos off them (kServoReservedKeys).
void handle_keys(AppState& app) {
  update_servo_keys(app);
  if (ImGui::GetIO().WantCaptureKeyboard) return;
  if (app.script.laying) {  // Script path mode: editing keys for the path being laid
    if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE)) remove_last_script_point(app);
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) end_script_path(app);
    if (ImGui::IsKeyPressed(GLFW_KEY_ENTER, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ENTER, false)) {
      std::string error;
      if (!apply_script(app, &error)) app.script.error = error;
    }
  }
  // Function keys and Tab are not letters, so servos never compete for them.
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) {
    app.ui.help = !app.ui.help;
    log_action(app, app.ui.help ? "F1: help shown" : "F1: help hidden");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) && !app.script.laying && app.ui.help) {
    app.ui.help = false;
    log_action(app, "Esc: help hidden");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_TAB, false)) {
    app.ui.hidden = !app.ui.hidden;
    log_action(app, app.ui.hidden ? "Tab: panels hidden" : "Tab: panels shown");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) app.ui.screenshot_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_F9, false)) app.ui.recording_video = !app.ui.recording_video;
  if (ImGui::IsKeyPressed(GLFW_KEY_F2, false)) {
    compare_every_method_and_report(app);
    log_action(app, "F2: " + std::to_string(lane_count(app)) + " lanes");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false)) open_neighbour_and_report(app, 1);
  if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false)) open_neighbour_and_report(app, -1);
  // ImGui 1.86 indexes keys by the GLFW key codes the backend reports.
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false) && app.sim.step_error.empty()) {
    app.sim.playing = !app.sim.playing;
    log_action(app, app.sim.playing ? "space: play" : "space: pause");
  }
  // . and , step forward and back through the history (timeline.h); . at the newest step takes a new one.
  if (ImGui::IsKeyPressed(GLFW_KEY_PERIOD) && !app.sim.playing) step_forward(app);
  if (ImGui::IsKeyPressed(GLFW_KEY_COMMA)) step_back(app);
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) reset_scene(app);
  if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) frame_scene(app);
  if (ImGui::IsKeyPressed(GLFW_KEY_C, false)) {
    toggle_follow(app);
    log_action(app, app.view.follow >= 0 ? "C: following " + app.scene.world.bodies[size_t(app.view.follow)].name
                                         : "C: camera free");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_V, false) && lane_count(app) > 1)
    app.compare.layout = app.compare.layout == CompareLayout::Split ? CompareLayout::Overlay : CompareLayout::Split;
}

}  // namespace

void begin_pick(AppState& app, const Ray& ray, int lane) {
  // The body is found in the lane clicked; its index is the same in every lane, and the drag spring pulls it
  // in each of them alike.
  World& world = lane_world(app, lane);
  app.pick.lane = lane;
  const RayHit hit = raycast(world, to_vec3(ray.origin), to_vec3(ray.dir));
  select_body(app, hit.hit ? hit.body : -1);  // also wakes it, so that it can be pulled
  if (!hit.hit || !world.bodies[hit.body].is_dynamic() || !app.sim.step_error.empty()) return;

  const Body& body = world.bodies[hit.body];
  PickState& pick = app.pick;
  pick.dragging = true;
  pick.local_anchor = body.rotation().transpose() * (hit.point - body.position);
  // The target moves in the plane through the grabbed point facing the camera, so the body stays
  // under the cursor at the depth where it was grabbed.
  pick.plane_point = hit.point;
  pick.plane_normal = -to_vec3(app.camera.forward());
  pick.target = hit.point;
  apply_drag_spring(app);
}

void update_drag(AppState& app, const Ray& ray) {
  PickState& pick = app.pick;
  if (!pick.dragging) return;
  const Vec3 origin = to_vec3(ray.origin), dir = to_vec3(ray.dir);
  const double denom = pick.plane_normal.dot(dir);
  if (std::abs(denom) > 1e-6) {
    const double t = pick.plane_normal.dot(pick.plane_point - origin) / denom;
    if (t > 0.0 && std::isfinite(t)) pick.target = origin + t * dir;
  }
  apply_drag_spring(app);  // every frame, so stiffness edits in the View panel apply at once
  // Held still by the spring, the body could pass the sleep test and stop following the mouse.
  if (pick.selected >= 0) app.scene.world.wake(pick.selected);
}

void end_drag(AppState& app) {
  app.pick.dragging = false;
  app.scene.world.clear_drag();
}

void handle_view_input(AppState& app) {
  ImGuiIO& io = ImGui::GetIO();
  app.viewport_width = io.DisplaySize.x;
  app.viewport_height = io.DisplaySize.y;
  handle_keys(app);

  // A drag keeps going when the cursor passes over a panel; everything else needs the 3D view.
  if (app.pick.dragging) {
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      end_drag(app);
    } else {
      if (io.MouseWheel != 0.0f) {  // the wheel pushes the grabbed body away or pulls it closer
        app.pick.plane_point += to_vec3(app.camera.forward()) * (0.08 * app.camera.distance * io.MouseWheel);
      }
      update_drag(app, mouse_ray(app, app.pick.lane));
    }
  }
  app.script.has_hover = false;
  if (io.WantCaptureMouse) return;

  if (app.script.laying) {
    // Script path mode: the left button lays points instead of picking; the camera works as usual.
    const Ray ray = mouse_ray(app, 0);
    const auto p = script_point_from_ray(app.scene.world, app.script.body, to_vec3(ray.origin), to_vec3(ray.dir),
                                         app.script.plane_only);
    app.script.has_hover = p.has_value();
    if (p) app.script.hover = *p;
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) add_script_point(app, to_vec3(ray.origin), to_vec3(ray.dir));
  } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    // Joint anchors are small and usually inside a body: a click close to one picks the joint first.
    constexpr float kJointPickRadius = 10.0f;  // ImGui units (pixels at 100% scale)
    const int joint = app.view.show_joints ? pick_joint(app, io.MousePos.x, io.MousePos.y, kJointPickRadius) : -1;
    if (joint >= 0) select_joint(app, joint);
    else {
      const int lane = lane_at(app, io.MousePos.x, io.MousePos.y);
      begin_pick(app, mouse_ray(app, lane), lane);
    }
  }

  const bool pan = ImGui::IsMouseDown(ImGuiMouseButton_Middle) ||
                   (ImGui::IsMouseDown(ImGuiMouseButton_Right) && io.KeyShift);
  if (pan) {
    app.camera.pan(io.MouseDelta.x, io.MouseDelta.y, app.viewport_height);
  } else if (ImGui::IsMouseDown(ImGuiMouseButton_Right)) {
    app.camera.orbit(io.MouseDelta.x, io.MouseDelta.y);
  }
  if (io.MouseWheel != 0.0f && !app.pick.dragging) app.camera.zoom(io.MouseWheel);
}

}  // namespace cl::viewer
