#include "solvers/implicit_penalty/box_rim.h"

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "mesh/point_shell.h"

namespace cl::implicit_penalty {

namespace {

struct OwnedRim {
  std::vector<Vec3> points;
  std::vector<Vec3> normals;
  SphereTree tree;
};

std::shared_ptr<const PenaltyShell> make_box_rim(const Vec3& h, double spacing) {
  auto owned = std::make_shared<OwnedRim>();
  // Cells per edge as the face shell has them (collision/shell_points.cpp, sample_box).
  int n[3];
  for (int k = 0; k < 3; ++k) n[k] = std::max(1, int(std::ceil(2.0 * h[k] / spacing - 1e-9)));
  // The corners.
  for (const double sx : {-1.0, 1.0})
    for (const double sy : {-1.0, 1.0})
      for (const double sz : {-1.0, 1.0}) {
        owned->points.push_back(Vec3(sx * h.x(), sy * h.y(), sz * h.z()));
        owned->normals.push_back(Vec3(sx, sy, sz));
      }
  // Along each edge (parallel to `axis`), at the face cells' centres.
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (const double su : {-1.0, 1.0})
      for (const double sv : {-1.0, 1.0})
        for (int i = 0; i < n[axis]; ++i) {
          Vec3 p, normal = Vec3::Zero();
          p[axis] = -h[axis] + 2.0 * h[axis] * (i + 0.5) / n[axis];
          p[u] = su * h[u];
          p[v] = sv * h[v];
          normal[u] = su;
          normal[v] = sv;
          owned->points.push_back(p);
          owned->normals.push_back(normal);
        }
  }
  owned->tree = build_sphere_tree(owned->points);
  auto shell = std::make_shared<PenaltyShell>();
  shell->points = owned->points;
  shell->normals = owned->normals;
  shell->tree = &owned->tree;
  shell->spacing = spacing;
  shell->owner = std::move(owned);
  return shell;
}

}  // namespace

std::shared_ptr<const PenaltyShell> box_rim_shell(const Vec3& h, double spacing) {
  using Key = std::tuple<double, double, double, double>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const PenaltyShell>> cache;
  const Key key(h.x(), h.y(), h.z(), spacing);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  auto built = make_box_rim(h, spacing);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(built)).first->second;
}

Vec3 box_rim_normal(const Vec3& faces, const Vec3& g_b) {
  Vec3 best = Vec3::Zero();
  double most = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    if (faces[k] == 0.0) continue;
    Vec3 n = Vec3::Zero();
    n[k] = faces[k] > 0.0 ? 1.0 : -1.0;
    const double opposed = -n.dot(g_b);
    if (opposed > most) most = opposed, best = n;
  }
  return best;
}

void find_rim_points(const Shape& field, const Vec3& x_a, const Mat3& R_a, const Shape& box, const Vec3& x_b,
                     const Mat3& R_b, const PenaltyShell& faces, std::vector<PenetratingPoint>& out, double skin) {
  if (box.type != ShapeType::Box || field.type != ShapeType::Plane) return;
  thread_local std::vector<PenetratingPoint> found;
  find_penetrating_points(field, x_a, R_a, *box_rim_shell(box.half_extents, faces.spacing), x_b, R_b, found, skin);
  const Mat3 a_to_b = R_b.transpose() * R_a;
  for (PenetratingPoint p : found) {
    p.n_b = box_rim_normal(p.n_b, a_to_b * p.g_a);
    p.index += int(faces.size());
    out.push_back(p);
  }
}

}  // namespace cl::implicit_penalty
