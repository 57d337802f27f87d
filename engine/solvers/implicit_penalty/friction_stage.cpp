// The friction stage of the implicit penalty method: the per-point model's anchors (Xu, Zhao and Barbic 2014,
// sec. 4, after Yamane and Nakamura [14]), explicit forces added before the implicit step, and the physical model's
// Coulomb friction patches (patch_friction.h), solved after it.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "solvers/implicit_penalty/implicit_penalty_solver.h"
#include "solvers/implicit_penalty/patch_friction.h"
#include "solvers/implicit_penalty/plane_ball.h"
#include "solvers/implicit_penalty/round_pair.h"

namespace cl {

using namespace implicit_penalty;

// Static and dynamic Coulomb friction by anchors (sec. 4, after Yamane and Nakamura [14]). A new contact point
// is pinned where it is; a spring pulls it back to the pin (static friction) until the spring force exceeds
// mu times the point's normal force; then the point slides with dynamic friction mu_d |F_n| against its
// tangential velocity, and is pinned again once it slows below the slip speed. Explicit: no gradients.
void ImplicitPenaltySolver::friction_forces(const StepContext& ctx, const PairKey& pair, double mu,
                                            const PairGains& gains) {
  if (mu <= 0.0 || gains.anchor_k <= 0.0) {
    anchors_.erase(pair);
    return;
  }
  const PairPoints& pp = points_.at(pair);
  auto& old_anchors = anchors_[pair];
  std::unordered_map<uint32_t, Anchor> anchors;
  anchors.reserve(pp.a_in_b.size() + pp.b_in_a.size());
  const int count = int(pp.a_in_b.size() + pp.b_in_a.size());
  const double k = gains.k;
  const double inv_mass = state_[pair.first].mass_inverse() + state_[pair.second].mass_inverse();
  const double reduced_mass = inv_mass > 0 ? 1.0 / inv_mass : 0.0;
  auto one_side = [&](const std::vector<PenetratingPoint>& points, int field, int owner, bool b_points) {
    const BodyPose& pf = state_[field].pose;
    const BodyPose& po = state_[owner].pose;
    Vec3 force_on_owner_sum = Vec3::Zero(), torque_owner = Vec3::Zero(), torque_field = Vec3::Zero();
    for (const PenetratingPoint& p : points) {
      const Vec3 point = po.x + po.R * p.r_b;
      Vec3 n = pf.R * p.g_a;  // field gradient: the direction the point body is pushed
      const double len = n.norm();
      if (len < 1e-12) continue;
      n /= len;
      const double normal_force = k * std::abs(p.d);
      const Vec3 v_rel = (po.v + po.w.cross(point - po.x)) - (pf.v + pf.w.cross(point - pf.x));
      const Vec3 v_t = v_rel - v_rel.dot(n) * n;
      const uint32_t key = anchor_key(b_points, p.index);
      Anchor anchor;
      auto it = old_anchors.find(key);
      if (it != old_anchors.end()) anchor = it->second;
      else anchor.local = pf.R.transpose() * (point - pf.x);  // new contact: pinned where it is
      Vec3 f = Vec3::Zero();
      if (!anchor.sliding) {
        const Vec3 s = pf.x + pf.R * anchor.local - point;
        f = gains.anchor_k * (s - s.dot(n) * n) - gains.anchor_c * v_t;
        if (f.norm() > mu * normal_force) anchor.sliding = true;  // static limit exceeded: release the anchor
      } else if (v_t.norm() < set_.slip_speed) {
        anchor.sliding = false;  // slowed down: pin again here
        anchor.local = pf.R.transpose() * (point - pf.x);
      }
      if (anchor.sliding) {
        // Explicit dynamic friction may not reverse the sliding within the step: each of the pair's points
        // removes at most its share of the tangential momentum of the reduced mass (stops light bodies
        // pinched by heavy ones from chattering).
        const double speed = v_t.norm();
        const Vec3 dir = speed > 1e-12 ? Vec3(v_t / speed) : Vec3(-f.normalized());
        const double limit = reduced_mass * speed / (ctx.dt * count);
        f = -std::min(set_.dynamic_ratio * mu * normal_force, limit) * dir;
      }
      anchors.emplace(key, anchor);
      force_on_owner_sum += f;
      torque_owner += (point - po.x).cross(f);
      torque_field -= (point - pf.x).cross(f);
    }
    state_[owner].force += force_on_owner_sum;
      state_[owner].torque += torque_owner;
    state_[field].force -= force_on_owner_sum;
    state_[field].torque += torque_field;
  };
  one_side(pp.a_in_b, pair.second, pair.first, false);
  one_side(pp.b_in_a, pair.first, pair.second, true);
  old_anchors.swap(anchors);
}

// The joints of the groups that have friction rows, as rows of the same solve (sect. 5, eq. 62-64: joints and
// contacts are solved together). Their rigid constraints (eq. 52-54, and a hinge servo without gains, eq. 66)
// each keep the rate the implicit step left, so a friction impulse on a jointed body passes through its joints to
// the bodies it is joined to. A PD servo (eq. 65) is the shared servo row, the same backward Euler spring-damper
// (joints/joint.h), starting from the impulse it delivered in the implicit step: a friction impulse that moves
// its coordinate meets the servo's stiffness and damping as it would inside the implicit step, within max_force.
// Without the joints a gripper's fingers took the friction that holds its box as if they were free, the next step's
// joint solve gave it back, and the box slid out between them whatever its friction (issue 38: 0.060 m instead
// of 0.27); without the servos the lift's damper (3000 N s/m) met the box's weight, handed on each step after the
// implicit solve, as a jump of the lift's speed, and held it with 38 N instead of 4.9 (the lift 2.4 cm short).
// The motors' dampers and the limits' springs act in the implicit step and are left out here.
void ImplicitPenaltySolver::add_joint_rows(const StepContext& ctx) {
  std::vector<char> rubbed(ctx.bodies.size(), 0);
  for (const Row& r : friction_rows_) rubbed[size_t(r.a)] = rubbed[size_t(r.b)] = 1;
  joint_rows_.clear();
  for (size_t k = 0; k < groups_.size(); ++k) {
    if (group_joints_[k].empty() ||
        std::none_of(groups_[k].begin(), groups_[k].end(), [&](int b) { return rubbed[size_t(b)] != 0; }))
      continue;
    for (int j : group_joints_[k]) {
      Joint rigid = ctx.joints[size_t(j)];
      rigid.cfm = 0.0;  // this method ignores the joints' ERP and CFM (unsupported())
      rigid.limit.enabled = false;
      rigid.motor.enabled = false;
      joint_rows(rigid, j, ctx.bodies, ctx.dt, joint_rows_);
    }
  }
  const double h = ctx.dt;
  for (JointRow& r : joint_rows_) {
    const BodyVelocity& ua = velocities_[size_t(r.a)];
    const BodyVelocity& ub = velocities_[size_t(r.b)];
    const Joint& joint = ctx.joints[size_t(r.joint)];
    r.lambda = 0.0;
    if (r.kind == kRowServo && servo_is_pd(joint)) {
      // The impulse the servo delivered: h times its force at the step's end, (target - rate) / cfm, or its bound
      // when its force at the step's start passed max_force (then a constant force, penalty_joints.h).
      const BodyPose& pa = state_[size_t(r.a)].pose;
      const BodyPose& pb = state_[size_t(r.b)].pose;
      const double soft = joint.servo.damping + h * joint.servo.stiffness;
      const double start = r.target * soft - joint.servo.damping * r.value({pa.v, pa.w}, {pb.v, pb.w});
      r.lambda = std::abs(start) * h > r.hi ? std::copysign(r.hi, start) : (r.target - r.value(ua, ub)) / r.cfm;
    } else {
      r.target = r.value(ua, ub);
    }
    prepare(r, inverse_masses_);
    friction_rows_.push_back(r);
  }
}

// Coulomb friction of the physical model, at the velocity level after the implicit step: one patch per touching
// pair (patch_friction.h), its rows solved by the shared projected Gauss-Seidel. The rows' impulses change the
// velocities; the momenta and the rotation of the position stage follow them.
int ImplicitPenaltySolver::coulomb_friction(StepContext& ctx) {
  const double h = ctx.dt;
  std::map<PairKey, double> friction_of;
  for (const Contact& c : ctx.contacts) friction_of.emplace(PairKey{c.a, c.b}, c.friction);
  const size_t n = ctx.bodies.size();
  velocities_.resize(n);
  for (size_t i = 0; i < n; ++i) velocities_[i] = {ctx.bodies[i].linear_velocity, ctx.bodies[i].angular_velocity};
  load_inverse_masses(ctx.bodies, inverse_masses_);
  friction_rows_.resize(kPatchRows * points_.size());
  size_t at = 0;
  for (const auto& [pair, pp] : points_) {
    auto it = friction_of.find(pair);
    auto g = gains_.find(pair);
    if (it == friction_of.end() || it->second <= 0.0 || g == gains_.end()) continue;
    const PatchSide sides[2] = {{&pp.a_in_b, pair.second, pair.first}, {&pp.b_in_a, pair.first, pair.second}};
    PatchFrictionSettings settings;
    settings.k = g->second.k;
    settings.k_d = g->second.k_d;
    settings.mu = it->second;
    settings.dynamic_ratio = set_.dynamic_ratio;
    settings.slip_speed = set_.slip_speed;
    settings.h = h;
    settings.rolls = round_shape(ctx.bodies[size_t(pair.first)].shape) || round_shape(ctx.bodies[size_t(pair.second)].shape);
    // A pair pushed along the line of its centres (contact_forces) rubs across that line. Across the points'
    // sampled pushes instead, a 1e-6 kg ball under a 1e6 kg one rubbed along a line tilted 0.024 rad out of the
    // plane of the contact, and its friction, bounded by the heavy ball's weight, threw it out at 420 m/s.
    const auto touch = touches_.find(pair);
    if (touch != touches_.end() && pushed_along_one_line(ctx.bodies[size_t(pair.first)].shape,
                                                         ctx.bodies[size_t(pair.second)].shape))
      settings.normal = touch->second.normal;
    if (const std::optional<PlaneBall>& exact = g->second.exact) {
      // A ball on a plane: its normal force at the end of the step from its exact depth, as its springs push.
      const Body& A = ctx.bodies[size_t(pair.first)];
      const Body& B = ctx.bodies[size_t(pair.second)];
      const double separating = exact->normal.dot(B.linear_velocity - A.linear_velocity);
      const double K = g->second.k * double(pp.a_in_b.size() + pp.b_in_a.size());
      const double c = g->second.k_d * double(pp.a_in_b.size() + pp.b_in_a.size());
      settings.normal_force = std::max(0.0, K * kCapSecant * exact->depth - (K * h + c) * separating);
      // The ball's lowest point toward the plane (axes: the lowest point and the centre, in the pair's order).
      settings.centre = ctx.bodies[size_t(pair.first)].shape.type == ShapeType::Sphere ? exact->axes.b : exact->axes.a;
    }
    if (patch_friction_rows(pair.first, pair.second, sides, ctx.bodies, settings, inverse_masses_, int(at),
                            friction_rows_.data() + at))
      at += kPatchRows;
  }
  friction_rows_.resize(at);
  if (friction_rows_.empty()) return 0;
  add_joint_rows(ctx);
  PgsSettings pgs;
  pgs.iterations = set_.friction_iterations;
  pgs.symmetric = true;
  pgs.pool = ctx.pool;  // the lanes' levels on the world's threads
  sweep_residuals_.clear();
  pgs.residuals = &sweep_residuals_;
  const PgsResult result = solve_pgs(friction_rows_, velocities_, pgs);
  merge_convergence(sweep_residuals_);
  ctx.stats.iterations += result.sweeps;
  ctx.stats.residual = std::max(ctx.stats.residual, result.residual);
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = velocities_[i].v;
    b.angular_velocity = velocities_[i].w;
    momentum_[i] = b.inertia_world() * b.angular_velocity;
    rotation_[i] = h * (state_[i].rotation_map * b.angular_velocity);
  }
  return result.sweeps;
}

}  // namespace cl
