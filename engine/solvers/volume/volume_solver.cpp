#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "collision/mesh_shape.h"
#include "mesh/generate.h"
#include "telemetry/telemetry.h"

namespace cl {

namespace {

using Clock = std::chrono::steady_clock;

const std::vector<ParamSpec>& specs() {
  static const std::vector<ParamSpec> list = {
      {"pixel_size", ParamKind::Real, "m", 1e-4, 1.0, 0.01,
       "Side of the layered depth images' square pixels (sect. 3.2); the resolution of the intersection volumes"},
      {"multi_volume", ParamKind::Bool, "", 0, 1, 1,
       "Split each intersection by a grid of cubic cells, one volume constraint per cell (sect. 5, eq. 22-24); "
       "off: one per pair, which leaves rocking about the contact centre unconstrained"},
      {"cell_size", ParamKind::Real, "m", 1e-3, 10.0, 0.1,
       "Side of the multi-volume grid cells (at least the pixel size)"},
      {"iterations", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of the velocity MLCP with friction (eq. 16-17, 20-21)"},
      {"tolerance", ParamKind::Real, "", 0, 1e6, 1e-12,
       "A PGS solve stops early once a sweep changes no multiplier by more than this (0: always all sweeps)"},
      {"warm_start", ParamKind::Bool, "", 0, 1, 1,
       "Start the velocity PGS from the previous step's impulses of volume contacts that persist"},
      {"friction_directions", ParamKind::Integer, "", 0, 2, 2,
       "Tangent rows per volume contact (eq. 21): 0 frictionless, 1 along the sliding direction, 2 the "
       "friction box (bounds +-mu rho, first direction along the weighted sliding velocity of eq. 20)"},
      {"stabilization_iterations", ParamKind::Integer, "", 0, 100, 5,
       "Most position corrections per step (Algorithm 1 lines 5-9): each solves eq. 18-19 and recomputes the "
       "images; 0 turns post-stabilisation off"},
      {"stabilization_sweeps", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of each position MLCP (eq. 18-19)"},
      {"rest_depth", ParamKind::Real, "pixels", 0, 10, 0.5,
       "Depth kept by post-stabilisation, in pixels: eps_V = rest_depth * pixel_size * contact area (sect. 4.3)"},
      {"axis_combination", ParamKind::Choice, "", 0, 1, 1,
       "How the three images' volumes combine: mean (the paper's) or normal-weighted (exact for thin resting "
       "layers aligned with an axis; same gradient)",
       {"mean", "normal-weighted"}},
      {"threads", ParamKind::Integer, "", 0, 64, 0,
       "Workers rasterising the depth images (0: all hardware threads); results do not depend on it"},
  };
  return list;
}

// Capsule along y: a uv sphere with an odd stack count (no ring on the equator) whose halves are pulled
// apart by the half height, turned from z to y.
TriangleMesh make_capsule_mesh(double r, double hh) {
  TriangleMesh m = make_uv_sphere(r, 24, 13);
  for (Vec3& v : m.vertices) {
    const double z = v.z() + (v.z() > 0 ? hh : -hh);
    v = Vec3(v.x(), z, -v.y());  // rotation by -90 degrees about x (determinant +1, orientation kept)
  }
  return m;
}

}  // namespace

std::span<const ParamSpec> VolumeSolver::param_specs() { return specs(); }

VolumeSolver::VolumeSolver() { params_ = ParamSet(specs()); }

VolumeSolver::VolumeSolver(const VolumeSolver& other) : Solver(other), meshes_(other.meshes_) {}

void VolumeSolver::reset() {
  pairs_.clear();
  blocks_.clear();
  profile_ = {};
}

void VolumeSolver::Settings::read(const ParamSet& p) {
  pixel_size = p.get("pixel_size");
  multi_volume = p.get("multi_volume") != 0;
  cell_size = std::max(p.get("cell_size"), pixel_size);
  iterations = int(p.get("iterations"));
  tolerance = p.get("tolerance");
  warm_start = p.get("warm_start") != 0;
  friction_directions = int(p.get("friction_directions"));
  stabilization_iterations = int(p.get("stabilization_iterations"));
  stabilization_sweeps = int(p.get("stabilization_sweeps"));
  rest_depth = p.get("rest_depth");
  combine = int(p.get("axis_combination"));
  threads = int(p.get("threads"));
}

ldi::VolumeOptions VolumeSolver::Settings::ldi_options() const {
  ldi::VolumeOptions options;
  options.pixel_size = pixel_size;
  options.multi_volume = multi_volume;
  options.cell_size = cell_size;
  options.threads = threads;
  options.combine = combine == 0 ? ldi::AxisCombination::Mean : ldi::AxisCombination::NormalWeighted;
  return options;
}

bool VolumeSolver::make_constraint(const ldi::VolumeContact& vc, const Vec3& centre_a, const Vec3& centre_b,
                                   Constraint& c) {
  // No normal: nothing pushes (one body inside the other, or a cell whose terms cancel).
  if (vc.volume <= 0 || vc.area <= 0 || vc.normal.isZero(0.0)) return false;
  c.volume = vc.volume;
  c.area = vc.area;
  c.normal = vc.normal;
  for (int s = 0; s < 2; ++s) {
    c.linear[s] = vc.body[s].linear;
    c.angular[s] = vc.body[s].angular;
    c.area_sum[s] = vc.body[s].area_sum;
    c.area_moment[s] = vc.body[s].area_moment;
  }
  // The contact centre (sect. 4.2): midway between the barycentres of the two contact surfaces.
  c.position = 0.5 * (vc.body[0].contact_centre(centre_a) + vc.body[1].contact_centre(centre_b));
  return true;
}

const std::vector<VolumeSolver::Constraint>* VolumeSolver::constraints(int a, int b) const {
  auto it = pairs_.find({a, b});
  return it == pairs_.end() || !it->second.valid ? nullptr : &it->second.constraints;
}

const TriangleMesh* VolumeSolver::body_mesh(const Shape& s) {
  if (s.type == ShapeType::Mesh) return s.mesh ? &s.mesh->mesh : nullptr;
  if (s.type == ShapeType::Plane) return nullptr;
  std::array<double, 6> key{double(int(s.type)), 0, 0, 0, 0, 0};
  if (s.type == ShapeType::Box) key = {key[0], s.half_extents.x(), s.half_extents.y(), s.half_extents.z(), 0, 0};
  if (s.type == ShapeType::Sphere) key[4] = s.radius;
  if (s.type == ShapeType::Capsule) key = {key[0], 0, 0, 0, s.radius, s.half_height};
  auto it = meshes_.find(key);
  if (it != meshes_.end()) return &it->second;
  TriangleMesh m;
  if (s.type == ShapeType::Box) m = make_box(s.half_extents, 1);
  if (s.type == ShapeType::Sphere) m = make_uv_sphere(s.radius, 24, 12);
  if (s.type == ShapeType::Capsule) m = make_capsule_mesh(s.radius, s.half_height);
  return &meshes_.emplace(key, std::move(m)).first->second;
}

bool VolumeSolver::world_mesh(const std::vector<Body>& bodies, int i, int other, std::vector<Vec3>& vertices,
                              const std::vector<std::array<int, 3>>*& triangles) {
  const Body& b = bodies[i];
  const Mat3 r = b.rotation();
  if (b.shape.type == ShapeType::Plane) {
    // The half space as a box under the plane, centred below the other body's bounding box, wider and deeper
    // than it, so the LDI sees a closed mesh whose top face is the plane.
    const Body& o = bodies[other];
    const Aabb box = shape_aabb(o.shape, o.position, o.orientation);
    const double size = (box.hi - box.lo).norm() + 0.1;
    const Vec3 n = (r * b.shape.normal).normalized();
    const Vec3 p0 = b.position + n * b.shape.offset;
    const Vec3 c = 0.5 * (box.lo + box.hi);
    const Vec3 foot = c - n * n.dot(c - p0);
    Vec3 t1, t2;
    tangent_basis(n, t1, t2);  // (t1, t2, n) right-handed: the box keeps its outward orientation
    if (plane_box_.empty()) plane_box_ = make_box(Vec3(1, 1, 1), 1);
    vertices.resize(plane_box_.vertices.size());
    for (size_t k = 0; k < plane_box_.vertices.size(); ++k) {
      const Vec3& u = plane_box_.vertices[k];
      vertices[k] = foot + t1 * (u.x() * size) + t2 * (u.y() * size) + n * (0.5 * size * (u.z() - 1.0));
    }
    triangles = &plane_box_.triangles;
    return true;
  }
  const TriangleMesh* m = body_mesh(b.shape);
  if (!m || m->empty()) return false;
  vertices.resize(m->vertices.size());
  for (size_t k = 0; k < m->vertices.size(); ++k) vertices[k] = b.position + r * m->vertices[k];
  triangles = &m->triangles;
  return true;
}

VolumeSolver::PairCache& VolumeSolver::compute_pair(const std::vector<Body>& bodies, int ia, int ib) {
  PairCache& pc = pairs_[{ia, ib}];
  const Body& A = bodies[ia];
  const Body& B = bodies[ib];
  if (pc.valid && pc.pa == A.position && pc.pb == B.position && pc.qa.coeffs() == A.orientation.coeffs() &&
      pc.qb.coeffs() == B.orientation.coeffs())
    return pc;  // same poses as the last computation (e.g. post-stabilisation ended without a correction)
  pc.valid = true;
  pc.pa = A.position;
  pc.pb = B.position;
  pc.qa = A.orientation;
  pc.qb = B.orientation;
  pc.constraints.clear();
  const std::vector<std::array<int, 3>>* ta = nullptr;
  const std::vector<std::array<int, 3>>* tb = nullptr;
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return pc;
  if (!world_mesh(bodies, ia, ib, world_vertices_[0], ta) || !world_mesh(bodies, ib, ia, world_vertices_[1], tb))
    return pc;
  ldi::MeshInput ma{world_vertices_[0], *ta, A.position};
  ldi::MeshInput mb{world_vertices_[1], *tb, B.position};
  const auto t0 = Clock::now();
  ws_.ldi->compute(ma, mb, set_.ldi_options(), result_);
  profile_.images_s += seconds_since(t0);
  ++profile_.pair_computations;
  const auto t1 = Clock::now();
  if (!result_.ok() || !result_.boxes_overlap) return pc;
  std::span<const ldi::VolumeContact> list = set_.multi_volume ? result_.cells() : std::span(&result_.mono, 1);
  Constraint c;
  for (const ldi::VolumeContact& vc : list)
    if (make_constraint(vc, A.position, B.position, c)) pc.constraints.push_back(c);
  profile_.constraints += long(pc.constraints.size());
  profile_.modelling_s += seconds_since(t1);
  return pc;
}

void VolumeSolver::collide(const std::vector<Body>& bodies, int ia, int ib, double, ContactList& out) {
  set_.read(params_);
  const PairCache& pc = compute_pair(bodies, ia, ib);
  if (debug_on_) capture_pair(bodies, ia, ib, set_, debug_limit_, &pc.constraints);  // drawing only
  for (size_t k = 0; k < pc.constraints.size(); ++k) {
    const Constraint& c = pc.constraints[k];
    Contact contact;
    contact.a = ia;
    contact.b = ib;
    contact.position = c.position;
    contact.normal = c.normal;
    contact.depth = c.volume / c.area;  // mean intersection depth (sect. 4.3)
    contact.feature = uint32_t(k);      // index of the volume in the pair's list
    out.push_back(contact);
  }
}

VolumeSolver::Row VolumeSolver::make_row(const std::vector<Body>& bodies, int a, int b, const Vec3& la,
                                         const Vec3& aa, const Vec3& lb, const Vec3& ab) const {
  Row r;
  r.a = a;
  r.b = b;
  r.ja_lin = la;
  r.ja_ang = aa;
  r.jb_lin = lb;
  r.jb_ang = ab;
  const Body& A = bodies[a];
  const Body& B = bodies[b];
  r.ba_lin = A.inv_mass * la;
  r.ba_ang = A.inv_inertia_world * aa;
  r.bb_lin = B.inv_mass * lb;
  r.bb_ang = B.inv_inertia_world * ab;
  const double diag = la.dot(r.ba_lin) + aa.dot(r.ba_ang) + lb.dot(r.bb_lin) + ab.dot(r.bb_ang);
  r.inv_diag = diag > 1e-300 ? 1.0 / diag : 0.0;
  return r;
}

namespace {

inline void apply(const VolumeSolver::Row& r, double d, std::vector<Vec3>& lin, std::vector<Vec3>& ang) {
  lin[r.a] += d * r.ba_lin;
  ang[r.a] += d * r.ba_ang;
  lin[r.b] += d * r.bb_lin;
  ang[r.b] += d * r.bb_ang;
}

// One projected Gauss-Seidel update of w = J u + bias with lambda clamped to [lo, hi]; returns |change|.
inline double relax(VolumeSolver::Row& r, double lo, double hi, std::vector<Vec3>& lin, std::vector<Vec3>& ang) {
  const double w = r.ja_lin.dot(lin[r.a]) + r.ja_ang.dot(ang[r.a]) + r.jb_lin.dot(lin[r.b]) +
                   r.jb_ang.dot(ang[r.b]) + r.bias;
  const double next = std::clamp(r.lambda - r.inv_diag * w, lo, hi);
  const double d = next - r.lambda;
  if (d == 0.0) return 0.0;
  r.lambda = next;
  apply(r, d, lin, ang);
  return std::abs(d);
}

}  // namespace

int VolumeSolver::sweep(std::vector<Block>& blocks, int iterations, double& residual) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int it = 0;
  while (it < iterations) {
    ++it;
    residual = 0.0;
    // Symmetric Gauss-Seidel: sweeps alternate direction, so that the rows taken first do not take more of
    // the load (forward sweeps only loaded a gripped block's low-z cells first, and the friction's torque
    // about the grip axis tipped it over as it slipped).
    const bool forward = it % 2 == 1;
    for (size_t i = 0; i < blocks.size(); ++i) {
      Block& k = blocks[forward ? i : blocks.size() - 1 - i];
      double change = relax(k.normal, 0.0, kInf, lin_, ang_);
      // Friction pyramid as a box, |beta_i| <= mu rho (eq. 8-10 with the symmetric basis of eq. 21).
      const double bound = k.mu * k.normal.lambda;
      for (int f = 0; f < k.friction_rows; ++f)
        change = std::max(change, relax(k.friction[f], -bound, bound, lin_, ang_));
      residual = std::max(residual, change);
    }
    if (residual <= set_.tolerance) break;
  }
  return it;
}

void VolumeSolver::solve_velocities(StepContext& ctx) {
  set_.read(params_);
  const size_t n = ctx.bodies.size();
  const double h = ctx.dt;
  lin_.resize(n);
  ang_.resize(n);
  // Prediction: the unconstrained velocities u* = u + h M^-1 f_ext (Algorithm 1, "prediction" step of 4.3;
  // the gyroscopic term is left out).
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    b.sleeping = false;  // this method does not put bodies to sleep
    lin_[i] = b.linear_velocity;
    ang_[i] = b.angular_velocity;
    if (!b.is_dynamic()) continue;
    lin_[i] += h * (ctx.gravity + b.inv_mass * b.force);
    ang_[i] += h * (b.inv_inertia_world * b.torque);
  }

  // Correction: one block per volume contact.
  const auto t0 = Clock::now();
  blocks_.clear();
  for (int ci = 0; ci < int(ctx.contacts.size()); ++ci) {
    Contact& contact = ctx.contacts[ci];
    const auto* list = constraints(contact.a, contact.b);
    if (!list || contact.feature >= list->size()) continue;
    const Constraint& c = (*list)[contact.feature];
    Block k;
    k.contact = ci;
    k.mu = contact.friction;
    // Eq. 16-17 with g = -V: the row -J_V u >= 0 (the volume does not grow), impulse -J_V^T rho, rho >= 0.
    k.normal = make_row(ctx.bodies, contact.a, contact.b, -c.linear[0], -c.angular[0], -c.linear[1],
                        -c.angular[1]);
    if (k.normal.inv_diag == 0.0) continue;
    const double push = c.linear[1].norm();  // force per unit rho on b, m^2
    const bool warm = set_.warm_start && contact.persisted;
    k.normal.lambda = warm && push > 0 ? contact.normal_impulse / push : 0.0;
    k.friction_rows = contact.friction > 0 ? set_.friction_directions : 0;
    if (k.friction_rows > 0) {
      // Tangents (sect. 4.2) by Gram-Schmidt from the normal; the first along the weighted sliding velocity
      // v_rel = sum_k A_k dp_k/dt = sum_bodies S v + w x M (eq. 20) when there is one.
      Vec3 vrel = Vec3::Zero();
      const int body[2] = {contact.a, contact.b};
      for (int s = 0; s < 2; ++s)
        vrel += c.area_sum[s] * lin_[body[s]] + ang_[body[s]].cross(c.area_moment[s]);
      vrel -= c.normal * c.normal.dot(vrel);
      Vec3 t[2];
      if (vrel.norm() > 1e-9 * std::max(c.area, 1e-12)) {
        t[0] = vrel.normalized();
        t[1] = c.normal.cross(t[0]);
      } else {
        tangent_basis(c.normal, t[0], t[1]);
      }
      for (int f = 0; f < k.friction_rows; ++f) {
        // Eq. 21 chained to the rigid DOFs: [S t^T, (M x t)^T] per body.
        k.friction[f] = make_row(ctx.bodies, contact.a, contact.b, c.area_sum[0] * t[f], c.area_moment[0].cross(t[f]),
                                 c.area_sum[1] * t[f], c.area_moment[1].cross(t[f]));
        const double s1 = c.area_sum[1];
        k.friction[f].lambda = warm && s1 != 0 ? contact.friction_impulse.dot(t[f]) / s1 : 0.0;
      }
    }
    blocks_.push_back(k);
  }
  for (const Block& k : blocks_) {
    apply(k.normal, k.normal.lambda, lin_, ang_);
    for (int f = 0; f < k.friction_rows; ++f) apply(k.friction[f], k.friction[f].lambda, lin_, ang_);
  }
  profile_.modelling_s += seconds_since(t0);
  const auto t1 = Clock::now();
  double residual = 0.0;
  if (!blocks_.empty()) ctx.stats.iterations += sweep(blocks_, set_.iterations, residual);
  profile_.solve_s += seconds_since(t1);
  ctx.stats.residual = std::max(ctx.stats.residual, residual);
  for (const Block& k : blocks_) {
    ctx.stats.rows += 1 + k.friction_rows;
    profile_.velocity_rows += 1 + k.friction_rows;
    Contact& contact = ctx.contacts[k.contact];
    // Impulses on b in N s, for drawing and warm starting: the row's force per unit multiplier times it.
    contact.normal_impulse = k.normal.lambda * k.normal.jb_lin.norm();
    Vec3 friction = Vec3::Zero();
    for (int f = 0; f < k.friction_rows; ++f) friction += k.friction[f].lambda * k.friction[f].jb_lin;
    contact.friction_impulse = friction;
  }
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = lin_[i];
    b.angular_velocity = ang_[i];
  }
  ctx.stats.sleeping = 0;
}

void VolumeSolver::integrate_positions(StepContext& ctx) {
  // Algorithm 1 line 3: q(t+h) = q + h u(t+h).
  integrate_body_positions(ctx.bodies, ctx.dt);
  last_stab_iterations_ = 0;
  if (set_.stabilization_iterations == 0) return;

  // The pairs to watch: the broad phase's pairs of this step, except those joined by a joint.
  std::vector<std::pair<int, int>> pairs;
  const std::vector<BodyPair> joined = joined_pairs(ctx.joints);
  for (const GraphEdge& e : ctx.graph.edges()) {
    if (e.events & kVanishedProximity) continue;
    if (!ctx.bodies[e.a].is_dynamic() && !ctx.bodies[e.b].is_dynamic()) continue;
    if (!std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b})) pairs.push_back({e.a, e.b});
  }
  const size_t n = ctx.bodies.size();
  lin_.resize(n);
  ang_.resize(n);
  // Lines 4-9: recompute the volumes; while one exceeds eps_V, solve the position MLCP (eq. 18-19).
  for (int iteration = 0; iteration < set_.stabilization_iterations; ++iteration) {
    blocks_.clear();
    bool violated = false;
    for (const auto& [a, b] : pairs) {
      const PairCache& pc = compute_pair(ctx.bodies, a, b);
      for (const Constraint& c : pc.constraints) {
        // eps_V regulated from the contact area: about rest_depth pixels of mean depth remain (sect. 4.3).
        const double eps = set_.rest_depth * set_.pixel_size * c.area;
        Block k;
        k.normal = make_row(ctx.bodies, a, b, -c.linear[0], -c.angular[0], -c.linear[1], -c.angular[1]);
        if (k.normal.inv_diag == 0.0) continue;
        // Eq. 19 with dq = M^-1 (-J_V)^T xi: w = -J_V dq - (V - eps_V) >= 0 perp xi >= 0, i.e. the
        // linearised volume V + J_V dq stays under eps_V. A row asks for at most the reduction that moving
        // its mean depth V / area achieves (our addition): a multi-volume cell that motion empties only
        // slowly (a torus tube standing deep in the ground, whose cell walls hold most of the volume) has
        // |J_V| far below its contact area, and V / |J_V| would throw the body metres out in one step.
        const double reach = std::max(c.linear[0].norm(), c.linear[1].norm()) * c.volume / c.area;
        k.normal.bias = -std::min(c.volume - eps, reach);
        violated |= c.volume > eps;
        blocks_.push_back(k);
      }
    }
    if (!violated) break;
    ++last_stab_iterations_;
    std::fill(lin_.begin(), lin_.end(), Vec3::Zero());
    std::fill(ang_.begin(), ang_.end(), Vec3::Zero());
    double residual = 0.0;
    const auto t0 = Clock::now();
    ctx.stats.iterations += sweep(blocks_, set_.stabilization_sweeps, residual);
    profile_.solve_s += seconds_since(t0);
    // Line 7: q += dq (positions only; velocities are left as the velocity stage made them).
    for (size_t i = 0; i < n; ++i) {
      Body& b = ctx.bodies[i];
      if (!b.is_dynamic() || (lin_[i].isZero(0.0) && ang_[i].isZero(0.0))) continue;
      b.position += lin_[i];
      b.orientation = apply_small_rotation(b.orientation, ang_[i]);
      b.update_world_inertia();
    }
  }
}

// --- Debug capture ---------------------------------------------------------------------------------------

void VolumeSolver::set_debug_capture(bool on, long max_intervals_per_axis) {
  debug_on_ = on;
  debug_limit_ = std::max<long>(1, max_intervals_per_axis);
  if (!on) debug_pairs_.clear();
}

void VolumeSolver::capture_now(const std::vector<Body>& bodies, std::span<const std::pair<int, int>> pairs,
                               long max_intervals_per_axis) {
  Settings set{};
  set.read(params_);
  const long limit = std::max<long>(1, max_intervals_per_axis);
  for (const auto& [a, b] : pairs)
    if (a >= 0 && a < b && b < int(bodies.size())) capture_pair(bodies, a, b, set, limit, nullptr);
}

// The pair's images again, in a workspace of their own with the intervals captured, at the given poses and with
// the options compute_pair() uses. The constraints are the solver's own (from collide(): the pair's cache) or,
// without them, made from this computation exactly as compute_pair() makes them.
void VolumeSolver::capture_pair(const std::vector<Body>& bodies, int ia, int ib, const Settings& set, long limit,
                                const std::vector<Constraint>* constraints) {
  DebugPair& d = debug_pairs_[{ia, ib}];
  d = DebugPair{};
  d.a = ia;
  d.b = ib;
  d.pixel_size = set.pixel_size;
  d.multi_volume = set.multi_volume;
  d.cell_size = set.cell_size;
  d.interval_limit = limit;
  d.collision_stage = constraints != nullptr;
  if (constraints) d.constraints = *constraints;
  const Body& A = bodies[ia];
  const Body& B = bodies[ib];
  d.positions = {A.position, B.position};
  d.orientations = {A.orientation, B.orientation};
  std::array<std::vector<Vec3>, 2> vertices;
  const std::vector<std::array<int, 3>>* ta = nullptr;
  const std::vector<std::array<int, 3>>* tb = nullptr;
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return;
  if (!world_mesh(bodies, ia, ib, vertices[0], ta) || !world_mesh(bodies, ib, ia, vertices[1], tb)) return;
  ldi::MeshInput ma{vertices[0], *ta, A.position};
  ldi::MeshInput mb{vertices[1], *tb, B.position};
  ldi::VolumeOptions options = set.ldi_options();
  options.capture_intervals = true;
  options.capture_limit = limit;
  if (!debug_ldi_) debug_ldi_ = std::make_unique<ldi::IntersectionVolume>();
  debug_ldi_->compute(ma, mb, options, debug_result_);
  if (!debug_result_.ok() || !debug_result_.boxes_overlap) return;
  d.intervals = debug_result_.capture;
  for (int s = 0; s < 2; ++s)
    for (const ldi::VertexGradient& g : debug_result_.mono.body[s].gradient)
      if (!g.gradient.isZero(0.0)) d.gradients[s].push_back({vertices[s][std::size_t(g.vertex)], g.gradient});
  // The volumes that become constraints, in the kernel's order; their cells with multi-volume.
  std::span<const ldi::VolumeContact> list =
      set.multi_volume ? debug_result_.cells() : std::span(&debug_result_.mono, 1);
  Constraint c;
  for (const ldi::VolumeContact& vc : list) {
    if (!make_constraint(vc, A.position, B.position, c)) continue;
    if (set.multi_volume) d.cells.push_back(vc.cell);
    if (!constraints) d.constraints.push_back(c);
  }
  if (d.cells.size() != d.constraints.size()) d.cells.clear();  // not the same selection: draw no cells
}

}  // namespace cl
