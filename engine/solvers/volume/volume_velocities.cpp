#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <cmath>

#include "joints/joint_solve.h"
#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

void VolumeSolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  last_dt_ = ctx.dt;  // the next narrow phase's reach (step_reach)
  last_gravity_ = ctx.gravity.norm();
  load_inverse_masses(ctx.bodies, masses_);
  classify_groups(ctx);
  // Prediction: the unconstrained velocities u* = u + h M^-1 f_ext (Algorithm 1, "prediction" step of 4.3),
  // as every row-based solver takes them (the gyroscopic motion is in the pose update). A body of a stack solved
  // by layers (stack_layers) takes only the fraction f of it here, the rest before the layers (solve_layers).
  free_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    b.sleeping = false;  // this method does not put bodies to sleep
    free_[i] = free_velocity_change(b, ctx.gravity, ctx.dt);
    const double f = shock_body_[i] ? kShockFraction : 1.0;
    vel_[i] = {b.linear_velocity + f * free_[i].v, b.angular_velocity + f * free_[i].w};
  }
  // The warm starts of the two phases apart, as under lcp: the whole solve starts from what the whole solve found
  // last step, the layers from what the layers found (a layer carries the weight of its top bodies, the whole
  // solve only the fraction f of the step).
  layer_warm_normal_.assign(ctx.contacts.size(), 0.0);
  layer_warm_friction_.assign(ctx.contacts.size(), Vec3::Zero());
  for (size_t k = 0; k < ctx.contacts.size(); ++k) {
    Contact& c = ctx.contacts[k];
    if (!shock_body_[size_t(c.a)] && !shock_body_[size_t(c.b)]) continue;
    layer_warm_normal_[k] = c.layer_normal_impulse;
    layer_warm_friction_[k] = c.layer_friction_impulse;
    c.normal_impulse -= c.layer_normal_impulse;
    c.friction_impulse -= c.layer_friction_impulse;
  }

  // Correction: the joints' rows (as under `lcp`), then one block of rows per volume contact. A limit's row is
  // there at every step (LimitRows::Always, as under lcp): before the bound it only keeps the coordinate from
  // passing it within the step; added only near the bound, a 2 cm bar swinging onto its limit at h = 1/30 s went
  // 0.022 rad past it within one step.
  const auto t0 = Clock::now();
  rows_.clear();
  blocks_.clear();
  joint_rows_.clear();
  for (int j = 0; j < int(ctx.joints.size()); ++j)
    joint_rows(ctx.joints[j], j, ctx.bodies, ctx.dt, joint_rows_, JointRowForm::Decoupled, LimitRows::Always);
  for (const JointRow& jr : joint_rows_) {
    Row row = jr;
    prepare(row, masses_);
    row.lambda = set_.warm_start ? joint_warm_.guess(jr) : 0.0;
    rows_.push_back(row);
  }
  // One block per colliding pair (its contacts are consecutive): its normal rows, then the friction rows of
  // each of its volumes.
  const int contact_count = int(ctx.contacts.size());
  row_contact_.assign(rows_.size(), -1);
  normal_row_of_.assign(size_t(contact_count), -1);
  impact_rows_.clear();
  for (int ci = 0; ci < contact_count;) {
    const int a = ctx.contacts[size_t(ci)].a, b = ctx.contacts[size_t(ci)].b;
    int end = ci;
    while (end < contact_count && ctx.contacts[size_t(end)].a == a && ctx.contacts[size_t(end)].b == b) ++end;
    const int begin = ci;
    ci = end;
    // The pair's speculative contacts come after its volumes (their feature ids sort last): their own block.
    int volumes_end = begin;
    while (volumes_end < end && !(ctx.contacts[size_t(volumes_end)].feature & kSpeculativeFeature)) ++volumes_end;
    if (volumes_end < end) add_speculative_rows(ctx, volumes_end, end);
    end = volumes_end;
    if (begin == end) continue;
    const auto* list = constraints(a, b);
    if (!list) continue;
    const auto valid = [&](int k) { return ctx.contacts[size_t(k)].feature < list->size(); };
    // A region on a sphere gets one row, the gradient of the region's volume (the mono-volume of sect. 4.1,
    // which the cells' gradients add up to, sect. 5): every normal of a sphere passes through its centre, so
    // whatever the pressure over its cap, the cap pushes through the centre and holds one degree of freedom,
    // as one point contact does. Rows per cell on a cap hold every cell's volume from growing: the cells at
    // the front of a rolling ball's cap, which the motion carries into the ground while those at the back
    // empty, braked the ball like a flat-bottomed body (1.30 m/s of 2 after 2 s on level ground; 1.99 with the
    // region's row). Other regions keep one row per cell (sect. 5), so that the pressure can shift across the
    // patch and hold a box, a torus or a scanned mesh against rocking and tipping (one row per curved region of
    // any body, found by the cap's area against its depth, let stacked tori and the armadillos rock on).
    // Separate regions keep separate rows: the volume the paper constrains is that of each region.
    const bool sphere = ctx.bodies[size_t(a)].shape.type == ShapeType::Sphere ||
                        ctx.bodies[size_t(b)].shape.type == ShapeType::Sphere;
    const bool region_rows = !set_.multi_volume || (set_.sphere_region_rows && sphere);
    // The pair's volumes by intersection region when they get a row per region: with multi-volume, cells that
    // touch (share a face, an edge or a corner) cut one connected region of the intersection; without, the pair
    // has one volume.
    const int count = end - begin;
    const auto cell_of = [&](int k) -> const std::array<int, 3>& { return (*list)[ctx.contacts[size_t(k)].feature].cell; };
    region_of_.assign(size_t(count), -1);
    int region_count = 0;
    for (int k = begin; k < end && region_rows; ++k) {
      if (!valid(k) || region_of_[size_t(k - begin)] >= 0) continue;
      region_of_[size_t(k - begin)] = region_count;
      region_stack_.assign(1, k);
      while (!region_stack_.empty()) {
        const std::array<int, 3> cell = cell_of(region_stack_.back());
        region_stack_.pop_back();
        for (int o = begin; o < end; ++o) {
          if (!valid(o) || region_of_[size_t(o - begin)] >= 0) continue;
          const std::array<int, 3>& other = cell_of(o);
          if (std::abs(other[0] - cell[0]) <= 1 && std::abs(other[1] - cell[1]) <= 1 && std::abs(other[2] - cell[2]) <= 1) {
            region_of_[size_t(o - begin)] = region_count;
            region_stack_.push_back(o);
          }
        }
      }
      ++region_count;
    }
    // Per region, and for the whole pair, the sum of the volumes (the mono-volume of sect. 4.1 over the
    // volumes that push) and of their last impulses.
    struct Sum {
      Vec3 lin[2] = {Vec3::Zero(), Vec3::Zero()}, ang[2] = {Vec3::Zero(), Vec3::Zero()};
      double impulse = 0.0;
      bool warm = false;
    };
    std::vector<Sum> regions(static_cast<size_t>(region_count));
    Sum whole;
    for (int k = begin; k < end; ++k) {
      if (!valid(k)) continue;
      const Contact& contact = ctx.contacts[size_t(k)];
      const Constraint& c = (*list)[contact.feature];
      const int region = region_of_[size_t(k - begin)];
      for (Sum* sum : {&whole, region >= 0 ? &regions[size_t(region)] : nullptr}) {
        if (!sum) continue;
        for (int s = 0; s < 2; ++s) {
          sum->lin[s] -= c.linear[s];
          sum->ang[s] -= c.angular[s];
        }
        sum->impulse += contact.normal_impulse;
        sum->warm |= set_.warm_start && contact.persisted;
      }
    }
    const Contact& first_contact = ctx.contacts[size_t(begin)];
    const BodyVelocity before[2] = {{ctx.bodies[size_t(a)].linear_velocity, ctx.bodies[size_t(a)].angular_velocity},
                                    {ctx.bodies[size_t(b)].linear_velocity, ctx.bodies[size_t(b)].angular_velocity}};
    const BodyVelocity step_change[2] = {free_[size_t(a)], free_[size_t(b)]};
    // The normal row of a sum, unilateral (rho >= 0). Restitution (Newton's law on the sum as on one point
    // contact): the approach speed along the normal is the rate the volume grew at the start of the step over
    // the area that pushes, -J_V u / |dV/dx_b| (m/s); after an impact the volume must shrink at e times it. An
    // impact is an approach faster than one step of the step's forces gives (g h under gravity) and than
    // restitution_threshold, as under lcp: a resting contact's whole approach is the step's own, so it never
    // bounces, at any step and size (a fixed 0.5 m/s took two 2 cm balls meeting at 0.4 m/s for resting ones).
    const auto sum_row = [&](const Sum& sum) {
      Row row = make_row(a, b, sum.lin[0], sum.ang[0], sum.lin[1], sum.ang[1]);
      row.lo = 0.0;
      const double push = sum.lin[1].norm();  // force per unit rho on b, m^2
      if (push > 0.0) {
        const double vn = row.value(before[0], before[1]) / push;
        const double step_approach = row.value(step_change[0], step_change[1]) / push;
        row.target = push * impact_bounce(vn, vn, step_approach, first_contact.restitution, set_.restitution_threshold);
      }
      row.lambda = sum.warm && push > 0 ? sum.impulse / push : 0.0;
      return row;
    };
    const Row pair = sum_row(whole);
    if (pair.inv_diag == 0.0) continue;
    // Friction per volume, bounded by the pressure of its normal row (its own, or its region's); each volume's
    // rows right after its normal row, so that the sweeps see a volume's pressure before its friction.
    auto add_friction = [&](int k, int normal_row) {
      const Contact& contact = ctx.contacts[size_t(k)];
      if (contact.feature >= list->size() || contact.friction <= 0 || set_.friction_directions == 0) return;
      const Constraint& c = (*list)[contact.feature];
      // Tangents (sect. 4.2) by Gram-Schmidt from the normal; the first along the weighted sliding velocity
      // v_rel = sum_k A_k dp_k/dt = sum_bodies S v + w x M (eq. 20) when there is one.
      Vec3 vrel = Vec3::Zero();
      const int body[2] = {a, b};
      for (int s = 0; s < 2; ++s) vrel += c.area_sum[s] * vel_[size_t(body[s])].v + vel_[size_t(body[s])].w.cross(c.area_moment[s]);
      vrel -= c.normal * c.normal.dot(vrel);
      Vec3 t[2];
      if (vrel.norm() > 1e-9 * std::max(c.area, 1e-12)) {
        t[0] = vrel.normalized();
        t[1] = c.normal.cross(t[0]);
      } else {
        tangent_basis(c.normal, t[0], t[1]);
      }
      for (int f = 0; f < set_.friction_directions; ++f) {
        // Eq. 21 chained to the rigid DOFs: [S t^T, (M x t)^T] per body; the friction pyramid as a box,
        // |beta_i| <= mu rho (eq. 8-10 with the symmetric basis of eq. 21), or (friction_cone circle) the two
        // directions' beta in the disc of radius mu rho, the cone the pyramid approximates.
        Row friction = make_row(a, b, c.area_sum[0] * t[f], c.area_moment[0].cross(t[f]),
                                c.area_sum[1] * t[f], c.area_moment[1].cross(t[f]));
        friction.normal_row = normal_row;
        friction.follows = true;
        friction.mu = contact.friction;
        friction.cone = tangent_cone(f, set_.friction_directions, set_.friction_cone == 0);
        const double s1 = c.area_sum[1];
        friction.lambda = set_.warm_start && contact.persisted && s1 != 0 ? contact.friction_impulse.dot(t[f]) / s1 : 0.0;
        rows_.push_back(friction);
        row_contact_.push_back(k);
      }
    };
    const int first = int(rows_.size());
    blocks_.push_back({begin, end, first, 0});
    // An impact on a pair with rows per cell is the pair's (solve_impacts); a region's row carries its own
    // bounce target.
    if (!region_rows && pair.target > 0.0) impact_rows_.push_back(pair);
    for (int r = 0; r < region_count; ++r) {
      Row row = sum_row(regions[size_t(r)]);
      if (row.inv_diag == 0.0) continue;
      const int normal_row = int(rows_.size());
      rows_.push_back(row);
      row_contact_.push_back(-1);
      counters_.add(kCountVolumeRows, 1);
      for (int k = begin; k < end; ++k)
        if (region_of_[size_t(k - begin)] == r) {
          normal_row_of_[size_t(k)] = normal_row;
          add_friction(k, normal_row);
        }
    }
    // Eq. 16-17 with g = -V per volume: -J_V u >= 0 (it does not grow), impulse -J_V^T rho, rho >= 0.
    for (int k = begin; k < end && !region_rows; ++k) {
      if (!valid(k)) continue;
      const Contact& contact = ctx.contacts[size_t(k)];
      const Constraint& c = (*list)[contact.feature];
      Row normal = make_row(a, b, -c.linear[0], -c.angular[0], -c.linear[1], -c.angular[1]);
      if (normal.inv_diag == 0.0) continue;
      normal.lo = 0.0;
      const double cell_push = c.linear[1].norm();
      normal.lambda = set_.warm_start && contact.persisted && cell_push > 0 ? contact.normal_impulse / cell_push : 0.0;
      normal_row_of_[size_t(k)] = int(rows_.size());
      rows_.push_back(normal);
      row_contact_.push_back(k);
      counters_.add(kCountVolumeRows, 1);
      add_friction(k, int(rows_.size()) - 1);
    }
    blocks_.back().rows = int(rows_.size()) - first;
  }
  apply_impulses(rows_, vel_);
  profile_.modelling_s += seconds_since(t0);
  sub_stages_.add(kRows, 1e3 * seconds_since(t0));
  auto t1 = Clock::now();
  solve_impacts(ctx);
  // Symmetric Gauss-Seidel: sweeps alternate direction, so that the rows taken first do not take more of the
  // load (forward sweeps only loaded a gripped block's low-z cells first, and the friction's torque about the
  // grip axis tipped it over as it slipped).
  sweep_residuals_.clear();
  // The joints' rows, which lead the rows, are solved as a block after each sweep, and their motors are held for the
  // second half of the sweeps (joints/joint_solve.h).
  motor_row_indices(joint_rows_, 0, motor_rows_);
  // The sweeps over all rows end on the contacts: forwards after the joints' rows, where there are any.
  PgsSettings settings = pgs_settings(set_.iterations, &sweep_residuals_);
  settings.end_forward = !joint_rows_.empty();
  const JointBlock joints{int(joint_rows_.size()), set_.joint_sweeps};
  const PgsResult result = solve_joints_and_contacts(rows_, joints, motor_rows_, vel_, settings);
  merge_convergence(sweep_residuals_);
  ctx.stats.iterations += result.sweeps;
  profile_.solve_s += seconds_since(t1);
  sub_stages_.add(kVelocityPgs, 1e3 * seconds_since(t1));
  layer_lambda_.assign(rows_.size(), 0.0);  // the layers' part (none without them)
  if (set_.stack_layers) {
    t1 = Clock::now();
    solve_layers(ctx);
    profile_.solve_s += seconds_since(t1);
    sub_stages_.add(kStackLayers, 1e3 * seconds_since(t1));
  }
  ctx.stats.residual = std::max(ctx.stats.residual, result.residual);
  ctx.stats.rows += int(rows_.size());
  for (size_t i = 0; i < joint_rows_.size(); ++i) joint_warm_.forget(joint_rows_[i].joint);
  for (size_t i = 0; i < joint_rows_.size(); ++i) joint_warm_.keep(joint_rows_[i], rows_[i].lambda);
  for (const ContactBlock& k : blocks_) {
    profile_.velocity_rows += k.rows;
    // Impulses on b in N s, for drawing and warm starting: per volume, its normal row's force per unit
    // multiplier times it (its own row's, or its region's: the region's pressure times the volume's push
    // |dV/dx_b|), and the same for its friction rows.
    const Contact& first = ctx.contacts[size_t(k.contact)];
    const auto* list = constraints(first.a, first.b);
    // Under stack_layers the whole solve's and the layers' impulses add up; the layers' part is kept apart for
    // their warm start.
    for (int ci = k.contact; ci < k.contact_end; ++ci) {
      Contact& contact = ctx.contacts[size_t(ci)];
      const int row = normal_row_of_[size_t(ci)];
      const bool speculative = (contact.feature & kSpeculativeFeature) != 0;  // a point row: N s already
      const double push = row < 0 || speculative ? 1.0 : (*list)[contact.feature].linear[1].norm();
      contact.layer_normal_impulse = row < 0 ? 0.0 : layer_lambda_[size_t(row)] * push;
      contact.normal_impulse = row < 0 ? 0.0 : rows_[size_t(row)].lambda * push + contact.layer_normal_impulse;
      contact.friction_impulse = Vec3::Zero();
      contact.layer_friction_impulse = Vec3::Zero();
    }
    for (int r = k.first_row; r < k.first_row + k.rows; ++r) {
      const int ci = row_contact_[size_t(r)];
      const Row& row = rows_[size_t(r)];
      if (ci < 0 || row.normal_row < 0) continue;
      ctx.contacts[size_t(ci)].friction_impulse += (row.lambda + layer_lambda_[size_t(r)]) * row.jb_lin;
      ctx.contacts[size_t(ci)].layer_friction_impulse += layer_lambda_[size_t(r)] * row.jb_lin;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = vel_[i].v;
    b.angular_velocity = vel_[i].w;
  }
  ctx.stats.sleeping = 0;
}

// The rows of a pair's speculative contacts [begin, end) (see collide), as one block: per contact a point row
// along its normal, J u >= -gap / h (the gap may close within the step, not more; eq. 5 on the linearised
// separation g + h J u >= 0), or Newton's law when an approach faster than restitution_threshold would close it
// (the bounce as under lcp), then its friction rows bounded by +-mu lambda_n (eq. 8-10).
void VolumeSolver::add_speculative_rows(StepContext& ctx, int begin, int end) {
  const int first = int(rows_.size());
  blocks_.push_back({begin, end, first, 0});
  const double h = ctx.dt;
  for (int k = begin; k < end; ++k) {
    const Contact& c = ctx.contacts[size_t(k)];
    const bool warm = set_.warm_start && c.persisted;
    const Vec3 ra = c.position - ctx.bodies[size_t(c.a)].position, rb = c.position - ctx.bodies[size_t(c.b)].position;
    Row normal = point_row(c.a, c.b, ra, rb, c.normal);
    prepare(normal, masses_);
    if (normal.inv_diag == 0.0) continue;
    normal.lo = 0.0;
    const Vec3 vrel = (vel_[size_t(c.b)].v + vel_[size_t(c.b)].w.cross(rb)) - (vel_[size_t(c.a)].v + vel_[size_t(c.a)].w.cross(ra));
    const double vn = vrel.dot(c.normal);
    const double gap = std::max(-c.depth, 0.0);
    // An impact, as for the volumes (solve_velocities) and under lcp: an approach the contact had before the
    // step's forces acted (the bodies' velocities at the start of the step), faster than one step of them and
    // than the threshold.
    const Body& ba = ctx.bodies[size_t(c.a)];
    const Body& bb = ctx.bodies[size_t(c.b)];
    const double vn_before = normal.value({ba.linear_velocity, ba.angular_velocity}, {bb.linear_velocity, bb.angular_velocity});
    const double step_approach = normal.value(free_[size_t(c.a)], free_[size_t(c.b)]);
    const double bounce =
        vn * h < -gap ? impact_bounce(vn_before, vn, step_approach, c.restitution, set_.restitution_threshold) : 0.0;
    // The row turns the bodies back at the gap, before they touch: leaving it at e v, the bounce of Newton's law at
    // the contact, they rose the gap higher than the rebound does (a ball at 1/250 s turned 7.7 mm above the
    // ground and its apex was 8.7 mm too high, 17 % of the rebound). They leave at the speed the rebound has when
    // it passes the gap again, against the step's forces along the normal (a = g under gravity):
    // sqrt((e v)^2 - 2 a gap), the energy of the bounce at the contact; 0 when the rebound does not reach the gap.
    const double toward = std::max(-step_approach / h, 0.0);  // m/s^2 the step's forces close the gap at
    const double leave = bounce > 0.0 ? std::sqrt(std::max(bounce * bounce - 2.0 * toward * gap, 0.0)) : 0.0;
    normal.target = bounce > 0.0 ? leave : -gap / h;
    normal.lambda = warm ? c.normal_impulse : 0.0;
    const int normal_row = int(rows_.size());
    normal_row_of_[size_t(k)] = normal_row;
    rows_.push_back(normal);
    row_contact_.push_back(k);
    if (c.friction <= 0.0 || set_.friction_directions == 0) continue;
    Vec3 t[2];
    sliding_tangents(c.normal, vrel, t[0], t[1]);
    for (int f = 0; f < set_.friction_directions; ++f) {
      Row friction = point_row(c.a, c.b, ra, rb, t[f]);
      prepare(friction, masses_);
      friction.normal_row = normal_row;
      friction.follows = true;
      friction.mu = c.friction;
      friction.cone = tangent_cone(f, set_.friction_directions, set_.friction_cone == 0);
      friction.lambda = warm ? c.friction_impulse.dot(t[f]) : 0.0;
      rows_.push_back(friction);
      row_contact_.push_back(k);
    }
  }
  blocks_.back().rows = int(rows_.size()) - first;
}

// Impacts on flat contacts, before the contact solve: each such pair with a bounce target gets one row, the sum of
// its volumes' rows (the pair's whole volume, whose gradient the cells add up to), driven to its target, and
// these rows are solved alone; the volumes' own rows then only keep the volumes from growing (target 0).
// Newton's law thus acts on the pair as a whole, as on one point contact, and its impulse passes through the
// pair's centre of pressure: with one bounce target per cell, the PGS sweeps, taking the cells one after the
// other, had not balanced them after 20 sweeps, and a ball dropped square on the ground rebounded spinning and
// sideways (0.98 m/s sideways, 93 % of its rebound speed). A curved contact's pair row carries its target.
void VolumeSolver::solve_impacts(StepContext& ctx) {
  if (impact_rows_.empty()) return;
  const PgsResult r = solve_pgs(impact_rows_, vel_, pgs_settings(set_.iterations));
  ctx.stats.iterations += r.sweeps;
}

}  // namespace cl
