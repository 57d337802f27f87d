// The "scripts" part of scene files: reading with exact error messages, defaults, placing the scripted
// body, writing back, and the two shipped scripted scenes (thesis S5 and S7).
#include "scene/scene_scripts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scene/scene.h"
#include "scripts/script.h"
#include "support/scenes.h"

namespace cl {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test::source_dir;

// Ground, a kinematic "pusher", a kinematic "arm" and a dynamic "ball".
json scripts_doc() {
  return json::parse(R"({
    "format": 1, "dt": 0.01,
    "bodies": [
      {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
      {"name": "pusher", "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "kinematic": true},
      {"name": "arm", "shape": {"type": "sphere", "radius": 0.5}, "kinematic": true, "position": [0, 3, 0]},
      {"name": "ball", "shape": {"type": "sphere", "radius": 0.5}, "density": 100, "position": [5, 0.5, 0]}
    ]
  })");
}

json pusher_script() { return json::parse(R"({"body": "pusher", "path": [[-4, 0.5, 0], [0, 0.5, 1], [4, 0.5, 0]], "speed": 2})"); }

struct Loaded {
  World world;
  std::vector<std::string> warnings;
  std::string error;
};

// Loads the scene without its "scripts" (with or without the scene loader knowing them), then reads the
// scripts: the part under test, independent of how scene.cpp calls it.
Loaded load_scripted(const json& doc, const std::string& label = "mem.json") {
  json bodies_only = doc;
  bodies_only.erase("scripts");
  SceneLoadResult base = load_scene_json(bodies_only, label);
  EXPECT_TRUE(base.ok()) << base.error;
  Loaded out;
  out.world = std::move(base.world);
  out.world.scripts.clear();
  scene_io::Reader reader(label);
  try {
    read_scripts(reader, doc, out.world);
  } catch (const scene_io::SceneError& e) {
    out.error = e.what();
  }
  out.warnings = reader.warnings();
  return out;
}

std::string scripts_error(const json& scripts) {
  json doc = scripts_doc();
  doc["scripts"] = scripts;
  Loaded l = load_scripted(doc);
  EXPECT_FALSE(l.error.empty()) << "expected an error for " << scripts.dump();
  return l.error;
}

json script_with(json script, const std::string& key, const json& value) {
  script[key] = value;
  return script;
}

}  // namespace

TEST(ScriptScene, ReadsEveryFieldAndDefaults) {
  json doc = scripts_doc();
  json full = json::parse(
      R"({"body": "arm", "path": [[0, 3, 0], [2, 4, 0], [0, 5, 2]], "speed": 1.5, "timing": "ease", "loop": true, "start_time": 0.75})");
  doc["scripts"] = json::array({pusher_script(), full});
  const Loaded l = load_scripted(doc);
  ASSERT_TRUE(l.error.empty()) << l.error;
  ASSERT_EQ(l.world.scripts.size(), 2u);
  const Script& a = l.world.scripts[0];
  EXPECT_EQ(a.body, 1);
  ASSERT_EQ(a.points.size(), 3u);
  EXPECT_EQ(a.points[1], Vec3(0, 0.5, 1));
  EXPECT_EQ(a.speed, 2.0);
  EXPECT_EQ(a.timing, ScriptTiming::Constant);
  EXPECT_FALSE(a.loop);
  EXPECT_EQ(a.start_time, 0.0);
  const Script& b = l.world.scripts[1];
  EXPECT_EQ(b.body, 2);
  EXPECT_EQ(b.speed, 1.5);
  EXPECT_EQ(b.timing, ScriptTiming::Ease);
  EXPECT_TRUE(b.loop);
  EXPECT_EQ(b.start_time, 0.75);
  // The arm's position equals its first point: no warning. The pusher had none given: none either.
  EXPECT_TRUE(l.warnings.empty()) << l.warnings.front();
}

TEST(ScriptScene, ScriptedBodyStartsOnItsPathWithTheFirstStepVelocity) {
  json doc = scripts_doc();
  doc["bodies"][1]["position"] = {7, 7, 7};
  doc["bodies"][1]["linear_velocity"] = {1, 0, 0};
  doc["bodies"][1]["angular_velocity"] = {0, 2, 0};
  doc["bodies"][1]["orientation"] = {0, 0, 1, 0};
  doc["scripts"] = json::array({pusher_script()});
  const Loaded l = load_scripted(doc, "s.json");
  ASSERT_TRUE(l.error.empty()) << l.error;
  const Body& b = l.world.bodies[1];
  EXPECT_EQ(b.position, Vec3(-4, 0.5, 0));
  const double h = 0.01;
  EXPECT_LE((b.linear_velocity - (sample_script(l.world.scripts[0], h).position - b.position) / h).norm(), 1e-12);
  EXPECT_NEAR(b.linear_velocity.norm(), 2.0, 1e-3);
  EXPECT_EQ(b.angular_velocity, Vec3::Zero());
  EXPECT_NEAR(std::abs(b.orientation.y()), 1.0, 1e-12);  // orientation kept
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_EQ(l.warnings[0], "s.json: /bodies/1/position: replaced by the first point of the path of /scripts/0, "
                           "[-4,0.5,0] (a scripted body starts where its path starts)");
}

TEST(ScriptScene, NoScriptsKeyMeansNoScripts) {
  const Loaded l = load_scripted(scripts_doc());
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(l.world.scripts.empty());
  EXPECT_EQ(scripts_json(l.world), json::array());
}

TEST(ScriptScene, ErrorsNameThePointerAndTheExpectation) {
  const json p = pusher_script();
  struct Case {
    json scripts;
    std::string message;
  };
  const std::vector<Case> cases = {
      {json::object(), "mem.json: /scripts: expected an array of scripts"},
      {json::array({3}), "mem.json: /scripts/0: expected an object describing a script"},
      {json::array({script_with(p, "sped", 2)}), "mem.json: /scripts/0/sped: unknown key (did you mean \"speed\"?); a script takes: "
                                                 "body, path, speed, timing, loop, start_time"},
      {json::array({json{{"path", p["path"]}, {"speed", 1}}}), "mem.json: /scripts/0/body: missing required field: expected "
                                                               "the name of a kinematic body"},
      {json::array({script_with(p, "body", 4)}), "mem.json: /scripts/0/body: expected the name of a kinematic body, got 4"},
      {json::array({script_with(p, "body", "pushr")}), "mem.json: /scripts/0/body: expected the name of a kinematic body, got "
                                                       "\"pushr\", which names no body (did you mean \"pusher\"?); kinematic "
                                                       "bodies: pusher, arm"},
      {json::array({script_with(p, "body", "ball")}), "mem.json: /scripts/0/body: expected the name of a kinematic body, got "
                                                      "\"ball\", a dynamic body (a scripted body needs \"kinematic\": true at "
                                                      "/bodies/3)"},
      {json::array({script_with(p, "body", "ground")}), "got \"ground\", a fixed body"},
      {json::array({p, script_with(p, "speed", 1)}), "mem.json: /scripts/1/body: expected a body that no other script drives, got "
                                                     "\"pusher\" (already driven by /scripts/0)"},
      {json::array({script_with(p, "path", json::array({{0, 0, 0}}))}), "mem.json: /scripts/0/path: expected an array of at least 2 "
                                                                        "points [[x, y, z], ...], got [[0,0,0]]"},
      {json::array({script_with(p, "path", "line")}), "/scripts/0/path: expected an array of at least 2 points"},
      {json::array({script_with(script_with(p, "loop", true), "path", json::array({{0, 0, 0}, {1, 0, 0}}))}),
       "mem.json: /scripts/0/path: expected an array of at least 3 points [[x, y, z], ...] (a looping path), got"},
      {json::array({script_with(p, "path", json::array({{0, 0, 0}, {1, 0}}))}), "mem.json: /scripts/0/path/1: expected an array of "
                                                                                "3 numbers [x, y, z], got [1,0]"},
      {json::array({script_with(p, "path", json::array({{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}))}),
       "mem.json: /scripts/0/path/2: expected a point distinct from the previous one (consecutive path points must "
       "differ), got [1,0,0]"},
      {json::array({script_with(script_with(p, "loop", true), "path", json::array({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}}))}),
       "mem.json: /scripts/0/path/3: expected a point distinct from the first one (a looping path closes itself"},
      {json::array({script_with(p, "path", json::array({{0, 0, 0}, {2, 0, 0}, {1, 0, 0}}))}),
       "mem.json: /scripts/0/path/1: expected a point where the path does not turn straight back"},
      {json::array({script_with(p, "speed", 0)}), "mem.json: /scripts/0/speed: expected a positive number, got 0"},
      {json::array({script_with(p, "speed", "fast")}), "mem.json: /scripts/0/speed: expected a positive number, got \"fast\""},
      {json::array({json{{"body", "pusher"}, {"path", p["path"]}}}), "mem.json: /scripts/0/speed: missing required field: "
                                                                     "expected a positive speed in m/s"},
      {json::array({script_with(p, "timing", "eas")}), "mem.json: /scripts/0/timing: expected a timing (one of: constant, ease), "
                                                       "got \"eas\" (did you mean \"ease\"?)"},
      {json::array({script_with(p, "timing", 1)}), "mem.json: /scripts/0/timing: expected a timing (one of: constant, ease), got 1"},
      {json::array({script_with(p, "loop", "yes")}), "mem.json: /scripts/0/loop: expected true or false, got \"yes\""},
      {json::array({script_with(p, "start_time", -1)}), "mem.json: /scripts/0/start_time: expected a time >= 0 s, got -1"},
      {json::array({script_with(p, "start_time", nullptr)}), "mem.json: /scripts/0/start_time: expected a time >= 0 s, got null"},
  };
  for (const Case& c : cases) {
    const std::string error = scripts_error(c.scripts);
    EXPECT_NE(error.find(c.message), std::string::npos) << "scripts: " << c.scripts.dump() << "\nerror: " << error
                                                        << "\nwanted: " << c.message;
  }
}

TEST(ScriptScene, WritesWhatItReads) {
  json doc = scripts_doc();
  doc["scripts"] = json::array(
      {pusher_script(),
       json::parse(R"({"body": "arm", "path": [[0, 3, 0], [2, 4, 0.125], [0, 5, 2]], "speed": 1.5, "timing": "ease", "loop": true, "start_time": 0.75})")});
  const Loaded l = load_scripted(doc);
  ASSERT_TRUE(l.error.empty()) << l.error;
  const json written = scripts_json(l.world);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0], json::parse(R"({"body": "pusher", "path": [[-4, 0.5, 0], [0, 0.5, 1], [4, 0.5, 0]], "speed": 2.0,
                                        "timing": "constant", "loop": false, "start_time": 0.0})"));
  json again = scripts_doc();
  again["scripts"] = written;
  const Loaded l2 = load_scripted(again);
  ASSERT_TRUE(l2.error.empty()) << l2.error;
  EXPECT_EQ(scripts_json(l2.world), written);
  // The ordered form keeps the documented key order.
  const nlohmann::ordered_json ordered = scripts_json_as<nlohmann::ordered_json>(l.world);
  std::vector<std::string> keys;
  for (const auto& [k, v] : ordered[1].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"body", "path", "speed", "timing", "loop", "start_time"}));
}

// Needs scene.cpp to read and write "scripts" (the lead wires it).
TEST(ScriptScene, SceneFilesCarryScripts) {
  json doc = scripts_doc();
  doc["scripts"] = json::array({pusher_script()});
  SceneLoadResult r = load_scene_json(doc, "mem.json");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.world.scripts.size(), 1u);
  EXPECT_EQ(r.world.bodies[1].position, Vec3(-4, 0.5, 0));
  const json saved = scene_to_json(r.world);
  ASSERT_TRUE(saved.contains("scripts"));
  EXPECT_EQ(saved["scripts"], scripts_json(r.world));
  SceneLoadResult again = load_scene_json(saved, "saved.json");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_EQ(scripts_json(again.world), scripts_json(r.world));
  EXPECT_TRUE(again.warnings.empty());
  // A bad script is reported through the public loader too.
  doc["scripts"][0]["speed"] = -1;
  EXPECT_NE(load_scene_json(doc, "mem.json").error.find("/scripts/0/speed: expected a positive number"), std::string::npos);
}

// --- the shipped scripted scenes --------------------------------------------------------------------------

namespace {
Loaded load_shipped_scripted(const std::string& name) {
  const fs::path file = source_dir() / "scenes" / name;
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  std::stringstream text;
  text << in.rdbuf();
  Loaded l = load_scripted(json::parse(text.str()), file.string());
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(l.warnings.empty()) << l.warnings.front();
  return l;
}

// Steps with the scripts applied at the start of each step (idempotent once World::step does it too).
void run_scripted(World& w, int steps) {
  for (int k = 0; k < steps; ++k) {
    apply_scripts(w.scripts, w.bodies, w.time(), w.settings.dt);
    ASSERT_TRUE(w.step().ok) << k;
  }
}
}  // namespace

TEST(ScriptScene, ShippedBallPushPushesTheGrid) {
  Loaded l = load_shipped_scripted("scripted_ball_push.json");
  World& w = l.world;
  ASSERT_EQ(w.scripts.size(), 1u);
  EXPECT_EQ(w.settings.dt, 0.01);
  std::vector<Vec3> start;
  int balls = 0;
  for (const Body& b : w.bodies) {
    start.push_back(b.position);
    if (b.shape.type == ShapeType::Sphere) {
      ++balls;
      EXPECT_EQ(b.shape.radius, 0.5);
      EXPECT_EQ(b.density, 10.0);
    }
  }
  EXPECT_EQ(balls, 125);
  EXPECT_EQ(w.bodies[size_t(w.scripts[0].body)].kind, BodyKind::Kinematic);
  const auto displaced = [&](double distance) {
    int n = 0;
    for (size_t i = 0; i < w.bodies.size(); ++i) n += w.bodies[i].is_dynamic() && (w.bodies[i].position - start[i]).norm() > distance;
    return n;
  };
  // The grid holds until the pusher arrives (about 2.7 s), then the pusher breaks into it.
  run_scripted(w, 200);
  EXPECT_EQ(displaced(0.05), 0);
  const Script& s = w.scripts[0];
  run_scripted(w, int(std::ceil((s.start_time + script_duration(s)) / w.settings.dt)) - 200);
  EXPECT_LE((w.bodies[size_t(s.body)].position - s.points.back()).norm(), 1e-9);
  EXPECT_GE(displaced(0.5), 10) << "the pusher should have displaced part of the grid";
}

TEST(ScriptScene, ShippedWallHitKnocksBricksOut) {
  Loaded l = load_shipped_scripted("scripted_wall_hit.json");
  World& w = l.world;
  ASSERT_EQ(w.scripts.size(), 1u);
  int bricks = 0;
  for (const Body& b : w.bodies) bricks += b.is_dynamic() ? 1 : 0;
  EXPECT_EQ(bricks, 200);
  std::vector<Vec3> start;
  for (const Body& b : w.bodies) start.push_back(b.position);
  // Until the ball has passed through the wall (the middle of its arc) and half a second more.
  const Script& s = w.scripts[0];
  run_scripted(w, int(std::ceil((s.start_time + 0.5 * script_duration(s) + 0.5) / w.settings.dt)));
  int knocked = 0, far_moved = 0;
  for (size_t i = 0; i < w.bodies.size(); ++i) {
    if (!w.bodies[i].is_dynamic()) continue;
    const double moved = (w.bodies[i].position - start[i]).norm();
    if (moved > 0.5) ++knocked;
    if (start[i].x() < -6 && moved > 0.5) ++far_moved;
  }
  EXPECT_GE(knocked, 10) << "the swing should break through the wall";
  EXPECT_EQ(far_moved, 0) << "the far end of the wall should stand";
}

}  // namespace cl
