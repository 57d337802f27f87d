// The implicit integrator of `pid-penalty` (`integrator` implicit_euler): eq. 3's springs and dampers integrated
// linearly implicitly, our departure from the paper's explicit fourth-order Runge-Kutta (sect. IV-A, IV-B).
//
// Over a substep h each point's force F = s - e u is taken at the end of the substep: s = (k_p d + k_i I) / r its
// value at the start, u its normal relative velocity at the end (> 0 separating), and e = (k_v + h k_p) / r, since
// the depth falls by h u over the substep (backward Euler on eq. 3, linearised in the velocities; the normal, the
// points and the integral stay those of the start). With the rows' Jacobians J (u = u_0 + J v, u_0 the part a
// kinematic body's scripted velocity makes) the new velocities solve
//     (M + h J^T E J) v' = M v* + h J^T (s - e u_0),
// v* the velocities after the applied forces, gravity and friction. The matrix is symmetric positive definite
// whatever the gains, so the substep stays the paper's 1 ms where explicit springs of the load's stiffness needed
// down to 20 us (a stack's lowest contacts carry tens of times the mass of the body they push: sect. IV-C's remark,
// after Kass, that a stack's step must be far below 1/n). At rest F = s: the depth a load is held at is eq. 3's.
// The max of eq. 3 (no pull) is kept by an active set: rows whose F falls below their bound are held at it and the
// system solved again.
#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>

#include "constraints/motion.h"
#include "solvers/pid_penalty/internal.h"
#include "solvers/pid_penalty/spring_system.h"

namespace cl {

using namespace pid_penalty;

namespace {

// Most solves of the active set per substep; rows still below their bound after the last are held at it as they
// stand (their pull is then at most what the last solve left).
constexpr int kActiveSetSolves = 2;
// How far below its least force (in its pair's mean point force) a row's force may fall before it is held there.
constexpr double kPullSlack = 0.01;
// How far (a fraction of Coulomb's limit) a sliding pair's friction may lie from mu times the normal force of the
// solve before the system is solved again with it. At the edge of sliding the body's acceleration is a small part
// of the friction's (g (sin theta - mu cos theta) is 2 % of mu g cos theta at tan theta = 0.5, mu 0.49): at 1e-3 a
// settling box took up to 0.1 % more friction than mu N, and slid 5 % slow while it settled.
constexpr double kCoulombSlack = 1e-5;
// How far below its least force (in its pair's mean point force) a row's force may lie after the active set's last
// solve before the substep is finished by sweeps (finish_springs): a pull as large as the pair's mean push is no
// longer a slightly adhesive spring. Most unsettled substeps of a resting 20-row pyramid pull by far less (finished
// wherever a row pulled past its slack, 1,011 substeps of its first 120 steps, it kept 0.017 J at step 120; past
// this bound 242, and 0.009 J); a 60-row pyramid's first steps pull by 70 to 1,000 times it.
constexpr double kFinishPull = 1.0;
// Most solves with the rows' states kept (one factor) that hold the sliding pairs at mu times their normal force
// where the active set did not settle.
constexpr int kCoulombPasses = 8;

}  // namespace

// v* = v + h M^-1 (f_applied + m g + friction), then the springs and dampers of eq. 3 implicitly (solve_springs),
// the joints on v(t+h), and x(t+h) = x + h v(t+h).
void PidPenaltySolver::substep_implicit(StepContext& ctx, std::vector<Body>& work, double h) {
  springs_.clear();
  push_forces(ctx, work, h);
  {
    ScopedSubStage timer(sub_stages_, kForces);
    solve_springs(work, h);
  }
  solve_joints(ctx, work, h);
  ScopedSubStage timer(sub_stages_, kUpdate);
  for (Body& b : work)
    if (b.kind != BodyKind::Fixed) advance_pose(b, h);
}

void PidPenaltySolver::solve_springs(std::vector<Body>& work, double h) {
  for (auto& entry : pairs_) entry.second.damping_force = 0.0;
  // Each friction pair's Coulomb limit at the last substep's normal force (the start of its active set below).
  thread_local std::vector<double> last_limit;
  last_limit.resize(springs_.size());
  for (size_t r = 0; r < springs_.size(); ++r)
    last_limit[r] = springs_[r].pair->friction * std::max(springs_[r].pair->normal_force + springs_[r].pair->pressed, 0.0);
  for (const SpringRow& row : springs_) {
    row.pair->normal_force = 0.0;
    if (row.pair->friction_rows) row.pair->friction_force = Vec3::Zero();
  }
  if (springs_.empty()) return;
  // The unknowns: a 6-block (v, w) per dynamic body of a pair, in the order of the pairs, and the blocks the pairs
  // couple. They change only when pairs come or go (the world's step), so the system's ordering is kept over the
  // step while the pairs' rows come and go.
  thread_local std::vector<int> slot, bodies;
  thread_local std::vector<std::pair<int, int>> couplings;
  slot.assign(work.size(), -1);
  bodies.clear();
  couplings.clear();
  for (const auto& entry : pairs_) {
    for (const int i : {entry.first.first, entry.first.second})
      if (work[size_t(i)].is_dynamic() && slot[size_t(i)] < 0) {
        slot[size_t(i)] = int(bodies.size());
        bodies.push_back(i);
      }
    const int sa = slot[size_t(entry.first.first)], sb = slot[size_t(entry.first.second)];
    if (sa >= 0 && sb >= 0 && sa != sb) couplings.push_back(std::minmax(sa, sb));
  }
  std::sort(couplings.begin(), couplings.end());
  couplings.erase(std::unique(couplings.begin(), couplings.end()), couplings.end());
  if (bodies.empty()) return;
  const int nb = int(bodies.size());
  // Each row's Jacobian on its two sides, u = J_b . (v_b, w_b) + J_a . (v_a, w_a), and its weight h e. A side
  // without unknowns (a kinematic or fixed body) moves as scripted: its part of u is known, u_0, and the row's
  // force is F = (s - e u_0) - e J v' over the unknowns. Left out, a kinematic ram at 500 m/s read as at rest:
  // the boxes it pushed were damped towards rest, not towards its speed, and it overran them.
  const size_t nr = springs_.size();
  thread_local std::vector<SystemRow> rows;
  thread_local std::vector<double> known;  // per row: u_0 (m/s)
  rows.resize(nr);
  known.assign(nr, 0.0);
  for (size_t r = 0; r < nr; ++r) {
    const SpringRow& row = springs_[r];
    SystemRow& s = rows[r];
    const Body& A = work[size_t(row.a)];
    const Body& B = work[size_t(row.b)];
    s.sa = slot[size_t(row.a)];
    s.sb = slot[size_t(row.b)];
    if (row.angular) {
      s.ja << Vec3::Zero(), -row.n;
      s.jb << Vec3::Zero(), row.n;
    } else {
      s.ja << -row.n, -(row.at - A.position).cross(row.n);
      s.jb << row.n, (row.at - B.position).cross(row.n);
    }
    s.w = h * row.e;
    if (s.sa < 0 && A.kind == BodyKind::Kinematic)
      known[r] -= row.angular ? A.angular_velocity.dot(row.n) : A.velocity_at(row.at).dot(row.n);
    if (s.sb < 0 && B.kind == BodyKind::Kinematic)
      known[r] += row.angular ? B.angular_velocity.dot(row.n) : B.velocity_at(row.at).dot(row.n);
  }
  // The mass blocks and the momenta M v* of the unknowns.
  thread_local std::vector<Mat6> mass;
  mass.resize(size_t(nb));
  Eigen::VectorXd momentum(6 * nb), v(6 * nb), rhs(6 * nb);
  for (int k = 0; k < nb; ++k) {
    const Body& b = work[size_t(bodies[size_t(k)])];
    Mat6& M = mass[size_t(k)];
    M.setZero();
    M.topLeftCorner<3, 3>() = b.mass * Mat3::Identity();
    M.bottomRightCorner<3, 3>() = b.inertia_world();
    momentum.segment<3>(6 * k) = b.mass * b.linear_velocity;
    momentum.segment<3>(6 * k + 3) = M.bottomRightCorner<3, 3>() * b.angular_velocity;
  }
  const auto force = [&](size_t r) {  // the row's F = s - e u at v
    const SystemRow& s = rows[r];
    double u = known[r];
    if (s.sa >= 0) u += s.ja.dot(v.segment<6>(6 * s.sa));
    if (s.sb >= 0) u += s.jb.dot(v.segment<6>(6 * s.sb));
    return springs_[r].s - springs_[r].e * u;
  };
  // The active set: a row is free, or held at its least force (its weight then 0) where at the solution it would
  // pull by more than its slack, a hundredth of its pair's mean point force (a pull within it is kept: a slightly
  // adhesive spring, as stable as a pushing one; without it the points of a resting pyramid that barely touch,
  // pulling and pushing by micronewtons as it settles, asked three solves per substep). The first guess is what
  // the last substep held (a resting pile's lifting points stay lifted, and most substeps then take one solve);
  // each solve then frees or holds each row as its force at the solution asks, until none changes (or
  // kActiveSetSolves).
  thread_local std::vector<char> held;
  thread_local std::vector<double> slack, hold;  // hold: the force a held row takes (N)
  held.assign(nr, 0);
  slack.assign(nr, 0.0);
  hold.resize(nr);
  bool friction = false;
  for (size_t r = 0; r < nr; ++r) {
    hold[r] = springs_[r].lower;
    friction |= springs_[r].point <= kFrictionRow;
  }
  for (size_t r = 0, first = 0; r <= nr; ++r) {
    if (r < nr && springs_[r].pair == springs_[first].pair) continue;
    double sum = 0.0;
    int count = 0;
    for (size_t k = first; k < r; ++k)
      if (springs_[k].point >= 0) {
        sum += springs_[k].s;
        ++count;
      }
    for (size_t k = first; k < r; ++k) slack[k] = count > 0 ? kPullSlack * sum / count : 0.0;
    first = r;
  }
  // Whether a row's state (its weight) changed since the last factorization: where only the held forces moved, the
  // matrix is the same and its factor is solved again as it stands.
  bool refactor = true;
  const auto set = [&](size_t r, bool hold) {  // true if the row's state changed
    const bool change = hold != bool(held[r]);
    held[r] = hold;
    rows[r].w = hold ? 0.0 : h * springs_[r].e;
    refactor |= change;
    return change;
  };
  for (size_t r = 0; r < nr; ++r) {
    const std::vector<int>& last = springs_[r].pair->held;
    if (springs_[r].point >= 0 && std::binary_search(last.begin(), last.end(), springs_[r].point)) set(r, true);
  }
  // A pair that slips faster than the last substep's friction limit could stop within this one (its slip times its
  // least tangential mass over h) starts sliding, its friction at that limit against the slip: started sticking,
  // the solve's stopping force (a box pushed at 5 m/s: a hundred times its weight) and its torque lift and press
  // the points of the bodies it touches, and the active set built on them made a pushed stack rattle apart.
  thread_local std::vector<double> stop_mass;  // per pair's first friction row: its least tangential mass (kg)
  stop_mass.assign(nr, 0.0);
  for (size_t f = 0; f + 1 < nr; ++f) {
    const SpringRow& row = springs_[f];
    if (row.point != kFrictionRow) continue;
    const Body& A = work[size_t(row.a)];
    const Body& B = work[size_t(row.b)];
    const Vec3 u = B.velocity_at(row.at) - A.velocity_at(row.at);
    const Eigen::Vector2d slip(u.dot(row.n), u.dot(springs_[f + 1].n));
    const Vec3 normal = row.n.cross(springs_[f + 1].n);
    // With both tilt rows a flat pair's patch does not turn about its tangents within the substep: its tangential
    // mass is the bodies' reduced mass.
    const bool tilts = f >= 2 && springs_[f - 1].angular && springs_[f - 2].angular && springs_[f - 2].pair == row.pair;
    const double inverse = (A.is_dynamic() ? A.inv_mass : 0.0) + (B.is_dynamic() ? B.inv_mass : 0.0);
    const double mass = tilts && inverse > 0.0 ? 1.0 / inverse
                                               : tangent_mass(A, B, {A.position}, {B.position}, row.at, normal);
    stop_mass[f] = mass;
    if (!(slip.norm() * mass / h > last_limit[f]) || !(slip.norm() > 0.0)) continue;
    const Eigen::Vector2d F = -last_limit[f] * slip / slip.norm();
    hold[f] = F.x();
    hold[f + 1] = F.y();
    set(f, true);
    set(f + 1, true);
  }
  const auto value = [&](size_t r) { return held[r] ? hold[r] : force(r); };
  // The force that would stop a free friction pair's slip, of its rows' force F: the rows are dampers that leave
  // u = F / e of the slip, which m / h more would stop (m its tangential mass). Its Coulomb test: at F alone, the
  // dampers (h e = 10 m) held a box that had to slide (needing 102 % of mu N at tan theta = 0.5, mu 0.49) at 91 %,
  // read it as sticking in its first substep, and it slid 0.3 mm/s slow.
  const auto stopping = [&](size_t f, const Eigen::Vector2d& F) {
    return F.norm() * (1.0 + stop_mass[f] / (h * springs_[f].e));
  };
  // The tilt rows of the pair whose rows run from `first` to its friction rows at `f` (penalty_forces): each within
  // its reach times the pair's normal force N (the pressure reaching the patch's edge; beyond it the body tips over
  // the edge). A free row past it is held there; a held one follows N, and is freed where the turn it holds reverses
  // (its free force, -e times the turn, then opposes its hold). With `states` false the rows keep their states (the
  // factor stays) and only the held moments follow N. True if a row changed.
  const auto hold_tilts = [&](size_t first, size_t f, double N, bool states) {
    bool changed = false;
    for (size_t k = first; k < f; ++k) {
      if (!springs_[k].angular) continue;
      const double limit = springs_[k].reach * std::max(N, 0.0);
      if (held[k]) {
        if (states && force(k) * hold[k] <= 0.0 && limit > 0.0) {
          changed |= set(k, false);
        } else {
          const double now = std::copysign(limit, hold[k]);
          changed |= std::abs(now - hold[k]) > kCoulombSlack * limit;
          hold[k] = now;
        }
      } else if (states && std::abs(force(k)) > limit) {
        hold[k] = std::copysign(limit, force(k));
        changed |= set(k, true);
      }
    }
    return changed;
  };
  // Coulomb's law on each pair's friction rows (a pair's rows lie together, its two friction rows last): where their
  // force at the solution passes mu times the pair's normal force at it, both are held at mu N along it (sliding),
  // and where a sliding pair's slip turns along its friction, freed (sticking). True if a row changed.
  // A pair whose friction changes is marked in `moved_friction` (its rows'): that solve tells nothing of which of
  // its points lift.
  thread_local std::vector<char> moved_friction;
  const auto coulomb = [&]() {
    bool changed = false;
    moved_friction.assign(nr, 0);
    for (size_t r = 0, first = 0; r <= nr; ++r) {
      if (r < nr && springs_[r].pair == springs_[first].pair) continue;
      const size_t f = r - 2;  // its first friction row, if it has them
      if (r - first >= 2 && springs_[f].point == kFrictionRow) {
        const bool before = changed;
        changed = false;
        double N = 0.0;
        for (size_t k = first; k < f; ++k)
          if (!springs_[k].angular) N += value(k);
        // N counts what the joints' contact rows pressed in the last substep: a gripper's fingers squeeze its box
        // through them (solve_joints), and held by the springs' part alone the box slid out as they lifted.
        const double limit = springs_[f].pair->friction * std::max(N + springs_[f].pair->pressed, 0.0);
        const Eigen::Vector2d F(value(f), value(f + 1));
        if (held[f]) {
          const Eigen::Vector2d u(force(f), force(f + 1));  // -e times the slip, along the friction if it slides
          // Held at nothing (its normal force pulled: Coulomb's limit 0), a pair stays held until the limit is
          // positive again. Freed at once (its zero force read as the slip turning along it), it stopped its slip
          // in the next solve, was held at nothing again, and so on: the pair's points, whose state is not read
          // while its friction moves, were never held at their least force and pulled a landing box's corner
          // into a plate by up to 2 kN, and the pushed boxes of a rammed stack against each other.
          // Its slip at the solution, u / -e: released where the limit could stop it within the substep, else
          // sliding at the limit against it. Freed whatever its slip, a box sliding at 500 m/s on the ground, held
          // at nothing while its normal force pulled, was stopped at once by 300 kN of friction, whose torque pressed
          // its front edge into the ground by as much again.
          const Eigen::Vector2d slip = Eigen::Vector2d(springs_[f].s - u.x(), springs_[f + 1].s - u.y()) /
                                       springs_[f].e;
          const bool slides = F.norm() == 0.0 && limit > 0.0 && slip.norm() * stop_mass[f] / h > limit;
          if (slides) {
            hold[f] = -limit * slip.x() / slip.norm();
            hold[f + 1] = -limit * slip.y() / slip.norm();
            changed = true;
          } else if (F.norm() > 0.0 ? u.dot(F) <= 0.0 : limit > 0.0) {
            changed |= set(f, false);
            changed |= set(f + 1, false);
          } else if (F.norm() > 0.0) {  // the limit of the normal force now; solved again if it moved
            const Eigen::Vector2d now = F * (limit / F.norm());
            changed |= (now - F).norm() > kCoulombSlack * limit;
            hold[f] = now.x();
            hold[f + 1] = now.y();
          }
        } else if (stopping(f, F) > limit) {
          const double scale = F.norm() > 0.0 ? limit / F.norm() : 0.0;
          hold[f] = F.x() * scale;
          hold[f + 1] = F.y() * scale;
          changed |= set(f, true);
          changed |= set(f + 1, true);
        }
        changed |= hold_tilts(first, f, N, true);
        if (changed) std::fill(moved_friction.begin() + long(first), moved_friction.begin() + long(r), 1);
        changed |= before;
      }
      first = r;
    }
    return changed;
  };
  const auto solve_system = [&](bool factor = true) {  // v for the rows' states; false if not positive definite
    rhs = momentum;
    for (size_t r = 0; r < nr; ++r) {
      const double impulse = h * (held[r] ? hold[r] : springs_[r].s - springs_[r].e * known[r]);
      if (rows[r].sa >= 0) rhs.segment<6>(6 * rows[r].sa) += impulse * rows[r].ja;
      if (rows[r].sb >= 0) rhs.segment<6>(6 * rows[r].sb) += impulse * rows[r].jb;
    }
    if (factor && refactor) {
      counters_.add(kCountSpringSolves, 1);
      if (!spring_system_.factor(mass, rows, couplings)) return false;  // cannot happen with positive masses
      refactor = false;
    }
    spring_system_.solve(rhs, v);
    return true;
  };
  const int solves = kActiveSetSolves + (friction ? 3 : 0);
  bool settled = false;
  for (int solve = 0; solve < solves && !settled; ++solve) {
    if (!solve_system()) return;
    bool changed = coulomb();
    for (size_t r = 0; r < nr; ++r) {
      if (springs_[r].point <= kFrictionRow || moved_friction[r]) continue;
      const double F = force(r), lower = springs_[r].lower;
      changed |= set(r, held[r] ? F < lower + slack[r] : F < lower - slack[r]);
    }
    settled = !changed;
  }
  // Unsettled after the last solve (a stack rammed by a kinematic body: its pairs' normal forces swing by the
  // thousand newtons between solves, and sticking turns to sliding and back), the velocities of that solve hold
  // the friction rows that were still free at whatever stopped their slip, however far past mu times their normal
  // force: 17 kN of friction on a pair pulling by 160 N, which rattled a stack rammed at 50 m/s apart and threw
  // one at 500 m/s out of the world. Drumwright's order instead (sect. III-B): the normal forces first, then the
  // friction within mu times them. A pair whose friction passes Coulomb's limit of that solve's normal forces, or
  // slides, is held at its force there within the limit (a sticking pair within it stays free), and the system is
  // solved once more.
  //
  // A held pair's friction moves its normal forces (friction at a box's base tips it onto an edge), so mu times the
  // normal force of the solve before is not that of the last. With the rows' states kept the matrix is the last
  // solve's and only the held forces change: each sliding pair is held at mu times its normal force of the solve
  // before and the factor solved again, until no held force moves by more than its slack (kCoulombPasses at most;
  // each pass takes friction's lever on the normal forces once more, for a box on an edge mu a b / (I / m + b^2)
  // < 1 at half height a, half width b: it converges geometrically). Solved once, a stack pushed at 5 m/s ended 18
  // of its 200 substeps with a pair past mu N (by up to 1.2 N); now none.
  if (friction && !settled) {
    for (int pass = 0; pass <= kCoulombPasses; ++pass) {
      bool moved_hold = false;
      for (size_t r = 0, first = 0; r <= nr; ++r) {
        if (r < nr && springs_[r].pair == springs_[first].pair) continue;
        const size_t f = r - 2;
        if (r - first >= 2 && springs_[f].point == kFrictionRow) {
          double N = 0.0;
          for (size_t k = first; k < f; ++k)
            if (!springs_[k].angular) N += value(k);
          const double limit = springs_[f].pair->friction * std::max(N + springs_[f].pair->pressed, 0.0);
          Eigen::Vector2d F(value(f), value(f + 1));
          if (!held[f] && (pass > 0 || !(stopping(f, F) > limit))) continue;  // sticking within the limit: free
          // The first pass holds a pair at its force within the limit; the later ones slide it at the limit.
          const bool rescale = F.norm() > 0.0 && (pass > 0 || stopping(f, F) > limit);
          const Eigen::Vector2d now = rescale ? Eigen::Vector2d(F * (limit / F.norm())) : F;
          moved_hold |= (now - F).norm() > kCoulombSlack * limit;
          hold[f] = now.x();
          hold[f + 1] = now.y();
          set(f, true);
          set(f + 1, true);
          moved_hold |= hold_tilts(first, f, N, pass == 0);
        }
        first = r;
      }
      if (pass > 0 && !moved_hold) break;
      if (!solve_system(pass == 0)) return;
    }
  }
  // Still unsettled with rows pulling (a deep stack: the rows' states flip faster than the solves can follow), the
  // forces are finished by projected Gauss-Seidel sweeps on the same rows (finish_springs), which hold every row
  // within its bounds. Kept, the pull of a 60-row pyramid's first substep reached 5 MN, and it blew up.
  bool finished = false;
  if (!settled) {
    bool pulls = false;  // slack[r] / kPullSlack: the row's pair's mean point force
    for (size_t r = 0; r < nr && !pulls; ++r)
      pulls = !springs_[r].angular && springs_[r].point > kFrictionRow &&
              value(r) < springs_[r].lower - kFinishPull * slack[r] / kPullSlack;
    if (pulls) {
      for (size_t r = 0; r < nr; ++r) hold[r] = value(r);  // a free row's value does not read hold
      finish_springs(work, h, slot, rows, v, hold);
      for (size_t r = 0; r < nr; ++r) held[r] = hold[r] <= springs_[r].lower;  // a point at its bound stays lifted
      finished = true;
      counters_.add(kCountFinishedSubsteps, 1);
    }
  }
  // The velocities of the last solve (or of the sweeps), and each pair's normal force at them. A row still pulling
  // after the last solve, by less than kFinishPull, keeps its pull: clamped without the velocities following, its
  // stiffness would act explicitly (which threw a tower of 320 bricks apart within a step).
  thread_local std::vector<char> moved;  // per block: a row acts on it
  moved.assign(size_t(nb), 0);
  for (const SpringRow& row : springs_) row.pair->held.clear();
  for (size_t r = 0; r < nr; ++r) {
    const SpringRow& row = springs_[r];
    const double F = finished ? hold[r] : value(r);
    if (row.angular) {
      // a tilt row's moment: no part of the pair's normal or friction force
    } else if (row.point <= kFrictionRow) {
      row.pair->friction_force += F * row.n;
    } else {
      if (held[r] && row.point >= 0) row.pair->held.push_back(row.point);
      row.pair->normal_force += F;
      row.pair->damping_force += F - row.s;
    }
    if (rows[r].sa >= 0) moved[size_t(rows[r].sa)] = 1;
    if (rows[r].sb >= 0) moved[size_t(rows[r].sb)] = 1;
  }
  for (int k = 0; k < nb; ++k) {
    if (!moved[size_t(k)]) continue;
    Body& b = work[size_t(bodies[size_t(k)])];
    b.linear_velocity = v.segment<3>(6 * k);
    b.angular_velocity = v.segment<3>(6 * k + 3);
  }
}

}  // namespace cl
