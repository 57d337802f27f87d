#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "collision/narrowphase.h"
#include "collision/relative_motion.h"
#include "solvers/pid_penalty/bottom_polygon.h"
#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

double PidPenaltySolver::shell_spacing(const Shape& shape) const {
  if (shape.type == ShapeType::Box)
    return std::max(kLeastShellSpacing, std::min(set_.point_spacing, 2.0 * shape.half_extents.minCoeff() / 3.0));
  return round_shell_spacing(shape, set_.point_spacing, kRoundCapDepth);
}

void PidPenaltySolver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  ScopedSubStage timer(sub_stages_, kShellQueries);
  margin_ = margin;
  if (bodies[size_t(ia)].shape.type == ShapeType::Mesh || bodies[size_t(ib)].shape.type == ShapeType::Mesh)
    collide_shells(bodies, ia, ib, margin, out);
  else
    collide_primitives(bodies, ia, ib, margin, out);
}

PidPenaltySolver::Pair& PidPenaltySolver::renew_pair(const PairKey& key, const Body& a, const Body& b) {
  Pair& pair = pairs_[key];
  pair.points.clear();
  pair.held.clear();  // its rows name the candidates, which are new
  pair.xa0 = a.position;
  pair.xb0 = b.position;
  pair.qa0 = a.orientation;
  pair.qb0 = b.orientation;
  return pair;
}

// Drumwright's points of contact (appendix I) are found at every step s of the simulation, the integration step
// (sect. III-B: eq. 2's d(rho, s) is the depth at step s; sect. IV: steps of 1e-3 s); ours at the world's step, and
// its substeps read the depths of those candidates as the bodies move. A candidate set holds only the features
// within the contact margin at the narrow phase: once a pair has moved relative to itself by more than that, a
// feature it never saw may be inside (a box spinning at 19 rad/s landing corner-first on another: the touching
// corner leaves within the world's step, the pair reads as separated, and the next corner turned down went 0.21 m
// deep unseen). Such a pair is collided again at the substep's poses; a resting pair, which barely moves, keeps its
// candidates. A pair the narrow phase now finds nothing for is kept, separated and without candidates, so that it
// is read again as it moves on.
void PidPenaltySolver::reread_moved_pairs(const std::vector<Body>& work) {
  moved_pairs_.clear();
  for (const auto& [key, pair] : pairs_) {
    const Body& a = work[size_t(key.first)];
    const Body& b = work[size_t(key.second)];
    if (relative_motion(a.shape, a.position, a.orientation, pair.xa0, pair.qa0, b.shape, b.position, b.orientation,
                        pair.xb0, pair.qb0) > margin_)
      moved_pairs_.push_back(key);
  }
  thread_local ContactList unused;  // the world keeps the step's contacts; the pair's candidates are what counts
  for (const PairKey& key : moved_pairs_) {
    Pair kept = pairs_.at(key);
    unused.clear();
    collide(work, key.first, key.second, margin_, unused);
    if (pairs_.count(key)) continue;
    // Found apart: kept as separated, measured from these poses, its spring history gone.
    pairs_.emplace(key, std::move(kept));
    Pair& pair = renew_pair(key, work[size_t(key.first)], work[size_t(key.second)]);
    pair.bottom.clear();
    pair.normal_point = -1;
    pair.patch_moment = 0.0;
    pair.mode = Mode::Separated;
    pair.integral = 0.0;
    pair.stretch = Vec3::Zero();
    pair.twist = 0.0;
  }
}

namespace {

// The point of a sphere's centre or a capsule's axis (body frame) nearest the world point `centre`.
Vec3 axis_point(const Body& body, const Mat3& R, const Vec3& centre) {
  if (body.shape.type != ShapeType::Capsule) return Vec3::Zero();
  const double y = (R.transpose() * (centre - body.position)).y();
  return Vec3(0, std::clamp(y, -body.shape.half_height, body.shape.half_height), 0);
}

}  // namespace

// Primitive pairs. Appendix I finds a pair's points of contact as the vertices of each body's (subdivided) mesh
// inside the other's distance field, and sect. III-A keeps the bottom of them. For planes, spheres, boxes and
// capsules the shared narrow phase already gives that bottom exactly, in a few points: a box's corners on a
// plane, the clipped face polygon of two boxes (incident corners, reference corners, edge crossings), the
// deepest point of a sphere or of a capsule's ends. Those are the candidates here, instead of point shells of
// hundreds of points per body (the 20-row pyramid took 0.4 s per step in the shell queries): each becomes a
// point fixed in one body (b's surface point, or a's where b is a plane) whose depth each substep re-reads in
// the other's exact signed distance. A sphere's or capsule's candidate is its centre or axis point with the
// radius (Candidate::radius), so a rolling ball keeps its depth; its pair's normal follows the centre's distance
// gradient. The normal of the other pairs is the narrow phase's (the separating axis of least overlap: eq. 4's
// minimum translation), turning with the body whose face it is. The bottom polygon is then found as for shells.
void PidPenaltySolver::collide_primitives(const std::vector<Body>& bodies, int ia, int ib, double margin,
                                          ContactList& out) {
  const Body& A = bodies[size_t(ia)];
  const Body& B = bodies[size_t(ib)];
  const PairKey key(ia, ib);
  thread_local ContactList found;
  found.clear();
  cl::collide(bodies, ia, ib, margin, found);
  if (found.empty()) {
    pairs_.erase(key);
    return;
  }
  Pair& pair = renew_pair(key, A, B);
  const Mat3 ra = A.rotation(), rb = B.rotation();
  const bool round_a = is_round(A.shape), round_b = is_round(B.shape);
  // The normal of a flat pair turns with the body whose face it is: a plane, or the box the narrow phase took
  // its reference face from (feature bits 8-9: 1 the first box, 2 the second, 3 an edge pair).
  const Vec3 normal = found.front().normal;
  pair.normal_of_b = B.shape.type == ShapeType::Plane ||
                     (A.shape.type != ShapeType::Plane && ((found.front().feature >> 8) & 3u) == 2u);
  pair.normal_local = (pair.normal_of_b ? rb : ra).transpose() * normal;
  pair.planar = !round_a && !round_b;
  pair.shells = false;
  if (pair.planar) {  // the face through the first contact's point on the normal's body
    const Contact& c = found.front();
    pair.plane_level = pair.normal_of_b ? normal.dot(c.position - 0.5 * c.depth * normal - B.position)
                                        : normal.dot(c.position + 0.5 * c.depth * normal - A.position);
  }
  thread_local std::vector<Vec3> points;
  thread_local std::vector<double> depths;
  points.clear();
  depths.clear();
  pair.normal_point = -1;
  const Motion ma{A.position, A.orientation, A.linear_velocity, A.angular_velocity, ra};
  const Motion mb{B.position, B.orientation, B.linear_velocity, B.angular_velocity, rb};
  double deepest = -1e300;
  for (const Contact& c : found) {
    const Vec3 on_a = c.position + 0.5 * c.depth * c.normal;  // a's surface point (inside b while they overlap)
    const Vec3 on_b = c.position - 0.5 * c.depth * c.normal;
    Candidate k;
    if (round_b) {
      k.of_b = true;
      k.radius = B.shape.radius;
      k.local = axis_point(B, rb, on_b + k.radius * c.normal);
    } else if (round_a) {
      k.radius = A.shape.radius;
      k.local = axis_point(A, ra, on_a - k.radius * c.normal);
    } else {  // a point of the body facing the normal's face
      k.of_b = !pair.normal_of_b;
      k.local = k.of_b ? Vec3(rb.transpose() * (on_b - B.position)) : Vec3(ra.transpose() * (on_a - A.position));
    }
    Vec3 p;
    const Body& field = k.of_b ? A : B;
    const Motion& m_owner = k.of_b ? mb : ma;
    if (!depth_at(field.shape, m_owner, k.of_b ? ma : mb, pair, k, p, k.depth0)) continue;
    k.reach = k.local.norm();
    k.field_reach = (m_owner.point(k.local) - field.position).norm();
    if (!pair.planar && k.depth0 > deepest) pair.normal_point = int(pair.points.size());
    deepest = std::max(deepest, k.depth0);
    pair.points.push_back(k);
    points.push_back(p);
    depths.push_back(k.depth0);
  }
  if (pair.points.empty()) {
    pairs_.erase(key);
    return;
  }
  // Sect. III-A's bottom is the part of the surface facing the other body: a box's point lies on the bottom when
  // one of the faces it is on faces the other body within 60 degrees (as collide_shells tests a shell point's
  // normal). A box thinner than the depth levels of bottom_of_penetration (a 0.2 mm sheet) otherwise had the
  // corners of its top face in the level of its bottom's, and rested on a top corner with a bottom edge its whole
  // thickness deep.
  std::unique_ptr<bool[]> side(new bool[pair.points.size()]);
  for (size_t i = 0; i < pair.points.size(); ++i) {
    const Candidate& k = pair.points[i];
    const Body& owner = k.of_b ? B : A;
    side[i] = false;
    if (owner.shape.type != ShapeType::Box) continue;
    const Vec3& half = owner.shape.half_extents;
    const Vec3 towards = (k.of_b ? rb : ra).transpose() * (k.of_b ? Vec3(-normal) : normal);  // owner's frame
    bool facing = false;
    for (int axis = 0; axis < 3; ++axis)
      if (std::abs(k.local[axis]) >= half[axis] * (1.0 - 1e-9))
        facing |= std::copysign(1.0, k.local[axis]) * towards[axis] > kBottomCosine;
    side[i] = !facing;
  }
  pair.bottom = pid_penalty::bottom_of_penetration(points, depths, normal, 1e-6,
                                                   std::span<const bool>(side.get(), pair.points.size()));
  pair.patch_moment = 0.0;
  if (pair.planar && pair.bottom.size() >= 3) {
    Vec3 t1, t2;
    tangent_basis(normal, t1, t2);
    Vec3 centre = Vec3::Zero();
    for (int i : pair.bottom) centre += points[size_t(i)];
    centre /= double(pair.bottom.size());
    double uu = 0.0, uv = 0.0, vv = 0.0;
    for (int i : pair.bottom) {
      const Vec3 r = points[size_t(i)] - centre;
      uu += r.dot(t1) * r.dot(t1);
      uv += r.dot(t1) * r.dot(t2);
      vv += r.dot(t2) * r.dot(t2);
    }
    const double k = 1.0 / double(pair.bottom.size());
    uu *= k;
    uv *= k;
    vv *= k;
    pair.patch_centre = centre;
    pair.patch_moment = 0.5 * (uu + vv) - std::sqrt(0.25 * (uu - vv) * (uu - vv) + uv * uv);
  }
  for (int i : pair.bottom) {
    Contact c;
    c.a = ia;
    c.b = ib;
    c.position = points[size_t(i)];
    c.normal = normal;
    c.depth = depths[size_t(i)];
    c.feature = (pair.points[size_t(i)].of_b ? 0x80000000u : 0u) | uint32_t(i);
    out.push_back(c);
  }
}

// Appendix I: each body's shell points inside (or within `margin` of) the other's signed distance; the contact
// normal by eq. 4; the bottom of the penetration volume (sect. III-A). The world gets one contact per bottom point.
void PidPenaltySolver::collide_shells(const std::vector<Body>& bodies, int ia, int ib, double margin,
                                      ContactList& out) {
  const Body& A = bodies[ia];
  const Body& B = bodies[ib];
  const Mat3 ra = A.rotation(), rb = B.rotation();
  thread_local std::vector<PenetratingPoint> a_in_b, b_in_a;
  a_in_b.clear();
  b_in_a.clear();
  if (auto shell = penalty_shell(A.shape, shell_spacing(A.shape)))
    find_penetrating_points(B.shape, B.position, rb, *shell, A.position, ra, a_in_b, margin);
  if (auto shell = penalty_shell(B.shape, shell_spacing(B.shape)))
    find_penetrating_points(A.shape, A.position, ra, *shell, B.position, rb, b_in_a, margin);
  const PairKey key(ia, ib);
  if (a_in_b.empty() && b_in_a.empty()) {
    pairs_.erase(key);
    return;
  }
  Pair& pair = renew_pair(key, A, B);
  // World position, depth (> 0 inside), and the facet each point is nearest (of the other body): its normal (from
  // a to b) and the plane's offset along it.
  struct Seen {
    Vec3 p;
    double depth;
    Vec3 n;
    double offset;
    Vec3 surface_normal;  // the point's own outward normal (its shell's), world
  };
  std::vector<Seen> seen;
  auto add = [&](const PenetratingPoint& q, bool of_b) {
    const Body& owner = of_b ? B : A;
    const Mat3& r_owner = of_b ? rb : ra;
    const Mat3& r_field = of_b ? ra : rb;
    const Vec3 p = owner.position + r_owner * q.r_b;
    const double phi = q.d + margin;  // the field's own signed distance
    Vec3 g = r_field * q.g_a;
    const double len = g.norm();
    if (len == 0.0) return;
    g /= len;
    // The field body's surface point nearest p, and its facet's plane: a's facets face b (n = g_a), b's face a
    // (n = -g_b).
    const Vec3 surface = p - (phi / len) * g;
    const Vec3 n = of_b ? g : Vec3(-g);
    const Body& field = of_b ? A : B;
    pair.points.push_back({of_b, q.r_b, -phi, q.r_b.norm(), (p - field.position).norm()});
    seen.push_back({p, -phi, n, n.dot(surface), r_owner * q.n_b});
  };
  for (const PenetratingPoint& q : a_in_b) add(q, false);
  for (const PenetratingPoint& q : b_in_a) add(q, true);
  if (pair.points.empty()) {
    pairs_.erase(key);
    return;
  }

  // Eq. 4: of the facets nearest the penetrating points, the one whose plane the points are least far from in the
  // worst case: the direction of minimum translation. Facets are told apart by their normals.
  double deepest = -1e300;
  for (const Seen& s : seen) deepest = std::max(deepest, s.depth);
  std::vector<int> inside;
  for (int i = 0; i < int(seen.size()); ++i)
    if (seen[i].depth > 0.0) inside.push_back(i);
  if (inside.empty())  // only near: the nearest point's facet
    for (int i = 0; i < int(seen.size()); ++i)
      if (seen[i].depth == deepest) inside.push_back(i);
  int best = inside.front();
  double best_cost = 1e300;
  std::vector<Vec3> tried;
  Vec3 mean = Vec3::Zero();  // the sum of the penetrating points' facet normals
  for (int i : inside) {
    const Vec3& n = seen[i].n;
    if (seen[i].depth > 0.0) mean += n;
    if (std::any_of(tried.begin(), tried.end(), [&](const Vec3& t) { return t.dot(n) > 1.0 - 1e-9; })) continue;
    tried.push_back(n);
    double cost = 0.0;
    for (int j : inside) cost = std::max(cost, std::abs(n.dot(seen[j].p) - seen[i].offset));
    if (cost < best_cost) {
      best_cost = cost;
      best = i;
    }
  }
  Vec3 normal = seen[best].n;
  // Eq. 4 takes one facet's normal, the direction of least translation while the penetrating points lie on facets
  // facing about one way. Where they face many ways (a bolt's thread in its nut: flanks 30 degrees off the axis
  // all round the helix, both sides of each thread) the facet it picks jumps from step to step, up to facing down,
  // and the pair's forces along it threw the bolt out of its hole with 650 J from 150 J; taking the mean only past
  // 60 degrees still switched and rattled the bolt up by 0.8 J. The pair takes the mean of the penetrating points'
  // facet normals (the shell's points are spread evenly, so about the area-weighted normal of the penetrated
  // surface, the direction the penetration as a whole pushes), which moves continuously with the bodies and is
  // eq. 4's normal where the facets are coplanar. Weighted by depth instead, the deepest points, whose nearest
  // facet may be the far side of a thin part, led it: a scanned mesh sank 19 cm for a step.
  if (mean.norm() > 0.0) normal = mean.normalized();
  pair.normal_point = -1;
  pair.planar = false;
  pair.shells = true;
  pair.normal_of_b = !pair.points[size_t(best)].of_b;  // the facet is the other body's
  pair.normal_local = (pair.normal_of_b ? rb : ra).transpose() * normal;

  // The bottom of the penetration volume, from all candidates (the ones still outside may enter during the step).
  // A point is on a side of the volume, not its bottom, when its own normal points less than 60 degrees' worth
  // toward the other body (cosine under 1/2; a's points face along the normal, b's against it): a cylinder's or a
  // mesh box's side under its face, not a cap or a tilted face.
  std::vector<Vec3> points(seen.size());
  std::vector<double> depths(seen.size());
  std::unique_ptr<bool[]> side(new bool[seen.size()]);
  for (size_t i = 0; i < seen.size(); ++i) {
    points[i] = seen[i].p;
    depths[i] = seen[i].depth;
    const double facing = seen[i].surface_normal.dot(normal) * (pair.points[i].of_b ? -1.0 : 1.0);
    side[i] = facing < kBottomCosine;
  }
  pair.bottom = pid_penalty::bottom_of_penetration(points, depths, normal, 1e-6,
                                                   std::span<const bool>(side.get(), seen.size()));
  for (int i : pair.bottom) {
    Contact c;
    c.a = ia;
    c.b = ib;
    c.position = seen[i].p;
    c.normal = normal;
    c.depth = seen[i].depth;
    c.feature = (pair.points[i].of_b ? 0x80000000u : 0u) | uint32_t(i);
    out.push_back(c);
  }
}

Vec3 PidPenaltySolver::contact_normal(const std::vector<Body>& bodies, const Pair& pair, const std::vector<Motion>& m,
                                      const PairKey& key) const {
  if (pair.normal_point >= 0) {
    const Candidate& c = pair.points[size_t(pair.normal_point)];
    const Motion& owner = m[size_t(c.of_b ? key.second : key.first)];
    const Motion& field = m[size_t(c.of_b ? key.first : key.second)];
    double phi;
    Vec3 g;
    if (shape_signed_distance(bodies[size_t(c.of_b ? key.first : key.second)].shape,
                              field.R.transpose() * (owner.point(c.local) - field.x), phi, g)) {
      const Vec3 n = field.R * g;  // away from the field body, towards the round one
      return c.of_b ? n : Vec3(-n);
    }
  }
  return m[size_t(pair.normal_of_b ? key.second : key.first)].R * pair.normal_local;
}

PidPenaltySolver::Drift PidPenaltySolver::drift(const std::vector<Body>& bodies, const std::vector<Motion>& m,
                                                 const PairKey& key, const Pair& pair) const {
  // The angle of the turn from q0 to q: 2 atan2(|vec|, |w|) of q q0^-1 (accurate for small turns, unlike acos).
  const auto turn = [](const Quat& q, const Quat& q0) {
    const Quat r = q * q0.conjugate();
    return 2.0 * std::atan2(r.vec().norm(), std::abs(r.w()));
  };
  const Motion& A = m[size_t(key.first)];
  const Motion& B = m[size_t(key.second)];
  Drift d;
  d.move_a = (A.x - pair.xa0).norm();
  d.turn_a = turn(A.q, pair.qa0);
  d.move_b = (B.x - pair.xb0).norm();
  d.turn_b = turn(B.q, pair.qb0);
  d.slope_a = distance_slope(bodies[size_t(key.first)].shape);
  d.slope_b = distance_slope(bodies[size_t(key.second)].shape);
  d.speed_a = A.v.norm();
  d.spin_a = A.w.norm();
  d.speed_b = B.v.norm();
  d.spin_b = B.w.norm();
  return d;
}

bool PidPenaltySolver::may_touch(const Candidate& c, const Drift& d, double ahead) {
  // m: rounding between the narrow phase's and depth_of's evaluations of the same distance is far below this.
  constexpr double kSlack = 1e-9;
  const double move_own = c.of_b ? d.move_b : d.move_a, turn_own = c.of_b ? d.turn_b : d.turn_a;
  const double move_field = c.of_b ? d.move_a : d.move_b, turn_field = c.of_b ? d.turn_a : d.turn_b;
  const double slope = c.of_b ? d.slope_a : d.slope_b;
  // In the field body's frame the point moved by at most |dx_own| + turn_own |r_own| + |dx_field| + turn_field
  // |p0 - x_field0|: its own body's motion, and the frame's shift and turn about the point's old place.
  const double moved = move_own + turn_own * c.reach + move_field + turn_field * c.field_reach;
  double bound = c.depth0 + slope * moved + kSlack;
  if (ahead > 0.0) {
    const double speed_own = c.of_b ? d.speed_b : d.speed_a, spin_own = c.of_b ? d.spin_b : d.spin_a;
    const double speed_field = c.of_b ? d.speed_a : d.speed_b, spin_field = c.of_b ? d.spin_a : d.spin_b;
    // |v_rel(p)| <= |v_own| + |w_own| |p - x_own| + |v_field| + |w_field| |p - x_field|, and |p - x_field| is at most
    // its narrow-phase value plus the point's and the field centre's displacements.
    bound += ahead * (speed_own + spin_own * c.reach + speed_field + spin_field * (c.field_reach + moved + move_field));
  }
  return bound >= 0.0;
}

bool PidPenaltySolver::depth_at(const Shape& field_shape, const Motion& owner, const Motion& f, const Pair& pair,
                                const Candidate& c, Vec3& point, double& depth) {
  point = owner.point(c.local);
  if (pair.planar) {
    const Vec3 n = f.R * pair.normal_local;  // the field body's face; a's faces b, b's faces a
    const double height = n.dot(point - f.x) - pair.plane_level;
    depth = c.of_b ? -height : height;
    return true;
  }
  double phi;
  Vec3 g;
  if (!shape_signed_distance(field_shape, f.R.transpose() * (point - f.x), phi, g)) return false;
  depth = c.radius - phi;
  if (c.radius > 0.0) point -= c.radius * (f.R * g);  // the round body's surface point nearest the other body
  return true;
}

bool PidPenaltySolver::depth_of(const std::vector<Body>& bodies, const std::vector<Motion>& m, const PairKey& key,
                                const Pair& pair, const Candidate& c, Vec3& point, double& depth) const {
  const int owner = c.of_b ? key.second : key.first;
  const int field = c.of_b ? key.first : key.second;
  return depth_at(bodies[size_t(field)].shape, m[size_t(owner)], m[size_t(field)], pair, c, point, depth);
}

void PidPenaltySolver::load_motions(const std::vector<Body>& bodies, std::vector<Motion>& out) const {
  out.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    out[i] = {b.position, b.orientation, b.linear_velocity, b.angular_velocity, b.rotation()};
  }
}

// Where a force along n found at point p acts. On a sphere or capsule the surface normal at every point passes
// through its centre or axis, so the force acts on the line along n through p's nearest place on that axis: a
// ball's shell points sit unevenly in its cap, and forces along n at the points themselves turned it (a ball
// dropped on the ground started to roll and gained energy, 0.013 to 0.07 J in 10 s). Both bodies take the force on
// the same line, so momentum and angular momentum balance. Other pairs: p itself.
Vec3 PidPenaltySolver::line_of_action(const std::vector<Body>& bodies, const std::vector<Motion>& m,
                                      const PairKey& key, const Vec3& n, const Vec3& p) {
  const int r = is_round(bodies[size_t(key.second)].shape) ? key.second
                : is_round(bodies[size_t(key.first)].shape)  ? key.first
                                                             : -1;
  if (r < 0) return p;
  const Shape& shape = bodies[size_t(r)].shape;
  Vec3 q = m[size_t(r)].x;
  if (shape.type == ShapeType::Capsule) {
    const Vec3 axis = m[size_t(r)].R.col(1);
    q += std::clamp(axis.dot(p - q), -shape.half_height, shape.half_height) * axis;
  }
  return q + n.dot(p - q) * n;
}

}  // namespace cl
