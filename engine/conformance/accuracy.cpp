#include "conformance/accuracy.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "conformance/conformance.h"
#include "scene/scene.h"
#include "solvers/registry.h"

namespace cl::conformance {

namespace {

constexpr int kReferenceRefinement = 16;

// The world of one run: the scene loaded, the method set with the sweep's parameters, the step and the
// iterations applied. Throws std::runtime_error on a failure.
World prepare(const std::string& path, const std::string& solver, double dt, int iterations,
              const SweepSettings& settings) {
  SceneLoadResult loaded = load_scene_file(path);
  if (!loaded.ok()) throw std::runtime_error(loaded.error);
  World world = std::move(loaded.world);
  std::string error;
  if (!world.set_solver(solver, &error)) throw std::runtime_error(error);
  world.settings.dt = dt;
  ParamSet& params = world.solver().params();
  for (const auto& [name, text] : settings.params)
    if (params.find(name) && !params.set_from_string(name, text, &error)) throw std::runtime_error(error);
  if (iterations > 0 && !params.set_from_string("iterations", std::to_string(iterations), &error))
    throw std::runtime_error(error);
  return world;
}

void run_for(World& world, double duration) {
  const double h = world.settings.dt;
  while (world.time() < duration - 0.5 * h) {
    const StepResult step = world.step();
    if (!step.ok) throw std::runtime_error("step " + std::to_string(world.step_count()) + ": " + step.error);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string sweep_scene_path(const SweepSettings& settings) {
  const Case* c = find_case(settings.target);
  return c ? settings.scene_dir + "/" + c->scene : settings.target;
}

std::vector<SweepPoint> run_sweep(const SweepSettings& settings, std::string* error) {
  std::vector<SweepPoint> out;
  const Case* c = find_case(settings.target);
  const std::string path = sweep_scene_path(settings);
  if (!c) {
    SceneLoadResult probe = load_scene_file(path);
    if (!probe.ok()) {
      if (error) *error = settings.target + " is no conformance case, and does not load as a scene: " + probe.error;
      return out;
    }
  }
  std::vector<std::string> solvers = settings.solvers;
  if (solvers.empty())
    for (const SolverInfo& info : solver_registry()) solvers.push_back(info.name);
  for (const std::string& solver : solvers) {
    const SolverInfo* info = find_solver(solver);
    const bool has_iterations = info && ParamSet(info->params).find("iterations") != nullptr;
    std::vector<int> counts = has_iterations && !settings.iterations.empty() ? settings.iterations : std::vector<int>{-1};
    for (const double dt : settings.dts) {
      // The scene's reference: this method at dt / 16 (its default iterations), run once per dt.
      std::vector<Vec3> reference;
      std::string reference_error;
      if (!c) {
        try {
          World fine = prepare(path, solver, dt / kReferenceRefinement, -1, settings);
          run_for(fine, settings.duration);
          for (const Body& b : fine.bodies)
            if (b.is_dynamic()) reference.push_back(b.position);
        } catch (const std::exception& e) {
          reference_error = std::string("the reference run at dt/16 failed: ") + e.what();
        }
      }
      for (const int iterations : counts) {
        SweepPoint p;
        p.solver = solver;
        p.dt = dt;
        p.iterations = iterations;
        p.unit = c ? c->unit : "m";
        p.error = std::nan("");
        if (c) {
          // The case's own run (conformance/conformance.cpp): its scene at its nominal size and mass, the step dt,
          // the sweep's parameters, its measure against its closed form.
          Condition condition = nominal(c->scale);
          condition.dt = dt;
          ParamOverrides params;
          for (const auto& [name, text] : settings.params)
            if (info && ParamSet(info->params).find(name)) params.emplace_back(name, text);
          if (iterations > 0) params.emplace_back("iterations", std::to_string(iterations));
          const auto t0 = std::chrono::steady_clock::now();
          const CellResult cell = run_case(*c, solver, settings.scene_dir, condition, params, 0.0);
          p.wall_seconds = seconds_since(t0);
          p.cpu_seconds = cell.cpu_seconds;
          p.steps = cell.steps;
          if (std::isfinite(cell.value)) p.error = std::abs(cell.value - cell.exact);
          if (!std::isfinite(cell.value) || cell.violated) p.message = cell.message;
          out.push_back(p);
          continue;
        }
        try {
          if (!reference_error.empty()) throw std::runtime_error(reference_error);
          World world = prepare(path, solver, dt, iterations, settings);
          const auto t0 = std::chrono::steady_clock::now();
          const std::clock_t c0 = std::clock();
          run_for(world, settings.duration);
          double sum = 0.0;
          size_t k = 0;
          for (const Body& b : world.bodies)
            if (b.is_dynamic()) sum += (b.position - reference[k++]).squaredNorm();
          p.error = k > 0 ? std::sqrt(sum / double(k)) : 0.0;
          p.wall_seconds = seconds_since(t0);
          p.cpu_seconds = double(std::clock() - c0) / CLOCKS_PER_SEC;
          p.steps = int(world.step_count());
        } catch (const std::exception& e) {
          p.message = e.what();
        }
        out.push_back(p);
      }
    }
  }
  return out;
}

std::string sweep_csv(const SweepSettings& settings, const std::vector<SweepPoint>& points) {
  const bool is_case = find_case(settings.target) != nullptr;
  std::string out = "target,reference,solver,dt,iterations,error,unit,wall_s,cpu_s,steps,message\n";
  char buf[256];
  for (const SweepPoint& p : points) {
    std::string message = p.message;
    for (char& ch : message)
      if (ch == ',' || ch == '\n' || ch == '"') ch = ' ';
    std::string error;
    if (!std::isnan(p.error)) {
      std::snprintf(buf, sizeof buf, "%.6g", p.error);
      error = buf;
    }
    std::snprintf(buf, sizeof buf, ",%.6g,%s,%s,%s,%.6g,%.6g,%d,", p.dt,
                  p.iterations > 0 ? std::to_string(p.iterations).c_str() : "", error.c_str(), p.unit.c_str(),
                  p.wall_seconds, p.cpu_seconds, p.steps);
    out += settings.target + "," + (is_case ? "closed form" : "same method at dt/16") + "," + p.solver + buf +
           message + "\n";
  }
  return out;
}

}  // namespace cl::conformance
