#include "scene/scene_procedural.h"

#include <functional>
#include <map>

#include "mesh/generate.h"
#include "mesh/procedural.h"

namespace cl {

namespace {

// Reads the given parameters into a generator's struct fields, by name.
struct Binder {
  const ProceduralParams& given;
  double number(const char* name, double fallback) const {
    for (const auto& [n, v] : given)
      if (n == name && v.size() == 1) return v[0];
    return fallback;
  }
  Vec3 vec(const char* name, const Vec3& fallback) const {
    for (const auto& [n, v] : given)
      if (n == name && v.size() == 3) return Vec3(v[0], v[1], v[2]);
    return fallback;
  }
};

struct Generator {
  std::vector<std::string> params;
  std::function<TriangleMesh(const Binder&, std::string*)> build;
};

const std::map<std::string, Generator, std::less<>>& generators() {
  static const std::map<std::string, Generator, std::less<>> table = {
      {"bowl", {{"outer_radius", "thickness", "segments"}, [](const Binder& b, std::string* e) {
         BowlParams p;
         p.outer_radius = b.number("outer_radius", p.outer_radius);
         p.thickness = b.number("thickness", p.thickness);
         p.resolution = int(b.number("segments", p.resolution));
         return bowl(p, e);
       }}},
      {"torus", {{"major_radius", "minor_radius", "major_segments", "minor_segments"}, [](const Binder& b, std::string* e) {
         const double R = b.number("major_radius", 0.35), r = b.number("minor_radius", 0.12);
         const int nu = int(b.number("major_segments", 32)), nv = int(b.number("minor_segments", 16));
         if (!(R > r && r > 0) || nu < 3 || nv < 3) {
           if (e) *e = "torus: need major_radius > minor_radius > 0 and at least 3 segments each way";
           return TriangleMesh{};
         }
         TriangleMesh m = make_torus(R, r, nu, nv);  // about z; scenes want the axis along y
         transform_mesh(m, Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())), Vec3::Zero());
         return m;
       }}},
      {"cylinder", {{"radius", "half_height", "segments"}, [](const Binder& b, std::string* e) {
         const double r = b.number("radius", kCylinderRadius), h = b.number("half_height", kCylinderHalfHeight);
         const int n = int(b.number("segments", 32));
         if (!(r > 0) || !(h > 0) || n < 3 || n > 4096) {
           if (e) *e = "cylinder: need radius > 0, half_height > 0 and 3 to 4096 segments";
           return TriangleMesh{};
         }
         return make_cylinder(r, h, n);  // axis along y, as capsules
       }}},
      {"rock", {{"radius", "roughness", "seed", "subdivisions"}, [](const Binder& b, std::string* e) {
         RockParams p;
         p.radius = b.number("radius", p.radius);
         p.roughness = b.number("roughness", p.roughness);
         p.seed = std::uint64_t(b.number("seed", double(p.seed)));
         p.resolution = int(b.number("subdivisions", p.resolution));
         return rock(p, e);
       }}},
      {"perforated_box", {{"half_extents", "hole_radius", "holes_x", "holes_z", "hole_segments"},
                          [](const Binder& b, std::string* e) {
         PerforatedBoxParams p;
         p.half_extents = b.vec("half_extents", p.half_extents);
         p.hole_radius = b.number("hole_radius", p.hole_radius);
         p.holes_x = int(b.number("holes_x", p.holes_x));
         p.holes_z = int(b.number("holes_z", p.holes_z));
         p.hole_segments = int(b.number("hole_segments", p.hole_segments));
         return perforated_box(p, e);
       }}},
      {"hex_bolt", {{"head_width", "head_height", "shaft_radius", "length", "thread_pitch", "thread_depth", "segments"},
                    [](const Binder& b, std::string* e) {
         HexBoltParams p;
         p.head_width = b.number("head_width", p.head_width);
         p.head_height = b.number("head_height", p.head_height);
         p.shaft_radius = b.number("shaft_radius", p.shaft_radius);
         p.length = b.number("length", p.length);
         p.thread_pitch = b.number("thread_pitch", p.thread_pitch);
         p.thread_depth = b.number("thread_depth", p.thread_depth);
         p.segments = int(b.number("segments", p.segments));
         return hex_bolt(p, e);
       }}},
      {"threaded_block", {{"half_width", "height", "shaft_radius", "thread_pitch", "thread_depth", "clearance", "segments"},
                          [](const Binder& b, std::string* e) {
         ThreadedBlockParams p;
         p.half_width = b.number("half_width", p.half_width);
         p.height = b.number("height", p.height);
         p.shaft_radius = b.number("shaft_radius", p.shaft_radius);
         p.thread_pitch = b.number("thread_pitch", p.thread_pitch);
         p.thread_depth = b.number("thread_depth", p.thread_depth);
         p.clearance = b.number("clearance", p.clearance);
         p.segments = int(b.number("segments", p.segments));
         return threaded_block(p, e);
       }}},
      {"screwdriver", {{"handle_radius", "handle_length", "shaft_radius", "shaft_length", "tip_width", "segments"},
                       [](const Binder& b, std::string* e) {
         ScrewdriverParams p;
         p.handle_radius = b.number("handle_radius", p.handle_radius);
         p.handle_length = b.number("handle_length", p.handle_length);
         p.shaft_radius = b.number("shaft_radius", p.shaft_radius);
         p.shaft_length = b.number("shaft_length", p.shaft_length);
         p.tip_width = b.number("tip_width", p.tip_width);
         p.segments = int(b.number("segments", p.segments));
         return screwdriver(p, e);
       }}},
  };
  return table;
}

}  // namespace

bool is_procedural_shape(std::string_view type) { return generators().count(type) > 0; }

std::vector<std::string> procedural_shape_names() {
  std::vector<std::string> out;
  for (const auto& [name, g] : generators()) out.push_back(name);
  return out;
}

std::vector<std::string> procedural_param_names(std::string_view type) {
  auto it = generators().find(type);
  return it == generators().end() ? std::vector<std::string>{} : it->second.params;
}

bool procedural_param_is_vector(std::string_view name) { return name == "half_extents"; }

double procedural_param_whole_max(std::string_view name) {
  // Counts: far above what any generator takes (each checks its own range), low enough to convert exactly.
  for (std::string_view count : {"segments", "major_segments", "minor_segments", "subdivisions", "holes_x", "holes_z",
                                 "hole_segments"})
    if (name == count) return 1e6;
  if (name == "seed") return 9007199254740992.0;  // 2^53: every whole number up to it is a double
  return 0.0;
}

TriangleMesh build_procedural(std::string_view type, const ProceduralParams& params, std::string* error) {
  auto it = generators().find(type);
  if (it == generators().end()) {
    if (error) *error = "unknown procedural shape";
    return {};
  }
  return it->second.build(Binder{params}, error);
}

}  // namespace cl
