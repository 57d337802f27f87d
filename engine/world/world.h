// The world: a value holding bodies, materials, settings, the active solver and the contact cache.
// Copying a World gives an independent simulation; stepping is deterministic (no pointer order, and the same results
// on any number of threads: WorldSettings::threads).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collision/broadphase.h"
#include "collision/continuous.h"
#include "collision/contact.h"
#include "core/task_pool.h"
#include "core/body.h"
#include "graph/contact_graph.h"
#include "joints/joint.h"
#include "scripts/script.h"
#include "solvers/solver.h"
#include "solvers/solver_holder.h"
#include "telemetry/telemetry.h"
#include "world/applied_forces.h"
#include "world/contact_recycling.h"

namespace cl {

// The time steps a world takes, s: a step below a microsecond is a mistake (1e-320 would be a denormal that
// no simulation advances with), one above a second certainly is.
constexpr double kMinDt = 1e-6;
constexpr double kMaxDt = 1.0;

struct WorldSettings {
  Vec3 gravity{0, -9.81, 0};   // m/s^2, y is up
  double dt = 1.0 / 60.0;      // s
  double contact_margin = 0.01;  // m: pairs closer than this produce (speculative) contacts
  // m/s: a dynamic body with a point moving faster than this (|v| + |w| r, r its bounding radius) stops the
  // simulation as a blow-up, like a non-finite value (0: no limit). 1000 m/s is three times the speed of
  // sound; nothing a contact scene means to do comes near, and a solver that has blown up passes it at once.
  double max_speed = 1000.0;
  // The most overlapping pairs and contacts a step may have (0: no limit). Bodies heaped at one place overlap in
  // every pair, so their contacts grow with the square of their count (500 boxes at one pose: a million
  // contacts, 700 MB); past the limit the step stops the simulation with a message instead of exhausting
  // memory. 250,000 contacts hold 0.4-1.2 GB with the solvers' per-contact state (docs/performance.md, Scaling);
  // the largest shipped scene has about 14,000.
  int64_t max_contacts = 250000;
  // Continuous collision: a dynamic body that moves more than the contact margin in a step is swept from its pose
  // at the start of the step to its pose at the end against the other bodies, and stopped where it would first
  // overlap one by more than it may (World::continuous_collision). Off: bodies move their whole step, and a
  // fast one passes through what is thinner than its step.
  bool continuous = true;
  // Threads a step may use, including the caller (0: every hardware thread). The narrow phase of a method whose
  // collide() is reentrant (Solver::concurrent_collide) runs its pairs on them, or, with too few pairs to share
  // out, lets each pair use them (Solver::collide_on_threads: a bolt in its thread is one pair); the results are
  // the same bit for bit on any number, since each pair's contacts are found on their own and joined in pair order.
  int threads = 1;
};

// A spring from a point on a body to a target in the world, used by the viewer to drag bodies.
struct DragSpring {
  int body = -1;
  Vec3 local_anchor{0, 0, 0};
  Vec3 target{0, 0, 0};
  double stiffness = 0.0;  // N/m per kg of the body's mass (so light and heavy bodies feel the same)
  double damping = 0.0;    // N s/m per kg
};

struct StepResult {
  bool ok = true;
  std::string error;  // names the body, the stage and the step when a value became non-finite or too fast
};

class World {
 public:
  World();
  // Copies go member by member (the holder clones the solver), so none can be left out.
  World(const World&) = default;
  World& operator=(const World&) = default;
  World(World&&) noexcept = default;
  World& operator=(World&&) noexcept = default;
  ~World() = default;

  // --- description -------------------------------------------------------------------------------
  std::string name = "untitled";
  std::string description;  // one paragraph shown by the viewer; kept by save
  std::string topic;        // the scene browser's group ("Stacking", "Meshes"); kept by save
  WorldSettings settings;
  std::vector<Material> materials{Material{}};
  std::vector<Body> bodies;
  std::vector<Joint> joints;    // constraints between bodies
  std::vector<Script> scripts;  // paths driving kinematic bodies
  std::vector<AppliedForce> forces;  // forces and torques on dynamic bodies over time windows
  // The contact methods this scene is meant for (scene key "methods"); empty: every registered method.
  // set_solver refuses a method not listed.
  std::vector<std::string> methods;

  int find_body(std::string_view body_name) const;        // -1 if absent
  int find_material(std::string_view material_name) const;  // -1 if absent

  // --- solver ------------------------------------------------------------------------------------
  Solver& solver() {
    finish_report();  // before the parameters the report reads can change
    return *solver_;
  }
  const Solver& solver() const { return *solver_; }
  // Switches the contact method of this world (also while it runs). Each method keeps its parameters as last
  // set: switching away and back restores them (a method not used yet starts at its defaults). Refuses a
  // name the registry does not know, or one not in `methods` when the scene lists its methods.
  bool set_solver(std::string_view solver_name, std::string* error);
  // True when `methods` is empty or lists the name.
  bool allows_solver(std::string_view solver_name) const;
  // The parameters of the named method: the active solver's own when it is active, else the values kept for
  // it (its defaults until set). Null for a name the registry does not know.
  ParamSet* solver_params(std::string_view solver_name);
  // The same as a copy (the registry's defaults for a method never set; an empty set for an unknown name).
  ParamSet solver_params_copy(std::string_view solver_name) const;
  // What the active solver, at its current parameters, does not honour in this world's bodies, materials and
  // joints (Solver::unsupported): one sentence each, empty when it honours everything.
  std::vector<std::string> unsupported_features() const;

  // --- stepping ----------------------------------------------------------------------------------
  StepResult step();  // advances by settings.dt
  double time() const { return time_; }
  int64_t step_count() const { return step_count_; }
  const ContactList& contacts() const { return contacts_; }
  const StepStats& last_stats() const {
    finish_report();
    return stats_;
  }
  // What the method reported of each contact in the last step (Solver::report_contacts): forces averaged over
  // the step, relative velocities at its end. The residuals of StepStats come from it. Both are computed when
  // first read after the step, not by the step itself, so a step's time does not hold them: read them before
  // editing `bodies`, whose state they are computed from. reset_contacts() (after bodies were added, removed or
  // teleported) drops a report not read yet, and so does a change in the number of bodies. Not for concurrent
  // reads of one World.
  const ContactReport& contact_report() const {
    finish_report();
    return report_;
  }
  // The bodies continuous collision stopped short of their step's end in the last step, by index.
  const std::vector<int>& last_swept_stops() const { return swept_stops_; }
  // Contact group of each body in the last step, -1 for a body in none (see ContactGraph::group_of_body).
  const std::vector<int>& group_of_body() const { return graph_.group_of_body(); }
  // Contact graph of the last step: edges, contact groups, stack heights and layers.
  const ContactGraph& graph() const { return graph_; }
  // Wakes a body (and lets the next step wake what it touches); used on user interaction.
  void wake(int body);
  // Forget cached contacts (after bodies were added, removed or teleported), and a contact report not read yet.
  void reset_contacts();
  // Sets the clock (a keyframe restored: time, s, and the steps taken, which applied forces and scripts read) and
  // forgets the cached contacts, which belong to the poses before.
  void set_clock(double time, int64_t steps);
  // How many times set_solver made a new solver and reset_contacts forgot the contacts (set_solver does both): a
  // replay tells an edit between two steps from the steps themselves by these (replay/edits.h).
  int64_t solver_changes() const { return solver_changes_; }
  int64_t contact_resets() const { return contact_resets_; }

  // --- drawing -----------------------------------------------------------------------------------
  // The pairs the narrow phase of a step would collide with the bodies at `poses` (this world's bodies with
  // other poses, e.g. those of an earlier stage): boxes overlapping within the contact margin by the broad
  // phase, not both fixed or kinematic, not joined by a joint; sorted by (a, b).
  std::vector<BodyPair> collision_pairs(const std::vector<Body>& poses) const;
  // Has the solver draw the layers `draw.request` asks for (Solver::draw_debug) at `poses` (null: the current
  // ones), with the pairs collision_pairs finds there and the last step's contacts. Changes nothing.
  void draw_debug(DebugDraw& draw, const std::vector<Body>* poses = nullptr) const;

  // --- interaction -------------------------------------------------------------------------------
  void set_drag(const DragSpring& spring) { drag_ = spring; }
  void clear_drag() { drag_ = DragSpring{}; }
  const DragSpring& drag() const { return drag_; }

  // --- measures ----------------------------------------------------------------------------------
  double kinetic_energy() const;    // J
  double potential_energy() const;  // J, relative to the origin, -m g . x summed
  // Penetration over the current contacts (found at the start of the last step), m. Every method gives each
  // contact the depth of its deepest point along the normal (Contact::depth); gaps (depth <= 0) do not count.
  double max_penetration() const;   // the deepest contact, 0 without penetration
  double mean_penetration() const;  // the mean depth of the penetrating contacts, each counted once; 0 without

 private:
  struct Penetration {
    double max = 0.0, mean = 0.0;
  };
  Penetration penetration() const;
  // Computes the last step's contact report and its residuals if they are still owed (contact_report()).
  void finish_report() const;
  bool update_bounds(StepResult& result);
  // The broad phase's boxes of `poses` (grown by half the contact margin) and which bodies never collide with
  // each other (fixed and kinematic).
  void body_bounds(const std::vector<Body>& poses, std::vector<Aabb>& boxes, std::vector<char>& is_static) const;
  bool find_contacts(StepResult& result);
  void too_many_contacts(const char* what, size_t count, StepResult& result) const;
  std::pair<double, double> pair_materials(const GraphEdge& e) const;
  void continue_kept(const GraphEdge& e, bool recycled, size_t first, size_t last);
  void find_groups();
  void continuous_collision();
  void apply_drag();
  bool check_finite(const char* stage, StepResult& result) const;
  // True when nothing outside the dynamic bodies acts on them in this step (no gravity, applied force or drag,
  // no contact with a fixed or kinematic body, no joint to one): their momentum is then conserved.
  bool isolated() const;
  // No gravity, applied force or drag (the first of isolated()'s tests, which needs no contacts).
  bool unforced() const;
  MomentumSample momentum() const;
  bool check_speed(const char* stage, StepResult& result) const;
  bool check_not_through_planes(const char* stage, StepResult& result) const;
  // The parameters of the named method as this world has them: the active solver's, or those kept for it; null
  // for a method never set (or unknown).
  const ParamSet* find_params(std::string_view solver_name) const;

  // The worker threads of settings.threads, made on first use. A copied World starts without any (a pool is not a
  // value), so copies stepped side by side never share one.
  struct Workers {
    std::unique_ptr<TaskPool> pool;
    Workers() = default;
    Workers(const Workers&) {}
    Workers& operator=(const Workers&) { return *this; }
    Workers(Workers&&) noexcept = default;
    Workers& operator=(Workers&&) noexcept = default;
  };
  TaskPool* workers();

  SolverHolder solver_;
  Workers workers_;
  // The narrow phase's pairs in edge order (find_contacts): each either keeps last step's contacts
  // previous_contacts_[kept_first, kept_last) (re-projected when `recycled`) or is collided into found_[found];
  // to_collide_ lists the edges of the latter, in the order of found_.
  struct PairWork {
    int edge = 0;
    int found = -1;
    size_t kept_first = 0, kept_last = 0;
    bool recycled = false;
    size_t at = 0;  // where the pair's contacts go in the step's list

  };
  std::vector<PairWork> pair_work_;
  std::vector<int> to_collide_;
  std::vector<ContactList> found_;
  // Parameters of the methods that are not active, by name (the active one's live in solver_).
  std::map<std::string, ParamSet, std::less<>> kept_params_;
  BroadPhase broadphase_;
  ContactGraph graph_;
  std::vector<Aabb> bounds_;
  std::vector<char> is_static_;
  std::vector<BodyPair> pairs_;
  // The boxes and static flags pairs_ was found for (update_bounds).
  std::vector<Aabb> pairs_bounds_;
  std::vector<char> pairs_static_;
  ContactList contacts_;
  ContactList previous_contacts_;
  // Beside each contact of contacts_ and previous_contacts_, what contact recycling fixed of it to its bodies (set
  // only for the contacts of an anchored pair; world/contact_recycling.h).
  std::vector<ContactAnchor> anchors_, previous_anchors_;
  std::vector<StepMotion> motions_;  // each body's motion over the step, for continuous collision
  std::vector<int> swept_stops_;
  BroadPhase swept_broadphase_;  // continuous collision's, over the boxes the bodies sweep in a step
  DragSpring drag_;
  // The last step's statistics and contact report; the report and stats_.residuals are filled on first read
  // (finish_report), a cache of what the step left.
  mutable StepStats stats_;
  mutable ContactReport report_;
  mutable bool report_owed_ = false;
  size_t report_bodies_ = 0;  // the bodies of the step whose report is owed
  double time_ = 0.0;
  int64_t step_count_ = 0;
  int64_t solver_changes_ = 0;
  int64_t contact_resets_ = 0;
};

}  // namespace cl
