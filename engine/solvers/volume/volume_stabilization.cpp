#include "solvers/volume/volume_solver.h"

#include <algorithm>

#include "collision/continuous.h"
#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

namespace {
// The most mean depth post-stabilisation keeps, as a fraction of the thinner body's half thickness.
constexpr double kThinRestDepth = 0.1;
}  // namespace

void VolumeSolver::integrate_positions(StepContext& ctx) {
  // Algorithm 1 line 3: q(t+h) = q + h u(t+h).
  advance_poses(ctx.bodies, ctx.dt);
  last_stab_iterations_ = 0;
  if (set_.stabilization_iterations == 0) return;
  ScopedSubStage timer(sub_stages_, kStabilization);

  // The pairs to watch: the broad phase's pairs of this step, except those joined by a joint.
  std::vector<std::pair<int, int>> pairs;
  const std::vector<BodyPair> joined = joined_pairs(ctx.joints);
  for (const GraphEdge& e : ctx.graph.edges()) {
    if (e.events & kVanishedProximity) continue;
    if (!ctx.bodies[e.a].is_dynamic() && !ctx.bodies[e.b].is_dynamic()) continue;
    if (!std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b})) pairs.push_back({e.a, e.b});
  }
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  // Lines 4-9: recompute the volumes; while one exceeds eps_V, solve the position MLCP (eq. 18-19).
  for (int iteration = 0; iteration < set_.stabilization_iterations; ++iteration) {
    rows_.clear();
    load_inverse_masses(ctx.bodies, masses_);  // the inertias turn with the bodies
    bool violated = false;
    for (const auto& [a, b] : pairs) {
      const PairCache& pc = compute_pair(ctx.bodies, a, b);
      for (const Constraint& c : pc.constraints) {
        // eps_V regulated from the contact area: about rest_depth pixels of mean depth remain (sect. 4.3), but no
        // more than a tenth of the thinner body's half thickness (our addition): a 0.2 mm sheet is all volume
        // below rest_depth's half pixel (5 mm), so eps_V never let a row push it out, and it came to rest half
        // in the ground, or tilted through it.
        const double thin = thinner_half_thickness(ctx.bodies[size_t(a)].shape, ctx.bodies[size_t(b)].shape);
        const double eps = std::min(set_.rest_depth * set_.pixel_size, kThinRestDepth * thin) * c.area;
        Row row = make_row(a, b, -c.linear[0], -c.angular[0], -c.linear[1], -c.angular[1]);
        if (row.inv_diag == 0.0) continue;
        row.lo = 0.0;
        // Eq. 19 with dq = M^-1 (-J_V)^T xi: w = -J_V dq - (V - eps_V) >= 0 perp xi >= 0, i.e. the
        // linearised volume V + J_V dq stays under eps_V. A row asks for at most the reduction that moving
        // its mean depth V / area achieves (our addition): a multi-volume cell that motion empties only
        // slowly (a torus tube standing deep in the ground, whose cell walls hold most of the volume) has
        // |J_V| far below its contact area, and V / |J_V| would throw the body metres out in one step. The
        // depth moved is also at most the volume's deepest point: a sliver cell at the rim of a contact patch
        // (1.5e-6 m^3 on 7.7e-6 m^2, mean depth 0.2 m, deepest point 2 mm) threw the sliding box on the
        // incline 10 cm off the plane.
        const double reach = std::max(c.linear[0].norm(), c.linear[1].norm()) * std::min(c.volume / c.area, c.deepest);
        row.target = std::min(c.volume - eps, reach);
        violated |= c.volume > eps;
        rows_.push_back(row);
      }
    }
    if (!violated) break;
    ++last_stab_iterations_;
    counters_.add(kCountStabilizationPasses, 1);
    std::fill(vel_.begin(), vel_.end(), BodyVelocity{});
    const auto t0 = Clock::now();
    ctx.stats.iterations += solve_pgs(rows_, vel_, pgs_settings(set_.stabilization_sweeps)).sweeps;
    profile_.solve_s += seconds_since(t0);
    // Line 7: q += dq (positions only; velocities are left as the velocity stage made them).
    for (size_t i = 0; i < n; ++i) {
      Body& b = ctx.bodies[i];
      if (!b.is_dynamic() || (vel_[i].v.isZero(0.0) && vel_[i].w.isZero(0.0))) continue;
      displace(b, vel_[i].v, vel_[i].w);
    }
  }
}

}  // namespace cl
