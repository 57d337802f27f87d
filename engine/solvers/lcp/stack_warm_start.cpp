#include "solvers/lcp/stack_warm_start.h"

#include <algorithm>
#include <limits>

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

// A layer's top bodies balanced per task on the world's threads: about 200 contacts, far longer than handing a task
// out. A layer of fewer than twice as many bodies is balanced on the calling thread.
constexpr int kBodiesPerTask = 32;

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

void StackWarmStart::apply(const std::vector<Body>& bodies, const Contact& c, const Vec3& impulse) {
  for (const auto& [i, sign] : {std::pair{c.b, 1.0}, std::pair{c.a, -1.0}}) {
    const Body& body = bodies[size_t(i)];
    if (!body.is_dynamic()) continue;
    force_[size_t(i)] += sign * impulse;
    moment_[size_t(i)] += (c.position - body.position).cross(sign * impulse);
  }
}

// Body s's lower contacts, when their normals agree (kParallel), take the least change of their impulses of the step
// before (in the sum of squares) that leaves s at rest over f h with everything found on it so far, in the push
// along their normal n and the moments about the two axes across it: A lambda = b, where contact i's column of A is
// what its unit normal impulse gives of these three, and b is minus the same of the impulses on s so far (its own
// weight, the bodies above, the friction of its lower contacts). The sideways push and the moment about n are the
// friction's, left to the sweeps. The moments are divided by the contacts' largest lever arm L, so that the
// equations weigh alike at any size: lambda = lambda0 + A^T y, (A A^T) y = b - A lambda0, solved where well posed
// (solve_well_posed), then no impulse below 0. What the lower contacts push on the bodies below is added to theirs,
// or with `defer` left in pushes_ to be added later. Each contact is read once.
void StackWarmStart::balance(const std::vector<Body>& bodies, const ContactList& contacts, int s, size_t first,
                             size_t last, std::vector<LowerPoint>& lower_points, bool defer) {
  const Vec3 centre = bodies[size_t(s)].position;
  Vec3 force = -force_[size_t(s)], moment = -moment_[size_t(s)];  // b, in world axes
  double arm2 = 0.0;
  bool parallel = true;
  lower_points.clear();
  for (size_t i = first; i < last; ++i) {
    const int k = contacts_[i];
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
  for (size_t i = 0; i < lower_points.size(); ++i) {
    const LowerPoint& p = lower_points[i];
    if (defer) pushes_[first + i].body = -1;
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
    const Vec3 moment = (p.position - below.position).cross(impulse);
    if (defer) {
      pushes_[first + i] = {p.other, impulse, moment};
    } else {
      force_[size_t(p.other)] += impulse;
      moment_[size_t(p.other)] += moment;
    }
  }
}

void StackWarmStart::find(const std::vector<Body>& bodies, const ContactList& contacts, const ContactGraph& graph,
                          int group, const std::vector<BodyVelocity>& free, double fraction, TaskPool* pool) {
  const std::vector<StackLayer>& layers = graph.layers(group);
  const std::vector<int>& height = graph.height_of_body();
  force_.resize(bodies.size());
  moment_.resize(bodies.size());
  // Each body's own f h of gravity and applied force, as the impulse it gives: f M (u* - u).
  for (int i : graph.groups()[size_t(group)].bodies) {
    const Body& body = bodies[size_t(i)];
    const BodyVelocity& u = free[size_t(i)];
    force_[size_t(i)] = fraction * body.mass * u.v;
    moment_[size_t(i)] = u.w.isZero(0.0) ? Vec3::Zero() : Vec3(fraction * (body.inertia_world() * u.w));
  }
  points_.resize(size_t(pool ? pool->threads() : 1));
  // Top-down: a layer's top bodies are balanced once every body above them has been.
  for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer) {
    lower_.clear();
    for (int e : layer->edges) {
      const GraphEdge& edge = graph.edges()[size_t(e)];
      const int ha = height[size_t(edge.a)], hb = height[size_t(edge.b)];
      if (ha != hb) {
        const int top = ha > hb ? edge.a : edge.b;
        for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) lower_.push_back({top, k});
        continue;
      }
      // Contacts between bodies of one height (side by side in a row) are given: the impulses of the step before.
      for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
        const Contact& c = contacts[size_t(k)];
        if (c.persisted) apply(bodies, c, previous_friction(c) + previous_normal(c) * c.normal);
      }
    }
    std::sort(lower_.begin(), lower_.end());
    contacts_.resize(lower_.size());
    for (size_t i = 0; i < lower_.size(); ++i) contacts_[i] = lower_[i].second;
    spans_.clear();
    for (size_t first = 0, last = 0; first < lower_.size(); first = last) {
      for (last = first; last < lower_.size() && lower_[last].first == lower_[first].first;) ++last;
      spans_.emplace_back(first, last);
    }
    // A wide layer's top bodies each on its own, on the pool's threads: a body's lower contacts push only on bodies
    // of the layer below (a layer's edges join heights i and i + 1, or two bodies of height i + 1 side by side), so
    // no body of the layer is pushed on by another before it is balanced, and the pushes are added after all of
    // them, in contact order: the sums of the balances one by one.
    const int spans = int(spans_.size());
    const bool threaded = pool && spans >= 2 * kBodiesPerTask;
    if (threaded) pushes_.resize(lower_.size());
    for_ranges(threaded ? pool : nullptr, spans, kBodiesPerTask, [&](int from, int to, int worker) {
      for (int j = from; j < to; ++j) {
        const auto [first, last] = spans_[size_t(j)];
        balance(bodies, contacts, lower_[first].first, first, last, points_[size_t(worker)], threaded);
      }
    });
    if (!threaded) continue;
    for (const Push& push : pushes_) {
      if (push.body < 0) continue;
      force_[size_t(push.body)] += push.force;
      moment_[size_t(push.body)] += push.moment;
    }
  }
}

}  // namespace cl
