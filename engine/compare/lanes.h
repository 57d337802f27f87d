// Comparison lanes: copies of one scene, each under its own contact method and parameters, stepped in lockstep
// with the same dt. A lane is an independent World (a value: its solver, contacts and caches are its own), so
// lanes stepped side by side on several threads give every lane exactly the results it gives stepped alone.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/task_pool.h"
#include "world/world.h"

namespace cl {

// The most lanes one comparison holds (the viewer splits its window in at most 2 x 2).
inline constexpr int kMaxLanes = 4;

// A lane's method and the parameters it sets on top of what the scene gives that method.
struct LaneSpec {
  std::string solver;
  std::vector<std::pair<std::string, std::string>> params;  // name and value as text, as --set takes them
};

// "lcp,implicit-penalty,volume" as one spec per name, "all" as every registered method (at most kMaxLanes, in the
// registry's order). False (and *error) for an empty name, a solver the registry does not know, or more than
// kMaxLanes names.
bool parse_lane_list(std::string_view list, std::vector<LaneSpec>& out, std::string* error);

// Puts each "LANE.name" = value of `params` (LANE a lane number from 1, as --set takes them in a comparison) on
// its lane's spec. False (and *error naming the setting) for a name without a lane or a lane out of range.
bool assign_lane_params(const std::vector<std::pair<std::string, std::string>>& params, std::vector<LaneSpec>& lanes,
                        std::string* error);

// A lane of `scene`: a copy under spec.solver (which keeps the parameters the scene gives that method) with
// spec.params set. False (and *error naming the solver or parameter) when the scene's methods refuse the solver
// or a parameter is unknown or out of range; `out` is then unspecified.
bool make_lane(const World& scene, const LaneSpec& spec, World& out, std::string* error);

// The same parameters again as a spec: the solver and every parameter that differs from its default, or with
// `scene` from the values that scene gives the lane's method (what its "lanes" key holds).
LaneSpec lane_spec_of(const World& lane, const World* scene = nullptr);

// A lane's label: its solver and the parameters it changes from the defaults, e.g. "lcp (iterations=40)".
std::string lane_label(const World& lane);

// How far two copies of one scene have drifted apart: the distance between the centres of mass of each
// dynamic body, m, its largest and its mean over the dynamic bodies (0 when there are none). The worlds must
// hold the same bodies.
struct Divergence {
  double max = 0.0;
  double mean = 0.0;
};
Divergence divergence(const World& a, const World& b);

// Steps every world once, one world per task of the pool (the calling thread takes part), and stores world i's
// result in results[i]. The worlds share nothing, so each result is what stepping that world alone gives,
// whatever the pool's thread count.
void step_lockstep(std::span<World* const> worlds, TaskPool& pool, std::span<StepResult> results);

// A set of lanes with their pool. A lane whose step fails (a non-finite value, a blow-up) stops there and keeps
// its error, while the others go on.
class Lanes {
 public:
  // threads: workers including the caller; 0 = std::thread::hardware_concurrency().
  explicit Lanes(int threads = 0);

  // Appends a lane of `scene` (see make_lane); false at kMaxLanes lanes or when make_lane fails.
  bool add(const World& scene, const LaneSpec& spec, std::string* error);
  void clear();
  int size() const { return int(worlds_.size()); }
  World& world(int lane) { return worlds_[size_t(lane)]; }
  const World& world(int lane) const { return worlds_[size_t(lane)]; }
  // The result of the lane's last step; !ok once it stopped.
  const StepResult& result(int lane) const { return results_[size_t(lane)]; }
  bool stopped(int lane) const { return !results_[size_t(lane)].ok; }

  // One step of every lane that has not stopped, in parallel.
  void step();
  // The same drag spring in every lane (the viewer's mouse acts on every lane alike).
  void set_drag(const DragSpring& spring);
  void clear_drag();

  int threads() const { return pool_->threads(); }

 private:
  std::vector<World> worlds_;
  std::vector<StepResult> results_;
  std::unique_ptr<TaskPool> pool_;
};

}  // namespace cl
