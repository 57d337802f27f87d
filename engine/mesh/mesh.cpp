#include "mesh/mesh.h"
#include "core/text.h"
#include "mesh/triangle.h"
#include "mesh/triangulate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include <tiny_obj_loader.h>

// real_t must be double here and in the library: the float and double builds of tinyobjloader have the same symbols
// with different struct layouts. CMake links tinyobjloader::tinyobjloader_double, which defines this.
#ifndef TINYOBJLOADER_USE_DOUBLE
#error "link tinyobjloader::tinyobjloader_double (it defines TINYOBJLOADER_USE_DOUBLE)"
#endif

namespace cl {

Vec3 TriangleMesh::area_normal(int t) const {
  const auto& f = triangles[t];
  const Vec3& a = vertices[f[0]];
  return (vertices[f[1]] - a).cross(vertices[f[2]] - a);
}

Vec3 TriangleMesh::normal(int t) const {
  const Vec3 n = area_normal(t);
  const double l = n.norm();
  return l > 0 ? Vec3(n / l) : Vec3(0, 0, 0);
}

double TriangleMesh::area(int t) const { return 0.5 * area_normal(t).norm(); }

double TriangleMesh::surface_area() const {
  double s = 0;
  for (int t = 0; t < (int)triangles.size(); ++t) s += area(t);
  return s;
}

Aabb TriangleMesh::bounds() const {
  Aabb b;
  if (vertices.empty()) return b;
  b.lo = b.hi = vertices[0];
  for (const Vec3& v : vertices) {
    b.lo = b.lo.cwiseMin(v);
    b.hi = b.hi.cwiseMax(v);
  }
  return b;
}

bool TriangleMesh::convex() const {
  if (triangles.empty()) return false;
  const Aabb box = bounds();
  const double tolerance = 1e-6 * (box.hi - box.lo).norm();
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Vec3 n = normal(int(t));
    if (n.isZero(0.0)) continue;
    const double d = n.dot(vertices[size_t(triangles[t][0])]);
    for (const Vec3& v : vertices)
      if (n.dot(v) - d > tolerance) return false;
  }
  return true;
}

namespace {

// Undirected edge -> incident (triangle, local edge) list.
struct EdgeUse {
  int count = 0;
  int t0 = -1, k0 = -1, t1 = -1, k1 = -1;
};

std::unordered_map<std::uint64_t, EdgeUse> build_edges(const TriangleMesh& m) {
  std::unordered_map<std::uint64_t, EdgeUse> edges;
  edges.reserve(m.triangles.size() * 2);
  for (int t = 0; t < (int)m.triangles.size(); ++t) {
    const auto& f = m.triangles[t];
    for (int k = 0; k < 3; ++k) {
      if (f[k] == f[(k + 1) % 3]) continue;
      EdgeUse& e = edges[undirected_edge_key(f[k], f[(k + 1) % 3])];
      if (e.count == 0) {
        e.t0 = t;
        e.k0 = k;
      } else if (e.count == 1) {
        e.t1 = t;
        e.k1 = k;
      }
      ++e.count;
    }
  }
  return edges;
}

// Is the directed edge k of triangle t (f[k] -> f[k+1]) the same direction as edge k2 of triangle t2?
bool same_direction(const TriangleMesh& m, int t, int k, int t2, int k2) {
  return m.triangles[t][k] == m.triangles[t2][k2];
}

double signed_volume_of(const TriangleMesh& m, const std::vector<int>* subset = nullptr) {
  double v6 = 0;
  auto add = [&](int t) {
    const auto& f = m.triangles[t];
    v6 += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]]));
  };
  if (subset)
    for (int t : *subset) add(t);
  else
    for (int t = 0; t < (int)m.triangles.size(); ++t) add(t);
  return v6 / 6.0;
}

bool degenerate(const TriangleMesh& m, int t, double area_tol) {
  const auto& f = m.triangles[t];
  if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2]) return true;
  return m.area_normal(t).norm() <= area_tol;
}

double degenerate_tolerance(const TriangleMesh& m) {
  const Aabb b = m.bounds();
  const double d = (b.hi - b.lo).norm();
  return 2e-12 * d * d;
}

void flip(std::array<int, 3>& f) { std::swap(f[1], f[2]); }

}  // namespace

MeshValidation validate_mesh(const TriangleMesh& mesh) {
  MeshValidation r;
  const int nv = (int)mesh.vertices.size();
  const int nt = (int)mesh.triangles.size();
  r.empty_mesh = nt == 0;
  if (r.empty_mesh) r.problems.push_back("the mesh has no triangles");
  for (const Vec3& v : mesh.vertices)
    if (!all_finite(v)) ++r.non_finite_vertices;
  if (r.non_finite_vertices) r.problems.push_back(std::to_string(r.non_finite_vertices) + " vertices with NaN or infinite coordinates");
  std::vector<char> used(nv, 0);
  bool indices_ok = true;
  for (const auto& f : mesh.triangles) {
    bool bad = false;
    for (int i : f) {
      if (i < 0 || i >= nv) bad = true;
      else used[i] = 1;
    }
    if (bad) ++r.bad_indices;
  }
  if (r.bad_indices) {
    r.problems.push_back(std::to_string(r.bad_indices) + " triangles with vertex indices out of range");
    indices_ok = false;
  }
  r.unreferenced_vertices = (int)std::count(used.begin(), used.end(), 0);
  if (!indices_ok) return r;
  const double tol = degenerate_tolerance(mesh);
  for (int t = 0; t < nt; ++t)
    if (degenerate(mesh, t, tol)) ++r.degenerate_triangles;
  if (r.degenerate_triangles) r.problems.push_back(std::to_string(r.degenerate_triangles) + " degenerate triangles");
  const auto edges = build_edges(mesh);
  for (const auto& [key, e] : edges) {
    if (e.count == 1) ++r.boundary_edges;
    else if (e.count > 2) ++r.non_manifold_edges;
    else if (same_direction(mesh, e.t0, e.k0, e.t1, e.k1)) ++r.inconsistent_edges;
  }
  if (r.boundary_edges) r.problems.push_back("open: " + std::to_string(r.boundary_edges) + " boundary edges");
  if (r.non_manifold_edges)
    r.problems.push_back("non-manifold: " + std::to_string(r.non_manifold_edges) + " edges shared by more than two triangles");
  if (r.inconsistent_edges)
    r.problems.push_back("inconsistent orientation: " + std::to_string(r.inconsistent_edges) + " edges");
  // Components by union-find over shared edges.
  std::vector<int> parent(nt);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [key, e] : edges)
    if (e.count >= 2) parent[find(e.t0)] = find(e.t1);
  for (int t = 0; t < nt; ++t)
    if (find(t) == t) ++r.components;
  if (r.non_finite_vertices == 0) r.signed_volume = signed_volume_of(mesh);
  if (r.closed() && r.inconsistent_edges == 0 && nt > 0 && r.non_finite_vertices == 0 && !(r.signed_volume > 0))
    r.problems.push_back("inside-out: the signed volume is not positive");
  return r;
}

int orient_mesh(TriangleMesh& m, bool* non_orientable) {
  if (non_orientable) *non_orientable = false;
  const int nt = (int)m.triangles.size();
  const auto edges = build_edges(m);
  // adjacency over manifold edges: for triangle t, edge k -> (t2, k2)
  std::vector<std::array<std::pair<int, int>, 3>> adj(nt);
  for (auto& a : adj) a.fill({-1, -1});
  for (const auto& [key, e] : edges)
    if (e.count == 2) {
      adj[e.t0][e.k0] = {e.t1, e.k1};
      adj[e.t1][e.k1] = {e.t0, e.k0};
    }
  std::vector<int> comp(nt, -1);
  std::vector<char> flipped(nt, 0);  // relative to the original
  std::vector<std::vector<int>> comps;
  int flips = 0;
  for (int s = 0; s < nt; ++s) {
    if (comp[s] >= 0) continue;
    const int c = (int)comps.size();
    comps.emplace_back();
    std::vector<int> stack{s};
    comp[s] = c;
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      comps[c].push_back(t);
      for (int k = 0; k < 3; ++k) {
        const auto [t2, k2] = adj[t][k];
        if (t2 < 0) continue;
        // after current flips, do t and t2 traverse the shared edge in opposite directions?
        const int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
        const auto& f2 = m.triangles[t2];
        int j = 0;
        while (j < 3 && !(f2[j] == b && f2[(j + 1) % 3] == a) && !(f2[j] == a && f2[(j + 1) % 3] == b)) ++j;
        const bool consistent = f2[j] == b;
        if (comp[t2] < 0) {
          comp[t2] = c;
          if (!consistent) {
            flip(m.triangles[t2]);
            flipped[t2] ^= 1;
            ++flips;
            // adjacency local indices of t2 changed: recompute its row
            auto& f = m.triangles[t2];
            std::array<std::pair<int, int>, 3> row;
            row.fill({-1, -1});
            for (int kk = 0; kk < 3; ++kk) {
              const int aa = f[kk], bb = f[(kk + 1) % 3];
              for (int k3 = 0; k3 < 3; ++k3) {
                const auto [tn, kn] = adj[t2][k3];
                if (tn < 0) continue;
                const auto& fn = m.triangles[tn];
                const int x = fn[kn], y = fn[(kn + 1) % 3];
                if ((x == aa && y == bb) || (x == bb && y == aa)) row[kk] = adj[t2][k3];
              }
            }
            adj[t2] = row;
            // neighbours' back pointers refer to local edge indices of t2; fix them
            for (int kk = 0; kk < 3; ++kk)
              if (row[kk].first >= 0) adj[row[kk].first][row[kk].second] = {t2, kk};
          }
          stack.push_back(t2);
        } else if (!consistent) {
          if (non_orientable) *non_orientable = true;
        }
      }
    }
  }
  // Outward: each closed component's sign must match its nesting depth (even: positive volume).
  const int nc = (int)comps.size();
  std::vector<char> closed(nc, 1);
  for (const auto& [key, e] : edges)
    if (e.count != 2) closed[comp[e.t0]] = 0;
  std::vector<double> vol(nc);
  for (int c = 0; c < nc; ++c) vol[c] = signed_volume_of(m, &comps[c]);
  auto flip_comp = [&](int c) {
    for (int t : comps[c]) flip(m.triangles[t]), flipped[t] ^= 1;
    vol[c] = -vol[c];
  };
  if (nc <= 64) {
    std::vector<int> depth(nc, 0);
    for (int c = 0; c < nc; ++c) {
      if (!closed[c]) continue;
      const Vec3& p = m.vertices[m.triangles[comps[c][0]][0]];
      for (int d = 0; d < nc; ++d) {
        if (d == c || !closed[d]) continue;
        double w = 0;
        for (int t : comps[d]) {
          const auto& f = m.triangles[t];
          w += triangle_solid_angle(p, m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]]);
        }
        if (std::abs(w) / (4 * std::numbers::pi) > 0.5) ++depth[c];
      }
    }
    for (int c = 0; c < nc; ++c)
      if (closed[c] && ((depth[c] % 2 == 0) != (vol[c] > 0)) && vol[c] != 0) flip_comp(c);
  } else if (signed_volume_of(m) < 0) {
    for (int c = 0; c < nc; ++c)
      if (closed[c]) flip_comp(c);
  }
  flips = (int)std::count(flipped.begin(), flipped.end(), 1);
  return flips;
}

Vec3 recentre(TriangleMesh& mesh) {
  // Volume centroid by the divergence theorem (exact for a closed mesh).
  double v6 = 0;
  Vec3 c(0, 0, 0);
  double area = 0;
  Vec3 ac(0, 0, 0);
  for (int t = 0; t < (int)mesh.triangles.size(); ++t) {
    const auto& f = mesh.triangles[t];
    const Vec3 &a = mesh.vertices[f[0]], &b = mesh.vertices[f[1]], &d = mesh.vertices[f[2]];
    const double w = a.dot(b.cross(d));
    v6 += w;
    c += w * (a + b + d);
    const double ar = mesh.area(t);
    area += ar;
    ac += ar * (a + b + d) / 3.0;
  }
  Vec3 com(0, 0, 0);
  if (v6 > 0) com = c / (4.0 * v6);
  else if (area > 0) com = ac / area;
  for (Vec3& v : mesh.vertices) v -= com;
  return -com;
}

void scale_mesh(TriangleMesh& mesh, double s) { scale_mesh(mesh, Vec3(s, s, s)); }

void scale_mesh(TriangleMesh& mesh, const Vec3& s) {
  for (Vec3& v : mesh.vertices) v = v.cwiseProduct(s);
  if (s.x() * s.y() * s.z() < 0)
    for (auto& f : mesh.triangles) flip(f);
}

void transform_mesh(TriangleMesh& mesh, const Quat& rotation, const Vec3& translation) {
  const Mat3 r = rotation.normalized().toRotationMatrix();
  for (Vec3& v : mesh.vertices) v = r * v + translation;
}

// ---------------------------------------------------------------------------------------------------------------
// Loading

namespace {

struct Parsed {
  TriangleMesh mesh;
  std::vector<int> vertex_lines;    // source line of each vertex
  std::vector<int> triangle_lines;  // source line of each triangle
};

std::string where(const std::string& name, int line) { return name + ":" + std::to_string(line) + ": "; }

bool parse_double(std::string_view s, double& out) {
  // from_chars does not accept a leading '+'
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  // accept nan / inf spellings so that they are reported as non-finite rather than as syntax errors
  std::string low(s);
  for (char& ch : low) ch = (char)std::tolower((unsigned char)ch);
  if (low == "nan" || low == "-nan") { out = std::numeric_limits<double>::quiet_NaN(); return true; }
  if (low == "inf" || low == "infinity") { out = std::numeric_limits<double>::infinity(); return true; }
  if (low == "-inf" || low == "-infinity") { out = -std::numeric_limits<double>::infinity(); return true; }
  const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
  if (res.ec == std::errc::result_out_of_range) { out = s[0] == '-' ? -HUGE_VAL : HUGE_VAL; return true; }
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

bool parse_int(std::string_view s, long long& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace((unsigned char)s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Splits text into lines (handles \n, \r\n, \r), returning (line number, content without comment).
std::vector<std::pair<int, std::string>> logical_lines(const std::string& text, bool obj_continuations) {
  std::vector<std::pair<int, std::string>> out;
  int line = 0;
  size_t i = 0;
  std::string pending;
  int pending_line = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && text[j] != '\n' && text[j] != '\r') ++j;
    std::string s = text.substr(i, j - i);
    ++line;
    if (j < text.size() && text[j] == '\r' && j + 1 < text.size() && text[j + 1] == '\n') ++j;
    i = j + 1;
    const size_t hash = s.find('#');
    if (hash != std::string::npos) s.resize(hash);
    if (pending.empty()) pending_line = line;
    if (obj_continuations && !s.empty() && s.back() == '\\') {
      s.pop_back();
      pending += s + " ";
      continue;
    }
    pending += s;
    out.emplace_back(pending_line, std::move(pending));
    pending.clear();
  }
  if (!pending.empty()) out.emplace_back(pending_line, std::move(pending));
  return out;
}

// Triangulates a face of the file's line `line` into p's triangles, each noted with that line; "" or why not.
std::string add_polygon(Parsed& p, const std::vector<int>& corners, int line) {
  const size_t before = p.mesh.triangles.size();
  std::string why = triangulate_polygon(p.mesh.vertices, corners, p.mesh.triangles);
  p.triangle_lines.insert(p.triangle_lines.end(), p.mesh.triangles.size() - before, line);
  return why;
}

// OBJ: tinyobjloader (Debian's libtinyobjloader-dev, 2.0.0~rc10, its double-precision library) reads the vertex
// statements; the faces are read here, because the loader promises errors that name the file and the line and
// tinyobjloader wraps out-of-range indices into valid ones (99999999999999999999 and 4294967295 act as the
// last vertex) and triangulates in time quadratic in a polygon's corners (a 200,000-sided face ran past a
// minute). One pass over the statements (comments stripped, `\` continuation lines joined) rejects unknown
// statements, faces with fewer than 3 vertices and vertices whose coordinates are not finite numbers
// (tinyobjloader reads "nan" or "1,5" as 0 without a word), reads every face's v, v/vt, v//vn or v/vt/vn corners
// (negative indices count back from the last vertex so far) and notes the line of every vertex and face;
// tinyobjloader gets only the `v` statements, each on its original line. Then every index is checked against
// the vertex count and each polygon is triangulated (triangulate.h), its triangles keeping the face's line.
struct ObjFace {
  int line;
  size_t first, count;  // its corners in the flat list of corner indices
};

// One corner "v", "v/vt", "v//vn" or "v/vt/vn" of a face: its vertex index, 0-based; relative (negative)
// indices are resolved against the `so_far` vertices read before the face. An index past the end is left for
// the caller to report once every vertex is known. Returns "" or what is wrong.
std::string read_obj_corner(std::string_view t, long long so_far, long long& index) {
  size_t start = 0;
  for (int part = 0; part < 3; ++part) {
    const size_t slash = t.find('/', start);
    const std::string_view s = t.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part == 0 || !s.empty()) {  // v//vn leaves the texture index empty
      long long i;
      if (!parse_int(s, i)) {
        const bool digits = !s.empty() && std::all_of(s.begin() + (s[0] == '-' || s[0] == '+'), s.end(),
                                                       [](char c) { return std::isdigit((unsigned char)c); });
        if (digits && part == 0) return "face index '" + std::string(s) + "' out of range";
        return "bad face index '" + std::string(t) + "'";
      }
      if (i == 0)
        return part == 0 ? std::string("face index 0 (OBJ indices start at 1)")
                         : "texture or normal index 0 in '" + std::string(t) + "' (OBJ indices start at 1)";
      if (part == 0) {
        if (i < 0) {
          if (-i > so_far)
            return "relative face index before the first vertex (" + std::to_string(i) + " with " +
                   std::to_string(so_far) + " vertices so far)";
          index = so_far + i;
        } else {
          index = i - 1;
        }
      }
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return {};
}

// tinyobjloader's error ("Failed parse `v' line ... line 2.)") with the file's line.
std::string tinyobj_error(const std::string& err, const std::string& name) {
  std::string msg = err.substr(0, err.find('\n'));
  if (msg.empty()) msg = "could not parse the file";
  int line = 0;
  const size_t at = msg.rfind("line ");
  if (at != std::string::npos) {
    long long l;
    size_t e = at + 5;
    while (e < msg.size() && std::isdigit((unsigned char)msg[e])) ++e;
    if (parse_int(std::string_view(msg).substr(at + 5, e - at - 5), l) && l > 0 && l <= std::numeric_limits<int>::max()) line = (int)l;
  }
  if (line == 0) return name + ": tinyobjloader: " + msg;
  return where(name, line) + "tinyobjloader: " + msg;
}

std::string parse_obj(const std::string& text, const std::string& name, Parsed& p, std::vector<std::string>& warnings) {
  std::string geometry;  // the v statements, for tinyobjloader, each on its line of the file
  geometry.reserve(text.size());
  int geometry_lines = 1;  // line that the next statement appended to `geometry` starts
  std::vector<ObjFace> faces;
  std::vector<long long> corners;
  int ignored_lines = 0, first_ignored = 0;
  std::string first_ignored_kw;
  bool seen_statement = false;
  for (const auto& [line, s] : logical_lines(text, true)) {
    const auto tok = split_ws(s);
    if (tok.empty()) continue;
    const bool first_statement = !seen_statement;
    seen_statement = true;
    if (tok[0] == "v") {
      if (tok.size() < 4) return where(name, line) + "vertex needs 3 coordinates";
      for (int k = 1; k <= 3; ++k) {
        double x;
        if (!parse_double(tok[k], x)) return where(name, line) + "bad vertex coordinate '" + std::string(tok[k]) + "'";
        if (!std::isfinite(x)) return where(name, line) + "vertex with NaN or infinite coordinate";
      }
      p.vertex_lines.push_back(line);
      for (; geometry_lines < line; ++geometry_lines) geometry += '\n';
      geometry.append(s);
      geometry += '\n';
      ++geometry_lines;
    } else if (tok[0] == "f" || tok[0] == "fo") {
      if (tok.size() < 4) return where(name, line) + "face needs at least 3 vertices";
      faces.push_back({line, corners.size(), tok.size() - 1});
      for (size_t k = 1; k < tok.size(); ++k) {
        long long index = 0;
        const std::string why = read_obj_corner(tok[k], (long long)p.vertex_lines.size(), index);
        if (!why.empty()) return where(name, line) + why;
        corners.push_back(index);
      }
    } else {
      static const char* known[] = {"vt", "vn", "vp", "g", "o", "s", "usemtl", "mtllib", "l", "p", "mg", "usemap",
                                    "maplib", "cstype", "deg", "curv", "curv2", "surf", "parm", "trim", "hole",
                                    "end", "bmat", "step", "con", "sp", "shadow_obj", "trace_obj", "ctech", "stech",
                                    "lod", "bevel", "c_interp", "d_interp"};
      bool ok = false;
      for (const char* kw : known) ok = ok || tok[0] == kw;
      // Before any OBJ statement the file is not taken for a mesh, and its bytes are not quoted: a scene naming
      // a file that is not one learns nothing of what it holds.
      if (!ok && first_statement) return where(name, line) + "not a Wavefront OBJ file: its first statement is no OBJ statement";
      if (!ok) return where(name, line) + "unknown OBJ statement '" + std::string(tok[0]) + "'";
      if (tok[0] == "l" || tok[0] == "p" || tok[0] == "curv" || tok[0] == "surf") {
        if (ignored_lines++ == 0) first_ignored = line, first_ignored_kw = std::string(tok[0]);
      }
    }
  }
  if (ignored_lines)
    warnings.push_back(where(name, first_ignored) + "ignored " + std::to_string(ignored_lines) +
                       " non-face elements (first: '" + first_ignored_kw + "')");

  // tinyobjloader's warnings are left out: they concern materials, which we do not read.
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(geometry, "", config)) return tinyobj_error(reader.Error(), name);
  const std::vector<tinyobj::real_t>& xyz = reader.GetAttrib().vertices;
  const long long nv = (long long)p.vertex_lines.size();
  if ((long long)xyz.size() != 3 * nv)
    return name + ": tinyobjloader read " + std::to_string(xyz.size() / 3) + " vertices, the file has " + std::to_string(nv);
  p.mesh.vertices.reserve(size_t(nv));
  for (long long i = 0; i < nv; ++i) {
    const Vec3 v(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    if (!all_finite(v)) return where(name, p.vertex_lines[size_t(i)]) + "vertex with NaN or infinite coordinate";
    p.mesh.vertices.push_back(v);
  }
  std::vector<int> polygon;
  for (const ObjFace& f : faces) {
    polygon.clear();
    for (size_t k = 0; k < f.count; ++k) {
      const long long i = corners[f.first + k];
      if (i >= nv)
        return where(name, f.line) + "face index " + std::to_string(i + 1) + " out of range (" + std::to_string(nv) +
               " vertices)";
      polygon.push_back(int(i));
    }
    if (std::string why = add_polygon(p, polygon, f.line); !why.empty()) return where(name, f.line) + why;
  }
  return {};
}

std::string parse_off(const std::string& text, const std::string& name, Parsed& p) {
  const auto lines = logical_lines(text, false);
  size_t li = 0;
  auto next = [&]() -> const std::pair<int, std::string>* {
    while (li < lines.size() && split_ws(lines[li].second).empty()) ++li;
    return li < lines.size() ? &lines[li++] : nullptr;
  };
  const auto* hdr = next();
  if (!hdr) return name + ": empty file";
  auto tok = split_ws(hdr->second);
  std::string kw(tok[0]);
  if (kw.size() < 3 || kw.substr(kw.size() - 3) != "OFF")
    return where(name, hdr->first) + "not an OFF file (its first word is no OFF header)";
  if (kw.find("4") != std::string::npos || kw.find("n") == 0)
    return where(name, hdr->first) + "unsupported OFF variant '" + kw + "'";
  const bool has_normals = kw.find('N') != std::string::npos;
  const bool has_texture = kw.find("ST") != std::string::npos;
  (void)has_normals;
  (void)has_texture;
  std::vector<std::string_view> counts(tok.begin() + 1, tok.end());
  int count_line = hdr->first;
  if (counts.empty()) {
    const auto* c = next();
    if (!c) return where(name, hdr->first) + "missing vertex/face counts";
    count_line = c->first;
    tok = split_ws(c->second);
    counts.assign(tok.begin(), tok.end());
  }
  long long nv, nf;
  if (counts.size() < 2 || !parse_int(counts[0], nv) || !parse_int(counts[1], nf) || nv < 0 || nf < 0)
    return where(name, count_line) + "bad counts line (expected: vertices faces edges)";
  if (nv > 100000000 || nf > 200000000) return where(name, count_line) + "implausible counts";
  // A vertex takes at least 6 bytes ("0 0 0\n"): the counts reserve no more than the file can hold.
  p.mesh.vertices.reserve(size_t(std::min<long long>(nv, (long long)(text.size() / 6))));
  for (long long i = 0; i < nv; ++i) {
    const auto* l = next();
    if (!l) return name + ": unexpected end of file: " + std::to_string(i) + " of " + std::to_string(nv) + " vertices read";
    const auto t = split_ws(l->second);
    if (t.size() < 3) return where(name, l->first) + "vertex needs 3 coordinates";
    Vec3 v;
    for (int k = 0; k < 3; ++k)
      if (!parse_double(t[k], v[k])) return where(name, l->first) + "bad vertex coordinate '" + std::string(t[k]) + "'";
    if (!all_finite(v)) return where(name, l->first) + "vertex with NaN or infinite coordinate";
    p.mesh.vertices.push_back(v);
    p.vertex_lines.push_back(l->first);
  }
  for (long long i = 0; i < nf; ++i) {
    const auto* l = next();
    if (!l) return name + ": unexpected end of file: " + std::to_string(i) + " of " + std::to_string(nf) + " faces read";
    const auto t = split_ws(l->second);
    long long n;
    if (t.empty() || !parse_int(t[0], n) || n < 0) return where(name, l->first) + "bad face vertex count";
    if (n < 3) return where(name, l->first) + "face needs at least 3 vertices";
    if ((long long)t.size() < n + 1) return where(name, l->first) + "face has fewer indices than its count";
    std::vector<int> idx(static_cast<size_t>(n));
    for (long long k = 0; k < n; ++k) {
      long long j;
      if (!parse_int(t[k + 1], j)) return where(name, l->first) + "bad face index '" + std::string(t[k + 1]) + "'";
      if (j < 0 || j >= nv)
        return where(name, l->first) + "face index " + std::to_string(j) + " out of range (" + std::to_string(nv) +
               " vertices, indices start at 0)";
      idx[k] = (int)j;
    }
    if (std::string why = add_polygon(p, idx, l->first); !why.empty()) return where(name, l->first) + why;
  }
  return {};
}

MeshLoadResult finish(Parsed& p, const std::string& name, const MeshLoadOptions& opt, std::vector<std::string> warnings) {
  MeshLoadResult r;
  r.warnings = std::move(warnings);
  auto fail = [&](std::string msg) {
    r.mesh = TriangleMesh{};
    r.error = std::move(msg);
    return r;
  };
  TriangleMesh& m = p.mesh;
  if (m.triangles.empty())
    return fail(name + (m.vertices.empty() ? ": empty mesh (no vertices, no faces)" : ": mesh has no faces"));
  // degenerate triangles
  const double tol = degenerate_tolerance(m);
  {
    std::vector<std::array<int, 3>> kept;
    std::vector<int> kept_lines;
    int dropped = 0, first_line = 0;
    for (int t = 0; t < (int)m.triangles.size(); ++t) {
      if (degenerate(m, t, tol)) {
        if (!opt.drop_degenerate)
          return fail(where(name, p.triangle_lines[t]) + "degenerate triangle (repeated vertex or zero area)");
        if (dropped++ == 0) first_line = p.triangle_lines[t];
        continue;
      }
      kept.push_back(m.triangles[t]);
      kept_lines.push_back(p.triangle_lines[t]);
    }
    if (dropped) {
      r.warnings.push_back(where(name, first_line) + "dropped " + std::to_string(dropped) + " degenerate triangles");
      m.triangles = std::move(kept);
      p.triangle_lines = std::move(kept_lines);
      if (m.triangles.empty()) return fail(name + ": every triangle is degenerate");
    }
  }
  // edges
  const auto edges = build_edges(m);
  int boundary = 0, nonmanifold = 0, first_b = -1, first_nm = -1;
  for (const auto& [key, e] : edges) {
    if (e.count == 1) {
      ++boundary;
      if (first_b < 0 || p.triangle_lines[e.t0] < first_b) first_b = p.triangle_lines[e.t0];
    } else if (e.count > 2) {
      ++nonmanifold;
      const int l = std::max(p.triangle_lines[e.t0], p.triangle_lines[e.t1]);
      if (first_nm < 0 || l < first_nm) first_nm = l;
    }
  }
  if (nonmanifold) {
    const std::string msg = where(name, first_nm) + "non-manifold: " + std::to_string(nonmanifold) +
                            " edges shared by more than two triangles (first near this face)";
    if (opt.require_manifold) return fail(msg);
    r.warnings.push_back(msg);
  }
  if (boundary) {
    const std::string msg = where(name, first_b) + "open mesh: " + std::to_string(boundary) +
                            " boundary edges used by only one triangle (first at this face)";
    if (opt.require_closed) return fail(msg);
    r.warnings.push_back(msg);
  }
  // orientation
  int inconsistent = 0, first_inc = -1;
  for (const auto& [key, e] : edges)
    if (e.count == 2 && same_direction(m, e.t0, e.k0, e.t1, e.k1)) {
      ++inconsistent;
      const int l = std::max(p.triangle_lines[e.t0], p.triangle_lines[e.t1]);
      if (first_inc < 0 || l < first_inc) first_inc = l;
    }
  const double vol_before = signed_volume_of(m);
  if (inconsistent && !opt.repair_orientation)
    return fail(where(name, first_inc) + "inconsistent orientation: " + std::to_string(inconsistent) +
                " edges traversed the same way by both triangles");
  if (opt.repair_orientation) {
    TriangleMesh copy = m;
    bool non_orientable = false;
    const int flips = orient_mesh(copy, &non_orientable);
    if (non_orientable) return fail(name + ": the surface is not orientable (e.g. a Moebius strip)");
    if (flips) {
      const double vol_after = signed_volume_of(copy);
      std::string msg = where(name, first_inc > 0 ? first_inc : p.triangle_lines[0]);
      if (inconsistent)
        msg += "inconsistent orientation (" + std::to_string(inconsistent) + " edges) repaired by flipping " +
               std::to_string(flips) + " of " + std::to_string(m.triangles.size()) + " triangles";
      else
        msg = name + ": inside-out mesh (signed volume " + std::to_string(vol_before) + ") flipped outward (" +
              std::to_string(flips) + " triangles)";
      if (inconsistent && vol_after > 0 && boundary == 0) msg += "; oriented outward";
      r.warnings.push_back(msg);
      m = std::move(copy);
    }
  } else if (boundary == 0 && nonmanifold == 0 && vol_before <= 0) {
    return fail(name + ": inside-out mesh (signed volume " + std::to_string(vol_before) + ")");
  }
  if (boundary == 0 && nonmanifold == 0 && !(signed_volume_of(m) > 0))
    return fail(name + ": closed mesh encloses no volume");
  std::vector<char> used(m.vertices.size(), 0);
  for (const auto& f : m.triangles)
    for (int i : f) used[i] = 1;
  const int unused = (int)std::count(used.begin(), used.end(), 0);
  if (unused)
    r.warnings.push_back(name + ": " + std::to_string(unused) + " vertices are used by no triangle");
  r.mesh = std::move(m);
  return r;
}

std::string lower_ext(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of("/\\");
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = (char)std::tolower((unsigned char)c);
  return e;
}

}  // namespace

namespace {

MeshLoadResult read_mesh_text(const std::string& text, const std::string& format, const std::string& name,
                              const MeshLoadOptions& options) {
  try {
    MeshLoadResult r;
    bool blank = true;
    for (char c : text) blank = blank && std::isspace((unsigned char)c);
    if (blank) {
      r.error = name + ": empty file";
      return r;
    }
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
      r.error = name + ": a NUL byte at offset " + std::to_string(nul) + ": OBJ and OFF files are text";
      return r;
    }
    Parsed p;
    std::vector<std::string> warnings;
    std::string err;
    if (format == "obj") err = parse_obj(text, name, p, warnings);
    else if (format == "off") err = parse_off(text, name, p);
    else err = name + ": unknown mesh format '" + format + "' (expected obj or off)";
    if (!err.empty()) {
      r.error = err;
      return r;
    }
    return finish(p, name, options, std::move(warnings));
  } catch (const std::exception& e) {
    MeshLoadResult r;
    r.error = name + ": " + e.what();
    return r;
  }
}

}  // namespace

MeshLoadResult load_mesh_from_string(const std::string& text, const std::string& format, const std::string& name,
                                     const MeshLoadOptions& options) {
  // Names and file bytes quoted in messages are escaped: a message stays one line and carries no escape sequence.
  MeshLoadResult r = read_mesh_text(text, format, name, options);
  r.error = escape_for_message(r.error);
  for (std::string& w : r.warnings) w = escape_for_message(w);
  return r;
}

MeshLoadResult load_mesh(const std::string& path, const MeshLoadOptions& options) {
  MeshLoadResult r;
  std::string text;
  if (!read_text_file(path, kMaxMeshFileBytes, "mesh file", text, r.error)) return r;
  std::string fmt = lower_ext(path);
  if (fmt != "obj" && fmt != "off") {
    // sniff: OFF files start with a header word ending in OFF
    size_t i = 0;
    while (i < text.size() && std::isspace((unsigned char)text[i])) ++i;
    fmt = text.compare(i, 3, "OFF") == 0 || text.compare(i, 4, "COFF") == 0 || text.compare(i, 4, "NOFF") == 0 ? "off"
                                                                                                                : "obj";
  }
  return load_mesh_from_string(text, fmt, path, options);
}

}  // namespace cl
