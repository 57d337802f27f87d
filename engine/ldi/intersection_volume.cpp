#include "ldi/intersection_volume.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/task_pool.h"

namespace cl::ldi {

std::size_t LayeredDepthImage::total_crossings() const {
  std::size_t n = 0;
  for (int j = 0; j < height; ++j) n += rows[std::size_t(j)].size();
  return n;
}

void intersection_intervals(const LayeredDepthImage& image, std::vector<RayInterval>& out) {
  out.clear();
  for (int j = 0; j < image.height; ++j)
    for (int i = 0; i < image.width; ++i)
      for_each_interval(image.pixel(i, j), image.from_above, [&](const Crossing& lo, const Crossing& hi) {
        out.push_back(RayInterval{i, j, lo.depth, hi.depth, lo.mesh, hi.mesh});
      });
}

namespace {

constexpr int kMaxSubpixelBits = 16;
constexpr std::int64_t kCoordinateLimit = std::int64_t(1) << 29;  // |fixed-point coordinate|: edge values < 2^61
constexpr int kTriangleChunk = 4096;                              // triangles per candidate task

// A triangle of one image, ready for rasterisation: fixed-point (u, v), counter-clockwise (positive area).
struct PreparedTriangle {
  std::array<std::int32_t, 3> U, V;  // |U|, |V| <= 2^29 (kCoordinateLimit); edge values are taken in 64 bits
  std::array<double, 3> w;   // exact depths of the (possibly reordered) vertices
  std::int64_t area = 0;     // twice the snapped projected area, > 0
  std::int32_t triangle = 0;
  std::int8_t mesh = 0;
  std::int8_t direction = 0;
  bool swapped = false;      // vertices 1 and 2 exchanged to make it counter-clockwise
  int col_lo = 0, col_hi = -1, row_lo = 0, row_hi = -1;  // pixels whose centres are in its box, clamped
};

// weight * bary[k] goes to the `axis` component of dV/dp of vertex k of `triangle` in `mesh`.
struct GradRecord {
  std::array<double, 3> bary;
  double weight;
  std::int32_t triangle;
  std::int32_t cell;  // multi-volume: row-local cell id while rows are processed, then the global one
  std::int8_t mesh;
  std::int8_t axis;
};

struct Piece {
  std::int32_t cell;  // row-local cell id
  double volume;      // m^3 (times the pixel area already)
  double interval;    // length of the whole interval the piece was cut from, m
};

// What one pixel row produces besides its crossings.
struct RowWork {
  double length = 0;  // summed lengths of the intervals inside both meshes, m
  double longest = 0; // the longest of them, m
  long intervals = 0;
  long unclosed = 0;
  std::vector<GradRecord> mono;
  std::vector<GradRecord> cell_records;
  std::vector<Piece> pieces;
  std::vector<std::array<int, 3>> cells;  // row-local cell id -> world cell coordinates
  std::vector<std::int32_t> cell_global;  // row-local cell id -> index among the result's cells
};

struct AxisWork {
  double origin_u = 0, origin_v = 0;  // world (u, v) of the image corner: (i0 s, j0 s)
  int bits = 0;
  std::int64_t step = 0;              // one pixel in fixed point
  double fixed_scale = 0;             // fixed-point units per metre: 2^bits / s
  std::vector<PreparedTriangle> tris;
  std::vector<int> row_start;         // CSR of the triangles overlapping each row
  std::vector<int> cursor;
  std::vector<std::int32_t> row_tris;
  std::vector<RowWork> rows;          // never shrinks; [0, height) valid
  int m_lo = 0, m_hi = -1;            // cell range along w
};

struct RawCrossing {
  Crossing c;
  int pixel;
};

struct ChunkOut {
  std::array<std::vector<PreparedTriangle>, 3> tris;
  std::vector<std::int32_t> keep;  // scratch: triangles of the chunk that matter to some image
  bool bad_index = false;
};

struct WorkerScratch {
  std::vector<RawCrossing> raw;
  std::vector<int> cursor;
  std::vector<int> m_map;   // cell id along w for the current cell column (multi-volume), -1 = none yet
  std::vector<int> m_used;
  std::vector<Vec3> dense;  // reduction: gradient of the vertices of one mesh
  std::vector<unsigned> stamp;
  unsigned generation = 0;
  std::vector<int> touched;
};

// Starts a reduction: a new stamp value marks the vertices touched from now on.
void next_generation(WorkerScratch& ws) {
  if (++ws.generation == 0) {
    std::fill(ws.stamp.begin(), ws.stamp.end(), 0u);
    ws.generation = 1;
  }
  ws.touched.clear();
}

inline std::uint8_t outcode(const Vec3& p, const Aabb& box) {
  std::uint8_t c = 0;
  for (int d = 0; d < 3; ++d) {
    if (p[d] < box.lo[d]) c |= std::uint8_t(1u << (2 * d));
    if (p[d] > box.hi[d]) c |= std::uint8_t(2u << (2 * d));
  }
  return c;
}

// floor(a / 2^bits) and ceil(a / 2^bits) (arithmetic shifts round towards -infinity).
inline std::int64_t floor_shift(std::int64_t a, int bits) { return a >> bits; }
inline std::int64_t ceil_shift(std::int64_t a, int bits) { return -((-a) >> bits); }

// Nearest integer (halves to even) for |x| < 2^51, without a branch: adding 1.5 * 2^52 leaves the rounded
// integer in the low bits of the mantissa.
inline std::int64_t to_fixed(double x) {
  const double t = x + 6755399441055744.0;
  std::int64_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  return bits - 0x4338000000000000LL;
}

inline bool less_crossing(const Crossing& a, const Crossing& b) {
  if (a.depth != b.depth) return a.depth < b.depth;
  if (a.mesh != b.mesh) return a.mesh < b.mesh;
  return a.triangle < b.triangle;
}

void sort_crossings(Crossing* first, Crossing* last) {
  // Nothing to sort; this also keeps first + 1 from being formed on a null pointer (an empty vector's data()).
  if (last - first < 2) return;
  if (last - first > 24) {
    std::sort(first, last, less_crossing);
    return;
  }
  for (Crossing* i = first + 1; i < last; ++i) {
    const Crossing x = *i;
    Crossing* j = i;
    for (; j > first && less_crossing(x, *(j - 1)); --j) *j = *(j - 1);
    *j = x;
  }
}

void reset_body(BodyTerms& b) {
  b.gradient.clear();
  b.linear.setZero();
  b.angular.setZero();
  b.area_sum = 0;
  b.area_moment.setZero();
}

void reset_contact(VolumeContact& c) {
  c.volume = 0;
  c.axis_volume = {0, 0, 0};
  c.axis_longest = {0, 0, 0};
  c.cell = {0, 0, 0};
  c.normal.setZero();
  c.area = 0;
  reset_body(c.body[0]);
  reset_body(c.body[1]);
}

bool cell_less(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  if (a[2] != b[2]) return a[2] < b[2];
  if (a[1] != b[1]) return a[1] < b[1];
  return a[0] < b[0];
}

}  // namespace

struct IntersectionVolume::Impl {
  std::unique_ptr<TaskPool> pool;
  std::array<LayeredDepthImage, 3> images;
  std::array<AxisWork, 3> axes;
  std::vector<ChunkOut> chunks;
  std::vector<WorkerScratch> scratch;
  std::vector<std::array<int, 3>> cell_keys;       // all cells, sorted
  std::vector<GradRecord> sorted_cell_records;     // by global cell, then axis, row, pixel
  std::vector<int> cell_record_start;
  std::vector<std::pair<int, int>> row_tasks;      // (axis, row)

  const MeshInput* in[2] = {nullptr, nullptr};
  VolumeOptions opt;
  Aabb box;
  // Per mesh and axis: count the ray's winding from +infinity (drop the triangles entirely below the box) rather
  // than from -infinity (drop those entirely above it); see compute().
  bool from_above[2][3] = {{false, false, false}, {false, false, false}};
  // Out-codes of the vertices against the overlap box (bit 2d: below lo[d], bit 2d + 1: above hi[d]); a triangle
  // whose three codes share a bit of reject[mesh][w] cannot matter to image w.
  std::array<std::vector<std::uint8_t>, 2> outcodes;
  std::uint8_t reject[2][3] = {{0, 0, 0}, {0, 0, 0}};
  double area = 0;  // pixel area s^2

  void prepare_axis_geometry(int w, const Aabb& union_box, std::string& error);
  void candidate_chunk(int chunk, int first_b, int total);
  void bin_rows(int w, int nchunks);
  void process_row(int w, int j, WorkerScratch& ws);
  void reduce(int mesh, const GradRecord* first, const GradRecord* last, WorkerScratch& ws, BodyTerms& out);
  void reduce_mono(int mesh, WorkerScratch& ws, BodyTerms& out);
  void accumulate(int mesh, const GradRecord& r, WorkerScratch& ws);
  void finish_body(int mesh, WorkerScratch& ws, BodyTerms& out);
  void finalize(VolumeContact& c);
  void capture(const VolumeStats& stats, IntervalCapture& out) const;
};

IntersectionVolume::IntersectionVolume() : impl_(std::make_unique<Impl>()) {}
IntersectionVolume::~IntersectionVolume() = default;

const LayeredDepthImage& IntersectionVolume::image(int axis) const { return impl_->images[axis]; }

// Image extent (pixels whose centres lie in the overlap box), fixed-point origin and precision of axis w.
void IntersectionVolume::Impl::prepare_axis_geometry(int w, const Aabb& union_box, std::string& error) {
  const int u = u_axis(w), v = v_axis(w);
  const double s = opt.pixel_size;
  LayeredDepthImage& img = images[w];
  AxisWork& ax = axes[w];
  img.axis = w;
  img.pixel_size = s;
  // Pixel centres (i + 0.5) s within [lo, hi], plus one on each side: a centre exactly on the box boundary (a face
  // of a mesh lying on a pixel centre) may be inside by the tie rule, whatever the rounding of lo / s.
  const double i_lo = std::floor(box.lo[u] / s - 0.5), i_hi = std::ceil(box.hi[u] / s - 0.5);
  const double j_lo = std::floor(box.lo[v] / s - 0.5), j_hi = std::ceil(box.hi[v] / s - 0.5);
  if (std::abs(i_lo) > 1e9 || std::abs(j_lo) > 1e9 || std::abs(i_hi) > 1e9 || std::abs(j_hi) > 1e9) {
    error = "ldi: coordinates too large for the pixel size";
    return;
  }
  const double width = std::max(0.0, i_hi - i_lo + 1), height = std::max(0.0, j_hi - j_lo + 1);
  if (width > opt.max_image_side || height > opt.max_image_side) {
    error = "ldi: image of " + std::to_string(long(width)) + " x " + std::to_string(long(height)) +
            " pixels exceeds max_image_side = " + std::to_string(opt.max_image_side) + " (pixel_size too small)";
    return;
  }
  img.i0 = int(i_lo);
  img.j0 = int(j_lo);
  img.width = int(width);
  img.height = int(height);
  ax.origin_u = img.i0 * s;
  ax.origin_v = img.j0 * s;
  // Sub-pixel precision: as fine as possible (up to 2^-16 pixel) while every vertex of either mesh, and every
  // pixel centre, stays within the fixed-point range.
  double m = std::max(width, height) + 1;
  for (const Vec3& corner : {union_box.lo, union_box.hi}) {
    m = std::max(m, std::abs(corner[u] - ax.origin_u) / s + 1);
    m = std::max(m, std::abs(corner[v] - ax.origin_v) / s + 1);
  }
  int bits = kMaxSubpixelBits;
  while (bits > 1 && std::ldexp(m, bits) > double(kCoordinateLimit)) --bits;
  if (std::ldexp(m, bits) > double(kCoordinateLimit)) {
    error = "ldi: meshes too large for the pixel size (more than 2^27 pixels across)";
    return;
  }
  ax.bits = bits;
  ax.step = std::int64_t(1) << bits;
  ax.fixed_scale = std::ldexp(1.0 / s, bits);
  img.subpixel_bits = bits;
  const double cell = opt.cell_size;
  ax.m_lo = opt.multi_volume ? int(std::floor(box.lo[w] / cell)) : 0;
  ax.m_hi = opt.multi_volume ? int(std::floor(box.hi[w] / cell)) : -1;
}

// Triangles [chunk * kTriangleChunk, ...) of the concatenation A, B: which images they can matter to, snapped
// and ordered counter-clockwise. A triangle matters to image w when its box meets the overlap box in u and v and
// it is not entirely on the side of the box along w that its mesh's winding count does not need: beyond hi_w when
// counted from -infinity, below lo_w when counted from +infinity.
void IntersectionVolume::Impl::candidate_chunk(int chunk, int first_b, int total) {
  ChunkOut& out = chunks[chunk];
  for (auto& t : out.tris) t.clear();
  out.bad_index = false;
  const int begin = chunk * kTriangleChunk, end = std::min(total, begin + kTriangleChunk);
  // First the triangles that matter to some image, from the vertices' out-codes alone (small arrays); then those,
  // with their vertices prefetched a few triangles ahead (the vertex loads are random and dominate).
  std::vector<std::int32_t>& keep = out.keep;
  keep.clear();
  for (int g = begin; g < end; ++g) {
    const int mesh = g < first_b ? 0 : 1;
    const MeshInput& m = *in[mesh];
    const auto& t = m.triangles[std::size_t(mesh == 0 ? g : g - first_b)];
    const int nv = int(m.vertices.size());
    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv) {
      out.bad_index = true;
      continue;
    }
    const std::uint8_t* code = outcodes[mesh].data();
    const std::uint8_t all = code[t[0]] & code[t[1]] & code[t[2]];
    const auto& rej = reject[mesh];
    if ((all & rej[0]) && (all & rej[1]) && (all & rej[2])) continue;
    keep.push_back(g);
  }
  constexpr std::size_t kAhead = 8;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    if (k + kAhead < keep.size()) {
      const int g = keep[k + kAhead];
      const int mesh = g < first_b ? 0 : 1;
      const auto& t = in[mesh]->triangles[std::size_t(mesh == 0 ? g : g - first_b)];
      for (int c = 0; c < 3; ++c) __builtin_prefetch(in[mesh]->vertices.data() + t[c]);
    }
    const int g = keep[k];
    const int mesh = g < first_b ? 0 : 1;
    const int tri = mesh == 0 ? g : g - first_b;
    const MeshInput& m = *in[mesh];
    const auto& t = m.triangles[std::size_t(tri)];
    const std::uint8_t* code = outcodes[mesh].data();
    const std::uint8_t all = code[t[0]] & code[t[1]] & code[t[2]];
    const auto& rej = reject[mesh];
    const Vec3* p[3] = {&m.vertices[std::size_t(t[0])], &m.vertices[std::size_t(t[1])], &m.vertices[std::size_t(t[2])]};
    for (int w = 0; w < 3; ++w) {
      const LayeredDepthImage& img = images[w];
      if (img.empty() || (all & rej[w])) continue;
      const int u = u_axis(w), v = v_axis(w);
      const AxisWork& ax = axes[w];
      PreparedTriangle pt;
      const double scale = ax.fixed_scale;
      for (int c = 0; c < 3; ++c) {
        pt.U[c] = std::int32_t(to_fixed(((*p[c])[u] - ax.origin_u) * scale));
        pt.V[c] = std::int32_t(to_fixed(((*p[c])[v] - ax.origin_v) * scale));
      }
      // Pixels whose centres (2 i + 1) step / 2 lie in the snapped box (inclusive: the tie rule may take a
      // centre on the boundary). Most triangles of a fine mesh are smaller than a pixel and hold no centre.
      const std::int64_t half = ax.step / 2;
      const std::int64_t min_u = std::min({pt.U[0], pt.U[1], pt.U[2]}), max_u = std::max({pt.U[0], pt.U[1], pt.U[2]});
      pt.col_lo = int(std::max<std::int64_t>(0, ceil_shift(min_u - half, ax.bits)));
      pt.col_hi = int(std::min<std::int64_t>(img.width - 1, floor_shift(max_u - half, ax.bits)));
      if (pt.col_lo > pt.col_hi) continue;
      const std::int64_t min_v = std::min({pt.V[0], pt.V[1], pt.V[2]}), max_v = std::max({pt.V[0], pt.V[1], pt.V[2]});
      pt.row_lo = int(std::max<std::int64_t>(0, ceil_shift(min_v - half, ax.bits)));
      pt.row_hi = int(std::min<std::int64_t>(img.height - 1, floor_shift(max_v - half, ax.bits)));
      if (pt.row_lo > pt.row_hi) continue;
      const std::int64_t u0 = pt.U[0], v0 = pt.V[0];
      std::int64_t area = (pt.U[1] - u0) * (pt.V[2] - v0) - (pt.V[1] - v0) * (pt.U[2] - u0);
      if (area == 0) continue;  // seen edge-on: no ray crosses it
      for (int c = 0; c < 3; ++c) pt.w[c] = (*p[c])[w];
      // The projected area has the sign of the normal's w component: positive = the ray leaves the mesh.
      pt.direction = area > 0 ? -1 : 1;
      if (area < 0) {
        std::swap(pt.U[1], pt.U[2]);
        std::swap(pt.V[1], pt.V[2]);
        std::swap(pt.w[1], pt.w[2]);
        pt.swapped = true;
        area = -area;
      }
      pt.area = area;
      pt.triangle = tri;
      pt.mesh = std::int8_t(mesh);
      out.tris[w].push_back(pt);
    }
  }
}

// Gathers the chunks' triangles of image w sorted by first row (stable: candidate order within a row), so that the
// rows walk the array nearly in order, then lists per row the triangles whose row range contains it.
void IntersectionVolume::Impl::bin_rows(int w, int nchunks) {
  AxisWork& ax = axes[w];
  const int h = images[w].height;
  std::vector<int>& cursor = ax.cursor;
  cursor.assign(std::size_t(h) + 1, 0);
  std::size_t total = 0;
  for (int c = 0; c < nchunks; ++c) {
    for (const auto& t : chunks[std::size_t(c)].tris[w]) ++cursor[std::size_t(t.row_lo) + 1];
    total += chunks[std::size_t(c)].tris[w].size();
  }
  for (int j = 0; j < h; ++j) cursor[std::size_t(j) + 1] += cursor[std::size_t(j)];
  ax.tris.resize(total);
  for (int c = 0; c < nchunks; ++c)
    for (const auto& t : chunks[std::size_t(c)].tris[w]) ax.tris[std::size_t(cursor[std::size_t(t.row_lo)]++)] = t;

  ax.row_start.assign(std::size_t(h) + 1, 0);
  for (const auto& t : ax.tris)
    for (int j = t.row_lo; j <= t.row_hi; ++j) ++ax.row_start[std::size_t(j) + 1];
  for (int j = 0; j < h; ++j) ax.row_start[std::size_t(j) + 1] += ax.row_start[std::size_t(j)];
  ax.row_tris.resize(std::size_t(ax.row_start[std::size_t(h)]));
  cursor.assign(ax.row_start.begin(), ax.row_start.end() - 1);
  for (std::size_t k = 0; k < ax.tris.size(); ++k)
    for (int j = ax.tris[k].row_lo; j <= ax.tris[k].row_hi; ++j)
      ax.row_tris[std::size_t(cursor[std::size_t(j)]++)] = std::int32_t(k);
}

// Rasterises row j of image w, sorts each pixel's crossings, and walks every ray: intervals inside both meshes
// give the row's volume (eq. 11) and gradient records (eq. 12), and with cells their pieces (eq. 22-24).
void IntersectionVolume::Impl::process_row(int w, int j, WorkerScratch& ws) {
  AxisWork& ax = axes[w];
  LayeredDepthImage& img = images[w];
  RowWork& rw = ax.rows[j];
  std::vector<Crossing>& crossings = img.rows[j];
  std::vector<int>& offsets = img.row_offsets[j];
  const int width = img.width;
  rw.length = 0;
  rw.longest = 0;
  rw.intervals = 0;
  rw.unclosed = 0;
  rw.mono.clear();
  rw.cell_records.clear();
  rw.pieces.clear();
  rw.cells.clear();
  rw.cell_global.clear();

  // Coverage: pixel centre P inside the counter-clockwise triangle when every edge a -> b has
  // E = (b - a) x (P - a) > 0, or E == 0 and the perturbed centre P + (eps, eps^2) is inside, i.e.
  // E + du eps^2 - dv eps > 0: dv < 0, or dv == 0 and du > 0. The neighbour across the edge computes exactly -E
  // with the reversed edge, so exactly one of the two claims the pixel.
  ws.raw.clear();
  const std::int64_t step = ax.step, half = step / 2;
  const std::int64_t pv = (2 * std::int64_t(j) + 1) * half;
  for (int k = ax.row_start[j]; k < ax.row_start[j + 1]; ++k) {
    const PreparedTriangle& t = ax.tris[std::size_t(ax.row_tris[std::size_t(k)])];
    std::int64_t e[3], dv[3];
    bool tie[3];
    const std::int64_t pu0 = (2 * std::int64_t(t.col_lo) + 1) * half;
    for (int a = 0; a < 3; ++a) {
      const int b = (a + 1) % 3;
      const std::int64_t du = std::int64_t(t.U[b]) - t.U[a];
      dv[a] = std::int64_t(t.V[b]) - t.V[a];
      e[a] = du * (pv - t.V[a]) - dv[a] * (pu0 - t.U[a]);
      tie[a] = dv[a] < 0 || (dv[a] == 0 && du > 0);
      dv[a] *= step;  // E decreases by dv * step per pixel to the right
    }
    const double inv_area = 1.0 / double(t.area);
    for (int i = t.col_lo; i <= t.col_hi; ++i) {
      if ((e[0] > 0 || (e[0] == 0 && tie[0])) && (e[1] > 0 || (e[1] == 0 && tie[1])) &&
          (e[2] > 0 || (e[2] == 0 && tie[2]))) {
        // Barycentric weight of a vertex = the edge value of the opposite edge / area.
        const double b0 = double(e[1]) * inv_area, b1 = double(e[2]) * inv_area, b2 = double(e[0]) * inv_area;
        RawCrossing r;
        r.c.depth = b0 * t.w[0] + b1 * t.w[1] + b2 * t.w[2];
        r.c.bary = t.swapped ? std::array<double, 3>{b0, b2, b1} : std::array<double, 3>{b0, b1, b2};
        r.c.triangle = t.triangle;
        r.c.mesh = t.mesh;
        r.c.direction = t.direction;
        r.pixel = i;
        ws.raw.push_back(r);
      }
      e[0] -= dv[0];
      e[1] -= dv[1];
      e[2] -= dv[2];
    }
  }

  // Bucket by pixel (stable), then sort each pixel's crossings by depth.
  offsets.assign(std::size_t(width) + 1, 0);
  for (const RawCrossing& r : ws.raw) ++offsets[std::size_t(r.pixel) + 1];
  for (int i = 0; i < width; ++i) offsets[i + 1] += offsets[i];
  ws.cursor.assign(offsets.begin(), offsets.end() - 1);
  crossings.resize(ws.raw.size());
  for (const RawCrossing& r : ws.raw) crossings[std::size_t(ws.cursor[r.pixel]++)] = r.c;
  for (int i = 0; i < width; ++i) sort_crossings(crossings.data() + offsets[i], crossings.data() + offsets[i + 1]);

  const double a = area;
  const bool multi = opt.multi_volume;
  const double h = opt.cell_size;
  const int u = u_axis(w), v = v_axis(w);
  const int cv = multi ? int(std::floor(img.v_centre(j) / h)) : 0;
  int current_cu = std::numeric_limits<int>::min();
  const int nm = ax.m_hi - ax.m_lo + 1;
  if (multi && int(ws.m_map.size()) < nm) ws.m_map.resize(std::size_t(nm), -1);
  auto release_column = [&] {
    for (int idx : ws.m_used) ws.m_map[std::size_t(idx)] = -1;
    ws.m_used.clear();
  };
  auto cell_id = [&](int cu, int m) {
    m = std::clamp(m, ax.m_lo, ax.m_hi);
    int& id = ws.m_map[std::size_t(m - ax.m_lo)];
    if (id < 0) {
      id = int(rw.cells.size());
      std::array<int, 3> key;
      key[u] = cu;
      key[v] = cv;
      key[w] = m;
      rw.cells.push_back(key);
      ws.m_used.push_back(m - ax.m_lo);
    }
    return id;
  };
  auto record = [](std::vector<GradRecord>& out, const Crossing& c, double weight, int cell, int axis) {
    out.push_back(GradRecord{c.bary, weight, c.triangle, cell, c.mesh, std::int8_t(axis)});
  };

  for (int i = 0; i < width; ++i) {
    const int first = offsets[i], last = offsets[i + 1];
    if (last - first < 2) continue;
    const Crossing* c = crossings.data() + first;
    const int n = last - first;
    int cu = 0;
    if (multi) {
      cu = int(std::floor(img.u_centre(i) / h));
      if (cu != current_cu) {
        release_column();
        current_cu = cu;
      }
    }
    // Eq. 11-12 per interval inside both meshes (see for_each_interval).
    const bool open = for_each_interval(std::span<const Crossing>(c, std::size_t(n)), img.from_above,
                                        [&](const Crossing& lo, const Crossing& hi) {
      const double len = hi.depth - lo.depth;
      rw.length += len;
      rw.longest = std::max(rw.longest, len);
      ++rw.intervals;
      // Eq. 12: the upper end's vertices gain +a b_k, the lower end's -a b_k.
      record(rw.mono, hi, a, 0, w);
      record(rw.mono, lo, -a, 0, w);
      if (!multi) return;
      // Cut [z-, z+] by the walls w = m h. A piece bounded by a wall W = alpha z+ + (1 - alpha) z- (eq. 22-23)
      // hands the wall's gradient term to both surfaces (eq. 24). Ends within 1e-9 h of a wall (rounding of
      // depths computed exactly on it) do not open a sliver cell beyond it.
      const double zlo = lo.depth, zhi = hi.depth, tol = 1e-9 * h;
      int m0 = int(std::floor((zlo + tol) / h));
      int m1 = int(std::floor((zhi - tol) / h));
      if (m1 < m0) m0 = m1 = int(std::floor(0.5 * (zlo + zhi) / h));
      for (int m = m0; m <= m1; ++m) {
        const double lower = m == m0 ? zlo : m * h;
        const double upper = m == m1 ? zhi : (m + 1) * h;
        double w_hi = 0, w_lo = 0;
        if (m == m1) {
          w_hi += a;  // upper surface S+
        } else {
          const double alpha = (upper - zlo) / len;  // upper wall W+ (eq. 22)
          w_hi += a * alpha;
          w_lo += a * (1 - alpha);
        }
        if (m == m0) {
          w_lo -= a;  // lower surface S-
        } else {
          const double beta = (lower - zlo) / len;  // lower wall W- (eq. 23)
          w_hi -= a * beta;
          w_lo -= a * (1 - beta);
        }
        const int id = cell_id(cu, m);
        rw.pieces.push_back(Piece{id, a * (upper - lower), len});
        record(rw.cell_records, hi, w_hi, id, w);
        record(rw.cell_records, lo, w_lo, id, w);
      }
    });
    if (open) ++rw.unclosed;
  }
  if (multi) release_column();
}

void IntersectionVolume::Impl::accumulate(int mesh, const GradRecord& r, WorkerScratch& ws) {
  const auto& t = in[mesh]->triangles[std::size_t(r.triangle)];
  for (int k = 0; k < 3; ++k) {
    const int vtx = t[k];
    if (ws.stamp[std::size_t(vtx)] != ws.generation) {
      ws.stamp[std::size_t(vtx)] = ws.generation;
      ws.dense[std::size_t(vtx)].setZero();
      ws.touched.push_back(vtx);
    }
    ws.dense[std::size_t(vtx)][r.axis] += r.weight * r.bary[k];
  }
}

// The sparse gradient list of the touched vertices, by index, and its rigid sums (chain rule, sect. 3.2).
void IntersectionVolume::Impl::finish_body(int mesh, WorkerScratch& ws, BodyTerms& out) {
  std::sort(ws.touched.begin(), ws.touched.end());
  out.gradient.clear();
  out.linear.setZero();
  out.angular.setZero();
  const MeshInput& m = *in[mesh];
  for (int vtx : ws.touched) {
    const Vec3& g = ws.dense[std::size_t(vtx)];
    out.gradient.push_back(VertexGradient{vtx, g});
    out.linear += g;
    out.angular += (m.vertices[std::size_t(vtx)] - m.centre).cross(g);
  }
}

void IntersectionVolume::Impl::reduce_mono(int mesh, WorkerScratch& ws, BodyTerms& out) {
  const std::size_t nv = in[mesh]->vertices.size();
  if (ws.dense.size() < nv) ws.dense.resize(nv);
  if (ws.stamp.size() < nv) ws.stamp.resize(nv, 0);
  next_generation(ws);
  for (int w = 0; w < 3; ++w)
    for (int j = 0; j < images[w].height; ++j)
      for (const GradRecord& r : axes[w].rows[std::size_t(j)].mono)
        if (r.mesh == mesh) accumulate(mesh, r, ws);
  finish_body(mesh, ws, out);
}

void IntersectionVolume::Impl::reduce(int mesh, const GradRecord* first, const GradRecord* last, WorkerScratch& ws,
                                      BodyTerms& out) {
  const std::size_t nv = in[mesh]->vertices.size();
  if (ws.dense.size() < nv) ws.dense.resize(nv);
  if (ws.stamp.size() < nv) ws.stamp.resize(nv, 0);
  next_generation(ws);
  for (const GradRecord* r = first; r != last; ++r)
    if (r->mesh == mesh) accumulate(mesh, *r, ws);
  finish_body(mesh, ws, out);
}

// The normal from the summed repulsion, the volume from the axes' estimates (sect. 3.2) and the per-vertex
// areas (sect. 4.2, eq. 20).
void IntersectionVolume::Impl::finalize(VolumeContact& c) {
  // The repulsion on B is along -dV/dx_B, on A along -dV/dx_A = +dV/dx_B (up to rounding): use both.
  const Vec3 net = c.body[0].linear - c.body[1].linear;
  double scale = 0;
  for (int b = 0; b < 2; ++b)
    for (const auto& g : c.body[b].gradient) scale += g.gradient.cwiseAbs().sum();
  const double len = net.norm();
  c.normal = len > 1e-9 * scale && len > 0 ? Vec3(net / len) : Vec3::Zero();
  if (opt.combine == AxisCombination::NormalWeighted && c.normal != Vec3::Zero())
    c.volume = c.normal.x() * c.normal.x() * c.axis_volume[0] + c.normal.y() * c.normal.y() * c.axis_volume[1] +
               c.normal.z() * c.normal.z() * c.axis_volume[2];
  else
    c.volume = (c.axis_volume[0] + c.axis_volume[1] + c.axis_volume[2]) / 3.0;
  c.area = 0;
  for (int b = 0; b < 2; ++b) {
    BodyTerms& body = c.body[b];
    body.area_sum = 0;
    body.area_moment.setZero();
    const MeshInput& m = *in[b];
    for (const auto& g : body.gradient) {
      const double ak = c.normal.dot(g.gradient);
      body.area_sum += ak;
      body.area_moment += ak * (m.vertices[std::size_t(g.vertex)] - m.centre);
      if (ak > 0) c.area += ak;
    }
  }
}

void IntersectionVolume::compute(const MeshInput& a, const MeshInput& b, const VolumeOptions& options,
                                 VolumeResult& out) {
  Impl& I = *impl_;
  I.in[0] = &a;
  I.in[1] = &b;
  I.opt = options;
  out.error.clear();
  out.boxes_overlap = false;
  out.overlap = Aabb{};
  out.stats = VolumeStats{};
  out.capture.clear();
  reset_contact(out.mono);
  out.num_cells_ = 0;
  for (auto& img : I.images) img.width = img.height = 0;

  if (!(options.pixel_size > 0) || !std::isfinite(options.pixel_size)) {
    out.error = "ldi: pixel_size must be > 0, got " + std::to_string(options.pixel_size);
    return;
  }
  if (options.multi_volume && (!(options.cell_size >= options.pixel_size) || !std::isfinite(options.cell_size))) {
    out.error = "ldi: cell_size must be >= pixel_size (" + std::to_string(options.pixel_size) + "), got " +
                std::to_string(options.cell_size);
    return;
  }
  const int threads = options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  if (!I.pool || I.pool->threads() != threads) I.pool = std::make_unique<TaskPool>(threads);
  if (int(I.scratch.size()) < threads) I.scratch.resize(std::size_t(threads));
  if (a.triangles.empty() || b.triangles.empty()) return;
  // Small problems run on the caller alone: waking the workers for each of the dozen parallel stages costs
  // more than it saves (a grasped 16 cm block: 0.5 ms per step on two threads against 0.12 ms on one). The
  // mesh stages go parallel from kParallelTriangles, the image stages once the images have kParallelPixels.
  constexpr std::size_t kParallelTriangles = 20000;
  constexpr double kParallelPixels = 20000;
  const std::size_t triangles = a.triangles.size() + b.triangles.size();
  I.pool->set_serial(triangles < kParallelTriangles);

  // Bounding boxes and their overlap: no ray outside it can be inside both meshes.
  Aabb bb[2];
  bool finite[2] = {true, true};
  I.pool->run(2, [&](int m, int) {
    const MeshInput& mi = *I.in[m];
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    bool ok = true;
    for (const Vec3& p : mi.vertices) {
      ok = ok && all_finite(p);
      lo = lo.cwiseMin(p);
      hi = hi.cwiseMax(p);
    }
    bb[m] = Aabb{lo, hi};
    finite[m] = ok;
  });
  for (int m = 0; m < 2; ++m)
    if (!finite[m] || !all_finite(bb[m].lo) || !all_finite(bb[m].hi)) {
      out.error = std::string("ldi: mesh ") + (m == 0 ? "A" : "B") + " has no vertices or non-finite coordinates";
      return;
    }
  if (!bb[0].overlaps(bb[1])) return;
  I.box = Aabb{bb[0].lo.cwiseMax(bb[1].lo), bb[0].hi.cwiseMin(bb[1].hi)};
  out.boxes_overlap = true;
  out.overlap = I.box;
  I.area = options.pixel_size * options.pixel_size;
  const Vec3 extent = (I.box.hi - I.box.lo) / options.pixel_size;
  const double pixels = extent.x() * extent.y() + extent.y() * extent.z() + extent.z() * extent.x();
  I.pool->set_serial(triangles < kParallelTriangles && pixels < kParallelPixels);
  const Aabb union_box{bb[0].lo.cwiseMin(bb[1].lo), bb[0].hi.cwiseMax(bb[1].hi)};
  // Along each axis a mesh's winding count is needed only inside [lo_w, hi_w]: count it from the side where less
  // of the mesh lies outside the box, and drop the triangles entirely on the other side (for two bodies side by
  // side along x, all of A left of the box would otherwise be rasterised in the x image). The mesh whose box
  // starts at lo_w always counts from -infinity and has no crossing below lo_w, the one whose box ends at hi_w has
  // exact counts above hi_w whichever way it counts: so no interval is found outside the box, and inside it both
  // counts are exact.
  for (int m = 0; m < 2; ++m) {
    for (int w = 0; w < 3; ++w) {
      I.from_above[m][w] = (I.box.lo[w] - bb[m].lo[w]) > (bb[m].hi[w] - I.box.hi[w]);
      I.images[w].from_above[m] = I.from_above[m][w];
      const int u = u_axis(w), v = v_axis(w);
      I.reject[m][w] = std::uint8_t((3u << (2 * u)) | (3u << (2 * v)) | ((I.from_above[m][w] ? 1u : 2u) << (2 * w)));
    }
  }
  // Vertex out-codes, in parallel over the two meshes.
  I.pool->run(2, [&](int m, int) {
    const MeshInput& mi = *I.in[m];
    auto& codes = I.outcodes[std::size_t(m)];
    codes.resize(mi.vertices.size());
    for (std::size_t k = 0; k < mi.vertices.size(); ++k) codes[k] = outcode(mi.vertices[k], I.box);
  });
  for (int w = 0; w < 3; ++w) {
    I.prepare_axis_geometry(w, union_box, out.error);
    if (!out.ok()) {
      for (auto& img : I.images) img.width = img.height = 0;
      out.boxes_overlap = false;
      return;
    }
  }

  // Candidate triangles per image, in parallel chunks, then gathered by first row in chunk order.
  const int first_b = int(a.triangles.size());
  const int total = first_b + int(b.triangles.size());
  const int nchunks = (total + kTriangleChunk - 1) / kTriangleChunk;
  if (int(I.chunks.size()) < nchunks) I.chunks.resize(std::size_t(nchunks));
  I.pool->run(nchunks, [&](int c, int) { I.candidate_chunk(c, first_b, total); });
  for (int c = 0; c < nchunks; ++c)
    if (I.chunks[std::size_t(c)].bad_index) {
      out.error = "ldi: a triangle has a vertex index out of range";
      for (auto& img : I.images) img.width = img.height = 0;
      out.boxes_overlap = false;
      return;
    }
  I.pool->run(3, [&](int w, int) { I.bin_rows(w, nchunks); });
  for (int w = 0; w < 3; ++w) out.stats.candidate_triangles[w] = int(I.axes[w].tris.size());

  // Rows of all three images, in parallel.
  I.row_tasks.clear();
  for (int w = 0; w < 3; ++w) {
    LayeredDepthImage& img = I.images[w];
    const std::size_t h = std::size_t(img.height);
    if (img.rows.size() < h) img.rows.resize(h);
    if (img.row_offsets.size() < h) img.row_offsets.resize(h);
    if (I.axes[w].rows.size() < h) I.axes[w].rows.resize(h);
    for (int j = 0; j < img.height; ++j) I.row_tasks.emplace_back(w, j);
    out.stats.pixels[w] = img.width * img.height;
  }
  I.pool->run(int(I.row_tasks.size()), [&](int t, int worker) {
    const auto [w, j] = I.row_tasks[std::size_t(t)];
    I.process_row(w, j, I.scratch[std::size_t(worker)]);
  });

  // Mono volume per axis (eq. 11), summed in row order.
  for (int w = 0; w < 3; ++w) {
    double length = 0;
    for (int j = 0; j < I.images[w].height; ++j) {
      const RowWork& rw = I.axes[w].rows[std::size_t(j)];
      length += rw.length;
      out.mono.axis_longest[w] = std::max(out.mono.axis_longest[w], rw.longest);
      out.stats.intervals[w] += rw.intervals;
      out.stats.crossings[w] += long(I.images[w].rows[std::size_t(j)].size());
      out.stats.unclosed_rays += rw.unclosed;
    }
    out.mono.axis_volume[w] = I.area * length;
  }

  // Multi-volume: number the cells (sorted by z, y, x), add up their pieces, group their records by cell.
  int ncells = 0;
  if (options.multi_volume) {
    I.cell_keys.clear();
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < I.images[w].height; ++j) {
        const auto& cells = I.axes[w].rows[std::size_t(j)].cells;
        I.cell_keys.insert(I.cell_keys.end(), cells.begin(), cells.end());
      }
    std::sort(I.cell_keys.begin(), I.cell_keys.end(), cell_less);
    I.cell_keys.erase(std::unique(I.cell_keys.begin(), I.cell_keys.end()), I.cell_keys.end());
    ncells = int(I.cell_keys.size());
    if (out.cells_.size() < std::size_t(ncells)) out.cells_.resize(std::size_t(ncells));
    out.num_cells_ = std::size_t(ncells);
    for (int c = 0; c < ncells; ++c) {
      reset_contact(out.cells_[std::size_t(c)]);
      out.cells_[std::size_t(c)].cell = I.cell_keys[std::size_t(c)];
    }
    I.cell_record_start.assign(std::size_t(ncells) + 1, 0);
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < I.images[w].height; ++j) {
        RowWork& rw = I.axes[w].rows[std::size_t(j)];
        rw.cell_global.resize(rw.cells.size());
        for (std::size_t k = 0; k < rw.cells.size(); ++k)
          rw.cell_global[k] = std::int32_t(
              std::lower_bound(I.cell_keys.begin(), I.cell_keys.end(), rw.cells[k], cell_less) - I.cell_keys.begin());
        for (const Piece& p : rw.pieces) {
          VolumeContact& cell = out.cells_[std::size_t(rw.cell_global[std::size_t(p.cell)])];
          cell.axis_volume[w] += p.volume;
          cell.axis_longest[w] = std::max(cell.axis_longest[w], p.interval);
        }
        for (GradRecord& r : rw.cell_records) {
          r.cell = rw.cell_global[std::size_t(r.cell)];
          ++I.cell_record_start[std::size_t(r.cell) + 1];
        }
      }
    for (int c = 0; c < ncells; ++c) I.cell_record_start[std::size_t(c) + 1] += I.cell_record_start[std::size_t(c)];
    I.sorted_cell_records.resize(std::size_t(I.cell_record_start[std::size_t(ncells)]));
    std::vector<int>& cursor = I.scratch[0].cursor;
    cursor.assign(I.cell_record_start.begin(), I.cell_record_start.end() - 1);
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < I.images[w].height; ++j)
        for (const GradRecord& r : I.axes[w].rows[std::size_t(j)].cell_records)
          I.sorted_cell_records[std::size_t(cursor[std::size_t(r.cell)]++)] = r;
  }

  // Gradients (eq. 13-14, 24): one task per (contact, mesh); contact 0 is the mono volume.
  I.pool->run(2 * (1 + ncells), [&](int t, int worker) {
    const int contact = t / 2, mesh = t % 2;
    WorkerScratch& ws = I.scratch[std::size_t(worker)];
    if (contact == 0) {
      I.reduce_mono(mesh, ws, out.mono.body[mesh]);
    } else {
      const int c = contact - 1;
      const GradRecord* base = I.sorted_cell_records.data();
      I.reduce(mesh, base + I.cell_record_start[std::size_t(c)], base + I.cell_record_start[std::size_t(c) + 1], ws,
               out.cells_[std::size_t(c)].body[mesh]);
    }
  });
  I.pool->run(1 + ncells, [&](int c, int) { I.finalize(c == 0 ? out.mono : out.cells_[std::size_t(c - 1)]); });
  if (options.capture_intervals) I.capture(out.stats, out.capture);
}

// Debug capture (VolumeOptions::capture_intervals): the intervals of the finished images as world segments,
// walked exactly as process_row walks them (for_each_interval), on every stride-th pixel row and column.
// Reads the images only.
void IntersectionVolume::Impl::capture(const VolumeStats& stats, IntervalCapture& out) const {
  out.pixel_size = opt.pixel_size;
  const long limit = std::max<long>(1, opt.capture_limit);
  for (int w = 0; w < 3; ++w) {
    const LayeredDepthImage& img = images[w];
    const long total = stats.intervals[w];
    int stride = 1;
    while (total / (long(stride) * stride) > limit) ++stride;
    out.total[w] = total;
    out.stride[w] = stride;
    auto& segments = out.segments[w];
    segments.reserve(std::size_t(std::min(total, 2 * limit)));
    auto kept = [stride](int index) { return ((index % stride) + stride) % stride == 0; };
    for (int j = 0; j < img.height; ++j) {
      if (!kept(img.j0 + j)) continue;
      for (int i = 0; i < img.width; ++i) {
        if (!kept(img.i0 + i)) continue;
        for_each_interval(img.pixel(i, j), img.from_above, [&](const Crossing& lo, const Crossing& hi) {
          segments.push_back({img.point(i, j, lo.depth), img.point(i, j, hi.depth)});
        });
      }
    }
  }
}

VolumeResult intersection_volume(const MeshInput& a, const MeshInput& b, const VolumeOptions& options) {
  IntersectionVolume iv;
  VolumeResult r;
  iv.compute(a, b, options, r);
  return r;
}

}  // namespace cl::ldi
