#include "viewer/panels.h"

#include <algorithm>

#include <imgui.h>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "viewer/colors.h"
#include "viewer/debug_view.h"
#include "viewer/overlays.h"
#include "viewer/panels_shared.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

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
  app.ui.view_open = ImGui::Begin("View");
  if (!app.ui.view_open) {
    ImGui::End();
    return;
  }
  ImGui::PushItemWidth(-150.0f);
  if (ImGui::CollapsingHeader("Contacts", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("contact points", &view.show_contacts);
    help_marker("Yellow dots at the contact points of the last step (faint where hidden behind a body). Beyond "
                "3,000 contacts every k-th is drawn (with its normal and impulses), so dense sets stay legible; the "
                "Stats panel says 1 in how many.");
    ImGui::Checkbox("contact normals", &view.show_normals);
    help_marker("Cyan lines along each contact normal, from body a towards body b.");
    if (view.show_normals) {
      ImGui::SliderFloat("normal length", &view.normal_length, 0.01f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
      help_marker("Drawn length of the normals, in metres.");
    }
    ImGui::Checkbox("impulses", &view.show_impulses);
    help_marker("Red: normal impulse of each contact in the last step, along the normal. Orange: friction "
                "impulse. Length proportional to the impulse (N s).");
    if (view.show_impulses) {
      ImGui::Checkbox("auto scale", &view.auto_impulse_scale);
      help_marker("Scale so that the largest recent impulse is drawn 'longest' metres long.");
      if (view.auto_impulse_scale) {
        ImGui::SliderFloat("longest", &view.impulse_length, 0.05f, 5.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest recent impulse.");
      } else {
        ImGui::SliderFloat("scale", &view.impulse_scale, 1e-3f, 1e3f, "%.3g m/(N s)", ImGuiSliderFlags_Logarithmic);
        help_marker("Metres of line per N s of impulse.");
      }
    }
  }

  ImGui::Checkbox("method's own drawing", &view.show_method);
  help_marker("What the solver draws of its own last step. pid-penalty: each touching pair's bottom polygon, "
              "green in penalty (resting) mode, red in impact mode; at each of its points the P, I and D parts "
              "of the point's force stacked along the normal (blue, yellow, magenta; the largest point force "
              "0.3 m long) and the pair's friction force at the centre (orange). Other solvers draw nothing here.");

  {
    // The volume layers of the solver's drawing; the toggles stay usable under solvers that do not draw them.
    const bool volume = (world.solver().debug_layers() & (kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells)) != 0;
    const char* header = volume ? "Volume contacts###volume" : "Volume contacts (solver 'volume')###volume";
    if (ImGui::CollapsingHeader(header, volume ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
      if (!volume) ImGui::TextDisabled("only the 'volume' solver draws these (Solver panel)");
      ImGui::Checkbox("intersection volumes", &view.show_volumes);
      help_marker("The intersection volume of each colliding pair as the layered depth images see it (Allard et "
                  "al. 2010, sect. 3.2, eq. 11; their Fig. 1): for each image axis, every pixel ray's interval "
                  "inside both meshes as a line along that axis, from the lower contact surface to the upper "
                  "one. x red, y green, z blue. Drawn on top of the bodies. While any of these views is on, the "
                  "images are computed once more per pair and frame for the drawing.");
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
        ImGui::SliderInt("most per axis", &view.volume_interval_limit, 100, 200000, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        help_marker("Intervals drawn per pair and image axis. Beyond this only every k-th pixel row and column "
                    "(in world pixel indices, so the pattern does not flicker) is drawn, the smallest k that "
                    "fits.");
      }
      ImGui::Checkbox("volume gradients", &view.show_volume_gradients);
      help_marker("dV/dp_k, the gradient of each pair's intersection volume with respect to every mesh vertex "
                  "(eq. 12-14: each component from its own axis image), as an arrow from the vertex: the way "
                  "moving that vertex grows the volume, hence into the other body. Magenta: the pair's first "
                  "body, amber: its second; the two sum to zero (equal and opposite forces). A coarse mesh "
                  "(a box) has its gradient on the corners of the triangles the contact surfaces lie on.");
      if (view.show_volume_gradients) {
        ImGui::SliderFloat("longest arrow", &view.gradient_length, 0.005f, 2.0f, "%.3f m",
                           ImGuiSliderFlags_Logarithmic);
        help_marker("Drawn length of the largest gradient of each pair; the pair's others in proportion (a "
                    "box's corner can carry a whole face's share, a fine mesh spreads it over many vertices). "
                    "Planes' gradients are left out (their mesh is the solver's stand-in box).");
        swatch(kGradientColorA, "first body of the pair");
        swatch(kGradientColorB, "second body");
      }
      ImGui::Checkbox("cells, frames and forces", &view.show_volume_cells);
      help_marker("With multi_volume: the grid cells (cubes of side cell_size, anchored at the world origin) "
                  "that hold a volume constraint (sect. 5, eq. 22-24), as white boxes. For every constraint: "
                  "its position (dot; midway between the two contact surfaces' barycentres, sect. 4.2), its "
                  "contact frame (normal cyan, tangents grey) and its impulse in the last step (normal red, "
                  "friction orange; scaled like 'impulses' above). With one volume per pair there are no cells.");
      ImGui::Checkbox("as of the last collision stage", &view.volume_last_stage);
      help_marker("Off: all of the above is computed at the poses drawn, after the frame's steps: what the next "
                  "step's collision stage will see (the forces are still the last step's). On: as the solver "
                  "used it in the last step, at the poses before that step moved the bodies, matching the "
                  "forces; drawn where the bodies were, which lags a step behind (far, in a step that separates "
                  "deeply interpenetrating bodies).");
      const DebugRecording& drawn = debug_recording(app, 0);
      if (volume && wants_volume_layers(view) && drawn.valid) {
        // The totals the solver noted with its drawing.
        ImGui::TextDisabled(drawn.at_collision_stage ? "as of the last step's collision stage" : "at the drawn poses");
        for (const auto& [label, value] : drawn.notes) ImGui::Text("%s %.6g", label.c_str(), value);
      }
    }
  }

  if (ImGui::CollapsingHeader("Contact graph", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("graph edges", &view.show_graph);
    help_marker("The contact graph of the last step (thesis ch. 5): a white line between the centres of every "
                "two bodies that touch. An edge to a fixed or kinematic body ends at the middle of the pair's "
                "contacts (a dot), since the ground's centre means nothing. Drawn on top of the bodies. "
                "With 'stack height' colouring the edges take the colour of their stack layer.");
    if (view.show_graph) {
      ImGui::Checkbox("near pairs too", &view.show_proximity);
      help_marker("Also the faint edges of pairs whose bounding boxes overlap (within the contact margin) "
                  "but have no contact yet: what the broad phase hands to the narrow phase.");
    }
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
        ImGui::SliderInt("layer", &view.layer, 0, layers - 1, "%d", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Which stack layer to show, counted from the bottom (layer i joins heights i and i+1). "
                    "Every contact group with that many layers shows its layer i. Other bodies are dimmed. "
                    "Shock propagation solves layer by layer from the bottom, holding each layer's bottom "
                    "bodies fixed (infinite mass) while it solves the layer.");
      }
      swatch(kLayerBottomColor, "bottom (held fixed)");
      swatch(kLayerTopColor, "top");
      swatch(kLayerEdgeColor, "its contact edges");
    }
    ImGui::Checkbox("sleeping bodies", &view.show_sleeping);
    help_marker("Shade sleeping bodies darker, bluish and faintly striped. A body falls asleep after it has "
                "been calm for a while (thesis 6.5) and is not simulated until something touches it, the "
                "mouse picks it, or a joint motor changes.");
  }

  if (ImGui::CollapsingHeader("Joints and scripts", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("joint frames", &view.show_joints);
    help_marker("At each joint: its anchor (white dot; click near it to select the joint), lines to the "
                "centres of its bodies, its axes (orange first, blue second) and, for hinges, the allowed "
                "angle range (green arc; a faint circle without limits) with the current angle (yellow "
                "needle). Sliders show their travel range. A red line means the two anchors have drifted "
                "apart (constraint error).");
    if (view.show_joints) {
      ImGui::SliderFloat("axis length", &view.joint_axis_length, 0.0f, 3.0f,
                         view.joint_axis_length > 0.0f ? "%.2f m" : "auto");
      help_marker("Drawn length of the joint axes. 'auto' (0) uses the size of the smaller body of each joint.");
    }
    ImGui::Checkbox("script paths", &view.show_scripts);
    help_marker("The path of every scripted body (blue; the selected body's brighter) through its control "
                "points. A path being laid in the Inspector is green.");
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
    ImGui::Checkbox("point shells", &view.show_point_shells);
    help_marker("Green dots at the shell points of the selected mesh body: the surface samples (vertices, points "
                "along sharp edges, centres of large triangles) that are tested against the other body's "
                "distance field to find contacts.");
    if (view.show_point_shells) {
      ImGui::SameLine();
      ImGui::Checkbox("all mesh bodies", &view.point_shells_all);
    }
    ImGui::Checkbox("distance field slice", &view.show_sdf_slice);
    help_marker("A plane through the selected mesh body, perpendicular to one of its body axes, coloured by the "
                "signed distance grid: blue inside, red outside, white at the surface. The outline is the "
                "grid's extent.");
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
        ImGui::SliderFloat("offset", &view.sdf_offset, lo, hi, "%.3f m", ImGuiSliderFlags_AlwaysClamp);
        help_marker("Where the plane cuts the axis, from the body's centre of mass (0).");
      } else {
        ImGui::TextDisabled("select a mesh body to see its slice");
      }
    }
  }

  if (ImGui::CollapsingHeader("Mouse drag")) {
    ImGui::SliderFloat("stiffness", &view.drag_stiffness, 1.0f, 2000.0f, "%.0f N/m/kg", ImGuiSliderFlags_Logarithmic);
    help_marker("Spring stiffness of the mouse drag per kg of the dragged body (so light and heavy bodies "
                "feel alike). 100 gives a natural frequency of 10 rad/s.");
    ImGui::SliderFloat("damping", &view.drag_damping, 0.0f, 100.0f, "%.1f N s/m/kg");
    help_marker("Damping of the drag spring per kg; 2 sqrt(stiffness) is critical damping.");
  }
  ImGui::PopItemWidth();

  ImGui::Checkbox("grid", &view.show_grid);
  help_marker("Grid lines on planes: minor lines at a power-of-ten spacing suited to the scene size, "
              "darker major lines every ten.");
  ImGui::SameLine();
  ImGui::Checkbox("shadows", &view.show_shadows);
  help_marker("Soft blob shadows under the bodies on planes (a depth cue, not a light simulation).");
  ImGui::SameLine();
  ImGui::Checkbox("wireframe", &view.wireframe);
  help_marker("Draw the body meshes as wireframes.");

  if (ImGui::Button("Frame scene")) frame_scene(app);
  help_marker("Point the camera at all bodies (key F).");
  ImGui::TextDisabled("Right-drag orbit, middle-drag (or Shift+right) pan,\nwheel zoom, left-click select,"
                      " left-drag pull\n(wheel while pulling: nearer / farther).");
  ImGui::End();
}

}  // namespace cl::viewer
