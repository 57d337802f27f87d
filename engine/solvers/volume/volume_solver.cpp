#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "collision/mesh_shape.h"
#include "collision/narrowphase.h"
#include "mesh/generate.h"
#include "telemetry/telemetry.h"

namespace cl {

namespace {

using Clock = std::chrono::steady_clock;

// The method's own stages (Solver::sub_stages), in step order.
enum Stage { kImages, kModelling, kRows, kVelocityPgs, kStackLayers, kStabilization };
constexpr SubStage kStages[] = {
    {"images", StepStage::NarrowPhase},       // layered depth images of the colliding pairs (sect. 3.2)
    {"volume_modelling", StepStage::NarrowPhase},  // their volume constraints (sect. 4-5)
    {"velocity_rows", StepStage::Solve},      // rows of the velocity MLCP and the joints, warm start
    {"velocity_pgs", StepStage::Solve},       // PGS of the velocity MLCP (eq. 16-17, 20-21)
    {"stack_layers", StepStage::Solve},       // shock propagation: the rest of the step by layers (stack_layers)
    {"stabilization", StepStage::Integrate},  // post-stabilisation: images again and position MLCPs (eq. 18-19)
};


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

namespace {
// The method's own counters (StepStats::counters).
enum Counter { kCountImages, kCountVolumeRows, kCountStabilizationPasses };
constexpr SolverCounter kCounters[] = {
    {"images", ""},                 // pairs whose layered depth images were computed (collision and stabilisation)
    {"volume_rows", ""},            // normal rows of volume constraints in the velocity MLCP
    {"stabilization_passes", ""},   // position corrections taken (Algorithm 1 lines 5-9)
};
}  // namespace

const ParamTable<VolumeSolver::Settings>& VolumeSolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::pixel_size, {"pixel_size", ParamKind::Real, "m", 1e-4, 1.0, 0.01,
       "Side of the layered depth images' square pixels (sect. 3.2); the resolution of the intersection volumes"}),
      T::bind(&S::multi_volume, {"multi_volume", ParamKind::Bool, "", 0, 1, 1,
       "Split each intersection by a grid of cubic cells, one volume constraint per cell (sect. 5, eq. 22-24); "
       "off: one per pair, which leaves rocking about the contact centre unconstrained"}),
      T::bind(&S::cell_size, {"cell_size", ParamKind::Real, "m", 1e-3, 10.0, 0.1,
       "Side of the multi-volume grid cells (at least the pixel size)"}),
      T::bind(&S::iterations, {"iterations", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of the velocity MLCP with friction (eq. 16-17, 20-21)"}),
      T::bind(&S::tolerance, {"tolerance", ParamKind::Real, "", 0, 1, 1e-15,
       "A PGS solve stops early once a sweep changes no multiplier by more than this fraction of the largest one "
       "(relative, so the stop does not depend on the unit of mass; 0: always all sweeps)"}),
      T::bind(&S::warm_start, {"warm_start", ParamKind::Bool, "", 0, 1, 1,
       "Start the velocity PGS from the previous step's impulses of volume contacts that persist"}),
      T::bind(&S::restitution_threshold, {"restitution_threshold", ParamKind::Real, "m/s", 0, 100, 0.5,
       "A volume contact whose bodies approach faster than this bounces (its volume must shrink at e times the "
       "rate it grew, Newton's law); slower approaches get no restitution, so resting contacts do not jitter"}),
      T::bind(&S::speculative, {"speculative_contacts", ParamKind::Bool, "", 0, 1, 1,
       "A pair closer than the world's contact_margin whose volumes do not intersect, or only by less than the "
       "depth post-stabilisation keeps (half a pixel), gets the shared narrow phase's point contacts still apart or "
       "touching (in by at most 2^-16 pixel, the images' sub-pixel precision; a mesh's: apart only), "
       "each row keeping its gap from closing faster than gap / h (an impact that would close it bounces): a body "
       "placed exactly touching is held from its first step (a ball rolling down 30 degrees: slip 9e-16 m/s; "
       "off 0.164), and a box on a thin intersection covering part of its face is held at the rest of it (a "
       "20-box column: 0.0035 m; off 0.027); off (the paper's): no contact until the volumes intersect"}),
      T::bind(&S::friction_directions, {"friction_directions", ParamKind::Integer, "", 0, 2, 2,
       "Tangent rows per volume contact (eq. 21): 0 frictionless, 1 along the sliding direction, 2 the "
       "friction box (bounds +-mu rho, first direction along the weighted sliding velocity of eq. 20)"}),
      T::bind(&S::stabilization_iterations, {"stabilization_iterations", ParamKind::Integer, "", 0, 100, 5,
       "Most position corrections per step (Algorithm 1 lines 5-9): each solves eq. 18-19 and recomputes the "
       "images; 0 turns post-stabilisation off"}),
      T::bind(&S::stabilization_sweeps, {"stabilization_sweeps", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of each position MLCP (eq. 18-19)"}),
      T::bind(&S::rest_depth, {"rest_depth", ParamKind::Real, "pixels", 0, 10, 0.5,
       "Depth kept by post-stabilisation, in pixels: eps_V = rest_depth * pixel_size * contact area (sect. 4.3)"}),
      T::bind(&S::combine, {"axis_combination", ParamKind::Choice, "", 0, 1, 1,
       "How the three images' volumes combine: mean (the paper's) or normal-weighted (exact for thin resting "
       "layers aligned with an axis; same gradient)",
       {"mean", "normal-weighted"}}),
      T::bind(&S::stack_layers, {"stack_layers", ParamKind::Bool, "", 0, 1, 1,
       "Velocity-based shock propagation as lcp's (thesis 6.4): a contact group with bodies resting on bodies (two "
       "stack layers or more, from the contact graph) is solved whole over 1% of the step, then over the rest "
       "layer by layer bottom-up with each layer's lower bodies held: a 20-box column and a 100 kg box on a 1 kg "
       "one stand; off (the paper's plain Gauss-Seidel, 20 sweeps): the column falls (2.03 m) and the light box "
       "gives way (the heavy one sinks 0.1 m)"}),
      T::bind(&S::sphere_region_rows, {"sphere_region_rows", ParamKind::Bool, "", 0, 1, 1,
       "With multi_volume: one normal row per connected region of cells on a sphere (the region's volume "
       "gradient, sect. 4.1; a sphere's cap pushes through its centre) instead of one per cell: a ball then rolls "
       "without the cells at the front of its cap braking it (2 m/s on level ground: 1.99 after 2 s, 1.30 off)"}),
      T::bind(&S::threads, {"threads", ParamKind::Integer, "", 0, 64, 0,
       "Workers rasterising the depth images (0: all hardware threads); results do not depend on it"})
  });
  return table;
}

std::span<const ParamSpec> VolumeSolver::param_specs() { return table().specs(); }

VolumeSolver::VolumeSolver() {
  params_ = ParamSet(param_specs());
  begin_step();
}

VolumeSolver::VolumeSolver(const VolumeSolver& other) : Solver(other), meshes_(other.meshes_) {}

void VolumeSolver::reset() {
  pairs_.clear();
  rows_.clear();
  blocks_.clear();
  joint_warm_.clear();
  profile_ = {};
}

VolumeSolver::Settings VolumeSolver::settings() const {
  Settings s = table().read(params_);
  s.cell_size = std::max(s.cell_size, s.pixel_size);  // a cell is at least a pixel
  return s;
}

void VolumeSolver::begin_step() {
  set_ = settings();
  sub_stages_.declare(kStages);
  counters_.declare(kCounters);
  clear_convergence();
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

bool VolumeSolver::make_constraint(const ldi::VolumeContact& vc, const Vec3* region_normal, bool normal_weighted,
                                   const Vec3& centre_a, const Vec3& centre_b, Constraint& c) {
  // No normal: nothing pushes (one body inside the other, or a cell whose terms cancel).
  if (vc.volume <= 0 || vc.area <= 0 || vc.normal.isZero(0.0)) return false;
  c.volume = vc.volume;
  c.area = vc.area;
  c.normal = vc.normal;
  c.cell = vc.cell;
  for (int s = 0; s < 2; ++s) {
    c.linear[s] = vc.body[s].linear;
    c.angular[s] = vc.body[s].angular;
    c.area_sum[s] = vc.body[s].area_sum;
    c.area_moment[s] = vc.body[s].area_moment;
  }
  // The contact centre (sect. 4.2): midway between the barycentres of the two contact surfaces.
  c.position = 0.5 * (vc.body[0].contact_centre(centre_a) + vc.body[1].contact_centre(centre_b));
  if (region_normal && !region_normal->isZero(0.0)) {
    // A cell of the multi-volume (sect. 5) pushes along its region's normal (region_normals), with its own
    // strength n . dV/dx, at its contact centre. Its own gradient also carries the terms of the cell walls that
    // cut the intersection (eq. 22-24): they cancel between neighbouring cells, but each cell's constraint is
    // unilateral, so when the bodies slide along a contact that the axis-aligned walls cut obliquely (a box on
    // a 30 degree incline) the cells whose volume the sliding carries in push back and the others do not, and
    // the cells act as friction: the frictionless box reached 1.8 m/s of 4.9 after 1 s, and turned.
    const Vec3& n = *region_normal;
    if (n.dot(vc.body[1].linear) >= 0.0) return false;  // this cell would not push b away from a
    c.normal = n;
    // The normal-weighted volume weighs the three images by the normal: the region's, as for the push (a cell's
    // own normal, turned by the wall terms, gave weight to the image whose rays run along a thin layer and
    // read it as deep as the cell is wide; post-stabilisation then threw the upper of two stacked boxes 19 cm).
    if (normal_weighted) c.volume = n.x() * n.x() * vc.axis_volume[0] + n.y() * n.y() * vc.axis_volume[1] +
                                    n.z() * n.z() * vc.axis_volume[2];
    if (c.volume <= 0.0) return false;
    const Vec3 centre[2] = {centre_a, centre_b};
    for (int s = 0; s < 2; ++s) {
      c.linear[s] = n * n.dot(vc.body[s].linear);
      c.angular[s] = (c.position - centre[s]).cross(c.linear[s]);
      // Friction (eq. 20-21) as strong as the cell's push: the weights A_k = n_c . dV/dp_k of eq. 20 with the
      // cell's own normal n_c add up to n_c . dV/dx = |dV/dx|, more than the push n . dV/dx along the region's
      // normal, so the bound |beta| <= mu rho (eq. 9) let a cell resist sliding with more than mu times the
      // normal force it applies: a box sliding on a 30 degree incline with friction 0.3 felt 0.306 (2.31 m/s
      // after 1 s of the exact 2.356). The weights are scaled by n . dV/dx / |dV/dx|: they add up to the push
      // (Coulomb's bound) and keep their barycentre, the cell's contact centre M / S (sect. 4.2). (Eq. 20 taken
      // with n itself gives weights of both signs where n_c and n differ, so that M no longer follows S: a cell
      // with a small push took a large pressure, its friction a large torque, and the pile of scanned meshes
      // blew up.)
      const double own = vc.body[s].area_sum;
      const double scale = own != 0.0 ? n.dot(vc.body[s].linear) / own : 0.0;
      c.area_sum[s] = scale * own;
      c.area_moment[s] = scale * vc.body[s].area_moment;
    }
  }
  c.deepest = vc.deepest(c.normal);
  return true;
}

void VolumeSolver::region_normals(std::span<const ldi::VolumeContact> cells, const ldi::VolumeContact& mono,
                                  std::vector<Vec3>& normals, std::vector<int>& scratch) {
  // The connected regions of the intersection: cells that share a face, an edge or a corner. The kernel's cells
  // come ordered by cell z, then y, then x, so a neighbour is found by binary search.
  const size_t n = cells.size();
  normals.assign(n, Vec3::Zero());
  const auto key = [](const std::array<int, 3>& c) { return std::array<int, 3>{c[2], c[1], c[0]}; };
  const auto find = [&](const std::array<int, 3>& c) -> int {
    const auto it = std::lower_bound(cells.begin(), cells.end(), key(c),
                                     [&](const ldi::VolumeContact& v, const std::array<int, 3>& k) { return key(v.cell) < k; });
    return it != cells.end() && it->cell == c ? int(it - cells.begin()) : -1;
  };
  std::vector<int>& region = scratch;
  region.assign(n, -1);
  std::vector<Vec3> sums;
  std::vector<int> stack;
  for (size_t first = 0; first < n; ++first) {
    if (region[first] >= 0) continue;
    const int r = int(sums.size());
    sums.push_back(Vec3::Zero());
    region[first] = r;
    stack.assign(1, int(first));
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      // The region's volume gradient is the sum of its cells' (the wall terms cancel inside it, eq. 24); its
      // repulsion direction as the kernel takes the pair's: from both bodies' terms (sect. 4.2).
      sums[size_t(r)] += cells[size_t(k)].body[0].linear - cells[size_t(k)].body[1].linear;
      const std::array<int, 3> c = cells[size_t(k)].cell;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int o = find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (o < 0 || region[size_t(o)] >= 0) continue;
            region[size_t(o)] = r;
            stack.push_back(o);
          }
    }
  }
  // One region: the pair's own normal (the same direction, summed by the kernel). Several: each its own, so
  // that a body cradled in several places (a box in a V groove, an armadillo lying across another) is held by
  // the regions' normals pushing against each other; with their mean, every cell pushed the same way and only
  // friction held the body across the others (the upper armadillo of volume_armadillos.json, under Coulomb
  // friction, slid off the lower one onto the ground).
  if (sums.size() == 1) {
    normals.assign(n, mono.normal);
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    const Vec3& sum = sums[size_t(region[k])];
    const double len = sum.norm();
    normals[k] = len > 0.0 ? Vec3(sum / len) : Vec3::Zero();
  }
}

const std::vector<VolumeSolver::Constraint>* VolumeSolver::constraints(int a, int b) const {
  auto it = pairs_.find({a, b});
  return it == pairs_.end() || !it->second.valid ? nullptr : &it->second.constraints;
}

const TriangleMesh* VolumeSolver::body_mesh(const Shape& s, MeshCache& cache) {
  if (s.type == ShapeType::Mesh) return s.mesh ? &s.mesh->mesh : nullptr;
  if (s.type == ShapeType::Plane) return nullptr;
  std::array<double, 6> key{double(int(s.type)), 0, 0, 0, 0, 0};
  if (s.type == ShapeType::Box) key = {key[0], s.half_extents.x(), s.half_extents.y(), s.half_extents.z(), 0, 0};
  if (s.type == ShapeType::Sphere) key[4] = s.radius;
  if (s.type == ShapeType::Capsule) key = {key[0], 0, 0, 0, s.radius, s.half_height};
  auto it = cache.meshes.find(key);
  if (it != cache.meshes.end()) return &it->second;
  TriangleMesh m;
  if (s.type == ShapeType::Box) m = make_box(s.half_extents, 1);
  if (s.type == ShapeType::Sphere) m = make_uv_sphere(s.radius, 24, 12);
  if (s.type == ShapeType::Capsule) m = make_capsule_mesh(s.radius, s.half_height);
  return &cache.meshes.emplace(key, std::move(m)).first->second;
}

bool VolumeSolver::world_mesh(std::span<const Body> bodies, int i, int other, MeshCache& cache,
                              std::vector<Vec3>& vertices, ldi::MeshInput& input) {
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
    if (cache.plane_box.empty()) cache.plane_box = make_box(Vec3(1, 1, 1), 1);
    vertices.resize(cache.plane_box.vertices.size());
    for (size_t k = 0; k < cache.plane_box.vertices.size(); ++k) {
      const Vec3& u = cache.plane_box.vertices[k];
      vertices[k] = foot + t1 * (u.x() * size) + t2 * (u.y() * size) + n * (0.5 * size * (u.z() - 1.0));
    }
    input = ldi::MeshInput{vertices, cache.plane_box.triangles, b.position};
    return true;
  }
  const TriangleMesh* m = body_mesh(b.shape, cache);
  if (!m || m->empty()) return false;
  vertices.resize(m->vertices.size());
  for (size_t k = 0; k < m->vertices.size(); ++k) vertices[k] = b.position + r * m->vertices[k];
  input = ldi::MeshInput{vertices, m->triangles, b.position};
  // A loaded mesh's BVH lets the images skip the parts of it far from the other body.
  if (b.shape.type == ShapeType::Mesh) {
    input.tree = &b.shape.mesh->bvh;
    input.rotation = r;
    input.position = b.position;
  }
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
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return pc;
  ldi::MeshInput ma, mb;
  if (!world_mesh(bodies, ia, ib, meshes_, world_vertices_[0], ma) ||
      !world_mesh(bodies, ib, ia, meshes_, world_vertices_[1], mb))
    return pc;
  const auto t0 = Clock::now();
  ws_.ldi->compute(ma, mb, set_.ldi_options(), result_);
  profile_.images_s += seconds_since(t0);
  ++profile_.pair_computations;
  counters_.add(kCountImages, 1);
  const auto t1 = Clock::now();
  if (!result_.ok() || !result_.boxes_overlap) return pc;
  std::span<const ldi::VolumeContact> list = set_.multi_volume ? result_.cells() : std::span(&result_.mono, 1);
  if (set_.multi_volume) region_normals(list, result_.mono, region_normals_, region_scratch_);
  Constraint c;
  for (size_t k = 0; k < list.size(); ++k)
    if (make_constraint(list[k], set_.multi_volume ? &region_normals_[k] : nullptr, set_.combine == 1, A.position,
                        B.position, c))
      pc.constraints.push_back(c);
  profile_.constraints += long(pc.constraints.size());
  profile_.modelling_s += seconds_since(t1);
  return pc;
}

void VolumeSolver::collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) {
  const double images = profile_.images_s, modelling = profile_.modelling_s;
  const PairCache& pc = compute_pair(bodies, ia, ib);
  sub_stages_.add(kImages, 1e3 * (profile_.images_s - images));
  sub_stages_.add(kModelling, 1e3 * (profile_.modelling_s - modelling));
  if (set_.speculative) {
    // Speculative contacts: the pair is within the margin (the broad phase's boxes grow by it) but its volumes
    // do not intersect, or by less than the images resolve (a ball placed exactly touching, its cap narrower
    // than a pixel). Discrete collision detection cannot anticipate the contact (sect. 3, "Stabilization"),
    // so the pair would fall freely for a step into it; the shared narrow phase's closest points give rows that
    // keep each gap from closing faster than gap / h (solve_velocities), as an anticipated point contact does.
    // A pair whose volumes do intersect keeps the points still apart, or touching: in by at most the images'
    // sub-pixel precision (2^-16 pixel, 0.15 um at 1 cm pixels, to which they snap the vertices). Where a thin intersection
    // covers only part of a contact face (a box tilted by a hair on another), the volume pushes on that part
    // alone and nothing holds the rest: in a 20-box column at 1/60 s such boxes turned at up to 1.4 rad/s within
    // a step (friction off too) and the column fell; with those points it stands, as on point contacts. A column
    // of 1 m boxes placed with zero gaps is in by 1e-9 m after its first step, at every corner: with the points
    // still apart only, its faces rested on the cells of a sliver wedge (about 50 of their 100 cells), whose rows
    // 20 sweeps did not balance, and it slid sideways at g h per step and fell (2.9 m in 10 s) while the column
    // of 10 cm boxes (one to four cells a face) stood. Points deeper than that stay out: their rows (friction on
    // point contacts) squeezed a block gripped 0.2 mm deep. Meshes keep the points still apart only: their narrow
    // phase samples a distance grid at many shell points, whose touching ones kept the stacked tori rocking.
    double deepest = 0.0;
    for (const Constraint& c : pc.constraints) deepest = std::max(deepest, c.deepest);
    const bool meshes = bodies[size_t(ia)].shape.type == ShapeType::Mesh || bodies[size_t(ib)].shape.type == ShapeType::Mesh;
    const double touching = meshes ? 0.0 : std::ldexp(set_.pixel_size, -16);
    if (deepest < continuous_depth()) {
      const size_t first = out.size();
      cl::collide(bodies, ia, ib, margin, out);
      if (!pc.constraints.empty())
        out.erase(std::remove_if(out.begin() + long(first), out.end(), [touching](const Contact& c) { return c.depth > touching; }),
                  out.end());
      for (size_t k = first; k < out.size(); ++k) out[k].feature |= kSpeculativeFeature;
    }
    if (pc.constraints.empty()) return;
  }
  for (size_t k = 0; k < pc.constraints.size(); ++k) {
    const Constraint& c = pc.constraints[k];
    Contact contact;
    contact.a = ia;
    contact.b = ib;
    contact.position = c.position;
    contact.normal = c.normal;
    contact.depth = c.deepest;          // the deepest point, as every method reports it
    contact.feature = uint32_t(k);      // index of the volume in the pair's list
    out.push_back(contact);
  }
}

// The PGS settings of every solve of the method: symmetric sweeps, and the tolerance as a fraction of the largest
// multiplier, so that when a solve stops does not depend on the unit of mass (an impulse tolerance, 1e-12 N s / m^2,
// stopped the solves of a column of 1 g boxes a sweep or more before those of the same column at 1 kg, and the
// two moved apart; the multipliers scale with the masses, their ratios do not).
PgsSettings VolumeSolver::pgs_settings(int sweeps, std::vector<double>* residuals) const {
  PgsSettings settings;
  settings.iterations = sweeps;
  settings.tolerance = set_.tolerance;
  settings.relative = true;
  settings.symmetric = true;
  settings.residuals = residuals;
  return settings;
}

Row VolumeSolver::make_row(int a, int b, const Vec3& la, const Vec3& aa, const Vec3& lb, const Vec3& ab) const {
  Row r;
  r.a = a;
  r.b = b;
  r.ja_lin = la;
  r.ja_ang = aa;
  r.jb_lin = lb;
  r.jb_ang = ab;
  prepare(r, masses_);
  return r;
}

void VolumeSolver::solve_velocities(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  load_inverse_masses(ctx.bodies, masses_);
  classify_groups(ctx);
  // Prediction: the unconstrained velocities u* = u + h M^-1 f_ext (Algorithm 1, "prediction" step of 4.3),
  // as every row-based solver takes them (the gyroscopic motion is in the pose update). A body of a stack solved
  // by layers (stack_layers) takes only the fraction f of it here, the rest before the layers (solve_layers).
  free_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    b.sleeping = false;  // this method does not put bodies to sleep
    free_[i] = free_velocity_change(b, ctx.gravity, ctx.dt);
    const double f = shock_body_[i] ? kShockFraction : 1.0;
    vel_[i] = {b.linear_velocity + f * free_[i].v, b.angular_velocity + f * free_[i].w};
  }
  // The warm starts of the two phases apart, as under lcp: the whole solve starts from what the whole solve found
  // last step, the layers from what the layers found (a layer carries the weight of its top bodies, the whole
  // solve only the fraction f of the step).
  layer_warm_normal_.assign(ctx.contacts.size(), 0.0);
  layer_warm_friction_.assign(ctx.contacts.size(), Vec3::Zero());
  for (size_t k = 0; k < ctx.contacts.size(); ++k) {
    Contact& c = ctx.contacts[k];
    if (!shock_body_[size_t(c.a)] && !shock_body_[size_t(c.b)]) continue;
    layer_warm_normal_[k] = c.layer_normal_impulse;
    layer_warm_friction_[k] = c.layer_friction_impulse;
    c.normal_impulse -= c.layer_normal_impulse;
    c.friction_impulse -= c.layer_friction_impulse;
  }

  // Correction: the joints' rows (as under `lcp`), then one block of rows per volume contact.
  const auto t0 = Clock::now();
  rows_.clear();
  blocks_.clear();
  joint_rows_.clear();
  for (int j = 0; j < int(ctx.joints.size()); ++j) joint_rows(ctx.joints[j], j, ctx.bodies, ctx.dt, joint_rows_);
  for (const JointRow& jr : joint_rows_) {
    Row row = jr;
    prepare(row, masses_);
    row.lambda = set_.warm_start ? joint_warm_.guess(jr) : 0.0;
    rows_.push_back(row);
  }
  // One block per colliding pair (its contacts are consecutive): its normal rows, then the friction rows of
  // each of its volumes.
  const int contact_count = int(ctx.contacts.size());
  row_contact_.assign(rows_.size(), -1);
  normal_row_of_.assign(size_t(contact_count), -1);
  impact_rows_.clear();
  for (int ci = 0; ci < contact_count;) {
    const int a = ctx.contacts[size_t(ci)].a, b = ctx.contacts[size_t(ci)].b;
    int end = ci;
    while (end < contact_count && ctx.contacts[size_t(end)].a == a && ctx.contacts[size_t(end)].b == b) ++end;
    const int begin = ci;
    ci = end;
    // The pair's speculative contacts come after its volumes (their feature ids sort last): their own block.
    int volumes_end = begin;
    while (volumes_end < end && !(ctx.contacts[size_t(volumes_end)].feature & kSpeculativeFeature)) ++volumes_end;
    if (volumes_end < end) add_speculative_rows(ctx, volumes_end, end);
    end = volumes_end;
    if (begin == end) continue;
    const auto* list = constraints(a, b);
    if (!list) continue;
    const auto valid = [&](int k) { return ctx.contacts[size_t(k)].feature < list->size(); };
    // A region on a sphere gets one row, the gradient of the region's volume (the mono-volume of sect. 4.1,
    // which the cells' gradients add up to, sect. 5): every normal of a sphere passes through its centre, so
    // whatever the pressure over its cap, the cap pushes through the centre and holds one degree of freedom,
    // as one point contact does. Rows per cell on a cap hold every cell's volume from growing: the cells at
    // the front of a rolling ball's cap, which the motion carries into the ground while those at the back
    // empty, braked the ball like a flat-bottomed body (1.30 m/s of 2 after 2 s on level ground; 1.99 with the
    // region's row). Other regions keep one row per cell (sect. 5), so that the pressure can shift across the
    // patch and hold a box, a torus or a scanned mesh against rocking and tipping (one row per curved region of
    // any body, found by the cap's area against its depth, let stacked tori and the armadillos rock on).
    // Separate regions keep separate rows: the volume the paper constrains is that of each region.
    const bool sphere = ctx.bodies[size_t(a)].shape.type == ShapeType::Sphere ||
                        ctx.bodies[size_t(b)].shape.type == ShapeType::Sphere;
    const bool region_rows = !set_.multi_volume || (set_.sphere_region_rows && sphere);
    // The pair's volumes by intersection region when they get a row per region: with multi-volume, cells that
    // touch (share a face, an edge or a corner) cut one connected region of the intersection; without, the pair
    // has one volume.
    const int count = end - begin;
    const auto cell_of = [&](int k) -> const std::array<int, 3>& { return (*list)[ctx.contacts[size_t(k)].feature].cell; };
    region_of_.assign(size_t(count), -1);
    int region_count = 0;
    for (int k = begin; k < end && region_rows; ++k) {
      if (!valid(k) || region_of_[size_t(k - begin)] >= 0) continue;
      region_of_[size_t(k - begin)] = region_count;
      region_stack_.assign(1, k);
      while (!region_stack_.empty()) {
        const std::array<int, 3> cell = cell_of(region_stack_.back());
        region_stack_.pop_back();
        for (int o = begin; o < end; ++o) {
          if (!valid(o) || region_of_[size_t(o - begin)] >= 0) continue;
          const std::array<int, 3>& other = cell_of(o);
          if (std::abs(other[0] - cell[0]) <= 1 && std::abs(other[1] - cell[1]) <= 1 && std::abs(other[2] - cell[2]) <= 1) {
            region_of_[size_t(o - begin)] = region_count;
            region_stack_.push_back(o);
          }
        }
      }
      ++region_count;
    }
    // Per region, and for the whole pair, the sum of the volumes (the mono-volume of sect. 4.1 over the
    // volumes that push) and of their last impulses.
    struct Sum {
      Vec3 lin[2] = {Vec3::Zero(), Vec3::Zero()}, ang[2] = {Vec3::Zero(), Vec3::Zero()};
      double impulse = 0.0;
      bool warm = false;
    };
    std::vector<Sum> regions(static_cast<size_t>(region_count));
    Sum whole;
    for (int k = begin; k < end; ++k) {
      if (!valid(k)) continue;
      const Contact& contact = ctx.contacts[size_t(k)];
      const Constraint& c = (*list)[contact.feature];
      const int region = region_of_[size_t(k - begin)];
      for (Sum* sum : {&whole, region >= 0 ? &regions[size_t(region)] : nullptr}) {
        if (!sum) continue;
        for (int s = 0; s < 2; ++s) {
          sum->lin[s] -= c.linear[s];
          sum->ang[s] -= c.angular[s];
        }
        sum->impulse += contact.normal_impulse;
        sum->warm |= set_.warm_start && contact.persisted;
      }
    }
    const Contact& first_contact = ctx.contacts[size_t(begin)];
    const BodyVelocity before[2] = {{ctx.bodies[size_t(a)].linear_velocity, ctx.bodies[size_t(a)].angular_velocity},
                                    {ctx.bodies[size_t(b)].linear_velocity, ctx.bodies[size_t(b)].angular_velocity}};
    // The normal row of a sum, unilateral (rho >= 0). Restitution (Newton's law on the sum as on one point
    // contact): the approach speed along the normal is the rate the volume grew at the start of the step over
    // the area that pushes, -J_V u / |dV/dx_b| (m/s); after an impact the volume must shrink at e times it.
    const auto sum_row = [&](const Sum& sum) {
      Row row = make_row(a, b, sum.lin[0], sum.ang[0], sum.lin[1], sum.ang[1]);
      row.lo = 0.0;
      const double push = sum.lin[1].norm();  // force per unit rho on b, m^2
      if (push > 0.0) {
        const double vn = row.value(before[0], before[1]) / push;
        row.target = push * bounce_speed(vn, first_contact.restitution, set_.restitution_threshold);
      }
      row.lambda = sum.warm && push > 0 ? sum.impulse / push : 0.0;
      return row;
    };
    const Row pair = sum_row(whole);
    if (pair.inv_diag == 0.0) continue;
    // Friction per volume, bounded by the pressure of its normal row (its own, or its region's); each volume's
    // rows right after its normal row, so that the sweeps see a volume's pressure before its friction.
    auto add_friction = [&](int k, int normal_row) {
      const Contact& contact = ctx.contacts[size_t(k)];
      if (contact.feature >= list->size() || contact.friction <= 0 || set_.friction_directions == 0) return;
      const Constraint& c = (*list)[contact.feature];
      // Tangents (sect. 4.2) by Gram-Schmidt from the normal; the first along the weighted sliding velocity
      // v_rel = sum_k A_k dp_k/dt = sum_bodies S v + w x M (eq. 20) when there is one.
      Vec3 vrel = Vec3::Zero();
      const int body[2] = {a, b};
      for (int s = 0; s < 2; ++s) vrel += c.area_sum[s] * vel_[size_t(body[s])].v + vel_[size_t(body[s])].w.cross(c.area_moment[s]);
      vrel -= c.normal * c.normal.dot(vrel);
      Vec3 t[2];
      if (vrel.norm() > 1e-9 * std::max(c.area, 1e-12)) {
        t[0] = vrel.normalized();
        t[1] = c.normal.cross(t[0]);
      } else {
        tangent_basis(c.normal, t[0], t[1]);
      }
      for (int f = 0; f < set_.friction_directions; ++f) {
        // Eq. 21 chained to the rigid DOFs: [S t^T, (M x t)^T] per body; the friction pyramid as a box,
        // |beta_i| <= mu rho (eq. 8-10 with the symmetric basis of eq. 21).
        Row friction = make_row(a, b, c.area_sum[0] * t[f], c.area_moment[0].cross(t[f]),
                                c.area_sum[1] * t[f], c.area_moment[1].cross(t[f]));
        friction.normal_row = normal_row;
        friction.follows = true;
        friction.mu = contact.friction;
        const double s1 = c.area_sum[1];
        friction.lambda = set_.warm_start && contact.persisted && s1 != 0 ? contact.friction_impulse.dot(t[f]) / s1 : 0.0;
        rows_.push_back(friction);
        row_contact_.push_back(k);
      }
    };
    const int first = int(rows_.size());
    blocks_.push_back({begin, end, first, 0});
    // An impact on a pair with rows per cell is the pair's (solve_impacts); a region's row carries its own
    // bounce target.
    if (!region_rows && pair.target > 0.0) impact_rows_.push_back(pair);
    for (int r = 0; r < region_count; ++r) {
      Row row = sum_row(regions[size_t(r)]);
      if (row.inv_diag == 0.0) continue;
      const int normal_row = int(rows_.size());
      rows_.push_back(row);
      row_contact_.push_back(-1);
      counters_.add(kCountVolumeRows, 1);
      for (int k = begin; k < end; ++k)
        if (region_of_[size_t(k - begin)] == r) {
          normal_row_of_[size_t(k)] = normal_row;
          add_friction(k, normal_row);
        }
    }
    // Eq. 16-17 with g = -V per volume: -J_V u >= 0 (it does not grow), impulse -J_V^T rho, rho >= 0.
    for (int k = begin; k < end && !region_rows; ++k) {
      if (!valid(k)) continue;
      const Contact& contact = ctx.contacts[size_t(k)];
      const Constraint& c = (*list)[contact.feature];
      Row normal = make_row(a, b, -c.linear[0], -c.angular[0], -c.linear[1], -c.angular[1]);
      if (normal.inv_diag == 0.0) continue;
      normal.lo = 0.0;
      const double cell_push = c.linear[1].norm();
      normal.lambda = set_.warm_start && contact.persisted && cell_push > 0 ? contact.normal_impulse / cell_push : 0.0;
      normal_row_of_[size_t(k)] = int(rows_.size());
      rows_.push_back(normal);
      row_contact_.push_back(k);
      counters_.add(kCountVolumeRows, 1);
      add_friction(k, int(rows_.size()) - 1);
    }
    blocks_.back().rows = int(rows_.size()) - first;
  }
  apply_impulses(rows_, vel_);
  profile_.modelling_s += seconds_since(t0);
  sub_stages_.add(kRows, 1e3 * seconds_since(t0));
  auto t1 = Clock::now();
  solve_impacts(ctx);
  // Symmetric Gauss-Seidel: sweeps alternate direction, so that the rows taken first do not take more of the
  // load (forward sweeps only loaded a gripped block's low-z cells first, and the friction's torque about the
  // grip axis tipped it over as it slipped).
  sweep_residuals_.clear();
  const PgsResult result = solve_pgs(rows_, vel_, pgs_settings(set_.iterations, &sweep_residuals_));
  merge_convergence(sweep_residuals_);
  ctx.stats.iterations += result.sweeps;
  profile_.solve_s += seconds_since(t1);
  sub_stages_.add(kVelocityPgs, 1e3 * seconds_since(t1));
  layer_lambda_.assign(rows_.size(), 0.0);  // the layers' part (none without them)
  if (set_.stack_layers) {
    t1 = Clock::now();
    solve_layers(ctx);
    profile_.solve_s += seconds_since(t1);
    sub_stages_.add(kStackLayers, 1e3 * seconds_since(t1));
  }
  ctx.stats.residual = std::max(ctx.stats.residual, result.residual);
  ctx.stats.rows += int(rows_.size());
  for (size_t i = 0; i < joint_rows_.size(); ++i) joint_warm_.forget(joint_rows_[i].joint);
  for (size_t i = 0; i < joint_rows_.size(); ++i) joint_warm_.keep(joint_rows_[i], rows_[i].lambda);
  for (const ContactBlock& k : blocks_) {
    profile_.velocity_rows += k.rows;
    // Impulses on b in N s, for drawing and warm starting: per volume, its normal row's force per unit
    // multiplier times it (its own row's, or its region's: the region's pressure times the volume's push
    // |dV/dx_b|), and the same for its friction rows.
    const Contact& first = ctx.contacts[size_t(k.contact)];
    const auto* list = constraints(first.a, first.b);
    // Under stack_layers the whole solve's and the layers' impulses add up; the layers' part is kept apart for
    // their warm start.
    for (int ci = k.contact; ci < k.contact_end; ++ci) {
      Contact& contact = ctx.contacts[size_t(ci)];
      const int row = normal_row_of_[size_t(ci)];
      const bool speculative = (contact.feature & kSpeculativeFeature) != 0;  // a point row: N s already
      const double push = row < 0 || speculative ? 1.0 : (*list)[contact.feature].linear[1].norm();
      contact.layer_normal_impulse = row < 0 ? 0.0 : layer_lambda_[size_t(row)] * push;
      contact.normal_impulse = row < 0 ? 0.0 : rows_[size_t(row)].lambda * push + contact.layer_normal_impulse;
      contact.friction_impulse = Vec3::Zero();
      contact.layer_friction_impulse = Vec3::Zero();
    }
    for (int r = k.first_row; r < k.first_row + k.rows; ++r) {
      const int ci = row_contact_[size_t(r)];
      const Row& row = rows_[size_t(r)];
      if (ci < 0 || row.normal_row < 0) continue;
      ctx.contacts[size_t(ci)].friction_impulse += (row.lambda + layer_lambda_[size_t(r)]) * row.jb_lin;
      ctx.contacts[size_t(ci)].layer_friction_impulse += layer_lambda_[size_t(r)] * row.jb_lin;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Body& b = ctx.bodies[i];
    if (!b.is_dynamic()) continue;
    b.linear_velocity = vel_[i].v;
    b.angular_velocity = vel_[i].w;
  }
  ctx.stats.sleeping = 0;
}

// The rows of a pair's speculative contacts [begin, end) (see collide), as one block: per contact a point row
// along its normal, J u >= -gap / h (the gap may close within the step, not more; eq. 5 on the linearised
// separation g + h J u >= 0), or Newton's law when an approach faster than restitution_threshold would close it
// (the bounce as under lcp), then its friction rows bounded by +-mu lambda_n (eq. 8-10).
void VolumeSolver::add_speculative_rows(StepContext& ctx, int begin, int end) {
  const int first = int(rows_.size());
  blocks_.push_back({begin, end, first, 0});
  const double h = ctx.dt;
  for (int k = begin; k < end; ++k) {
    const Contact& c = ctx.contacts[size_t(k)];
    const bool warm = set_.warm_start && c.persisted;
    const Vec3 ra = c.position - ctx.bodies[size_t(c.a)].position, rb = c.position - ctx.bodies[size_t(c.b)].position;
    Row normal = point_row(c.a, c.b, ra, rb, c.normal);
    prepare(normal, masses_);
    if (normal.inv_diag == 0.0) continue;
    normal.lo = 0.0;
    const Vec3 vrel = (vel_[size_t(c.b)].v + vel_[size_t(c.b)].w.cross(rb)) - (vel_[size_t(c.a)].v + vel_[size_t(c.a)].w.cross(ra));
    const double vn = vrel.dot(c.normal);
    const double gap = std::max(-c.depth, 0.0);
    const double bounce = vn * h < -gap ? bounce_speed(vn, c.restitution, set_.restitution_threshold) : 0.0;
    normal.target = bounce > 0.0 ? bounce : -gap / h;
    normal.lambda = warm ? c.normal_impulse : 0.0;
    const int normal_row = int(rows_.size());
    normal_row_of_[size_t(k)] = normal_row;
    rows_.push_back(normal);
    row_contact_.push_back(k);
    if (c.friction <= 0.0 || set_.friction_directions == 0) continue;
    Vec3 t[2];
    sliding_tangents(c.normal, vrel, t[0], t[1]);
    for (int f = 0; f < set_.friction_directions; ++f) {
      Row friction = point_row(c.a, c.b, ra, rb, t[f]);
      prepare(friction, masses_);
      friction.normal_row = normal_row;
      friction.follows = true;
      friction.mu = c.friction;
      friction.lambda = warm ? c.friction_impulse.dot(t[f]) : 0.0;
      rows_.push_back(friction);
      row_contact_.push_back(k);
    }
  }
  blocks_.back().rows = int(rows_.size()) - first;
}

// Impacts on flat contacts, before the contact solve: each such pair with a bounce target gets one row, the sum of
// its volumes' rows (the pair's whole volume, whose gradient the cells add up to), driven to its target, and
// these rows are solved alone; the volumes' own rows then only keep the volumes from growing (target 0).
// Newton's law thus acts on the pair as a whole, as on one point contact, and its impulse passes through the
// pair's centre of pressure: with one bounce target per cell, the PGS sweeps, taking the cells one after the
// other, had not balanced them after 20 sweeps, and a ball dropped square on the ground rebounded spinning and
// sideways (0.98 m/s sideways, 93 % of its rebound speed). A curved contact's pair row carries its target.
void VolumeSolver::solve_impacts(StepContext& ctx) {
  if (impact_rows_.empty()) return;
  const PgsResult r = solve_pgs(impact_rows_, vel_, pgs_settings(set_.iterations));
  ctx.stats.iterations += r.sweeps;
}

// Which contact groups are solved by layers (stack_layers): those a fixed or kinematic body supports, without
// joints (their layers come from contacts only, as under lcp), and their bodies.
void VolumeSolver::classify_groups(const StepContext& ctx) {
  const auto& groups = ctx.graph.groups();
  shock_group_.assign(groups.size(), 0);
  shock_body_.assign(ctx.bodies.size(), 0);
  if (!set_.stack_layers) return;
  std::vector<char> jointed(ctx.bodies.size(), 0);
  for (const Joint& j : ctx.joints) {
    if (j.body_a >= 0) jointed[size_t(j.body_a)] = 1;
    if (j.body_b >= 0) jointed[size_t(j.body_b)] = 1;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    const ContactGroup& group = groups[g];
    // One layer holds nothing (its bottom bodies are all fixed or kinematic): the layer pass would be the whole
    // solve again, with twice the sweeps (a block squeezed between two jaws, whose squeeze grows with the
    // sweeps, would be gripped harder). Such a group is solved whole, over the whole step.
    if (group.floating || group.layer_count < 2) continue;
    bool joints = false;
    for (int b : group.bodies) joints = joints || jointed[size_t(b)] != 0;
    if (joints) continue;
    shock_group_[g] = 1;
    for (int b : group.bodies) shock_body_[size_t(b)] = 1;
  }
}

// Velocity-based shock propagation (thesis 6.4, digest 8.5), as lcp's: the whole solve took the fraction f of the
// step (solve_velocities); the rest of it is solved layer by layer, bottom-up, each layer's rows with its bottom
// bodies held (infinite mass), warm started from what the layers found last step. A stack's bottom then carries
// its load within the step whatever the number of bodies or their mass ratio, which plain Gauss-Seidel sweeps do
// not propagate (20 sweeps over a 20-box column, or a 1 kg box under 100 kg).
void VolumeSolver::solve_layers(StepContext& ctx) {
  const size_t n = ctx.bodies.size();
  for (size_t i = 0; i < n; ++i)
    if (shock_body_[i]) {
      vel_[i].v += (1.0 - kShockFraction) * free_[i].v;
      vel_[i].w += (1.0 - kShockFraction) * free_[i].w;
    }
  block_of_contact_.assign(ctx.contacts.size(), -1);
  for (size_t k = 0; k < blocks_.size(); ++k)
    for (int c = blocks_[k].contact; c < blocks_[k].contact_end; ++c) block_of_contact_[size_t(c)] = int(k);
  // The layers' warm start per row, in the row's own unit: a normal row's impulse on b is lambda |jb_lin| (N s),
  // a friction row's lambda jb_lin (see the end of solve_velocities).
  std::vector<double> warm_normal(rows_.size(), 0.0);
  if (set_.warm_start)
    for (size_t k = 0; k < ctx.contacts.size(); ++k)
      if (ctx.contacts[k].persisted && normal_row_of_[k] >= 0) warm_normal[size_t(normal_row_of_[k])] += layer_warm_normal_[k];
  const auto& groups = ctx.graph.groups();
  for (int g = 0; g < int(groups.size()); ++g) {
    if (!shock_group_[size_t(g)]) continue;
    for (const StackLayer& layer : ctx.graph.layers(g)) {
      const std::vector<InverseMass> held = masses_;
      for (int b : layer.bottom) masses_[size_t(b)] = InverseMass{};
      layer_rows_.clear();
      layer_row_source_.clear();
      for (int e : layer.edges) {
        const GraphEdge& edge = ctx.graph.edges()[size_t(e)];
        int last = -1;  // a pair's contacts share its block: take it once
        for (int k = edge.first_contact; k < edge.first_contact + edge.contact_count; ++k) {
          const int block = block_of_contact_[size_t(k)];
          if (block < 0 || block == last) continue;
          last = block;
          const ContactBlock& cb = blocks_[size_t(block)];
          const int first = int(layer_rows_.size());
          for (int r = 0; r < cb.rows; ++r) {
            const int source = cb.first_row + r;
            Row row = rows_[size_t(source)];
            if (row.normal_row >= 0) row.normal_row += first - cb.first_row;
            prepare(row, masses_);
            row.lambda = 0.0;
            const int ci = row_contact_[size_t(source)];
            if (row.normal_row < 0) {
              const double push = row.jb_lin.norm();
              if (push > 0.0) row.lambda = warm_normal[size_t(source)] / push;
            } else if (set_.warm_start && ci >= 0 && ctx.contacts[size_t(ci)].persisted) {
              const double s2 = row.jb_lin.squaredNorm();
              if (s2 > 0.0) row.lambda = layer_warm_friction_[size_t(ci)].dot(row.jb_lin) / s2;
            }
            layer_rows_.push_back(row);
            layer_row_source_.push_back(source);
          }
        }
      }
      if (!layer_rows_.empty()) {
        apply_impulses(layer_rows_, vel_);
        const PgsResult r = solve_pgs(layer_rows_, vel_, pgs_settings(set_.iterations));
        ctx.stats.iterations += r.sweeps;
        for (size_t i = 0; i < layer_rows_.size(); ++i)
          layer_lambda_[size_t(layer_row_source_[i])] = layer_rows_[i].lambda;
      }
      masses_ = held;
    }
  }
}

void VolumeSolver::integrate_positions(StepContext& ctx) {
  // Algorithm 1 line 3: q(t+h) = q + h u(t+h).
  advance_poses(ctx.bodies, ctx.dt);
  last_stab_iterations_ = 0;
  if (set_.stabilization_iterations == 0) return;
  ScopedSubStage timer(sub_stages_, kStabilization);

  // The pairs to watch: the broad phase's pairs of this step, except those joined by a joint.
  std::vector<std::pair<int, int>> pairs;
  const std::vector<BodyPair> joined = joined_pairs(ctx.joints);
  for (const GraphEdge& e : ctx.graph.edges()) {
    if (e.events & kVanishedProximity) continue;
    if (!ctx.bodies[e.a].is_dynamic() && !ctx.bodies[e.b].is_dynamic()) continue;
    if (!std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b})) pairs.push_back({e.a, e.b});
  }
  const size_t n = ctx.bodies.size();
  vel_.resize(n);
  // Lines 4-9: recompute the volumes; while one exceeds eps_V, solve the position MLCP (eq. 18-19).
  for (int iteration = 0; iteration < set_.stabilization_iterations; ++iteration) {
    rows_.clear();
    load_inverse_masses(ctx.bodies, masses_);  // the inertias turn with the bodies
    bool violated = false;
    for (const auto& [a, b] : pairs) {
      const PairCache& pc = compute_pair(ctx.bodies, a, b);
      for (const Constraint& c : pc.constraints) {
        // eps_V regulated from the contact area: about rest_depth pixels of mean depth remain (sect. 4.3).
        const double eps = set_.rest_depth * set_.pixel_size * c.area;
        Row row = make_row(a, b, -c.linear[0], -c.angular[0], -c.linear[1], -c.angular[1]);
        if (row.inv_diag == 0.0) continue;
        row.lo = 0.0;
        // Eq. 19 with dq = M^-1 (-J_V)^T xi: w = -J_V dq - (V - eps_V) >= 0 perp xi >= 0, i.e. the
        // linearised volume V + J_V dq stays under eps_V. A row asks for at most the reduction that moving
        // its mean depth V / area achieves (our addition): a multi-volume cell that motion empties only
        // slowly (a torus tube standing deep in the ground, whose cell walls hold most of the volume) has
        // |J_V| far below its contact area, and V / |J_V| would throw the body metres out in one step. The
        // depth moved is also at most the volume's deepest point: a sliver cell at the rim of a contact patch
        // (1.5e-6 m^3 on 7.7e-6 m^2, mean depth 0.2 m, deepest point 2 mm) threw the sliding box on the
        // incline 10 cm off the plane.
        const double reach = std::max(c.linear[0].norm(), c.linear[1].norm()) * std::min(c.volume / c.area, c.deepest);
        row.target = std::min(c.volume - eps, reach);
        violated |= c.volume > eps;
        rows_.push_back(row);
      }
    }
    if (!violated) break;
    ++last_stab_iterations_;
    counters_.add(kCountStabilizationPasses, 1);
    std::fill(vel_.begin(), vel_.end(), BodyVelocity{});
    const auto t0 = Clock::now();
    ctx.stats.iterations += solve_pgs(rows_, vel_, pgs_settings(set_.stabilization_sweeps)).sweeps;
    profile_.solve_s += seconds_since(t0);
    // Line 7: q += dq (positions only; velocities are left as the velocity stage made them).
    for (size_t i = 0; i < n; ++i) {
      Body& b = ctx.bodies[i];
      if (!b.is_dynamic() || (vel_[i].v.isZero(0.0) && vel_[i].w.isZero(0.0))) continue;
      displace(b, vel_[i].v, vel_[i].w);
    }
  }
}

// --- Drawing ---------------------------------------------------------------------------------------------

// The pair's images again, in the caller's workspace with the intervals captured, at the given poses and with
// the options compute_pair() uses; the constraints made from them exactly as compute_pair() makes them.
void VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib, const Settings& set, long limit,
                                 MeshCache& meshes, ldi::IntersectionVolume& ldi, ldi::VolumeResult& result,
                                 PairGeometry& out) {
  out = PairGeometry{};
  const Body& A = bodies[size_t(ia)];
  const Body& B = bodies[size_t(ib)];
  std::array<std::vector<Vec3>, 2> vertices;
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return;
  ldi::MeshInput ma, mb;
  if (!world_mesh(bodies, ia, ib, meshes, vertices[0], ma) || !world_mesh(bodies, ib, ia, meshes, vertices[1], mb))
    return;
  ldi::VolumeOptions options = set.ldi_options();
  options.capture_intervals = true;
  options.capture_limit = std::max<long>(1, limit);
  ldi.compute(ma, mb, options, result);
  if (!result.ok() || !result.boxes_overlap) return;
  out.intervals = result.capture;
  for (int s = 0; s < 2; ++s)
    for (const ldi::VertexGradient& g : result.mono.body[s].gradient)
      if (!g.gradient.isZero(0.0)) out.gradients[size_t(s)].push_back({vertices[size_t(s)][size_t(g.vertex)], g.gradient});
  // The volumes that become constraints, in the kernel's order; their cells with multi-volume.
  std::span<const ldi::VolumeContact> list = set.multi_volume ? result.cells() : std::span(&result.mono, 1);
  std::vector<Vec3> normals;
  std::vector<int> scratch;
  if (set.multi_volume) region_normals(list, result.mono, normals, scratch);
  Constraint c;
  for (size_t k = 0; k < list.size(); ++k) {
    const ldi::VolumeContact& vc = list[k];
    if (!make_constraint(vc, set.multi_volume ? &normals[k] : nullptr, set.combine == 1, A.position, B.position, c))
      continue;
    out.constraints.push_back(c);
    if (set.multi_volume) out.cells.push_back(vc.cell);
  }
}

VolumeSolver::PairGeometry VolumeSolver::pair_geometry(std::span<const Body> bodies, int ia, int ib,
                                                       long max_intervals_per_axis) const {
  PairGeometry out;
  if (ia < 0 || ia >= ib || ib >= int(bodies.size())) return out;
  MeshCache meshes;  // the call's own: nothing the solver keeps changes
  ldi::IntersectionVolume ldi;
  ldi::VolumeResult result;
  pair_geometry(bodies, ia, ib, settings(), max_intervals_per_axis, meshes, ldi, result, out);
  return out;
}

namespace {
DebugColor with_alpha(DebugColor c, float alpha) {
  c[3] = alpha;
  return c;
}
}  // namespace

void VolumeSolver::draw_debug(const DebugScene& scene, DebugDraw& draw) const {
  const DebugRequest& request = draw.request;
  const bool volumes = request.wants(kDebugVolumes), gradients = request.wants(kDebugVolumeGradients),
             cells = request.wants(kDebugVolumeCells);
  if (!volumes && !gradients && !cells) return;
  const Settings set = settings();
  const long limit = std::max<long>(1, request.max_intervals_per_axis);
  MeshCache meshes;  // the call's own workspace: nothing the solver keeps changes
  ldi::IntersectionVolume ldi;
  ldi::VolumeResult result;
  // Every pair's geometry first, then each layer over all pairs, so that a later layer is drawn over the
  // earlier ones everywhere.
  const int n = int(scene.bodies.size());
  std::vector<BodyPair> pairs;
  std::vector<PairGeometry> geometry;
  for (const BodyPair& pair : scene.pairs) {
    if (pair.a < 0 || pair.a >= pair.b || pair.b >= n) continue;
    pairs.push_back(pair);
    pair_geometry(scene.bodies, pair.a, pair.b, set, limit, meshes, ldi, result, geometry.emplace_back());
  }
  std::array<long, 3> total{0, 0, 0}, drawn{0, 0, 0};
  int stride = 1;
  size_t constraints = 0, cell_count = 0;
  for (const PairGeometry& g : geometry) {
    constraints += g.constraints.size();
    cell_count += g.cells.size();
    for (size_t w = 0; w < 3; ++w) {
      total[w] += g.intervals.total[w];
      drawn[w] += long(g.intervals.segments[w].size());
      stride = std::max(stride, g.intervals.stride[w]);
    }
  }
  // 1. Intersection volumes (eq. 11, Fig. 1): every interval as a segment along its image axis. The axes'
  // segments are interleaved and half transparent, so where they overlap the colours mix instead of the last
  // axis covering the others.
  if (volumes) {
    const int axes = int(request.volume_axes[0]) + request.volume_axes[1] + request.volume_axes[2];
    const float alpha = axes > 1 ? 0.5f : 0.8f;
    for (const PairGeometry& g : geometry) {
      const auto& segments = g.intervals.segments;
      const size_t most = std::max({segments[0].size(), segments[1].size(), segments[2].size()});
      for (size_t k = 0; k < most; ++k)
        for (size_t w = 0; w < 3; ++w)
          if (request.volume_axes[w] && k < segments[w].size())
            draw.line(segments[w][k][0], segments[w][k][1], with_alpha(debug_colors::kAxes[w], alpha));
    }
  }
  // 2. Vertex gradients dV/dp_k of the pair's whole volume (eq. 12-14): the largest of the pair drawn
  // gradient_length long, the others in proportion (a coarse box puts a whole face's share on a corner, a fine
  // mesh spreads it over many vertices: one scale for all pairs would shrink the fine ones to dots). A plane's
  // are left out: its mesh is the stand-in box, whose far corners would carry the largest arrows and mean
  // nothing (the plane never moves).
  if (gradients) {
    for (size_t k = 0; k < pairs.size(); ++k) {
      const PairGeometry& g = geometry[k];
      bool shown[2];
      double largest = 0.0;
      for (int s = 0; s < 2; ++s) {
        shown[s] = scene.bodies[size_t(s == 0 ? pairs[k].a : pairs[k].b)].shape.type != ShapeType::Plane;
        if (shown[s])
          for (const DebugArrow& a : g.gradients[size_t(s)]) largest = std::max(largest, a.gradient.norm());
      }
      if (!(largest > 0.0) || !std::isfinite(largest)) continue;
      const double scale = request.gradient_length / largest;
      for (int s = 0; s < 2; ++s) {
        if (!shown[s]) continue;
        const DebugColor& color = s == 0 ? debug_colors::kFirstBody : debug_colors::kSecondBody;
        for (const DebugArrow& a : g.gradients[size_t(s)]) {
          draw.arrow(a.position, a.position + scale * a.gradient, color);
          draw.point(a.position, with_alpha(color, 0.8f));
        }
      }
    }
  }
  // 3. The grid cells that hold a constraint (sect. 5), each constraint's frame at its position (normal, and
  // tangents), and the normal and friction impulses of the pair's contacts in the last step.
  if (cells) {
    const double h = set.cell_size;
    const DebugColor cell_color = with_alpha(debug_colors::kCell, 0.55f);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const PairGeometry& g = geometry[k];
      for (const std::array<int, 3>& c : g.cells) {
        const Vec3 lo(c[0] * h, c[1] * h, c[2] * h);
        auto corner = [&](int i) { return Vec3(lo + h * Vec3((i & 1) ? 1 : 0, (i & 2) ? 1 : 0, (i & 4) ? 1 : 0)); };
        for (int i = 0; i < 8; ++i)
          for (int bit = 1; bit < 8; bit <<= 1)
            if ((i & bit) == 0) draw.line(corner(i), corner(i | bit), cell_color);
      }
      for (const Constraint& c : g.constraints) {
        const double frame = set.multi_volume ? 0.45 * h : std::clamp(0.5 * std::sqrt(std::max(c.area, 0.0)), 0.02, 1.0);
        Vec3 t1, t2;
        tangent_basis(c.normal, t1, t2);
        draw.line(c.position, c.position + frame * c.normal, debug_colors::kNormal);
        draw.line(c.position, c.position + 0.6 * frame * t1, debug_colors::kTangent);
        draw.line(c.position, c.position + 0.6 * frame * t2, debug_colors::kTangent);
        draw.point(c.position, debug_colors::kCell);
      }
      // The impulses of the pair's contacts in the last step, at the contacts (sorted by pair).
      auto it = std::lower_bound(scene.contacts.begin(), scene.contacts.end(), pairs[k],
                                 [](const Contact& x, const BodyPair& key) { return BodyPair{x.a, x.b} < key; });
      for (; it != scene.contacts.end() && it->a == pairs[k].a && it->b == pairs[k].b; ++it) {
        draw.arrow(it->position, it->position + request.impulse_scale * it->normal_impulse * it->normal,
                   debug_colors::kNormalImpulse);
        if (it->friction_impulse.norm() * request.impulse_scale > 1e-6)
          draw.arrow(it->position, it->position + request.impulse_scale * it->friction_impulse,
                     debug_colors::kFrictionImpulse);
      }
    }
  }
  draw.note("pairs", double(pairs.size()));
  draw.note("constraints", double(constraints));
  draw.note("cells", double(cell_count));
  draw.note("intervals x", double(total[0]));
  draw.note("intervals y", double(total[1]));
  draw.note("intervals z", double(total[2]));
  if (stride > 1) {
    draw.note("drawn x", double(drawn[0]));
    draw.note("drawn y", double(drawn[1]));
    draw.note("drawn z", double(drawn[2]));
    draw.note("pixel stride", double(stride));
  }
}

// volume honours every scene feature (restitution by Newton's law on the pair's summed row); only a parameter can
// switch one off.
std::vector<std::string> VolumeSolver::unsupported(const SceneFeatures& scene) const {
  std::vector<std::string> out;
  warn_ignored_friction("volume", settings().friction_directions, scene, out);
  return out;
}

}  // namespace cl
