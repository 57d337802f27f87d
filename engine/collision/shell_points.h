// Point-shell contact geometry shared by the penalty methods (`implicit-penalty`: Xu, Zhao, Barbic 2014, sections
// 4.1 and 6; `pid-penalty`: Drumwright, appendix I-A): every body carries a point shell (surface samples with
// outward normals) and a signed distance; a pair's contact is the points of one body that lie inside the other's
// distance field, and the other way round.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "core/shape.h"
#include "mesh/point_shell.h"

namespace cl {

class TaskPool;

// A body's point shell in its body frame, with a sphere tree over the points to skip far ones (thesis sect. 6.2.2).
// A mesh's shell is a Poisson-disk resampling at its distance grid's cell size with face normals (the paper's
// evenly spread points); a primitive's is an even analytic sampling built here; a plane has no points. Copying a
// shell is cheap and keeps the views valid.
struct PenaltyShell {
  std::span<const Vec3> points;   // body frame
  std::span<const Vec3> normals;  // outward unit normals, one per point
  const SphereTree* tree = nullptr;  // over `points`; never null (empty for no points)
  double spacing = 0.0;           // m: the sampling spacing asked for (a mesh's: its grid cell size)
  std::shared_ptr<const void> owner;  // keeps the storage behind the views alive

  size_t size() const { return points.size(); }
  bool empty() const { return points.empty(); }
};

// m: the finest shell spacing the penalty methods use.
inline constexpr double kLeastShellSpacing = 0.002;

// The spacing for a sphere's or capsule's shell such that a cap `depth` deep (m) holds a point: at most
// sqrt(radius x depth), inside the cap's half-chord sqrt(2 radius depth), and at least kLeastShellSpacing;
// `spacing` itself for the other shapes.
double round_shell_spacing(const Shape& shape, double spacing, double depth);

// The Lipschitz bound of a shape's signed distance (shape_signed_distance): 1 for exact distances; sqrt 3 (rounded
// up) for a mesh's trilinear grid, whose gradient components are each a difference of node values at most one cell
// apart. A point that moves by s changes its signed distance by at most this times s.
double distance_slope(const Shape& shape);

// Shells of primitives have at most about this many points (the spacing is widened beyond that).
inline constexpr double kMaxPrimitiveShellPoints = 1 << 20;

// The shell of a shape, sampled at `spacing` (m, > 0) for primitives, about one point per spacing^2 of surface
// (neighbours about `spacing` apart):
//  - sphere:  Fibonacci points (golden-angle spiral, equal-area rows);
//  - box:     on each face a grid of at most `spacing` cells, one point at each cell centre with the face's
//             normal (no edge or corner points: their averaged normals would push a box lying flush on another
//             sideways; but across a thickness under a tenth of `spacing`, a sheet's rims, the one row is on
//             the two edges);
//  - capsule: rings around the cylinder (alternate rings turned by half a step), Fibonacci points on the two
//             half-sphere caps;
//  - plane:   no points (a plane only acts through its distance);
//  - mesh:    Poisson-disk points at the distance grid's cell size, face normals (spacing ignored).
// Deterministic. Built every call; penalty_shell() caches.
std::shared_ptr<const PenaltyShell> make_penalty_shell(const Shape& shape, double spacing);

// make_penalty_shell through a process-wide, thread-safe cache keyed by the shape's type and dimensions and the
// spacing (a mesh: by its MeshShape). Entries live as long as the process (one per distinct shape and spacing).
std::shared_ptr<const PenaltyShell> penalty_shell(const Shape& shape, double spacing);

// A point of body B's shell inside body A's signed distance field.
struct PenetratingPoint {
  int index = -1;       // into B's shell
  Vec3 r_b{0, 0, 0};    // the point, B's body frame
  Vec3 n_b{0, 0, 0};    // its outward unit normal, B's body frame
  double d = 0.0;       // A's signed distance there less the skin, < 0
  Vec3 g_a{0, 0, 0};    // A's distance gradient there, A's body frame (raw: for a mesh grid not unit)
};

// What one pair's shell query keeps from one step to the next (temporal coherence): per node of the shell's sphere
// tree, a lower bound on the field's signed distance over the node's ball, taken from the last time the node's
// centre was evaluated, and how far the shell could have moved through the field since. A node whose bound is
// still at least the skin holds no point inside and is skipped without a grid lookup. The bounds are
// conservative (the distance's Lipschitz bound times the motion, plus a rounding margin), so the points found are
// exactly those a query without it finds. Tied to one shell and one field shape; refilled when either changes.
struct ShellQueryCache {
  const SphereTree* tree = nullptr;  // the shell's tree the bounds belong to
  ShapeType field_type = ShapeType::Plane;
  const void* field_mesh = nullptr;  // a mesh field's MeshShape
  std::array<double, 5> field_size{};  // a primitive field's dimensions
  Mat3 R = Mat3::Identity();  // the pose of the last query (B's frame into A's)
  Vec3 t = Vec3::Zero();
  double reach = 0.0;  // m: the largest |p| over the shell's points (B's frame)
  double moved = 0.0;  // m: the slope times the bound on any point's travel through A's frame since the fill
  // Per tree node: its lower bound plus `moved` at the time it was stored, rounded down (-inf: no bound yet).
  // The bound now is bound[i] - moved.
  std::vector<float> bound;
  size_t skipped = 0;  // nodes the last query skipped on their bound
};

// Shells whose sphere tree has at least this many nodes are walked on a TaskPool's threads when one is given
// (find_penetrating_points); smaller ones are not worth waking them.
inline constexpr size_t kLeastSplitShellNodes = 4096;

// All points of `shell` (body B at x_b, R_b) strictly inside `field_shape` (body A at x_a, R_a) grown by `skin`
// (m, >= 0), that is with A's signed distance less the skin, d = phi - skin < 0, and a defined gradient, in
// increasing index order (so the result does not depend on the tree walk). `out` is cleared first. The walk over
// B's sphere tree skips a ball whose centre is farther outside the grown A than its radius times the distance's
// Lipschitz bound (1 for the exact distances of the primitives, sqrt 3 for a trilinear grid, whose gradient
// components are each at most 1), as the mesh contacts do.
// With a `cache` (the same one for the same pair from query to query), nodes whose bound from an earlier query
// shows them outside are skipped; the result is the same. With a `pool` of more than one thread, a large shell's
// tree is walked on its threads (its top on the caller's, the subtrees below as tasks), with the same result, the
// same bounds stored and the same count skipped as on one. Not to be called from within a run of that pool.
void find_penetrating_points(const Shape& field_shape, const Vec3& x_a, const Mat3& R_a, const PenaltyShell& shell,
                             const Vec3& x_b, const Mat3& R_b, std::vector<PenetratingPoint>& out, double skin = 0.0,
                             ShellQueryCache* cache = nullptr, TaskPool* pool = nullptr);

}  // namespace cl
