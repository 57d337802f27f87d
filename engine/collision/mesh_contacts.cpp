#include "collision/mesh_contacts.h"

#include <algorithm>
#include <cmath>

#include "collision/mesh_shape.h"

namespace cl {

namespace {

// A shape's signed distance in its body frame, with the outward unit normal (the normalised gradient); false
// if undefined.
bool signed_distance(const Shape& s, const Vec3& p, double& phi, Vec3& normal) {
  if (!shape_signed_distance(s, p, phi, normal)) return false;
  if (s.type == ShapeType::Mesh) normal /= normal.norm();  // the grid's raw gradient (the primitives' are unit)
  return true;
}

// Sample points of a shape in its body frame, each a sphere of the given radius (0 for surface points).
struct Sample {
  Vec3 point;
  double radius;
};

void samples_of(const Shape& s, std::vector<Sample>& out) {
  out.clear();
  switch (s.type) {
    case ShapeType::Plane: return;  // unbounded: only the other body's points are tested against it
    case ShapeType::Sphere: out.push_back({Vec3::Zero(), s.radius}); return;
    case ShapeType::Box: {
      // Corners, edge midpoints and face centres.
      const Vec3& h = s.half_extents;
      for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
          for (int z = -1; z <= 1; ++z)
            if (x || y || z) out.push_back({Vec3(x * h.x(), y * h.y(), z * h.z()), 0.0});
      return;
    }
    case ShapeType::Capsule:
      for (int i = 0; i <= 4; ++i) out.push_back({Vec3(0, s.half_height * (i / 2.0 - 1.0), 0), s.radius});
      return;
    case ShapeType::Mesh:
      for (const Vec3& p : s.mesh->points) out.push_back({p, 0.0});
      return;
  }
}

// The samples of body `from` against the signed distance of body `into`; normals of the output point from
// `into` towards `from` (flip = false) or the other way (flip = true). A mesh's points are visited through
// its sphere tree (thesis sect. 6.2.2): a ball whose centre is farther from `into` than its radius (times sqrt 3, the
// trilinear grid's worst slope, for mesh distances) plus the margin holds no contact and is skipped.
void test_samples(const Body& from, const Body& into, double margin, bool flip, uint32_t feature_base,
                  std::vector<ContactPointOut>& out) {
  const Mat3 rf = from.rotation(), ri = into.rotation();
  const Mat3 r = ri.transpose() * rf;                       // from's frame -> into's frame
  const Vec3 t = ri.transpose() * (from.position - into.position);
  auto test = [&](size_t index, const Vec3& point, double radius) {
    const Vec3 local = r * point + t;
    double phi;
    Vec3 n;
    if (!signed_distance(into.shape, local, phi, n)) return;
    phi -= radius;
    if (phi >= margin) return;
    const Vec3 n_world = ri * n;  // out of `into`, towards the sample
    const Vec3 x = from.position + rf * point - n_world * radius;
    out.push_back({x - n_world * (0.5 * phi), flip ? Vec3(n_world) : Vec3(-n_world), -phi, feature_base | uint32_t(index)});
  };

  if (from.shape.type == ShapeType::Mesh && !from.shape.mesh->tree.nodes.empty()) {
    const SphereTree& tree = from.shape.mesh->tree;
    const double slope = into.shape.type == ShapeType::Mesh ? 1.7321 : 1.0;
    thread_local std::vector<int> stack;
    stack.assign(1, 0);
    while (!stack.empty()) {
      const SphereTree::Node& node = tree.nodes[stack.back()];
      stack.pop_back();
      if (node.is_leaf()) {
        test(size_t(node.point), from.shape.mesh->points[node.point], 0.0);
        continue;
      }
      double phi;
      Vec3 n;
      if (signed_distance(into.shape, r * node.centre + t, phi, n) && phi > slope * node.radius + margin) continue;
      for (int c = 0; c < node.child_count; ++c) stack.push_back(node.first_child + c);
    }
    return;
  }
  thread_local std::vector<Sample> samples;
  samples_of(from.shape, samples);
  for (size_t i = 0; i < samples.size(); ++i) test(i, samples[i].point, samples[i].radius);
}

}  // namespace

void reduce_contacts(std::vector<ContactPointOut>& points, size_t first, int keep) {
  const size_t n = points.size() - first;
  if (n <= size_t(keep)) return;
  std::vector<ContactPointOut> candidates(points.begin() + first, points.end());
  std::vector<char> taken(n, 0);
  std::vector<size_t> chosen;
  size_t deepest = 0;
  for (size_t i = 1; i < n; ++i)
    if (candidates[i].depth > candidates[deepest].depth) deepest = i;
  chosen.push_back(deepest);
  taken[deepest] = 1;
  std::vector<double> distance(n, 1e300);
  while (chosen.size() < size_t(keep)) {
    const Vec3& last = candidates[chosen.back()].position;
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      if (taken[i]) continue;
      distance[i] = std::min(distance[i], (candidates[i].position - last).squaredNorm());
      if (best == n || distance[i] > distance[best]) best = i;
    }
    if (best == n) break;
    taken[best] = 1;
    chosen.push_back(best);
  }
  std::sort(chosen.begin(), chosen.end());
  points.resize(first);
  for (size_t i : chosen) points.push_back(candidates[i]);
}

void collide_with_mesh(const Body& a, const Body& b, double margin, std::vector<ContactPointOut>& out) {
  const size_t first = out.size();
  // a's points against b's distance (normal out of b, flipped to a -> b), and b's against a's.
  test_samples(a, b, margin, false, 0u, out);
  test_samples(b, a, margin, true, 1u << 20, out);
  // Sample order, not tree order, so the reduction (which breaks ties by order) does not depend on the walk.
  std::sort(out.begin() + first, out.end(), [](const auto& x, const auto& y) { return x.feature < y.feature; });
  reduce_contacts(out, first, kMaxMeshContacts);
}

}  // namespace cl
