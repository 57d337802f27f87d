#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

namespace {
// kg: the least effective mass of the pair at `at` over the tangent directions of n, 1 / the largest eigenvalue of
// P K P, K = sum over the dynamic bodies of 1/m - [r]x I^-1 [r]x (the point's response to an impulse) and P the
// projection on the tangent plane; +infinity when neither body is dynamic.
double tangent_mass_at(const Body& a, const Body& b, const Vec3& xa, const Vec3& xb, const Vec3& at, const Vec3& n) {
  Mat3 K = Mat3::Zero();
  const auto add = [&](const Body& body, const Vec3& x) {
    if (!body.is_dynamic()) return;
    Mat3 r;
    const Vec3 d = at - x;
    r << 0, -d.z(), d.y(), d.z(), 0, -d.x(), -d.y(), d.x(), 0;
    K += body.inv_mass * Mat3::Identity() - r * body.inv_inertia_world * r;
  };
  add(a, xa);
  add(b, xb);
  const Mat3 P = Mat3::Identity() - n * n.transpose();
  const double largest = Eigen::SelfAdjointEigenSolver<Mat3>(P * K * P, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
  return largest > 0.0 ? 1.0 / largest : std::numeric_limits<double>::infinity();
}
}  // namespace

double PidPenaltySolver::tangent_mass(const Body& a, const Body& b, const Motion& A, const Motion& B, const Vec3& at,
                                      const Vec3& n) {
  return tangent_mass_at(a, b, A.x, B.x, at, n);
}

void PidPenaltySolver::penalty_forces(const std::vector<Body>& bodies, const std::vector<Motion>& m, double h,
                                      double elapsed, std::vector<Vec3>& force, std::vector<Vec3>& torque,
                                      bool record) {
  struct Loaded {
    Vec3 p;
    double depth, P, I, D;
    double f = 0.0;            // N: eq. 3's force, once r is known (0 for a point that carries none)
    Vec3 at = Vec3::Zero();    // where it acts (line_of_action)
    int point = -1;            // into the pair's candidates
  };
  std::vector<Loaded> loaded;
  size_t index = 0;
  for (auto& entry : pairs_) {
    // Named references rather than structured bindings: the lambdas below capture them, which C++20 allows
    // for bindings but clang before 16 does not.
    const PairKey& key = entry.first;
    Pair& pair = entry.second;
    PairView* pv = record && index < views_.size() ? &views_[index] : nullptr;
    ++index;
    if (pair.mode != Mode::Penalty) continue;
    const int ia = key.first, ib = key.second;
    const Motion& A = m[size_t(ia)];
    const Motion& B = m[size_t(ib)];
    const Gains g = pair_gains(key, pair, bodies[size_t(ia)], bodies[size_t(ib)], h);
    const Vec3 n = contact_normal(bodies, pair, m, key);

    // The points forces act at: the bottom polygon, or the deepest candidate alone. The derivative term of eq. 1
    // takes each point's own normal velocity v(rho), blended by point_damping with the velocity at the centre of
    // the points. A pair with a sphere or capsule takes the centre's alone: a round body's contact patch stays
    // where it touches while its material turns through it, and damping its material points would brake rolling
    // (a ball rolling at 2 m/s on the ground lost 0.3 m/s in 2 s).
    const bool round = is_round(bodies[size_t(ia)].shape) || is_round(bodies[size_t(ib)].shape);
    const double own_share = round ? 0.0 : set_.point_damping;
    loaded.clear();
    double deepest = 0.0;
    Vec3 middle = Vec3::Zero();
    const Drift moved = pair.shells ? drift(bodies, m, key, pair) : Drift{};
    // Under the implicit integrator a point that touches (depth 0, as a body placed on another is) is a row too:
    // its spring has no force at the substep's start, but the substep's load, pressing it in, meets h k_p and the
    // damping at once. Left out, a ball placed on an incline fell freely through its first substep, which at a
    // step of 1 ms is the whole step, and slid at g sin theta h, 1.4 times the a h of one step's rolling.
    const bool implicit = set_.integrator != Integrator::Rk4;
    const bool springs = set_.integrator == Integrator::ImplicitEuler && record;
    const double least_depth = springs ? -kTouchSlack : 0.0;
    auto consider = [&](const Candidate& c) {
      if (pair.shells && !may_touch(c, moved, 0.0)) return;  // certainly outside: no force
      Vec3 p;
      double d;
      if (!depth_of(bodies, m, key, pair, c, p, d) || d <= least_depth) return;
      d = std::max(d, 0.0);
      loaded.push_back({p, d, g.kp * d, g.ki * pair.integral, 0.0, 0.0, Vec3::Zero(), int(&c - pair.points.data())});
      deepest = std::max(deepest, d);
    };
    if (set_.points == PointMode::MultiPoint) {
      for (int i : pair.bottom) consider(pair.points[size_t(i)]);
    } else {
      for (const Candidate& c : pair.points) consider(c);
      if (!loaded.empty()) {
        auto it = std::max_element(loaded.begin(), loaded.end(),
                                   [](const Loaded& x, const Loaded& y) { return x.depth < y.depth; });
        const Loaded one = *it;
        loaded.assign(1, one);
      }
    }
    // Touching rows only for a pair that touches and is not yet in: among points in, they are left to the springs.
    if (deepest > 0.0) std::erase_if(loaded, [](const Loaded& l) { return l.depth <= 0.0; });
    // The integral's part of each point in proportion to its depth (its mean over the points still k_i I, as
    // eq. 3's equal share gives when every point carries force): an equal share gave a point that barely touches
    // as much as the deepest, so the force jumped as points came and went at the polygon's shallow edge, and a
    // box pushed sideways kept rocking at 0.1 rad/s (without the integral term it came to rest).
    double depth_sum = 0.0;
    for (const Loaded& l : loaded) depth_sum += l.depth;
    for (Loaded& l : loaded) l.I = depth_sum > 0.0 ? l.I * double(loaded.size()) * l.depth / depth_sum : 0.0;
    for (const Loaded& l : loaded) middle += l.p;
    if (!loaded.empty()) {
      middle /= double(loaded.size());
      const double v = (B.velocity_at(middle) - A.velocity_at(middle)).dot(n);
      for (Loaded& l : loaded) {
        const double own = (B.velocity_at(l.p) - A.velocity_at(l.p)).dot(n);
        l.D = -g.kv_normal * (v + own_share * (own - v));
      }
    }
    // Eq. 3: the force of each point, shared among the r points that carry force. Under the Euler integrators the
    // derivative term is integrated implicitly (D here only for the views): its point is recorded instead, in
    // damped_ (semi_implicit_euler, for damp_implicitly) or, with the spring, in springs_ (implicit_euler, for
    // solve_springs), which then applies the whole force.
    const auto explicit_d = [&](const Loaded& l) { return implicit ? 0.0 : l.D; };
    int r = 0;
    for (const Loaded& l : loaded)
      if (l.P + l.I + explicit_d(l) > 0.0) ++r;
    if (r == 0 && springs) r = int(loaded.size());  // only touching rows: they share the pair's gains
    double total = 0.0;
    Vec3 centre = Vec3::Zero();
    const double c_point = g.kv_normal / std::max(r, 1);
    const double k_point = g.kp / std::max(r, 1);
    for (Loaded& l : loaded) {
      l.f = std::max(l.P + l.I + explicit_d(l), 0.0) / std::max(r, 1);
      if (l.f <= 0.0 && !springs) continue;
      l.at = line_of_action(bodies, m, key, n, l.p);
      total += l.f;
      centre += l.f * l.at;
      if (springs) {
        springs_.push_back({&pair, ia, ib, l.at, n, l.f, own_share * c_point + h * k_point, 0.0, l.point});
        continue;
      }
      if (implicit && record && own_share > 0.0) damped_.push_back({&pair, ia, ib, l.at, n, own_share * c_point, l.f});
      const Vec3 F = l.f * n;
      force[size_t(ib)] += F;
      torque[size_t(ib)] += (l.at - B.x).cross(F);
      force[size_t(ia)] -= F;
      torque[size_t(ia)] -= (l.at - A.x).cross(F);
    }
    // Friction at the centre of the normal forces: a tangential spring-damper on the pair's accumulated slip
    // (static friction), saturated at mu times the normal force (Coulomb sliding), so sliding slows at mu g and
    // sticking holds to within the spring's stretch. The slip is the integral of the tangential relative velocity
    // at the contact, so a rolling body, whose contact point does not slip, stretches nothing.
    Vec3 ft = Vec3::Zero();
    double twist_stiffness = 0.0, twist_limit = 0.0;
    if (springs && total <= 0.0 && !loaded.empty()) {  // touching rows alone: their middle
      centre = Vec3::Zero();
      for (const Loaded& l : loaded) centre += l.at;
      centre /= double(loaded.size());
    }
    if (total > 0.0 || (springs && !loaded.empty())) {
      if (total > 0.0) centre /= total;
      if (implicit && record && own_share < 1.0) {  // the damping on the centre's velocity, at the centre
        if (springs)
          springs_.push_back({&pair, ia, ib, centre, n, 0.0, (1.0 - own_share) * g.kv_normal, -total, -1});
        else damped_.push_back({&pair, ia, ib, centre, n, (1.0 - own_share) * g.kv_normal, total});
      }
      if (pair.friction > 0.0) {
        const Vec3 u = B.velocity_at(centre) - A.velocity_at(centre);
        const Vec3 ut = u - n.dot(u) * n;
        const double share = bound_share(key);
        // Under the implicit integrator the tangential friction is solved with the normal springs (solve_springs):
        // two rows at the centre that stop its slip, held to Coulomb's limit of the same solve's normal force. The
        // explicit spring below serves the other integrators, and pairs with a body of a joint: the joints' solve
        // comes after the springs' and moves a finger back from where the rows took it with its box, so a gripper's
        // box slid out of its light fingers a fraction of a substep's fall per substep (its friction, a spring on
        // the slip, builds over the substeps to hold it).
        const bool rows = set_.friction == FrictionModel::Rows && springs && !jointed_[size_t(ia)] &&
                          !jointed_[size_t(ib)];
        pair.friction_rows = rows;
        if (rows) {
          // The rows' spring on the pair's accumulated slip (its stretch, held within Coulomb's limit at the end of
          // each substep) keeps what a joint undoes after the solve: a gripper's light fingers, which the rows move
          // with the box and the joints then move back, let the box slip out by a constant fraction per substep.
          const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
          // The tilt rows (a flat pair whose force is spread over two points or more): the pair's relative turn
          // about each tangent axis held as the pressure shifting across the patch would hold it, up to the normal
          // force times the patch's reach from its centre along the direction it tilts (solve_springs). The points'
          // springs alone hold a tilt only once the body has turned into it: the moment of the friction at a box's
          // base turned the box forward about its base while it slid, the base stuck as the box rolled over it, and a
          // box at the edge of sliding slid 0.8 % fast.
          if (!round && r >= 2) {
            const Body& body_a = bodies[size_t(ia)];
            const Body& body_b = bodies[size_t(ib)];
            for (const Vec3& axis : {t2, t1}) {  // about t2 the patch tilts along t1, and about t1 along t2
              const Vec3 along = axis.cross(n);
              double reach = 0.0;
              for (const Loaded& l : loaded)
                if (l.f > 0.0) reach = std::max(reach, std::abs((l.at - centre).dot(along)));
              const double inverse = (body_a.is_dynamic() ? axis.dot(body_a.inv_inertia_world * axis) : 0.0) +
                                     (body_b.is_dynamic() ? axis.dot(body_b.inv_inertia_world * axis) : 0.0);
              if (!(inverse > 0.0) || !(reach > 0.0)) continue;
              SpringRow row{&pair, ia, ib, centre, axis, 0.0, set_.tilt_lock / (inverse * h), 0.0, kTiltRow};
              row.angular = true;
              row.reach = reach;
              springs_.push_back(row);
            }
          }
          const double e = set_.friction_lock * pair.gain_mass / h;
          const Vec3 spring = -g.kp * (pair.stretch - n.dot(pair.stretch) * n);
          springs_.push_back({&pair, ia, ib, centre, t1, spring.dot(t1), e, 0.0, kFrictionRow});
          springs_.push_back({&pair, ia, ib, centre, t2, spring.dot(t2), e, 0.0, kFrictionRow - 1});
        } else if (!springs || !pair.friction_rows) {
        Vec3 stretch = pair.stretch + elapsed * ut;
        stretch -= n.dot(stretch) * n;
        // The friction spring and damper are explicit, held to the stability bounds on the pair's effective mass
        // along the tangent. A box touching by a face is held from tilting by its points' implicit normal springs (by
        // an edge, about one axis: a pushed stack leaning passes through edges), and the reduced mass's bounds stay
        // (pair_gains); but nothing holds a ball or a capsule from rolling, nor a box from turning about the one
        // corner it touches by (one point carrying force), and a tangential force there turns the body as well as
        // moving it: a ball's effective mass there is 2/7 of its own, a box's at a corner a fifth of the pair's
        // reduced mass or less (tangent_mass). Bounded on the reduced mass alone, the friction damping of a 0.1 kg
        // ball under a 10 kg plate was 3.5 times past the bound, and the ball spun up to 4.7 rad/s in place; in a
        // falling pile two boxes touching by a corner, whose gains carried the pile's load (a Coulomb limit of 1e6
        // N), spun each other up from 40 rad/s to 1e11 rad/s within a step (pile1000).
        double kt = g.kt, ct = g.kv;
        if (round || r < 2) {
          const double tangential = tangent_mass(bodies[size_t(ia)], bodies[size_t(ib)], A, B, centre, n);
          kt = std::min(kt, kStiffnessBound * tangential / (h * h * share));
          ct = std::min(ct, kDampingBound * tangential / (h * share));
        }
        const Vec3 trial = -kt * stretch - ct * ut;
        // Coulomb's limit on the normal force: the springs' and the damping's of the last substep (implicit: it is
        // known only after the forces, and damping_force is what the implicit solve of the last substep added to
        // its springs' explicit values; a box sliding while it pitches carries part of its weight on its front
        // corners' damping).
        const double limit = pair.friction * std::max(0.0, total + (implicit ? pair.damping_force : 0.0));
        ft = trial.norm() > limit ? Vec3(trial * (limit / trial.norm())) : trial;
        force[size_t(ib)] += ft;
        torque[size_t(ib)] += (centre - B.x).cross(ft);
        force[size_t(ia)] -= ft;
        torque[size_t(ia)] -= (centre - A.x).cross(ft);
        }
        // Torsional friction: the normal forces spread over the polygon resist turning about n as springs at the
        // points would, k_p sum f_i r_i^2 / sum f_i about the centre, up to mu sum f_i r_i when the patch spins
        // (Coulomb at every point). One spring at the centre has no lever: a box spinning on the ground kept
        // turning at 0.07-0.09 rad/s for seconds. Stiffness and damping are held to the bounds the linear gains
        // keep for the pair's inertia about n, so the substep stays stable.
        double r1 = 0.0, r2 = 0.0;
        for (const Loaded& l : loaded) {
          if (l.f <= 0.0) continue;
          const Vec3 off = l.at - centre;
          const double rr = (off - n.dot(off) * n).squaredNorm();
          r1 += l.f * std::sqrt(rr);
          r2 += l.f * rr;
        }
        if (total > 0.0) {
          r1 /= total;
          r2 /= total;
        }
        const Body& bodyA = bodies[size_t(ia)];
        const Body& bodyB = bodies[size_t(ib)];
        const double inverse = (bodyA.is_dynamic() ? n.dot(bodyA.inv_inertia_world * n) : 0.0) +
                               (bodyB.is_dynamic() ? n.dot(bodyB.inv_inertia_world * n) : 0.0);
        if (r1 > 0.0 && inverse > 0.0) {
          const double kt = std::min(g.kp * r2, kStiffnessBound / (inverse * h * h * share));
          const double ct = std::min(g.kv * r2, kDampingBound / (inverse * h * share));
          const double spin = (B.w - A.w).dot(n);
          const double limit_t = pair.friction * total * r1;
          const double twist = pair.twist + elapsed * spin;
          const double torsion = std::clamp(-kt * twist - ct * spin, -limit_t, limit_t);
          torque[size_t(ib)] += torsion * n;
          torque[size_t(ia)] -= torsion * n;
          twist_stiffness = kt;
          twist_limit = limit_t;
        }
      }
    }
    if (!record) continue;
    pair.deepest = deepest;
    pair.normal_force = total;
    if (!springs || !pair.friction_rows) pair.friction_force = ft;  // else solve_springs sets it
    pair.centre = centre;
    pair.twist_stiffness = twist_stiffness;
    pair.twist_limit = twist_limit;
    if (pv) {
      pv->deepest = deepest;
      pv->friction = ft;
      pv->centre = centre;
      for (const Loaded& l : loaded) {
        const double denominator = std::max(r, 1);
        pv->bottom.push_back({l.p, l.depth, l.P / denominator, l.I / denominator, l.D / denominator,
                              l.P + l.I + l.D > 0.0});
      }
    }
  }
}

}  // namespace cl
