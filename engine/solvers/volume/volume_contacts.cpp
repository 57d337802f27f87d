#include "solvers/volume/volume_solver.h"

#include <algorithm>
#include <cmath>

#include "collision/mesh_shape.h"
#include "collision/narrowphase.h"
#include "mesh/generate.h"
#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

namespace {

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

VolumeSolver::PairVolumes VolumeSolver::pair_volumes(std::span<const Body> bodies, int ia, int ib,
                                                     const Settings& set, long capture, MeshCache& meshes,
                                                     Workspace& ws) {
  PairVolumes out;
  const Body& A = bodies[size_t(ia)];
  const Body& B = bodies[size_t(ib)];
  if (A.shape.type == ShapeType::Plane && B.shape.type == ShapeType::Plane) return out;
  if (set.exact_primitives && vg::has_exact_volume(A.shape.type, B.shape.type)) {
    const vg::PosedShape a{&A.shape, A.position, A.rotation()}, b{&B.shape, B.position, B.rotation()};
    ws.exact.compute(a, b, vg::ExactOptions{set.multi_volume, set.rim_width}, ws.exact_result);
    out.exact = true;
    if (!ws.exact_result.overlap) return out;
    out.mono = &ws.exact_result.mono;
    out.cells = ws.exact_result.cells();
    out.cell_bounds = ws.exact_result.cell_bounds();
    return out;
  }
  ldi::MeshInput ma, mb;
  if (!world_mesh(bodies, ia, ib, meshes, ws.vertices[0], ma) || !world_mesh(bodies, ib, ia, meshes, ws.vertices[1], mb))
    return out;
  ldi::VolumeOptions options = set.ldi_options();
  if (capture > 0) {
    options.capture_intervals = true;
    options.capture_limit = capture;
  }
  ws.ldi->compute(ma, mb, options, ws.images);
  if (!ws.images.ok() || !ws.images.boxes_overlap) return out;
  out.mono = &ws.images.mono;
  out.cells = ws.images.cells();
  return out;
}

void VolumeSolver::make_constraints(const PairVolumes& v, const Settings& set, const Vec3& centre_a,
                                    const Vec3& centre_b, Workspace& ws, std::vector<Constraint>& out,
                                    PairGeometry* drawn) {
  if (!v.mono) return;
  const std::span<const ldi::VolumeContact> list = set.multi_volume ? v.cells : std::span(v.mono, 1);
  // An exact pair's parts all push along its normal (one region); the images' cells along their region's.
  if (v.exact)
    ws.region_normals.assign(list.size(), v.mono->normal);
  else if (set.multi_volume)
    region_normals(list, *v.mono, ws.region_normals, ws.region_scratch);
  Constraint c;
  for (size_t k = 0; k < list.size(); ++k) {
    if (!make_constraint(list[k], set.multi_volume ? &ws.region_normals[k] : nullptr, set.combine == 1, centre_a,
                         centre_b, c))
      continue;
    out.push_back(c);
    if (!drawn || !set.multi_volume) continue;
    drawn->cells.push_back(list[k].cell);
    if (v.exact) {
      drawn->cell_boxes.push_back(v.cell_bounds[k]);
    } else {
      const Vec3 lo = set.cell_size * Vec3(list[k].cell[0], list[k].cell[1], list[k].cell[2]);
      drawn->cell_boxes.push_back(Aabb{lo, lo + Vec3::Constant(set.cell_size)});
    }
  }
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
  const auto t0 = Clock::now();
  const PairVolumes v = pair_volumes(bodies, ia, ib, set_, 0, meshes_, ws_);
  profile_.images_s += seconds_since(t0);
  ++profile_.pair_computations;
  counters_.add(v.exact ? kCountExactVolumes : kCountImages, 1);
  const auto t1 = Clock::now();
  make_constraints(v, set_, A.position, B.position, ws_, pc.constraints, nullptr);
  profile_.constraints += long(pc.constraints.size());
  profile_.modelling_s += seconds_since(t1);
  return pc;
}

// How far the step can close the gap between two bodies (m): each dynamic body's speed plus its turning times its
// radius, and what gravity adds within the step, over the step (the last step's dt and gravity; 0 before the first
// step). Speculative points this far apart are anticipated: a 1 m sheet of 0.2 mm pivoting on one edge at 1/30 s
// dropped its far edge 14 mm in a step, beyond the world's 10 mm margin, so no row held it; each step gravity
// turned the sheet about the edge it stood on, the far edge struck the ground, and the sheet rocked from edge to
// edge at 0.03 J, never resting (1.5 g h / L of turn each step, which the edge impacts only halve).
double VolumeSolver::step_reach(const Body& a, const Body& b) const {
  double speed = 0.0;
  for (const Body* body : {&a, &b})
    if (body->is_dynamic())
      speed += shape_point_speed(body->shape, body->linear_velocity, body->angular_velocity) + last_gravity_ * last_dt_;
  return speed * last_dt_;
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
      // Primitives reach as far as the step can close (step_reach); meshes keep the margin: their far points are
      // many shell samples, and with them the stacked tori still rocked after 4 s (0.36 J).
      const double reach = meshes ? margin : std::max(margin, step_reach(bodies[size_t(ia)], bodies[size_t(ib)]));
      cl::collide(bodies, ia, ib, reach, out);
      // A pair of primitives keeps all its points while one of them is still apart or touching: the points that
      // hold one face are kept or dropped together. Dropped one by one as each passed 2^-16 pixel, the corner that
      // went in first left the face on its three other corners and a thin layer of volumes, and 20 sweeps of that
      // mixed set did not balance it: a box released at rest on friction 0.51 at tan theta 0.5 (dt 1/30 s), in
      // by 4e-7 m at one corner after its first step, rocked for five steps and slid 1.1 mm at 2 cm (0.84 mm at
      // 1 m); with its four corners beside the layer it stays within 2e-9 m at every size. The points are there
      // only while the whole intersection is thinner than the half pixel (above), so a body resting at that
      // depth, or gripped deeper, has none.
      const auto in = [touching](const Contact& c) { return c.depth > touching; };
      const bool face_touching =
          !meshes && std::any_of(out.begin() + long(first), out.end(), [&](const Contact& c) { return !in(c); });
      if (!pc.constraints.empty() && !face_touching)
        out.erase(std::remove_if(out.begin() + long(first), out.end(), in),
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

}  // namespace cl
