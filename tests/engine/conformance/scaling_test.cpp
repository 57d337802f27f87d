// A conformance scene scaled to a condition: a similar system under the same gravity.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "conformance/scaling.h"
#include "scene/scene.h"

namespace cl::conformance {
namespace {

using nlohmann::json;

json scaling_scene() {
  return json::parse(R"({
    "format": 1, "name": "s", "description": "d", "topic": "Conformance", "gravity": [0, -9.81, 0], "dt": 0.02,
    "materials": {"m": {"friction": 0.5, "restitution": 0.5}},
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0.5}, "fixed": true},
      {"name": "box", "shape": {"type": "box", "half_extents": [0.5, 0.25, 0.5]}, "density": 1000,
       "position": [1, 2, 3], "orientation": [1, 0, 0, 0], "linear_velocity": [4, 0, 0],
       "angular_velocity": [0, 0, 2], "material": "m"},
      {"name": "ball", "shape": {"type": "sphere", "radius": 0.5}, "mass": 10, "position": [0, 1, 0]},
      {"name": "pill", "shape": {"type": "capsule", "radius": 0.1, "half_height": 0.3}, "mass": 2, "position": [5, 1, 0]}
    ],
    "joints": [
      {"name": "h", "type": "hinge", "bodies": ["ground", "box"], "anchor": [1, 3, 3], "axis": [0, 0, 1],
       "limits": {"lower": -0.5, "upper": 0.5}, "motor": {"speed": 3, "max_force": 100}, "erp": 0.2},
      {"name": "s", "type": "slider", "bodies": ["ground", "ball"], "anchor": [0, 1, 0], "axis": [1, 0, 0],
       "coordinate": 0.1, "limits": {"lower": -1, "upper": 1}, "motor": {"speed": 2, "max_force": 50}}
    ]})");
}

TEST(ScaledScene, LengthsMassesAndTimesScaleGravityAndAnglesStay) {
  const Scale s{0.04, 0.5};  // L = 0.04: times and speeds by 0.2
  const json out = scaled_scene(scaling_scene(), s, 0.001);
  EXPECT_EQ(out["dt"], 0.001);
  EXPECT_EQ(out["gravity"], json::parse("[0, -9.81, 0]"));
  EXPECT_EQ(out["materials"], scaling_scene()["materials"]);
  const json& ground = out["bodies"][0];
  EXPECT_DOUBLE_EQ(ground["shape"]["offset"].get<double>(), 0.02);
  EXPECT_EQ(ground["shape"]["normal"], json::parse("[0, 1, 0]"));
  const json& box = out["bodies"][1];
  EXPECT_DOUBLE_EQ(box["shape"]["half_extents"][1].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(box["position"][2].get<double>(), 0.12);
  EXPECT_DOUBLE_EQ(box["density"].get<double>(), 1000 * 0.5 / (0.04 * 0.04 * 0.04));
  EXPECT_DOUBLE_EQ(box["linear_velocity"][0].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(box["angular_velocity"][2].get<double>(), 10.0);
  EXPECT_EQ(box["orientation"], json::parse("[1, 0, 0, 0]"));
  EXPECT_DOUBLE_EQ(out["bodies"][2]["shape"]["radius"].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(out["bodies"][2]["mass"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(out["bodies"][3]["shape"]["half_height"].get<double>(), 0.012);
  const json& hinge = out["joints"][0];
  EXPECT_DOUBLE_EQ(hinge["anchor"][1].get<double>(), 0.12);
  EXPECT_EQ(hinge["limits"], scaling_scene()["joints"][0]["limits"]);  // angles
  EXPECT_DOUBLE_EQ(hinge["motor"]["speed"].get<double>(), 15.0);      // rad/s by 1 / sqrt(L)
  EXPECT_DOUBLE_EQ(hinge["motor"]["max_force"].get<double>(), 2.0);   // N m by M L
  const json& slider = out["joints"][1];
  EXPECT_DOUBLE_EQ(slider["coordinate"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(slider["limits"]["upper"].get<double>(), 0.04);
  EXPECT_DOUBLE_EQ(slider["motor"]["speed"].get<double>(), 0.4);      // m/s by sqrt(L)
  EXPECT_DOUBLE_EQ(slider["motor"]["max_force"].get<double>(), 25.0);  // N by M
  // The scaled scene is a valid scene.
  const SceneLoadResult loaded = load_scene_json(out, "scaled");
  EXPECT_TRUE(loaded.ok()) << loaded.error;
}

TEST(ScaledScene, AtScaleOneOnlyTheStepChanges) {
  json expected = scaling_scene();
  expected["dt"] = 0.005;
  EXPECT_EQ(scaled_scene(scaling_scene(), Scale{}, 0.005), expected);
}

// A quantity without a scaling rule is refused, naming where it is.
TEST(ScaledScene, RefusesWhatItCannotScale) {
  const auto refused = [](json doc, const std::string& where) {
    try {
      scaled_scene(doc, Scale{2.0, 1.0}, 0.01);
      ADD_FAILURE() << "accepted " << where;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  };
  json forces = scaling_scene();
  forces["forces"] = json::array();
  refused(forces, "/forces");
  json mesh = scaling_scene();
  mesh["bodies"][1]["shape"] = json::parse(R"({"type": "mesh", "file": "a.obj"})");
  refused(mesh, "/bodies/1/shape/file");
  json servo = scaling_scene();
  servo["joints"][0].erase("motor");
  servo["joints"][0]["servo"] = json::parse(R"({"target": 0})");
  refused(servo, "/joints/0/servo");
}

}  // namespace
}  // namespace cl::conformance
