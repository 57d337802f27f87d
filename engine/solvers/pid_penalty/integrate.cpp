#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>
#include <span>

#include <Eigen/Cholesky>

#include "constraints/motion.h"
#include "constraints/pgs.h"
#include "constraints/row.h"
#include "joints/joint_solve.h"
#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

void PidPenaltySolver::solve_joints(StepContext& ctx, std::vector<Body>& work, double h) {
  for (auto& entry : pairs_) entry.second.pressed = 0.0;
  if (ctx.joints.empty()) return;
  ScopedSubStage timer(sub_stages_, kJoints);
  joint_rows_.clear();
  // A joint's erp is the fraction of its error removed per world step (thesis sect. 4.8); over n substeps each
  // removes erp / n of it, so the correction's rate stays erp / dt as under `lcp`. Taken whole at every 1 ms substep
  // the correction ran five times faster than the scene asks, and on the excavator's three closed loops, which ten
  // sweeps do not solve, it pumped the mechanism to megajoules within a second.
  for (int j = 0; j < int(ctx.joints.size()); ++j) {
    Joint joint = ctx.joints[size_t(j)];
    joint.erp *= h / ctx.dt;
    joint_rows(joint, j, work, h, joint_rows_);
  }
  if (joint_rows_.empty()) return;
  load_inverse_masses(work, masses_);
  rows_.clear();
  for (const JointRow& jr : joint_rows_) {
    Row row = jr;
    prepare(row, masses_);
    row.lambda = joint_warm_.guess(jr);
    rows_.push_back(row);
  }
  velocities_.resize(work.size());
  for (size_t i = 0; i < work.size(); ++i) velocities_[i] = {work[i].linear_velocity, work[i].angular_velocity};
  // The joints are solved with the contacts' impulses (our addition; Drumwright, sect. II and III: impulses where a
  // contact must stop an approach at once, penalty forces for resting contact). A motor of max_force 1e30 N m is
  // an impulsive load: the finite PD forces of eq. 3 cannot return it within a substep, and it drove a door
  // through a fixed post. So where a penalty pair's forces act on a body of a joint, a unilateral row
  // (lambda >= 0) keeps the joints from making the pair approach faster than the forces left it, J u >= min(v_n, 0),
  // an inelastic impact's impulse in the joints' own solve. Its rows come after the joints', so each sweep ends
  // with them: the joints' impulses never push a body into a contact, and what the contacts return bounds what a
  // motor achieves. They only stop approaches, so they take energy away, never add it.
  //
  // One row per pair, at the centre of its points' forces along their mean normal: how the pair's load spreads
  // over its points is the springs' to say (eq. 3, each point's force by its depth). A row at each point left that
  // spread to the sweeps, which may put the whole load on one point: a door that a motor held against the edge of a
  // post pressed it at one end of the edge only, turned about that point out of its hinge's axis a little more at
  // every substep, and crept into the post (2.1 mm over half a second at 1/500 s, 7.4 mm at 1/240 s before it
  // jammed, out of its axis by 6.7e-3 rad).
  std::vector<char> jointed(work.size(), 0);
  for (const Joint& joint : ctx.joints)
    for (int i : {joint.body_a, joint.body_b})
      if (i >= 0 && size_t(i) < work.size()) jointed[size_t(i)] = 1;
  thread_local std::vector<Pair*> row_pairs;  // of the contact rows, after the joints' rows
  row_pairs.clear();
  // One row per run of `points` of one pair (each pair records its points together), at the centre of the run's
  // points that `keep` takes, each weighted by its force (`weight`; their plain mean where none carries force).
  const auto pair_rows = [&](const auto& points, auto&& keep, auto&& weight) {
    for (size_t first = 0, last = 0; first < points.size(); first = last) {
      const auto& p = points[first];
      last = first;
      Vec3 at = Vec3::Zero(), mean = Vec3::Zero(), n = Vec3::Zero();
      double total = 0.0;
      int count = 0;
      for (; last < points.size() && points[last].pair == p.pair; ++last) {
        if (!keep(points[last])) continue;
        const double f = std::max(weight(points[last]), 0.0);
        at += f * points[last].at;
        mean += points[last].at;
        n += points[last].n;
        total += f;
        ++count;
      }
      if (count == 0 || (!jointed[size_t(p.a)] && !jointed[size_t(p.b)]) || !(n.norm() > 0.0)) continue;
      at = total > 0.0 ? Vec3(at / total) : Vec3(mean / double(count));
      n.normalize();
      Row row = point_row(p.a, p.b, at - work[size_t(p.a)].position, at - work[size_t(p.b)].position, n);
      row.lo = 0.0;
      prepare(row, masses_);
      if (row.inv_diag == 0.0) continue;
      row.target = std::min(row.value(velocities_[size_t(p.a)], velocities_[size_t(p.b)]), 0.0);
      rows_.push_back(row);
      row_pairs.push_back(p.pair);
    }
  };
  // The points are the substep's force evaluation's: its springs (implicit Euler) or dampers (semi-implicit Euler);
  // the RK4 integrator keeps none, and leaves the contacts out of the joints' solve.
  if (set_.integrator == Integrator::ImplicitEuler)
    pair_rows(springs_, [](const SpringRow& r) { return r.point >= 0; }, [](const SpringRow& r) { return r.s; });
  if (set_.integrator == Integrator::SemiImplicitEuler)
    pair_rows(damped_, [](const DampedPoint&) { return true; }, [](const DampedPoint& d) { return d.spring; });
  apply_impulses(rows_, velocities_);
  // The motors are held for the second half of the sweeps (joints/joint_solve.h).
  motor_row_indices(joint_rows_, 0, motor_rows_);
  solve_joints_and_contacts(rows_, {}, motor_rows_, velocities_, {set_.joint_iterations, 0.0, false});
  // What the contact rows pressed is part of their pairs' normal force, as the implicit springs' and dampers' part
  // is (damping_force): Coulomb's limit of the next substep's friction counts it. Without it, a gripper whose
  // fingers' servos squeeze a box through these rows held it by the penalty forces' part alone, and the box slid
  // out of the fingers as they lifted (0.049 m after 6 s; 0.271 m without the rows).
  for (size_t k = 0; k < row_pairs.size(); ++k) {
    row_pairs[k]->damping_force += rows_[joint_rows_.size() + k].lambda / h;
    row_pairs[k]->pressed += rows_[joint_rows_.size() + k].lambda / h;
  }
  for (size_t i = 0; i < work.size(); ++i)
    if (work[i].is_dynamic()) {
      work[i].linear_velocity = velocities_[i].v;
      work[i].angular_velocity = velocities_[i].w;
    }
  for (const JointRow& jr : joint_rows_) joint_warm_.forget(jr.joint);
  for (size_t r = 0; r < joint_rows_.size(); ++r) joint_warm_.keep(joint_rows_[r], rows_[r].lambda);
}

// Our departure from the paper's explicit integration of eq. 1: a damper of coefficient c on a body of mass m
// steps stably only for c h / m < 2, and a light body under a heavy load needs the load's damping (a 1 kg box
// under 100 kg, or the lowest box of a tower, whose contacts' k_v is sized by what they carry). Backward Euler on
// the dampers alone is stable at any c: per pair, the impulses j at its points solve (W + (h C)^-1) j = -v, W the
// pair's Delassus matrix at the points along n (the change of their normal relative velocities per unit impulse),
// C their damping coefficients and v their normal relative velocities, so v' = v + W j = -(h C)^-1 j: each point's
// velocity is cut, never reversed, and kinetic energy only goes. Pairs one after another (Gauss-Seidel), or all
// points at once in a small scene (damp_implicitly). One
// impulse at a time per point, in sequence, was not the same: at 100 times a light body's critical damping the
// passes over a box's four corners left it rocking, pumped by their order.
namespace {

// The implicit damping of the points `damped` together (damp_implicitly): their impulses, written to j (N s).
template <class Matrix, class Vector, class Point>
void damp_points(std::span<const Point> damped, std::vector<Body>& work, double h, std::vector<double>& j) {
  const int r = int(damped.size());
  Matrix W(r, r);
  Vector v(r);
  thread_local std::vector<Vec3> arms;  // per point: (x - x_a) x n, then (x - x_b) x n
  arms.resize(2 * size_t(r));
  for (int i = 0; i < r; ++i) {
    const Point& d = damped[size_t(i)];
    const Body& A = work[size_t(d.a)];
    const Body& B = work[size_t(d.b)];
    arms[2 * size_t(i)] = (d.at - A.position).cross(d.n);
    arms[2 * size_t(i) + 1] = (d.at - B.position).cross(d.n);
    v(i) = (B.velocity_at(d.at) - A.velocity_at(d.at)).dot(d.n);
  }
  // W(i, k): point i's normal relative velocity per unit impulse at point k, through each dynamic body they share
  // (+ for a point's b, - for its a).
  for (int i = 0; i < r; ++i)
    for (int k = 0; k < r; ++k) {
      const Point& p = damped[size_t(i)];
      const Point& q = damped[size_t(k)];
      double w = 0.0;
      for (int side_p = 0; side_p < 2; ++side_p)
        for (int side_q = 0; side_q < 2; ++side_q) {
          const int body = side_p ? p.b : p.a;
          if (body != (side_q ? q.b : q.a) || !work[size_t(body)].is_dynamic()) continue;
          const Body& X = work[size_t(body)];
          const double sign = (side_p ? 1.0 : -1.0) * (side_q ? 1.0 : -1.0);
          w += sign * (X.inv_mass * p.n.dot(q.n) +
                       arms[2 * size_t(i) + size_t(side_p)].dot(X.inv_inertia_world * arms[2 * size_t(k) + size_t(side_q)]));
        }
      W(i, k) = w;
    }
  for (int i = 0; i < r; ++i) {
    const double c = damped[size_t(i)].c;
    if (c > 0.0) {
      W(i, i) += 1.0 / (h * c);
    } else {  // no damper: its impulse is 0
      W.row(i).setZero();
      W.col(i).setZero();
      W(i, i) = 1.0;
      v(i) = 0.0;
    }
  }
  const Vector solution = W.ldlt().solve(-v);
  j.resize(size_t(r));
  for (int i = 0; i < r; ++i) {
    const Point& d = damped[size_t(i)];
    // No pull: a point's damping at most cancels its spring's impulse (the max of eq. 3).
    const double ji = std::isfinite(solution(i)) ? std::max(solution(i), -h * d.spring) : 0.0;
    j[size_t(i)] = ji;
    Body& A = work[size_t(d.a)];
    Body& B = work[size_t(d.b)];
    if (B.is_dynamic()) {
      B.linear_velocity += B.inv_mass * (ji * d.n);
      B.angular_velocity += B.inv_inertia_world * (ji * arms[2 * size_t(i) + 1]);
    }
    if (A.is_dynamic()) {
      A.linear_velocity -= A.inv_mass * (ji * d.n);
      A.angular_velocity -= A.inv_inertia_world * (ji * arms[2 * size_t(i)]);
    }
  }
}

}  // namespace

void PidPenaltySolver::damp_implicitly(std::vector<Body>& work, double h) const {
  // Up to kTogether points are damped in one solve: a small stack's damping then reaches a heavy load through a
  // light body at once (pair by pair, a 100 kg box on a 1 kg box lost a hundredth of its speed per substep and
  // bounced for 10 s, and a column of 20 boxes of 10 cm, whose contacts are stiffened against buckling, was
  // pumped over). Beyond, pair by pair. Matrices of up to kSmall points live on the stack.
  constexpr size_t kTogether = 128;
  constexpr int kSmall = 32;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kSmall, kSmall>;
  using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kSmall, 1>;
  thread_local std::vector<double> j;
  const auto solve = [&](size_t first, size_t last) {
    const std::span<const DampedPoint> points(damped_.data() + first, last - first);
    if (points.size() <= size_t(kSmall)) damp_points<Small, SmallVector>(points, work, h, j);
    else damp_points<Eigen::MatrixXd, Eigen::VectorXd>(points, work, h, j);
    for (size_t i = 0; i < points.size(); ++i) points[i].pair->damping_force += j[i] / h;
  };
  if (damped_.size() <= kTogether) {
    solve(0, damped_.size());
    return;
  }
  for (size_t first = 0; first < damped_.size();) {
    size_t last = first + 1;
    while (last < damped_.size() && damped_[last].a == damped_[first].a && damped_[last].b == damped_[first].b) ++last;
    solve(first, last);
    first = last;
  }
}

void PidPenaltySolver::push_forces(const StepContext& ctx, std::vector<Body>& work, double h) {
  ScopedSubStage timer(sub_stages_, kForces);
  const size_t n = work.size();
  load_motions(work, motions_);
  force_.assign(n, Vec3::Zero());
  torque_.assign(n, Vec3::Zero());
  penalty_forces(work, motions_, h, 0.0, force_, torque_, true);
  for (size_t i = 0; i < n; ++i) {
    Body& b = work[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity += h * (ctx.gravity + b.inv_mass * (b.force + force_[i]));
    b.angular_velocity += h * (b.inv_inertia_world * (b.torque + torque_[i]));
  }
}

// v(t+h) = v + h M^-1 (f_applied + m g + f_contact(t)), the damping of eq. 1 implicitly (damp_implicitly), the
// joints on v(t+h), then x(t+h) = x + h v(t+h).
void PidPenaltySolver::substep_euler(StepContext& ctx, std::vector<Body>& work, double h) {
  damped_.clear();
  push_forces(ctx, work, h);
  {
    ScopedSubStage timer(sub_stages_, kForces);
    for (auto& entry : pairs_) entry.second.damping_force = 0.0;
    damp_implicitly(work, h);
  }
  solve_joints(ctx, work, h);
  ScopedSubStage timer(sub_stages_, kUpdate);
  for (Body& b : work)
    if (b.kind != BodyKind::Fixed) advance_pose(b, h);
}

// The paper's fourth-order Runge-Kutta on (x, q, v, L) with the world angular momentum L (dL/dt = torque), the
// forces evaluated at each stage; then the joints on the new velocities, their change carried into the positions.
void PidPenaltySolver::substep_rk4(StepContext& ctx, std::vector<Body>& work, double h) {
  const size_t n = work.size();
  struct State {
    Vec3 x, v, L;
    Quat q;
  };
  struct Rate {
    Vec3 dx, dv, dL;
    Quat dq;
  };
  std::vector<State> s0(n);
  for (size_t i = 0; i < n; ++i) {
    const Body& b = work[i];
    s0[i] = {b.position, b.linear_velocity, b.inertia_world() * b.angular_velocity, b.orientation};
  }
  auto motions_at = [&](const std::vector<State>& s, double t, std::vector<Motion>& m) {
    m.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Body& b = work[i];
      if (b.is_dynamic()) {
        const Quat q = s[i].q.normalized();
        const Mat3 R = q.toRotationMatrix();
        m[i] = {s[i].x, q, s[i].v, R * b.inv_inertia_body * R.transpose() * s[i].L, R};
      } else if (b.kind == BodyKind::Kinematic) {
        const Quat q = integrate_orientation(b.orientation, b.angular_velocity, t);
        m[i] = {b.position + t * b.linear_velocity, q, b.linear_velocity, b.angular_velocity, q.toRotationMatrix()};
      } else {
        m[i] = {b.position, b.orientation, Vec3::Zero(), Vec3::Zero(), b.rotation()};
      }
    }
  };
  auto rate = [&](const std::vector<State>& s, double t, bool record, std::vector<Rate>& out) {
    motions_at(s, t, motions_);
    force_.assign(n, Vec3::Zero());
    torque_.assign(n, Vec3::Zero());
    penalty_forces(work, motions_, h, t, force_, torque_, record);
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Body& b = work[i];
      const Motion& m = motions_[i];
      if (!b.is_dynamic()) {
        out[i] = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Quat(0, 0, 0, 0)};
        continue;
      }
      const Quat w(0, m.w.x(), m.w.y(), m.w.z());
      Quat dq = w * m.q;
      dq.coeffs() *= 0.5;
      out[i] = {m.v, ctx.gravity + b.inv_mass * (b.force + force_[i]), b.torque + torque_[i], dq};
    }
  };
  auto advance = [&](const std::vector<Rate>& k, double t, std::vector<State>& s) {
    s = s0;
    for (size_t i = 0; i < n; ++i) {
      s[i].x += t * k[i].dx;
      s[i].v += t * k[i].dv;
      s[i].L += t * k[i].dL;
      s[i].q.coeffs() += t * k[i].dq.coeffs();
    }
  };
  std::vector<Rate> k1, k2, k3, k4;
  std::vector<State> s;
  {
    ScopedSubStage timer(sub_stages_, kForces);
    rate(s0, 0.0, true, k1);
    advance(k1, 0.5 * h, s);
    rate(s, 0.5 * h, false, k2);
    advance(k2, 0.5 * h, s);
    rate(s, 0.5 * h, false, k3);
    advance(k3, h, s);
    rate(s, h, false, k4);
  }
  {
    ScopedSubStage timer(sub_stages_, kUpdate);
    for (size_t i = 0; i < n; ++i) {
      Body& b = work[i];
      if (b.is_dynamic()) {
        State& x = s0[i];
        x.x += (h / 6.0) * (k1[i].dx + 2.0 * k2[i].dx + 2.0 * k3[i].dx + k4[i].dx);
        x.v += (h / 6.0) * (k1[i].dv + 2.0 * k2[i].dv + 2.0 * k3[i].dv + k4[i].dv);
        x.L += (h / 6.0) * (k1[i].dL + 2.0 * k2[i].dL + 2.0 * k3[i].dL + k4[i].dL);
        x.q.coeffs() += (h / 6.0) * (k1[i].dq.coeffs() + 2.0 * k2[i].dq.coeffs() + 2.0 * k3[i].dq.coeffs() +
                                     k4[i].dq.coeffs());
        b.position = x.x;
        b.orientation = x.q.normalized();
        b.linear_velocity = x.v;
        b.update_world_inertia();
        b.angular_velocity = b.inv_inertia_world * x.L;
      } else if (b.kind == BodyKind::Kinematic) {
        advance_pose(b, h);
      }
    }
  }
  // Joints: the velocity change their impulses make, carried into the positions over the substep.
  if (ctx.joints.empty()) return;
  std::vector<BodyVelocity> before(n);
  for (size_t i = 0; i < n; ++i) before[i] = {work[i].linear_velocity, work[i].angular_velocity};
  solve_joints(ctx, work, h);
  for (size_t i = 0; i < n; ++i) {
    Body& b = work[i];
    if (!b.is_dynamic()) continue;
    b.position += h * (b.linear_velocity - before[i].v);
    b.orientation = integrate_orientation(b.orientation, b.angular_velocity - before[i].w, h);
    b.update_world_inertia();
  }
}

}  // namespace cl
