#include "solvers/solver.h"

#include "collision/narrowphase.h"
#include "constraints/motion.h"

namespace cl {

void Solver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  cl::collide(bodies, ia, ib, margin, out);
}

std::vector<std::string> Solver::unsupported(const SceneFeatures&) const { return {}; }

std::vector<std::string> materials_using(const SceneFeatures& scene, double Material::*field) {
  std::vector<char> used(scene.materials.size(), 0);
  for (const Body& b : scene.bodies)
    if (b.material >= 0 && size_t(b.material) < used.size()) used[size_t(b.material)] = 1;
  std::vector<std::string> names;
  for (size_t m = 0; m < scene.materials.size(); ++m)
    if (used[m] && scene.materials[m].*field > 0.0) names.push_back(scene.materials[m].name);
  return names;
}

std::vector<std::string> joints_where(const SceneFeatures& scene, bool (*pick)(const Joint&)) {
  std::vector<std::string> names;
  for (size_t j = 0; j < scene.joints.size(); ++j)
    if (pick(scene.joints[j])) names.push_back(scene.joints[j].name.empty() ? "#" + std::to_string(j) : scene.joints[j].name);
  return names;
}

std::string name_list(const std::vector<std::string>& names) {
  constexpr size_t kShown = 4;
  std::string text;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) text += (i == 0 ? "'" : ", '") + names[i] + "'";
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

void warn_ignored_friction(std::string_view solver, int friction_directions, const SceneFeatures& scene,
                           std::vector<std::string>& out) {
  if (friction_directions > 0) return;
  const std::vector<std::string> rough = materials_using(scene, &Material::friction);
  if (!rough.empty())
    out.push_back(std::string(solver) + ": friction_directions = 0: the friction of material " + name_list(rough) +
                  " is ignored (contacts are frictionless)");
}

void Solver::begin_step() {
  read_settings();
  sub_stages_.declare(stage_list_);
  counters_.declare(counter_list_);
  clear_convergence();
}

void Solver::integrate_positions(StepContext& ctx) { advance_poses(ctx.bodies, ctx.dt); }

}  // namespace cl
