// Scene files: every shipped scene loads and survives save -> load unchanged; every malformed file in
// tests/data/bad_scenes is rejected with its specific message (file, JSON pointer, expectation); the
// loader never throws and never crashes on hostile input.
#include "collision/mesh_shape.h"
#include "solvers/registry.h"
#include "scene/scene.h"
#include "scene/mesh_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "support/builders.h"
#include "support/scenes.h"
#include "support/scratch.h"

namespace cl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::source_dir;

fs::path scenes_dir() { return source_dir() / "scenes"; }
fs::path bad_scenes_dir() { return source_dir() / "tests" / "data" / "bad_scenes"; }

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

SceneLoadResult load_ok(const std::string& text, const std::string& label = "mem.json") {
  SceneLoadResult r = load_scene_text(text, label);
  EXPECT_TRUE(r.ok()) << r.error;
  return r;
}

std::string load_error(const std::string& text, const std::string& label = "mem.json") {
  SceneLoadResult r = load_scene_text(text, label);
  EXPECT_FALSE(r.ok()) << "expected an error for: " << text;
  return r.error;
}

// A valid scene with one ground plane and one ball, as a JSON value to modify.
json base_scene() {
  return json::parse(R"({
    "format": 1,
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "ball", "shape": {"type": "sphere", "radius": 0.5}, "density": 1000, "position": [0, 1, 0]}
    ]})");
}

// --- world comparison --------------------------------------------------------------------------------

constexpr double kTol = 1e-12;

void expect_vec_near(const Vec3& a, const Vec3& b, const std::string& what) {
  EXPECT_LE((a - b).norm(), kTol) << what << ": " << a.transpose() << " vs " << b.transpose();
}

std::string material_name(const World& w, int index) {
  return index >= 0 && size_t(index) < w.materials.size() ? w.materials[size_t(index)].name : "<invalid>";
}

void expect_same_world(const World& a, const World& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.topic, b.topic);
  expect_vec_near(a.settings.gravity, b.settings.gravity, "gravity");
  EXPECT_EQ(a.settings.dt, b.settings.dt);
  EXPECT_EQ(a.settings.contact_margin, b.settings.contact_margin);
  EXPECT_EQ(a.settings.max_speed, b.settings.max_speed);
  EXPECT_EQ(a.settings.max_contacts, b.settings.max_contacts);
  EXPECT_EQ(a.settings.continuous, b.settings.continuous);
  EXPECT_EQ(a.settings.threads, b.settings.threads);

  // Materials by name (their order is not part of the description).
  ASSERT_EQ(a.materials.size(), b.materials.size());
  EXPECT_EQ(b.materials[0].name, "default");
  for (const Material& m : a.materials) {
    const int j = b.find_material(m.name);
    ASSERT_GE(j, 0) << m.name;
    EXPECT_EQ(m.friction, b.materials[size_t(j)].friction) << m.name;
    EXPECT_EQ(m.restitution, b.materials[size_t(j)].restitution) << m.name;
  }

  // Applied forces, every field (bounds bit for bit: they are written with 17 digits).
  ASSERT_EQ(a.forces.size(), b.forces.size());
  for (size_t k = 0; k < a.forces.size(); ++k) {
    const AppliedForce& x = a.forces[k];
    const AppliedForce& y = b.forces[k];
    SCOPED_TRACE("force " + std::to_string(k));
    EXPECT_EQ(x.body, y.body);
    for (const auto& [u, v] : {std::pair(&x.force, &y.force), std::pair(&x.point, &y.point), std::pair(&x.torque, &y.torque)}) {
      EXPECT_EQ(u->random, v->random);
      EXPECT_EQ(u->lo, v->lo);
      EXPECT_EQ(u->hi, v->hi);
    }
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.period, y.period);
    EXPECT_EQ(x.on, y.on);
    EXPECT_EQ(x.resample, y.resample);
    EXPECT_EQ(x.seed, y.seed);
  }

  EXPECT_EQ(a.methods, b.methods);
  EXPECT_EQ(a.solver().name(), b.solver().name());
  for (const SolverInfo& info : solver_registry()) {  // every method's parameters, active or not
    const ParamSet pa = a.solver_params_copy(info.name);
    const ParamSet pb = b.solver_params_copy(info.name);
    ASSERT_EQ(pa.specs().size(), pb.specs().size());
    for (size_t i = 0; i < pa.specs().size(); ++i) EXPECT_EQ(pa.value(i), pb.value(i)) << info.name << " " << pa.specs()[i].name;
  }

  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const Body& x = a.bodies[i];
    const Body& y = b.bodies[i];
    SCOPED_TRACE("body " + std::to_string(i) + " " + x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(material_name(a, x.material), material_name(b, y.material));
    ASSERT_EQ(x.shape.type, y.shape.type);
    switch (x.shape.type) {
      case ShapeType::Plane:
        expect_vec_near(x.shape.normal, y.shape.normal, "normal");
        EXPECT_EQ(x.shape.offset, y.shape.offset);
        break;
      case ShapeType::Sphere: EXPECT_EQ(x.shape.radius, y.shape.radius); break;
      case ShapeType::Box: EXPECT_EQ(x.shape.half_extents, y.shape.half_extents); break;
      case ShapeType::Capsule:
        EXPECT_EQ(x.shape.radius, y.shape.radius);
        EXPECT_EQ(x.shape.half_height, y.shape.half_height);
        break;
      case ShapeType::Mesh:
        const auto xs = mesh_source(x.shape.mesh), ys = mesh_source(y.shape.mesh);
        ASSERT_TRUE(xs && ys);
        EXPECT_EQ(xs->file, ys->file);
        EXPECT_EQ(xs->generator, ys->generator);
        EXPECT_EQ(x.shape.mesh->options.scale, y.shape.mesh->options.scale);
        EXPECT_EQ(x.shape.mesh->options.sdf_resolution, y.shape.mesh->options.sdf_resolution);
        break;
    }
    expect_vec_near(x.position, y.position, "position");
    EXPECT_LE((x.orientation.coeffs() - y.orientation.coeffs()).norm(), kTol);
    expect_vec_near(x.linear_velocity, y.linear_velocity, "linear_velocity");
    expect_vec_near(x.angular_velocity, y.angular_velocity, "angular_velocity");
    EXPECT_EQ(x.density, y.density);
    EXPECT_NEAR(x.mass, y.mass, kTol * std::max(1.0, x.mass));
    EXPECT_NEAR(x.inv_mass, y.inv_mass, kTol * std::max(1.0, x.inv_mass));
    EXPECT_LE((x.inertia_body - y.inertia_body).norm(), kTol * std::max(1.0, x.inertia_body.norm()));
  }
}

// --- shipped scenes --------------------------------------------------------------------------------

TEST(Scene, ShippedScenesExist) {
  std::vector<std::string> names;
  for (const auto& f : json_files(scenes_dir())) names.push_back(f.filename().string());
  for (const char* expected : {"default.json", "sphere_and_box.json", "incline.json", "pyramid20.json", "tower20.json",
                               "ball_grid.json", "wall.json", "reference.json"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

// Every method runs every shipped scene, so none lists "methods" (the key is for users' own scenes); the
// conformance cases' scenes neither.
TEST(Scene, NoShippedSceneNamesItsMethods) {
  for (const fs::path& dir : {scenes_dir(), scenes_dir() / "conformance"}) {
    for (const auto& file : json_files(dir)) {
      std::ifstream in(file);
      EXPECT_FALSE(json::parse(in).contains("methods")) << file.string();
    }
  }
}

TEST(Scene, EveryShippedSceneLoadsWithoutWarnings) {
  for (const auto& file : json_files(scenes_dir())) {
    SCOPED_TRACE(file.string());
    SceneLoadResult r = load_scene_file(file.string());
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    EXPECT_FALSE(r.world.bodies.empty());
    EXPECT_EQ(r.world.name, file.stem().string());
    for (const Body& b : r.world.bodies) {
      if (b.is_dynamic()) {
        EXPECT_GT(b.mass, 0.0) << b.name;
        EXPECT_TRUE(std::isfinite(b.inv_mass)) << b.name;
      } else {
        EXPECT_EQ(b.inv_mass, 0.0) << b.name;
      }
    }
  }
}

TEST(Scene, EveryShippedSceneRoundTripsThroughJson) {
  for (const auto& file : json_files(scenes_dir())) {
    SCOPED_TRACE(file.string());
    SceneLoadResult first = load_scene_file(file.string());
    ASSERT_TRUE(first.ok()) << first.error;

    // In memory.
    const json saved = scene_to_json(first.world);
    SceneLoadResult second = load_scene_json(saved, "saved");
    ASSERT_TRUE(second.ok()) << second.error;
    EXPECT_TRUE(second.warnings.empty());
    expect_same_world(first.world, second.world);
    // Saving is a fixed point.
    const json diff = json::diff(saved, scene_to_json(second.world));
    EXPECT_TRUE(diff.empty()) << diff.dump().substr(0, 2000);

    // Through a file.
    const fs::path out = cl::test::scratch_dir() / file.filename();
    std::string error;
    ASSERT_TRUE(save_scene_file(first.world, out.string(), &error)) << error;
    SceneLoadResult third = load_scene_file(out.string());
    ASSERT_TRUE(third.ok()) << third.error;
    expect_same_world(first.world, third.world);
    fs::remove(out);
  }
}

TEST(Scene, RoundTripOfAWorldBuiltInCode) {
  World w;
  w.name = "built";
  w.settings.gravity = Vec3(0.1, -3.7, 0.2);
  w.settings.dt = 1.0 / 240.0;
  w.settings.contact_margin = 0.005;
  w.settings.max_speed = 250.0;
  w.settings.max_contacts = 12345;
  w.settings.continuous = false;
  w.settings.threads = 2;
  const int ice = test::add_material(w, 0.05, 0.1);
  const int rubber = test::add_material(w, 0.9, 0.8);
  test::add_plane(w, Vec3(0.1, 1, 0), 0.25, ice);
  test::add_body(w, test::box(Vec3(0.5, 1, 1.5)), Vec3(1, 2, 3), 700.0,
                 Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())), rubber);
  const int ball = test::add_body(w, test::sphere(0.3), Vec3(-1, 1, 0));
  w.bodies[size_t(ball)].set_mass_properties(0, 4.2);  // by mass
  w.bodies[size_t(ball)].linear_velocity = Vec3(1, 2, 3);
  w.bodies[size_t(ball)].angular_velocity = Vec3(-1, 0.5, 0.25);
  const int k = test::add_body(w, test::capsule(0.2, 0.7), Vec3(0, 5, 0), 0, Quat::Identity(), 0, BodyKind::Kinematic);
  w.bodies[size_t(k)].linear_velocity = Vec3(0, 0, -1);
  std::string error;
  ASSERT_TRUE(w.solver().params().set("iterations", 37, &error)) << error;

  SceneLoadResult r = load_scene_json(scene_to_json(w), "built.json");
  ASSERT_TRUE(r.ok()) << r.error;
  expect_same_world(w, r.world);
  EXPECT_EQ(r.world.solver().params().get("iterations"), 37);
  EXPECT_EQ(r.world.bodies[size_t(ball)].density, 0.0);
  EXPECT_DOUBLE_EQ(r.world.bodies[size_t(ball)].mass, 4.2);
}

// A scene holds the parameters of several methods: the active one in "params", the others in
// "params_by_solver". Save writes the active one's in full and the others' that differ from their defaults, and
// loading that gives the same values for every method.
TEST(Scene, ParametersOfEverySolverRoundTrip) {
  json doc = base_scene();
  doc["methods"] = {"lcp", "volume", "implicit-penalty"};
  doc["solver"] = json::parse(R"({"type": "lcp", "params": {"iterations": 12},
      "params_by_solver": {"volume": {"iterations": 33, "multi_volume": false},
                           "implicit-penalty": {"integrator": "explicit"}}})");
  SceneLoadResult r = load_scene_json(doc, "several.json");
  ASSERT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  EXPECT_EQ(w.solver().params().get("iterations"), 12);
  EXPECT_EQ(w.solver_params_copy("volume").get("iterations"), 33);
  EXPECT_EQ(w.solver_params_copy("volume").get("multi_volume"), 0);
  EXPECT_EQ(w.solver_params_copy("implicit-penalty").get("integrator"), 1);
  std::string error;
  ASSERT_TRUE(w.set_solver("volume", &error)) << error;  // as --solver volume does
  EXPECT_EQ(w.solver().params().get("iterations"), 33);
  ASSERT_TRUE(w.solver().params().set("pixel_size", 0.02, &error)) << error;

  const json saved = scene_to_json(w);
  EXPECT_EQ(saved["solver"]["type"], "volume");
  EXPECT_EQ(saved["solver"]["params"].size(), w.solver().params().specs().size());  // all of the active one's
  EXPECT_EQ(saved["solver"]["params"]["pixel_size"], 0.02);
  EXPECT_EQ(saved["solver"]["params_by_solver"], json::parse(R"({"lcp": {"iterations": 12},
      "implicit-penalty": {"integrator": "explicit"}})"));
  EXPECT_EQ(saved["methods"], doc["methods"]);
  SceneLoadResult back = load_scene_json(saved, "saved.json");
  ASSERT_TRUE(back.ok()) << back.error;
  expect_same_world(w, back.world);
  EXPECT_EQ(back.world.solver_params_copy("lcp").get("iterations"), 12);
  EXPECT_EQ(back.world.solver_params_copy("volume").get("pixel_size"), 0.02);

  // Through a file, and without other methods' changes there is no params_by_solver at all.
  const fs::path out = cl::test::scratch_dir() / "several_solvers.json";
  ASSERT_TRUE(save_scene_file(w, out.string(), &error)) << error;
  SceneLoadResult file = load_scene_file(out.string());
  ASSERT_TRUE(file.ok()) << file.error;
  expect_same_world(w, file.world);
  fs::remove(out);
  EXPECT_FALSE(scene_to_json(load_ok(base_scene().dump()).world)["solver"].contains("params_by_solver"));
}

// Format 1's solver block {"type", "params"} loads as it always did: that method active with those values, the
// others at their defaults.
TEST(Scene, SingleSolverBlockLoadsUnchanged) {
  json doc = base_scene();
  doc["solver"] = json::parse(R"({"type": "implicit-penalty", "params": {"penetration": 0.002}})");
  SceneLoadResult r = load_ok(doc.dump());
  EXPECT_EQ(r.world.solver().name(), "implicit-penalty");
  EXPECT_EQ(r.world.solver().params().get("penetration"), 0.002);
  for (const char* other : {"lcp", "volume"}) {
    const ParamSet p = r.world.solver_params_copy(other);
    for (size_t i = 0; i < p.specs().size(); ++i) EXPECT_EQ(p.value(i), p.specs()[i].default_value) << other;
  }
  EXPECT_TRUE(r.world.methods.empty());
}

// "methods" limits the solvers a scene runs under; without a "solver" block the first listed method is active
// when lcp is not listed.
TEST(Scene, MethodsChooseTheDefaultSolverAndRefuseOthers) {
  json doc = base_scene();
  doc["methods"] = {"volume", "implicit-penalty"};
  SceneLoadResult r = load_ok(doc.dump());
  EXPECT_EQ(r.world.solver().name(), "volume");
  EXPECT_EQ(r.world.methods, (std::vector<std::string>{"volume", "implicit-penalty"}));
  std::string error;
  EXPECT_FALSE(r.world.set_solver("lcp", &error));
  EXPECT_EQ(r.world.solver().name(), "volume");
  doc["methods"] = {"implicit-penalty", "lcp"};
  EXPECT_EQ(load_ok(doc.dump()).world.solver().name(), "lcp");
  doc["solver"] = {{"type", "volume"}};
  EXPECT_NE(load_error(doc.dump()).find("/solver/type: expected one of the scene's methods (implicit-penalty, lcp"),
            std::string::npos);
}

// A procedural cylinder is a mesh body with the prism's mass; bad parameters name the shape's path.
TEST(Scene, CylinderShape) {
  json doc = base_scene();
  doc["bodies"][1]["shape"] = json::parse(R"({"type": "cylinder", "radius": 0.2, "half_height": 0.3, "segments": 64})");
  const SceneLoadResult r = load_ok(doc.dump());
  const Body& b = r.world.bodies[1];
  EXPECT_EQ(b.shape.type, ShapeType::Mesh);
  const double prism = 64 / 2.0 * std::sin(2 * std::numbers::pi / 64) * 0.2 * 0.2 * 0.6;  // inscribed 64-gon x length
  EXPECT_NEAR(b.mass, 1000 * prism, 1e-9);
  doc["bodies"][1]["shape"]["segments"] = 2;
  EXPECT_NE(load_error(doc.dump()).find("/bodies/1/shape"), std::string::npos);
  doc["bodies"][1]["shape"] = json::parse(R"({"type": "cylinder", "radius": -1})");
  EXPECT_NE(load_error(doc.dump()).find("cylinder: need radius > 0"), std::string::npos);
}

// "lanes": the comparison lanes beside the scene's own method, with parameters on top of the scene's for their
// method; saved back as they were read.
TEST(Scene, LanesLoadAndRoundTrip) {
  json doc = base_scene();
  doc["solver"] = json::parse(R"({"type": "lcp", "params_by_solver": {"volume": {"pixel_size": 0.02}}})");
  doc["lanes"] = json::parse(R"([{"solver": "volume", "params": {"iterations": 40, "multi_volume": false}},
                                 {"solver": "lcp", "params": {"warm_start": false}}, {"solver": "implicit-penalty"}])");
  SceneLoadResult r = load_ok(doc.dump());
  ASSERT_EQ(r.lanes.size(), 3u);
  EXPECT_EQ(r.lanes[0].solver, "volume");
  // In the order of the method's parameter table.
  EXPECT_EQ(r.lanes[0].params, (std::vector<std::pair<std::string, std::string>>{{"multi_volume", "false"}, {"iterations", "40"}}));
  EXPECT_EQ(r.lanes[1].params, (std::vector<std::pair<std::string, std::string>>{{"warm_start", "false"}}));
  EXPECT_TRUE(r.lanes[2].params.empty());
  // A lane starts from the scene's parameters for its method.
  World lane;
  std::string error;
  ASSERT_TRUE(make_lane(r.world, r.lanes[0], lane, &error)) << error;
  EXPECT_EQ(lane.solver().params().get("pixel_size"), 0.02);
  EXPECT_EQ(lane.solver().params().get("iterations"), 40);

  const json saved = scene_to_json(r.world, r.lanes);
  EXPECT_EQ(saved["lanes"], json::parse(R"([{"solver": "volume", "params": {"iterations": 40, "multi_volume": false}},
                                            {"solver": "lcp", "params": {"warm_start": false}}, {"solver": "implicit-penalty"}])"));
  SceneLoadResult again = load_ok(saved.dump());
  ASSERT_EQ(again.lanes.size(), 3u);
  EXPECT_EQ(again.lanes[0].params, r.lanes[0].params);
  EXPECT_FALSE(scene_to_json(r.world).contains("lanes"));
}

TEST(Scene, BadLanesNameTheirPath) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"solver": "lcp"})", "/lanes: expected an array of at most 3 lanes"},
      {R"([{"solver": "lcp"}, {"solver": "lcp"}, {"solver": "lcp"}, {"solver": "lcp"}])", "/lanes: expected an array of at most 3"},
      {R"([{"solver": "vollume"}])", "/lanes/0/solver: expected a solver name"},
      {R"([{"solver": "lcp"}, {}])", "/lanes/1/solver: missing required field"},
      {R"([{"solver": "lcp", "colour": 1}])", "/lanes/0/colour: unknown key"},
      {R"([{"solver": "lcp", "params": {"iterationz": 3}}])", "/lanes/0/params/iterationz: unknown parameter"},
      {R"([{"solver": "lcp", "params": {"iterations": -3}}])", "/lanes/0/params/iterations"},
      {R"([7])", "/lanes/0: expected a lane"},
  };
  for (const auto& [lanes, message] : cases) {
    json doc = base_scene();
    doc["lanes"] = json::parse(lanes);
    const std::string error = load_error(doc.dump());
    EXPECT_NE(error.find(message), std::string::npos) << lanes << " gave: " << error;
  }
  json doc = base_scene();
  doc["methods"] = {"lcp"};
  doc["lanes"] = json::parse(R"([{"solver": "volume"}])");
  EXPECT_NE(load_error(doc.dump()).find("/lanes/0/solver: expected one of the scene's methods (lcp"), std::string::npos);
}

TEST(Scene, SaveReportsUnwritablePath) {
  World w;
  std::string error;
  EXPECT_FALSE(save_scene_file(w, "/nonexistent-dir/x/scene.json", &error));
  EXPECT_NE(error.find("/nonexistent-dir/x/scene.json"), std::string::npos) << error;
}

// --- what the shipped scenes contain (tests and benchmarks rely on these numbers) -----------------------------

World load_shipped(const std::string& name) {
  SceneLoadResult r = load_scene_file((scenes_dir() / name).string());
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.world);
}

int count_kind(const World& w, BodyKind kind) {
  return int(std::count_if(w.bodies.begin(), w.bodies.end(), [&](const Body& b) { return b.kind == kind; }));
}

double friction_of(const World& w, const Body& b) { return w.materials[size_t(b.material)].friction; }

TEST(Scene, Pyramid20) {
  const World w = load_shipped("pyramid20.json");
  ASSERT_EQ(w.bodies.size(), 211u);
  EXPECT_EQ(count_kind(w, BodyKind::Dynamic), 210);
  EXPECT_DOUBLE_EQ(w.settings.dt, 1.0 / 60.0);
  EXPECT_EQ(w.solver().name(), "lcp");
  EXPECT_EQ(w.solver().params().get("iterations"), 10);
  double top = 0;
  for (const Body& b : w.bodies) {
    EXPECT_DOUBLE_EQ(friction_of(w, b), 0.6);
    if (!b.is_dynamic()) continue;
    EXPECT_EQ(b.shape.type, ShapeType::Box);
    EXPECT_EQ(b.shape.half_extents, Vec3(0.5, 0.5, 0.5));
    EXPECT_DOUBLE_EQ(b.mass, 1000.0);
    // Resting exactly: bottoms on whole metres.
    EXPECT_EQ(b.position.y() - 0.5, std::round(b.position.y() - 0.5));
    top = std::max(top, b.position.y());
  }
  EXPECT_DOUBLE_EQ(top, 19.5);
}

TEST(Scene, Tower20) {
  const World w = load_shipped("tower20.json");
  ASSERT_EQ(count_kind(w, BodyKind::Dynamic), 20);
  EXPECT_DOUBLE_EQ(w.settings.dt, 1.0 / 60.0);
  for (const Body& b : w.bodies) EXPECT_DOUBLE_EQ(friction_of(w, b), 0.6);
  for (int i = 0; i < 20; ++i) {
    const Body& b = w.bodies[w.find_body("box_" + std::to_string(i))];
    EXPECT_EQ(b.position, Vec3(0, 0.5 + i, 0));
  }
}

TEST(Scene, BallGridIsThesisSceneS11) {
  const World w = load_shipped("ball_grid.json");
  ASSERT_EQ(count_kind(w, BodyKind::Dynamic), 125);
  EXPECT_DOUBLE_EQ(w.settings.dt, 0.01);
  for (const Body& b : w.bodies) {
    if (!b.is_dynamic()) continue;
    EXPECT_EQ(b.shape.type, ShapeType::Sphere);
    EXPECT_EQ(b.shape.radius, 0.5);
    EXPECT_EQ(b.density, 10.0);
  }
}

TEST(Scene, Wall) {
  const World w = load_shipped("wall.json");
  EXPECT_EQ(count_kind(w, BodyKind::Dynamic), 105);  // 5 rows of 10 bricks, 5 rows of 9 bricks and 2 half bricks
  double volume = 0;
  for (const Body& b : w.bodies) {
    EXPECT_DOUBLE_EQ(friction_of(w, b), 0.6);
    if (b.is_dynamic()) volume += shape_volume(b.shape);
  }
  EXPECT_NEAR(volume, 10.0 * 5.0 * 0.5, 1e-9);  // 10 m long, 5 m high, 0.5 m deep, no gaps
}

TEST(Scene, InclineSitsAtTheFrictionThreshold) {
  const World w = load_shipped("incline.json");
  const Body& plane = w.bodies[w.find_body("incline")];
  const Body& box = w.bodies[w.find_body("box")];
  const double angle = std::acos(plane.shape.normal.dot(Vec3::UnitY()));
  EXPECT_NEAR(angle, std::numbers::pi / 6, 1e-12);
  EXPECT_NEAR(std::sqrt(friction_of(w, plane) * friction_of(w, box)), std::tan(angle), 1e-12);
  // The box's bottom face lies on the plane: its y axis is the normal, its centre half a box above.
  EXPECT_LE((box.rotation() * Vec3::UnitY() - plane.shape.normal).norm(), 1e-12);
  EXPECT_NEAR(plane.shape.normal.dot(box.position) - plane.shape.offset, 0.5, 1e-12);
}

TEST(Scene, DefaultSceneSize) {
  const World w = load_shipped("default.json");
  EXPECT_GE(w.bodies.size(), 30u);
  EXPECT_LE(w.bodies.size(), 60u);
  bool has[kShapeTypeCount] = {};
  for (const Body& b : w.bodies) has[int(b.shape.type)] = true;
  for (bool h : has) EXPECT_TRUE(h);
}

TEST(Scene, ReferenceSceneUsesEveryField) {
  const fs::path file = scenes_dir() / "reference.json";
  std::ifstream in(file);
  const json doc = json::parse(in);
  for (const char* key : {"format", "name", "description", "topic", "gravity", "dt", "contact_margin", "max_speed",
                          "max_contacts", "continuous", "threads", "solver", "materials", "bodies"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_TRUE(doc["solver"].contains("params_by_solver"));
  std::map<std::string, int> body_keys, shape_types;
  for (const auto& b : doc["bodies"]) {
    for (const auto& [k, v] : b.items()) body_keys[k]++;
    shape_types[b["shape"]["type"].get<std::string>()]++;
  }
  for (const char* key : {"name", "shape", "fixed", "kinematic", "density", "mass", "position", "orientation",
                          "linear_velocity", "angular_velocity", "material"}) {
    EXPECT_GT(body_keys[key], 0) << key;
  }
  for (const char* t : {"plane", "sphere", "box", "capsule"}) EXPECT_GT(shape_types[t], 0) << t;
  // Every parameter of the solver appears.
  const World w = load_shipped("reference.json");
  for (const auto& spec : w.solver().params().specs()) {
    EXPECT_TRUE(doc["solver"]["params"].contains(spec.name)) << spec.name;
  }
  EXPECT_EQ(count_kind(w, BodyKind::Kinematic), 1);
}

// --- loading: values, defaults, warnings ----------------------------------------------------------------

TEST(Scene, Defaults) {
  SceneLoadResult r = load_ok(base_scene().dump(), "some/dir/my_scene.json");
  const World& w = r.world;
  const WorldSettings defaults;
  EXPECT_EQ(w.name, "my_scene");  // from the file name when "name" is absent
  EXPECT_EQ(w.settings.gravity, defaults.gravity);
  EXPECT_EQ(w.settings.dt, defaults.dt);
  EXPECT_EQ(w.settings.contact_margin, defaults.contact_margin);
  EXPECT_EQ(w.solver().name(), "lcp");
  const ParamSet& p = w.solver().params();
  for (size_t i = 0; i < p.specs().size(); ++i) EXPECT_EQ(p.value(i), p.specs()[i].default_value);
  ASSERT_EQ(w.materials.size(), 1u);
  EXPECT_EQ(w.materials[0].name, "default");
  const Body& ball = w.bodies[1];
  EXPECT_EQ(ball.kind, BodyKind::Dynamic);
  EXPECT_EQ(ball.material, 0);
  EXPECT_EQ(ball.orientation.coeffs(), Quat::Identity().coeffs());
  EXPECT_EQ(ball.linear_velocity, Vec3::Zero());
  EXPECT_EQ(ball.angular_velocity, Vec3::Zero());
  EXPECT_EQ(w.bodies[0].kind, BodyKind::Fixed);
  EXPECT_EQ(w.bodies[0].shape.offset, 0.0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Scene, ValuesAreRead) {
  json doc = base_scene();
  doc["name"] = "named";
  doc["gravity"] = {1, -2, 3};
  doc["dt"] = 0.005;
  doc["contact_margin"] = 0;
  doc["solver"] = {{"type", "lcp"}, {"params", {{"iterations", 42}, {"warm_start", false}, {"allowed_penetration", 0.002}}}};
  doc["materials"] = {{"default", {{"friction", 0.25}}}, {"rubber", {{"friction", 1.5}, {"restitution", 1}}}};
  doc["bodies"][1]["material"] = "rubber";
  doc["bodies"][1]["position"] = {1, 2, 3};
  doc["bodies"][1]["linear_velocity"] = {4, 5, 6};
  doc["bodies"][1]["angular_velocity"] = {7, 8, 9};
  doc["bodies"].push_back({{"name", "pusher"}, {"shape", {{"type", "box"}, {"half_extents", {1, 2, 3}}}},
                           {"kinematic", true}, {"linear_velocity", {-1, 0, 0}}});
  SceneLoadResult r = load_ok(doc.dump());
  const World& w = r.world;
  EXPECT_EQ(w.name, "named");
  EXPECT_EQ(w.settings.gravity, Vec3(1, -2, 3));
  EXPECT_EQ(w.settings.dt, 0.005);
  EXPECT_EQ(w.settings.contact_margin, 0.0);
  EXPECT_EQ(w.solver().params().get("iterations"), 42);
  EXPECT_EQ(w.solver().params().get("warm_start"), 0);
  EXPECT_EQ(w.solver().params().get("allowed_penetration"), 0.002);
  ASSERT_EQ(w.materials.size(), 2u);
  EXPECT_EQ(w.materials[0].name, "default");
  EXPECT_EQ(w.materials[0].friction, 0.25);
  EXPECT_EQ(w.materials[0].restitution, 0.0);
  const Body& ball = w.bodies[1];
  EXPECT_EQ(material_name(w, ball.material), "rubber");
  EXPECT_EQ(w.materials[size_t(ball.material)].friction, 1.5);
  EXPECT_EQ(w.materials[size_t(ball.material)].restitution, 1.0);
  EXPECT_EQ(ball.position, Vec3(1, 2, 3));
  EXPECT_EQ(ball.linear_velocity, Vec3(4, 5, 6));
  EXPECT_EQ(ball.angular_velocity, Vec3(7, 8, 9));
  const Body& pusher = w.bodies[2];
  EXPECT_EQ(pusher.kind, BodyKind::Kinematic);
  EXPECT_EQ(pusher.inv_mass, 0.0);
  EXPECT_EQ(pusher.linear_velocity, Vec3(-1, 0, 0));
  EXPECT_EQ(material_name(w, pusher.material), "default");
}

TEST(Scene, BoxMassProperties) {
  json doc = base_scene();
  doc["bodies"][1]["shape"] = {{"type", "box"}, {"half_extents", {0.5, 1, 1.5}}};
  SceneLoadResult r = load_ok(doc.dump());
  const Body& b = r.world.bodies[1];
  const double m = 1000.0 * 1 * 2 * 3;
  EXPECT_DOUBLE_EQ(b.density, 1000.0);
  EXPECT_DOUBLE_EQ(b.mass, m);
  EXPECT_DOUBLE_EQ(b.inv_mass, 1.0 / m);
  // Solid box with edges a, b, c: I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2).
  const Vec3 expected = Vec3(4 + 9, 1 + 9, 1 + 4) * (m / 12.0);
  EXPECT_LE((b.inertia_body - Mat3(expected.asDiagonal())).norm(), 1e-9);
  EXPECT_LE((b.inv_inertia_body * b.inertia_body - Mat3::Identity()).norm(), 1e-12);
}

TEST(Scene, MassGivenDirectly) {
  json doc = base_scene();
  doc["bodies"][1].erase("density");
  doc["bodies"][1]["mass"] = 2.5;
  doc["bodies"][1]["shape"]["radius"] = 0.3;
  SceneLoadResult r = load_ok(doc.dump());
  const Body& b = r.world.bodies[1];
  EXPECT_EQ(b.density, 0.0);
  EXPECT_DOUBLE_EQ(b.mass, 2.5);
  EXPECT_LE((b.inertia_body - Mat3::Identity() * (0.4 * 2.5 * 0.09)).norm(), 1e-12);
  // Saved back as a mass, not a density.
  const json saved = scene_to_json(r.world);
  EXPECT_TRUE(saved["bodies"][1].contains("mass"));
  EXPECT_FALSE(saved["bodies"][1].contains("density"));
  EXPECT_TRUE(scene_to_json(load_ok(base_scene().dump()).world)["bodies"][1].contains("density"));
}

TEST(Scene, NonUnitQuaternionIsNormalisedWithAWarning) {
  json doc = base_scene();
  doc["bodies"][1]["orientation"] = {2, 0, 0, 0};
  SceneLoadResult r = load_ok(doc.dump(), "q.json");
  EXPECT_LE((r.world.bodies[1].orientation.coeffs() - Quat::Identity().coeffs()).norm(), 1e-15);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "q.json: /bodies/1/orientation: normalised (norm was 2)");

  // Rounding in hand-written numbers is fixed silently.
  doc["bodies"][1]["orientation"] = {0.7071068, 0, 0.7071068, 0};
  r = load_ok(doc.dump());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_NEAR(r.world.bodies[1].orientation.norm(), 1.0, 1e-15);
}

TEST(Scene, PlaneNormalIsNormalisedWithAWarning) {
  json doc = base_scene();
  doc["bodies"][0]["shape"]["normal"] = {0, 3, 4};
  SceneLoadResult r = load_ok(doc.dump(), "n.json");
  EXPECT_LE((r.world.bodies[0].shape.normal - Vec3(0, 0.6, 0.8)).norm(), 1e-15);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "n.json: /bodies/0/shape/normal: normalised (length was 5)");
}

TEST(Scene, StateToJson) {
  SceneLoadResult r = load_ok(base_scene().dump());
  r.world.bodies[1].linear_velocity = Vec3(1, 2, 3);
  r.world.bodies[1].orientation = Quat(0, 1, 0, 0);
  const json s = state_to_json(r.world);
  EXPECT_EQ(s["time"], 0.0);
  ASSERT_EQ(s["bodies"].size(), 2u);
  const json& ball = s["bodies"][1];
  EXPECT_EQ(ball["name"], "ball");
  EXPECT_EQ(ball["position"], json({0.0, 1.0, 0.0}));
  EXPECT_EQ(ball["orientation"], json({0.0, 1.0, 0.0, 0.0}));  // w, x, y, z
  EXPECT_EQ(ball["linear_velocity"], json({1.0, 2.0, 3.0}));
  EXPECT_EQ(ball["angular_velocity"], json({0.0, 0.0, 0.0}));
}

// --- malformed files: tests/data/bad_scenes -------------------------------------------------------------

// expected.txt: "FILE SUBSTRING" per line (the substring is the rest of the line); '#' starts a comment line.
std::multimap<std::string, std::string> read_expectations() {
  std::multimap<std::string, std::string> out;
  std::ifstream in(bad_scenes_dir() / "expected.txt");
  EXPECT_TRUE(in.good()) << "missing " << (bad_scenes_dir() / "expected.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos) {
      ADD_FAILURE() << "bad line in expected.txt: " << line;
      continue;
    }
    out.emplace(line.substr(0, space), line.substr(space + 1));
  }
  return out;
}

TEST(Scene, BadScenesGiveTheirSpecificMessages) {
  const auto expectations = read_expectations();
  const auto files = json_files(bad_scenes_dir());
  EXPECT_GE(files.size(), 30u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    const std::string name = file.filename().string();
    EXPECT_GT(expectations.count(name), 0u) << "no expectation listed in expected.txt";
    SceneLoadResult r = load_scene_file(file.string());
    ASSERT_FALSE(r.ok()) << "loaded without error";
    EXPECT_EQ(r.error.rfind(file.string(), 0), 0u) << "error does not start with the file: " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    auto [lo, hi] = expectations.equal_range(name);
    for (auto it = lo; it != hi; ++it) EXPECT_NE(r.error.find(it->second), std::string::npos)
        << "error: " << r.error << "\nshould contain: " << it->second;
  }
  for (const auto& [name, substring] : expectations) {
    EXPECT_TRUE(fs::exists(bad_scenes_dir() / name)) << "expected.txt lists a missing file: " << name;
  }
}

TEST(Scene, MissingFileIsNamed) {
  SceneLoadResult r = load_scene_file("/no/such/dir/missing_scene.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, "/no/such/dir/missing_scene.json: cannot open scene file: No such file or directory");
}

TEST(Scene, DirectoryIsRejected) {
  SceneLoadResult r = load_scene_file(scenes_dir().string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("is a directory"), std::string::npos) << r.error;
}

TEST(Scene, SyntaxErrorHasLineAndColumn) {
  const std::string error = load_error("{\n  \"format\": 1,\n  \"bodies\": [}\n", "s.json");
  EXPECT_EQ(error.rfind("s.json:3:14: JSON syntax error: ", 0), 0u) << error;
  EXPECT_EQ(error.find("json.exception"), std::string::npos) << error;
}

TEST(Scene, InMemoryErrors) {
  struct Case {
    std::string pointer;  // where to put the value, in the base scene
    json value;
    std::string message;  // substring of the error
  };
  const std::vector<Case> cases = {
      {"/bodies/1/shape/radius", -1, "mem.json: /bodies/1/shape/radius: expected a positive number, got -1"},
      {"/bodies/1/shape/radius", json(), "/bodies/1/shape/radius: expected a positive number, got null"},
      {"/bodies/1/shape/radius", std::numeric_limits<double>::infinity(),
       "/bodies/1/shape/radius: expected a positive number, got a number too large to represent"},
      {"/bodies/1/shape/radius", std::nan(""), "/bodies/1/shape/radius: expected a positive number, got NaN"},
      {"/bodies/1/position", {0, std::nan(""), 0}, "/bodies/1/position/1: expected a finite number, got NaN"},
      {"/gravity", {0, -std::numeric_limits<double>::infinity(), 0}, "/gravity/1: expected a finite number, got a negative number too large to represent"},
      {"/dt", 1.5, "/dt: expected a time step in [1e-6, 1] s, got 1.5"},
      {"/dt", -0.01, "/dt: expected a time step in [1e-6, 1] s, got -0.01"},
      {"/dt", 1e-320, "/dt: expected a time step in [1e-6, 1] s, got 1e-320"},
      {"/dt", true, "/dt: expected a time step in [1e-6, 1] s, got true"},
      {"/format", 1.5, "/format: expected 1"},
      {"/threads", -1, "/threads: expected a whole number of threads in [0, 256] (0: every hardware thread), got -1"},
      {"/threads", 1.5, "/threads: expected a whole number of threads in [0, 256]"},
      {"/threads", 2, ""},
      {"/solver", "lcp", "/solver: expected an object {\"type\": name, \"params\": {...}, \"params_by_solver\": {name: {...}}}, got \"lcp\""},
      {"/solver", {{"type", "lcp"}, {"params", {{"iterations", 1e9}}}}, "/solver/params/iterations:"},
      {"/solver", {{"type", 3}}, "/solver/type: expected a solver name"},
      {"/materials", json::array(), "/materials: expected an object"},
      {"/materials", {{"", {{"friction", 1}}}}, "/materials/: expected a non-empty material name"},
      {"/materials", {{"a/b~c", {{"friction", -1}}}}, "/materials/a~1b~0c/friction: expected a non-negative number"},
      {"/bodies/1/material", 3, "/bodies/1/material: expected a material name, got 3"},
      {"/bodies/1/kinematic", 1, "/bodies/1/kinematic: expected true or false, got 1"},
      {"/bodies/1/shape", "sphere", "/bodies/1/shape: expected an object"},
      {"/bodies/1/orientation", {1, 0, 0, "0"}, "/bodies/1/orientation: expected an array of 4 numbers [w, x, y, z]"},
      {"/bodies/1/shape/radius", 1e-110, "/bodies/1: mass properties are not finite and positive"},
      {"/bodies/0/shape/offset", "1", "/bodies/0/shape/offset: expected a finite number, got \"1\""},
      {"/bodies/0/shape/normal", {1e-320, 0, 0}, ""},  // denormal but non-zero: accepted
      {"/name", json::object(), "/name: expected a string, got {}"},
      {"/description", 5, "/description: expected a string, got 5"},
      {"/topic", 7, "/topic: expected a string, got 7"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pointer + " = " + c.value.dump());
    json doc = base_scene();
    doc[json::json_pointer(c.pointer)] = c.value;
    SceneLoadResult r = load_scene_json(doc, "mem.json");
    if (c.message.empty()) {
      EXPECT_TRUE(r.ok()) << r.error;
      continue;
    }
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find(c.message), std::string::npos) << r.error;
    EXPECT_EQ(r.error.rfind("mem.json: ", 0), 0u) << r.error;
  }
}

TEST(Scene, UnknownSolverListsTheAvailableOnes) {
  json doc = base_scene();
  doc["solver"] = {{"type", "nope"}};
  SceneLoadResult r = load_scene_json(doc, "mem.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("(one of: " + solver_names() + ")"), std::string::npos) << r.error;
}

TEST(Scene, LongValuesAreSummarisedInMessages) {
  json doc = base_scene();
  doc["gravity"] = json::array();
  for (int i = 0; i < 100; ++i) doc["gravity"].push_back(i);
  SceneLoadResult r = load_scene_json(doc, "mem.json");
  EXPECT_NE(r.error.find("/gravity: expected an array of 3 numbers [x, y, z], got an array of 100 elements"),
            std::string::npos)
      << r.error;
  doc["gravity"] = std::string(500, 'x');
  r = load_scene_json(doc, "mem.json");
  EXPECT_NE(r.error.find("got a string of 500 characters"), std::string::npos) << r.error;
}

TEST(Scene, HostileInputDoesNotCrash) {
  // Deep nesting in a value, and in the document itself.
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  std::string text = "{\"format\": 1, \"gravity\": " + deep + ", \"bodies\": []}";
  SceneLoadResult r = load_scene_text(text, "deep.json");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("/gravity: expected an array of 3 numbers"), std::string::npos) << r.error;
  r = load_scene_text(deep, "deep.json");
  EXPECT_FALSE(r.ok());
  // Binary garbage and invalid UTF-8.
  r = load_scene_text(std::string("\xff\xfe\x00\x01garbage", 11), "bin.json");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("bin.json:", 0), 0u);
  json doc = base_scene();
  doc["bodies"][1]["name"] = std::string("\xc3\x28 bad utf8");
  doc["bodies"][1]["unknown"] = std::string("\xff");
  r = load_scene_json(doc, "utf.json");
  EXPECT_FALSE(r.ok());
}

// Every value of the reference scene replaced by wrong things, and every key removed: the loader returns
// either a world or an error naming the file, and never throws.
TEST(Scene, MutationsOfTheReferenceSceneNeverThrow) {
  std::ifstream in(scenes_dir() / "reference.json");
  json doc = json::parse(in);
  doc["methods"] = {"lcp", "implicit-penalty", "volume"};  // the one field no shipped scene uses
  const json flat = doc.flatten();
  std::vector<std::string> pointers;
  for (const auto& [p, v] : flat.items()) {
    // Also each ancestor of a leaf.
    for (std::string q = p; !q.empty(); q = q.substr(0, q.rfind('/'))) pointers.push_back(q);
  }
  std::sort(pointers.begin(), pointers.end());
  pointers.erase(std::unique(pointers.begin(), pointers.end()), pointers.end());
  const std::vector<json> replacements = {json(), json(-1), json(0), json(1e300), json("x"), json::array(),
                                          json::object(), json(true), json({1, 2, 3})};
  int loaded = 0, rejected = 0;
  for (const std::string& p : pointers) {
    const json::json_pointer ptr(p);
    for (const json& v : replacements) {
      json mutated = doc;
      mutated[ptr] = v;
      SceneLoadResult r;
      EXPECT_NO_THROW(r = load_scene_json(mutated, "ref.json")) << p;
      if (r.ok()) ++loaded;
      else {
        ++rejected;
        EXPECT_EQ(r.error.rfind("ref.json: ", 0), 0u) << r.error;
      }
    }
    json removed = doc;
    json& parent = removed[ptr.parent_pointer()];
    if (parent.is_object()) parent.erase(ptr.back());
    else parent.erase(std::stoul(ptr.back()));
    EXPECT_NO_THROW(load_scene_json(removed, "ref.json")) << p;
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0);
}

}  // namespace
}  // namespace cl
