#include "mesh/generate.h"

#include <cmath>
#include <numbers>

namespace cl {

TriangleMesh make_box(const Vec3& h, int n) {
  TriangleMesh m;
  if (n < 1 || !(h.minCoeff() > 0)) return m;
  // For each of the 6 faces: normal axis a, sign s; the face spans axes u, v with (u x v) = s e_a.
  for (int a = 0; a < 3; ++a)
    for (int s = -1; s <= 1; s += 2) {
      int u = (a + 1) % 3, v = (a + 2) % 3;
      if (s < 0) std::swap(u, v);
      const int base = (int)m.vertices.size();
      for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
          Vec3 p;
          p[a] = s * h[a];
          p[u] = h[u] * (-1.0 + 2.0 * i / n);
          p[v] = h[v] * (-1.0 + 2.0 * j / n);
          m.vertices.push_back(p);
        }
      auto id = [&](int i, int j) { return base + j * (n + 1) + i; };
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
          m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
        }
    }
  // weld the duplicated edge vertices so the mesh is closed
  std::vector<int> remap(m.vertices.size());
  std::vector<Vec3> unique;
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    int found = -1;
    const Vec3& p = m.vertices[i];
    const bool on_edge = (std::abs(std::abs(p.x()) - h.x()) < 1e-12 * h.x()) + (std::abs(std::abs(p.y()) - h.y()) < 1e-12 * h.y()) +
                             (std::abs(std::abs(p.z()) - h.z()) < 1e-12 * h.z()) >= 2;
    if (on_edge)
      for (size_t k = 0; k < unique.size(); ++k)
        if ((unique[k] - p).squaredNorm() == 0) {
          found = (int)k;
          break;
        }
    if (found < 0) {
      found = (int)unique.size();
      unique.push_back(p);
    }
    remap[i] = found;
  }
  for (auto& f : m.triangles)
    for (int& i : f) i = remap[i];
  m.vertices = std::move(unique);
  return m;
}

TriangleMesh make_uv_sphere(double r, int slices, int stacks) {
  TriangleMesh m;
  if (!(r > 0) || slices < 3 || stacks < 2) return m;
  const double pi = std::numbers::pi;
  m.vertices.push_back(Vec3(0, 0, r));  // north pole: 0
  for (int j = 1; j < stacks; ++j) {
    const double th = pi * j / stacks;
    for (int i = 0; i < slices; ++i) {
      const double ph = 2 * pi * i / slices;
      m.vertices.push_back(Vec3(r * std::sin(th) * std::cos(ph), r * std::sin(th) * std::sin(ph), r * std::cos(th)));
    }
  }
  const int south = (int)m.vertices.size();
  m.vertices.push_back(Vec3(0, 0, -r));
  auto id = [&](int j, int i) { return 1 + (j - 1) * slices + (i % slices); };  // ring j in 1..stacks-1
  for (int i = 0; i < slices; ++i) m.triangles.push_back({0, id(1, i), id(1, i + 1)});
  for (int j = 1; j + 1 < stacks; ++j)
    for (int i = 0; i < slices; ++i) {
      m.triangles.push_back({id(j, i), id(j + 1, i), id(j + 1, i + 1)});
      m.triangles.push_back({id(j, i), id(j + 1, i + 1), id(j, i + 1)});
    }
  for (int i = 0; i < slices; ++i) m.triangles.push_back({south, id(stacks - 1, i + 1), id(stacks - 1, i)});
  return m;
}

TriangleMesh make_torus(double R, double r, int major, int minor) {
  TriangleMesh m;
  if (!(r > 0) || !(R > r) || major < 3 || minor < 3) return m;
  const double pi = std::numbers::pi;
  for (int i = 0; i < major; ++i) {
    const double u = 2 * pi * i / major;
    for (int j = 0; j < minor; ++j) {
      const double v = 2 * pi * j / minor;
      const double rho = R + r * std::cos(v);
      m.vertices.push_back(Vec3(rho * std::cos(u), rho * std::sin(u), r * std::sin(v)));
    }
  }
  auto id = [&](int i, int j) { return (i % major) * minor + (j % minor); };
  for (int i = 0; i < major; ++i)
    for (int j = 0; j < minor; ++j) {
      // du x dv points outward for this parameterisation
      m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return m;
}

TriangleMesh make_cylinder(double r, double half_height, int segments) {
  TriangleMesh m;
  if (!(r > 0) || !(half_height > 0) || segments < 3) return m;
  const double pi = std::numbers::pi;
  // Vertex 2i on the bottom rim, 2i + 1 above it on the top rim; then the two cap centres.
  for (int i = 0; i < segments; ++i) {
    const double u = 2 * pi * i / segments;
    m.vertices.push_back(Vec3(r * std::cos(u), -half_height, r * std::sin(u)));
    m.vertices.push_back(Vec3(r * std::cos(u), half_height, r * std::sin(u)));
  }
  const int bottom = 2 * segments, top = bottom + 1;
  m.vertices.push_back(Vec3(0, -half_height, 0));
  m.vertices.push_back(Vec3(0, half_height, 0));
  for (int i = 0; i < segments; ++i) {
    const int b0 = 2 * i, t0 = b0 + 1, b1 = 2 * ((i + 1) % segments), t1 = b1 + 1;
    // With u turning from +x towards +z these windings face outwards (checked by the signed volume in tests).
    m.triangles.push_back({b0, t0, b1});
    m.triangles.push_back({t0, t1, b1});
    m.triangles.push_back({top, t1, t0});
    m.triangles.push_back({bottom, b0, b1});
  }
  return m;
}

TriangleMesh make_tetrahedron(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  TriangleMesh m;
  const double v6 = (b - a).cross(c - a).dot(d - a);
  if (!(std::abs(v6) > 0)) return m;
  m.vertices = {a, b, c, d};
  if (v6 > 0) m.triangles = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
  else m.triangles = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {0, 2, 3}};
  return m;
}

}  // namespace cl
