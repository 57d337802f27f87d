// The "forces" part of scene files: reading every field and its defaults, exact error messages, writing back,
// and the shipped scene of Drumwright's perturbed block.
#include "scene/scene_forces.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "scene/scene.h"
#include "support/scenes.h"

namespace cl {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test::source_dir;

// Ground, a kinematic "pusher" and a dynamic "block".
json forces_doc() {
  return json::parse(R"({
    "format": 1, "dt": 0.01,
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "pusher", "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "kinematic": true, "position": [3, 0.5, 0]},
      {"name": "block", "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "mass": 10, "position": [0, 0.5, 0]}
    ]
  })");
}

json force_with(json force, const std::string& key, const json& value) {
  force[key] = value;
  return force;
}

json block_push() { return json::parse(R"({"body": "block", "force": [20, 0, 0]})"); }

SceneLoadResult load_forces(const json& forces) {
  json doc = forces_doc();
  doc["forces"] = forces;
  return load_scene_json(doc, "mem.json");
}

}  // namespace

TEST(ForcesScene, ReadsEveryFieldAndDefaults) {
  const json random = json::parse(R"({"body": "block", "force": {"min": [0, -100, 0], "max": [0, -10, 0]},
      "point": {"min": [-0.5, 0.5, -0.5], "max": [0.5, 0.5, 0.5]}, "torque": [0, 1, 0], "start": 0.5, "end": 10.5,
      "on": 0.5, "off": 0.5, "resample": "step", "seed": 7})");
  const SceneLoadResult r = load_forces(json::array({block_push(), random, json::parse(R"({"body": "block", "torque": [0, 0, 3], "on": 1, "period": 4})")}));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.world.forces.size(), 3u);
  const AppliedForce& a = r.world.forces[0];
  EXPECT_EQ(a.body, 2);
  EXPECT_FALSE(a.force.random);
  EXPECT_EQ(a.force.lo, Vec3(20, 0, 0));
  EXPECT_EQ(a.point.lo, Vec3::Zero());
  EXPECT_EQ(a.torque.lo, Vec3::Zero());
  EXPECT_EQ(a.start, 0.0);
  EXPECT_EQ(a.end, kForever);
  EXPECT_EQ(a.period, 0.0);
  EXPECT_EQ(a.resample, ForceResample::Window);
  EXPECT_EQ(a.seed, 0u);
  const AppliedForce& b = r.world.forces[1];
  EXPECT_TRUE(b.force.random);
  EXPECT_EQ(b.force.lo, Vec3(0, -100, 0));
  EXPECT_EQ(b.force.hi, Vec3(0, -10, 0));
  EXPECT_TRUE(b.point.random);
  EXPECT_EQ(b.point.hi, Vec3(0.5, 0.5, 0.5));
  EXPECT_EQ(b.torque.lo, Vec3(0, 1, 0));
  EXPECT_EQ(b.start, 0.5);
  EXPECT_EQ(b.end, 10.5);
  EXPECT_EQ(b.on, 0.5);
  EXPECT_EQ(b.period, 1.0);
  EXPECT_EQ(b.resample, ForceResample::Step);
  EXPECT_EQ(b.seed, 7u);
  const AppliedForce& c = r.world.forces[2];
  EXPECT_EQ(c.force.lo, Vec3::Zero());
  EXPECT_EQ(c.torque.lo, Vec3(0, 0, 3));
  EXPECT_EQ(c.period, 4.0);
  EXPECT_EQ(c.on, 1.0);
  EXPECT_EQ(c.seed, 2u);  // the entry's index
}

TEST(ForcesScene, ErrorsNameThePointerAndTheExpectation) {
  const json p = block_push();
  const json range = json::parse(R"({"min": [10, 0, 0], "max": [100, 0, 0]})");
  struct Case {
    json forces;
    std::string message;
  };
  const std::vector<Case> cases = {
      {json::object(), "mem.json: /forces: expected an array of applied forces"},
      {json::array({3}), "mem.json: /forces/0: expected an object describing an applied force"},
      {json::array({force_with(p, "forse", 1)}), "mem.json: /forces/0/forse: unknown key (did you mean \"force\"?); an applied "
                                                 "force takes: body, force, point, torque, start, end, on, period, off, resample, seed"},
      {json::array({json{{"force", {1, 0, 0}}}}), "mem.json: /forces/0/body: missing required field: expected the name of a "
                                                  "dynamic body"},
      {json::array({force_with(p, "body", "blok")}), "mem.json: /forces/0/body: expected the name of a dynamic body, got \"blok\", "
                                                     "which names no body (did you mean \"block\"?)"},
      {json::array({force_with(p, "body", "ground")}), "mem.json: /forces/0/body: expected the name of a dynamic body, got "
                                                       "\"ground\", a fixed body (forces move only dynamic bodies"},
      {json::array({force_with(p, "body", "pusher")}), "got \"pusher\", a kinematic body"},
      {json::array({json{{"body", "block"}}}), "mem.json: /forces/0: missing required field: an applied force needs "
                                               "\"force\" (N) or \"torque\" (N m)"},
      {json::array({force_with(p, "force", {1, 0})}), "mem.json: /forces/0/force: expected an array of 3 numbers [x, y, z], got [1,0]"},
      {json::array({force_with(p, "force", "big")}), "mem.json: /forces/0/force: expected an array of 3 numbers [x, y, z] (N, world "
                                                     "frame) or a range {\"min\": [x, y, z], \"max\": [x, y, z]}, got \"big\""},
      {json::array({force_with(p, "force", json::parse(R"({"min": [100, 0, 0], "max": [10, 0, 0]})"))}),
       "mem.json: /forces/0/force/max/0: expected a number >= min's (100), got 10"},
      {json::array({force_with(p, "force", json::parse(R"({"min": [1, 0, 0]})"))}),
       "mem.json: /forces/0/force/max: missing required field: expected an array of 3 numbers"},
      {json::array({force_with(p, "force", json::parse(R"({"min": [1, 0, 0], "max": [2, 0, 0], "mode": 1})"))}),
       "mem.json: /forces/0/force/mode: unknown key; a range takes: min, max"},
      {json::array({force_with(p, "torque", {0, std::numeric_limits<double>::quiet_NaN(), 0})}), "mem.json: /forces/0/torque/1: expected a finite number, got NaN"},
      {json::array({json{{"body", "block"}, {"torque", {0, 1, 0}}, {"point", {1, 0, 0}}}}),
       "mem.json: /forces/0/point: unexpected without \"force\": the point is where the force acts"},
      {json::array({force_with(p, "start", -1)}), "mem.json: /forces/0/start: expected a time >= 0 s, got -1"},
      {json::array({force_with(force_with(p, "start", 2), "end", 1)}), "mem.json: /forces/0/end: expected a time after start (2 s), got 1"},
      {json::array({force_with(p, "end", 0)}), "mem.json: /forces/0/end: expected a time after start (0 s), got 0"},
      {json::array({force_with(p, "period", 1)}), "mem.json: /forces/0/on: missing required field: expected the time in s the force "
                                                  "acts in each period"},
      {json::array({force_with(p, "on", 1)}), "mem.json: /forces/0/period: missing required field: expected the period in s"},
      {json::array({force_with(force_with(force_with(p, "on", 1), "off", 1), "period", 2)}), "mem.json: /forces/0/off: expected either "
                                                                                             "\"period\" or \"off\", got both"},
      {json::array({force_with(force_with(p, "on", 1), "period", -2)}), "mem.json: /forces/0/period: expected a period >= on (1 s), got -2"},
      {json::array({force_with(force_with(p, "on", 1), "period", 0.5)}), "mem.json: /forces/0/period: expected a period >= on (1 s), got 0.5"},
      {json::array({force_with(force_with(p, "on", 0), "period", 1)}), "mem.json: /forces/0/on: expected a positive time in s, got 0"},
      {json::array({force_with(force_with(p, "on", 1), "off", -1)}), "mem.json: /forces/0/off: expected a time >= 0 s, got -1"},
      {json::array({force_with(p, "resample", "step")}), "mem.json: /forces/0/resample: unexpected for a force without a range"},
      {json::array({force_with(p, "seed", 3)}), "mem.json: /forces/0/seed: unexpected for a force without a range"},
      {json::array({force_with(force_with(p, "force", range), "resample", "steps")}),
       "mem.json: /forces/0/resample: expected how often a value is drawn (one of: step, window), got \"steps\" (did you "
       "mean \"step\"?)"},
      {json::array({force_with(force_with(p, "force", range), "seed", 1.5)}), "mem.json: /forces/0/seed: expected a whole number in [0, "
                                                                              "9007199254740991], got 1.5"},
      {json::array({force_with(force_with(p, "force", range), "seed", -1)}), "mem.json: /forces/0/seed: expected a whole number"},
  };
  for (const Case& c : cases) {
    const SceneLoadResult r = load_forces(c.forces);
    EXPECT_FALSE(r.ok()) << "expected an error for " << c.forces.dump();
    EXPECT_NE(r.error.find(c.message), std::string::npos) << "forces: " << c.forces.dump() << "\nerror: " << r.error
                                                          << "\nwanted: " << c.message;
  }
}

TEST(ForcesScene, WritesWhatItReadsAndLoadsItBack) {
  const json forces = json::parse(R"([
    {"body": "block", "force": [20, 0, 0]},
    {"body": "block", "force": {"min": [0, -100, 0], "max": [0, -10, 0]}, "point": {"min": [-0.5, 0.5, -0.5], "max": [0.5, 0.5, 0.5]},
     "end": 10, "on": 0.5, "period": 1, "resample": "window", "seed": 2010},
    {"body": "block", "torque": {"min": [0, -1, 0], "max": [0, 1, 0]}, "start": 1.25, "resample": "step", "seed": 3},
    {"body": "block", "force": [0, 0, 0]},
    {"body": "block", "force": [1, 2, 3], "point": [0.5, 0, 0], "torque": [0, 0, -1]}
  ])");
  const SceneLoadResult r = load_forces(forces);
  ASSERT_TRUE(r.ok()) << r.error;
  const json written = scene_to_json(r.world)["forces"];
  EXPECT_EQ(written, forces) << written.dump();
  // And the whole scene saves to a fixed point.
  const SceneLoadResult again = load_scene_json(scene_to_json(r.world), "saved");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_EQ(scene_to_json(again.world), scene_to_json(r.world));
}

// The viewer can make a pushed body kinematic (a script): its forces then do nothing, and are not saved (the file
// would not load).
TEST(ForcesScene, ForcesOnABodyMadeKinematicAreNotSaved) {
  SceneLoadResult r = load_forces(json::array({block_push(), json::parse(R"({"body": "block", "torque": [0, 1, 0]})")}));
  ASSERT_TRUE(r.ok()) << r.error;
  r.world.bodies[2].kind = BodyKind::Kinematic;
  r.world.bodies[2].set_mass_properties(0.0, 0.0);
  const json saved = scene_to_json(r.world);
  EXPECT_FALSE(saved.contains("forces")) << saved["forces"].dump();
  EXPECT_TRUE(load_scene_json(saved, "saved").ok());
}

TEST(ForcesScene, NoForcesKeyMeansNoForces) {
  const SceneLoadResult r = load_scene_json(forces_doc(), "mem.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.world.forces.empty());
  EXPECT_FALSE(scene_to_json(r.world).contains("forces"));
}

// scenes/pushed_block.json: Drumwright's block with applied forces (sect. V-B): a 10 kg cube of 1 m resting on a
// plane, a downward force of 10-100 N at a random point of its top face for 500 steps, then 500 steps without,
// ten times, at h = 1e-3 s.
TEST(ForcesScene, PushedBlockIsDrumwrightsExperiment) {
  const SceneLoadResult r = load_scene_file((source_dir() / "scenes" / "pushed_block.json").string());
  ASSERT_TRUE(r.ok()) << r.error;
  const World& w = r.world;
  EXPECT_EQ(w.settings.dt, 1e-3);
  const int block = w.find_body("block");
  ASSERT_GE(block, 0);
  EXPECT_NEAR(w.bodies[block].mass, 10.0, 1e-12);
  EXPECT_EQ(w.bodies[block].shape.half_extents, Vec3(0.5, 0.5, 0.5));
  ASSERT_EQ(w.forces.size(), 1u);
  const AppliedForce& f = w.forces[0];
  EXPECT_EQ(f.body, block);
  EXPECT_EQ(f.force.lo, Vec3(0, -100, 0));
  EXPECT_EQ(f.force.hi, Vec3(0, -10, 0));
  EXPECT_EQ(f.point.lo, Vec3(-0.5, 0.5, -0.5));
  EXPECT_EQ(f.point.hi, Vec3(0.5, 0.5, 0.5));
  EXPECT_EQ(f.resample, ForceResample::Window);
  // Ten windows of 500 steps over 10,000 steps.
  int active = 0;
  std::vector<uint64_t> windows;
  for (int64_t k = 0; k < 12000; ++k) {
    const ForceSample s = sample_applied_force(f, w.bodies[block], k, double(k) * w.settings.dt, w.settings.dt);
    active += s.active;
    if (s.active && (windows.empty() || windows.back() != s.sample)) windows.push_back(s.sample);
  }
  EXPECT_EQ(active, 5000);
  EXPECT_EQ(windows.size(), 10u);
}

}  // namespace cl
