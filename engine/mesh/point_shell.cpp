#include "mesh/point_shell.h"

#include <limits>

#include "mesh/bvh.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>

namespace cl {

namespace {
std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double uniform01(std::uint64_t& s) { return double(splitmix64(s) >> 11) * 0x1.0p-53; }

}  // namespace

PointShell vertex_point_shell(const TriangleMesh& mesh) {
  std::vector<Vec3> n(mesh.vertices.size(), Vec3::Zero());
  for (int t = 0; t < (int)mesh.triangles.size(); ++t) {
    const Vec3 an = mesh.area_normal(t);
    for (int v : mesh.triangles[t]) n[v] += an;
  }
  PointShell s;
  for (size_t i = 0; i < n.size(); ++i) {
    const double l = n[i].norm();
    if (!(l > 0)) continue;
    s.points.push_back(mesh.vertices[i]);
    s.normals.push_back(n[i] / l);
  }
  return s;
}

PointShell poisson_point_shell(const TriangleMesh& mesh, double spacing, std::uint64_t seed,
                               double candidates_per_area) {
  PointShell s;
  if (mesh.empty() || !(spacing > 0)) return s;
  const int nt = (int)mesh.triangles.size();
  std::vector<double> cdf(nt);
  double total = 0;
  for (int t = 0; t < nt; ++t) cdf[t] = total += mesh.area(t);
  if (!(total > 0)) return s;
  const double want = std::ceil(std::max(1.0, candidates_per_area) * total / (spacing * spacing));
  const long long count = (long long)std::min(want, 2e7);
  std::uint64_t state = seed;
  const double cell = spacing;
  std::unordered_map<std::uint64_t, std::vector<int>> grid;
  auto cell_of = [&](const Vec3& p, int k) { return (long long)std::floor(p[k] / cell); };
  auto key = [](long long x, long long y, long long z) {
    return (std::uint64_t(x & 0x1FFFFF) << 42) | (std::uint64_t(y & 0x1FFFFF) << 21) | std::uint64_t(z & 0x1FFFFF);
  };
  const double s2 = spacing * spacing;
  for (long long i = 0; i < count; ++i) {
    const double r = uniform01(state) * total;
    const int t = std::min<int>(nt - 1, (int)(std::upper_bound(cdf.begin(), cdf.end(), r) - cdf.begin()));
    double u = uniform01(state), v = uniform01(state);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    const auto& f = mesh.triangles[t];
    const Vec3 p = mesh.vertices[f[0]] + u * (mesh.vertices[f[1]] - mesh.vertices[f[0]]) +
                   v * (mesh.vertices[f[2]] - mesh.vertices[f[0]]);
    const long long cx = cell_of(p, 0), cy = cell_of(p, 1), cz = cell_of(p, 2);
    bool ok = true;
    for (long long dx = -1; dx <= 1 && ok; ++dx)
      for (long long dy = -1; dy <= 1 && ok; ++dy)
        for (long long dz = -1; dz <= 1 && ok; ++dz) {
          const auto it = grid.find(key(cx + dx, cy + dy, cz + dz));
          if (it == grid.end()) continue;
          for (int j : it->second)
            if ((s.points[j] - p).squaredNorm() < s2) {
              ok = false;
              break;
            }
        }
    if (!ok) continue;
    grid[key(cx, cy, cz)].push_back((int)s.points.size());
    s.points.push_back(p);
    s.normals.push_back(mesh.normal(t));
  }
  return s;
}

PointShell thesis_point_shell(const TriangleMesh& mesh, double spacing, double coplanar_angle_deg,
                              double face_area_factor) {
  PointShell s;
  if (mesh.empty()) return s;
  const int nt = (int)mesh.triangles.size();
  const int nv = (int)mesh.vertices.size();
  const double cos_tol = std::cos(coplanar_angle_deg * std::numbers::pi / 180.0);
  std::vector<Vec3> fn(nt);
  for (int t = 0; t < nt; ++t) fn[t] = mesh.normal(t);
  struct Edge {
    int a, b, t0 = -1, t1 = -1, count = 0;
  };
  std::unordered_map<std::uint64_t, Edge> edges;
  std::vector<std::uint64_t> edge_order;  // deterministic iteration order
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = mesh.triangles[t][k], b = mesh.triangles[t][(k + 1) % 3];
      const auto kk = undirected_edge_key(a, b);
      auto [it, fresh] = edges.try_emplace(kk, Edge{std::min(a, b), std::max(a, b)});
      if (fresh) edge_order.push_back(kk);
      Edge& e = it->second;
      (e.count == 0 ? e.t0 : e.t1) = t;
      ++e.count;
    }
  auto sharp = [&](const Edge& e) { return e.count != 2 || fn[e.t0].dot(fn[e.t1]) < cos_tol; };
  // angle-weighted vertex normals
  std::vector<Vec3> vn(nv, Vec3::Zero());
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const auto& f = mesh.triangles[t];
      const Vec3 e1 = mesh.vertices[f[(k + 1) % 3]] - mesh.vertices[f[k]];
      const Vec3 e2 = mesh.vertices[f[(k + 2) % 3]] - mesh.vertices[f[k]];
      const double l = e1.norm() * e2.norm();
      if (l > 0) vn[f[k]] += std::acos(std::clamp(e1.dot(e2) / l, -1.0, 1.0)) * fn[t];
    }
  // 1. vertices on sharp edges
  std::vector<char> keep(nv, 0);
  for (auto kk : edge_order) {
    const Edge& e = edges[kk];
    if (sharp(e)) keep[e.a] = keep[e.b] = 1;
  }
  for (int i = 0; i < nv; ++i)
    if (keep[i] && vn[i].norm() > 0) {
      s.points.push_back(mesh.vertices[i]);
      s.normals.push_back(vn[i].normalized());
    }
  // 2. edge samples
  if (spacing > 0)
    for (auto kk : edge_order) {
      const Edge& e = edges[kk];
      if (!sharp(e)) continue;
      const Vec3 &pa = mesh.vertices[e.a], &pb = mesh.vertices[e.b];
      const double len = (pb - pa).norm();
      if (!(len > spacing)) continue;
      Vec3 n = fn[e.t0] + (e.count == 2 ? fn[e.t1] : Vec3::Zero());
      if (!(n.norm() > 0)) continue;
      n.normalize();
      const int m = (int)std::ceil(len / spacing);
      for (int i = 1; i < m; ++i) {
        s.points.push_back(pa + (pb - pa) * (double(i) / m));
        s.normals.push_back(n);
      }
    }
  // 3. coplanar regions
  if (spacing > 0) {
    std::vector<int> region(nt, -1);
    for (int seed = 0; seed < nt; ++seed) {
      if (region[seed] >= 0) continue;
      region[seed] = seed;
      std::vector<int> stack{seed}, members;
      while (!stack.empty()) {
        const int t = stack.back();
        stack.pop_back();
        members.push_back(t);
        for (int k = 0; k < 3; ++k) {
          const Edge& e = edges[undirected_edge_key(mesh.triangles[t][k], mesh.triangles[t][(k + 1) % 3])];
          if (sharp(e)) continue;
          const int o = e.t0 == t ? e.t1 : e.t0;
          // stay within the tolerance of the seed's plane, so slowly curving surfaces do not form one region
          if (region[o] < 0 && fn[o].dot(fn[seed]) >= cos_tol) {
            region[o] = seed;
            stack.push_back(o);
          }
        }
      }
      double area = 0;
      Vec3 an(0, 0, 0);
      std::vector<int> verts;
      for (int t : members) {
        area += mesh.area(t);
        an += mesh.area_normal(t);
        for (int v : mesh.triangles[t]) verts.push_back(v);
      }
      if (!(area > face_area_factor * spacing * spacing) || !(an.norm() > 0)) continue;
      std::sort(verts.begin(), verts.end());
      verts.erase(std::unique(verts.begin(), verts.end()), verts.end());
      Vec3 c(0, 0, 0);
      for (int v : verts) c += mesh.vertices[v];
      c /= double(verts.size());
      // The vertex average of a region that is not convex (a face with a hole, such as the top of a block
      // with a threaded hole) can lie off the region, even inside another body's place: keep the sample on
      // the surface by moving it to the region's closest point.
      Vec3 best = c;
      double best_d = std::numeric_limits<double>::infinity();
      for (int t : members) {
        const auto& tri = mesh.triangles[t];
        const Vec3 q = closest_point_on_triangle(c, mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]], nullptr, nullptr);
        const double d = (q - c).squaredNorm();
        if (d < best_d) {
          best_d = d;
          best = q;
        }
      }
      s.points.push_back(best);
      s.normals.push_back(an.normalized());
    }
  }
  return s;
}

void ritter_ball(const std::vector<Vec3>& points, const std::vector<int>& indices, Vec3& centre, double& radius) {
  const int n = indices.empty() ? (int)points.size() : (int)indices.size();
  auto at = [&](int i) -> const Vec3& { return indices.empty() ? points[i] : points[indices[i]]; };
  if (n == 0) {
    centre.setZero();
    radius = -1;
    return;
  }
  // farthest from the first, then farthest from that: initial diameter
  const Vec3& p0 = at(0);
  int a = 0;
  for (int i = 1; i < n; ++i)
    if ((at(i) - p0).squaredNorm() > (at(a) - p0).squaredNorm()) a = i;
  int b = a;
  for (int i = 0; i < n; ++i)
    if ((at(i) - at(a)).squaredNorm() > (at(b) - at(a)).squaredNorm()) b = i;
  centre = 0.5 * (at(a) + at(b));
  radius = 0.5 * (at(b) - at(a)).norm();
  for (int i = 0; i < n; ++i) {
    const double d = (at(i) - centre).norm();
    if (d > radius) {
      const double nr = 0.5 * (radius + d);
      centre += (at(i) - centre) * ((nr - radius) / d);
      radius = nr;
    }
  }
  // make containment exact despite rounding
  double r = radius;
  for (int i = 0; i < n; ++i) r = std::max(r, (at(i) - centre).norm());
  radius = r * (1 + 1e-12) + 1e-300;
}

namespace {
void build_node(const std::vector<Vec3>& pts, std::vector<int> idx, SphereTree& tree, int id) {
  Vec3 c;
  double r;
  ritter_ball(pts, idx, c, r);
  tree.nodes[id].centre = c;
  tree.nodes[id].radius = r;
  if (idx.size() == 1) {
    tree.nodes[id].point = idx[0];
    tree.nodes[id].radius = 0;
    tree.nodes[id].centre = pts[idx[0]];
    return;
  }
  std::vector<std::vector<int>> groups;
  if (idx.size() <= 8) {
    for (int i : idx) groups.push_back({i});
  } else {
    Vec3 mean(0, 0, 0);
    for (int i : idx) mean += pts[i];
    mean /= double(idx.size());
    std::vector<int> oct[8];
    for (int i : idx) {
      const Vec3 d = pts[i] - mean;
      oct[(d.x() > 0) | ((d.y() > 0) << 1) | ((d.z() > 0) << 2)].push_back(i);
    }
    for (auto& o : oct)
      if (!o.empty()) groups.push_back(std::move(o));
    if (groups.size() == 1) {  // coincident points: split in halves
      std::vector<int> all = std::move(groups[0]);
      groups.clear();
      groups.emplace_back(all.begin(), all.begin() + all.size() / 2);
      groups.emplace_back(all.begin() + all.size() / 2, all.end());
    }
  }
  const int first = (int)tree.nodes.size();
  tree.nodes[id].first_child = first;
  tree.nodes[id].child_count = (int)groups.size();
  tree.nodes.resize(tree.nodes.size() + groups.size());
  for (size_t g = 0; g < groups.size(); ++g) build_node(pts, std::move(groups[g]), tree, first + (int)g);
}
}  // namespace

SphereTree build_sphere_tree(const std::vector<Vec3>& points) {
  SphereTree tree;
  if (points.empty()) return tree;
  std::vector<int> idx(points.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = (int)i;
  tree.nodes.resize(1);
  build_node(points, std::move(idx), tree, 0);
  return tree;
}

}  // namespace cl
