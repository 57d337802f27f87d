#include "viewer/overlays.h"

namespace cl::viewer {

namespace {

constexpr OverlayToggle kOverlays[] = {
    {"contacts", "contacts", "contact points (beyond 3,000 contacts every k-th is drawn)", &ViewState::show_contacts},
    {"normals", "contact normals", "each contact's normal, `normal_length` long", &ViewState::show_normals},
    {"impulses", "impulses", "normal (red) and friction (orange) impulses of the last step", &ViewState::show_impulses},
    {"method", "method's own drawing",
     "what the solver draws of its last step (`pid-penalty`: pair states, bottom polygons, P, I and D parts)",
     &ViewState::show_method},
    {"graph", "contact graph", "touching edges between body centres", &ViewState::show_graph},
    {"proximity", "near pairs", "also the contact graph's edges of pairs near but not touching, faint",
     &ViewState::show_proximity},
    {"sleeping", "sleeping bodies", "sleeping bodies darker and bluish", &ViewState::show_sleeping},
    {"joints", "joints", "joint anchors, axes, limit arcs and slider travel", &ViewState::show_joints},
    {"scripts", "script paths", "the paths of scripted bodies", &ViewState::show_scripts},
    {"grid", "grid", "the ground grid", &ViewState::show_grid},
    {"shadows", "shadows", "blob shadows under the bodies", &ViewState::show_shadows},
    {"wireframe", "wireframe", "bodies as wireframes", &ViewState::wireframe},
    {"shells", "point shells", "the selected mesh body's shell points", &ViewState::show_point_shells},
    {"allshells", "point shells of all meshes", "with `shells`: every mesh body's", &ViewState::point_shells_all},
    {"sdf", "distance field slice", "a slice of the selected mesh body's signed distance grid",
     &ViewState::show_sdf_slice},
    {"gradients", "volume gradients", "`volume`: dV/dp_k of every vertex as an arrow", &ViewState::show_volume_gradients},
    {"cells", "volume cells", "`volume`: the multi-volume cells holding a constraint, with frames and forces",
     &ViewState::show_volume_cells},
    {"laststage", "volumes at the last step's stage",
     "`volume`: its drawing as the solver used it at the last collision stage, not at the drawn poses",
     &ViewState::volume_last_stage},
};

}  // namespace

std::span<const OverlayToggle> overlay_toggles() { return kOverlays; }

std::string overlay_table_markdown() {
  std::string out = "| token | View menu | what it draws |\n|---|---|---|\n";
  for (const OverlayToggle& o : kOverlays)
    out += std::string("| `") + o.token + "` | " + o.label + " | " + o.help + " |\n";
  return out;
}

}  // namespace cl::viewer
