#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

// Fig. 2 and the impulses of impacts. A pair touches while one of its candidate points is inside the other body.
void PidPenaltySolver::impacts(std::vector<Body>& work, double h) {
  ScopedSubStage timer(sub_stages_, kImpacts);
  load_motions(work, motions_);
  late_shift_.assign(work.size(), {Vec3::Zero(), Vec3::Zero()});
  struct Touching {
    Pair* pair;
    int a, b;
    Vec3 centre, normal;
    double approach = 0.0;  // the normal speed at the pair's first impulse of this substep (< 0)
    double gap = 0.0;       // m: how far its nearest touching point still lies outside (0 if one is inside)
    bool started = false;
  };
  std::vector<Touching> touching;
  for (auto& entry : pairs_) {
    const PairKey& key = entry.first;  // named references: the lambda below captures them (see penalty_forces)
    Pair& pair = entry.second;
    pair.struck = false;
    // Touching: a point inside, or one that its approach brings inside within this substep (so that an impact is
    // met where it starts, not a substep's travel deep).
    const Vec3 normal = contact_normal(work, pair, motions_, key);
    const Motion& A = motions_[size_t(key.first)];
    const Motion& B = motions_[size_t(key.second)];
    Vec3 centre = Vec3::Zero();
    int count = 0;
    double nearest = -std::numeric_limits<double>::infinity();
    // A candidate that cannot have come within a substep's approach of the other body since the narrow phase is
    // not queried (most of a pair's candidates lie outside, within the margin, and stay there).
    // A primitive pair's few points are read without the bound.
    const Drift moved = pair.shells ? drift(work, motions_, key, pair) : Drift{};
    auto test = [&](const Candidate& c) {
      if (pair.shells && !may_touch(c, moved, pair.mode == Mode::Penalty ? 0.0 : h)) return;
      Vec3 p;
      double d;
      if (!depth_of(work, motions_, key, pair, c, p, d)) return;
      const double approach = std::max(0.0, -(B.velocity_at(p) - A.velocity_at(p)).dot(normal));
      if (d >= -kTouchSlack || (pair.mode != Mode::Penalty && d + h * approach >= 0.0)) {
        nearest = std::max(nearest, d);
        centre += p;
        ++count;
      }
    };
    // A resting pair touches while its bottom polygon does (its centroid then the polygon's): only when none of
    // the polygon's points is inside are the other candidates tested, so that a resting stack does not test
    // every point of every pair every substep (the 20-row pyramid spent 9 of 10 of its time there).
    if (pair.mode == Mode::Penalty)
      for (int i : pair.bottom) test(pair.points[size_t(i)]);
    if (count == 0)
      for (const Candidate& c : pair.points) test(c);
    if (count == 0) {
      pair.mode = Mode::Separated;
      pair.integral = 0.0;
      pair.stretch = Vec3::Zero();
      pair.twist = 0.0;
      continue;
    }
    centre = line_of_action(work, motions_, key, normal, centre / count);
    const double vn = (B.velocity_at(centre) - A.velocity_at(centre)).dot(normal);
    if (pair.mode == Mode::Separated) pair.mode = vn < -set_.impact_speed ? Mode::Impact : Mode::Penalty;
    else if (pair.mode == Mode::Impact && vn >= -set_.impact_speed && vn <= 0.0) pair.mode = Mode::Penalty;
    if (!work[size_t(key.first)].is_dynamic() && !work[size_t(key.second)].is_dynamic()) continue;
    touching.push_back({&pair, key.first, key.second, centre, normal, 0.0, std::max(0.0, -nearest)});
  }

  // Each body's touching pairs, for marking the pairs an impulse strikes.
  std::vector<std::vector<int>> touching_of(work.size());
  for (int k = 0; k < int(touching.size()); ++k) {
    touching_of[size_t(touching[size_t(k)].a)].push_back(k);
    touching_of[size_t(touching[size_t(k)].b)].push_back(k);
  }

  // Sequential frictional impulses at each impacting pair's centroid, until none approaches faster than eps.
  auto relative = [&](const Touching& t) -> Vec3 {
    const Body& A = work[size_t(t.a)];
    const Body& B = work[size_t(t.b)];
    return B.velocity_at(t.centre) - A.velocity_at(t.centre);
  };
  int pass = 0;
  for (; pass < set_.impact_passes; ++pass) {
    bool any = false;
    for (Touching& t : touching) {
      Pair& pair = *t.pair;
      if (pair.mode == Mode::Penalty && !pair.struck) continue;
      const Vec3 u = relative(t);
      const double un = u.dot(t.normal);
      if (un >= -set_.impact_speed) continue;
      pair.mode = Mode::Impact;  // a resting pair struck by a third body is an impact again
      if (!t.started) {
        t.started = true;
        t.approach = un;
      }
      Body& A = work[size_t(t.a)];
      Body& B = work[size_t(t.b)];
      const Vec3 ra = t.centre - A.position, rb = t.centre - B.position;
      const double ia = A.is_dynamic() ? A.inv_mass : 0.0, ib = B.is_dynamic() ? B.inv_mass : 0.0;
      const Mat3 Ia = A.is_dynamic() ? A.inv_inertia_world : Mat3::Zero();
      const Mat3 Ib = B.is_dynamic() ? B.inv_inertia_world : Mat3::Zero();
      // Collision matrix K: the change of the relative velocity at the point per unit impulse on b.
      const Mat3 K = (ia + ib) * Mat3::Identity() - skew(ra) * Ia * skew(ra) - skew(rb) * Ib * skew(rb);
      const double target = -pair.restitution * t.approach;  // Newton's law on the first approach speed
      // Sticking: the impulse that leaves the point at the target normal speed with no tangential slip; outside
      // the friction cone, a sliding impulse j_n (n - mu t) against the slip.
      Vec3 j = K.ldlt().solve(target * t.normal - u);
      const double jn = j.dot(t.normal);
      const Vec3 jt = j - jn * t.normal;
      if (jt.norm() > pair.friction * jn) {
        const Vec3 slip = u - un * t.normal;
        const Vec3 dir = slip.norm() > 1e-12 ? Vec3(t.normal - pair.friction * slip.normalized()) : t.normal;
        const double denominator = t.normal.dot(K * dir);
        if (denominator <= 0.0) continue;
        j = ((target - un) / denominator) * dir;
      }
      B.linear_velocity += ib * j;
      B.angular_velocity += Ib * rb.cross(j);
      A.linear_velocity -= ia * j;
      A.angular_velocity -= Ia * ra.cross(j);
      // Met a gap g ahead (its approach u brings it in within the substep), the impact happens at t = g / u into
      // it: the bodies move at their old velocities until then and at the new ones after, so each ends the substep
      // displaced by -(its change of velocity) t from where the new velocity alone takes it (late_shift_).
      if (t.gap > 0.0) {
        const double at = std::min(h, t.gap / -t.approach);
        if (B.is_dynamic()) {
          late_shift_[size_t(t.b)].first -= at * ib * j;
          late_shift_[size_t(t.b)].second -= at * (Ib * rb.cross(j));
        }
        if (A.is_dynamic()) {
          late_shift_[size_t(t.a)].first += at * ia * j;
          late_shift_[size_t(t.a)].second += at * (Ia * ra.cross(j));
        }
      }
      add_to_report(pair, t.normal, j, t.centre);
      // The other pairs of a body this impulse moved are struck (Fig. 2: a third body strikes a resting pair).
      for (const int body : {t.a, t.b}) {
        if (!work[size_t(body)].is_dynamic()) continue;
        for (const int other : touching_of[size_t(body)])
          if (&touching[size_t(other)] != &t) touching[size_t(other)].pair->struck = true;
      }
      any = true;
    }
    if (!any) break;
  }
  counters_.add(kCountImpulsePasses, pass);
  // After the passes an impact pair that does not leave faster than eps is resting (Fig. 2's penalty state):
  // either its impulse left it at rest (restitution 0), or the passes did not stop it, which sequential impulses
  // between a light and a heavy body cannot (a 100 kg box on a 1 kg box on the ground: 1 % of the approach per
  // pass), and the penalty forces hold it. Left an impact, a pair took no force at all: the box on a box that its
  // own resting contact below pushed up by more than eps per substep (h k_p d / m = 0.35 m/s for the light box)
  // was an impact at every substep and sank through at its speed. Its residual is still reported.
  for (const Touching& t : touching) {
    if (t.pair->mode != Mode::Impact) continue;
    const double vn = relative(t).dot(t.normal);
    residual_ = std::max(residual_, std::max(0.0, -vn - set_.impact_speed));
    if (vn <= set_.impact_speed) t.pair->mode = Mode::Penalty;
  }
}

}  // namespace cl
