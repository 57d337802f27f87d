// implicit-penalty's contact report: one entry per touching pair, its penalty wrench as the backward Euler step
// applied it (Xu, Zhao, Barbic 2014, eq. 15-17: the force at the start of the step plus its gradients times the
// step's change of the bodies' positions, rotations and velocities; the explicit integrator applies the force at
// the start), plus the Coulomb friction rows' impulses / h (contact_model physical) or the anchors' forces
// (per_point). It acts at the centroid of the pair's penetrating points, and is split into its normal and friction
// parts along the direction its penalty forces pushed (pair_normal; a ball's on a plane exactly, and two round
// bodies' or a ball and a box's line between their closest points): the pair's one contact.
#include <algorithm>
#include <map>

#include "solvers/implicit_penalty/implicit_penalty_solver.h"
#include "solvers/report_contacts.h"

namespace cl {

using namespace implicit_penalty;

void ImplicitPenaltySolver::report_contacts(const StepContext& ctx, ContactReport& out) const {
  out.dt = ctx.dt;
  const bool implicit = set_.integrator == Integrator::Implicit;
  std::map<PairKey, Vec3> force_on_b;
  // Eigen's vectors start uninitialised: a pair's sum starts at zero explicitly.
  const auto sum_of = [&](const PairKey& key) -> Vec3& {
    return force_on_b.try_emplace(key, Vec3::Zero()).first->second;
  };
  for (const PairForce& f : forces_) {
    if (f.b < 0) continue;
    const PairKey key{std::min(f.a, f.b), std::max(f.a, f.b)};
    if (!points_.count(key)) continue;  // a servo, motor or limit: not a contact
    Vec12 wrench = f.wrench;
    if (implicit && size_t(std::max(f.a, f.b)) < state_.size()) {
      Vec12 dq, du;
      const auto delta = [&](int i, int at) {
        const Body& body = ctx.bodies[size_t(i)];
        const BodyPose& start = state_[size_t(i)].pose;
        dq.segment<3>(at) = body.position - start.x;
        dq.segment<3>(at + 3) = size_t(i) < rotation_.size() ? rotation_[size_t(i)] : Vec3::Zero();
        du.segment<3>(at) = body.linear_velocity - start.v;
        du.segment<3>(at + 3) = body.angular_velocity - start.w;
      };
      delta(f.a, 0);
      delta(f.b, 6);
      wrench += f.d_pos * dq + f.d_vel * du;
    }
    // The wrench's b entries are the forces on f.b; a pair stored as (b, a) gives them on a.
    sum_of(key) += f.b == key.second ? Vec3(wrench.segment<3>(6)) : Vec3(wrench.segment<3>(0));
  }
  if (set_.model == ContactModel::Physical && ctx.dt > 0.0)
    for (const Row& r : friction_rows_) {
      if (r.normal_row < 0 || r.a < 0 || r.b < 0) continue;  // the normal rows only bound the friction
      const PairKey key{std::min(r.a, r.b), std::max(r.a, r.b)};
      sum_of(key) += (r.lambda / ctx.dt) * (r.b == key.second ? r.jb_lin : r.ja_lin);
    }
  // Each touching pair has one contact (pair_contact.h): at the centroid of its penetrating points, along the
  // normal its penalty forces pushed along (a point's own surface normal, which the narrow phase's contact
  // carries, leans with the shell's spacing: on a ball it put a frictionless contact's force partly in the tangent
  // plane).
  for (const auto& [key, force] : force_on_b) {
    auto it = std::lower_bound(ctx.contacts.begin(), ctx.contacts.end(), key, [](const Contact& c, const PairKey& k) {
      return c.a != k.first ? c.a < k.first : c.b < k.second;
    });
    if (it == ctx.contacts.end() || it->a != key.first || it->b != key.second) continue;
    const auto touch = touches_.find(key);
    const Vec3 normal = touch != touches_.end() && !touch->second.normal.isZero() ? touch->second.normal : it->normal;
    report_pair(ctx.bodies, ctx.contacts, key.first, key.second, &it->position, normal, force, out);
  }
}

}  // namespace cl
