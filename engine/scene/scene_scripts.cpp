#include "scene/scene_scripts.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "scripts/script.h"
#include "scripts/spline.h"

namespace cl {
namespace {

using namespace scene_io;
using json = nlohmann::json;

const std::vector<std::string> kScriptKeys = {"body", "path", "speed", "timing", "loop", "start_time"};

std::vector<std::string> timing_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kScriptTimingCount; ++i) names.emplace_back(script_timing_name(static_cast<ScriptTiming>(i)));
  return names;
}

// The body a script drives: a kinematic body that no earlier script drives.
int read_script_body(Reader& r, const json& v, const std::string& spath, const World& world,
                     const std::unordered_map<std::string, int>& index_of_name, const std::vector<int>& script_of_body) {
  const std::string bpath = child(spath, "body");
  const std::string what = "the name of a kinematic body";
  const std::string& name = r.string(r.required(v, spath, "body", what), bpath, what);
  const auto it = index_of_name.find(name);
  if (it == index_of_name.end()) {
    std::vector<std::string> kinematic;
    for (const Body& b : world.bodies) {
      if (b.kind == BodyKind::Kinematic) kinematic.push_back(b.name);
    }
    r.fail(bpath, "expected " + what + ", got " + in_quotes(name) + ", which names no body" + suggestion(name, kinematic) +
                      (kinematic.empty() ? std::string("; the scene has no kinematic body") : "; kinematic bodies: " + join(kinematic)));
  }
  const int index = it->second;
  const Body& b = world.bodies[size_t(index)];
  if (b.kind != BodyKind::Kinematic) {
    r.fail(bpath, "expected " + what + ", got " + in_quotes(name) + ", a " + body_kind_name(b.kind) +
                      " body (a scripted body needs \"kinematic\": true at " + child("/bodies", size_t(index)) + ")");
  }
  if (script_of_body[size_t(index)] >= 0) {
    r.fail(bpath, "expected a body that no other script drives, got " + in_quotes(name) + " (already driven by " +
                      child("/scripts", size_t(script_of_body[size_t(index)])) + ")");
  }
  return index;
}

Script read_script(Reader& r, const json& v, const std::string& spath) {
  Script s;
  // "loop" first: what makes a valid path depends on it.
  if (const json* l = r.optional(v, "loop")) s.loop = r.boolean(*l, child(spath, "loop"));

  const std::string ppath = child(spath, "path");
  const size_t min_points = s.loop ? 3 : 2;
  const std::string pwhat = "an array of at least " + std::to_string(min_points) + " points [[x, y, z], ...]" +
                            (s.loop ? " (a looping path)" : "");
  const json& p = r.required(v, spath, "path", pwhat);
  if (!p.is_array() || p.size() < min_points) r.expected(ppath, pwhat, p);
  s.points.reserve(p.size());
  for (size_t k = 0; k < p.size(); ++k) s.points.push_back(r.vec3(p[k], child(ppath, k)));
  size_t bad = 0;
  const std::string problem = script_path_problem(s.points, s.loop, &bad);
  if (!problem.empty()) r.expected(child(ppath, bad), problem, p[bad]);

  s.speed = r.positive(r.required(v, spath, "speed", "a positive speed in m/s"), child(spath, "speed"));

  if (const json* t = r.optional(v, "timing")) {
    const std::string tpath = child(spath, "timing");
    const std::vector<std::string> names = timing_names();
    const std::string twhat = "a timing (one of: " + join(names) + ")";
    const std::string& name = r.string(*t, tpath, twhat);
    const auto timing = script_timing_from_name(name);
    if (!timing) r.fail(tpath, "expected " + twhat + ", got " + in_quotes(name) + suggestion(name, names));
    s.timing = *timing;
  }

  if (const json* st = r.optional(v, "start_time")) {
    const std::string stpath = child(spath, "start_time");
    s.start_time = r.number(*st, stpath, "a time >= 0 s");
    if (s.start_time < 0) r.expected(stpath, "a time >= 0 s", *st);
  }
  return s;
}

}  // namespace

void read_scripts(Reader& r, const json& doc, World& world) {
  const json* scripts = r.optional(doc, "scripts");
  if (!scripts) return;
  const std::string path = "/scripts";
  if (!scripts->is_array()) {
    r.expected(path, "an array of scripts [{\"body\": name, \"path\": [[x, y, z], ...], \"speed\": m/s}, ...]", *scripts);
  }
  std::unordered_map<std::string, int> index_of_name;  // World::find_body is linear; scenes can be large
  for (size_t i = 0; i < world.bodies.size(); ++i) index_of_name.emplace(world.bodies[i].name, int(i));
  std::vector<int> script_of_body(world.bodies.size(), -1);
  std::vector<Script> read;
  read.reserve(scripts->size());
  for (size_t i = 0; i < scripts->size(); ++i) {
    const std::string spath = child(path, i);
    const json& v = (*scripts)[i];
    r.object(v, spath, "an object describing a script {\"body\", \"path\", \"speed\", ...}");
    r.check_keys(v, spath, kScriptKeys, "a script");
    const int body = read_script_body(r, v, spath, world, index_of_name, script_of_body);
    Script s = read_script(r, v, spath);
    s.body = body;
    script_of_body[size_t(body)] = int(i);
    read.push_back(std::move(s));
  }

  // The script owns its body's motion: it starts at the path's first point with the first step's velocity.
  const json* bodies = r.optional(doc, "bodies");
  for (size_t i = 0; i < read.size(); ++i) {
    const Script& s = read[i];
    const Body& b = world.bodies[size_t(s.body)];
    const json* given = nullptr;
    if (bodies && bodies->is_array() && size_t(s.body) < bodies->size() && (*bodies)[size_t(s.body)].is_object()) {
      given = r.optional((*bodies)[size_t(s.body)], "position");
    }
    if (given && !path_points_coincide(b.position, s.points.front())) {
      r.warn(child(child("/bodies", size_t(s.body)), "position"),
             "replaced by the first point of the path of " + child(path, i) + ", " +
                 describe((*scripts)[i]["path"][0]) + " (a scripted body starts where its path starts)");
    }
  }
  for (Script& s : read) world.scripts.push_back(std::move(s));
  apply_scripts(world.scripts, world.bodies, 0.0, world.settings.dt);
}

template <class J>
J scripts_json_as(const World& world) {
  J out = J::array();
  for (const Script& s : world.scripts) {
    if (s.body < 0 || size_t(s.body) >= world.bodies.size()) continue;
    J j = J::object();
    j["body"] = world.bodies[size_t(s.body)].name;
    J points = J::array();
    for (const Vec3& p : s.points) points.push_back(J::array({p.x(), p.y(), p.z()}));
    j["path"] = points;
    j["speed"] = s.speed;
    j["timing"] = std::string(script_timing_name(s.timing));
    j["loop"] = s.loop;
    j["start_time"] = s.start_time;
    out.push_back(j);
  }
  return out;
}

template nlohmann::json scripts_json_as<nlohmann::json>(const World&);
template nlohmann::ordered_json scripts_json_as<nlohmann::ordered_json>(const World&);

}  // namespace cl
