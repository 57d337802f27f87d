// The physical contact model's sizes and stiffness: each body's resting depth and shell spacing, fitted to its size
// (shape_penetration, shell_spacing); the weight each pair carries, passed down its stack
// (find_loads), the pair's stiffness from it (pair_stiffness), and the mean depth at which a stack's contacts hold
// their loads (pair_penetration). Xu, Zhao and Barbic 2014 give one stiffness per point (sect. 4.1, eq. 19) and
// scale it by the contact count (eq. 77); the physical model shares one stiffness per pair among its points.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <Eigen/Eigenvalues>

#include "graph/stack_loads.h"
#include "solvers/implicit_penalty/penalty_joints.h"
#include "solvers/implicit_penalty/point_runs.h"
#include "solvers/implicit_penalty/implicit_penalty_solver.h"

namespace cl {

using namespace implicit_penalty;

// The physical model holds a ball of radius R at a deepest depth of 2 `penetration` (K times the mean depth of
// its cap, half the deepest), where its contact patch has radius a = sqrt(2 R 2 penetration); a shell spacing of
// sqrt(R penetration) puts pi a^2 / spacing^2 = 4 pi, about 12, points in it. Coarser, a ball rests on 2 to 5
// points that enter and leave as it rolls, each jump of the pair's point count moving the force (a rolling
// ball then gains or loses speed), and two balls meet on shells not symmetric about their line of centres.
// The physical model's resting depth for a body of this shape: `penetration`, at most `penetration_ratio` of the
// shape's least extent (a plane: no bound). At 1 mm a 2 cm box sank 5% of its size, and on a plane of tan 0.5 with
// mu 0.51 the friction's moment tilted it by about p / (size / 2) per unit of the moment's eccentricity, so far
// that its uphill half lifted and it rolled down the plane (40 rad/s in 2 s); a 2 cm ball sank 10% of its radius.
double ImplicitPenaltySolver::shape_penetration(const Shape& shape) const {
  double least = std::numeric_limits<double>::infinity();
  switch (shape.type) {
    case ShapeType::Plane: break;
    case ShapeType::Sphere:
    case ShapeType::Capsule: least = 2.0 * shape.radius; break;
    case ShapeType::Box: least = 2.0 * shape.half_extents.minCoeff(); break;
    case ShapeType::Mesh: least = (shape.mesh_properties.local_bounds.hi - shape.mesh_properties.local_bounds.lo).minCoeff(); break;
  }
  return std::max(kLeastPenetration, std::min(set_.penetration, set_.penetration_ratio * least));
}

// A box of the physical model has its spacing fitted to its size: at least 3 points along its shortest edge (a
// 2 cm box at 4 cm had one point per face and tumbled down a 20 degree incline, 11 m in a second) and at most
// `box_points` along its longest (a 1 m box face at 4 cm had 625 points, each a contact and a friction row: a tower
// of ten took 173 ms a step, a pyramid of 210 boxes passed 250,000 contacts at its first step). The contact's
// stiffness is shared among the points (pair_gains), so their number changes how finely the patch is sampled, not
// how stiff it is.
double ImplicitPenaltySolver::shell_spacing(const Shape& shape) const {
  if (set_.model != ContactModel::Physical) return set_.point_spacing;
  if (shape.type != ShapeType::Box) return round_shell_spacing(shape, set_.point_spacing, shape_penetration(shape));
  const Vec3 edges = 2.0 * shape.half_extents;
  const double fitted = std::max(std::min(set_.point_spacing, edges.minCoeff() / 3.0), edges.maxCoeff() / set_.box_points);
  return std::max(kLeastShellSpacing, fitted);
}

// The total stiffness K of a touching pair of the physical model: it holds a body resting on a fixed one under
// standard gravity at the mean depth `penetration` (K d_mean = m g0). The mass a contact carries is the weight
// passed down through it from the stack above (find_loads), at least the pair's reduced mass: a box at the
// bottom of a tower of twenty is held at `penetration` as a single box is, instead of sinking twenty times
// deeper. Before, a pair took the whole mass of its group at and above its stack height, so two bricks side by
// side at the bottom of a 10-row wall were a spring sized by the whole wall pushing them apart (1e8 to 1e10
// N/m), and with friction on those faces the wall blew up at step 9.
// The stiffness is the contact's own while it lasts: a spring whose stiffness rises by dK while it is
// compressed to the mean depth d gains dK d^2 / 2 from nothing. So K is set at the pair's first touch, and
// follows the load afterwards only downwards (which releases energy) or while the mean depth is at most
// sqrt(2) `penetration` (a rise then adds at most dK (sqrt(2) p)^2 / 2 = dW p, what the added weight does over one
// `penetration`; at `penetration` itself, a ball resting at its depth was as often just below it, and a 74 kg box
// landing on a 1.8 kg ball in scenes/pile.json met a spring 40 times too soft and drove it 0.28 m into the ground). A body landing
// on a stack whose lower contacts are deep from their own impacts (meshes through each other by centimetres)
// then loads them as springs of fixed stiffness; re-setting K from the new load there pumped a stack of tori
// (scenes/torus_stack.json) to megajoules.
void ImplicitPenaltySolver::pair_stiffness(const PairKey& pair, const PairNormal& contact, double penetration,
                                          Touch& touch) const {
  const double inv_mass = state_[pair.first].mass_inverse() + state_[pair.second].mass_inverse();
  if (inv_mass <= 0.0) return;
  const double m = 1.0 / inv_mass;
  const auto it = carried_.find(pair);
  const double carried = std::max(m, it != carried_.end() ? it->second : 0.0);
  const double K = carried * kStandardGravity / penetration;
  const double mean_depth = contact.count > 0 ? contact.secant * contact.deepest : 0.0;
  if (touch.stiffness == 0.0 || K < touch.stiffness || mean_depth <= std::sqrt(2.0) * penetration) touch.stiffness = K;
}

// A stack of compliant contacts is a column of elastic joints under its own weight, which buckles (Greenhill's
// heavy column) unless the joints are stiff enough against tilting: with the parameter penetration at 1 mm a
// column of twenty 10 cm boxes has an unstable mode (growing at 8 per second at h = 1/60 s, 4.4 per second in a
// linear analysis of the continuous model) that bends it into an S and topples it. A contact j whose patch has the second moment J_j (about its centre, the least over the
// tangent directions) and stiffness K_j = W_j / p_j (W_j its load) resists a tilt with K_j J_j per radian,
// while its load, whose centre lies H_j above it, topples with W_j H_j per radian. Writing each body's tilt as
// the sum of the joints' relative tilts below it, Cauchy-Schwarz bounds the weight's energy by the joints' when
// the sum over the joints of a column of W_j H_j / (K_j J_j) = H_j p_j / J_j is below 1; with
// p_j = J_j / (c H_j n) for a stack of n layers the sum is at most 1 / c. Round bodies (spheres, capsules)
// roll instead of tilting on their contacts and keep `penetration`, as do pairs outside any stack and pairs with
// a mesh (with this rule on them scenes/volume_pile.json blew up at step 36 and scenes/torus_stack.json reached
// 1.57 MJ; that pile is fragile under this method anyway: at penetration 1.01 mm it blows up at step 183).
double ImplicitPenaltySolver::pair_penetration(const StepContext& ctx, const PairKey& pair,
                                              const PairPoints& points) const {
  const double p = std::min(shape_penetration(ctx.bodies[size_t(pair.first)].shape),
                            shape_penetration(ctx.bodies[size_t(pair.second)].shape));
  if (set_.stack_margin <= 0.0) return p;
  auto round = [&](int i) {
    const ShapeType t = ctx.bodies[size_t(i)].shape.type;
    return t == ShapeType::Sphere || t == ShapeType::Capsule;
  };
  if (round(pair.first) || round(pair.second)) return p;
  auto mesh = [&](int i) { return ctx.bodies[size_t(i)].shape.type == ShapeType::Mesh; };
  if (mesh(pair.first) || mesh(pair.second)) return p;
  const int upper = load_[size_t(pair.first)] <= load_[size_t(pair.second)] ? pair.first : pair.second;
  const std::vector<int>& group_of = ctx.graph.group_of_body();
  if (!(load_[size_t(upper)] > 0.0) || !std::isfinite(load_[size_t(upper)]) || size_t(upper) >= group_of.size() ||
      group_of[size_t(upper)] < 0)
    return p;
  const int layers = ctx.graph.groups()[size_t(group_of[size_t(upper)])].layer_count;
  const auto known = normals_.find(pair);  // found by find_loads on these points
  const PairNormal contact =
      known != normals_.end()
          ? known->second
          : pair_normal(state_[size_t(pair.first)].pose, state_[size_t(pair.second)].pose, points.a_in_b, points.b_in_a);
  if (layers <= 0 || contact.count == 0) return p;
  // The patch: the pair's points (both sides), about their centre, in the tangent plane. Summed as moments of each
  // side's points in its body's frame (run_moments), about the first point (near the patch, so that the second
  // moment loses nothing to the patch's distance from the bodies' centres).
  const BodyPose& pose_a = state_[size_t(pair.first)].pose;
  const BodyPose& pose_b = state_[size_t(pair.second)].pose;
  const Vec3 origin = !points.a_in_b.empty() ? Vec3(pose_a.x + pose_a.R * points.a_in_b.front().r_b)
                                             : Vec3(pose_b.x + pose_b.R * points.b_in_a.front().r_b);
  Vec3 first = Vec3::Zero();      // sum of the points less the origin
  Mat3 second = Mat3::Zero();     // sum of their outer products
  int n = 0;
  for (const auto& [list, pose] : {std::pair(&points.a_in_b, &pose_a), std::pair(&points.b_in_a, &pose_b)}) {
    if (list->empty()) continue;
    const RunMoments m = run_moments(*list);
    const Vec3 c = pose->x - origin, r = pose->R * m.r;
    first += m.count * c + r;
    second += m.count * c * c.transpose() + c * r.transpose() + r * c.transpose() + pose->R * m.rr * pose->R.transpose();
    n += m.count;
  }
  const Vec3 mean = first / double(n);
  const Vec3 centre = origin + mean;
  second = second / double(n) - mean * mean.transpose();
  const Mat3 tangent = Mat3::Identity() - contact.normal * contact.normal.transpose();
  const Mat3 J = tangent * second * tangent;
  const Vec3 spread = Eigen::SelfAdjointEigenSolver<Mat3>(J, Eigen::EigenvaluesOnly).eigenvalues();
  const double least = spread(1);
  // A point or a line of points (a corner or an edge on the other body) has no second moment across it, and no
  // stiffness makes it resist a tilt about it: the rule would take the least penetration, K a hundred times the
  // load's, for nothing. A box's corner meeting a 2.5 kg brick under a 125 kg box then met 1.2e8 N/m, 409 kN at
  // 3.2 mm, and threw the brick at 30 m/s.
  if (!(least > 1e-3 * spread(2))) return p;
  const double H = std::abs((load_centre_[size_t(upper)] - centre).dot(contact.normal));
  if (H <= 0.0) return p;
  return std::clamp(least / (set_.stack_margin * H * layers), kLeastPenetration, p);
}

// The mass of the bodies of each body's contact group whose stack height is at least its own, and its centre
// (graph/stack_loads.h; for the stacks' rule, pair_penetration); and the weight each touching pair carries (carried_). Bodies outside a stack (floating
// groups, fixed bodies) carry nothing here.
void ImplicitPenaltySolver::find_loads(const StepContext& ctx) {
  const std::vector<int>& height = ctx.graph.height_of_body();
  stack_loads(ctx.graph, ctx.bodies, load_, &load_centre_);

  // The weight each touching pair carries, passed down the stack from the top: a body's own mass and what rests
  // on it go to the pairs that hold it from below (with a body of a lower stack height, or a fixed one), shared
  // by how much each pair's normal points up (against gravity). A pair of bodies of one height (bricks side by
  // side in a wall) carries none of it: its normal is across the load.
  carried_.clear();
  normals_.clear();
  motor_loads(ctx);
  const double g = ctx.gravity.norm();
  if (g <= 0.0) return;
  const Vec3 up = -ctx.gravity / g;
  struct Support {
    PairKey pair;
    double weight;
    int below;  // the holding body, -1 when it has no unknowns
  };
  std::vector<std::vector<Support>> supports(ctx.bodies.size());
  const auto height_of = [&](int i) {
    return ctx.bodies[size_t(i)].is_dynamic() ? (size_t(i) < height.size() ? height[size_t(i)] : ContactGraph::kUnreached)
                                               : 0;
  };
  for (const auto& [pair, pp] : points_) {
    const int ha = height_of(pair.first), hb = height_of(pair.second);
    if (ha == hb || std::max(ha, hb) >= ContactGraph::kUnreached) continue;
    const PairNormal& n = normals_
                              .emplace(pair, pair_normal(state_[size_t(pair.first)].pose,
                                                         state_[size_t(pair.second)].pose, pp.a_in_b, pp.b_in_a))
                              .first->second;
    if (n.count == 0) continue;
    // The normal pushes b out of a: it holds b up from a by N . up, a up from b by -N . up.
    const bool b_above = hb > ha;
    const double weight = (b_above ? 1.0 : -1.0) * n.normal.dot(up);
    if (weight <= 0.0) continue;
    const int above = b_above ? pair.second : pair.first, below = b_above ? pair.first : pair.second;
    supports[size_t(above)].push_back({pair, weight, ctx.bodies[size_t(below)].is_dynamic() ? below : -1});
  }
  std::vector<std::pair<int, int>> by_height;  // (height, body), highest first
  std::vector<double> resting(ctx.bodies.size(), 0.0);  // kg: the weight resting on each body from above
  for (const ContactGroup& group : ctx.graph.groups()) {
    if (group.floating) continue;
    by_height.clear();
    for (int b : group.bodies)
      if (ctx.bodies[size_t(b)].is_dynamic()) by_height.push_back({height_of(b), b});
    std::sort(by_height.begin(), by_height.end(), std::greater<>());
    for (const auto& [h, b] : by_height) {
      double total_weight = 0.0;
      for (const Support& s : supports[size_t(b)]) total_weight += s.weight;
      if (total_weight <= 0.0) continue;
      const double load = ctx.bodies[size_t(b)].mass + resting[size_t(b)];
      for (const Support& s : supports[size_t(b)]) {
        const double share = load * s.weight / total_weight;
        carried_[s.pair] += share;
        if (s.below >= 0) resting[size_t(s.below)] += share;
      }
    }
  }
}

// The load a joint's velocity motor puts on the contacts of the bodies it drives (MotorPush), added to the weight
// they carry, so that the physical model holds a motor's push at `penetration` as it holds a weight. The motor is
// an implicit damper of gain c = 100 I / h (motor_force): blocked, it pushes with c times its speed, and in the
// step it and the contact share the motion by their stiffnesses, so a contact of fixed stiffness K stopped the
// motion only at the depth c v / K, deeper the smaller the step. A door of 20 kg driven at 1 rad/s by a motor of
// unbounded torque into a fixed post (tests/engine/joints/joint_test.cpp) went through it at every step of 1/100 s
// and less (1.39 to 1.49 rad for the post's 0.37).
void ImplicitPenaltySolver::motor_loads(const StepContext& ctx) {
  MotorPush push;
  for (const Joint& joint : ctx.joints) {
    if (!motor_push(joint, ctx.bodies, ctx.dt, kMotorGain, push)) continue;
    for (const auto& [pair, pp] : points_) {
      const bool a_driven = pair.first == joint.body_a || pair.first == joint.body_b;
      const bool b_driven = pair.second == joint.body_a || pair.second == joint.body_b;
      if (!a_driven && !b_driven) continue;
      const PairNormal n =
          pair_normal(state_[size_t(pair.first)].pose, state_[size_t(pair.second)].pose, pp.a_in_b, pp.b_in_a);
      if (n.count == 0) continue;
      // The normal pushes b out of a: a's point deepens the contact moving along it, b's moving against it.
      const double load = push.load(pair.first, n.point, n.normal) + push.load(pair.second, n.point, -n.normal);
      if (load > 0.0) carried_[pair] += load / kStandardGravity;
    }
  }
}

}  // namespace cl
