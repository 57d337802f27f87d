#include "viewer/panels.h"

#include <algorithm>

#include <imgui.h>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "viewer/colors.h"
#include "viewer/debug_view.h"
#include "viewer/overlays.h"
#include "viewer/panels_shared.h"
#include "viewer/slider.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

// The checkbox of an overlay with the label and help of its row of the overlay table, as the View menu and --view
// have them.
void overlay_checkbox(ViewState& view, bool ViewState::*field) {
  const OverlayToggle* overlay = find_overlay(field);
  if (overlay == nullptr) {  // a field the table lacks: shown, so that it gets added
    ImGui::TextColored(kErrorColor, "(an overlay missing from overlays.cpp)");
    return;
  }
  ImGui::Checkbox(overlay->label, &(view.*field));
  help_marker(overlay->help);
}

ImU32 to_imgui(const glm::vec3& c) { return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, 1.0f)); }

// A small colour square followed by a label on the same line.
void swatch(const glm::vec3& color, const char* label) {
  const float size = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + size, p.y + size), to_imgui(color), 2.0f);
  ImGui::Dummy(ImVec2(size, size));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

// The stack height legend: the ramp with its end heights, then the two kinds of unreached bodies.
void height_legend(const World& world) {
  const int top = max_stack_height(world);
  if (top == 0) {
    ImGui::TextDisabled("no stacks (nothing rests on a fixed body)");
  } else {
    const float width = ImGui::GetContentRegionAvail().x - 60.0f, height = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const int steps = std::max(top, 1);
    for (int h = 1; h <= steps; ++h) {  // one block per height: the ramp is discrete like the heights
      const float x0 = p.x + width * (h - 1) / steps, x1 = p.x + width * h / steps;
      draw->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + height), to_imgui(height_color(h, top)));
    }
    ImGui::Dummy(ImVec2(width, height));
    ImGui::SameLine();
    ImGui::Text("1..%d", top);
  }
  swatch(kFloatingColor, "floating (no fixed support)");
  swatch(kNoGroupColor, "touching nothing");
  ImGui::TextDisabled("fixed and kinematic bodies: height 0, grey");
}

}  // namespace

void draw_view_panel(AppState& app) {
  ViewState& view = app.view;
  const World& world = app.scene.world;
  if (view.expand_view_panel) {  // asked for once (CONTACTLAB_VIEW=panel), then the user decides
    ImGui::SetNextWindowCollapsed(false);
    view.expand_view_panel = false;
  }
  app.ui.view_open = begin_panel("View");
  if (!app.ui.view_open) {
    ImGui::End();
    return;
  }
  ImGui::PushItemWidth(-150.0f);
  if (ImGui::CollapsingHeader("Contacts", ImGuiTreeNodeFlags_DefaultOpen)) {
    overlay_checkbox(view, &ViewState::show_contacts);
    overlay_checkbox(view, &ViewState::contacts_through);
    overlay_checkbox(view, &ViewState::show_normals);
    if (view.show_normals) {
      slider_float("normal length", &view.normal_length, 0.01f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
      help_marker("Drawn length of the normals, in metres.");
    }
    overlay_checkbox(view, &ViewState::show_impulses);
    if (view.show_impulses) {
      ImGui::Checkbox("auto scale", &view.auto_force_scale);
      help_marker("Scale so that the largest recent contact force is drawn 'longest' metres long.");
      if (view.auto_force_scale) {
        slider_float("longest", &view.force_length, 0.05f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest recent contact force.");
      } else {
        slider_float("scale", &view.force_scale, 1e-5f, 1e1f, "%.3g m/N", ImGuiSliderFlags_Logarithmic);
        help_marker("Metres of arrow per newton of contact force.");
      }
      const double scale = view.force_arrow_scale();
      if (scale > 0.0) ImGui::Text("arrows: %.4g N per metre", 1.0 / scale);
    }
  }

  overlay_checkbox(view, &ViewState::show_method);

  {
    // The volume layers of the solver's drawing; the toggles stay usable under solvers that do not draw them.
    const bool volume = (world.solver().debug_layers() & (kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells)) != 0;
    const char* header = volume ? "Volume contacts###volume" : "Volume contacts (solver 'volume')###volume";
    if (ImGui::CollapsingHeader(header, volume ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
      if (!volume) ImGui::TextDisabled("only the 'volume' solver draws these (Solver panel)");
      overlay_checkbox(view, &ViewState::show_volumes);
      if (view.show_volumes) {
        const char* kAxisNames[3] = {"x", "y", "z"};
        for (int w = 0; w < 3; ++w) {
          if (w > 0) ImGui::SameLine();
          const glm::vec3& c = kVolumeAxisColors[static_cast<size_t>(w)];
          ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(c.r, c.g, c.b, 1.0f));
          bool on = view.volume_axes[static_cast<size_t>(w)];
          if (ImGui::Checkbox(kAxisNames[w], &on)) view.volume_axes[static_cast<size_t>(w)] = on;
          ImGui::PopStyleColor();
        }
        ImGui::SameLine();
        ImGui::TextUnformatted("image axes");
        help_marker("Which images' intervals to draw: the image along x (rays parallel to x), y or z.");
        slider_int("most per axis", &view.volume_interval_limit, 100, 200000, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        help_marker("Intervals drawn per pair and image axis. Beyond this only every k-th pixel row and column "
                    "(in world pixel indices, so the pattern does not flicker) is drawn, the smallest k that "
                    "fits.");
      }
      overlay_checkbox(view, &ViewState::show_volume_gradients);
      if (view.show_volume_gradients) {
        slider_float("longest arrow", &view.gradient_length, 0.005f, 2.0f, "%.3f m",
                           ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest gradient of each pair; the pair's others in proportion (a "
                    "box's corner can carry a whole face's share, a fine mesh spreads it over many vertices). "
                    "Planes' gradients are left out (their mesh is the solver's stand-in box).");
        swatch(kGradientColorA, "first body of the pair");
        swatch(kGradientColorB, "second body");
      }
      overlay_checkbox(view, &ViewState::show_volume_cells);
      overlay_checkbox(view, &ViewState::volume_last_stage);
      const DebugRecording& drawn = debug_recording(app, 0);
      if (volume && wants_volume_layers(view) && drawn.valid) {
        // The totals the solver noted with its drawing.
        ImGui::TextDisabled(drawn.at_collision_stage ? "as of the last step's collision stage" : "at the drawn poses");
        for (const auto& [label, value] : drawn.notes) ImGui::Text("%s %.6g", label.c_str(), value);
      }
    }
  }

  if (ImGui::CollapsingHeader("Contact graph", ImGuiTreeNodeFlags_DefaultOpen)) {
    overlay_checkbox(view, &ViewState::show_graph);
    if (view.show_graph) overlay_checkbox(view, &ViewState::show_proximity);
    const char* kColorings[kBodyColoringCount] = {"own colour", "contact group", "stack height", "stack layer"};
    int coloring = static_cast<int>(view.coloring);
    if (ImGui::Combo("body colours", &coloring, kColorings, kBodyColoringCount)) {
      view.coloring = static_cast<BodyColoring>(coloring);
    }
    help_marker("Repaint the bodies by a property of the contact graph:\n"
                "- contact group: dynamic bodies connected through contacts (and joints), which the solver "
                "treats together; fixed and kinematic bodies separate groups. One colour per group, grey for "
                "bodies touching nothing.\n"
                "- stack height: fewest contacts from a fixed (or kinematic) body, found by breadth-first "
                "search (thesis 6.4.2).\n"
                "- stack layer: the bodies of heights i and i+1 and the contacts between them, which shock "
                "propagation solves bottom-up with the lower bodies held fixed.");
    if (view.coloring == BodyColoring::Group) {
      ImGui::Text("%zu contact groups", world.graph().groups().size());
      swatch(kNoGroupColor, "in no group (touching nothing)");
    } else if (view.coloring == BodyColoring::Height) {
      height_legend(world);
    } else if (view.coloring == BodyColoring::Layer) {
      const int layers = world.graph().max_layer_count();
      if (layers == 0) {
        ImGui::TextDisabled("no stack layers in this step");
      } else {
        view.layer = std::clamp(view.layer, 0, layers - 1);
        slider_int("layer", &view.layer, 0, layers - 1, "%d", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Which stack layer to show, counted from the bottom (layer i joins heights i and i+1). "
                    "Every contact group with that many layers shows its layer i. Other bodies are dimmed. "
                    "Shock propagation solves layer by layer from the bottom, holding each layer's bottom "
                    "bodies fixed (infinite mass) while it solves the layer.");
      }
      swatch(kLayerBottomColor, "bottom (held fixed)");
      swatch(kLayerTopColor, "top");
      swatch(kLayerEdgeColor, "its contact edges");
    }
    overlay_checkbox(view, &ViewState::show_sleeping);
  }

  if (ImGui::CollapsingHeader("Joints and scripts", ImGuiTreeNodeFlags_DefaultOpen)) {
    overlay_checkbox(view, &ViewState::show_joints);
    if (view.show_joints) {
      slider_float("axis length", &view.joint_axis_length, 0.0f, 3.0f,
                         view.joint_axis_length > 0.0f ? "%.2f m" : "auto");
      help_marker("Drawn length of the joint axes. 'auto' (0) uses the size of the smaller body of each joint.");
    }
    overlay_checkbox(view, &ViewState::show_scripts);
  }

  if (ImGui::CollapsingHeader("Meshes", ImGuiTreeNodeFlags_DefaultOpen)) {
    const int selected = app.pick.selected;
    const bool selected_mesh = selected >= 0 && selected < static_cast<int>(world.bodies.size()) &&
                               world.bodies[selected].shape.type == ShapeType::Mesh && world.bodies[selected].shape.mesh;
    const bool any_mesh = std::any_of(world.bodies.begin(), world.bodies.end(),
                                      [](const Body& b) { return b.shape.type == ShapeType::Mesh; });
    if (!any_mesh) ImGui::TextDisabled("no triangle-mesh bodies in this scene");
    const char* kMeshColorings[] = {"body colour", "normals"};
    int mesh_coloring = static_cast<int>(view.mesh_coloring);
    if (ImGui::Combo("mesh colouring", &mesh_coloring, kMeshColorings, 2)) {
      view.mesh_coloring = static_cast<MeshColoring>(mesh_coloring);
    }
    help_marker("How triangle-mesh bodies are shaded: like the other bodies, or by their surface normal in the "
                "body frame (+x red, +y green, +z blue), which shows the shading normals and the facets of the "
                "mesh.");
    overlay_checkbox(view, &ViewState::show_point_shells);
    if (view.show_point_shells) overlay_checkbox(view, &ViewState::point_shells_all);
    overlay_checkbox(view, &ViewState::show_sdf_slice);
    if (view.show_sdf_slice) {
      ImGui::RadioButton("x", &view.sdf_axis, 0);
      ImGui::SameLine();
      ImGui::RadioButton("y", &view.sdf_axis, 1);
      ImGui::SameLine();
      ImGui::RadioButton("z", &view.sdf_axis, 2);
      ImGui::SameLine();
      ImGui::TextUnformatted("body axis");
      if (selected_mesh) {
        const Aabb box = world.bodies[selected].shape.mesh->sdf.box();
        const int a = std::clamp(view.sdf_axis, 0, 2);
        const float lo = static_cast<float>(box.lo[a]), hi = static_cast<float>(box.hi[a]);
        view.sdf_offset = std::clamp(view.sdf_offset, lo, hi);
        slider_float("offset", &view.sdf_offset, lo, hi, "%.3f m", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Where the plane cuts the axis, from the body's centre of mass (0).");
      } else {
        ImGui::TextDisabled("select a mesh body to see its slice");
      }
    }
  }

  if (ImGui::CollapsingHeader("Mouse drag")) {
    slider_float("stiffness", &view.drag_stiffness, 1.0f, 2000.0f, "%.0f N/m/kg", ImGuiSliderFlags_Logarithmic);
    help_marker("Spring stiffness of the mouse drag per kg of the dragged body (so light and heavy bodies "
                "feel alike). 100 gives a natural frequency of 10 rad/s.");
    slider_float("damping", &view.drag_damping, 0.0f, 100.0f, "%.1f N s/m/kg");
    help_marker("Damping of the drag spring per kg; 2 sqrt(stiffness) is critical damping.");
  }
  ImGui::PopItemWidth();

  overlay_checkbox(view, &ViewState::show_grid);
  ImGui::SameLine();
  overlay_checkbox(view, &ViewState::show_shadows);
  ImGui::SameLine();
  overlay_checkbox(view, &ViewState::wireframe);

  if (ImGui::Button("Frame scene")) frame_scene(app);
  help_marker("Point the camera at all bodies (key F).");
  ImGui::TextDisabled("Right-drag orbit, middle-drag (or Shift+right) pan,\nwheel zoom, left-click select,"
                      " left-drag pull\n(wheel while pulling: nearer / farther).");
  ImGui::End();
}

}  // namespace cl::viewer
