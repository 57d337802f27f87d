// `volume`: volume contact constraints of Allard et al. 2010 (the paper "Volume contact constraints at arbitrary
// resolution"), sections 4-5, Algorithm 1, for rigid bodies.
//
// Per step:
//   collide()   for each candidate pair, its intersection volume(s) V and gradients J_V = dV/dq: in closed form for
//               box, sphere and plane pairs (volume_geometry/exact_volume.h: the exact V and J_V of sect. 3-4), from
//               layered depth images of the two meshes in world coordinates for the others (ldi/intersection_volume.h,
//               eq. 11-14); one volume per pair (mono) or several (multi-volume, sect. 5: the images' grid cells,
//               eq. 22-24, or an exact intersection's columns along its normal); cached per pair and reported to the
//               world as one Contact per volume (position = contact centre, depth = the deepest point along the
//               normal; the mean depth V / area stays on the Constraint)
//   velocities  u* = u + h M^-1 f_ext (constraints/motion.h), then the MLCP of
//               eq. 16-17 (unilateral rows: the volume may not grow, J_V u <= 0, pressure rho >= 0; one per
//               volume, or with `sphere_region_rows` one per connected region of cells on a sphere, the
//               region's volume, so that a ball rolls freely; an impact faster than `restitution_threshold`
//               must separate at e times its approach speed, Newton's law on the pair or region as under `lcp`) with the
//               friction rows of eq. 20-21 per volume (tangents from the contact normal, bounds +-mu rho,
//               eq. 8-10) and the joints' rows (as under `lcp`), by the shared symmetric projected
//               Gauss-Seidel (constraints/pgs.h)
//   positions   x += h v, rotation by h w (Algorithm 1 line 3); then post-stabilisation (lines 4-9): recompute
//               the volumes at the new poses and, while some V > eps_V, solve the position MLCP of eq. 18-19
//               (M dq = -J_V^T xi, V + J_V dq <= eps_V perp xi >= 0) by PGS, apply dq, recompute; eps_V is
//               regulated from the contact area so that about `rest_depth` pixels of depth remain (sect. 4.3)
// With speculative_contacts (on by default), a pair within the world's contact margin whose volumes do not
// intersect, or only by less than half a pixel, gets the shared narrow phase's point contacts apart or touching, rows
// J u >= -gap / h with friction. With stack_layers (on by default), a group with bodies on bodies takes 1% of the
// step whole and the rest layer by layer, lower bodies held (shock propagation, as lcp's).
// Units: J_V linear part m^2, angular m^3, so rho and xi are pressure (x time, x time^2).
// For the images, primitives get a triangle mesh (box, uv sphere, capsule), cached per shape; a plane becomes a box
// under it covering the other body's footprint, as deep as that body is large (rebuilt per pair and step).
// Limitation: a body entirely inside another has no volume gradient (no normal), and gets no constraint.
#pragma once

#include <array>
#include <map>
#include <algorithm>
#include <memory>
#include <vector>

#include "constraints/pgs.h"
#include "ldi/intersection_volume.h"
#include "volume_geometry/exact_volume.h"
#include "mesh/mesh.h"
#include "solvers/solver.h"

namespace cl {

class VolumeSolver final : public Solver {
 public:
  VolumeSolver();
  VolumeSolver(const VolumeSolver& other);  // the state a step reads (warm starts, pair cache); a new LDI workspace
  VolumeSolver& operator=(const VolumeSolver&) = delete;
  static std::span<const ParamSpec> param_specs();

  std::string_view name() const override { return "volume"; }
  std::unique_ptr<Solver> clone() const override { return std::make_unique<VolumeSolver>(*this); }
  void collide(const std::vector<Body>& bodies, int ia, int ib, double margin, ContactList& out) override;
  // collide() keeps each pair's depth images and debug records in unguarded maps, and its rasteriser has
  // threads of its own (the `threads` parameter): pairs one at a time.
  bool concurrent_collide() const override { return false; }
  void solve_velocities(StepContext& ctx) override;
  void integrate_positions(StepContext& ctx) override;
  void report_contacts(const StepContext& ctx, ContactReport& out) const override;
  // The depth post-stabilisation keeps, at least half a pixel: a layer that deep over a contact patch crosses
  // pixel centres, so the images see a volume and its row stops the approach.
  double continuous_depth() const override { return std::max(set_.rest_depth, 0.5) * set_.pixel_size; }
  void reset() override;
  std::vector<std::string> unsupported(const SceneFeatures& scene) const override;

  // One volume constraint chained to the two bodies' rigid DOFs ([0] = body a, [1] = body b).
  struct Constraint {
    double volume = 0;            // V, m^3
    double area = 0;              // contact surface estimate (sect. 4.3), m^2
    double deepest = 0;           // deepest point along the normal, m (ldi::VolumeContact::deepest)
    Vec3 normal = Vec3::Zero();   // unit, from a to b
    Vec3 position = Vec3::Zero(); // midway between the two contact surfaces' barycentres
    std::array<Vec3, 2> linear{Vec3::Zero(), Vec3::Zero()};   // dV/dx, m^2
    std::array<Vec3, 2> angular{Vec3::Zero(), Vec3::Zero()};  // dV/dtheta about the body's centre, m^3
    std::array<double, 2> area_sum{0, 0};                     // S (eq. 20-21), m^2
    std::array<Vec3, 2> area_moment{Vec3::Zero(), Vec3::Zero()};  // M about the body's centre, m^3
    std::array<int, 3> cell{};    // multi-volume: the grid cell of the volume (sect. 5); mono: (0, 0, 0)
    double mean_depth() const { return area > 0 ? volume / area : 0.0; }  // V / area (sect. 4.3), m
  };
  // The parameters as plain fields (see param_specs for units and meaning).
  struct Settings {
    double pixel_size, cell_size, rim_width, rest_depth, tolerance, restitution_threshold;
    bool multi_volume, warm_start, stack_layers, sphere_region_rows, speculative, exact_primitives;
    int iterations, joint_sweeps, stabilization_iterations, stabilization_sweeps, friction_directions, friction_cone;
    int threads, combine;
    ldi::VolumeOptions ldi_options() const;  // the kernel's options for these settings
  };

  // The constraints of pair a < b as last computed (null when none); for tests and drawing.
  const std::vector<Constraint>* constraints(int a, int b) const;
  // Post-stabilisation iterations (LDI recomputations) of the last step.
  int last_stabilization_iterations() const { return last_stab_iterations_; }

  // Where the time goes, accumulated since construction or reset() (a benchmark takes differences).
  struct Profile {
    double images_s = 0;      // layered depth images: rasterisation, volumes and gradients (sect. 3.2)
    double modelling_s = 0;   // contact modelling: constraints and their rows (J_V, friction, M^-1 J^T)
    double solve_s = 0;       // PGS sweeps of the velocity and position MLCPs
    long pair_computations = 0;  // LDI evaluations (collision plus post-stabilisation)
    long constraints = 0;        // volume constraints produced by them
    long velocity_rows = 0;      // rows of the velocity MLCPs (normal plus friction)
  };
  const Profile& profile() const { return profile_; }

  // --- Drawing (Solver::draw_debug) ---------------------------------------------------------------------
  // What the layered depth images see of pair ia < ib at the poses of `bodies`, with the current parameters:
  // computed again in the call's own workspace with the options collide() uses (the kernel is deterministic,
  // so at the poses of a collision stage it is what that stage computed), and nothing of the solver changes.
  struct DebugArrow {
    Vec3 position = Vec3::Zero();  // world position of vertex p_k
    Vec3 gradient = Vec3::Zero();  // dV/dp_k of the pair's whole (mono) volume, m^2 (eq. 13-14)
  };
  struct PairGeometry {
    ldi::IntervalCapture intervals;                    // per image axis, the intervals inside both meshes (eq. 11)
    std::array<std::vector<DebugArrow>, 2> gradients;  // [0] = a, [1] = b: vertices with a non-zero gradient
    std::vector<Constraint> constraints;               // as collide() makes them; index = Contact::feature
    // Multi-volume: the cell of constraints[k] and its world box; empty for mono. The images' grid (sect. 5) is
    // anchored at the world origin: cell (cx, cy, cz) covers [cx h, (cx + 1) h) x ... with h = cell_size; an exact
    // pair's cells are its columns (i, j, 0) (volume_geometry/exact_volume.h), boxed by their parts' bounds.
    std::vector<std::array<int, 3>> cells;
    std::vector<Aabb> cell_boxes;
  };
  // `max_intervals_per_axis` bounds the segments kept per image axis (ldi::IntervalCapture::stride).
  PairGeometry pair_geometry(std::span<const Body> bodies, int ia, int ib, long max_intervals_per_axis) const;
  // The intersection volumes (kDebugVolumes: each interval a segment along its image axis), the vertex gradients
  // (kDebugVolumeGradients: arrows, each pair's largest gradient_length long) and the cells (kDebugVolumeCells:
  // grid cells with a constraint, each constraint's frame, and the impulses of the last step's contacts of the
  // pair) of every pair of `scene`, from pair_geometry; notes the totals (pairs, constraints, cells, intervals).
  void draw_debug(const DebugScene& scene, DebugDraw& draw) const override;
  unsigned debug_layers() const override { return kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells; }

 private:
  static const ParamTable<Settings>& table();
  void read_settings() override;
  // The settings of the current parameter values (the cell size at least the pixel size).
  Settings settings() const;
  // The constraint of one kernel volume `vc`, the pair's whole intersection or one of its cells (region_normal:
  // a cell's region's normal, see region_normals; null for the whole intersection; centres: the bodies' centres
  // of mass); false when the volume cannot push (no volume, area or normal). The one rule for what becomes a
  // constraint, for the solver and its drawing.
  // normal_weighted: the images' volumes are combined by the normal (axis_combination).
  static bool make_constraint(const ldi::VolumeContact& vc, const Vec3* region_normal, bool normal_weighted,
                              const Vec3& centre_a, const Vec3& centre_b, Constraint& c);
  // Per multi-volume cell of the kernel, the normal of its connected region of cells (cells sharing a face, an
  // edge or a corner): the direction of the region's summed volume gradient (sect. 4.2 on the region's volume).
  // A pair whose intersection is one region gets the whole intersection's normal.
  static void region_normals(std::span<const ldi::VolumeContact> cells, const ldi::VolumeContact& mono,
                             std::vector<Vec3>& normals, std::vector<int>& scratch);
  struct PairCache {
    std::vector<Constraint> constraints;
    Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();  // poses they were computed at
    Quat qa = Quat::Identity(), qb = Quat::Identity();
    bool valid = false;
  };
  // Where a pair's rows sit in rows_: the pair's normal row or one per volume, each volume's friction rows after
  // the normal row that bounds them.
  struct ContactBlock {
    int contact = -1, contact_end = -1;  // the pair's contacts in ctx.contacts: [contact, contact_end)
    int first_row = 0;
    int rows = 0;
  };
  // Both kernels with their results and scratch, reused from call to call: the solver's own, or a drawing's.
  struct Workspace {
    std::unique_ptr<ldi::IntersectionVolume> ldi = std::make_unique<ldi::IntersectionVolume>();
    ldi::VolumeResult images;
    vg::ExactVolume exact;
    vg::ExactResult exact_result;
    std::array<std::vector<Vec3>, 2> vertices;  // the meshes' world vertices (images)
    std::vector<Vec3> region_normals;           // make_constraints' scratch
    std::vector<int> region_scratch;
  };
  // One pair's volumes as a kernel gave them: the whole intersection and, with multi-volume, its cells.
  struct PairVolumes {
    const ldi::VolumeContact* mono = nullptr;  // null: nothing overlaps
    std::span<const ldi::VolumeContact> cells;
    std::span<const Aabb> cell_bounds;         // exact: the world bounds of each cell's part
    bool exact = false;                        // from the closed forms (else from the images)
  };

  // Primitive meshes by (type, dimensions), and the unit box a plane becomes.
  struct MeshCache {
    std::map<std::array<double, 6>, TriangleMesh> meshes;
    TriangleMesh plane_box;
  };
  // The body-frame triangle mesh of a shape (null for planes and unsupported shapes), made into `cache` once.
  static const TriangleMesh* body_mesh(const Shape& s, MeshCache& cache);
  // World vertices (into `vertices`) and triangles of body i as the images' input, the plane as a box under the
  // footprint of `other`; a loaded mesh with its BVH and pose.
  static bool world_mesh(std::span<const Body> bodies, int i, int other, MeshCache& cache,
                         std::vector<Vec3>& vertices, ldi::MeshInput& input);
  // The volumes of pair ia < ib at the poses of `bodies`: in closed form for a pair of primitives
  // (exact_primitives), else from the layered depth images of their meshes (with the intervals captured for
  // drawing when `capture` > 0, at most about that many per axis).
  static PairVolumes pair_volumes(std::span<const Body> bodies, int ia, int ib, const Settings& set, long capture,
                                  MeshCache& meshes, Workspace& ws);
  // The constraints of a pair's volumes (the cells with multi-volume, else the whole), appended to `out` (and
  // each one's cell to `cells`): the one rule, for the solver and its drawing.
  static void make_constraints(const PairVolumes& v, const Settings& set, const Vec3& centre_a, const Vec3& centre_b,
                               Workspace& ws, std::vector<Constraint>& out, PairGeometry* drawn);
  // pair_geometry in the given workspace, mesh cache and settings.
  static void pair_geometry(std::span<const Body> bodies, int ia, int ib, const Settings& set, long limit,
                            MeshCache& meshes, Workspace& ws, PairGeometry& out);
  // Volumes of pair ia < ib at the current poses, into the cache (reused when neither body moved).
  PairCache& compute_pair(const std::vector<Body>& bodies, int ia, int ib);
  // The settings of the method's PGS solves with at most `sweeps` sweeps (relative tolerance, symmetric).
  PgsSettings pgs_settings(int sweeps, std::vector<double>* residuals = nullptr) const;
  // The row J = [la aa | lb ab] between bodies a and b, prepared with the bodies' inverse masses.
  Row make_row(int a, int b, const Vec3& la, const Vec3& aa, const Vec3& lb, const Vec3& ab) const;

  Settings set_{};
  Workspace ws_;
  std::map<std::pair<int, int>, PairCache> pairs_;
  MeshCache meshes_;
  std::vector<BodyVelocity> vel_;  // per body: velocities (or displacements) during a PGS solve
  std::vector<InverseMass> masses_;
  std::vector<Row> rows_;  // joint rows first, then each volume contact's normal and friction rows
  std::vector<ContactBlock> blocks_;
  std::vector<int> row_contact_;  // per row of rows_: the contact of a volume's row, -1 for a region's or a joint's
  std::vector<int> normal_row_of_;  // per contact: the row of rows_ that bounds it (its own or its region's), or -1
  std::vector<int> region_of_, region_stack_;  // a pair's contacts by intersection region (solve_velocities)
  // Contact::feature of a speculative contact (collide): this bit set on the shared narrow phase's feature id; the
  // other contacts' feature is the index of their volume in the pair's list.
  static constexpr uint32_t kSpeculativeFeature = 1u << 31;
  void add_speculative_rows(StepContext& ctx, int begin, int end);
  // m: how far the next step can close the gap between a and b (volume_contacts.cpp); the reach of its speculative
  // contacts where it exceeds the world's contact margin.
  double step_reach(const Body& a, const Body& b) const;
  double last_dt_ = 0.0, last_gravity_ = 0.0;  // s, m/s^2: of the last solve_velocities
  void solve_impacts(StepContext& ctx);
  std::vector<Row> impact_rows_;  // one row per flat pair with an impact (solve_impacts)
  void classify_groups(const StepContext& ctx);
  void solve_layers(StepContext& ctx);
  // f of the shock propagation: the part of the step the whole solve takes before the layers (lcp's default
  // shock_fraction, thesis 6.4.4-6.4.5).
  static constexpr double kShockFraction = 0.01;
  std::vector<char> shock_group_, shock_body_;  // per group / body: solved by layers (classify_groups)
  std::vector<BodyVelocity> free_;              // per body: h M^-1 f_ext of the step
  std::vector<double> layer_lambda_;            // per row of rows_: the layers' multiplier (0 outside them)
  std::vector<double> layer_warm_normal_;       // per contact: the layers' impulses of the last step (N s)
  std::vector<Vec3> layer_warm_friction_;
  std::vector<Row> layer_rows_;
  std::vector<int> layer_row_source_;  // index in rows_ of each layer row
  std::vector<int> block_of_contact_;
  std::vector<JointRow> joint_rows_;
  std::vector<int> motor_rows_;  // indices of the motor rows in rows_ (joints/joint_solve.h)
  JointWarmStart joint_warm_;
  int last_stab_iterations_ = 0;
  Profile profile_;
};

}  // namespace cl
