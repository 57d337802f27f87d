#include "mesh/procedural.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <sstream>
#include <unordered_map>

namespace cl {
namespace {

constexpr double kPi = std::numbers::pi;

// Fails a generator: clears the mesh, sets the error, returns the empty mesh.
TriangleMesh fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return {};
}

bool finite_pos(double x) { return std::isfinite(x) && x > 0; }

// Appends triangles to a mesh; quads and triangles may be flipped to face a given outward direction.
struct Builder {
  TriangleMesh m;
  int add(const Vec3& p) {
    m.vertices.push_back(p);
    return (int)m.vertices.size() - 1;
  }
  const Vec3& v(int i) const { return m.vertices[i]; }
  void tri(int a, int b, int c) { m.triangles.push_back({a, b, c}); }
  // Triangle (a, b, c), reversed if its normal points against `out`.
  void tri_facing(int a, int b, int c, const Vec3& out) {
    if ((v(b) - v(a)).cross(v(c) - v(a)).dot(out) < 0) std::swap(b, c);
    tri(a, b, c);
  }
  // Quad a b c d (a cycle), split along a-c, reversed if it faces against `out`.
  void quad_facing(int a, int b, int c, int d, const Vec3& out) {
    const Vec3 n = (v(b) - v(a)).cross(v(c) - v(a)) + (v(c) - v(a)).cross(v(d) - v(a));
    if (n.dot(out) < 0) std::swap(b, d);
    tri(a, b, c);
    tri(a, c, d);
  }
  Vec3 centroid(std::initializer_list<int> ids) const {
    Vec3 c = Vec3::Zero();
    for (int i : ids) c += v(i);
    return c / (double)ids.size();
  }
};

// Merges vertices closer than tol (spatial hash), remaps the triangles and drops unreferenced vertices.
void weld(TriangleMesh& m, double tol) {
  const double cell = 2 * tol;
  auto key = [&](long long x, long long y, long long z) {
    return (std::uint64_t)(x * 73856093LL) ^ (std::uint64_t)(y * 19349663LL) ^ (std::uint64_t)(z * 83492791LL);
  };
  std::unordered_map<std::uint64_t, std::vector<int>> grid;
  std::vector<Vec3> out;
  std::vector<int> remap(m.vertices.size());
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    const Vec3& p = m.vertices[i];
    const long long cx = (long long)std::floor(p.x() / cell), cy = (long long)std::floor(p.y() / cell),
                    cz = (long long)std::floor(p.z() / cell);
    int found = -1;
    for (int dx = -1; dx <= 1 && found < 0; ++dx)
      for (int dy = -1; dy <= 1 && found < 0; ++dy)
        for (int dz = -1; dz <= 1 && found < 0; ++dz) {
          auto it = grid.find(key(cx + dx, cy + dy, cz + dz));
          if (it == grid.end()) continue;
          for (int k : it->second)
            if ((out[k] - p).squaredNorm() <= tol * tol) {
              found = k;
              break;
            }
        }
    if (found < 0) {
      found = (int)out.size();
      out.push_back(p);
      grid[key(cx, cy, cz)].push_back(found);
    }
    remap[i] = found;
  }
  for (auto& t : m.triangles)
    for (int& i : t) i = remap[i];
  m.vertices = std::move(out);
}

// Final check: a generator must never return a mesh that is not a valid rigid body.
TriangleMesh finish(TriangleMesh m, const char* name, std::string* error) {
  const MeshValidation v = validate_mesh(m);
  if (!v.ok() || v.unreferenced_vertices > 0) {
    std::string msg = std::string(name) + ": internal error, generated mesh is invalid:";
    for (const auto& p : v.problems) msg += " " + p + ";";
    if (v.unreferenced_vertices > 0) msg += " unreferenced vertices;";
    return fail(error, msg);
  }
  if (error) error->clear();
  return m;
}

std::string num(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// Loft through rings of equal size n (ring size 1 = a pole). Consecutive rings are joined by quads; an end
// ring that is not a pole is closed by a fan from its centroid. The whole surface is flipped at the end if it
// encloses a negative volume, so only the ring order matters, not its direction.
TriangleMesh loft(const std::vector<std::vector<Vec3>>& rings) {
  Builder b;
  std::vector<std::vector<int>> ids;
  for (const auto& r : rings) {
    std::vector<int> row;
    for (const Vec3& p : r) row.push_back(b.add(p));
    ids.push_back(std::move(row));
  }
  auto cap = [&](const std::vector<int>& r, bool first) {
    if (r.size() == 1) return;
    Vec3 c = Vec3::Zero();
    for (int i : r) c += b.v(i);
    const int ci = b.add(c / (double)r.size());
    const int n = (int)r.size();
    for (int k = 0; k < n; ++k) {
      if (first) b.tri(ci, r[(k + 1) % n], r[k]);
      else b.tri(ci, r[k], r[(k + 1) % n]);
    }
  };
  cap(ids.front(), true);
  for (size_t j = 0; j + 1 < ids.size(); ++j) {
    const auto& A = ids[j];
    const auto& B = ids[j + 1];
    if (A.size() == 1) {
      const int n = (int)B.size();
      for (int k = 0; k < n; ++k) b.tri(A[0], B[(k + 1) % n], B[k]);
    } else if (B.size() == 1) {
      const int n = (int)A.size();
      for (int k = 0; k < n; ++k) b.tri(B[0], A[k], A[(k + 1) % n]);
    } else {
      const int n = (int)A.size();
      for (int k = 0; k < n; ++k) {
        const int k1 = (k + 1) % n;
        b.tri(A[k], A[k1], B[k1]);
        b.tri(A[k], B[k1], B[k]);
      }
    }
  }
  cap(ids.back(), false);
  // orientation: flip everything if inside-out
  double vol6 = 0;
  for (const auto& t : b.m.triangles) vol6 += b.v(t[0]).dot(b.v(t[1]).cross(b.v(t[2])));
  if (vol6 < 0)
    for (auto& t : b.m.triangles) std::swap(t[1], t[2]);
  return std::move(b.m);
}

// Ring of n points around the y axis at height y: (rx(theta) sin theta, y, rz(theta) cos theta).
template <class F>
std::vector<Vec3> ring(int n, double y, F radius_xz) {
  std::vector<Vec3> r;
  for (int k = 0; k < n; ++k) {
    const double th = 2 * kPi * k / n;
    const Vec2 s = radius_xz(th);  // (radius along x, radius along z)
    r.push_back(Vec3(s.x() * std::sin(th), y, s.y() * std::cos(th)));
  }
  return r;
}

// Point k of n (n a multiple of 8) on the boundary of the rectangle [-a, a] x [-b, b] in the plane (u, v),
// counter-clockwise starting at (a, 0); corners at k = n/8, 3n/8, 5n/8, 7n/8, sides split evenly.
Vec2 rect_point(int k, int n, double a, double b) {
  const int q4 = n / 4;
  const int j = (k + n / 8) % n;
  const int side = j / q4;
  const double f = double(j - side * q4) / q4;
  switch (side) {
    case 0: return Vec2(a, -b + 2 * b * f);
    case 1: return Vec2(a - 2 * a * f, b);
    case 2: return Vec2(-a, b - 2 * b * f);
    default: return Vec2(-a + 2 * a * f, -b);
  }
}

// ---- threads ---------------------------------------------------------------------------------------------

struct Thread {
  double major = 0, depth = 0, pitch = 0;
  double offset = 0;  // added to the radius (clearance of a hole)
  // r(theta, y) = major - depth + depth * tri(y / pitch - theta / 2pi) + offset
  double radius(double theta, double y) const {
    double u = y / pitch - theta / (2 * kPi);
    u -= std::floor(u);
    return major - depth + depth * std::abs(2 * u - 1) + offset;
  }
};

// Helical tube r(theta, y) for y in [y0, y1] as columns of vertices at theta_i = 2 pi i / n; each column holds
// y0, the rows y = pitch (i/n + j/m) strictly inside, and y1, so the thread's crest and root helices are
// edges of the mesh. Adjacent columns are zipped by increasing y. Triangles face +radial (outward = true) or
// -radial. Returns the bottom and top rings (one vertex per column).
void thread_tube(Builder& b, const Thread& t, int n, int m, double y0, double y1, bool outward,
                 std::vector<int>& bottom, std::vector<int>& top) {
  std::vector<std::vector<int>> cols(n);
  std::vector<std::vector<double>> ys(n);
  const double eps = 0.05 * t.pitch / m;
  for (int i = 0; i < n; ++i) {
    const double th = 2 * kPi * i / n;
    auto put = [&](double y) {
      const double r = t.radius(th, y);
      cols[i].push_back(b.add(Vec3(r * std::sin(th), y, r * std::cos(th))));
      ys[i].push_back(y);
    };
    put(y0);
    const double base = double(i) / n;
    const long long j0 = (long long)std::floor((y0 / t.pitch - base) * m) - 1;
    for (long long j = j0;; ++j) {
      const double y = t.pitch * (base + double(j) / m);
      if (y >= y1 - eps) break;
      if (y > y0 + eps) put(y);
    }
    put(y1);
  }
  bottom.clear();
  top.clear();
  for (int i = 0; i < n; ++i) {
    bottom.push_back(cols[i].front());
    top.push_back(cols[i].back());
  }
  for (int i = 0; i < n; ++i) {
    const int i1 = (i + 1) % n;
    const auto& A = cols[i];
    const auto& B = cols[i1];
    const auto& yA = ys[i];
    const auto& yB = ys[i1];
    size_t a = 0, c = 0;
    while (a + 1 < A.size() || c + 1 < B.size()) {
      const bool adv_a = c + 1 >= B.size() || (a + 1 < A.size() && yA[a + 1] <= yB[c + 1]);
      int p, q, r;
      if (adv_a) {
        p = A[a], q = A[a + 1], r = B[c];
        ++a;
      } else {
        p = A[a], q = B[c + 1], r = B[c];
        ++c;
      }
      Vec3 cen = b.centroid({p, q, r});
      Vec3 radial(cen.x(), 0, cen.z());
      b.tri_facing(p, q, r, outward ? radial : Vec3(-radial));
    }
  }
}

void check_thread(const char* name, double major, double pitch, double depth, double len, int segments,
                  int samples, std::string& err) {
  if (!finite_pos(major)) err = std::string(name) + ": shaft_radius must be > 0, got " + num(major);
  else if (!finite_pos(pitch) || pitch < len / 10000)
    err = std::string(name) + ": thread_pitch must be > 0 and >= length / 10000, got " + num(pitch);
  else if (!std::isfinite(depth) || depth < 0 || depth > 0.5 * major)
    err = std::string(name) + ": thread_depth must be in [0, 0.5 shaft_radius], got " + num(depth);
  else if (segments < 12 || segments > 4096)
    err = std::string(name) + ": segments must be in [12, 4096], got " + std::to_string(segments);
  else if (samples < 2 || samples > 256)
    err = std::string(name) + ": samples_per_pitch must be in [2, 256], got " + std::to_string(samples);
}

int round_up(int x, int k) { return (x + k - 1) / k * k; }

}  // namespace

// ---- bowl ------------------------------------------------------------------------------------------------

TriangleMesh bowl(const BowlParams& p, std::string* error) {
  const double R = p.outer_radius, t = p.thickness;
  if (!finite_pos(R)) return fail(error, "bowl: outer_radius must be > 0, got " + num(R));
  if (!std::isfinite(t) || !(t > 1e-6 * R) || !(t < R))
    return fail(error, "bowl: thickness must be in (1e-6 outer_radius, outer_radius), got " + num(t));
  if (p.resolution < 8 || p.resolution > 4096)
    return fail(error, "bowl: segments must be in [8, 4096], got " + std::to_string(p.resolution));
  const int n = p.resolution;
  const int q = std::max(2, n / 4);
  const double r = R - t;
  std::vector<std::vector<Vec3>> rings;
  rings.push_back({Vec3(0, -R, 0)});
  for (int j = 1; j <= q; ++j) {
    const double phi = 0.5 * kPi * j / q;
    const double rho = j == q ? R : R * std::sin(phi), y = j == q ? 0.0 : -R * std::cos(phi);
    rings.push_back(ring(n, y, [&](double) { return Vec2(rho, rho); }));
  }
  for (int j = q; j >= 1; --j) {
    const double phi = 0.5 * kPi * j / q;
    const double rho = j == q ? r : r * std::sin(phi), y = j == q ? 0.0 : -r * std::cos(phi);
    rings.push_back(ring(n, y, [&](double) { return Vec2(rho, rho); }));
  }
  rings.push_back({Vec3(0, -r, 0)});
  return finish(loft(rings), "bowl", error);
}

// ---- perforated box --------------------------------------------------------------------------------------

TriangleMesh perforated_box(const PerforatedBoxParams& p, std::string* error) {
  const Vec3 h = p.half_extents;
  if (!(finite_pos(h.x()) && finite_pos(h.y()) && finite_pos(h.z())))
    return fail(error, "perforated_box: half_extents must all be > 0");
  if (p.holes_x < 1 || p.holes_x > 256 || p.holes_z < 1 || p.holes_z > 256)
    return fail(error, "perforated_box: holes_x and holes_z must be in [1, 256], got " + std::to_string(p.holes_x) +
                           " and " + std::to_string(p.holes_z));
  if (p.hole_segments < 8 || p.hole_segments > 1024)
    return fail(error, "perforated_box: hole_segments must be in [8, 1024], got " + std::to_string(p.hole_segments));
  const double cx = 2 * h.x() / p.holes_x, cz = 2 * h.z() / p.holes_z;
  const double rho = p.hole_radius;
  if (!finite_pos(rho) || !(rho < 0.45 * std::min(cx, cz)))
    return fail(error, "perforated_box: hole_radius must be in (0, 0.45 * min(2 hx / holes_x, 2 hz / holes_z)) = (0, " +
                           num(0.45 * std::min(cx, cz)) + "), got " + num(rho));
  const int S = round_up(p.hole_segments, 8);
  Builder b;
  const Vec3 up(0, 1, 0), down(0, -1, 0);
  for (int a = 0; a < p.holes_x; ++a)
    for (int c = 0; c < p.holes_z; ++c) {
      const double ux = -h.x() + cx * (a + 0.5), uz = -h.z() + cz * (c + 0.5);
      std::vector<int> sq_top, sq_bot, ci_top, ci_bot;
      for (int k = 0; k < S; ++k) {
        const Vec2 s = rect_point(k, S, 0.5 * cx, 0.5 * cz);
        const double th = 2 * kPi * k / S;
        const Vec2 ci(rho * std::cos(th), rho * std::sin(th));
        sq_top.push_back(b.add(Vec3(ux + s.x(), h.y(), uz + s.y())));
        sq_bot.push_back(b.add(Vec3(ux + s.x(), -h.y(), uz + s.y())));
        ci_top.push_back(b.add(Vec3(ux + ci.x(), h.y(), uz + ci.y())));
        ci_bot.push_back(b.add(Vec3(ux + ci.x(), -h.y(), uz + ci.y())));
      }
      for (int k = 0; k < S; ++k) {
        const int k1 = (k + 1) % S;
        b.quad_facing(sq_top[k], sq_top[k1], ci_top[k1], ci_top[k], up);
        b.quad_facing(sq_bot[k], sq_bot[k1], ci_bot[k1], ci_bot[k], down);
        const Vec3 mid = b.centroid({ci_top[k], ci_top[k1]});
        b.quad_facing(ci_top[k], ci_top[k1], ci_bot[k1], ci_bot[k], Vec3(ux - mid.x(), 0, uz - mid.z()));
      }
    }
  // side walls: the top and bottom edges carry S/4 points per cell along each side
  const int q = S / 4;
  auto wall = [&](int axis, double sign) {
    const int other = axis == 0 ? 2 : 0;
    const int cells = axis == 0 ? p.holes_z : p.holes_x;
    const int nseg = cells * q;
    Vec3 out = Vec3::Zero();
    out[axis] = sign;
    for (int k = 0; k < nseg; ++k) {
      auto at = [&](int kk, double y) {
        const int c0 = std::min(kk / q, cells - 1);
        const double w = 2 * h[other] / cells;
        Vec3 v;
        v[axis] = sign * h[axis];
        v.y() = y;
        v[other] = -h[other] + w * c0 + w * double(kk - c0 * q) / q;
        return v;
      };
      const int t0 = b.add(at(k, h.y())), t1 = b.add(at(k + 1, h.y()));
      const int b0 = b.add(at(k, -h.y())), b1 = b.add(at(k + 1, -h.y()));
      b.quad_facing(t0, t1, b1, b0, out);
    }
  };
  wall(0, 1);
  wall(0, -1);
  wall(2, 1);
  wall(2, -1);
  weld(b.m, 1e-9 * h.norm());
  return finish(std::move(b.m), "perforated_box", error);
}

// ---- rock ------------------------------------------------------------------------------------------------

namespace {

// Portable random numbers: splitmix64.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  Vec3 unit() {
    for (;;) {
      // Drawn z, y, x in separate statements: the order of a call's arguments is unspecified, and GCC (which made
      // the rocks of the shipped scenes) evaluated Vec3(x, y, z)'s from the right, clang from the left, so the
      // same seed gave each compiler another rock.
      const double z = 2 * uniform() - 1;
      const double y = 2 * uniform() - 1;
      const double x = 2 * uniform() - 1;
      Vec3 v(x, y, z);
      const double n = v.norm();
      if (n > 0.1 && n <= 1) return v / n;
    }
  }
};

TriangleMesh icosphere(int levels) {
  TriangleMesh m;
  const double g = (1 + std::sqrt(5.0)) / 2;
  const double pts[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                             {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  for (auto& p : pts) m.vertices.push_back(Vec3(p[0], p[1], p[2]).normalized());
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},   {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::unordered_map<std::uint64_t, int> mid;
    auto midpoint = [&](int a, int b) {
      const std::uint64_t k = (std::uint64_t)std::min(a, b) << 32 | (std::uint64_t)std::max(a, b);
      auto it = mid.find(k);
      if (it != mid.end()) return it->second;
      m.vertices.push_back((m.vertices[a] + m.vertices[b]).normalized());
      const int i = (int)m.vertices.size() - 1;
      mid.emplace(k, i);
      return i;
    };
    std::vector<std::array<int, 3>> next;
    next.reserve(m.triangles.size() * 4);
    for (const auto& t : m.triangles) {
      const int a = midpoint(t[0], t[1]), b = midpoint(t[1], t[2]), c = midpoint(t[2], t[0]);
      next.push_back({t[0], a, c});
      next.push_back({t[1], b, a});
      next.push_back({t[2], c, b});
      next.push_back({a, b, c});
    }
    m.triangles = std::move(next);
  }
  return m;
}

}  // namespace

TriangleMesh rock(const RockParams& p, std::string* error) {
  if (!finite_pos(p.radius)) return fail(error, "rock: radius must be > 0, got " + num(p.radius));
  if (!std::isfinite(p.roughness) || p.roughness < 0 || p.roughness > 0.4)
    return fail(error, "rock: roughness must be in [0, 0.4], got " + num(p.roughness));
  if (p.resolution < 0 || p.resolution > 7)
    return fail(error, "rock: subdivisions must be in [0, 7], got " + std::to_string(p.resolution));
  TriangleMesh m = icosphere(p.resolution);
  // Smooth noise on the sphere: sums of plane waves cos(f w.d + phase) in random directions, 3 octaves.
  Rng rng{p.seed * 0x2545F4914F6CDD1DULL + 12345};
  struct Wave {
    Vec3 w;
    double f, a, phase;
  };
  std::vector<Wave> waves;
  const double freq[3] = {1.3, 2.6, 5.0}, amp[3] = {1.0, 0.35, 0.1};
  for (int o = 0; o < 3; ++o)
    for (int k = 0; k < 4; ++k) waves.push_back({rng.unit(), freq[o] * (0.8 + 0.4 * rng.uniform()), amp[o], 2 * kPi * rng.uniform()});
  std::vector<double> n(m.vertices.size());
  double lo = 1e300, hi = -1e300;
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    double s = 0;
    for (const auto& w : waves) s += w.a * std::cos(w.f * w.w.dot(m.vertices[i]) + w.phase);
    n[i] = s;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    const double v = half > 0 ? (n[i] - mid) / half : 0.0;
    m.vertices[i] *= p.radius * (1 + p.roughness * v);
  }
  // Star-shaped check: every face must see the origin from its back side (no fold-over).
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    const auto& f = m.triangles[t];
    const Vec3 c = (m.vertices[f[0]] + m.vertices[f[1]] + m.vertices[f[2]]) / 3;
    if (m.area_normal((int)t).dot(c) <= 0) return fail(error, "rock: internal error, surface folds over");
  }
  return finish(std::move(m), "rock", error);
}

// ---- hex bolt and threaded block -------------------------------------------------------------------------

TriangleMesh hex_bolt(const HexBoltParams& p, std::string* error) {
  if (!finite_pos(p.head_width)) return fail(error, "hex_bolt: head_width must be > 0, got " + num(p.head_width));
  if (!finite_pos(p.head_height)) return fail(error, "hex_bolt: head_height must be > 0, got " + num(p.head_height));
  if (!finite_pos(p.length)) return fail(error, "hex_bolt: length must be > 0, got " + num(p.length));
  std::string err;
  check_thread("hex_bolt", p.shaft_radius, p.thread_pitch, p.thread_depth, p.length, p.segments, p.samples_per_pitch,
               err);
  if (!err.empty()) return fail(error, err);
  if (!(p.shaft_radius <= 0.45 * p.head_width))
    return fail(error, "hex_bolt: shaft_radius must be <= 0.45 head_width, got " + num(p.shaft_radius));
  const int n = round_up(p.segments, 24);
  const int m = round_up(p.samples_per_pitch, 2);
  const Thread t{p.shaft_radius, p.thread_depth, p.thread_pitch, 0.0};
  Builder b;
  std::vector<int> bottom, top;
  thread_tube(b, t, n, m, -p.length, 0.0, true, bottom, top);
  // shaft end cap
  const int cb = b.add(Vec3(0, -p.length, 0));
  for (int i = 0; i < n; ++i) b.tri_facing(cb, bottom[i], bottom[(i + 1) % n], Vec3(0, -1, 0));
  // head: hexagon with corners at angles k 60 deg (position (R sin, y, R cos)), circumradius w / sqrt 3
  const double Rc = p.head_width / std::sqrt(3.0);
  const int per = n / 6;
  std::vector<int> hb, ht;
  for (int i = 0; i < n; ++i) {
    const int k = i / per;
    const double f = double(i - k * per) / per;
    const double a0 = kPi / 3 * k, a1 = kPi / 3 * (k + 1);
    const Vec3 c0(Rc * std::sin(a0), 0, Rc * std::cos(a0)), c1(Rc * std::sin(a1), 0, Rc * std::cos(a1));
    const Vec3 q = (1 - f) * c0 + f * c1;
    hb.push_back(b.add(q));
    ht.push_back(b.add(Vec3(q.x(), p.head_height, q.z())));
  }
  const int ct = b.add(Vec3(0, p.head_height, 0));
  for (int i = 0; i < n; ++i) {
    const int i1 = (i + 1) % n;
    b.quad_facing(hb[i], hb[i1], top[i1], top[i], Vec3(0, -1, 0));
    const Vec3 c = b.centroid({hb[i], hb[i1]});
    b.quad_facing(hb[i], hb[i1], ht[i1], ht[i], Vec3(c.x(), 0, c.z()));
    b.tri_facing(ct, ht[i], ht[i1], Vec3(0, 1, 0));
  }
  return finish(std::move(b.m), "hex_bolt", error);
}

TriangleMesh threaded_block(const ThreadedBlockParams& p, std::string* error) {
  if (!finite_pos(p.height)) return fail(error, "threaded_block: height must be > 0, got " + num(p.height));
  std::string err;
  check_thread("threaded_block", p.shaft_radius, p.thread_pitch, p.thread_depth, p.height, p.segments,
               p.samples_per_pitch, err);
  if (!err.empty()) return fail(error, err);
  if (!std::isfinite(p.clearance) || p.clearance < 0 || !(p.clearance < p.shaft_radius))
    return fail(error, "threaded_block: clearance must be in [0, shaft_radius), got " + num(p.clearance));
  if (!finite_pos(p.half_width) || !(p.half_width >= 1.25 * (p.shaft_radius + p.clearance)))
    return fail(error, "threaded_block: half_width must be >= 1.25 (shaft_radius + clearance), got " + num(p.half_width));
  const int n = round_up(p.segments, 24);
  const int m = round_up(p.samples_per_pitch, 2);
  const Thread t{p.shaft_radius, p.thread_depth, p.thread_pitch, p.clearance};
  Builder b;
  std::vector<int> bottom, top;
  thread_tube(b, t, n, m, -p.height, 0.0, false, bottom, top);
  // square outline sampled at n points; rect_point's (u, v) = (x, z) starts at +x, i.e. theta = 90 deg in the
  // (sin, cos) convention of the hole, and runs counter-clockwise in (x, z), i.e. towards -theta. Re-index so
  // point i sits near the hole's column i: theta_i = 2 pi i / n  <->  (x, z) angle 90 deg - theta_i.
  const double w = p.half_width;
  std::vector<int> st, sb;
  for (int i = 0; i < n; ++i) {
    const int k = ((n / 4 - i) % n + n) % n;
    const Vec2 s = rect_point(k, n, w, w);
    st.push_back(b.add(Vec3(s.x(), 0, s.y())));
    sb.push_back(b.add(Vec3(s.x(), -p.height, s.y())));
  }
  for (int i = 0; i < n; ++i) {
    const int i1 = (i + 1) % n;
    b.quad_facing(st[i], st[i1], top[i1], top[i], Vec3(0, 1, 0));
    b.quad_facing(sb[i], sb[i1], bottom[i1], bottom[i], Vec3(0, -1, 0));
    const Vec3 c = b.centroid({st[i], st[i1]});
    b.quad_facing(st[i], st[i1], sb[i1], sb[i], Vec3(c.x(), 0, c.z()));
  }
  return finish(std::move(b.m), "threaded_block", error);
}

// ---- screwdriver -----------------------------------------------------------------------------------------

TriangleMesh screwdriver(const ScrewdriverParams& p, std::string* error) {
  const char* nm = "screwdriver";
  auto bad = [&](const std::string& what, double v) { return fail(error, std::string(nm) + ": " + what + ", got " + num(v)); };
  if (!finite_pos(p.shaft_radius)) return bad("shaft_radius must be > 0", p.shaft_radius);
  if (!finite_pos(p.handle_radius) || !(p.handle_radius > p.shaft_radius))
    return bad("handle_radius must be > shaft_radius", p.handle_radius);
  if (!finite_pos(p.handle_length)) return bad("handle_length must be > 0", p.handle_length);
  if (!std::isfinite(p.dome_height) || p.dome_height < 0) return bad("dome_height must be >= 0", p.dome_height);
  if (!finite_pos(p.shaft_length)) return bad("shaft_length must be > 0", p.shaft_length);
  if (!finite_pos(p.tip_length)) return bad("tip_length must be > 0", p.tip_length);
  if (!finite_pos(p.tip_width) || !(p.tip_width < 2 * p.handle_radius))
    return bad("tip_width must be in (0, 2 handle_radius)", p.tip_width);
  if (!finite_pos(p.tip_thickness) || !(p.tip_thickness <= 2 * p.shaft_radius))
    return bad("tip_thickness must be in (0, 2 shaft_radius]", p.tip_thickness);
  if (p.flutes < 0 || p.flutes > 64) return bad("flutes must be in [0, 64]", p.flutes);
  if (!std::isfinite(p.flute_depth) || p.flute_depth < 0 || p.flute_depth > 0.3)
    return bad("flute_depth must be in [0, 0.3]", p.flute_depth);
  if (p.segments < 8 || p.segments > 4096) return bad("segments must be in [8, 4096]", p.segments);
  const int n = p.segments;
  std::vector<std::vector<Vec3>> rings;
  // blade: ellipse semi-axes (x, z) from (tip_width/2, tip_thickness/2) at y = 0 to (rs, rs) at y = tip_length
  const double rs = p.shaft_radius;
  const int tip_rings = 4;
  for (int j = 0; j <= tip_rings; ++j) {
    const double f = double(j) / tip_rings;
    const double ax = (1 - f) * 0.5 * p.tip_width + f * rs, az = (1 - f) * 0.5 * p.tip_thickness + f * rs;
    rings.push_back(ring(n, f * p.tip_length, [&](double) { return Vec2(ax, az); }));
  }
  const double y_h = p.tip_length + p.shaft_length;
  rings.push_back(ring(n, y_h, [&](double) { return Vec2(rs, rs); }));
  const double rh = p.handle_radius;
  auto fluted = [&](double rho) {
    return [=, &p](double th) {
      const double g = p.flutes > 0 ? 1 - p.flute_depth * 0.5 * (1 + std::cos(p.flutes * th)) : 1.0;
      return Vec2(rho * g, rho * g);
    };
  };
  rings.push_back(ring(n, y_h, fluted(rh)));
  const double y_top = y_h + p.handle_length;
  rings.push_back(ring(n, y_top, fluted(rh)));
  if (p.dome_height > 0) {
    const int q = std::max(2, n / 4);
    for (int j = 1; j < q; ++j) {
      const double phi = 0.5 * kPi * j / q;
      rings.push_back(ring(n, y_top + p.dome_height * std::sin(phi), fluted(rh * std::cos(phi))));
    }
    rings.push_back({Vec3(0, y_top + p.dome_height, 0)});
  }
  return finish(loft(rings), nm, error);
}

}  // namespace cl
