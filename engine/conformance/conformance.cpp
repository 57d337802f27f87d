#include "conformance/conformance.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>

#include "conformance/scaling.h"
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

CaseRun::CaseRun(World& world, const Scale& scale, double cpu_budget)
    : world_(world), scale_(scale), budget_(cpu_budget) {}

void CaseRun::until(double t, const std::function<void(const World&)>& each) {
  const double h = world_.settings.dt;
  const double end = t * scale_.time();
  budget_.raise_to(kRealTimeBudget * end);  // as long as the simulated time it covers (conformance.h)
  while (world_.time() < end - 0.5 * h) {
    const StepResult step = world_.step();
    if (!step.ok) throw std::runtime_error("step " + std::to_string(world_.step_count()) + ": " + step.error);
    if (each) each(world_);
    if (budget_.exceeded()) {
      char buf[80];
      std::snprintf(buf, sizeof buf, ": at %.3g s of the %.3g s to run (step %d)", world_.time(), end,
                    int(world_.step_count()));
      throw std::runtime_error("no result within " + budget_.describe() + buf);
    }
  }
}

const Case* find_case(std::string_view name) {
  for (const Case& c : cases())
    if (c.name == name) return &c;
  return nullptr;
}

double exact_at(const Case& c, const Condition& condition) {
  return c.exact * std::pow(scale_of(c.scale, condition).length, c.scale.power);
}

double tolerance_at(const Case& c, const Condition& condition) {
  return c.tolerance(condition, scale_of(c.scale, condition));
}

double CellResult::badness() const {
  if (!std::isfinite(value) || violated) return std::numeric_limits<double>::infinity();
  return std::abs(value - exact) / tolerance;
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

// The case's scene at the condition: read, scaled (scaling.h) and loaded.
SceneLoadResult load_scaled(const std::string& path, const Scale& scale, double dt) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return load_scene_json(scaled_scene(doc, scale, dt), path);
}

}  // namespace

CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir, const Condition& condition,
                    const ParamOverrides& params, double cpu_budget) {
  CellResult cell;
  cell.case_name = c.name;
  cell.solver = solver;
  cell.condition = condition;
  cell.exact = exact_at(c, condition);
  cell.tolerance = tolerance_at(c, condition);
  const Scale scale = scale_of(c.scale, condition);
  const double start = thread_cpu_seconds();
  // A failure that stops the run (the scene, the solver, a step, an exception) is never a method's limit.
  bool ran = false;
  Reading reading;
  SceneLoadResult loaded;  // outside the run, so that a run that stops still counts its steps
  try {
    loaded = load_scaled(scene_dir + "/" + c.scene, scale, condition.dt);
    if (!loaded.ok()) throw std::runtime_error(loaded.error);
    World& world = loaded.world;
    std::string error;
    if (!world.set_solver(solver, &error)) throw std::runtime_error(error);
    for (const auto& [name, value] : params)
      if (!world.solver().params().set_from_string(name, value, &error))
        throw std::runtime_error(name + ": " + error);
    CaseRun run(world, scale, cpu_budget);
    reading = c.measure(run);
    ran = true;
  } catch (const std::exception& e) {
    cell.message = e.what();
  }
  cell.steps = int(loaded.world.step_count());
  cell.cpu_seconds = thread_cpu_seconds() - start;  // a point runs on one thread (its world steps on one)
  if (!ran) return cell;

  cell.value = reading.value;
  if (!std::isfinite(reading.value)) {
    cell.message = "no figure: the measurement is not finite";
    if (!reading.violation.empty()) cell.message += "; " + reading.violation;
    return cell;
  }
  const double off = reading.value - cell.exact;
  const bool within = std::abs(off) <= cell.tolerance;
  if (within && reading.violation.empty()) {
    cell.verdict = Verdict::Pass;
    return cell;
  }
  if (!within)
    cell.message = "off by " + with_unit(off, c.unit) + " (tolerance " + with_unit(cell.tolerance, c.unit) + ")";
  if (!reading.violation.empty()) {
    cell.message += (cell.message.empty() ? "" : "; ") + reading.violation;
    cell.violated = true;
  }
  for (const MethodLimit& limit : c.limits) {
    if (limit.solver == solver) {
      cell.verdict = Verdict::MethodLimit;
      cell.message += "; the method's limit: " + limit.reason;
    }
  }
  return cell;
}

CellResult run_case(const Case& c, std::string_view solver, const std::string& scene_dir) {
  return run_case(c, solver, scene_dir, nominal(c.scale));
}

}  // namespace cl::conformance
