#include "collision/shell_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <span>
#include <tuple>

#include "core/task_pool.h"

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
  // Where the box is thinner than a tenth of the spacing, the faces across that thickness (a sheet's rims) have
  // their one row of points on its two edges instead of their middle: a 0.2 mm sheet landing tilted on its edge
  // had no point there (the rim's were 0.1 mm up, the bottom face's 6 cm in), nothing held it, and it went in.
  const auto row = [&](int k, int i, int count) {
    if (count == 1 && 2.0 * h[k] < 0.1 * spacing) return i == 0 ? -h[k] : h[k];
    return -h[k] + 2.0 * h[k] * (i + 0.5) / n[k];
  };
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    const int rows_u = n[u] == 1 && 2.0 * h[u] < 0.1 * spacing ? 2 : n[u];
    const int rows_v = n[v] == 1 && 2.0 * h[v] < 0.1 * spacing ? 2 : n[v];
    for (const double side : {-1.0, 1.0})
      for (int i = 0; i < rows_u; ++i)
        for (int j = 0; j < rows_v; ++j) {
          Vec3 p, normal = Vec3::Zero();
          p[axis] = side * h[axis];
          p[u] = row(u, i, n[u]);
          p[v] = row(v, j, n[v]);
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

// The sphere-tree walk of find_penetrating_points over a signed distance `field(q, phi, gradient, has_gradient)`
// (true if defined; at a leaf `gradient` is given, and a field that computes the gradient with the value anyway,
// a primitive's, fills it and sets has_gradient) that visits every ball not pruned and calls `inside(point index,
// phi, gradient or null)` for each point whose distance less the skin is negative. The prune and the point test
// only need the value; a grid's gradient is taken for the points kept only, which are a small part of those
// visited (a bolt's shell in the thread's clearance: every point is visited, about one in seven is inside). Each ball is pruned or kept on its own value and its ancestors', so
// the points found, the bounds stored and the balls skipped do not depend on the order of the walk nor on how it
// is split between threads.
//
// With `bound` (a ShellQueryCache's, `moved` and `margin` as find_penetrating_points sets them), a ball whose
// stored lower bound less what the shell has moved since is at least the skin is skipped before it is mapped:
// every point in it is at least the skin from A's surface, so none is inside and none of its descendants could
// be. Each evaluated ball stores phi - slope x radius (every point of the ball is at least that far out) plus
// `moved`, rounded down.
template <class Field, class Prefetch>
struct ShellWalk {
  const SphereTree& tree;
  const Mat3& R;
  const Vec3& t;
  double slope, skin;
  float* bound;
  double moved;
  double clear;  // a bound at least this holds no point inside: skin + moved + margin
  Field& field;
  Prefetch& prefetch;

  // The same expression as keep() in find_penetrating_points, so that both see the same point. A leaf's centre
  // is its point (a copy), read from the node the walk already holds.
  Vec3 map(const Vec3& p) const { return Vec3(R * p + t); }

  // True when node `id` is skipped on its stored bound (counted in `skipped`).
  bool skip(int id, size_t& skipped) const {
    if (bound && double(bound[size_t(id)]) >= clear) {
      ++skipped;
      return true;
    }
    return false;
  }

  // Node `id`, its centre mapped to q: stores its bound, reports its point if it is a leaf inside, and calls
  // open(child) for each child unless the ball is pruned.
  template <class Inside, class Open>
  void visit(int id, const Vec3& q, Inside& inside, Open&& open) const {
    const SphereTree::Node& node = tree.nodes[size_t(id)];
    double phi;
    Vec3 g;
    bool has_gradient = false;  // the field gave g with phi (at a leaf, where the point may be kept)
    const bool defined = field(q, phi, node.is_leaf() ? &g : nullptr, has_gradient);
    if (bound) {
      // Rounded down to a float: still a lower bound.
      const double low = defined ? phi - slope * node.radius + moved : -std::numeric_limits<double>::infinity();
      bound[size_t(id)] = float_down(low);
    }
    if (node.is_leaf()) {
      if (defined && phi - skin < 0.0) inside(node.point, phi, has_gradient ? &g : nullptr);
      return;
    }
    // Every point of the ball is at least phi - slope * radius from A's surface.
    if (defined && phi - skin > slope * node.radius) return;
    for (int c = 0; c < node.child_count; ++c) open(node.first_child + c);
  }

  // The subtree under node `root`, depth first. The walk takes up to kBatch balls off its stack at a time, maps
  // their centres into A's frame and calls `prefetch(q)` on each before evaluating any, so that the grid's cache
  // misses for a batch overlap.
  template <class Inside>
  void subtree(int root, Inside& inside, size_t& skipped) const {
    constexpr int kBatch = 16;
    thread_local std::vector<int> stack;
    stack.assign(1, root);
    int batch[kBatch];
    Vec3 q[kBatch];
    auto push = [](int child) { stack.push_back(child); };
    while (!stack.empty()) {
      int n = 0;
      while (n < kBatch && !stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        if (skip(id, skipped)) continue;
        batch[n] = id;
        q[n] = map(tree.nodes[size_t(id)].centre);
        prefetch(q[n]);
        ++n;
      }
      for (int k = 0; k < n; ++k) visit(batch[k], q[k], inside, push);
    }
  }

  // The top of the tree, breadth first, until at least `wanted` nodes wait to be opened (or none are left):
  // every node above them is visited as subtree() would visit it, and the nodes left (neither skipped nor
  // visited yet) are written to `frontier`, each to be walked with subtree().
  template <class Inside>
  void top(size_t wanted, std::vector<int>& frontier, Inside& inside, size_t& skipped) const {
    frontier.assign(1, 0);
    thread_local std::vector<int> next;
    while (!frontier.empty() && frontier.size() < wanted) {
      next.clear();
      bool opened = false;
      for (const int id : frontier) {
        if (tree.nodes[size_t(id)].is_leaf()) {
          next.push_back(id);  // a leaf is one task
          continue;
        }
        opened = true;
        if (skip(id, skipped)) continue;
        visit(id, map(tree.nodes[size_t(id)].centre), inside, [](int child) { next.push_back(child); });
      }
      frontier.swap(next);
      if (!opened) break;
    }
  }
};

template <class Field, class Prefetch>
ShellWalk<Field, Prefetch> shell_walk(const SphereTree& tree, const Mat3& R, const Vec3& t, double slope, double skin,
                                      float* bound, double moved, double margin, Field& field, Prefetch& prefetch) {
  return {tree, R, t, slope, skin, bound, moved, skin + moved + margin, field, prefetch};
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


// The points of `lists` (each point's index unique among them all) into `out`, in increasing index order. Unless
// they are very few for the shell (a sort of n points costs about as much as a pass over 100 n table entries),
// each index marks its point's place in a table over the shell's indices that is then read in order, instead of
// a sort of the points.
void join_in_index_order(std::span<std::vector<PenetratingPoint>> lists, size_t shell_size,
                         std::vector<PenetratingPoint>& out) {
  thread_local std::vector<PenetratingPoint> flat_scratch;
  thread_local std::vector<uint32_t> place;  // per shell index: its point's place in `flat`, or kNone
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  const std::vector<PenetratingPoint>* all = lists.size() == 1 ? &lists[0] : &flat_scratch;
  if (lists.size() != 1) {
    flat_scratch.clear();
    for (const std::vector<PenetratingPoint>& list : lists) flat_scratch.insert(flat_scratch.end(), list.begin(), list.end());
  }
  const std::vector<PenetratingPoint>& flat = *all;
  out.clear();
  if (flat.size() * 128 < shell_size || flat.size() >= size_t(kNone)) {
    out.assign(flat.begin(), flat.end());
    std::sort(out.begin(), out.end(), [](const PenetratingPoint& p, const PenetratingPoint& q) { return p.index < q.index; });
    return;
  }
  if (place.size() < shell_size) place.resize(shell_size, kNone);
  int lowest = std::numeric_limits<int>::max(), highest = -1;
  for (size_t k = 0; k < flat.size(); ++k) {
    const int i = flat[k].index;
    place[size_t(i)] = uint32_t(k);
    lowest = std::min(lowest, i);
    highest = std::max(highest, i);
  }
  out.reserve(flat.size());
  for (int i = lowest; i <= highest; ++i) {
    uint32_t& k = place[size_t(i)];
    if (k == kNone) continue;
    out.push_back(flat[k]);
    k = kNone;  // the table is left all kNone for the next call
  }
}

}  // namespace

void find_penetrating_points(const Shape& field_shape, const Vec3& x_a, const Mat3& R_a, const PenaltyShell& shell,
                             const Vec3& x_b, const Mat3& R_b, std::vector<PenetratingPoint>& out, double skin,
                             ShellQueryCache* cache, TaskPool* pool) {
  out.clear();
  if (shell.empty() || shell.tree->nodes.empty()) return;
  // B's frame -> A's frame.
  const Mat3 R = R_a.transpose() * R_b;
  const Vec3 t = R_a.transpose() * (x_b - x_a);
  const double slope = distance_slope(field_shape);
  float* bound = nullptr;
  double moved = 0.0, margin = 0.0;
  if (cache) {
    ready_cache(*cache, field_shape, shell, R, t, slope);
    bound = cache->bound.data();
    moved = cache->moved;
    // Two evaluations of the field at points computed from the same shell point differ by at most the slope
    // times their distance plus their rounding (about 1e-16 of the coordinates each): a nanometre per metre.
    margin = 1e-9 * (1.0 + cache->reach + t.norm());
  }
  // The point's distance and gradient as shape_signed_distance gives them (the same arithmetic: the value-only
  // test of the walk computes the value the same way), appended to `to`.
  // A primitive's field gives the gradient with the value the walk tested (`phi`, `gradient`): the same call at the
  // same point, so it is kept as it is.
  auto keep = [&](int index, double phi, const Vec3* gradient, std::vector<PenetratingPoint>& to) {
    const Vec3& r = shell.points[size_t(index)];
    if (gradient) {
      to.push_back({index, r, shell.normals[size_t(index)], phi - skin, *gradient});
      return;
    }
    Vec3 g;
    if (shape_signed_distance(field_shape, R * r + t, phi, g) && phi - skin < 0.0)
      to.push_back({index, r, shell.normals[size_t(index)], phi - skin, g});
  };
  // On the pool's threads: the top of the tree on this one, then the subtrees below it as tasks, each into its
  // own list (the last list takes the top's points); the lists are joined in index order, so the result is the
  // one thread's. A task per few thousand nodes keeps both threads busy when the subtrees differ in work.
  const int threads = pool ? pool->threads() : 1;
  const bool split = threads > 1 && shell.tree->nodes.size() >= kLeastSplitShellNodes;
  size_t skipped = 0;
  auto query = [&](auto& field, auto& prefetch) {
    const auto walk = shell_walk(*shell.tree, R, t, slope, skin, bound, moved, margin, field, prefetch);
    if (!split) {
      thread_local std::vector<PenetratingPoint> found;
      found.clear();
      auto inside = [&](int index, double phi, const Vec3* g) { keep(index, phi, g, found); };
      walk.subtree(0, inside, skipped);
      join_in_index_order(std::span(&found, 1), shell.size(), out);
      return;
    }
    // This thread's scratch, named by reference so that the tasks on other threads reach it (a lambda does not
    // capture a thread_local: in another thread its name is that thread's own).
    thread_local std::vector<int> frontier_scratch;
    thread_local std::vector<PenetratingPoint> top_scratch;
    thread_local std::vector<std::vector<PenetratingPoint>> lists_scratch;
    thread_local std::vector<size_t> skipped_scratch;
    std::vector<int>& frontier = frontier_scratch;
    std::vector<PenetratingPoint>& top_points = top_scratch;
    std::vector<std::vector<PenetratingPoint>>& lists = lists_scratch;  // per task, then the top's points
    std::vector<size_t>& skipped_by = skipped_scratch;
    top_points.clear();
    auto top_inside = [&](int index, double phi, const Vec3* g) { keep(index, phi, g, top_points); };
    walk.top(size_t(16 * threads), frontier, top_inside, skipped);
    const size_t tasks = frontier.size();
    if (lists.size() < tasks + 1) lists.resize(tasks + 1);
    skipped_by.assign(tasks, 0);
    pool->run(int(tasks), [&](int task, int) {
      std::vector<PenetratingPoint>& to = lists[size_t(task)];
      to.clear();
      auto inside = [&](int index, double phi, const Vec3* g) { keep(index, phi, g, to); };
      walk.subtree(frontier[size_t(task)], inside, skipped_by[size_t(task)]);
    });
    for (const size_t k : skipped_by) skipped += k;
    lists[tasks].swap(top_points);
    join_in_index_order(std::span(lists).first(tasks + 1), shell.size(), out);
  };
  if (field_shape.type == ShapeType::Mesh) {
    // A grid's value alone; its gradient is defined wherever the value is, except where it vanishes, which
    // keep() checks for the points kept (the prune needs no gradient).
    const SignedDistanceGrid& grid = field_shape.mesh->sdf;
    auto field = [&](const Vec3& q, double& phi, Vec3*, bool& has_gradient) {
      phi = grid.value(q);
      has_gradient = false;
      return true;
    };
    auto prefetch = [&](const Vec3& q) { grid.prefetch(q); };
    query(field, prefetch);
  } else {
    auto field = [&](const Vec3& q, double& phi, Vec3* gradient, bool& has_gradient) {
      Vec3 g;
      const bool defined = shape_signed_distance(field_shape, q, phi, g);
      has_gradient = gradient != nullptr;
      if (gradient) *gradient = g;
      return defined;
    };
    auto prefetch = [](const Vec3&) {};
    query(field, prefetch);
  }
  if (cache) cache->skipped = skipped;
}

}  // namespace cl
