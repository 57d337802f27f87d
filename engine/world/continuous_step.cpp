// Continuous collision after the position update (World::continuous_collision): the bodies that moved far in the
// step are swept along their motion against the bodies their swept boxes meet, found by the broad phase over
// the swept boxes, so that the cost grows with the moving pairs, not with the square of the bodies.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "world/world.h"

namespace cl {

namespace {

// m: how close continuous collision brings a pair to its target distance, and the least motion it sweeps.
constexpr double kSweepTolerance = 1e-4;

}  // namespace

// Each dynamic body that moved more than the contact margin (surfaces closer than that had contacts at the start of the
// step), or a body thinner than that more than its half thickness, is swept along its step, together with the bodies
// joints tie it to (so the joints are not pulled apart) and, when the solver asks (continuous_moves_touching), those it
// touches, against the other bodies on their motion of this step; the group is put back at the first fraction of the
// step at which one of them would overlap something by more than it may (collision/continuous.h): a pair the solver had
// no contact for, by the solver's continuous_depth, where its next narrow phase will have one; a pair it had contacts
// for only short of passing through. The velocities are kept, less the gravity of the part of the step not travelled:
// the contact is the solver's to resolve by its own law (bounce, stop, friction) in the next step, as Box2D v3 does
// with a body at its time of impact. Bodies that move less, such as resting stacks, are not touched.
//
// A kinematic body follows its script whatever it meets, so it is never put back: a dynamic body in its way is
// pushed instead. From the fraction of the step at which they would overlap, the body (with its joint group) is
// carried by the kinematic body's remaining motion and takes at least its speed along that motion; a body so
// pushed pushes the ones in its own way in turn (waves until no new body is reached). The next step's narrow
// phase then has the contacts, and the method resolves them.
void World::continuous_collision() {
  const size_t n = bodies.size();
  for (size_t i = 0; i < n; ++i) {
    motions_[i].position1 = bodies[i].position;
    motions_[i].orientation1 = bodies[i].orientation;
  }
  const double depth = solver_->continuous_depth();
  const bool between_dynamic = solver_->continuous_between_dynamic_bodies();
  const double tolerance = depth > 0.0 ? std::min(kSweepTolerance, 0.25 * depth) : kSweepTolerance;
  // A body thinner than the margin is swept once it moves more than its half thickness: contacts at the start of
  // the step do not hold it, as implicit-penalty's springs (found only within its skin) did not hold a 0.2 mm
  // sheet landing at 3 m/s, which went 0.26 mm (1/100 s) to 1.5 mm (1/1000 s) a step and through the ground.
  const auto least_motion = [&](size_t i) {
    return std::max(std::min(settings.contact_margin, half_thickness(bodies[i].shape)), kSweepTolerance);
  };
  // The dynamic bodies tied by joints into groups that move together: the smallest index of each group.
  std::vector<int> root(n);
  for (size_t i = 0; i < n; ++i) root[i] = int(i);
  auto find = [&](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (const Joint& j : joints) {
    if (j.body_a < 0 || j.body_b < 0 || !bodies[j.body_a].is_dynamic() || !bodies[j.body_b].is_dynamic()) continue;
    const int ra = find(j.body_a), rb = find(j.body_b);
    if (ra != rb) root[std::max(ra, rb)] = std::min(ra, rb);
  }
  // With the solver's continuous_moves_touching, the dynamic bodies in contact in this step join one group too.
  const bool moves_touching = solver_->continuous_moves_touching();
  if (moves_touching)
    for (const Contact& c : contacts_) {
      if (c.a < 0 || c.b < 0 || !bodies[size_t(c.a)].is_dynamic() || !bodies[size_t(c.b)].is_dynamic()) continue;
      const int ra = find(c.a), rb = find(c.b);
      if (ra != rb) root[std::max(ra, rb)] = std::min(ra, rb);
    }
  for (size_t i = 0; i < n; ++i) root[i] = find(int(i));  // flattened: root[i] is i's group from here on
  // The dynamic bodies of each group in index order (a counting sort by root), and whether one of them moved far
  // enough to need sweeping; the kinematic bodies that did.
  std::vector<int> member_begin(n + 1, 0), member_list;
  std::vector<char> group_fast(n, 0), kinematic_fast(n, 0);
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    const bool far = motions_[i].reach() > least_motion(i);
    if (bodies[i].is_dynamic()) {
      const int r = root[i];
      ++member_begin[size_t(r) + 1];
      if (far) group_fast[size_t(r)] = 1, any = true;
    } else if (bodies[i].kind == BodyKind::Kinematic && far) {
      kinematic_fast[i] = 1;
      any = true;
    }
  }
  if (!any) return;
  for (size_t r = 0; r < n; ++r) member_begin[r + 1] += member_begin[r];
  member_list.resize(size_t(member_begin[n]));
  {
    std::vector<int> at(member_begin.begin(), member_begin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      if (bodies[i].is_dynamic()) member_list[size_t(at[size_t(root[i])]++)] = int(i);
  }
  const auto members = [&](int r) {
    return std::span<const int>(member_list.data() + member_begin[size_t(r)], member_list.data() + member_begin[size_t(r) + 1]);
  };
  std::vector<Aabb> swept(n);
  const auto sweep_box = [&](size_t i) {
    const Body& b = bodies[i];
    swept[i] = shape_aabb(b.shape, motions_[i].position0, motions_[i].orientation0);
    const Aabb end = shape_aabb(b.shape, motions_[i].position1, motions_[i].orientation1);
    swept[i].lo = swept[i].lo.cwiseMin(end.lo).array() - depth - tolerance;
    swept[i].hi = swept[i].hi.cwiseMax(end.hi).array() + depth + tolerance;
  };
  for (size_t i = 0; i < n; ++i) sweep_box(i);
  const std::vector<BodyPair> joined = joined_pairs(joints);
  const auto is_joined = [&](int x, int y) {
    return std::binary_search(joined.begin(), joined.end(), BodyPair{std::min(x, y), std::max(x, y)});
  };
  // Whether the solver had contacts for a pair in this step (contacts_ is sorted by pair).
  auto has_contacts = [&](int x, int y) {
    const std::pair<int, int> pair(std::min(x, y), std::max(x, y));
    return std::binary_search(contacts_.begin(), contacts_.end(), pair, [](const auto& l, const auto& r) {
      if constexpr (std::is_same_v<std::decay_t<decltype(l)>, Contact>) return std::pair(l.a, l.b) < r;
      else return l < std::pair(r.a, r.b);
    });
  };
  // The pairs of swept boxes that meet, of which at least one body is `moving`.
  std::vector<BodyPair> candidates;
  std::vector<char> still(n);
  const auto find_candidates = [&](auto moving) {
    for (size_t i = 0; i < n; ++i) still[i] = !moving(i);
    swept_broadphase_.find_pairs(swept, still, candidates);
  };

  // Fast dynamic groups stop at their first impact, group after group in index order: a group put back is where
  // the later groups meet it.
  const auto sweeps = [&](size_t i) {
    return bodies[i].is_dynamic() && group_fast[size_t(root[i])];
  };
  find_candidates(sweeps);
  struct Sweep {
    int group, body, other;
    bool operator<(const Sweep& o) const {
      return group != o.group ? group < o.group : body != o.body ? body < o.body : other < o.other;
    }
  };
  std::vector<Sweep> work;
  for (const BodyPair& p : candidates)
    for (const auto& [m, j] : {std::pair(p.a, p.b), std::pair(p.b, p.a)}) {
      if (!sweeps(size_t(m)) || root[j] == root[m] || is_joined(m, j)) continue;
      if (bodies[j].is_dynamic() && !between_dynamic) continue;
      work.push_back({root[m], m, j});
    }
  std::sort(work.begin(), work.end());
  // A group put back where it meets a dynamic body, which then moves on over the rest of the step (its own motion,
  // or as far as it was put back itself).
  struct Follower {
    int group, other;
    Vec3 towards;  // from the group's body to the other's centre where they met, m
    Vec3 met;      // the other's centre where they met
  };
  std::vector<Follower> followers;
  for (size_t w = 0; w < work.size();) {
    const int r = work[w].group;
    double t = 1.0;
    int hit_body = -1, hit_other = -1;  // the pair that meets first
    for (; w < work.size() && work[w].group == r; ++w) {
      const int m = work[w].body, j = work[w].other;
      const bool in_contact = has_contacts(m, j);
      // A pair of dynamic bodies in contact is the solver's: both give, and the body put back would keep its
      // speed against its other contacts; only a fixed or kinematic body must not be passed through.
      if (in_contact && bodies[j].is_dynamic()) continue;
      const Impact impact = time_of_impact(bodies[m], motions_[m], bodies[j], motions_[j], in_contact, depth, tolerance);
      if (impact.hit && impact.t < t) t = impact.t, hit_body = m, hit_other = j;
    }
    if (t >= 1.0) continue;
    if (bodies[size_t(hit_other)].is_dynamic()) {
      const Vec3 met = motions_[size_t(hit_other)].position(t);
      followers.push_back({r, hit_other, met - motions_[size_t(hit_body)].position(t), met});
    }
    for (int m : members(r)) {
      motions_[m].place(bodies[m], t);
      // The part of the step's gravity it had no time to use: the body falls on from the contact as far into
      // the next step as it would have without continuous collision, not faster.
      // A member joined by its contacts that moved less than the margin (at rest, touching) had no fall to undo.
      if (!moves_touching || motions_[m].reach() > least_motion(size_t(m)))
        bodies[m].linear_velocity -= (1.0 - t) * settings.dt * settings.gravity;
      bodies[m].update_world_inertia();
      motions_[m].position1 = bodies[m].position;
      motions_[m].orientation1 = bodies[m].orientation;
      swept_stops_.push_back(m);
    }
  }
  // Left where it met a dynamic body that moves on away from it, a group ends the step apart from it: its next
  // narrow phase has no contact for the pair, the method never meets the impact, and the group, which keeps its
  // speed, is put back again in the next step. In a falling pile a box faster than the capsule under it went on
  // 8 m/s fast at the capsule's pace, and the ball resting on it, at its own speed, 0.2 m into it (pid-penalty,
  // pile1000). The group follows the other body's retreat along the line between them, so the pair ends the step
  // touching as where it met and the method resolves the impact in the next step by its own law. A body that
  // moves on towards the group, or across, is not followed: that is the next step's contact too.
  for (const Follower& f : followers) {
    const double length = f.towards.norm();
    if (!(length > 0.0)) continue;
    const Vec3 along = f.towards / length;
    const double retreat = (motions_[size_t(f.other)].position1 - f.met).dot(along);
    if (!(retreat > 0.0)) continue;
    for (int m : members(f.group)) {
      bodies[m].position += retreat * along;
      motions_[m].position1 = bodies[m].position;
    }
  }
  // Then kinematic bodies push the dynamic bodies in their way (where they were put back, if they were), in
  // waves: a kinematic body is never passed through.
  std::vector<char> pushed(n, 0), pusher(kinematic_fast);
  while (std::find(pusher.begin(), pusher.end(), 1) != pusher.end()) {
    find_candidates([&](size_t i) { return pusher[i] != 0; });
    // The earliest hit of each group not pushed yet, and by which pusher.
    std::vector<double> hit_t(n, 1.0);
    std::vector<int> hit_by(n, -1);
    for (const BodyPair& p : candidates)
      for (const auto& [k, d] : {std::pair(p.a, p.b), std::pair(p.b, p.a)}) {
        if (!pusher[size_t(k)] || !bodies[d].is_dynamic() || pushed[size_t(root[d])] || is_joined(k, d)) continue;
        if (root[d] == root[k] && bodies[k].is_dynamic()) continue;
        const Impact impact = time_of_impact(bodies[d], motions_[d], bodies[k], motions_[k], has_contacts(d, k),
                                             depth, tolerance);
        const size_t r = size_t(root[d]);
        if (impact.hit && impact.t < hit_t[r]) hit_t[r] = impact.t, hit_by[r] = k;
      }
    std::fill(pusher.begin(), pusher.end(), 0);
    for (size_t r = 0; r < n; ++r) {
      if (hit_by[r] < 0) continue;
      const int k = hit_by[r];
      const double t = hit_t[r];
      const Vec3 carry = motions_[k].position1 - motions_[k].position(t);
      const double carried = carry.norm();
      const Vec3 along = carried > 0.0 ? Vec3(carry / carried) : Vec3::Zero();
      const double speed = bodies[k].linear_velocity.dot(along);
      pushed[r] = 1;
      for (int m : members(int(r))) {
        motions_[m].place(bodies[m], t);
        bodies[m].position += carry;
        const double own = bodies[m].linear_velocity.dot(along);
        if (own < speed) bodies[m].linear_velocity += (speed - own) * along;
        bodies[m].update_world_inertia();
        motions_[m].position1 = bodies[m].position;
        motions_[m].orientation1 = bodies[m].orientation;
        sweep_box(size_t(m));
        pusher[size_t(m)] = 1;  // the next wave: what it meets on its new path
        swept_stops_.push_back(m);
      }
    }
  }

  std::sort(swept_stops_.begin(), swept_stops_.end());
}

}  // namespace cl
