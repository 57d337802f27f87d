// The interface every contact method implements (solvers/registry.h makes them by name).
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collision/contact.h"
#include "core/body.h"
#include "core/task_pool.h"
#include "graph/contact_graph.h"
#include "joints/joint.h"
#include "solvers/debug_draw.h"
#include "solvers/params.h"
#include "telemetry/contact_report.h"
#include "telemetry/telemetry.h"

namespace cl {

// Counters a solver reports for one step. What iterations and residual count differs by method (docs/solvers.md's
// "What the solvers report" says it per solver, with units).
struct SolverStats {
  int iterations = 0;      // lcp, volume: PGS sweeps; implicit-penalty: direct solves plus friction PGS sweeps
  double residual = 0.0;   // lcp, implicit-penalty: N s; volume: of its multipliers (N s/m^2)
  int rows = 0;            // constraint rows solved
  int sleeping = 0;        // bodies asleep after the step
};

// What a solver sees during one step. Bodies and contacts belong to the world.
struct StepContext {
  std::vector<Body>& bodies;
  ContactList& contacts;        // sorted by (a, b, feature); impulses are written back for warm starting
  const ContactGraph& graph;    // edges (with their contact ranges), contact groups, stack layers
  const std::vector<Joint>& joints;
  double dt = 0.0;
  Vec3 gravity{0, 0, 0};
  SolverStats& stats;
  // The world's threads beyond the caller (its `threads` setting), or null for one: a method may split large
  // solves among them when that leaves its results the same bit for bit.
  TaskPool* pool = nullptr;
};

// The parts of a world's description that decide what a method honours: its bodies (shapes, kinds, materials),
// the materials and the joints (limits, motors, servos, ERP and CFM).
struct SceneFeatures {
  std::span<const Body> bodies;
  std::span<const Material> materials;
  std::span<const Joint> joints;
};

// Names of the materials that some body of the scene uses and whose `field` (friction or restitution) is above 0,
// in the order of the materials: what a method that ignores that field leaves out.
std::vector<std::string> materials_using(const SceneFeatures& scene, double Material::*field);
// Names of the joints that `pick` selects, in order.
std::vector<std::string> joints_where(const SceneFeatures& scene, bool (*pick)(const Joint&));
// "a, b, c" for up to four names, then "and N more"; each name in quotes.
std::string name_list(const std::vector<std::string>& names);
// The warning of a row-based method run with no friction rows (its `friction_directions` at 0) in a scene whose
// bodies use materials with friction, appended to `out`; nothing otherwise.
void warn_ignored_friction(std::string_view solver, int friction_directions, const SceneFeatures& scene,
                           std::vector<std::string>& out);

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string_view name() const = 0;
  virtual std::unique_ptr<Solver> clone() const = 0;

  ParamSet& params() { return params_; }
  const ParamSet& params() const { return params_; }

  // The start of a step, which World::step calls once before the narrow phase: the parameters are read into the
  // method's typed settings (read_settings), so that the hot loops read plain fields, its stages and counters are
  // declared afresh and its convergence record cleared.
  void begin_step();
  // Narrow phase in the contact model this method needs: the contacts of bodies ia < ib appended to `out`,
  // normals from a to b. The default is the shared narrow phase (primitives analytically, meshes by signed
  // distance maps, reduced to a few points per pair); a method with its own model overrides it and may keep
  // what it computed for its solve.
  virtual void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out);
  // True when collide() may run for several pairs at once on the world's threads (WorldSettings::threads): it
  // writes only `out` and state kept per pair under its own lock, and its result for a pair does not depend on
  // which other pairs were collided before it. The shared narrow phase is (its scratch is per thread).
  virtual bool concurrent_collide() const { return true; }
  // collide() with the world's threads free for this one pair (`pool`, more than one thread): the world calls it
  // for each pair when it has too few pairs to share them out between its threads, so that a method may split a
  // large pair's work among them. The result must be collide()'s bit for bit. The default is collide().
  virtual void collide_on_threads(TaskPool& pool, const std::vector<Body>& bodies, int ia, int ib, double margin,
                                  ContactList& out) {
    (void)pool;
    collide(bodies, ia, ib, margin, out);
  }
  // How far a pair's bodies may move relative to each other, m, before the world computes its contacts again rather
  // than recycling those it computed last (world/contact_recycling.h); 0, the default: every pair that moved is
  // collided. Read after begin_step().
  virtual double recycle_distance() const { return 0.0; }
  // Velocity stage: gravity, external forces and contact impulses give the new velocities u(t+h).
  virtual void solve_velocities(StepContext& ctx) = 0;
  // Position stage: advance positions with the new velocities and correct errors.
  // The default is the semi-implicit update s(t+h) = s(t) + h S u(t+h) (thesis eq. 6.76).
  virtual void integrate_positions(StepContext& ctx);
  // How deep a body that the world's continuous collision stops on its way into another is left in it, m (read
  // after begin_step): the overlap at which this method's contact model holds the contact at the next step, so
  // that its contact law, not the placement, stops the approach. The default: touching (contacts within the
  // world's margin are found without any overlap).
  virtual double continuous_depth() const { return 0.0; }
  // Whether continuous collision also stops a fast body at another dynamic body (else only at fixed and
  // kinematic ones, as Box2D v3 does by default for all but its bullets).
  virtual bool continuous_between_dynamic_bodies() const { return true; }
  // The contact report of the step just taken (telemetry/contact_report.h), called by World when the report is
  // first read after the step, with the bodies at the end of the step: each contact the method acted through, with the
  // force it applied averaged over the step (docs/residuals.md). `out` comes cleared. Every method fills it.
  virtual void report_contacts(const StepContext& ctx, ContactReport& out) const = 0;
  // Whether continuous collision puts a stopped body back together with the dynamic bodies it touches (its
  // contact group in this step), so that a body resting on it is not left in it by the part of the step it is
  // put back: a penalty method's springs would push that overlap out with energy no motion put in.
  virtual bool continuous_moves_touching() const { return false; }
  // Called when the solver takes over a running world: drop anything cached from another method.
  virtual void reset() {}
  // What this method, at its current parameters, does not honour in a scene with these features: one sentence
  // each, naming the feature, where the scene uses it and what the method does instead. The viewer shows them
  // and the command line prints them as warnings. Empty when the method honours everything the scene asks.
  virtual std::vector<std::string> unsupported(const SceneFeatures& scene) const;
  // Draws, through `draw`, the layers of draw.request it has (debug_layers) that the shared overlays (contacts,
  // graph, joints) do not show: its state of the last step, or what its contact model computes at the poses of
  // `scene`. Const, and whatever it computes for drawing is local to the call: stepping is bit-identical whether
  // or not a world is drawn. World::draw_debug fills the scene. Nothing by default.
  virtual void draw_debug(const DebugScene& scene, DebugDraw& draw) const {
    (void)scene;
    (void)draw;
  }
  // The DebugLayer bits draw_debug can draw (0: none); the viewer greys out the others.
  virtual unsigned debug_layers() const { return 0; }

  // Wall time of the method's own stages in the current step, nested in the world's narrow phase, solve and
  // integrate stages; a method declares them in begin_step and times them as it goes. World::step copies them
  // into StepStats::sub_stages.
  const SubStages& sub_stages() const { return sub_stages_; }
  // The method's own counters of the current step (declared in begin_step, set as it steps); World::step copies
  // them into StepStats::counters.
  const SolverCounters& counters() const { return counters_; }
  // The convergence of the current step's main iterative solve: entry k is the residual after sweep k + 1 (the
  // largest over the step's solves of that sweep, e.g. over lcp's contact groups), in the unit of
  // SolverStats::residual. Empty for a method without one. The viewer plots it.
  std::span<const double> convergence() const { return convergence_; }

 protected:
  Solver() = default;
  // A method with parameters, stages and counters of its own: its ParamSet is made from `specs` (its parameter
  // table's, solvers/params.h), and each begin_step declares `stages` and `counters`, which must outlive it (the
  // method's constant arrays). Its constructor then calls begin_step() to read the default settings.
  Solver(std::span<const ParamSpec> specs, std::span<const SubStage> stages, std::span<const SolverCounter> counters)
      : params_(specs), stage_list_(stages), counter_list_(counters) {}
  // Reads params() into the method's typed settings (begin_step calls it). Nothing by default.
  virtual void read_settings() {}

  ParamSet params_;
  SubStages sub_stages_;
  SolverCounters counters_;
  std::vector<double> convergence_;
  std::vector<double> sweep_residuals_;  // scratch: one solve's, before merge_convergence
  // Starts the step's convergence record, and merges one solve's sweep residuals into it (largest per sweep).
  void clear_convergence() { convergence_.clear(); }
  void merge_convergence(const std::vector<double>& sweeps) {
    if (convergence_.size() < sweeps.size()) convergence_.resize(sweeps.size(), 0.0);
    for (size_t k = 0; k < sweeps.size(); ++k) convergence_[k] = std::max(convergence_[k], sweeps[k]);
  }

 private:
  std::span<const SubStage> stage_list_;
  std::span<const SolverCounter> counter_list_;
};

}  // namespace cl
