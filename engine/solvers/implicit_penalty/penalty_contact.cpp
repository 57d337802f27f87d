#include "solvers/implicit_penalty/penalty_contact.h"

#include <cmath>
#include <limits>
#include <utility>

#include "solvers/implicit_penalty/point_runs.h"

namespace cl::implicit_penalty {

// Per point, the gradient blocks are products of the point's vectors with a few per-pair matrices, so a pair's
// sum is assembled from sums over its points (moments) once per call, not 12 x 12 per point. With s = s_b, the
// constant c = x_B - x_A (so s_a = s + c) and C = [c]x, the quantities below are sums over the points.

namespace {

// dw/dtheta at fixed angular momentum: w = I_world^-1 L with I_world = R I_body R^T turning with R gives
// dw = I_world^-1 [L]x dtheta - [w]x dtheta. A body without inverse inertia has a prescribed w.
Mat3 angular_velocity_rotation_gradient(const BodyPose& body) {
  if (body.inv_inertia.isZero(0.0)) return Mat3::Zero();
  return body.inv_inertia * skew(body.L) - skew(body.w);
}

// sum of [x_i]x [y_i]x = sum of (y_i x_i^T - (x_i . y_i) I), from Y = sum of y_i x_i^T.
Mat3 skew_products(const Mat3& Y) {
  Mat3 m = Y;
  m.diagonal().array() -= Y.trace();
  return m;
}

struct Moments {
  int count = 0;
  Vec3 s1{0, 0, 0};             // sum s
  Mat3 M2 = Mat3::Zero();       // sum s s^T                 (damping)
  Vec3 F{0, 0, 0};              // sum F (force on B, penalty and damping)
  Vec3 sxF{0, 0, 0};            // sum s x F
  Vec3 fp{0, 0, 0};             // sum k d n (penalty force)  (exact)
  Mat3 Pfs = Mat3::Zero();      // sum (k d n) s^T            (exact: rotating normal)
  Mat3 SF = Mat3::Zero();       // sum s F^T                  (exact: lever arms)
  // Rank-one penalty terms, a = k n, b = s x a, g = G (world distance gradient), h = G x s.
  Mat3 Agg = Mat3::Zero(), Agh = Mat3::Zero(), Bg = Mat3::Zero(), Bh = Mat3::Zero();
};

// Adds the block N_j of each column j (the derivative of the total force on B) to the four rows,
// F_A = -F, tau_A = s_a x F_A, F_B = F, tau_B = s x F, given sum N, sum [s_a]x N and sum [s]x N.
void add_column(Mat12& D, int c, const Mat3& N, const Mat3& SaN, const Mat3& SN) {
  D.block<3, 3>(0, c) -= N;
  D.block<3, 3>(3, c) -= SaN;
  D.block<3, 3>(6, c) += N;
  D.block<3, 3>(9, c) += SN;
}

}  // namespace

void add_point_forces(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                      double k, double k_d, GradientMode mode, PairForce& sum, bool along_field_gradient,
                      RunMomentsMemo* memo) {
  if (penetrating.empty()) return;
  const bool exact = mode == GradientMode::Exact;
  const bool damped = k_d != 0.0;
  const Vec3 c = points.x - field.x;
  // Relative velocity of A's and B's material points at P = x_B + s (eq. 41):
  //   u = v_A + w_A x s_a - v_B - w_B x s = u0 + omega x s.
  const Vec3 omega = field.w - points.w;
  const Vec3 u0 = field.v + field.w.cross(c) - points.v;

  Moments M;
  M.count = int(penetrating.size());
  // A point's normal n: B's outward one (the paper's N^ is the inward one: F_A = k d N^), or A's inward one, the
  // opposite of its unit distance gradient; and G, the world gradient of A's distance (eq. 23), for which the
  // approximation takes the unit normal direction -n.
  auto directions = [&](const PenetratingPoint& p) {
    Vec3 n = points.R * p.n_b;
    Vec3 g{0, 0, 0};
    if (along_field_gradient || exact) g = field.R * p.g_a;
    if (along_field_gradient) {
      const double len = g.norm();
      if (len > 1e-12) n = -g / len;
    }
    return std::pair<Vec3, Vec3>{n, exact ? g : Vec3(-n)};
  };
  auto add_one = [&](const PenetratingPoint& p) {
    // Handle and contact point (eq. 21): s = R_B r_B, P = x_B + s, s_a = R_A r_A = P - x_A = s + c.
    const Vec3 s = points.R * p.r_b;
    const std::pair<Vec3, Vec3> nG = directions(p);
    const Vec3& n = nG.first;
    const Vec3& G = nG.second;
    // Force on B: penalty (eq. 19) and damping (eq. 41); A gets the opposite (eq. 20, 42).
    const Vec3 fp = (k * p.d) * n;
    Vec3 F = fp;
    if (damped) F += k_d * (u0 + omega.cross(s));
    M.s1 += s;
    M.F += F;
    M.sxF += s.cross(F);
    // Penalty through the distance (eq. 31-34): dF_B/dq = k n dd/dq, with (eq. 26-29)
    //   dd/dq = [-G^T, (G x s_a)^T, G^T, -(G x s)^T],  q = [x_A, theta_A, x_B, theta_B].
    const Vec3 a = k * n, b = s.cross(a), h = G.cross(s);
    M.Agg.noalias() += a * G.transpose();
    M.Agh.noalias() += a * h.transpose();
    M.Bg.noalias() += b * G.transpose();
    M.Bh.noalias() += b * h.transpose();
    if (exact) {
      M.fp += fp;
      M.Pfs.noalias() += fp * s.transpose();
      M.SF.noalias() += s * F.transpose();
    }
    if (damped) M.M2.noalias() += s * s.transpose();
  };
  // A run of points sharing g_a and n_b (point_runs.h): n, G and a = k n are the run's, so with S1 = sum s,
  // Sd = sum d s and M2 = sum s s^T (rotated from the run's moments in B's frame) the sums above are
  //   sum k d n = k (sum d) n,  sum s x k d n = Sd x a,  sum k d n s^T = a Sd^T,  sum s (k d n)^T = Sd a^T,
  //   sum a G^T = count a G^T,  sum a h^T = a (G x S1)^T,  sum b G^T = (S1 x a) G^T,
  //   sum b h^T = sum (-[a]x s) ([G]x s)^T = [a]x M2 [G]x,
  // and the damping's, with u = u0 + omega x s: sum u = count u0 + omega x S1, sum s x (omega x s) =
  // tr(M2) omega - M2 omega, sum s (omega x s)^T = -M2 [omega]x.
  auto add_run = [&](std::span<const PenetratingPoint> run) {
    const PenetratingPoint& p = run.front();
    const std::pair<Vec3, Vec3> nG = directions(p);
    const Vec3& n = nG.first;
    const Vec3& G = nG.second;
    const RunMoments m = run_moments(run, memo);
    const double count = m.count;
    const Vec3 S1 = points.R * m.r, Sd = points.R * m.dr;
    const Mat3 M2 = points.R * m.rr * points.R.transpose();
    const Vec3 a = k * n;
    const Vec3 fp = (k * m.d) * n;
    Vec3 F = fp, sxF = Sd.cross(a);
    Mat3 SF = Sd * a.transpose();
    if (damped) {
      F += k_d * (count * u0 + omega.cross(S1));
      sxF += k_d * (S1.cross(u0) + M2.trace() * omega - M2 * omega);
      SF += k_d * (S1 * u0.transpose() - M2 * skew(omega));
      M.M2 += M2;
    }
    M.s1 += S1;
    M.F += F;
    M.sxF += sxF;
    M.Agg.noalias() += (count * a) * G.transpose();
    M.Agh.noalias() += a * G.cross(S1).transpose();
    M.Bg.noalias() += S1.cross(a) * G.transpose();
    M.Bh.noalias() += skew(a) * M2 * skew(G);
    if (exact) {
      M.fp += fp;
      M.Pfs.noalias() += a * Sd.transpose();
      M.SF += SF;
    }
  };
  for (size_t i = 0; i < penetrating.size();) {
    const size_t run = point_run_length(penetrating, i);
    if (run >= kLeastPointRun) {
      add_run(penetrating.subspan(i, run));
    } else {
      for (size_t j = i; j < i + run; ++j) add_one(penetrating[j]);
    }
    i += run;
  }

  const Mat3 C = skew(c);
  const Vec3 sa1 = M.s1 + M.count * c;                                           // sum s_a
  const Mat3 M2a = M.M2 + M.s1 * c.transpose() + c * M.s1.transpose() + M.count * c * c.transpose();  // sum s_a s_a^T
  const Mat3 Ssa = M.M2 + M.s1 * c.transpose();                                   // sum s s_a^T

  // Wrench: F_A = -F, tau_A = s_a x F_A, F_B = F, tau_B = s x F (eq. 19-20, 41-42).
  sum.wrench.segment<3>(0) -= M.F;
  sum.wrench.segment<3>(3) -= M.sxF + c.cross(M.F);
  sum.wrench.segment<3>(6) += M.F;
  sum.wrench.segment<3>(9) += M.sxF;
  sum.points += M.count;

  Mat12& D = sum.d_pos;
  // Rank-one penalty part, per point u v^T with rows u = [-a; -(b + C a); a; b] (F_A, tau_A, F_B, tau_B of
  // a = k n) and columns v = [-g; h - C g; g; -h] (G x s_a = h - C g). Ra_j = sum a v_j^T, Rb_j = sum b v_j^T.
  {
    const Mat3 Ra[4] = {-M.Agg, M.Agh + M.Agg * C, M.Agg, -M.Agh};
    const Mat3 Rb[4] = {-M.Bg, M.Bh + M.Bg * C, M.Bg, -M.Bh};
    for (int j = 0; j < 4; ++j) add_column(D, 3 * j, Ra[j], Rb[j] + C * Ra[j], Rb[j]);
  }

  if (exact) {
    // The rotating normal (eq. 24, 34): k d dn/dtheta_B = -k d [n]x, summed: N3 = -[sum k d n]x, and
    // sum [s]x (-k d [n]x) = -(Pfs - tr(Pfs) I). Along the field's gradient the direction is A's face normal,
    // which turns with A instead (a plane's or box face's normal is fixed in A's frame): the same sums, in the
    // column of theta_A.
    const Mat3 turning = -skew(M.fp), turning_moment = -skew_products(M.Pfs);
    if (along_field_gradient) add_column(D, 3, turning, turning_moment + C * turning, turning_moment);
    Mat3 N3 = along_field_gradient ? Mat3::Zero() : turning;
    Mat3 SN3 = along_field_gradient ? Mat3::Zero() : turning_moment;
    if (damped) {
      // Damping through the moving lever arms and the turning angular velocities (eq. 45-48):
      //   du/dx_A = -[w_A]x,  du/dtheta_A = -[s_a]x W_A,  du/dx_B = [w_A]x,
      //   du/dtheta_B = -[omega]x [s]x + [s]x W_B,   W = dw/dtheta.
      // Sums use [s]x [omega]x [s]x = -(omega . s) [s]x, so sum -[s]x[omega]x[s]x = [M2 omega]x.
      const Mat3 Wa = angular_velocity_rotation_gradient(field);
      const Mat3 Wb = angular_velocity_rotation_gradient(points);
      const Mat3 K0 = -k_d * skew(field.w);
      const Mat3 N0 = M.count * K0, SaN0 = skew(sa1) * K0, SN0 = skew(M.s1) * K0;
      add_column(D, 0, N0, SaN0, SN0);
      add_column(D, 6, -N0, -SaN0, -SN0);
      if (!Wa.isZero(0.0))
        add_column(D, 3, -k_d * skew(sa1) * Wa, -k_d * skew_products(M2a) * Wa,
                   -k_d * skew_products(Ssa.transpose()) * Wa);
      N3 += k_d * (-skew(omega) * skew(M.s1) + skew(M.s1) * Wb);
      SN3 += k_d * (skew(M.M2 * omega) + skew_products(M.M2) * Wb);
    }
    add_column(D, 9, N3, SN3 + C * N3, SN3);

    // Moving lever arms of the torques (eq. 37-40): tau_A = -s_a x F gives [F]x ds_a, tau_B = s x F gives
    // -[F]x ds = [F]x [s]x dtheta_B; summed, sum [F]x [s]x = SF - tr(SF) I.
    const Mat3 Fx = skew(M.F), FxS = skew_products(M.SF);
    D.block<3, 3>(3, 0) -= Fx;
    D.block<3, 3>(3, 6) += Fx;
    D.block<3, 3>(3, 9) -= FxS;
    D.block<3, 3>(9, 9) += FxS;
  }

  if (damped) {
    // Velocity gradients (eq. 49-51): per point dF_DB/d[v_A, w_A, v_B, w_B] = k_d [I, -[s_a]x, -I, [s]x]; the
    // rows F_A, tau_A, F_B, tau_B multiply it by -1, -[s_a]x, 1, [s]x. The result is -k_d J_D^T J_D, symmetric.
    Mat12& V = sum.d_vel;
    const double kn = k_d * M.count;
    const Mat3 kSa = k_d * skew(sa1), kS = k_d * skew(M.s1);
    const Mat3 SaSa = k_d * skew_products(M2a), SS = k_d * skew_products(M.M2);
    const Mat3 SaS = k_d * skew_products(Ssa);  // sum [s_a]x [s]x = sum (s s_a^T - (s . s_a) I)
    V.block<3, 3>(0, 0).diagonal().array() -= kn;
    V.block<3, 3>(0, 3) += kSa;
    V.block<3, 3>(0, 6).diagonal().array() += kn;
    V.block<3, 3>(0, 9) -= kS;
    V.block<3, 3>(3, 0) -= kSa;
    V.block<3, 3>(3, 3) += SaSa;
    V.block<3, 3>(3, 6) += kSa;
    V.block<3, 3>(3, 9) -= SaS;
    V.block<3, 3>(6, 0).diagonal().array() += kn;
    V.block<3, 3>(6, 3) -= kSa;
    V.block<3, 3>(6, 6).diagonal().array() -= kn;
    V.block<3, 3>(6, 9) += kS;
    V.block<3, 3>(9, 0) += kS;
    V.block<3, 3>(9, 3) -= SaS.transpose();
    V.block<3, 3>(9, 6) -= kS;
    V.block<3, 3>(9, 9) += SS;
  }
}

void add_point_force(const BodyPose& field, const BodyPose& points, const PenetratingPoint& p, double k, double k_d,
                     GradientMode mode, PairForce& sum) {
  add_point_forces(field, points, std::span<const PenetratingPoint>(&p, 1), k, k_d, mode, sum);
}

PairForce swapped(const PairForce& f) {
  auto swap_halves = [](const Mat12& m, Mat12& out) {
    out.topLeftCorner<6, 6>() = m.bottomRightCorner<6, 6>();
    out.topRightCorner<6, 6>() = m.bottomLeftCorner<6, 6>();
    out.bottomLeftCorner<6, 6>() = m.topRightCorner<6, 6>();
    out.bottomRightCorner<6, 6>() = m.topLeftCorner<6, 6>();
  };
  PairForce s;
  s.a = f.b;
  s.b = f.a;
  s.points = f.points;
  s.wrench << f.wrench.tail<6>(), f.wrench.head<6>();
  swap_halves(f.d_pos, s.d_pos);
  swap_halves(f.d_vel, s.d_vel);
  return s;
}

void add_depth_damping(const BodyPose& field, const BodyPose& points, std::span<const PenetratingPoint> penetrating,
                       double k_d, PairForce& sum, bool field_round, bool points_round, const Vec3& push,
                       RunMomentsMemo* memo) {
  if (penetrating.empty() || k_d == 0.0) return;
  if (points_round && !(push.squaredNorm() > 0.0)) return;
  const Vec3 c = points.x - field.x;
  // The rotation that moves the shapes: a round body's spin about its centre moves none of its surface.
  const Vec3 w_field = field_round ? Vec3::Zero() : field.w, w_points = points_round ? Vec3::Zero() : points.w;
  const Vec3 omega = w_field - w_points;
  const Vec3 u0 = field.v + w_field.cross(c) - points.v;
  Vec3 F_sum = Vec3::Zero(), sxF = Vec3::Zero();
  Mat12& V = sum.d_vel;
  // V -= k_d r r^T per point, entry by entry V_ij -= r_j (k_d r_i) as Eigen's outer product forms it. The third
  // block of r is the first negated, so from an all-zero V (+0 everywhere, as a fresh PairForce has it) its rows
  // and columns stay the negations of the first's exactly (x * -y = -(x y), and rounding is symmetric; an entry
  // that is +0 stays +0 on both sides): only the other three blocks are summed (81 entries of the 144), and the
  // rest written at the end, the negations as 0 - x (never -0, as the sums from +0 never are).
  bool zero = true;
  for (int k = 0; k < 144 && zero; ++k) zero = V.data()[k] == 0.0 && !std::signbit(V.data()[k]);
  // The summed blocks, column by column in pairs of rows (the last pair's second entry unused), so that each
  // update is two lanes of the same multiply and subtract.
  typedef double Pair __attribute__((vector_size(16)));
  Pair W[9][5] = {};
  auto add_one = [&](const PenetratingPoint& p) {
    Vec3 G = field.R * p.g_a;
    const double len = G.norm();
    if (len < 1e-12) return;
    // A round points body is damped along the pair's normal through its centre.
    G = points_round ? push : Vec3(G / len);
    const Vec3 s = points_round ? Vec3::Zero() : Vec3(points.R * p.r_b);
    const Vec3 sa = s + c;
    const Vec3 u = u0 + omega.cross(s);
    const Vec3 F = (k_d * G.dot(u)) * G;
    F_sum += F;
    sxF += s.cross(F);
    const Vec3 ra = field_round ? Vec3::Zero() : Vec3(sa.cross(G));
    const Vec3 rb = points_round ? Vec3::Zero() : Vec3(-s.cross(G));
    if (!zero) {
      Vec12 r;
      r << G, ra, -G, rb;
      V.noalias() -= k_d * r * r.transpose();
      return;
    }
    double r9[10], a9[10];
    for (int k = 0; k < 3; ++k) r9[k] = G[k], r9[3 + k] = ra[k], r9[6 + k] = rb[k];
    r9[9] = 0.0;
    for (int k = 0; k < 10; ++k) a9[k] = k_d * r9[k];
    Pair a[5];
    for (int q = 0; q < 5; ++q) a[q] = Pair{a9[2 * q], a9[2 * q + 1]};
    for (int j = 0; j < 9; ++j) {
      const Pair rj = {r9[j], r9[j]};
      for (int q = 0; q < 5; ++q) W[j][q] -= rj * a[q];
    }
  };
  // A run of points sharing g_a and n_b (point_runs.h) shares G, so with S1 = sum s, M2 = sum s s^T (rotated from
  // the run's moments in B's frame), sum s_a = S1 + count c, M2a = sum s_a s_a^T and Ssa = sum s_a s^T:
  //   sum G . u = G . (count u0 + omega x S1),  sum (G . u) s = (G . u0) S1 + M2 (G x omega),
  //   sum r_a = sum s_a x G,  sum r_b = G x S1,  sum r_a r_a^T = -[G]x M2a [G]x,  sum r_a r_b^T = [G]x Ssa [G]x,
  //   sum r_b r_b^T = -[G]x M2 [G]x  (r_a = -[G]x s_a, r_b = [G]x s),
  // summed into Wr, the blocks {0, 1, 3} of V as W holds them.
  Eigen::Matrix<double, 9, 9> Wr = Eigen::Matrix<double, 9, 9>::Zero();
  auto add_run = [&](std::span<const PenetratingPoint> run) {
    Vec3 G = field.R * run.front().g_a;
    const double len = G.norm();
    if (len < 1e-12) return;
    G = points_round ? push : Vec3(G / len);
    const RunMoments m = run_moments(run, memo);
    const double count = m.count;
    const Vec3 S1 = points_round ? Vec3::Zero() : Vec3(points.R * m.r);
    const Mat3 M2 = points_round ? Mat3::Zero() : Mat3(points.R * m.rr * points.R.transpose());
    const Vec3 Sa1 = S1 + count * c;
    const double Gu = G.dot(count * u0 + omega.cross(S1));
    F_sum += (k_d * Gu) * G;
    sxF += (k_d * (G.dot(u0) * S1 + M2 * G.cross(omega))).cross(G);
    const Mat3 X = skew(G);
    const Vec3 ra = field_round ? Vec3::Zero() : Vec3(Sa1.cross(G));
    const Vec3 rb = points_round ? Vec3::Zero() : Vec3(G.cross(S1));
    const Mat3 M2a = M2 + S1 * c.transpose() + c * S1.transpose() + count * c * c.transpose();
    const Mat3 Ssa = M2 + c * S1.transpose();
    const Mat3 RaRa = field_round ? Mat3::Zero() : Mat3(-X * M2a * X);
    const Mat3 RaRb = field_round || points_round ? Mat3::Zero() : Mat3(X * Ssa * X);
    const Mat3 RbRb = points_round ? Mat3::Zero() : Mat3(-X * M2 * X);
    const Mat3 GG = count * G * G.transpose(), Gra = G * ra.transpose(), Grb = G * rb.transpose();
    Wr.block<3, 3>(0, 0) -= k_d * GG;
    Wr.block<3, 3>(0, 3) -= k_d * Gra;
    Wr.block<3, 3>(3, 0) -= k_d * Gra.transpose();
    Wr.block<3, 3>(0, 6) -= k_d * Grb;
    Wr.block<3, 3>(6, 0) -= k_d * Grb.transpose();
    Wr.block<3, 3>(3, 3) -= k_d * RaRa;
    Wr.block<3, 3>(3, 6) -= k_d * RaRb;
    Wr.block<3, 3>(6, 3) -= k_d * RaRb.transpose();
    Wr.block<3, 3>(6, 6) -= k_d * RbRb;
  };
  for (size_t i = 0; i < penetrating.size();) {
    // Runs only into an all-zero V (the blocks written at the end).
    const size_t run = zero ? point_run_length(penetrating, i) : 1;
    if (run >= kLeastPointRun) {
      add_run(penetrating.subspan(i, run));
    } else {
      for (size_t j = i; j < i + run; ++j) add_one(penetrating[j]);
    }
    i += run;
  }
  if (zero) {
    // The summed blocks {0, 1, 3} of V; rows and columns of block 2 from block 0's.
    constexpr int kBlock[3] = {0, 3, 9};
    for (int j = 0; j < 9; ++j)
      for (int i = 0; i < 9; ++i) V(kBlock[i / 3] + i % 3, kBlock[j / 3] + j % 3) = W[j][i / 2][i % 2] + Wr(i, j);
    for (int bi = 0; bi < 4; ++bi)
      if (bi != 2) V.block<3, 3>(3 * bi, 6) = 0.0 - V.block<3, 3>(3 * bi, 0).array();  // columns of block 2
    // Rows of block 2, its own columns included: 0 - (0 - x) is x, as two negations give.
    for (int bj = 0; bj < 4; ++bj) V.block<3, 3>(6, 3 * bj) = 0.0 - V.block<3, 3>(0, 3 * bj).array();
  }
  sum.wrench.segment<3>(0) -= F_sum;
  sum.wrench.segment<3>(3) -= sxF + c.cross(F_sum);
  sum.wrench.segment<3>(6) += F_sum;
  sum.wrench.segment<3>(9) += sxF;
}

PairNormal pair_normal(const BodyPose& a, const BodyPose& b, std::span<const PenetratingPoint> a_in_b,
                       std::span<const PenetratingPoint> b_in_a) {
  PairNormal out;
  double weight = 0.0;
  Vec3 n_sum = Vec3::Zero(), p_sum = Vec3::Zero();
  // b's points in a's field: a's gradient pushes b out; a's points in b's field: b's gradient pushes a out,
  // so b along its opposite.
  // A run of points sharing g_a (point_runs.h) shares G: its weights and weighted positions are summed in the
  // owner's frame and turned once.
  auto add = [&](std::span<const PenetratingPoint> points, const BodyPose& field, const BodyPose& owner, double sign) {
    for (size_t i = 0; i < points.size();) {
      const size_t run = point_run_length(points, i);
      if (run >= kLeastPointRun) {
        const Vec3 G = field.R * points[i].g_a;
        const double len = G.norm();
        if (len >= 1e-12) {
          double w = 0.0;
          Vec3 wr = Vec3::Zero();
          for (size_t j = i; j < i + run; ++j) {
            const double wj = -points[j].d;
            w += wj;
            wr += wj * points[j].r_b;
            out.deepest = std::max(out.deepest, wj);
          }
          n_sum += (sign * w / len) * G;
          p_sum += w * owner.x + owner.R * wr;
          weight += w;
          out.count += int(run);
        }
        i += run;
        continue;
      }
      for (size_t j = i; j < i + run; ++j) {
        const PenetratingPoint& p = points[j];
        const Vec3 G = field.R * p.g_a;
        const double len = G.norm();
        if (len < 1e-12) continue;
        const double w = -p.d;
        n_sum += (sign * w / len) * G;
        p_sum += w * (owner.x + owner.R * p.r_b);
        weight += w;
        out.deepest = std::max(out.deepest, w);
        ++out.count;
      }
      i += run;
    }
  };
  add(b_in_a, a, b, 1.0);
  add(a_in_b, b, a, -1.0);
  const double len = n_sum.norm();
  if (weight <= 0.0 || len < 1e-12 * weight) return PairNormal{};
  out.normal = n_sum / len;
  out.point = p_sum / weight;
  out.secant = weight / (out.count * out.deepest);
  return out;
}

double approach_speed(const BodyPose& a, const BodyPose& b, const PairNormal& n) {
  const Vec3 u = a.v + a.w.cross(n.point - a.x) - b.v - b.w.cross(n.point - b.x);
  return n.normal.dot(u);
}

double restitution_damping_ratio(double e) {
  if (e <= 0.0) return 1.0;
  if (e >= 1.0) return 0.0;
  const double l = std::log(e);
  return -l / std::sqrt(M_PI * M_PI + l * l);
}

double rebound_speed(double K, double secant, double c, double m, double h, double depth, double approach,
                     double pull) {
  double x = -depth, v = -approach;
  // The contact's energy with the spring of the force, K_s x^2 / 2 + m v^2 / 2: a step that damps less than
  // nothing (A < m below) may raise it, and a contact that keeps raising it never comes out (it is driven
  // deeper, faster) or comes out faster than any damping asked: that is a rebound without bound.
  const double start = 0.5 * m * v * v + 0.5 * secant * K * x * x;
  const double A = m + h * c + h * h * K;
  if (!(A > 0.0)) return std::numeric_limits<double>::infinity();
  int steps = 0;
  for (; x < 0.0 && steps < 10000; ++steps) {
    // Eq. 15-17 for one body on the spring: m (v' - v) = h (F + dF/dx h v' + dF/dv v') with F = -K_s x,
    // dF/dx = -K (the gradient at a fixed set of points), dF/dv = -c: (m + h c + h^2 K) v' = m v - h K_s x.
    v = (m * v - h * secant * K * x - h * m * pull) / A;
    x += h * v;
    if (start > 0.0 && 0.5 * m * v * v + 0.5 * secant * K * x * x > 1e6 * start) return std::numeric_limits<double>::infinity();
  }
  return std::max(0.0, v);
}

double discrete_restitution(double K, double c, double m, double h, double secant) {
  constexpr int kPhases = 8;
  double sum = 0.0;
  // Arriving at speed 1: the first step that starts inside is at depth (phase + 0.5) / kPhases of one step's
  // travel.
  for (int phase = 0; phase < kPhases; ++phase) sum += rebound_speed(K, secant, c, m, h, h * (phase + 0.5) / kPhases, 1.0);
  return sum / kPhases;
}

namespace {

// The least damping from `floor` up at which `rebound(c)` (falling as c grows) is at most `target`; `floor`
// when even that rebounds less. Where the rebound jumps (the number of steps in contact changes there): the
// side nearer the target, or with `replanned` the side that stays longer and rebounds less, which a caller
// that asks again next step can still lower.
template <class F>
double damping_for(double floor, double start, double target, bool replanned, F rebound) {
  double lo = floor, hi = std::max(start, 0.0);
  if (rebound(lo) <= target) return lo;
  for (int i = 0; i < 60 && rebound(hi) > target; ++i) hi = 2.0 * hi - floor;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rebound(mid) > target ? lo : hi) = mid;
  }
  if (replanned) return hi;
  return rebound(lo) - target < target - rebound(hi) ? lo : hi;
}

// Without any damping, in continuous time, the contact would leave at no more than half of `target` (from its
// kinetic energy and its spring's, less the work against the other forces on the way out), or no rebound is asked.
bool spent(double K, double secant, double m, double depth, double approach, double target, double pull) {
  const double leaving = approach * approach + secant * K * depth * depth / m - 2.0 * pull * depth;
  return !(target > 0.0) || leaving <= 0.25 * target * target;
}

// A stiff contact that even the lowest damping `floor` lets out slower than `target`: it leaves within the step
// (sqrt(K / m) h above about 2), and one step, whose gain is at most m / (m + h c + h^2 K) = 2 at the floor, cannot
// give its speed back (two balls meeting head-on with e = 1 at h = 1/30 s touch 1.7 cm deep at 2 m/s, and leaving
// at 2 m/s in that step needs a gain of 2.7; they left at 1.70). The continuous contact lasts pi / sqrt(K_s / m),
// 1.35 steps there: held in for this step, deeper and slower, its spring gives the next step the speed. So the least
// damping at which the contact is still in after this step and from where it then is the floor's rebound reaches
// `target` (asked again next step, held, the damping found there leaves at `target`; `holding` says so); the floor
// when no damping of this step does.
double held_damping(double K, double secant, double m, double h, double depth, double approach, double target,
                    double pull, double floor, bool* holding) {
  // This step at damping c (the step of rebound_speed), then the floor from where it leaves the contact: a
  // contact that is out after this step leaves at its speed.
  const double push = -m * approach + h * secant * K * depth - h * m * pull;
  const auto reachable = [&](double c) {
    const double v = push / (m + h * c + h * h * K), x = -depth + h * v;
    return x < 0.0 ? rebound_speed(K, secant, floor, m, h, -x, -v, pull) : std::max(0.0, v);
  };
  // The least damping that keeps the contact in: a step that leaves it at most at depth 0 (v' <= depth / h).
  // It is held with no damping taken back (c >= 0, the step as dissipative as backward Euler): below zero the
  // step's gain, checked only on the reduced model, moved the plank of scenes/seesaw.json with e = 1 at h = 1/30 s
  // off its pivot at three times the speed asked (2.2 kJ from 50 J).
  double lo = 0.0;
  if (push > 0.0 && depth > 0.0) lo = std::max(lo, (push * h / depth - m - h * h * K) / h);
  if (reachable(lo) >= target) {
    if (holding) *holding = true;
    return lo;
  }
  double hi = lo + 2.0 * std::sqrt(K * m);
  for (int i = 0; i < 60 && reachable(hi) < target; ++i) hi = 2.0 * hi - lo;
  if (reachable(hi) < target) return floor;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (reachable(mid) < target ? lo : hi) = mid;
  }
  if (holding) *holding = true;
  return hi;
}

}  // namespace

double restitution_damping(double K, double m, double h, double e, double secant) {
  if (e <= 0.0 || h <= 0.0) return 2.0 * std::sqrt(K * m);
  const double continuous = 2.0 * restitution_damping_ratio(e) * std::sqrt(secant * K * m);
  return damping_for(-K * h * (1.0 - 1e-9), continuous, e, false, [&](double c) { return discrete_restitution(K, c, m, h, secant); });
}

double impact_damping(double K, double secant, double m, double h, double depth, double approach, double target,
                      double pull, bool held, bool* holding) {
  if (holding) *holding = false;
  const auto rebound = [&](double c) { return rebound_speed(K, secant, c, m, h, depth, approach, pull); };
  // Spent: without any damping, in continuous time, the contact would leave at no more than half of `target`
  // (from its kinetic energy and its spring's, less the work against the other forces on the way out), or it
  // is held in: the body has come to rest on it (a box that hit on an edge and fell flat). Taking back the
  // step's own damping then would lift a resting body. (A contact in the middle of an impact whose search
  // already takes back the step's damping keeps about its target.) A contact held in by the last step's plan
  // (held_damping) is not spent: that step took its speed for this one to give back.
  if (!(target > 0.0) || (!held && spent(K, secant, m, depth, approach, target, pull)))
    return std::numeric_limits<double>::quiet_NaN();
  if (rebound(0.0) > target) return damping_for(0.0, 2.0 * std::sqrt(K * m), target, true, rebound);
  // Backward Euler keeps less than asked: take back some of its damping, at most down to where a step of the
  // reduced model doubles the speed (m + h c + h^2 K = m / 2). Between there and 0 the rebound falls as c grows
  // (where the model diverges it is unbounded).
  double lo = -K * h - 0.5 * m / h, hi = 0.0;
  // Held once at most: a contact its last step held in leaves from there as the floor lets it.
  if (rebound(lo) < target) return held ? lo : held_damping(K, secant, m, h, depth, approach, target, pull, lo, holding);
  if (rebound(lo) == target) return lo;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rebound(mid) > target ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace cl::implicit_penalty
