#include "viewer/script_edit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/mesh_shape.h"
#include "collision/raycast.h"
#include "core/shape.h"

namespace cl::viewer {

int find_script(const World& world, int body) {
  for (int i = 0; i < static_cast<int>(world.scripts.size()); ++i) {
    if (world.scripts[i].body == body) return i;
  }
  return -1;
}

void load_script_draft(AppState& app, int body) {
  ScriptEditState& d = app.script;
  if (d.body == body && d.generation == app.scene.generation) return;
  d.body = body;
  d.generation = app.scene.generation;
  d.laying = false;
  d.points.clear();
  d.error.clear();
  d.message.clear();
  const World& world = app.scene.world;
  const int i = find_script(world, body);
  if (i < 0) return;  // keep speed, timing and loop from the last draft: likely what the user wants again
  const Script& s = world.scripts[i];
  d.points = s.points;
  d.speed = s.speed;
  d.timing = s.timing;
  d.loop = s.loop;
  // The delay is the start time of the reset state's copy (the scene's own clock), else what remains.
  const int k = find_script(app.scene.loaded, body);
  d.delay = k >= 0 ? app.scene.loaded.scripts[k].start_time : std::max(0.0, s.start_time - world.time());
  d.delay = std::max(d.delay, 0.0);
}

bool begin_script_path(AppState& app, std::string* error) {
  const World& world = app.scene.world;
  const int body = app.pick.selected;
  if (body < 0 || body >= static_cast<int>(world.bodies.size())) {
    *error = "select a body first";
    return false;
  }
  if (world.bodies[body].shape.type == ShapeType::Plane) {
    *error = "a plane cannot follow a path";
    return false;
  }
  load_script_draft(app, body);
  ScriptEditState& d = app.script;
  // The path starts where the body is, so that Apply does not make it jump.
  if (d.points.empty()) d.points.push_back(world.bodies[body].position);
  d.laying = true;
  d.focus_tab = true;
  d.error.clear();
  d.message.clear();
  return true;
}

void end_script_path(AppState& app) { app.script.laying = false; }

namespace {
// Distance from the body's centre to its surface in direction `dir` (unit, world frame).
double support_distance(const Body& b, const Vec3& dir) {
  const Vec3 local = b.orientation.conjugate() * dir;
  const Shape& s = b.shape;
  switch (s.type) {
    case ShapeType::Sphere: return s.radius;
    case ShapeType::Box: return local.cwiseAbs().dot(s.half_extents);
    case ShapeType::Capsule: return s.radius + s.half_height * std::abs(local.y());
    case ShapeType::Mesh: {  // the support of the vertices (the hull), exact for the contact that matters
      if (!s.mesh) return 0.0;
      double best = 0.0;
      for (const Vec3& v : s.mesh->mesh.vertices) best = std::max(best, v.dot(local));
      return best;
    }
    case ShapeType::Plane: break;
  }
  return 0.0;
}
}  // namespace

std::optional<Vec3> script_point_from_ray(const World& world, int body, const Vec3& origin, const Vec3& dir,
                                          bool plane_only) {
  if (body < 0 || body >= static_cast<int>(world.bodies.size()) || !all_finite(origin) || !all_finite(dir)) {
    return std::nullopt;
  }
  const Body& moving = world.bodies[body];
  if (!plane_only) {
    std::optional<ShapeHit> best;
    for (int i = 0; i < static_cast<int>(world.bodies.size()); ++i) {
      if (i == body) continue;  // the body cannot rest on itself
      const Body& b = world.bodies[i];
      const auto hit = raycast_shape(b.shape, b.position, b.orientation, origin, dir,
                                     best ? best->distance : std::numeric_limits<double>::infinity());
      if (hit && hit->distance > 0.0 && (!best || hit->distance < best->distance)) best = hit;
    }
    if (best) return Vec3(best->point + best->normal * support_distance(moving, -best->normal));
  }
  // Nothing under the cursor (or asked for): the horizontal plane through the body's centre.
  const double height = moving.position.y();
  if (std::abs(dir.y()) < 1e-9) return std::nullopt;
  const double t = (height - origin.y()) / dir.y();
  if (!(t > 0.0) || !std::isfinite(t)) return std::nullopt;
  return Vec3(origin + t * dir);
}

bool add_script_point(AppState& app, const Vec3& origin, const Vec3& dir) {
  ScriptEditState& d = app.script;
  if (!d.laying) return false;
  const auto p = script_point_from_ray(app.scene.world, d.body, origin, dir, d.plane_only);
  if (!p) {
    d.error = "the click meets neither a surface nor the body's height plane";
    return false;
  }
  // A double click (or a second click on the same spot) would add a zero-length segment.
  if (!d.points.empty() && (*p - d.points.back()).norm() < 1e-6) return false;
  d.points.push_back(*p);
  d.error.clear();
  return true;
}

void remove_last_script_point(AppState& app) {
  // The first point is the body's start: keep it while laying so the path still starts at the body.
  const size_t keep = app.script.laying ? 1 : 0;
  if (app.script.points.size() > keep) app.script.points.pop_back();
}

Script draft_script(const ScriptEditState& d, double start_time) {
  Script s;
  s.body = d.body;
  s.points = d.points;
  s.speed = d.speed;
  s.timing = d.timing;
  s.loop = d.loop;
  s.start_time = start_time;
  return s;
}

bool apply_script(AppState& app, std::string* error) {
  ScriptEditState& d = app.script;
  World& world = app.scene.world;
  if (d.body < 0 || d.body >= static_cast<int>(world.bodies.size())) {
    *error = "select a body first";
    return false;
  }
  if (world.bodies[d.body].shape.type == ShapeType::Plane) {
    *error = "a plane cannot follow a path";
    return false;
  }
  if (d.points.size() < 2) {
    *error = "a path needs at least 2 points: turn on Script path and click in the scene";
    return false;
  }
  // The loader's own test, so that whatever Apply accepts also saves into a scene file that loads.
  size_t bad = 0;
  const std::string problem = script_path_problem(d.points, d.loop, &bad);
  if (!problem.empty()) {
    *error = "point " + std::to_string(bad + 1) + " of the path: expected " + problem;
    return false;
  }
  if (!(d.speed > 0.0) || !std::isfinite(d.speed)) {
    *error = "the speed must be a positive number of m/s";
    return false;
  }
  if (!(d.delay >= 0.0) || !std::isfinite(d.delay)) {
    *error = "the delay must be a number of seconds >= 0";
    return false;
  }
  const Body& before = world.bodies[d.body];
  const bool known = std::any_of(d.originals.begin(), d.originals.end(),
                                 [&](const OriginalMass& o) { return o.body == d.body; });
  if (!known && before.kind != BodyKind::Kinematic) {
    d.originals.push_back({d.body, before.kind, before.density, before.mass});
  }
  if (app.pick.dragging && app.pick.selected == d.body) {  // kinematic bodies are not pulled
    app.pick.dragging = false;
    world.clear_drag();
  }
  // The running world starts the path now (its clock is at time()); the reset state at the delay.
  const bool teleported = (world.bodies[d.body].position - d.points.front()).norm() > 1e-9;
  for (World* w : {&world, &app.scene.loaded}) {
    if (d.body >= static_cast<int>(w->bodies.size())) continue;
    Body& b = w->bodies[d.body];
    b.kind = BodyKind::Kinematic;
    b.set_mass_properties(0.0, 0.0);  // infinite mass: zero inverse mass and inertia
    b.position = d.points.front();    // waits at the first point until the start
    b.linear_velocity.setZero();
    b.angular_velocity.setZero();     // a script moves the centre only; a leftover spin would go on forever
    const Script s = draft_script(d, (w == &world ? world.time() : 0.0) + d.delay);
    const int i = find_script(*w, d.body);
    if (i >= 0) w->scripts[i] = s;
    else w->scripts.push_back(s);
  }
  world.wake(d.body);
  if (teleported) world.reset_contacts();  // cached contacts of the body's old place are wrong now
  d.laying = false;
  d.error.clear();
  char text[128];
  std::snprintf(text, sizeof text, "applied: %zu points, %.3g m at %.3g m/s", d.points.size(),
                script_length(draft_script(d, 0.0)), d.speed);
  d.message = text;
  return true;
}

void clear_script(AppState& app, bool make_dynamic) {
  ScriptEditState& d = app.script;
  const auto original = std::find_if(d.originals.begin(), d.originals.end(),
                                     [&](const OriginalMass& o) { return o.body == d.body; });
  for (World* w : {&app.scene.world, &app.scene.loaded}) {
    const int i = find_script(*w, d.body);
    if (i >= 0) w->scripts.erase(w->scripts.begin() + i);
    if (!make_dynamic || d.body < 0 || d.body >= static_cast<int>(w->bodies.size())) continue;
    Body& b = w->bodies[d.body];
    if (b.shape.type == ShapeType::Plane) continue;
    if (original != d.originals.end()) {
      b.kind = original->kind;
      b.set_mass_properties(original->density, original->density > 0.0 ? 0.0 : original->mass);
    } else {
      b.kind = BodyKind::Dynamic;
      b.set_mass_properties(d.restore_density, 0.0);
    }
    // The running body keeps the velocity the path gave it (it flies on); the reset state starts at rest.
    if (w == &app.scene.loaded || b.kind == BodyKind::Fixed) {
      b.linear_velocity.setZero();
      b.angular_velocity.setZero();
    }
  }
  if (make_dynamic && original != d.originals.end()) d.originals.erase(original);
  if (d.body >= 0) app.scene.world.wake(d.body);
  d.laying = false;
  d.points.clear();
  d.error.clear();
  d.message = make_dynamic ? "script removed; the body is dynamic again" : "script removed";
}

void set_script_speed(AppState& app, int body, double speed) {
  if (!(speed > 0.0) || !std::isfinite(speed)) return;
  World& world = app.scene.world;
  const int i = find_script(world, body);
  if (i >= 0) {
    // Both time laws depend on (t - start) * speed only (ease through the duration length / speed), so
    // scaling the elapsed time by old / new speed keeps the body at the same place on the path.
    Script& s = world.scripts[i];
    const double t = world.time();
    if (t > s.start_time) s.start_time = t - (t - s.start_time) * s.speed / speed;
    s.speed = speed;
  }
  const int k = find_script(app.scene.loaded, body);
  if (k >= 0) app.scene.loaded.scripts[k].speed = speed;
  if (app.script.body == body) app.script.speed = speed;
}

}  // namespace cl::viewer
