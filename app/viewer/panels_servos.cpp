#include "viewer/panels.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "viewer/panels_shared.h"
#include "viewer/slider.h"
#include "viewer/param_widget.h"
#include "viewer/selection.h"
#include "viewer/servo_control.h"
#include "viewer/session.h"

namespace cl::viewer {

float draw_servos_panel(AppState& app) {
  constexpr size_t kServoRowsShown = 8;  // beyond this many servos the table scrolls
  const std::vector<int> servos = servo_joints(app.scene.world);
  if (servos.empty()) return 0.0f;
  if (!begin_panel("Servos")) {
    const float collapsed = ImGui::GetWindowSize().y;
    ImGui::End();
    return collapsed;
  }
  const float height = ImGui::GetWindowSize().y;
  ImGui::TextDisabled("Hold a servo's keys while the simulation runs to move its target.");
  help_marker("Each servo drives its joint coordinate (hinge angle, slider displacement) to its target. "
              "While the simulation runs, holding the first key raises the target and the second lowers it, at "
              "the servo's rate (scene \"keys\" and \"rate\"), within its range; the slider sets it with the "
              "mouse (Ctrl+click to type a value). The joint's bodies wake when the target changes. Reset goes "
              "back to the targets of the file; Save as writes the current ones.");
  ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV;
  if (servos.size() > kServoRowsShown) flags |= ImGuiTableFlags_ScrollY;  // the header stays, the rows scroll
  if (ImGui::BeginTable("servos", 6, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("joint");
    ImGui::TableSetupColumn("type");
    ImGui::TableSetupColumn("keys");
    // As wide as a long value from the start: fitted to the first frame's "0.0 deg", it cut "-0.1 deg" later.
    ImGui::TableSetupColumn("now", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("-00000.0 deg").x);
    ImGui::TableSetupColumn("target", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("max force");
    ImGui::TableHeadersRow();
    for (int j : servos) {
      const Joint& joint = app.scene.world.joints[j];
      const JointServo& servo = joint.servo;
      const bool slider = joint.type == JointType::Slider;
      const double scale = slider ? 1.0 : kDeg;  // hinge angles are shown in degrees, stored in radians
      const char* unit = slider ? "m" : "deg";
      ImGui::PushID(j);
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::AlignTextToFramePadding();
      if (ImGui::Selectable(joint.name.empty() ? ("#" + std::to_string(j)).c_str() : joint.name.c_str(),
                            app.pick.selected_joint == j)) {
        select_joint(app, j);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Joint #%d; click to show it in the Inspector.", j);
      ImGui::TableSetColumnIndex(1);
      const std::string_view type = joint_type_name(joint.type);
      ImGui::Text("%.*s", static_cast<int>(type.size()), type.data());
      ImGui::TableSetColumnIndex(2);
      const std::string keys = servo_key_label(servo);
      if (keys.empty()) {
        ImGui::TextDisabled("none");
      } else {
        const std::string& held = app.servos.held;
        const bool active = held.find(servo.key_raise) != std::string::npos ||
                            held.find(servo.key_lower) != std::string::npos;
        if (active) ImGui::TextColored(kOkColor, "%s", keys.c_str());
        else ImGui::TextUnformatted(keys.c_str());
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("Hold %c to raise the target, %c to lower it, by %.3g %s per second.",
                            keys.front(), keys.back(), servo.rate * scale, slider ? "m" : "deg");
        }
      }
      ImGui::TableSetColumnIndex(3);
      // A hinge servo's angle counts whole turns (JointServo::coordinate).
      const double wrapped = joint_coordinate(joint, app.scene.world.bodies);
      double now = (slider ? wrapped : unwrap_servo_angle(servo, wrapped)) * scale;
      if (std::abs(now) < (slider ? 5e-4 : 5e-2)) now = 0.0;  // "0.000", not "-0.000"
      ImGui::Text(slider ? "%.3f %s" : "%.1f %s", now, unit);
      if (ImGui::IsItemHovered()) {
        if (slider) ImGui::SetTooltip("The current displacement along the axis (m).");
        else ImGui::SetTooltip("The current hinge angle (deg), counting whole turns: %.2f turns.", now / 360.0);
      }
      ImGui::TableSetColumnIndex(4);
      double lo = 0.0, hi = 0.0;
      servo_target_bounds(joint, &lo, &hi);
      double value = servo.target * scale;
      const std::string fmt = std::string(slider ? "%.3f " : "%.1f ") + unit;
      bool changed = false;
      ImGui::SetNextItemWidth(-FLT_MIN);
      if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
        const double lo_shown = lo * scale, hi_shown = hi * scale;
        changed = slider_double("##target", &value, lo_shown, hi_shown, fmt.c_str(),
                                      ImGuiSliderFlags_AlwaysClamp);
      } else {  // an unbounded range: drag instead (a slider needs both ends)
        changed = ImGui::DragScalar("##target", ImGuiDataType_Double, &value, slider ? 0.005f : 0.5f, nullptr,
                                    nullptr, fmt.c_str());
      }
      if (ImGui::IsItemHovered()) {
        const std::string range = std::isfinite(lo) || std::isfinite(hi)
                                      ? "Range " + format_number(lo * scale) + " .. " + format_number(hi * scale) + " " + unit + "."
                                      : std::string("No range: drag to set it.");
        ImGui::SetTooltip("Target %s. %s", slider ? "displacement" : "angle", range.c_str());
      }
      if (changed) set_joint_servo_target(app, j, value / scale);
      ImGui::TableSetColumnIndex(5);
      if (servo_is_pd(joint)) {
        // The bound on the PD force or torque, live: below the load (friction, weight) the joint is stuck.
        Joint& edit = app.scene.world.joints[j];
        const bool bounded = std::isfinite(edit.servo.max_force);
        double bound = bounded ? edit.servo.max_force : 0.0;
        ImGui::SetNextItemWidth(110.0f);
        if (ImGui::DragScalar("##max_force", ImGuiDataType_Double, &bound, slider ? 1.0f : 0.2f, nullptr, nullptr,
                              bounded ? (slider ? "%.1f N" : "%.2f N m") : "none") &&
            bound > 0 && std::isfinite(bound)) {
          edit.servo.max_force = bound;
          app.scene.world.wake(edit.body_a);
          app.scene.world.wake(edit.body_b);
        }
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("The most %s the servo applies (scene \"max_force\"); drag to change it live. Below the "
                            "load it has to overcome (friction, weight) the joint stops while its target runs on.",
                            slider ? "force (N)" : "torque (N m)");
        }
      } else {
        ImGui::TextDisabled("rigid");
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("A hinge servo without gains holds its angle as a constraint, with whatever torque that "
                            "takes (scene: give it \"stiffness\" and \"damping\" for a bounded PD torque).");
        }
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::End();
  return height;
}

}  // namespace cl::viewer
