#include "scene/scene_forces.h"

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

namespace cl {
namespace {

using namespace scene_io;
using json = nlohmann::json;

const std::vector<std::string> kForceKeys = {"body", "force", "point", "torque", "start", "end",
                                             "on", "period", "off", "resample", "seed"};
const std::vector<std::string> kRangeKeys = {"min", "max"};
// The largest seed every double holds exactly (JSON numbers are read as doubles).
constexpr double kMaxSeed = 9007199254740991.0;

std::vector<std::string> resample_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kForceResampleCount; ++i) names.emplace_back(force_resample_name(static_cast<ForceResample>(i)));
  return names;
}

// [x, y, z] (constant) or {"min": [x, y, z], "max": [x, y, z]} (uniform per component, min <= max).
VecRange read_vec_range(Reader& r, const json& v, const std::string& path, const std::string& unit) {
  if (!v.is_object()) {
    if (!v.is_array()) r.expected(path, "an array of 3 numbers [x, y, z] (" + unit + ") or a range {\"min\": [x, y, z], \"max\": [x, y, z]}", v);
    return VecRange::constant(r.vec3(v, path));
  }
  r.check_keys(v, path, kRangeKeys, "a range");
  const Vec3 lo = r.vec3(r.required(v, path, "min", "an array of 3 numbers [x, y, z]"), child(path, "min"));
  const std::string hpath = child(path, "max");
  const json& h = r.required(v, path, "max", "an array of 3 numbers [x, y, z]");
  const Vec3 hi = r.vec3(h, hpath);
  for (int k = 0; k < 3; ++k) {
    if (hi[k] < lo[k])
      r.expected(child(hpath, size_t(k)), "a number >= min's (" + Reader::format_number(lo[k]) + ")", h[size_t(k)]);
  }
  return VecRange::uniform(lo, hi);
}

// The body a force pushes: a dynamic one.
int read_force_body(Reader& r, const json& v, const std::string& fpath, const World& world,
                    const std::unordered_map<std::string, int>& index_of_name) {
  const std::string bpath = child(fpath, "body");
  const std::string what = "the name of a dynamic body";
  const std::string& name = r.string(r.required(v, fpath, "body", what), bpath, what);
  const auto it = index_of_name.find(name);
  if (it == index_of_name.end()) {
    std::vector<std::string> dynamic;
    for (const Body& b : world.bodies)
      if (b.is_dynamic()) dynamic.push_back(b.name);
    r.fail(bpath, "expected " + what + ", got " + in_quotes(name) + ", which names no body" + suggestion(name, dynamic) +
                      (dynamic.empty() ? std::string("; the scene has no dynamic body") : ""));
  }
  const Body& b = world.bodies[size_t(it->second)];
  if (!b.is_dynamic()) {
    r.fail(bpath, "expected " + what + ", got " + in_quotes(name) + ", a " + body_kind_name(b.kind) +
                      " body (forces move only dynamic bodies; a fixed or kinematic one has infinite mass)");
  }
  return it->second;
}

double read_time(Reader& r, const json& v, const std::string& path, double lo, bool open, const std::string& what) {
  const double t = r.number(v, path, what);
  if (open ? !(t > lo) : !(t >= lo)) r.expected(path, what, v);
  return t;
}

AppliedForce read_force(Reader& r, const json& v, const std::string& fpath, size_t index) {
  AppliedForce f;
  const json* force = r.optional(v, "force");
  const json* torque = r.optional(v, "torque");
  if (!force && !torque) r.fail(fpath, "missing required field: an applied force needs \"force\" (N) or \"torque\" (N m)");
  if (force) f.force = read_vec_range(r, *force, child(fpath, "force"), "N, world frame");
  if (const json* p = r.optional(v, "point")) {
    if (!force) r.fail(child(fpath, "point"), "unexpected without \"force\": the point is where the force acts");
    f.point = read_vec_range(r, *p, child(fpath, "point"), "m, body frame");
  }
  if (torque) f.torque = read_vec_range(r, *torque, child(fpath, "torque"), "N m, world frame");

  // The window [start, end).
  if (const json* s = r.optional(v, "start")) f.start = read_time(r, *s, child(fpath, "start"), 0.0, false, "a time >= 0 s");
  if (const json* e = r.optional(v, "end")) {
    f.end = read_time(r, *e, child(fpath, "end"), f.start, true,
                      "a time after start (" + Reader::format_number(f.start) + " s)");
  }

  // Repeating windows: "on" with "period" or "off".
  const json* on = r.optional(v, "on");
  const json* period = r.optional(v, "period");
  const json* off = r.optional(v, "off");
  if ((period || off) && !on)
    r.fail(child(fpath, "on"), "missing required field: expected the time in s the force acts in each period");
  if (on) {
    if (period && off) r.fail(child(fpath, "off"), "expected either \"period\" or \"off\", got both");
    if (!period && !off)
      r.fail(child(fpath, "period"), "missing required field: expected the period in s of the repeating windows "
                                     "(or \"off\", the time without the force in each)");
    f.on = read_time(r, *on, child(fpath, "on"), 0.0, true, "a positive time in s");
    if (period) {
      f.period = read_time(r, *period, child(fpath, "period"), f.on, false,
                           "a period >= on (" + Reader::format_number(f.on) + " s)");
    } else {
      f.period = f.on + read_time(r, *off, child(fpath, "off"), 0.0, false, "a time >= 0 s");
      if (!std::isfinite(f.period)) r.expected(child(fpath, "off"), "a time whose sum with on is finite", *off);
    }
  }

  // How random values are drawn.
  const json* resample = r.optional(v, "resample");
  const json* seed = r.optional(v, "seed");
  const char* without_range = "unexpected for a force without a range (a \"force\", \"point\" or \"torque\" "
                              "{\"min\", \"max\"}): nothing is drawn";
  if (resample) {
    if (!f.is_random()) r.fail(child(fpath, "resample"), without_range);
    const std::string rpath = child(fpath, "resample");
    const std::vector<std::string> names = resample_names();
    const std::string what = "how often a value is drawn (one of: " + join(names) + ")";
    const std::string& name = r.string(*resample, rpath, what);
    const auto parsed = force_resample_from_name(name);
    if (!parsed) r.fail(rpath, "expected " + what + ", got " + in_quotes(name) + suggestion(name, names));
    f.resample = *parsed;
  }
  f.seed = uint64_t(index);
  if (seed) {
    if (!f.is_random()) r.fail(child(fpath, "seed"), without_range);
    f.seed = uint64_t(r.whole_in_range(*seed, child(fpath, "seed"), 0, kMaxSeed, "a whole number in [0, 9007199254740991]"));
  }
  return f;
}

bool is_zero(const VecRange& r) { return !r.random && r.lo == Vec3::Zero(); }

template <class J>
J range_json(const VecRange& r) {
  auto vec = [](const Vec3& x) { return J::array({x.x(), x.y(), x.z()}); };
  if (!r.random) return vec(r.lo);
  J j = J::object();
  j["min"] = vec(r.lo);
  j["max"] = vec(r.hi);
  return j;
}

}  // namespace

void read_forces(Reader& r, const json& doc, World& world) {
  const json* forces = r.optional(doc, "forces");
  if (!forces) return;
  const std::string path = "/forces";
  if (!forces->is_array()) {
    r.expected(path, "an array of applied forces [{\"body\": name, \"force\": [x, y, z]}, ...]", *forces);
  }
  std::unordered_map<std::string, int> index_of_name;  // World::find_body is linear; scenes can be large
  for (size_t i = 0; i < world.bodies.size(); ++i) index_of_name.emplace(world.bodies[i].name, int(i));
  std::vector<AppliedForce> read;
  read.reserve(forces->size());
  for (size_t i = 0; i < forces->size(); ++i) {
    const std::string fpath = child(path, i);
    const json& v = (*forces)[i];
    r.object(v, fpath, "an object describing an applied force {\"body\", \"force\", ...}");
    r.check_keys(v, fpath, kForceKeys, "an applied force");
    const int body = read_force_body(r, v, fpath, world, index_of_name);
    AppliedForce f = read_force(r, v, fpath, i);
    f.body = body;
    read.push_back(f);
  }
  world.forces = std::move(read);
}

template <class J>
J forces_json_as(const World& world) {
  J out = J::array();
  for (const AppliedForce& f : world.forces) {
    // A force on a body that is no longer dynamic (the viewer's Script tab makes a body kinematic) does nothing
    // and would not load: it is left out.
    if (f.body < 0 || size_t(f.body) >= world.bodies.size() || !world.bodies[size_t(f.body)].is_dynamic()) continue;
    J j = J::object();
    j["body"] = world.bodies[size_t(f.body)].name;
    // "force" whenever it is not zero, holds a point, or is all there is (an entry needs a force or a torque).
    if (!is_zero(f.force) || !is_zero(f.point) || is_zero(f.torque)) j["force"] = range_json<J>(f.force);
    if (!is_zero(f.point)) j["point"] = range_json<J>(f.point);
    if (!is_zero(f.torque)) j["torque"] = range_json<J>(f.torque);
    if (f.start != 0.0) j["start"] = f.start;
    if (std::isfinite(f.end)) j["end"] = f.end;
    if (f.period > 0.0) {
      j["on"] = f.on;
      j["period"] = f.period;
    }
    if (f.is_random()) {
      j["resample"] = std::string(force_resample_name(f.resample));
      j["seed"] = f.seed;
    }
    out.push_back(j);
  }
  return out;
}

template nlohmann::json forces_json_as<nlohmann::json>(const World&);
template nlohmann::ordered_json forces_json_as<nlohmann::ordered_json>(const World&);

}  // namespace cl
