#include "compare/lanes.h"

#include <algorithm>
#include <cmath>

#include "solvers/registry.h"

namespace cl {

bool parse_lane_list(std::string_view list, std::vector<LaneSpec>& out, std::string* error) {
  out.clear();
  if (list == "all") {
    for (const SolverInfo& info : solver_registry())
      if (int(out.size()) < kMaxLanes) out.push_back(LaneSpec{info.name, {}});
    return true;
  }
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                      : comma - start);
    if (name.empty()) {
      *error = "an empty solver name in the lane list '" + std::string(list) + "' (e.g. lcp,volume)";
      return false;
    }
    if (!find_solver(name)) {
      *error = "unknown solver '" + std::string(name) + "' in the lane list (available: " + solver_names() + ")";
      return false;
    }
    if (int(out.size()) == kMaxLanes) {
      *error = "more than " + std::to_string(kMaxLanes) + " lanes in '" + std::string(list) + "'";
      return false;
    }
    out.push_back(LaneSpec{std::string(name), {}});
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

bool assign_lane_params(const std::vector<std::pair<std::string, std::string>>& params, std::vector<LaneSpec>& lanes,
                        std::string* error) {
  for (const auto& [name, text] : params) {
    const size_t dot = name.find('.');
    int lane = 0;
    const std::string number = name.substr(0, std::min(dot, name.size()));
    const bool digits = !number.empty() && number.size() < 3 &&
                        std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) lane = std::stoi(number);
    if (dot == std::string::npos || !digits || lane < 1 || lane > int(lanes.size()) || dot + 1 == name.size()) {
      *error = "'" + name + "=" + text + "': with lanes a setting is LANE.name=value, LANE a lane from 1 to " +
               std::to_string(lanes.size()) + " (e.g. 2.iterations=40)";
      return false;
    }
    lanes[size_t(lane - 1)].params.emplace_back(name.substr(dot + 1), text);
  }
  return true;
}

bool make_lane(const World& scene, const LaneSpec& spec, World& out, std::string* error) {
  out = scene;
  if (!out.set_solver(spec.solver, error)) return false;
  for (const auto& [name, text] : spec.params) {
    std::string why;
    if (!out.solver().params().set_from_string(name, text, &why)) {
      *error = spec.solver + ": " + name + "=" + text + ": " + why;
      return false;
    }
  }
  return true;
}

LaneSpec lane_spec_of(const World& lane, const World* scene) {
  LaneSpec spec{std::string(lane.solver().name()), {}};
  const ParamSet& set = lane.solver().params();
  const ParamSet defaults = scene != nullptr ? scene->solver_params_copy(spec.solver) : ParamSet(set.specs());
  for (size_t i = 0; i < set.specs().size(); ++i)
    if (set.value(i) != defaults.value(i)) spec.params.emplace_back(set.specs()[i].name, set.to_string(i));
  return spec;
}

std::string lane_label(const World& lane) {
  const LaneSpec spec = lane_spec_of(lane);
  std::string label = spec.solver;
  for (size_t i = 0; i < spec.params.size(); ++i)
    label += (i == 0 ? " (" : ", ") + spec.params[i].first + "=" + spec.params[i].second;
  if (!spec.params.empty()) label += ")";
  return label;
}

Divergence divergence(const World& a, const World& b) {
  Divergence d;
  int dynamic = 0;
  const size_t n = std::min(a.bodies.size(), b.bodies.size());
  for (size_t i = 0; i < n; ++i) {
    if (!a.bodies[i].is_dynamic()) continue;
    const double dist = (a.bodies[i].position - b.bodies[i].position).norm();
    d.max = std::max(d.max, dist);
    d.mean += dist;
    ++dynamic;
  }
  if (dynamic > 0) d.mean /= dynamic;
  return d;
}

void step_lockstep(std::span<World* const> worlds, TaskPool& pool, std::span<StepResult> results) {
  // One world per task: each writes only its own world and result, so the thread that runs it does not matter.
  pool.run(int(worlds.size()), [&](int task, int) { results[size_t(task)] = worlds[size_t(task)]->step(); });
}

Lanes::Lanes(int threads) : pool_(std::make_unique<TaskPool>(threads)) {}

bool Lanes::add(const World& scene, const LaneSpec& spec, std::string* error) {
  if (size() >= kMaxLanes) {
    *error = "at most " + std::to_string(kMaxLanes) + " lanes";
    return false;
  }
  World lane;
  if (!make_lane(scene, spec, lane, error)) return false;
  worlds_.push_back(std::move(lane));
  results_.push_back(StepResult{});
  return true;
}

void Lanes::clear() {
  worlds_.clear();
  results_.clear();
}

void Lanes::step() {
  std::vector<World*> running;
  std::vector<int> index;
  for (int i = 0; i < size(); ++i)
    if (!stopped(i)) {
      running.push_back(&worlds_[size_t(i)]);
      index.push_back(i);
    }
  std::vector<StepResult> out(running.size());
  step_lockstep(running, *pool_, out);
  for (size_t k = 0; k < index.size(); ++k) results_[size_t(index[k])] = std::move(out[k]);
}

void Lanes::set_drag(const DragSpring& spring) {
  for (World& w : worlds_) w.set_drag(spring);
}

void Lanes::clear_drag() {
  for (World& w : worlds_) w.clear_drag();
}


}  // namespace cl
