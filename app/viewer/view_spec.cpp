#include "viewer/view_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "viewer/convert.h"
#include "viewer/overlays.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/session.h"

namespace cl::viewer {

bool apply_view_spec(AppState& app, const std::string& spec, std::string* error) {
  ViewState& v = app.view;
  // The overlays (their table), then the switches that are not overlays.
  std::vector<std::pair<const char*, bool*>> flags;
  for (const OverlayToggle& o : overlay_toggles()) flags.push_back({o.token, &(v.*o.field)});
  const std::pair<const char*, bool*> others[] = {
      {"panel", &v.expand_view_panel}, {"compare", &v.expand_compare_panel}, {"help", &app.ui.help},
      {"hideui", &app.ui.hidden},      {"video", &app.ui.recording_video},   {"pngvideo", &app.ui.video_png},
      {"welcome", &app.ui.welcome},    {"browser", &app.ui.browser},
  };
  flags.insert(flags.end(), std::begin(others), std::end(others));
  const std::pair<const char*, BodyColoring> colorings[] = {
      {"body", BodyColoring::Body}, {"group", BodyColoring::Group}, {"height", BodyColoring::Height},
      {"layer", BodyColoring::Layer}};
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string token = spec.substr(start, end - start);
    start = end + 1;
    while (!token.empty() && token.front() == ' ') token.erase(token.begin());
    while (!token.empty() && token.back() == ' ') token.pop_back();
    if (token.empty()) continue;
    const bool on = token[0] != '-';
    const std::string name = on ? token : token.substr(1);
    const size_t eq = name.find('=');
    const std::string key = name.substr(0, eq), value = eq == std::string::npos ? "" : name.substr(eq + 1);
    if (key == "volumes") {  // volumes (every axis), -volumes, or volumes=AXES with AXES some of x, y, z (volumes=xz);
      // before the overlay table, which has `volumes` too
      if (eq == std::string::npos) {
        v.show_volumes = on;
        if (on) v.volume_axes = {true, true, true};
        continue;
      }
      std::array<bool, 3> axes{false, false, false};
      bool ok = on && !value.empty();
      for (char c : value) {
        if (c < 'x' || c > 'z') ok = false;
        else axes[static_cast<size_t>(c - 'x')] = true;
      }
      if (!ok) {
        *error = "view '" + token + "': expected volumes=AXES with AXES some of x, y, z (volumes=xz)";
        return false;
      }
      v.show_volumes = true;
      v.volume_axes = axes;
      continue;
    }
    bool known = false;
    for (const auto& [flag, target] : flags) {
      if (key == flag && eq == std::string::npos) {
        *target = on;
        known = true;
      }
    }
    if (known) continue;
    if (key == "open" && on && !value.empty()) {  // as the Scene panel's Open: a bad file shows its error, keeps the scene
      std::string why;
      if (!open_scene(app, resolve_scene_path(app.scene.root, value), nullptr, &why)) app.scene.error = why;
      else app.scene.error.clear();
      continue;
    }
    if (key == "out" && on && !value.empty()) {  // the output folder of screenshots, videos and recordings
      app.ui.output_dir = value;
      continue;
    }
    if ((key == "split" || key == "overlay") && on && eq == std::string::npos) {  // the comparison's layout
      app.compare.layout = key == "split" ? CompareLayout::Split : CompareLayout::Overlay;
      continue;
    }
    if (key == "groups" || key == "heights" || key == "layers") {
      v.coloring = key == "groups" ? BodyColoring::Group : key == "heights" ? BodyColoring::Height : BodyColoring::Layer;
      continue;
    }
    if (key == "color") {
      for (const auto& [n, c] : colorings) {
        if (value == n) {
          v.coloring = c;
          known = true;
        }
      }
      if (!known) {
        *error = "view '" + token + "': expected color=body, group, height or layer";
        return false;
      }
      continue;
    }
    if (key == "meshcolor") {
      if (value == "body" || value == "normals") {
        v.mesh_coloring = value == "body" ? MeshColoring::Body : MeshColoring::Normals;
        continue;
      }
      *error = "view '" + token + "': expected meshcolor=body or normals";
      return false;
    }
    if (key == "slice") {  // slice=AXIS or slice=AXIS:OFFSET (body frame, m): the distance field slice
      const int axis = value.empty() ? -1 : value[0] == 'x' ? 0 : value[0] == 'y' ? 1 : value[0] == 'z' ? 2 : -1;
      double offset = 0.0;
      bool ok = axis >= 0 && (value.size() == 1 || value[1] == ':');
      if (ok && value.size() > 1) {
        char* rest = nullptr;
        offset = std::strtod(value.c_str() + 2, &rest);
        ok = rest != value.c_str() + 2 && *rest == '\0' && std::isfinite(offset);
      }
      if (!ok) {
        *error = "view '" + token + "': expected slice=x, y or z, optionally :OFFSET in metres (slice=y:0.02)";
        return false;
      }
      v.show_sdf_slice = true;
      v.sdf_axis = axis;
      v.sdf_offset = static_cast<float>(offset);
      continue;
    }
    if (key == "layer") {
      char* rest = nullptr;
      const long n = std::strtol(value.c_str(), &rest, 10);
      if (value.empty() || *rest != '\0' || n < 0 || n > 100000) {
        *error = "view '" + token + "': expected layer=N with N >= 0";
        return false;
      }
      v.coloring = BodyColoring::Layer;
      v.layer = static_cast<int>(n);
      continue;
    }
    if (key == "select") {
      const int body = app.scene.world.find_body(value);
      if (body < 0) {
        *error = "view '" + token + "': no body named '" + value + "'";
        return false;
      }
      select_body(app, body);
      continue;
    }
    if (key == "zoom" || key == "yaw" || key == "pitch") {  // camera, for screenshots of details
      char* rest = nullptr;
      const double x = std::strtod(value.c_str(), &rest);
      if (value.empty() || *rest != '\0' || !std::isfinite(x) || (key == "zoom" && !(x > 0.0))) {
        *error = "view '" + token + "': expected " + key + "=NUMBER" + (key == "zoom" ? " > 0" : " (degrees)");
        return false;
      }
      if (key == "zoom") app.camera.zoom(static_cast<float>(std::log(x) / std::log(1.0 / 0.88)));
      else if (key == "yaw") app.camera.yaw = static_cast<float>(x * std::numbers::pi / 180.0);
      else app.camera.pitch = static_cast<float>(std::clamp(x, -89.0, 89.0) * std::numbers::pi / 180.0);
      continue;
    }
    if (key == "focus") {
      const int body = app.scene.world.find_body(value);
      if (body < 0) {
        *error = "view '" + token + "': no body named '" + value + "'";
        return false;
      }
      app.camera.target = to_glm(app.scene.world.bodies[body].position);
      continue;
    }
    if (key == "follow") {  // the camera follows the body (C), as a click on it and C would
      const int body = app.scene.world.find_body(value);
      if (body < 0) {
        *error = "view '" + token + "': no body named '" + value + "'";
        return false;
      }
      select_body(app, body);
      app.view.follow = -1;
      toggle_follow(app);
      continue;
    }
    if (key == "joint") {
      char* rest = nullptr;
      const long n = std::strtol(value.c_str(), &rest, 10);
      if (value.empty() || *rest != '\0' || n < 0 || n >= static_cast<long>(app.scene.world.joints.size())) {
        *error = "view '" + token + "': expected joint=N with N a joint index (the scene has " +
                 std::to_string(app.scene.world.joints.size()) + " joints)";
        return false;
      }
      select_joint(app, static_cast<int>(n));
      continue;
    }
    if (key == "tab") {  // tab=script or tab=settings: the Inspector tab to show first
      if (value == "script") app.script.focus_tab = true;
      else if (value == "settings") app.pick.focus_joint_settings = true;
      else {
        *error = "view '" + token + "': expected tab=script or tab=settings";
        return false;
      }
      continue;
    }
    if (key == "point") {  // a path point as if clicked there: point=X:Y:Z (world frame, m)
      Vec3 p;
      char* rest = nullptr;
      const char* c = value.c_str();
      bool ok = app.script.laying;
      for (int k = 0; k < 3 && ok; ++k) {
        p[k] = std::strtod(c, &rest);
        ok = rest != c && std::isfinite(p[k]) && *rest == (k < 2 ? ':' : '\0');
        c = rest + 1;
      }
      if (!ok) {
        *error = "view '" + token + "': expected point=X:Y:Z after 'path'";
        return false;
      }
      app.script.points.push_back(p);
      continue;
    }
    if (key == "apply") {
      if (!apply_script(app, error)) {
        *error = "view 'apply': " + *error;
        return false;
      }
      continue;
    }
    if (key == "path") {
      if (!begin_script_path(app, error)) {
        *error = "view 'path': " + *error;
        return false;
      }
      continue;
    }
    *error = "view '" + token + "': unknown; expected contacts, normals, impulses, grid, shadows, wireframe, "
             "graph, proximity, sleeping, joints, scripts, shells, allshells, sdf, volumes, gradients, cells, laststage, "
             "panel (each with an optional leading '-'), volumes=xyz, meshcolor=body|normals, slice=x|y|z[:OFFSET], "
             "color=..., groups, heights, layers, layer=N, select=NAME, joint=N, tab=script|settings, path, "
             "point=X:Y:Z, apply, "
             "zoom=F, yaw=DEG, pitch=DEG, focus=NAME or follow=NAME";
    return false;
  }
  return true;
}

}  // namespace cl::viewer
