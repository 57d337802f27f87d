#include "solvers/implicit_penalty/patch_friction.h"

#include <cmath>
#include <optional>

#include "solvers/implicit_penalty/point_runs.h"

namespace cl::implicit_penalty {

namespace {

// The unit gradient G of the field at a point whose force acts along it (see patch_friction.h), or none: the same
// for the points of a run (point_runs.h), which share g_a and n_b.
std::optional<Vec3> pushing_direction(const PenetratingPoint& p, const Mat3& Rf, const Mat3& Ro) {
  Vec3 G = Rf * p.g_a;
  const double len = G.norm();
  if (len < 1e-12 || -(Ro * p.n_b).dot(G) < std::sqrt(0.5) * len) return std::nullopt;
  G /= len;
  return G;
}

// The velocity of the owner's material point at s (from its centre) relative to the field body's there, along G:
// G . ((v_o + w_o x s) - (v_f + w_f x (s + x_o - x_f))) = base + s . lever, as G . (w x q) = q . (G x w). The same
// for the points of a run, which share G.
struct NormalSpeed {
  double base = 0.0;
  Vec3 lever{0, 0, 0};
};

NormalSpeed normal_speed(const Body& field, const Body& owner, const Vec3& G) {
  const Vec3 Gf = G.cross(field.angular_velocity);
  return {G.dot(owner.linear_velocity - field.linear_velocity) - (owner.position - field.position).dot(Gf),
          G.cross(owner.angular_velocity) - Gf};
}

// A point that delivered a normal force f > 0 at the end of the step (see patch_friction.h), at r in its owner's
// frame (its shell point); `side` indexes the pair's sides.
struct PointForce {
  double f = 0.0;
  Vec3 r{0, 0, 0};
  int side = 0;
};

}  // namespace

bool patch_friction_rows(int a, int b, std::span<const PatchSide> sides, const std::vector<Body>& bodies,
                         const PatchFrictionSettings& s, std::span<const InverseMass> masses, int normal_index,
                         Row* out) {
  double total = 0.0;
  Vec3 pushes = Vec3::Zero(), moment = Vec3::Zero();
  // The points that push, kept for the second pass (below) in their order.
  thread_local std::vector<PointForce> pushing;
  pushing.clear();
  for (size_t k = 0; k < sides.size(); ++k) {
    const PatchSide& side = sides[k];
    const Mat3 Rf = bodies[size_t(side.field)].rotation(), Ro = bodies[size_t(side.owner)].rotation();
    const std::span<const PenetratingPoint> points = *side.points;
    const Body& owner = bodies[size_t(side.owner)];
    for (size_t i = 0; i < points.size();) {
      const size_t run = point_run_length(points, i);
      const std::optional<Vec3> G = pushing_direction(points[i], Rf, Ro);
      if (!G) {
        i += run;
        continue;
      }
      // A run shares G, so its points' speeds along G are base + r . (Ro^T lever) in the owner's frame, and its
      // sums are sum f (its push, G pushing the owner out of the field body, times that) and sum f r, turned once.
      const NormalSpeed speed = normal_speed(bodies[size_t(side.field)], owner, *G);
      const Vec3 lever = Ro.transpose() * speed.lever;
      double run_total = 0.0;
      Vec3 fr = Vec3::Zero();
      for (size_t j = i; j < i + run; ++j) {
        const PenetratingPoint& p = points[j];
        const double v_n = speed.base + p.r_b.dot(lever);
        // With the pair's normal force given (normal_force), the points only place the patch: weighted by their
        // depth, so that a ball held by its exact depth keeps its friction while its few cap points are barely in.
        const double f = s.normal_force >= 0.0 ? s.k * std::abs(p.d) : s.k * std::abs(p.d) - (s.k * s.h + s.k_d) * v_n;
        if (!(f > 0.0)) continue;
        run_total += f;
        fr += f * p.r_b;
        pushing.push_back({f, p.r_b, int(k)});
      }
      total += run_total;
      pushes += run_total * (side.owner == b ? *G : Vec3(-*G));
      moment += run_total * owner.position + Ro * fr;
      i += run;
    }
  }
  // The points' pushes give the normal unless the pair's line is given (s.normal); only then may they cancel.
  const bool given = !s.normal.isZero(0.0);
  if (!(total > 0.0) || (!given && pushes.norm() < 1e-6 * total)) return false;
  const Vec3 normal = given ? s.normal : Vec3(pushes.normalized());
  // A ball on a plane touches it at its surface point facing it, not at the pressure's centre d deep inside it:
  // v = w r there is rolling without slipping.
  const Vec3 centre = s.normal_force >= 0.0 ? s.centre : Vec3(moment / total);
  // The tangent directions: along the sliding, or any.
  const Body& A = bodies[size_t(a)];
  const Body& B = bodies[size_t(b)];
  const Vec3 ra = centre - A.position, rb = centre - B.position;
  const Vec3 v_rel = (B.linear_velocity + B.angular_velocity.cross(rb)) - (A.linear_velocity + A.angular_velocity.cross(ra));
  const Vec3 v_t = v_rel - v_rel.dot(normal) * normal;
  const double speed = v_t.norm();
  const bool sliding = speed > s.slip_speed;
  const Vec3 t1 = sliding ? Vec3(v_t / speed) : normal.unitOrthogonal();
  const Vec3 t2 = normal.cross(t1);
  // The pressure's mean lever about the centre in the tangent plane (the twist's), and the patch's reach from the
  // centre along each tangent (the tilts', about the other): a second pass, it needs the centre.
  // Each in the point's owner's frame: r = Ro (r_b + Ro^T (x_o - centre)), with the normal and tangents turned.
  double lever = 0.0, along[2] = {0.0, 0.0};
  struct Frame {
    Vec3 offset, normal, t1, t2;
  };
  thread_local std::vector<Frame> frames;
  frames.resize(sides.size());
  for (size_t k = 0; k < sides.size(); ++k) {
    const Body& owner = bodies[size_t(sides[k].owner)];
    const Mat3 RoT = owner.rotation().transpose();
    frames[k] = {RoT * (owner.position - centre), RoT * normal, RoT * t1, RoT * t2};
  }
  for (const PointForce& pf : pushing) {
    const Frame& fr = frames[size_t(pf.side)];
    const Vec3 r = pf.r + fr.offset;
    lever += pf.f * (r - r.dot(fr.normal) * fr.normal).norm();
    along[0] = std::max(along[0], std::abs(r.dot(fr.t1)));
    along[1] = std::max(along[1], std::abs(r.dot(fr.t2)));
  }
  lever /= total;

  const double spin = (B.angular_velocity - A.angular_velocity).dot(normal);
  const bool turning = std::abs(spin) * lever > s.slip_speed;

  Row normal_row;  // holds the normal impulse; no Jacobian, so the solve never moves it
  normal_row.a = a;
  normal_row.b = b;
  normal_row.lambda = normal_row.lo = normal_row.hi = s.h * (s.normal_force >= 0.0 ? s.normal_force : total);
  out[0] = normal_row;
  prepare(out[0], masses);
  int k = 1;
  for (const Vec3& t : {t1, t2}) {
    Row& r = out[k++];
    r = point_row(a, b, ra, rb, t);
    r.normal_row = normal_index;
    r.mu = sliding ? s.dynamic_ratio * s.mu : s.mu;
    r.follows = true;
    prepare(r, masses);
  }
  Row& twist = out[3];
  twist = Row{};
  twist.a = a;
  twist.b = b;
  twist.ja_ang = -normal;
  twist.jb_ang = normal;
  twist.normal_row = normal_index;
  twist.mu = (turning ? s.dynamic_ratio * s.mu : s.mu) * lever;
  twist.follows = true;
  prepare(twist, masses);
  // The tilts: the bodies' relative turn about t2 (which tilts the patch along t1) and about t1, each bounded by
  // the normal impulse times the patch's reach along the direction it tilts, the moment of the pressure shifted
  // to the patch's edge (no friction coefficient: the pressure shifting across the patch holds it).
  for (int q = 0; q < 2; ++q) {
    Row& tilt = out[4 + q];
    tilt = Row{};
    tilt.a = a;
    tilt.b = b;
    const Vec3 axis = q == 0 ? t2 : t1;
    tilt.ja_ang = -axis;
    tilt.jb_ang = axis;
    tilt.normal_row = normal_index;
    tilt.mu = s.rolls ? 0.0 : along[q];
    tilt.follows = true;
    prepare(tilt, masses);
  }
  return true;
}

}  // namespace cl::implicit_penalty
