// Imported models in motion under every method: a pendulum's period and a motor's spin-up and speed against their
// closed forms, from both formats; and each shipped model read from its URDF and from its MJCF moves alike.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "scene/model_include.h"
#include "scene/scene.h"
#include "solvers/registry.h"

namespace cl {
namespace {

using nlohmann::json;

const std::string kMotionSceneLabel = std::string(CONTACTLAB_SOURCE_DIR) + "/tests/data/models/scene.json";

bool has(const std::string& file) {
  return file.size() > 5 && file.substr(file.size() - 5) == ".urdf" ? has_urdf_import() : has_mjcf_import();
}

World load_model(const json& model, double dt, const std::string& solver) {
  json doc = {{"format", 1}, {"dt", dt},
              {"bodies", json::array({{{"name", "ground"}, {"shape", {{"type", "plane"}, {"normal", {0, 1, 0}}}},
                                       {"fixed", true}}})},
              {"models", json::array({model})}};
  SceneLoadResult r = load_scene_json(doc, kMotionSceneLabel);
  EXPECT_TRUE(r.ok()) << r.error;
  std::string why;
  EXPECT_TRUE(r.world.set_solver(solver, &why)) << why;
  return std::move(r.world);
}

// T = 2 pi sqrt(I_pivot / (m g l)) (1 + theta0^2 / 16): a ball of radius r on an arm of l, I_pivot = 2/5 m r^2 + m l^2.
TEST(ModelIncludeMotion, PendulumPeriodUnderEveryMethod) {
  if (!has_urdf_import() && !has_mjcf_import()) GTEST_SKIP() << "no URDF or MJCF import in this build";
  const double r = 0.1, l = 1, g = 9.81, theta0 = 0.1;
  const double period = 2 * std::numbers::pi * std::sqrt((0.4 * r * r + l * l) / (g * l)) * (1 + theta0 * theta0 / 16);
  for (const std::string file : {"pendulum.xml", "pendulum.urdf"}) {
    if (!has(file)) continue;
    for (const SolverInfo& s : solver_registry()) {
      SCOPED_TRACE(file + " under " + s.name);
      // The whole model turned by theta0 about the hinge's direction (the scene's z): the pendulum starts there.
      const json model = {{"file", file}, {"attach_to", "ground"},
                          {"orientation", {std::cos(theta0 / 2), 0, 0, std::sin(theta0 / 2)}}};
      World w = load_model(model, 0.002, s.name);
      const int bob = w.find_body("pendulum/bob");
      ASSERT_GE(bob, 0);
      const Vec3 pivot = Quat(Eigen::AngleAxisd(theta0, Vec3::UnitZ())) * Vec3(0, 2, 0);
      // Zero crossings of the angle, each found between two steps by linear interpolation.
      std::vector<double> crossings;
      double last = theta0;
      while (w.time() < 3.2 * period && crossings.size() < 6) {
        { const StepResult step = w.step(); ASSERT_TRUE(step.ok) << step.error; }
        const Vec3 d = w.bodies[size_t(bob)].position - pivot;
        const double angle = std::atan2(d.x(), -d.y());
        if ((angle < 0) != (last < 0)) crossings.push_back(w.time() - w.settings.dt * angle / (angle - last));
        last = angle;
      }
      ASSERT_GE(crossings.size(), 5u);
      const double measured = 2 * (crossings.back() - crossings.front()) / double(crossings.size() - 1);
      // Measured at dt 2 ms: 2.011329-2.011331 s against 2.011331 s under the four methods.
      EXPECT_NEAR(measured, period, 1e-4 * period) << "closed form " << period << " s";
    }
  }
}

// A motor of at most tau on a rotor of inertia I about a vertical axis (no gravity torque): omega = tau t / I
// until it reaches the speed, then the speed. Box rotor 0.6 x 0.1 x 0.04 m, 1.2 kg: I = m (0.6^2 + 0.1^2) / 12.
TEST(ModelIncludeMotion, MotorSpinUpAndSpeedUnderEveryMethod) {
  if (!has_urdf_import() && !has_mjcf_import()) GTEST_SKIP() << "no URDF or MJCF import in this build";
  const double tau = 2, inertia = 1.2 * (0.36 + 0.01) / 12, speed = 3;
  const double reach = speed * inertia / tau;  // 0.0555 s
  for (const std::string file : {"rotor.xml", "rotor.urdf"}) {
    if (!has(file)) continue;
    for (const SolverInfo& s : solver_registry()) {
      SCOPED_TRACE(file + " under " + s.name);
      json model = {{"file", file}, {"attach_to", "ground"}};
      if (file == "rotor.xml") model["controls"] = {{"drive", speed}};
      else model["motors"] = {{"spin", {{"speed", speed}}}};
      World w = load_model(model, 0.001, s.name);
      const int rotor = w.find_body("rotor/rotor");
      ASSERT_GE(rotor, 0);
      while (w.time() < reach / 2 - 1e-9) { const StepResult step = w.step(); ASSERT_TRUE(step.ok) << step.error; }
      EXPECT_NEAR(w.bodies[size_t(rotor)].angular_velocity.y(), tau * w.time() / inertia, 0.02 * speed / 2);
      while (w.time() < 1.0) { const StepResult step = w.step(); ASSERT_TRUE(step.ok) << step.error; }
      // Measured at dt 1 ms: 3.000000 under lcp, volume and pid-penalty; 3.027 under implicit-penalty, whose motor
      // settles 0.9% above its speed.
      EXPECT_NEAR(w.bodies[size_t(rotor)].angular_velocity.y(), speed, 0.01 * speed);
      EXPECT_NEAR(w.bodies[size_t(rotor)].angular_velocity.x(), 0, 1e-3);
    }
  }
}

// Each shipped model's URDF and MJCF scene: the same bodies (names, shapes, masses, inertias, poses) and joints,
// and after 2 s under lcp the same poses.
TEST(ModelIncludeMotion, BothFormatsGiveTheSameModelAndMotion) {
  if (!has_urdf_import() || !has_mjcf_import()) GTEST_SKIP() << "no URDF or MJCF import in this build";
  for (const std::string model : {"gripper", "walker", "arm"}) {
    SCOPED_TRACE(model);
    const std::string dir = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/models/";
    SceneLoadResult a = load_scene_file(dir + model + "_mjcf.json"), b = load_scene_file(dir + model + "_urdf.json");
    ASSERT_TRUE(a.ok()) << a.error;
    ASSERT_TRUE(b.ok()) << b.error;
    ASSERT_EQ(a.world.bodies.size(), b.world.bodies.size());
    ASSERT_EQ(a.world.joints.size(), b.world.joints.size());
    for (size_t i = 0; i < a.world.bodies.size(); ++i) {
      const Body &x = a.world.bodies[i], &y = b.world.bodies[i];
      ASSERT_EQ(x.name, y.name);
      EXPECT_EQ(x.kind, y.kind) << x.name;
      EXPECT_NEAR(x.mass, y.mass, 1e-9 * x.mass) << x.name;
      EXPECT_LT((x.inertia_body - y.inertia_body).norm(), 1e-9 * x.inertia_body.norm() + 1e-12) << x.name;
      EXPECT_LT((x.position - y.position).norm(), 1e-12) << x.name;
      EXPECT_LT((x.orientation.coeffs() - y.orientation.coeffs()).norm(), 1e-12) << x.name;
      EXPECT_EQ(a.world.materials[size_t(x.material)].friction, b.world.materials[size_t(y.material)].friction) << x.name;
    }
    for (size_t j = 0; j < a.world.joints.size(); ++j) {
      const Joint &x = a.world.joints[j], &y = b.world.joints[j];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.type, y.type) << x.name;
      EXPECT_EQ(x.motor.enabled, y.motor.enabled) << x.name;
      EXPECT_EQ(x.servo.enabled, y.servo.enabled) << x.name;
      EXPECT_EQ(x.servo.stiffness, y.servo.stiffness) << x.name;
      EXPECT_EQ(x.servo.damping, y.servo.damping) << x.name;
      EXPECT_EQ(x.limit.enabled, y.limit.enabled) << x.name;
      EXPECT_NEAR(x.limit.upper, y.limit.upper, 1e-9) << x.name;
    }
    for (int k = 0; k < int(2.0 / a.world.settings.dt); ++k) {
      ASSERT_TRUE(a.world.step().ok);
      ASSERT_TRUE(b.world.step().ok);
    }
    for (size_t i = 0; i < a.world.bodies.size(); ++i)
      EXPECT_LT((a.world.bodies[i].position - b.world.bodies[i].position).norm(), 1e-6) << a.world.bodies[i].name;
  }
}

// The same model from both formats moves alike under every other method too, 1 s of each shipped model's scene: the
// two files give the same bodies and joints, so a method that told them apart would be reading one of them wrong.
TEST(ModelIncludeMotion, BothFormatsMoveAlikeUnderEveryMethod) {
  if (!has_urdf_import() || !has_mjcf_import()) GTEST_SKIP() << "no URDF or MJCF import in this build";
  const std::string dir = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/models/";
  for (const std::string model : {"gripper", "walker", "arm"})
    for (const SolverInfo& info : solver_registry()) {
      const std::string method = info.name;
      if (method == "lcp") continue;  // the test above, for 2 s
      SCOPED_TRACE(model + " under " + method);
      SceneLoadResult a = load_scene_file(dir + model + "_mjcf.json"), b = load_scene_file(dir + model + "_urdf.json");
      ASSERT_TRUE(a.ok()) << a.error;
      ASSERT_TRUE(b.ok()) << b.error;
      ASSERT_EQ(a.world.bodies.size(), b.world.bodies.size());
      std::string error;
      ASSERT_TRUE(a.world.set_solver(method, &error)) << error;
      ASSERT_TRUE(b.world.set_solver(method, &error)) << error;
      for (int k = 0; k < int(1.0 / a.world.settings.dt); ++k) {
        ASSERT_TRUE(a.world.step().ok);
        ASSERT_TRUE(b.world.step().ok);
      }
      for (size_t i = 0; i < a.world.bodies.size(); ++i)
        EXPECT_LT((a.world.bodies[i].position - b.world.bodies[i].position).norm(), 1e-6) << a.world.bodies[i].name;
    }
}

}  // namespace
}  // namespace cl
