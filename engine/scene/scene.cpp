// Scene files read: strict loading (every problem named by file, JSON pointer and what was expected). Saving in
// the same format and the final-state output are scene_writer.cpp's.
//
// Loading stops at the first problem and reports it as
//   FILE: /json/pointer: what was expected, got what
// (syntax errors as FILE:LINE:COLUMN: ...). Values that can be repaired without guessing (a non-unit
// quaternion or plane normal) are normalised and reported as warnings instead.
#include "scene/scene.h"
#include "core/output_file.h"
#include "core/text.h"
#include "solvers/registry.h"

#include "collision/mesh_shape.h"
#include "scene/mesh_source.h"
#include "scene/model_include.h"
#include "scene/scene_forces.h"
#include "scene/scene_joints.h"
#include "scene/scene_procedural.h"
#include "scene/scene_reader.h"
#include "scene/scene_scripts.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

namespace cl {
namespace {

using namespace scene_io;
using json = nlohmann::json;

// --- the scene ---------------------------------------------------------------------------------------

const std::vector<std::string> kTopKeys = {"format", "name", "description", "topic", "gravity", "dt",
                                           "contact_margin", "max_speed", "max_contacts", "continuous", "threads",
                                           "methods", "solver", "materials", "bodies", "joints", "scripts", "forces",
                                           "lanes", "models", "keyframes", "start"};
const std::vector<std::string> kLaneKeys = {"solver", "params"};
const std::vector<std::string> kSolverKeys = {"type", "params", "params_by_solver"};
const std::vector<std::string> kMaterialKeys = {"friction", "restitution"};
const std::vector<std::string> kBodyKeys = {"name", "shape", "fixed", "kinematic", "density", "mass", "position",
                                            "orientation", "linear_velocity", "angular_velocity", "material"};
const std::vector<std::string> kAllShapeKeys = {"type", "normal", "offset", "radius", "half_extents", "half_height",
                                                "file", "scale", "resolution", "outer_radius", "thickness",
                                                "segments", "major_radius", "minor_radius", "major_segments",
                                                "minor_segments", "roughness", "seed", "subdivisions",
                                                "hole_radius", "holes_x", "holes_z", "hole_segments", "head_width",
                                                "head_height", "shaft_radius", "length", "thread_pitch",
                                                "thread_depth", "half_width", "height", "clearance",
                                                "handle_radius", "handle_length", "shaft_length", "tip_width"};

std::vector<std::string> shape_keys(ShapeType t) {
  switch (t) {
    case ShapeType::Plane: return {"type", "normal", "offset"};
    case ShapeType::Sphere: return {"type", "radius"};
    case ShapeType::Box: return {"type", "half_extents"};
    case ShapeType::Capsule: return {"type", "radius", "half_height"};
    case ShapeType::Mesh: return {"type", "file", "scale", "resolution"};
  }
  return {"type"};
}

std::vector<std::string> shape_type_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kShapeTypeCount; ++i) names.emplace_back(shape_type_name(static_cast<ShapeType>(i)));
  for (const std::string& p : procedural_shape_names()) names.push_back(p);
  return names;
}

std::vector<std::string> solver_name_list() {
  std::vector<std::string> names;
  for (const auto& info : solver_registry()) names.push_back(info.name);
  return names;
}

void read_settings(Reader& r, const json& doc, World& world) {
  if (const json* v = r.optional(doc, "gravity")) world.settings.gravity = r.vec3(*v, "/gravity");
  if (const json* v = r.optional(doc, "dt")) {
    const std::string what = "a time step in [1e-6, 1] s";
    const double dt = r.number(*v, "/dt", what);
    if (!(dt >= kMinDt && dt <= kMaxDt)) r.expected("/dt", what, *v);
    world.settings.dt = dt;
  }
  if (const json* v = r.optional(doc, "contact_margin")) {
    world.settings.contact_margin = r.in_range(*v, "/contact_margin", 0.0, kMaxContactMargin, "a distance in [0, 1] m");
  }
  if (const json* v = r.optional(doc, "max_speed")) {
    world.settings.max_speed = r.in_range(*v, "/max_speed", 0.0, kMaxSpeedLimit, "a speed in [0, 1e6] m/s (0: no limit)");
  }
  if (const json* v = r.optional(doc, "max_contacts")) {
    world.settings.max_contacts =
        r.whole_in_range(*v, "/max_contacts", 0, kMaxContactsLimit, "a whole number in [0, 1e9] (0: no limit)");
  }
  if (const json* v = r.optional(doc, "continuous")) world.settings.continuous = r.boolean(*v, "/continuous");
  if (const json* v = r.optional(doc, "threads")) {
    world.settings.threads =
        int(r.whole_in_range(*v, "/threads", 0, 256, "a whole number of threads in [0, 256] (0: every hardware thread)"));
  }
}

// "methods": the registered solvers the scene is meant for, each once, at least one.
void read_methods(Reader& r, const json& doc, World& world) {
  const json* methods = r.optional(doc, "methods");
  if (!methods) return;
  const std::string path = "/methods";
  const std::string what = "a non-empty array of solver names (of: " + solver_names() + ")";
  if (!methods->is_array() || methods->empty()) r.expected(path, what, *methods);
  for (size_t i = 0; i < methods->size(); ++i) {
    const std::string mpath = child(path, i);
    const std::string& name = r.string((*methods)[i], mpath, "a solver name (one of: " + solver_names() + ")");
    if (!find_solver(name)) {
      r.fail(mpath, "expected a solver name (one of: " + solver_names() + "), got " + in_quotes(name) +
                        suggestion(name, solver_name_list()));
    }
    if (world.allows_solver(name) && !world.methods.empty())
      r.fail(mpath, "solver " + in_quotes(name) + " is listed twice");
    world.methods.push_back(name);
  }
}

// {"name": value} for solver `name` into `set`; unknown names, wrong types and values out of range fail.
void read_params(Reader& r, const json& params, const std::string& path, const std::string& name, ParamSet& set) {
  r.object(params, path, "an object of parameter values {\"name\": value}");
  std::vector<std::string> known;
  for (const auto& spec : set.specs()) known.push_back(spec.name);
  std::string error;
  for (const auto& [key, value] : params.items()) {
    const std::string kpath = child(path, key);
    const ParamSpec* spec = set.find(key);
    if (!spec) {
      r.fail(kpath, "unknown parameter for solver " + in_quotes(name) + suggestion(key, known) + "; its parameters: " +
                        (known.empty() ? std::string("(none)") : join(known)));
    }
    bool ok = false;
    error.clear();
    if (value.is_boolean()) {
      ok = set.set(key, value.get<bool>() ? 1.0 : 0.0, &error);
    } else if (value.is_number()) {
      const double d = value.get<double>();
      if (!std::isfinite(d)) r.expected(kpath, "a finite number", value);
      ok = set.set(key, d, &error);
    } else if (value.is_string()) {
      ok = set.set_from_string(key, value.get_ref<const std::string&>(), &error);
    } else {
      r.expected(kpath, "a number, true/false or a choice name", value);
    }
    if (!ok) r.fail(kpath, error.empty() ? "invalid value " + describe(value) : error);
  }
}

// "lanes": the comparison lanes opened beside the scene's own method, [{"solver": name, "params": {...}}] (at
// most kMaxLanes - 1). A lane's parameters start from those the scene gives its method.
void read_lanes(Reader& r, const json& doc, const World& world, std::vector<LaneSpec>& lanes) {
  const json* list = r.optional(doc, "lanes");
  if (!list) return;
  const std::string what = "an array of at most " + std::to_string(kMaxLanes - 1) +
                           " lanes [{\"solver\": name, \"params\": {...}}] compared with the scene's own solver";
  if (!list->is_array() || list->size() > size_t(kMaxLanes - 1)) r.expected("/lanes", what, *list);
  const std::string names = solver_names();
  for (size_t i = 0; i < list->size(); ++i) {
    const json& lane = (*list)[i];
    const std::string path = "/lanes/" + std::to_string(i);
    r.object(lane, path, "a lane {\"solver\": name, \"params\": {...}}");
    r.check_keys(lane, path, kLaneKeys, "a lane");
    const std::string spath = child(path, "solver");
    const std::string& name = r.string(r.required(lane, path, "solver", "a solver name (one of: " + names + ")"), spath,
                                       "a solver name (one of: " + names + ")");
    if (!find_solver(name)) {
      r.fail(spath, "expected a solver name (one of: " + names + "), got " + in_quotes(name) +
                        suggestion(name, solver_name_list()));
    }
    if (!world.allows_solver(name)) {
      r.fail(spath, "expected one of the scene's methods (" + join(world.methods) + ", see /methods), got " +
                        in_quotes(name));
    }
    LaneSpec spec{name, {}};
    if (const json* params = r.optional(lane, "params")) {
      const ParamSet scene_values = world.solver_params_copy(name);
      ParamSet set = scene_values;
      read_params(r, *params, child(path, "params"), name, set);
      for (size_t k = 0; k < set.specs().size(); ++k)
        if (set.value(k) != scene_values.value(k)) spec.params.emplace_back(set.specs()[k].name, set.to_string(k));
    }
    lanes.push_back(std::move(spec));
  }
}

// "solver": the active method and its parameters, and the parameters of the other methods (used when the scene
// is switched to them: --solver, the viewer). Without it: lcp, or the first of the scene's methods.
void read_solver(Reader& r, const json& doc, World& world) {
  std::string error;
  const json* solver = r.optional(doc, "solver");
  if (!solver) {
    // Default: lcp with default parameters (keep the world's own default if lcp is not registered).
    world.set_solver(world.allows_solver("lcp") ? std::string("lcp") : world.methods.front(), &error);
    return;
  }
  const std::string path = "/solver";
  r.object(*solver, path, "an object {\"type\": name, \"params\": {...}, \"params_by_solver\": {name: {...}}}");
  r.check_keys(*solver, path, kSolverKeys, "\"solver\"");
  const std::string tpath = child(path, "type");
  const std::string names = solver_names();
  const json& type = r.required(*solver, path, "type", "a solver name (one of: " + names + ")");
  const std::string& name = r.string(type, tpath, "a solver name (one of: " + names + ")");
  if (!find_solver(name)) {
    r.fail(tpath, "expected a solver name (one of: " + names + "), got " + in_quotes(name) +
                      suggestion(name, solver_name_list()));
  }
  if (!world.allows_solver(name)) {
    r.fail(tpath, "expected one of the scene's methods (" + join(world.methods) + ", see /methods), got " +
                      in_quotes(name));
  }
  if (!world.set_solver(name, &error)) r.fail(tpath, "cannot use solver " + in_quotes(name) + ": " + error);

  if (const json* params = r.optional(*solver, "params")) read_params(r, *params, child(path, "params"), name, world.solver().params());

  const json* others = r.optional(*solver, "params_by_solver");
  if (!others) return;
  const std::string opath = child(path, "params_by_solver");
  r.object(*others, opath, "an object {solver name: {\"name\": value}} for the methods other than the active one");
  for (const auto& [other, params] : others->items()) {
    const std::string spath = child(opath, other);
    if (!find_solver(other)) {
      r.fail(spath, "expected a solver name (one of: " + names + "), got " + in_quotes(other) +
                        suggestion(other, solver_name_list()));
    }
    if (other == name) {
      r.fail(spath, "the active solver " + in_quotes(name) + " takes its parameters from " + child(path, "params") +
                        "; params_by_solver holds the other methods'");
    }
    if (!world.allows_solver(other)) {
      r.fail(spath, "solver " + in_quotes(other) + " is not among the scene's methods (" + join(world.methods) +
                        ", see /methods)");
    }
    read_params(r, params, spath, other, *world.solver_params(other));
  }
}

void read_materials(Reader& r, const json& doc, World& world) {
  const json* materials = r.optional(doc, "materials");
  if (!materials) return;
  const std::string path = "/materials";
  r.object(*materials, path, "an object {\"name\": {\"friction\": f, \"restitution\": e}}");
  for (const auto& [key, value] : materials->items()) {
    const std::string mpath = child(path, key);
    if (key.empty()) r.fail(mpath, "expected a non-empty material name, got \"\"");
    r.object(value, mpath, "an object {\"friction\": f, \"restitution\": e}");
    r.check_keys(value, mpath, kMaterialKeys, "a material");
    Material m;
    m.name = key;
    if (const json* f = r.optional(value, "friction")) {
      m.friction = r.number(*f, child(mpath, "friction"), "a non-negative number");
      if (m.friction < 0) r.expected(child(mpath, "friction"), "a non-negative number", *f);
    }
    if (const json* e = r.optional(value, "restitution")) {
      m.restitution = r.in_range(*e, child(mpath, "restitution"), 0.0, 1.0, "a number in [0, 1]");
    }
    const int existing = world.find_material(key);
    if (existing >= 0) world.materials[existing] = m;  // only "default" can already exist
    else world.materials.push_back(m);
  }
}

// A procedural shape ({"type": "bowl", "outer_radius": 0.1, ...}): a mesh body built by its generator.
Shape read_procedural_shape(Reader& r, const json& v, const std::string& path, const std::string& type) {
  std::vector<std::string> keys = {"type"};
  for (const std::string& k : procedural_param_names(type)) keys.push_back(k);
  keys.push_back("resolution");
  r.check_keys(v, path, keys, "a " + type + " shape", kAllShapeKeys);
  ProceduralParams params;
  MeshShapeOptions options;
  for (const auto& [key, value] : v.items()) {
    const std::string kpath = child(path, key);
    if (key == "type") continue;
    if (key == "resolution") {
      options.sdf_resolution = int(r.whole_in_range(value, kpath, 4, 512, "a whole number in [4, 512]"));
    } else if (procedural_param_is_vector(key)) {
      const Vec3 x = r.vec3(value, kpath);
      params.push_back({key, {x.x(), x.y(), x.z()}});
    } else if (const double most = procedural_param_whole_max(key); most > 0) {
      char what[64];
      std::snprintf(what, sizeof what, "a whole number in [0, %.16g]", most);
      params.push_back({key, {double(r.whole_in_range(value, kpath, 0, most, what))}});
    } else {
      params.push_back({key, {r.number(value, kpath)}});
    }
  }
  std::string error;
  Shape s;
  s.type = ShapeType::Mesh;
  set_mesh(s, procedural_mesh_shape(type, params, options, &error));
  if (!s.mesh) r.fail(path, error);
  return s;
}

Shape read_shape(Reader& r, const json& v, const std::string& path) {
  r.object(v, path, "an object {\"type\": \"plane\"|\"sphere\"|\"box\"|\"capsule\"|\"mesh\"|..., ...}");
  const std::vector<std::string> types = shape_type_names();
  const std::string type_list = join(types);
  const std::string tpath = child(path, "type");
  const json& tv = r.required(v, path, "type", "a shape type (one of: " + type_list + ")");
  const std::string& tname = r.string(tv, tpath, "a shape type (one of: " + type_list + ")");
  const auto type = shape_type_from_name(tname);
  if (!type && is_procedural_shape(tname)) return read_procedural_shape(r, v, path, tname);
  if (!type) r.fail(tpath, "expected a shape type (one of: " + type_list + "), got " + in_quotes(tname) + suggestion(tname, types));

  Shape s;
  s.type = *type;
  r.check_keys(v, path, shape_keys(s.type), "a " + tname + " shape", kAllShapeKeys);
  switch (s.type) {
    case ShapeType::Plane:
      s.normal = r.direction(r.required(v, path, "normal", "a non-zero direction [x, y, z]"), child(path, "normal"));
      if (const json* o = r.optional(v, "offset")) s.offset = r.number(*o, child(path, "offset"));
      else s.offset = 0.0;
      break;
    case ShapeType::Sphere:
      s.radius = r.positive(r.required(v, path, "radius", "a positive number"), child(path, "radius"));
      break;
    case ShapeType::Box: {
      const std::string hpath = child(path, "half_extents");
      const json& h = r.required(v, path, "half_extents", "an array of 3 positive numbers [x, y, z]");
      s.half_extents = r.vec3(h, hpath);
      for (size_t i = 0; i < 3; ++i) r.positive(h[i], child(hpath, i));
      break;
    }
    case ShapeType::Capsule:
      s.radius = r.positive(r.required(v, path, "radius", "a positive number"), child(path, "radius"));
      s.half_height = r.positive(r.required(v, path, "half_height", "a positive number"), child(path, "half_height"));
      break;
    case ShapeType::Mesh: {
      const std::string fpath = child(path, "file");
      const std::string& file = r.string(r.required(v, path, "file", "a mesh file name (.obj or .off)"), fpath,
                                         "a mesh file name (.obj or .off)");
      MeshShapeOptions options;
      if (const json* sc = r.optional(v, "scale")) options.scale = r.positive(*sc, child(path, "scale"));
      if (const json* res = r.optional(v, "resolution"))
        options.sdf_resolution = int(r.whole_in_range(*res, child(path, "resolution"), 4, 512, "a whole number in [4, 512]"));
      std::string error;
      set_mesh(s, load_mesh_shape(r.file(), file, options, &error));
      if (!s.mesh) r.fail(fpath, error);
      break;
    }
  }
  return s;
}

bool finite_matrix(const Mat3& m) { return m.allFinite(); }

Body read_body(Reader& r, const json& v, const std::string& path, const World& world) {
  r.object(v, path, "an object describing a body {\"name\", \"shape\", ...}");
  r.check_keys(v, path, kBodyKeys, "a body");
  Body b;
  b.name = r.string(r.required(v, path, "name", "a non-empty string"), child(path, "name"), "a non-empty string");
  if (b.name.empty()) r.expected(child(path, "name"), "a non-empty string", v["name"]);

  // Kind of motion.
  const json* fixed = r.optional(v, "fixed");
  const json* kinematic = r.optional(v, "kinematic");
  const bool is_fixed = fixed && r.boolean(*fixed, child(path, "fixed"));
  const bool is_kinematic = kinematic && r.boolean(*kinematic, child(path, "kinematic"));
  if (is_fixed && is_kinematic) {
    r.fail(child(path, "kinematic"), "expected at most one of \"fixed\" and \"kinematic\" to be true, got both");
  }
  b.kind = is_fixed ? BodyKind::Fixed : is_kinematic ? BodyKind::Kinematic : BodyKind::Dynamic;

  // Shape.
  const std::string spath = child(path, "shape");
  b.shape = read_shape(r, r.required(v, path, "shape", "a shape object {\"type\": ...}"), spath);
  if (b.shape.type == ShapeType::Plane && !is_fixed) {
    if (is_kinematic) r.fail(child(path, "kinematic"), "expected false: a plane must belong to a fixed body, got true");
    r.fail(child(path, "fixed"), std::string("expected true: a plane must belong to a fixed body, got ") +
                                     (fixed ? describe(*fixed) : "nothing (the body is dynamic by default)"));
  }

  // Mass: exactly one of density and mass for dynamic bodies, neither for fixed and kinematic ones.
  const json* density = r.optional(v, "density");
  const json* mass = r.optional(v, "mass");
  double density_value = 0.0, mass_value = 0.0;
  if (b.kind == BodyKind::Dynamic) {
    if (density && mass) r.fail(child(path, "mass"), "expected either \"density\" or \"mass\", got both");
    if (!density && !mass) {
      r.fail(path, "missing required field: a dynamic body needs \"density\" (kg/m^3) or \"mass\" (kg)");
    }
    if (density) density_value = r.positive(*density, child(path, "density"));
    if (mass) mass_value = r.positive(*mass, child(path, "mass"));
  } else {
    const char* key = density ? "density" : mass ? "mass" : nullptr;
    if (key) {
      r.fail(child(path, key), std::string("unexpected for a ") + body_kind_name(b.kind) +
                                   " body (its mass is infinite); remove \"" + key + "\" or make the body dynamic");
    }
  }

  // Pose and velocity.
  if (const json* p = r.optional(v, "position")) b.position = r.vec3(*p, child(path, "position"));
  if (const json* q = r.optional(v, "orientation")) b.orientation = r.quaternion(*q, child(path, "orientation"));
  if (const json* lv = r.optional(v, "linear_velocity")) b.linear_velocity = r.vec3(*lv, child(path, "linear_velocity"));
  if (const json* av = r.optional(v, "angular_velocity")) {
    b.angular_velocity = r.vec3(*av, child(path, "angular_velocity"));
  }
  if (is_fixed) {
    for (const char* key : {"linear_velocity", "angular_velocity"}) {
      const Vec3& vel = key[0] == 'l' ? b.linear_velocity : b.angular_velocity;
      if (vel != Vec3::Zero()) {
        r.fail(child(path, key), "expected [0, 0, 0] for a fixed body (fixed bodies never move; use \"kinematic\": "
                                 "true for a body that moves at a given velocity), got " + describe(v[key]));
      }
    }
  }

  // Material.
  if (const json* m = r.optional(v, "material")) {
    const std::string mpath = child(path, "material");
    const std::string& name = r.string(*m, mpath, "a material name");
    const int index = world.find_material(name);
    if (index < 0) {
      std::vector<std::string> defined;
      for (const auto& mat : world.materials) defined.push_back(mat.name);
      r.fail(mpath, "unknown material " + in_quotes(name) + suggestion(name, defined) + "; defined: " + join(defined));
    }
    b.material = index;
  } else {
    b.material = std::max(0, world.find_material("default"));
  }

  // Mass properties from the shape.
  b.set_mass_properties(density_value, mass_value);
  b.density = density_value;
  b.update_world_inertia();
  if (b.kind == BodyKind::Dynamic) {
    const bool good = std::isfinite(b.mass) && b.mass > 0 && std::isfinite(b.inv_mass) && b.inv_mass > 0 &&
                      finite_matrix(b.inertia_body) && finite_matrix(b.inv_inertia_body) &&
                      finite_matrix(b.inv_inertia_world);
    if (!good) {
      r.fail(path, "mass properties are not finite and positive (mass " + Reader::format_number(b.mass) +
                       " kg); the shape's size or the density/mass is too large or too small");
    }
  }
  return b;
}

void read_bodies(Reader& r, const json& doc, World& world) {
  const std::string path = "/bodies";
  const json& bodies = r.required(doc, "", "bodies", "an array of bodies");
  if (!bodies.is_array()) r.expected(path, "an array of bodies", bodies);
  world.bodies.reserve(bodies.size());
  std::unordered_map<std::string, size_t> index_of_name;  // World::find_body is linear; scenes can be large
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string bpath = child(path, i);
    Body b = read_body(r, bodies[i], bpath, world);
    const auto [it, inserted] = index_of_name.emplace(b.name, i);
    if (!inserted) {
      r.fail(child(bpath, "name"), "expected a unique body name, got " + in_quotes(b.name) + " (already used by " +
                                       child(path, it->second) + ")");
    }
    world.bodies.push_back(std::move(b));
  }
}

World read_scene(Reader& r, const json& doc, const std::string& file_label, SceneLoadResult& result) {
  std::vector<LaneSpec>& lanes = result.lanes;
  if (!doc.is_object()) r.expected("", "a JSON object {\"format\": 1, ...} at the top level", doc);
  const json& format = r.required(doc, "", "format", "1");
  if (!format.is_number() || format.get<double>() != kFormat) {
    r.expected("/format", "1 (the only scene format this version reads)", format);
  }
  r.check_keys(doc, "", kTopKeys, "a scene");

  World world;
  if (const json* name = r.optional(doc, "name")) {
    world.name = r.string(*name, "/name", "a string");
  } else {
    const std::string stem = std::filesystem::path(file_label).stem().string();
    if (!stem.empty()) world.name = stem;
  }
  if (const json* d = r.optional(doc, "description")) world.description = r.string(*d, "/description", "a string");
  if (const json* t = r.optional(doc, "topic")) world.topic = r.string(*t, "/topic", "a string");
  read_settings(r, doc, world);
  read_methods(r, doc, world);
  read_solver(r, doc, world);
  read_lanes(r, doc, world, lanes);
  read_materials(r, doc, world);
  read_bodies(r, doc, world);
  read_scripts(r, doc, world);  // moves scripted bodies to their path's start, before joints take frames
  read_joints(r, doc, world);
  read_forces(r, doc, world);
  world.reset_contacts();
  read_keyframes(r, doc, world, result.keyframes, &result.start_keyframe);
  return world;
}

// --- parsing text ------------------------------------------------------------------------------------

// Tracks the JSON pointer while nlohmann's callback parser runs, to report duplicate object keys
// (which the parser would otherwise silently resolve to the last one).
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        frames_.push_back(Frame{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && duplicate_.empty()) duplicate_ = path();
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }
  // Pointer of the first repeated key, or "" if none (a repeated key always has a non-empty pointer).
  const std::string& duplicate() const { return duplicate_; }
  // Pointer of the value being parsed (where a parse error occurred).
  std::string path() const {
    std::string p;
    for (const auto& f : frames_) p = f.is_object ? child(p, f.key) : child(p, f.index);
    return p;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string key;
    size_t index;
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
  std::string duplicate_;
};

// "FILE:LINE:COL: JSON syntax error: ..." from nlohmann's byte offset (1-based, of the last character read).
// "FILE:LINE:COLUMN" of the byte at offset `at`.
std::string text_position(std::string_view text, const std::string& file, size_t at) {
  at = std::min(at, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string syntax_error(std::string_view text, const std::string& file, const json::parse_error& e) {
  // nlohmann's text is "[json.exception.parse_error.101] parse error at line L, column C: DETAIL".
  std::string detail = e.what();
  const size_t colon = detail.find(": ");
  if (colon != std::string::npos && detail.find("parse error") < colon) detail = detail.substr(colon + 2);
  else if (const size_t bracket = detail.find("] "); bracket != std::string::npos) detail = detail.substr(bracket + 2);
  return text_position(text, file, e.byte > 0 ? e.byte - 1 : 0) + ": JSON syntax error: " + detail;
}

bool all_space(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

// --- public API ----------------------------------------------------------------------------------------

namespace {

// Names, keys and file bytes quoted in a message are escaped, so a message is one line and never carries an
// escape sequence to the terminal.
SceneLoadResult escaped(SceneLoadResult result) {
  result.error = escape_for_message(result.error);
  for (std::string& w : result.warnings) w = escape_for_message(w);
  return result;
}

SceneLoadResult read_scene_json(const nlohmann::json& doc, const std::string& file_label) {
  SceneLoadResult result;
  Reader reader(file_label);
  try {
    json with_models;  // the scene with its "models" made bodies and joints (model_include.h)
    const bool has_models = include_models(reader, doc, with_models);
    result.world = read_scene(reader, has_models ? with_models : doc, file_label, result);
    result.warnings = std::move(reader.warnings());
  } catch (const SceneError& e) {
    result.error = e.what();
    result.warnings = std::move(reader.warnings());
  } catch (const std::exception& e) {
    result.error = file_label + ": cannot load scene: " + e.what();
  } catch (...) {
    result.error = file_label + ": cannot load scene: unknown error";
  }
  return result;
}

SceneLoadResult read_scene_text(std::string_view text, const std::string& file_label) {
  SceneLoadResult result;
  try {
    if (all_space(text)) {
      result.error = file_label + ": /: expected a JSON object {\"format\": 1, ...}, got an empty file";
      return result;
    }
    // nlohmann's parser would stop at a NUL byte and ignore whatever follows it.
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
      result.error = text_position(text, file_label, nul) +
                     ": a NUL byte: a scene file is JSON text, which never holds one";
      return result;
    }
    DuplicateKeyFinder finder;
    json doc;
    try {
      doc = json::parse(text.begin(), text.end(), std::ref(finder), /*allow_exceptions=*/true, /*ignore_comments=*/false);
    } catch (const json::parse_error& e) {
      result.error = syntax_error(text, file_label, e);
      return result;
    } catch (const json::out_of_range& e) {
      // nlohmann rejects numbers beyond the double range (e.g. 1e400) while parsing: "number overflow
      // parsing '1e400'". The finder still knows where the parser was.
      std::string what = e.what();
      const size_t quote = what.find('\'');
      const std::string literal = quote != std::string::npos ? what.substr(quote) : std::string("a number");
      result.error = file_label + ": " + shown(finder.path()) + ": expected a finite number, got " + literal +
                     " (too large to represent as a double)";
      return result;
    }
    if (!finder.duplicate().empty()) {
      result.error = file_label + ": " + finder.duplicate() +
                     ": duplicate key (each key may appear once in an object; the parser would keep only the last)";
      return result;
    }
    return read_scene_json(doc, file_label);
  } catch (const std::exception& e) {
    result.error = file_label + ": cannot load scene: " + e.what();
  } catch (...) {
    result.error = file_label + ": cannot load scene: unknown error";
  }
  return result;
}

}  // namespace

SceneLoadResult load_scene_json(const nlohmann::json& doc, const std::string& file_label) {
  return escaped(read_scene_json(doc, file_label));
}

SceneLoadResult load_scene_text(std::string_view text, const std::string& file_label) {
  return escaped(read_scene_text(text, file_label));
}

SceneLoadResult load_scene_file(const std::string& path) {
  SceneLoadResult result;
  std::string text;
  if (!read_text_file(path, kMaxSceneBytes, "scene file", text, result.error)) return escaped(std::move(result));
  return load_scene_text(text, path);
}

}  // namespace cl
