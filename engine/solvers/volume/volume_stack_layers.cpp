#include "solvers/volume/volume_solver.h"

#include <algorithm>

#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

// Which contact groups are solved by layers (stack_layers): those a fixed or kinematic body supports, without
// joints (their layers come from contacts only, as under lcp), and their bodies.
void VolumeSolver::classify_groups(const StepContext& ctx) {
  const auto& groups = ctx.graph.groups();
  shock_group_.assign(groups.size(), 0);
  shock_body_.assign(ctx.bodies.size(), 0);
  if (!set_.stack_layers) return;
  std::vector<char> jointed(ctx.bodies.size(), 0);
  for (const Joint& j : ctx.joints) {
    if (j.body_a >= 0) jointed[size_t(j.body_a)] = 1;
    if (j.body_b >= 0) jointed[size_t(j.body_b)] = 1;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    const ContactGroup& group = groups[g];
    // One layer holds nothing (its bottom bodies are all fixed or kinematic): the layer pass would be the whole
    // solve again, with twice the sweeps (a block squeezed between two jaws, whose squeeze grows with the
    // sweeps, would be gripped harder). Such a group is solved whole, over the whole step.
    if (group.floating || group.layer_count < 2) continue;
    bool joints = false;
    for (int b : group.bodies) joints = joints || jointed[size_t(b)] != 0;
    if (joints) continue;
    shock_group_[g] = 1;
    for (int b : group.bodies) shock_body_[size_t(b)] = 1;
  }
}

// Velocity-based shock propagation (thesis 6.4; Erleben 2007), as lcp's: the whole solve took the fraction f of the
// step (solve_velocities); the rest of it is solved layer by layer, bottom-up, each layer's rows with its bottom
// bodies held (infinite mass), warm started from what the layers found last step. A stack's bottom then carries
// its load within the step whatever the number of bodies or their mass ratio, which plain Gauss-Seidel sweeps do
// not propagate (20 sweeps over a 20-box column, or a 1 kg box under 100 kg).
void VolumeSolver::solve_layers(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  for (size_t i = 0; i < n; ++i)
    if (shock_body_[i]) {
      vel_[i].v += (1.0 - kShockFraction) * free_[i].v;
      vel_[i].w += (1.0 - kShockFraction) * free_[i].w;
    }
  block_of_contact_.assign(ctx.contacts.size(), -1);
  for (size_t k = 0; k < blocks_.size(); ++k)
    for (int c = blocks_[k].contact; c < blocks_[k].contact_end; ++c) block_of_contact_[size_t(c)] = int(k);
  // The layers' warm start per row, in the row's own unit: a normal row's impulse on b is lambda |jb_lin| (N s),
  // a friction row's lambda jb_lin (see the end of solve_velocities).
  std::vector<double> warm_normal(rows_.size(), 0.0);
  if (set_.warm_start)
    for (size_t k = 0; k < ctx.contacts.size(); ++k)
      if (ctx.contacts[k].persisted && normal_row_of_[k] >= 0) warm_normal[size_t(normal_row_of_[k])] += layer_warm_normal_[k];
  const auto& groups = ctx.graph.groups();
  for (int g = 0; g < int(groups.size()); ++g) {
    if (!shock_group_[size_t(g)]) continue;
    for (const StackLayer& layer : ctx.graph.layers(g)) {
      const std::vector<InverseMass> held = masses_;
      for (int b : layer.bottom) masses_[size_t(b)] = InverseMass{};
      layer_rows_.clear();
      layer_row_source_.clear();
      for (int e : layer.edges) {
        const GraphEdge& edge = ctx.graph.edges()[size_t(e)];
        int last = -1;  // a pair's contacts share its block: take it once
        for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
          const int block = block_of_contact_[size_t(k)];
          if (block < 0 || block == last) continue;
          last = block;
          const ContactBlock& cb = blocks_[size_t(block)];
          const int first = int(layer_rows_.size());
          for (int r = 0; r < cb.rows; ++r) {
            const int source = cb.first_row + r;
            Row row = rows_[size_t(source)];
            if (row.normal_row >= 0) row.normal_row += first - cb.first_row;
            prepare(row, masses_);
            row.lambda = 0.0;
            const int ci = row_contact_[size_t(source)];
            if (row.normal_row < 0) {
              const double push = row.jb_lin.norm();
              if (push > 0.0) row.lambda = warm_normal[size_t(source)] / push;
            } else if (set_.warm_start && ci >= 0 && ctx.contacts[size_t(ci)].persisted) {
              const double s2 = row.jb_lin.squaredNorm();
              if (s2 > 0.0) row.lambda = layer_warm_friction_[size_t(ci)].dot(row.jb_lin) / s2;
            }
            layer_rows_.push_back(row);
            layer_row_source_.push_back(source);
          }
        }
      }
      if (!layer_rows_.empty()) {
        apply_impulses(layer_rows_, vel_);
        const PgsResult r = solve_pgs(layer_rows_, vel_, pgs_settings(set_.iterations));
        ctx.stats.iterations += r.sweeps;
        for (size_t i = 0; i < layer_rows_.size(); ++i)
          layer_lambda_[size_t(layer_row_source_[i])] = layer_rows_[i].lambda;
      }
      masses_ = held;
    }
  }
}

}  // namespace cl
