#include "solvers/lcp/stack_warm_start.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "core/spin_wait.h"

namespace cl {

namespace {

using Vec3d = Eigen::Vector3d;
using Mat3d = Eigen::Matrix3d;

// A body's lower contacts are balanced only when their normals agree to this (1 - cos of the angle between them,
// about 0.8 degrees): one face resting on faces, as in a stack. Normals that differ (a bowl in a bowl, a wedge
// between two supports) would balance a sideways push by pressing against each other, with impulses many times the
// load's; there the warm start of the step before is kept.
constexpr double kParallel = 1e-4;

// Pivots of the balance's equations below this fraction of the largest are left out (solve_well_posed): a moment
// the contact points hardly span (points all on one line, about which the body would tip) is left to the sweeps.
constexpr double kLeastPivot = 1e-2;

// The least group whose layers are read on one of the world's threads while another balances them (find).
constexpr size_t kThreadedBodies = 1024;

// y with G y = r in the directions where the symmetric positive semidefinite 3x3 G is well above zero, 0 in the
// rest: Cholesky with diagonal pivoting (largest first), stopped at the first pivot below kLeastPivot times the
// largest diagonal entry.
Vec3d solve_well_posed(Mat3d g, const Vec3d& r) {
  constexpr int n = 3;
  int perm[n] = {0, 1, 2};
  const double largest = g.diagonal().maxCoeff();
  int rank = 0;
  for (int k = 0; k < n; ++k) {
    int j = k;
    for (int i = k + 1; i < n; ++i)
      if (g(i, i) > g(j, j)) j = i;
    if (!(g(j, j) > kLeastPivot * largest)) break;
    if (j != k) {
      g.row(k).swap(g.row(j));
      g.col(k).swap(g.col(j));
      std::swap(perm[k], perm[j]);
    }
    const double d = std::sqrt(g(k, k));
    g(k, k) = d;
    for (int i = k + 1; i < n; ++i) g(i, k) /= d;
    for (int c = k + 1; c < n; ++c)
      for (int i = c; i < n; ++i) g(i, c) -= g(i, k) * g(c, k);
    rank = k + 1;
  }
  // L L^T z = (P^T r) on the leading `rank` rows.
  double z[n];
  for (int i = 0; i < rank; ++i) {
    double s = r[perm[i]];
    for (int k = 0; k < i; ++k) s -= g(i, k) * z[k];
    z[i] = s / g(i, i);
  }
  for (int i = rank - 1; i >= 0; --i) {
    double s = z[i];
    for (int k = i + 1; k < rank; ++k) s -= g(k, i) * z[k];
    z[i] = s / g(i, i);
  }
  Vec3d y = Vec3d::Zero();
  for (int i = 0; i < rank; ++i) y[perm[i]] = z[i];
  return y;
}

// (r x n) . t1 and (r x n) . t2, component by component in the order Eigen's cross and dot take them on x86-64
// (the same values bit for bit). Written out, the cross product stays in registers: Eigen's stored its components
// one by one and read them back two at a time, a load that waits for both stores (an eighth of the balance's time).
struct CrossDots {
  double t1, t2;
};
inline CrossDots cross_dots(const Vec3& r, const Vec3& n, const Vec3& t1, const Vec3& t2) {
  const double m0 = r.y() * n.z() - r.z() * n.y();
  const double m1 = r.z() * n.x() - r.x() * n.z();
  const double m2 = r.x() * n.y() - r.y() * n.x();
  return {(m0 * t1.x() + m1 * t1.y()) + m2 * t1.z(), (m0 * t2.x() + m1 * t2.y()) + m2 * t2.z()};
}

}  // namespace

void StackWarmStart::clear(size_t contacts) { normal_.assign(contacts, std::numeric_limits<double>::quiet_NaN()); }

// Body s's lower contacts, when their normals agree (kParallel), take the least change of their impulses of the step
// before (in the sum of squares) that leaves s at rest over f h with everything found on it so far, in the push
// along their normal n and the moments about the two axes across it: A lambda = b, where contact i's column of A is
// what its unit normal impulse gives of these three, and b is minus the same of the impulses on s so far (its own
// weight, the bodies above, the friction of its lower contacts). The sideways push and the moment about n are the
// friction's, left to the sweeps. The moments are divided by the contacts' largest lever arm L, so that the
// equations weigh alike at any size: lambda = lambda0 + A^T y, (A A^T) y = b - A lambda0, solved where well posed
// (solve_well_posed), then no impulse below 0. What the lower contacts push on the bodies below is added to theirs.
// Each contact is read once.
void StackWarmStart::balance(const std::vector<Body>& bodies, const ContactList& contacts, int s,
                             std::span<const std::pair<int, int>> lower) {
  const Vec3 centre = bodies[size_t(s)].position;
  Vec3 force = -force_[size_t(s)], moment = -moment_[size_t(s)];  // b, in world axes
  double arm2 = 0.0;
  bool parallel = true;
  std::vector<LowerPoint>& lower_points = points_;
  lower_points.clear();
  for (const auto& [top, k] : lower) {
    const Contact& c = contacts[size_t(k)];
    const double sign = c.b == s ? 1.0 : -1.0;  // the contact's impulse on s is sign (lambda n + friction)
    // A contact new this step starts from 0 and is balanced with the rest.
    const double lambda0 = c.persisted ? previous_normal(c) : 0.0;
    const Vec3 friction0 = c.persisted ? Vec3(sign * previous_friction(c)) : Vec3::Zero();
    LowerPoint p{k, c.b == s ? c.a : c.b, c.position, sign * c.normal, lambda0, friction0};
    const Vec3 arm = p.position - centre;
    arm2 = std::max(arm2, arm.squaredNorm());
    force -= p.lambda0 * p.normal + p.friction;
    moment -= arm.cross(p.lambda0 * p.normal + p.friction);
    if (!lower_points.empty() && p.normal.dot(lower_points.front().normal) < 1.0 - kParallel) parallel = false;
    lower_points.push_back(p);
  }
  Vec3d y = Vec3d::Zero();
  Vec3 n = Vec3::Zero(), t1 = Vec3::Zero(), t2 = Vec3::Zero();
  const double to_unit = arm2 > 0.0 ? 1.0 / std::sqrt(arm2) : 1.0;  // 1 / L
  if (parallel && !lower_points.empty()) {
    n = lower_points.front().normal;
    t1 = n.unitOrthogonal();
    t2 = n.cross(t1);
    Mat3d g = Mat3d::Zero();
    for (const LowerPoint& p : lower_points) {
      const CrossDots m = cross_dots(p.position - centre, p.normal, t1, t2);
      const Vec3d column(p.normal.dot(n), to_unit * m.t1, to_unit * m.t2);
      g.noalias() += column * column.transpose();
    }
    y = solve_well_posed(g, Vec3d(force.dot(n), to_unit * moment.dot(t1), to_unit * moment.dot(t2)));
  }
  for (const LowerPoint& p : lower_points) {
    double lambda = p.lambda0;
    if (parallel) {
      const CrossDots m = cross_dots(p.position - centre, p.normal, t1, t2);
      lambda = std::max(0.0, lambda + y[0] * p.normal.dot(n) + to_unit * (y[1] * m.t1 + y[2] * m.t2));
      normal_[size_t(p.contact)] = std::isfinite(lambda) ? lambda : 0.0;
      lambda = normal_[size_t(p.contact)];
    }
    const Body& below = bodies[size_t(p.other)];
    if (!below.is_dynamic()) continue;
    const Vec3 impulse = -(lambda * p.normal + p.friction);  // on the body below
    force_[size_t(p.other)] += impulse;
    moment_[size_t(p.other)] += (p.position - below.position).cross(impulse);
  }
}

// Layer `layer`'s lower contacts by top body, and the pushes of its contacts between bodies of one height (side by
// side in a row), whose impulses are given: those of the step before, on c.b and their opposite on c.a.
void StackWarmStart::read_layer(const std::vector<Body>& bodies, const ContactList& contacts,
                                const ContactGraph& graph, const StackLayer& layer, LayerPlan& plan) const {
  const std::vector<int>& height = graph.height_of_body();
  plan.lower.clear();
  plan.side.clear();
  for (int e : layer.edges) {
    const GraphEdge& edge = graph.edges()[size_t(e)];
    const int ha = height[size_t(edge.a)], hb = height[size_t(edge.b)];
    if (ha != hb) {
      const int top = ha > hb ? edge.a : edge.b;
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) plan.lower.push_back({top, k});
      continue;
    }
    for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
      const Contact& c = contacts[size_t(k)];
      if (!c.persisted) continue;
      const Vec3 impulse = previous_friction(c) + previous_normal(c) * c.normal;
      for (const auto& [i, sign] : {std::pair{c.b, 1.0}, std::pair{c.a, -1.0}}) {
        const Body& body = bodies[size_t(i)];
        if (body.is_dynamic())
          plan.side.push_back({i, sign * impulse, (c.position - body.position).cross(sign * impulse)});
      }
    }
  }
  std::sort(plan.lower.begin(), plan.lower.end());
  plan.spans.clear();
  for (size_t first = 0, last = 0; first < plan.lower.size(); first = last) {
    for (last = first; last < plan.lower.size() && plan.lower[last].first == plan.lower[first].first;) ++last;
    plan.spans.emplace_back(first, last);
  }
}

void StackWarmStart::find(const std::vector<Body>& bodies, const ContactList& contacts, const ContactGraph& graph,
                          int group, const std::vector<BodyVelocity>& free, double fraction, TaskPool* pool,
                          const std::function<void()>& beside) {
  const std::vector<StackLayer>& layers = graph.layers(group);
  const std::vector<int>& members = graph.groups()[size_t(group)].bodies;
  force_.resize(bodies.size());
  moment_.resize(bodies.size());
  // Each body's own f h of gravity and applied force, as the impulse it gives: f M (u* - u).
  for (int i : members) {
    const Body& body = bodies[size_t(i)];
    const BodyVelocity& u = free[size_t(i)];
    force_[size_t(i)] = fraction * body.mass * u.v;
    moment_[size_t(i)] = u.w.isZero(0.0) ? Vec3::Zero() : Vec3(fraction * (body.inertia_world() * u.w));
  }
  // Top-down: a layer's top bodies are balanced once every body above them has been. A body's lower contacts push
  // only on bodies of the layer below (a layer's edges join heights i and i + 1, or two bodies of height i + 1 side by
  // side), so the balance of a layer's top bodies, one by one, reads nothing that another of them writes.
  auto walk = [&](const LayerPlan& plan) {
    for (const Push& push : plan.side) {
      force_[size_t(push.body)] += push.force;
      moment_[size_t(push.body)] += push.moment;
    }
    for (const auto& [first, last] : plan.spans)
      balance(bodies, contacts, plan.lower[first].first, std::span(plan.lower).subspan(first, last - first));
  };
  const int n = int(layers.size());
  if (!pool || pool->threads() < 2 || pool->serial() || members.size() < kThreadedBodies) {
    plans_.resize(1);
    for (int l = n; l-- > 0;) {
      read_layer(bodies, contacts, graph, layers[size_t(l)], plans_[0]);
      walk(plans_[0]);
    }
    if (beside) beside();
    return;
  }
  // What read_layer reads does not depend on the balance, so on two threads one reads the layers top-down, each
  // into its own plan, while the other balances each as soon as it is read: the same balance in the same order.
  // Were the second task's turn to come only once the first is done (a pool whose other thread is busy), the layers
  // are all read first and then balanced.
  if (plans_.size() < size_t(n)) plans_.resize(size_t(n));
  std::atomic<int> read{0};  // layers read, from the top
  pool->run(2, [&](int task, int) {
    if (task == 0) {
      for (int i = 0; i < n; ++i) {
        read_layer(bodies, contacts, graph, layers[size_t(n - 1 - i)], plans_[size_t(n - 1 - i)]);
        read.store(i + 1, std::memory_order_release);
      }
      if (beside) beside();
      return;
    }
    SpinWait wait;
    for (int i = 0; i < n; ++i) {
      while (read.load(std::memory_order_acquire) <= i) wait();
      wait.reset();
      walk(plans_[size_t(n - 1 - i)]);
    }
  });
}

}  // namespace cl
