#include "viewer/panels.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "scene/mesh_source.h"
#include "viewer/panels_shared.h"
#include "viewer/slider.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

std::string body_label(const World& world, int body) {
  if (body < 0 || body >= static_cast<int>(world.bodies.size())) return "(world)";
  const Body& b = world.bodies[body];
  return (b.name.empty() ? std::string("(unnamed)") : b.name) + "  (#" + std::to_string(body) + ", " +
         body_kind_name(b.kind) + ")";
}

// The joint coordinate is an angle for these types (shown in degrees), a length for the slider.
bool angular_joint(JointType t) { return t != JointType::Slider; }
bool has_limit_and_motor(JointType t) { return joint_type_has_coordinate(t); }

// What the selected joint is and where it stands.
void draw_joint_state_tab(AppState& app, int j) {
  const World& world = app.scene.world;
  const Joint& joint = world.joints[j];
  const bool angular = angular_joint(joint.type);
  if (begin_two_column_table("joint", "servo target")) {
    table_row("joint", "%s  (#%d)", joint.name.empty() ? "(unnamed)" : joint.name.c_str(), j);
    const std::string_view type = joint_type_name(joint.type);
    table_row("type", "%.*s", static_cast<int>(type.size()), type.data());
    table_row("body a", "%s", body_label(world, joint.body_a).c_str());
    table_row("body b", "%s", body_label(world, joint.body_b).c_str());
    vec_row("anchor", joint_anchor_world(world, joint, 0), "m");
    if (joint.type != JointType::Ball && joint.type != JointType::Fixed) {
      vec_row("axis", joint_axis_world(world, joint, false), "");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("First axis in the world frame, carried by body a.");
    }
    if (joint.type == JointType::Hinge2 || joint.type == JointType::Universal) {
      vec_row("axis 2", joint_axis_world(world, joint, true), "");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Second axis in the world frame, carried by body b.");
    }
    if (has_limit_and_motor(joint.type)) {
      const double c = joint_coordinate(joint, world.bodies);
      if (angular) table_row("coordinate", "%.2f deg  (%.4f rad)", c * kDeg, c);
      else table_row("coordinate", "%.4f m", c);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(joint.type == JointType::Slider ? "Displacement of b along the axis relative to a (what the limit acts on)."
                          : joint.type == JointType::Hinge ? "Angle of b about the axis relative to a (what the limit acts on)."
                                                           : "Angle of b's second axis about the first axis, seen from a (what the limit acts on).");
      }
      const double rate = joint_rate(joint, world.bodies);
      table_row("rate", angular ? "%.3f rad/s" : "%.3f m/s", rate);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(joint.type == JointType::Hinge || joint.type == JointType::Slider
                              ? "Rate of the coordinate: what the motor drives."
                              : "Relative spin about the second axis: what the motor drives.");
      }
    }
    if (joint.servo.enabled && joint_type_has_servo(joint.type)) {
      const std::string keys = servo_key_label(joint.servo);
      if (angular) table_row("servo target", "%.2f deg  %s", joint.servo.target * kDeg, keys.c_str());
      else table_row("servo target", "%.4f m  %s", joint.servo.target, keys.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("The servo's target and its keys (raise / lower); set it in the Servos panel.");
    }
    table_row("error", "%.3g", joint_error(joint, world.bodies));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("How far the constraint is from satisfied (m at the anchor, rad for the axes).");
    ImGui::EndTable();
  }
  if (ImGui::Button("Deselect")) select_joint(app, -1);
}

// The selected joint's limit, motor and softness, editable live.
void draw_joint_settings_tab(AppState& app, int j) {
  const World& world = app.scene.world;
  const Joint& joint = world.joints[j];
  const bool angular = angular_joint(joint.type);
  // Edits work on a copy and go through set_joint_settings, which also updates the reset state and wakes
  // the bodies.
  JointLimit limit = joint.limit;
  JointMotor motor = joint.motor;
  double erp = joint.erp, cfm = joint.cfm;
  bool changed = false;
  ImGui::PushItemWidth(-150.0f);
  if (has_limit_and_motor(joint.type)) {
    changed |= ImGui::Checkbox("limited", &limit.enabled);
    help_marker(joint.type == JointType::Slider
                    ? "Keep the displacement along the axis between lower and upper (green ticks in the scene)."
                    : "Keep the angle about the (first) axis between lower and upper (the green arc in the scene).");
    ImGui::BeginDisabled(!limit.enabled);
    const double scale = angular ? kDeg : 1.0;
    double range[2] = {limit.lower * scale, limit.upper * scale};
    const char* fmt = angular ? "%.1f deg" : "%.3f m";
    if (ImGui::InputScalarN("lower, upper", ImGuiDataType_Double, range, 2, nullptr, nullptr, fmt,
                            ImGuiInputTextFlags_EnterReturnsTrue)) {
      if (std::isfinite(range[0]) && std::isfinite(range[1])) {
        // Angles stay within [-180, 180] degrees, the range scene files accept.
        const double bound = angular ? 180.0 : std::numeric_limits<double>::max();
        limit.lower = std::clamp(std::min(range[0], range[1]), -bound, bound) / scale;
        limit.upper = std::clamp(std::max(range[0], range[1]), -bound, bound) / scale;
        changed = true;
      }
    }
    help_marker(angular ? "Lower and upper angle in degrees, within -180..180 (stored in radians); press Enter to "
                          "apply. Swapped if given the wrong way round."
                        : "Lower and upper displacement in metres; press Enter to apply.");
    ImGui::EndDisabled();

    ImGui::Separator();
    ImGui::TextDisabled("Motor");
    // A servo already drives the coordinate (a scene may not have both: saving would write a file that
    // does not load), so the motor stays off on servo joints.
    const bool servo = joint.servo.enabled && joint_type_has_servo(joint.type);
    ImGui::BeginDisabled(servo);
    changed |= ImGui::Checkbox("motor on", &motor.enabled);
    ImGui::EndDisabled();
    help_marker(servo ? "This joint has a servo (Servos panel), which drives its coordinate; a motor cannot be added."
                : joint.type == JointType::Hinge2 || joint.type == JointType::Universal
                    ? "Drive the relative spin about the second (wheel) axis to 'speed' with at most 'max force' of torque."
                    : "Drive the coordinate's rate to 'speed' with at most 'max force'.");
    ImGui::BeginDisabled(!motor.enabled);
    const double speed_min = angular ? -50.0 : -10.0, speed_max = -speed_min;
    changed |= slider_double("speed", &motor.speed, speed_min, speed_max,
                                   angular ? "%.2f rad/s" : "%.3f m/s");
    help_marker(angular ? "Target angular velocity in rad/s (1 rad/s = 57.3 deg/s); the sign follows the axis "
                          "(right-hand rule). Ctrl+click to type a value."
                        : "Target speed along the axis in m/s. Ctrl+click to type a value.");
    const double force_min = 0.0, force_max = 1e5;
    changed |= slider_double("max force", &motor.max_force, force_min, force_max,
                                   angular ? "%.4g N m" : "%.4g N",
                                   ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("Largest torque (N m) or force (N) the motor may use to reach its speed; 0 disables it in effect.");
    ImGui::EndDisabled();
  }
  ImGui::Separator();
    ImGui::TextDisabled("Softness");
  const double zero = 0.0, one = 1.0, cfm_max = 1.0;
  changed |= slider_double("ERP", &erp, zero, one, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  help_marker("Error reduction parameter: the fraction of the joint's position error removed per step "
              "(thesis 4.7). 0 lets errors drift, 1 removes them at once (can be jittery); 0.2 is typical.");
  changed |= slider_double("CFM", &cfm, zero, cfm_max, "%.3g",
                                 ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  help_marker("Constraint force mixing: added to the diagonal of the joint's rows (thesis 4.13), making the "
              "joint soft (springy). 0 is rigid.");
  ImGui::PopItemWidth();
  if (changed) set_joint_settings(app, j, limit, motor, erp, cfm);
  ImGui::TextDisabled("Edits also apply after Reset and to Save as.");
}

void draw_joint_inspector(AppState& app, int j) {
  if (!ImGui::BeginTabBar("joint tabs")) return;
  if (ImGui::BeginTabItem("Joint")) {
    draw_joint_state_tab(app, j);
    ImGui::EndTabItem();
  }
  const ImGuiTabItemFlags flags = app.pick.focus_joint_settings ? ImGuiTabItemFlags_SetSelected : 0;
  app.pick.focus_joint_settings = false;
  const bool limits = has_limit_and_motor(app.scene.world.joints[j].type);
  if (ImGui::BeginTabItem(limits ? "Limit, motor###settings" : "Softness###settings", nullptr, flags)) {
    draw_joint_settings_tab(app, j);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

// The Inspector's Script tab: lay a path for the selected body, set its timing, apply, clear.
void draw_script_tab(AppState& app, int body) {
  World& world = app.scene.world;
  ScriptEditState& d = app.script;
  if (world.bodies[body].shape.type == ShapeType::Plane) {
    ImGui::TextDisabled("Planes cannot follow a path.");
    return;
  }
  const int applied = find_script(world, body);
  if (applied >= 0) {
    const Script& s = world.scripts[applied];
    ImGui::Text("follows a path: %zu points, %.3g m", s.points.size(), script_length(s));
  } else {
    ImGui::TextDisabled("no script");
  }

  if (d.laying) {
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.25f, 0.55f, 0.2f, 1.0f));
    if (ImGui::Button("Stop laying")) end_script_path(app);
    ImGui::PopStyleColor();
  } else if (ImGui::Button("Script path")) {
    std::string error;
    if (!begin_script_path(app, &error)) d.error = error;
  }
  help_marker("Lay the body's path: while on, each left click in the scene adds a point (green). A click on "
              "a surface puts the body's centre where the body would rest on it; a click on empty space uses "
              "the horizontal plane through the body's centre. A new path starts at the body. Keys while on: "
              "Backspace removes the last point, Enter applies, Esc stops. The camera still orbits (right "
              "drag) and zooms.");
  ImGui::SameLine();
  ImGui::Checkbox("at body height", &d.plane_only);
  help_marker("Put every clicked point on the horizontal plane through the body's centre, ignoring the "
              "surfaces under the cursor (a path across a floor at constant height).");
  ImGui::Text("draft: %zu points", d.points.size());
  ImGui::SameLine();
  ImGui::BeginDisabled(d.points.empty());
  if (ImGui::SmallButton("Undo point")) remove_last_script_point(app);
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear points")) {
    d.points.clear();
    if (d.laying) d.points.push_back(world.bodies[body].position);
  }
  ImGui::EndDisabled();

  ImGui::PushItemWidth(-150.0f);
  double speed = d.speed;
  const double speed_min = 0.01, speed_max = 50.0;
  if (slider_double("speed", &speed, speed_min, speed_max, "%.3g m/s",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
    if (applied >= 0) set_script_speed(app, body, speed);  // live, without a jump
    d.speed = speed;
  }
  help_marker("Speed along the path in m/s (the mean speed with 'ease'). Changing it on a body that already "
              "follows a path takes effect at once, and the body keeps its place on the path.");
  const char* kTimings[] = {"constant", "ease"};
  int timing = static_cast<int>(d.timing);
  ImGui::SetNextItemWidth(110.0f);  // with "loop" on the same line: the Inspector is short at 720 lines
  if (ImGui::Combo("timing", &timing, kTimings, 2)) d.timing = static_cast<ScriptTiming>(timing);
  help_marker("constant: the same speed all along. ease: starts and stops gently (ease-in / ease-out), "
              "faster in the middle. Takes effect on Apply.");
  ImGui::SameLine();
  ImGui::Checkbox("loop", &d.loop);
  help_marker("Go round again and again: the path closes from the last point back to the first. Takes "
              "effect on Apply.");
  const double delay_min = 0.0, delay_max = 60.0;
  slider_double("start after", &d.delay, delay_min, delay_max, "%.2f s",
                      ImGuiSliderFlags_AlwaysClamp);
  help_marker("Seconds the body waits at the first point: after Apply in the running simulation, and from "
              "the start after Reset and in the saved scene (the script's start_time). Takes effect on Apply.");
  ImGui::PopItemWidth();

  ImGui::BeginDisabled(d.points.size() < 2);
  if (ImGui::Button("Apply")) {
    std::string error;
    if (!apply_script(app, &error)) d.error = error;
  }
  ImGui::EndDisabled();
  help_marker("Give the body this path: it becomes kinematic (infinite mass: it pushes dynamic bodies and is "
              "never pushed back), moves to the first point and follows the path. Reset replays it from the "
              "start and Save as writes it into the scene file. The body's mass is remembered for Clear.");
  ImGui::SameLine();
  ImGui::BeginDisabled(applied < 0);
  if (ImGui::Button("Clear script")) clear_script(app, d.restore_on_clear);
  ImGui::EndDisabled();
  help_marker("Remove the body's script (also from the reset state). With 'make dynamic' the body gets back "
              "the kind and mass it had before Apply and falls or flies on with its last velocity.");
  ImGui::SameLine();
  ImGui::Checkbox("make dynamic", &d.restore_on_clear);
  help_marker("On Clear, make the body dynamic again (or fixed, if it was fixed before Apply). Unticked, "
              "it stays kinematic and stops where it is.");
  const bool original_known = std::any_of(d.originals.begin(), d.originals.end(),
                                          [&](const OriginalMass& o) { return o.body == body; });
  if (applied >= 0 && d.restore_on_clear && !original_known) {
    ImGui::PushItemWidth(-150.0f);
    const double dmin = 1.0, dmax = 20000.0;
    slider_double("density", &d.restore_density, dmin, dmax, "%.0f kg/m^3",
                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("The scene made this body kinematic, so it has no mass to go back to: Clear gives it this "
                "density (water 1000, wood ~600, steel ~7800).");
    ImGui::PopItemWidth();
  }
  if (!d.error.empty()) colored_wrapped(kErrorColor, d.error);
  else if (!d.message.empty()) colored_wrapped(kOkColor, d.message);
}

// The state of the selected body.
void draw_body_tab(AppState& app, int i) {
  const World& world = app.scene.world;
  const Body& b = world.bodies[i];
  const Shape& s = b.shape;
  if (begin_two_column_table("body", "distance grid")) {  // the longest name of its rows
    table_row("name", "%s  (#%d)", b.name.empty() ? "(unnamed)" : b.name.c_str(), i);
    table_row("kind", "%s", body_kind_name(b.kind));
    switch (s.type) {
      case ShapeType::Plane:
        table_row("shape", "plane n (%.2f, %.2f, %.2f), offset %.3g m", s.normal.x(), s.normal.y(), s.normal.z(),
                  s.offset);
        break;
      case ShapeType::Sphere: table_row("shape", "sphere r %.3g m", s.radius); break;
      case ShapeType::Box:
        table_row("shape", "box %.3g x %.3g x %.3g m", 2 * s.half_extents.x(), 2 * s.half_extents.y(),
                  2 * s.half_extents.z());
        break;
      case ShapeType::Capsule:
        table_row("shape", "capsule r %.3g m, segment %.3g m", s.radius, 2 * s.half_height);
        break;
      case ShapeType::Mesh: {
        if (!s.mesh) {
          table_row("shape", "mesh (missing)");
          break;
        }
        const MeshShape& m = *s.mesh;
        const MeshSource source = mesh_source(s.mesh).value_or(MeshSource{});
        table_row("shape", "mesh %s", source.generator.empty() ? source.file.c_str() : source.generator.c_str());
        if (m.options.scale != 1.0) table_row("scale", "%.4g", m.options.scale);
        table_row("triangles", "%zu  (%zu vertices)", m.mesh.triangles.size(), m.mesh.vertices.size());
        table_row("shell points", "%zu", m.points.size());
        const auto nodes = m.sdf.node_counts();
        // One quantity per row, so that a narrow column wraps between them rather than inside a number.
        table_row("distance grid", "%d x %d x %d nodes", nodes[0], nodes[1], nodes[2]);
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("Signed distance grid of the mesh (negative inside), %d cells along the longest side.",
                            m.options.sdf_resolution);
        }
        table_row("grid cell", "%.3g m", m.sdf.cell_size());
        const Vec3 size = m.properties.local_bounds.hi - m.properties.local_bounds.lo;
        table_row("size", "%.3g x %.3g x %.3g m", size.x(), size.y(), size.z());
        table_row("radius", "%.3g m (bounding sphere)", m.properties.bounding_radius);
        table_row("volume", "%.4g m^3", m.properties.volume);
        break;
      }
    }
    const bool has_material = b.material >= 0 && b.material < static_cast<int>(world.materials.size());
    table_row("material", "%s", has_material ? world.materials[b.material].name.c_str() : "?");
    if (b.is_dynamic()) table_row("mass", "%.4g kg", b.mass);
    else table_row("mass", "infinite (%s)", body_kind_name(b.kind));
    vec_row("position", b.position, "m");
    const Quat& q = b.orientation;
    table_row("orientation", "%.3f, %.3f, %.3f, %.3f", q.w(), q.x(), q.y(), q.z());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Unit quaternion (w, x, y, z), body to world.");
    vec_row("velocity", b.linear_velocity, "m/s");
    vec_row("angular vel.", b.angular_velocity, "rad/s");
    table_row("speed", "%.3f m/s", b.linear_velocity.norm());
    if (b.is_dynamic()) {
      const ContactGraph& graph = world.graph();
      const auto k = static_cast<size_t>(i);
      const int g = k < graph.group_of_body().size() ? graph.group_of_body()[k] : -1;
      const int h = k < graph.height_of_body().size() ? graph.height_of_body()[k] : ContactGraph::kUnreached;
      table_row("state", "%s", b.sleeping ? "asleep" : "awake");
      if (g < 0) table_row("group", "none (touching nothing)");
      else table_row("group", "%d  (%zu bodies)", g, graph.groups()[g].bodies.size());
      if (h != ContactGraph::kUnreached) table_row("stack height", "%d", h);
      else table_row("stack height", "%s", g >= 0 ? "floating (no fixed support)" : "-");
    }
    // The scene's applied forces on this body, as the next step applies them.
    for (size_t k = 0; k < world.forces.size(); ++k) {
      const AppliedForce& f = world.forces[k];
      if (f.body != i) continue;
      const ForceSample now = sample_applied_force(f, b, world.step_count(), world.time(), world.settings.dt);
      const std::string label = "force #" + std::to_string(k);
      if (now.active) {
        table_row(label.c_str(), "%.3g, %.3g, %.3g N", now.force.x(), now.force.y(), now.force.z());
      } else {
        table_row(label.c_str(), "off");
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Scene \"forces\" entry %zu: the force the next step applies (world frame) at the point "
                          "(%.3g, %.3g, %.3g) m of the body, with a moment about the centre of (%.3g, %.3g, %.3g) N m. "
                          "Acts in [%.4g, %.4g) s%s%s.",
                          k, now.point.x(), now.point.y(), now.point.z(), now.torque.x(), now.torque.y(),
                          now.torque.z(), f.start, f.end, f.period > 0 ? ", repeating" : "",
                          f.is_random() ? ", drawn at random" : "");
      }
    }
    ImGui::EndTable();
  }
  if (ImGui::Button("Deselect")) select_body(app, -1);
}

// Two tabs, so that the path editor gets the whole (small, at 720 lines) Inspector: the body's state, and
// its script. Starting Script path mode brings the Script tab forward.
void draw_body_inspector(AppState& app, int i) {
  load_script_draft(app, i);
  if (!ImGui::BeginTabBar("body tabs")) return;
  if (ImGui::BeginTabItem("Body")) {
    draw_body_tab(app, i);
    ImGui::EndTabItem();
  }
  const bool scripted = find_script(app.scene.world, i) >= 0;
  const ImGuiTabItemFlags flags = app.script.focus_tab ? ImGuiTabItemFlags_SetSelected : 0;
  app.script.focus_tab = false;
  if (ImGui::BeginTabItem(scripted ? "Script (on)###script" : "Script###script", nullptr, flags)) {
    draw_script_tab(app, i);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace

void draw_inspector_panel(AppState& app) {
  const World& world = app.scene.world;
  app.ui.inspector_open = begin_panel("Inspector");
  if (!app.ui.inspector_open) {
    ImGui::End();
    return;
  }
  const int joint = app.pick.selected_joint;
  const int body = app.pick.selected;
  if (joint >= 0 && joint < static_cast<int>(world.joints.size())) {
    draw_joint_inspector(app, joint);
  } else if (body >= 0 && body < static_cast<int>(world.bodies.size())) {
    draw_body_inspector(app, body);
  } else {
    ImGui::TextDisabled(world.joints.empty() ? "Left-click a body to select it."
                                             : "Left-click a body to select it, or near a joint's\n"
                                               "anchor (white dot) to select the joint.");
  }
  ImGui::End();
}

}  // namespace cl::viewer
