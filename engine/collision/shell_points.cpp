#include "collision/shell_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <tuple>

#include "collision/mesh_shape.h"
#include "collision/narrowphase.h"

namespace cl {

namespace {

// The storage of a primitive's shell.
struct OwnedShell {
  std::vector<Vec3> points;
  std::vector<Vec3> normals;
  SphereTree tree;
};

// The spacing actually used for a surface of `area`: widened so that there are at most about
// kMaxPrimitiveShellPoints points.
double capped_spacing(double area, double spacing) {
  return std::max(spacing, std::sqrt(area / kMaxPrimitiveShellPoints));
}

constexpr double kGoldenAngle = std::numbers::pi * (3.0 - 2.23606797749978969641);  // pi (3 - sqrt 5)

// Fibonacci sphere: n points with equal-area rows along y (z of the classic form), golden-angle turns.
void sample_sphere(double r, double spacing, OwnedShell& s) {
  const double area = 4.0 * std::numbers::pi * r * r;
  spacing = capped_spacing(area, spacing);
  const int n = std::max(12, int(std::lround(area / (spacing * spacing))));
  for (int i = 0; i < n; ++i) {
    const double y = 1.0 - (2.0 * i + 1.0) / n;
    const double rho = std::sqrt(std::max(0.0, 1.0 - y * y));
    const double phi = kGoldenAngle * i;
    const Vec3 normal(rho * std::cos(phi), y, rho * std::sin(phi));
    s.points.push_back(r * normal);
    s.normals.push_back(normal);
  }
}

// Each face of the box gets its own grid of at most `spacing` cells with one point at each cell centre and the
// face's normal: no points on edges or corners, whose averaged (diagonal) normals would push a box resting flush
// on another sideways, and every point stands for the same area of its face.
void sample_box(const Vec3& h, double spacing, OwnedShell& s) {
  const double area = 8.0 * (h.x() * h.y() + h.y() * h.z() + h.z() * h.x());
  spacing = capped_spacing(area, spacing);
  int n[3];
  for (int k = 0; k < 3; ++k) n[k] = std::max(1, int(std::ceil(2.0 * h[k] / spacing - 1e-9)));
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (const double side : {-1.0, 1.0})
      for (int i = 0; i < n[u]; ++i)
        for (int j = 0; j < n[v]; ++j) {
          Vec3 p, normal = Vec3::Zero();
          p[axis] = side * h[axis];
          p[u] = -h[u] + 2.0 * h[u] * (i + 0.5) / n[u];
          p[v] = -h[v] + 2.0 * h[v] * (j + 0.5) / n[v];
          normal[axis] = side;
          s.points.push_back(p);
          s.normals.push_back(normal);
        }
  }
}

// Capsule along y: rings around the cylinder at most `spacing` apart (half a ring step from each cap's
// equator, alternate rings turned by half a point), and a Fibonacci half sphere on each cap.
void sample_capsule(double r, double half_height, double spacing, OwnedShell& s) {
  const double area = 4.0 * std::numbers::pi * r * r + 2.0 * std::numbers::pi * r * 2.0 * half_height;
  spacing = capped_spacing(area, spacing);
  const int rings = std::max(1, int(std::lround(2.0 * half_height / spacing)));
  const int per_ring = std::max(6, int(std::lround(2.0 * std::numbers::pi * r / spacing)));
  for (int j = 0; j < rings; ++j) {
    const double y = -half_height + (j + 0.5) * 2.0 * half_height / rings;
    for (int i = 0; i < per_ring; ++i) {
      const double phi = 2.0 * std::numbers::pi * (i + 0.5 * (j % 2)) / per_ring;
      const Vec3 normal(std::cos(phi), 0.0, std::sin(phi));
      s.points.push_back(r * normal + Vec3(0, y, 0));
      s.normals.push_back(normal);
    }
  }
  // Half sphere of n equal-area rows: height uniform in (0, r) is area-uniform (Archimedes).
  const int n = std::max(4, int(std::lround(2.0 * std::numbers::pi * r * r / (spacing * spacing))));
  for (int cap = 0; cap < 2; ++cap) {
    const double sign = cap == 0 ? 1.0 : -1.0;
    for (int i = 0; i < n; ++i) {
      const double y = 1.0 - (i + 0.5) / n;
      const double rho = std::sqrt(std::max(0.0, 1.0 - y * y));
      const double phi = kGoldenAngle * i;
      const Vec3 normal(rho * std::cos(phi), sign * y, rho * std::sin(phi));
      s.points.push_back(r * normal + Vec3(0, sign * half_height, 0));
      s.normals.push_back(normal);
    }
  }
}

}  // namespace

double distance_slope(const Shape& s) { return s.type == ShapeType::Mesh ? 1.7321 : 1.0; }

std::shared_ptr<const PenaltyShell> make_penalty_shell(const Shape& shape, double spacing) {
  auto shell = std::make_shared<PenaltyShell>();
  auto owned = std::make_shared<OwnedShell>();
  if (shape.type == ShapeType::Mesh) {
    // An even resampling (the paper's particle repulsion, here Poisson-disk) at the distance grid's cell size,
    // with face normals: the mesh's own point shell (the thesis re-sampling for lcp) keeps one point per flat
    // region, which would make a flat face as stiff as a single point.
    spacing = shape.mesh->sdf.cell_size();
    const double area = shape.mesh->mesh.surface_area();
    PointShell even = poisson_point_shell(shape.mesh->mesh, capped_spacing(area, spacing));
    owned->points = std::move(even.points);
    owned->normals = std::move(even.normals);
  } else if (spacing > 0 && std::isfinite(spacing)) {
    switch (shape.type) {
      case ShapeType::Sphere: sample_sphere(shape.radius, spacing, *owned); break;
      case ShapeType::Box: sample_box(shape.half_extents, spacing, *owned); break;
      case ShapeType::Capsule: sample_capsule(shape.radius, shape.half_height, spacing, *owned); break;
      case ShapeType::Plane:
      case ShapeType::Mesh: break;
    }
  }
  owned->tree = build_sphere_tree(owned->points);
  shell->points = owned->points;
  shell->normals = owned->normals;
  shell->tree = &owned->tree;
  shell->spacing = spacing;
  if (shape.type == ShapeType::Mesh) {
    // Own the samples and keep the mesh alive (the cache is keyed by its address).
    struct MeshOwned {
      std::shared_ptr<OwnedShell> shell;
      std::shared_ptr<const MeshShape> mesh;
    };
    shell->owner = std::make_shared<MeshOwned>(MeshOwned{std::move(owned), shape.mesh});
  } else {
    shell->owner = std::move(owned);
  }
  return shell;
}

std::shared_ptr<const PenaltyShell> penalty_shell(const Shape& shape, double spacing) {
  // Key: type, dimensions, spacing; a mesh by its MeshShape alone (an entry holds the mesh, so its address
  // cannot be reused while the entry can be found). Looked up, never iterated: the pointer order is harmless.
  // Entries are kept for the life of the process (shells are built once per distinct shape and spacing; the
  // solver asks for them at every narrow phase).
  using Key = std::tuple<int, double, double, double, double, double, const void*>;
  Key key;
  switch (shape.type) {
    case ShapeType::Mesh: key = Key(int(shape.type), 0, 0, 0, 0, 0, shape.mesh.get()); break;
    case ShapeType::Plane: key = Key(int(shape.type), 0, 0, 0, 0, 0, nullptr); break;
    case ShapeType::Sphere: key = Key(int(shape.type), shape.radius, 0, 0, 0, spacing, nullptr); break;
    case ShapeType::Box:
      key = Key(int(shape.type), shape.half_extents.x(), shape.half_extents.y(), shape.half_extents.z(), 0, spacing,
                nullptr);
      break;
    case ShapeType::Capsule:
      key = Key(int(shape.type), shape.radius, shape.half_height, 0, 0, spacing, nullptr);
      break;
  }
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const PenaltyShell>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  // Built outside the lock; if two threads race, the first stored wins and both return it.
  auto built = make_penalty_shell(shape, spacing);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(built)).first->second;
}

double round_shell_spacing(const Shape& shape, double spacing, double depth) {
  if (shape.type != ShapeType::Sphere && shape.type != ShapeType::Capsule) return spacing;
  return std::max(kLeastShellSpacing, std::min(spacing, std::sqrt(shape.radius * depth)));
}

namespace {

// The sphere-tree walk of find_penetrating_points over a signed distance `field(q, phi)` (value only, true if
// defined) that visits every ball not pruned and calls `inside(point index)` for each point whose distance less
// the skin is negative. The prune and the point test only need the value; the gradient is taken for the points
// kept, which are a small part of those visited (a bolt's shell in the thread's clearance: every point is
// visited, about one in seven is inside). The walk takes up to kBatch balls off its stack at a time, maps their
// centres into A's frame and calls `prefetch(q)` on each before evaluating any, so that the grid's cache misses
// for a batch overlap. Each ball is pruned or kept on its own value, so the points found do not depend on the
// order of the walk.
//
// With `bound` (a ShellQueryCache's, `moved` and `margin` as find_penetrating_points sets them), a ball whose
// stored lower bound less what the shell has moved since is at least the skin is skipped before it is mapped:
// every point in it is at least the skin from A's surface, so none is inside and none of its descendants could
// be. Each evaluated ball stores phi - slope x radius (every point of the ball is at least that far out) plus
// `moved`, rounded down.
template <class Field, class Prefetch, class Inside>
void walk_shell(const PenaltyShell& shell, const Mat3& R, const Vec3& t, double slope, double skin, float* bound,
                double moved, double margin, Field&& field, Prefetch&& prefetch, Inside&& inside, size_t& skipped) {
  constexpr int kBatch = 16;
  const SphereTree& tree = *shell.tree;
  // The same expression as keep() in find_penetrating_points, so that both see the same point. A leaf's centre
  // is its point (a copy), read from the node the walk already holds.
  auto map = [&](const Vec3& p) { return Vec3(R * p + t); };
  // A bound at least this holds no point inside.
  const double clear = skin + moved + margin;
  thread_local std::vector<int> stack;
  stack.assign(1, 0);
  int batch[kBatch];
  Vec3 q[kBatch];
  while (!stack.empty()) {
    int n = 0;
    while (n < kBatch && !stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (bound && double(bound[id]) >= clear) {
        ++skipped;
        continue;
      }
      batch[n] = id;
      q[n] = map(tree.nodes[size_t(id)].centre);
      prefetch(q[n]);
      ++n;
    }
    for (int k = 0; k < n; ++k) {
      const SphereTree::Node& node = tree.nodes[size_t(batch[k])];
      double phi;
      const bool defined = field(q[k], phi);
      if (bound) {
        // Rounded down to a float: still a lower bound.
        const double low = defined ? phi - slope * node.radius + moved : -std::numeric_limits<double>::infinity();
        bound[batch[k]] = float_down(low);
      }
      if (node.is_leaf()) {
        if (defined && phi - skin < 0.0) inside(node.point);
        continue;
      }
      // Every point of the ball is at least phi - slope * radius from A's surface.
      if (defined && phi - skin > slope * node.radius) continue;
      for (int c = 0; c < node.child_count; ++c) stack.push_back(node.first_child + c);
    }
  }
}

// Readies `cache` for a query of `shell` in `field` at the pose (R, t): refilled for another shell or field, or
// when its float bounds would lose their precision; otherwise `moved` grows by the slope times the farthest any
// point of the shell can have travelled since the last query, |R - R_last| reach + |t - t_last| (the Frobenius
// norm bounds the spectral one).
void ready_cache(ShellQueryCache& cache, const Shape& field, const PenaltyShell& shell, const Mat3& R, const Vec3& t,
                 double slope) {
  std::array<double, 5> size{field.radius, field.half_height, field.half_extents.x(), field.half_extents.y(),
                             field.half_extents.z()};
  const void* mesh = field.type == ShapeType::Mesh ? static_cast<const void*>(field.mesh.get()) : nullptr;
  // Past 10 m of accumulated travel a float bound keeps only about a micrometre: start again.
  const bool same = cache.tree == shell.tree && cache.field_type == field.type && cache.field_mesh == mesh &&
                    cache.field_size == size && cache.bound.size() == shell.tree->nodes.size() && cache.moved < 10.0;
  if (!same) {
    cache.tree = shell.tree;
    cache.field_type = field.type;
    cache.field_mesh = mesh;
    cache.field_size = size;
    cache.bound.assign(shell.tree->nodes.size(), -std::numeric_limits<float>::infinity());
    cache.moved = 0.0;
    cache.reach = 0.0;
    for (const Vec3& p : shell.points) cache.reach = std::max(cache.reach, p.norm());
  } else {
    const double travel = (R - cache.R).norm() * cache.reach + (t - cache.t).norm();
    cache.moved += slope * travel * (1.0 + 1e-9);
  }
  cache.R = R;
  cache.t = t;
}

}  // namespace

void find_penetrating_points(const Shape& field_shape, const Vec3& x_a, const Mat3& R_a, const PenaltyShell& shell,
                             const Vec3& x_b, const Mat3& R_b, std::vector<PenetratingPoint>& out, double skin,
                             ShellQueryCache* cache) {
  out.clear();
  if (shell.empty() || shell.tree->nodes.empty()) return;
  // B's frame -> A's frame.
  const Mat3 R = R_a.transpose() * R_b;
  const Vec3 t = R_a.transpose() * (x_b - x_a);
  const double slope = distance_slope(field_shape);
  float* bound = nullptr;
  double moved = 0.0, margin = 0.0;
  size_t skipped = 0;
  if (cache) {
    ready_cache(*cache, field_shape, shell, R, t, slope);
    bound = cache->bound.data();
    moved = cache->moved;
    // Two evaluations of the field at points computed from the same shell point differ by at most the slope
    // times their distance plus their rounding (about 1e-16 of the coordinates each): a nanometre per metre.
    margin = 1e-9 * (1.0 + cache->reach + t.norm());
  }
  // The point's distance and gradient as shape_signed_distance gives them (the same arithmetic: the value-only
  // test above computes the value the same way).
  auto keep = [&](int index) {
    const Vec3& r = shell.points[size_t(index)];
    double phi;
    Vec3 g;
    if (shape_signed_distance(field_shape, R * r + t, phi, g) && phi - skin < 0.0)
      out.push_back({index, r, shell.normals[size_t(index)], phi - skin, g});
  };
  if (field_shape.type == ShapeType::Mesh) {
    // A grid's value alone; its gradient is defined wherever the value is, except where it vanishes, which
    // keep() checks for the points kept (the prune needs no gradient).
    const SignedDistanceGrid& grid = field_shape.mesh->sdf;
    walk_shell(
        shell, R, t, slope, skin, bound, moved, margin,
        [&](const Vec3& q, double& phi) { phi = grid.value(q); return true; }, [&](const Vec3& q) { grid.prefetch(q); },
        keep, skipped);
  } else {
    walk_shell(
        shell, R, t, slope, skin, bound, moved, margin,
        [&](const Vec3& q, double& phi) {
          Vec3 g;
          return shape_signed_distance(field_shape, q, phi, g);
        },
        [](const Vec3&) {}, keep, skipped);
  }
  if (cache) cache->skipped = skipped;
  std::sort(out.begin(), out.end(), [](const PenetratingPoint& p, const PenetratingPoint& q) { return p.index < q.index; });
}

}  // namespace cl
