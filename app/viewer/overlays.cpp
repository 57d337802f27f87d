#include "viewer/overlays.h"

namespace cl::viewer {

namespace {

constexpr OverlayToggle kOverlays[] = {
    {"contacts", "contact points", "contact points (beyond 3,000 contacts every k-th is drawn)",
     "Yellow dots at the contact points of the last step, hidden where a body is in front of them (see 'contacts "
     "through bodies'). Beyond 3,000 contacts "
     "every k-th is drawn (with its normal and force arrows), so dense sets stay legible; the Stats panel says 1 in how "
     "many.",
     &ViewState::show_contacts},
    {"through", "contacts through bodies", "contact points, normals and force arrows also behind bodies, faint",
     "Also draw the contact points, normals and force arrows that bodies hide, faint: the contacts under a pile or "
     "behind a wall. Off, they are depth-tested like the bodies.",
     &ViewState::contacts_through},
    {"normals", "contact normals", "each contact's normal, `normal_length` long",
     "Cyan lines along each contact normal, from body a towards body b.", &ViewState::show_normals},
    {"impulses", "contact forces", "normal (red) and friction (orange) forces of the last step, on body b",
     "Each contact the method reported in the last step (its contact report, docs/residuals.md): red, the normal "
     "force on body b; orange, the friction force; averaged over the step (an impulse method's impulse / h, a "
     "penalty method's applied forces). Length proportional to the force: the View panel states the scale in N "
     "per metre.",
     &ViewState::show_impulses},
    {"method", "method's own drawing",
     "what the solver draws of its last step (`pid-penalty`: pair states, bottom polygons, P, I and D parts)",
     "What the solver draws of its own last step. pid-penalty: each touching pair's bottom polygon, green in "
     "penalty (resting) mode, red in impact mode; at each of its points the P, I and D parts of the point's force "
     "stacked along the normal (blue, yellow, magenta; the largest point force 0.3 m long) and the pair's friction "
     "force at the centre (orange). Other solvers draw nothing here.",
     &ViewState::show_method},
    {"volumes", "intersection volumes",
     "`volume`: each colliding pair's intersection volume as the depth images see it (`volumes=AXES`: some axes)",
     "The intersection volume of each colliding pair as the layered depth images see it (Allard et al. 2010, "
     "sect. 3.2, eq. 11; their Fig. 1): for each image axis, every pixel ray's interval inside both meshes as a "
     "line along that axis, from the lower contact surface to the upper one. x red, y green, z blue. Drawn on top "
     "of the bodies. While any of these views is on, the images are computed once more per pair and frame for the "
     "drawing.",
     &ViewState::show_volumes},
    {"gradients", "volume gradients", "`volume`: dV/dp_k of every vertex as an arrow",
     "dV/dp_k, the gradient of each pair's intersection volume with respect to every mesh vertex (eq. 12-14: each "
     "component from its own axis image), as an arrow from the vertex: the way moving that vertex grows the "
     "volume, hence into the other body. Magenta: the pair's first body, amber: its second; the two sum to zero "
     "(equal and opposite forces). A coarse mesh (a box) has its gradient on the corners of the triangles the "
     "contact surfaces lie on.",
     &ViewState::show_volume_gradients},
    {"cells", "volume cells, frames and forces",
     "`volume`: the multi-volume cells holding a constraint, with frames and forces",
     "With multi_volume: the grid cells (cubes of side cell_size, anchored at the world origin) that hold a volume "
     "constraint (sect. 5, eq. 22-24), as white boxes. For every constraint: its position (dot; midway between the "
     "two contact surfaces' barycentres, sect. 4.2), its contact frame (normal cyan, tangents grey) and its impulse "
     "in the last step (normal red, friction orange; scaled like 'impulses' above). With one volume per pair there "
     "are no cells.",
     &ViewState::show_volume_cells},
    {"laststage", "volumes at last collision stage",
     "`volume`: its drawing as the solver used it at the last collision stage, not at the drawn poses",
     "Off: all of the above is computed at the poses drawn, after the frame's steps: what the next step's collision "
     "stage will see (the forces are still the last step's). On: as the solver used it in the last step, at the "
     "poses before that step moved the bodies, matching the forces; drawn where the bodies were, which lags a step "
     "behind (far, in a step that separates deeply interpenetrating bodies).",
     &ViewState::volume_last_stage},
    {"graph", "contact graph", "touching edges between body centres",
     "The contact graph of the last step (thesis ch. 5): a white line between the centres of every two bodies that "
     "touch. An edge to a fixed or kinematic body ends at the middle of the pair's contacts (a dot), since the "
     "ground's centre means nothing. Drawn on top of the bodies. With 'stack height' colouring the edges take the "
     "colour of their stack layer.",
     &ViewState::show_graph},
    {"proximity", "near pairs", "also the contact graph's edges of pairs near but not touching, faint",
     "Also the faint edges of pairs whose bounding boxes overlap (within the contact margin) but have no contact "
     "yet: what the broad phase hands to the narrow phase.",
     &ViewState::show_proximity},
    {"sleeping", "sleeping bodies", "sleeping bodies darker and bluish",
     "Shade sleeping bodies darker, bluish and faintly striped. A body falls asleep after it has been calm for a "
     "while (thesis 6.5) and is not simulated until something touches it, the mouse picks it, or a joint motor "
     "changes.",
     &ViewState::show_sleeping},
    {"joints", "joint frames", "joint anchors, axes, limit arcs and slider travel",
     "At each joint: its anchor (white dot; click near it to select the joint), lines to the centres of its bodies, "
     "its axes (orange first, blue second) and, for hinges, the allowed angle range (green arc; a faint circle "
     "without limits) with the current angle (yellow needle). Sliders show their travel range. A red line means "
     "the two anchors have drifted apart (constraint error).",
     &ViewState::show_joints},
    {"scripts", "script paths", "the paths of scripted bodies",
     "The path of every scripted body (blue; the selected body's brighter) through its control points. A path "
     "being laid in the Inspector is green.",
     &ViewState::show_scripts},
    {"shells", "point shells", "the selected mesh body's shell points",
     "Green dots at the shell points of the selected mesh body: the surface samples (vertices, points along sharp "
     "edges, centres of large triangles) that are tested against the other body's distance field to find "
     "contacts.",
     &ViewState::show_point_shells},
    {"allshells", "shells of all meshes", "with `shells`: every mesh body's",
     "With 'point shells': the shell points of every mesh body, not only the selected one's.",
     &ViewState::point_shells_all},
    {"sdf", "distance field slice", "a slice of the selected mesh body's signed distance grid",
     "A plane through the selected mesh body, perpendicular to one of its body axes, coloured by the signed "
     "distance grid: blue inside, red outside, white at the surface. The outline is the grid's extent.",
     &ViewState::show_sdf_slice},
    {"grid", "grid", "the ground grid",
     "Grid lines on planes: minor lines at a power-of-ten spacing suited to the scene size, darker major lines "
     "every ten.",
     &ViewState::show_grid},
    {"shadows", "shadows", "blob shadows under the bodies",
     "Soft blob shadows under the bodies on planes (a depth cue, not a light simulation).", &ViewState::show_shadows},
    {"wireframe", "wireframe", "bodies as wireframes", "Draw the body meshes as wireframes.", &ViewState::wireframe},
};

}  // namespace

std::span<const OverlayToggle> overlay_toggles() { return kOverlays; }

const OverlayToggle* find_overlay(bool ViewState::*field) {
  for (const OverlayToggle& o : kOverlays)
    if (o.field == field) return &o;
  return nullptr;
}

std::string overlay_table_markdown() {
  std::string out = "| token | View panel and menu | what it draws |\n|---|---|---|\n";
  for (const OverlayToggle& o : kOverlays)
    out += std::string("| `") + o.token + "` | " + o.label + " | " + o.summary + " |\n";
  return out;
}

}  // namespace cl::viewer
