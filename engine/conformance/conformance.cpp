#include "conformance/conformance.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "scene/scene.h"

namespace cl::conformance {

const Body& CaseRun::body(std::string_view name) const {
  const int i = world_.find_body(name);
  if (i < 0) throw std::runtime_error("the scene has no body '" + std::string(name) + "'");
  return world_.bodies[size_t(i)];
}

const Joint& CaseRun::joint(std::string_view name) const {
  for (const Joint& j : world_.joints)
    if (j.name == name) return j;
  throw std::runtime_error("the scene has no joint '" + std::string(name) + "'");
}

void CaseRun::until(double t, const std::function<void(const World&)>& each) {
  const double h = world_.settings.dt;
  while (world_.time() < t - 0.5 * h) {
    const StepResult step = world_.step();
    if (!step.ok) throw std::runtime_error("step " + std::to_string(world_.step_count()) + ": " + step.error);
    if (each) each(world_);
  }
}

const Case* find_case(std::string_view name) {
  for (const Case& c : cases())
    if (c.name == name) return &c;
  return nullptr;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "FAIL";
    case Verdict::MethodLimit: return "method";
  }
  return "?";
}

namespace {

std::string with_unit(double x, const std::string& unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return unit.empty() ? std::string(buf) : std::string(buf) + " " + unit;
}

}  // namespace

CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir,
                    std::span<const std::pair<std::string, std::string>> params) {
  CellResult cell;
  cell.case_name = c.name;
  cell.solver = solver;
  const auto start = std::chrono::steady_clock::now();
  // A failure that stops the run (the scene, the solver, a step, an exception) is never a method's limit.
  bool ran = false;
  Reading reading;
  try {
    const std::string path = scene_dir + "/" + c.scene;
    SceneLoadResult loaded = load_scene_file(path);
    if (!loaded.ok()) throw std::runtime_error(loaded.error);
    World& world = loaded.world;
    std::string error;
    if (!world.set_solver(solver, &error)) throw std::runtime_error(error);
    for (const auto& [name, value] : params)
      if (!world.solver().params().set_from_string(name, value, &error)) throw std::runtime_error(name + ": " + error);
    CaseRun run(world);
    reading = c.measure(run);
    ran = true;
  } catch (const std::exception& e) {
    cell.message = e.what();
  }
  cell.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!ran) return cell;

  cell.value = reading.value;
  if (!std::isfinite(reading.value)) {
    cell.message = "no figure: the measurement is not finite";
    if (!reading.violation.empty()) cell.message += "; " + reading.violation;
    return cell;
  }
  const double off = reading.value - c.exact;
  const bool within = std::abs(off) <= c.tolerance;
  if (within && reading.violation.empty()) {
    cell.verdict = Verdict::Pass;
    return cell;
  }
  if (!within)
    cell.message = "off by " + with_unit(off, c.unit) + " (tolerance " + with_unit(c.tolerance, c.unit) + ")";
  if (!reading.violation.empty()) cell.message += (cell.message.empty() ? "" : "; ") + reading.violation;
  for (const MethodLimit& limit : c.limits) {
    if (limit.solver == solver) {
      cell.verdict = Verdict::MethodLimit;
      cell.message += "; the method's limit: " + limit.reason;
    }
  }
  return cell;
}

}  // namespace cl::conformance
