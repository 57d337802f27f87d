#include "ldi/intersection_volume.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/stage_run.h"
#include "core/task_pool.h"
#include "mesh/bvh.h"

namespace cl::ldi {

std::size_t LayeredDepthImage::total_crossings() const {
  return empty() ? 0 : std::size_t(offsets[std::size_t(width) * std::size_t(height)]);
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
constexpr int kTriangleChunk = 4096;                              // triangles per rasterising task
// The BVH walk (plan_sets, collect_set) stops at nodes of at most this many triangles: 200 steps of the armadillo
// scene's images took 3.46e9 instructions with groups of 16 and 3.63e9 with 8 (callgrind); finer groups drop more
// triangles but cost more to walk, range and mark than they save.
constexpr int kLeafGroup = 16;

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
  std::vector<int> cursor;
  std::vector<RowWork> rows;          // never shrinks; [0, height) valid
  int m_lo = 0, m_hi = -1;            // cell range along w
};

// A crossing as a triangle's rasterisation finds it, with its pixel's index j * width + i in the image.
struct RawCrossing {
  Crossing c;
  int pixel;
};

// A triangle of one image whose snapped box holds pixel centres: the pixels [col_lo, col_hi] x [row_lo, row_hi].
struct BoxRecord {
  std::int32_t g;  // index in the concatenation of A's triangles and B's
  std::int32_t col_lo, col_hi, row_lo, row_hi;
};

// The snapped (u, v) of a BoxRecord's vertices in its image (fixed point, |.| < 2^29, see kCoordinateLimit) and their
// depths w: what rasterising it needs, kept so that the vertices are not loaded and snapped again.
struct TriangleGeometry {
  std::int32_t u[3], v[3];
  double depth[3];
};

struct ChunkOut {
  std::array<std::vector<BoxRecord>, 3> tris;  // per image: the chunk's triangles holding a pixel centre
  std::array<std::vector<TriangleGeometry>, 3> geometry;  // per image: tris' geometry, in the same order
  std::array<std::vector<RawCrossing>, 3> raw;  // per image: the crossings of the chunk's triangles
  std::array<int, 3> reached{};  // per image: the chunk's triangles whose box holds a pixel the other mesh reaches
  std::vector<std::int32_t> keep;  // scratch: triangles of the chunk that matter to some image
  bool bad_index = false;
};

struct WorkerScratch {
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

// The out-code bits every point of the box [lo, hi] (lo <= hi) has: below a side when its top is, above when its
// bottom is.
inline std::uint8_t box_outcode(const Vec3& lo, const Vec3& hi, const Aabb& box) {
  return outcode(lo, box) & outcode(hi, box);
}

// Whether a triangle's vertex indices all lie in [0, nv).
inline bool valid_indices(const std::array<int, 3>& t, int nv) {
  return t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && t[0] < nv && t[1] < nv && t[2] < nv;
}

// Whether points sharing the out-code bits `code` lie beyond a rejecting plane of every image (rej: a mesh's
// reject bits per image): then they cannot matter to any.
inline bool rejected_by_every_image(std::uint8_t code, const std::uint8_t (&rej)[3]) {
  return (code & rej[0]) && (code & rej[1]) && (code & rej[2]);
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

// Pixels [col_lo, col_hi] x [row_lo, row_hi] of an image.
struct PixelRange {
  std::int32_t col_lo, col_hi, row_lo, row_hi;
  bool empty() const { return col_lo > col_hi || row_lo > row_hi; }
};

// The pixels of a width x height image whose centres (2 i + 1) step / 2 lie in the fixed-point box [min_u, max_u] x
// [min_v, max_v] (inclusive: the tie rule may take a centre on the boundary); empty when it holds none.
// Inlined (GCC made it a call): 3.71e9 -> 3.58e9 instructions of the images over 200 steps of the armadillo scene.
inline __attribute__((always_inline)) PixelRange centres_in(std::int64_t min_u, std::int64_t max_u,
                                                            std::int64_t min_v, std::int64_t max_v,
                                                            const AxisWork& ax, int width, int height) {
  const std::int64_t half = ax.step / 2;
  const std::int64_t col_lo = std::max<std::int64_t>(0, ceil_shift(min_u - half, ax.bits));
  const std::int64_t col_hi = std::min<std::int64_t>(width - 1, floor_shift(max_u - half, ax.bits));
  const std::int64_t row_lo = std::max<std::int64_t>(0, ceil_shift(min_v - half, ax.bits));
  const std::int64_t row_hi = std::min<std::int64_t>(height - 1, floor_shift(max_v - half, ax.bits));
  if (col_lo > col_hi || row_lo > row_hi) return {1, 0, 1, 0};
  return {std::int32_t(col_lo), std::int32_t(col_hi), std::int32_t(row_lo), std::int32_t(row_hi)};
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
  c.exact_deepest = -1;
  reset_body(c.body[0]);
  reset_body(c.body[1]);
}

bool cell_less(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  if (a[2] != b[2]) return a[2] < b[2];
  if (a[1] != b[1]) return a[1] < b[1];
  return a[0] < b[0];
}

// Pixel masks: one bit a pixel, each image row in whole 64-bit words (row_words of them), so that a box's row is one
// or two words to set or test.
inline std::size_t mask_row_words(int width) { return (std::size_t(width) + 63) / 64; }

// An image's mask size: words per row, and words in all (one mesh's half of a two-mesh mask: mesh m's half is words
// [m words, (m + 1) words)).
struct MaskSize {
  std::size_t row_words, words;
  explicit MaskSize(const LayeredDepthImage& img)
      : row_words(mask_row_words(img.width)), words(row_words * std::size_t(img.height)) {}
};

// Mesh m's half of the two-mesh mask `masks`, cleared.
std::uint64_t* cleared_half(std::vector<std::uint64_t>& masks, const MaskSize& size, int m) {
  std::uint64_t* half = masks.data() + std::size_t(m) * size.words;
  std::fill(half, half + size.words, std::uint64_t(0));
  return half;
}

// Bits [lo, hi] of the mask word k (columns 64 k to 64 k + 63).
inline std::uint64_t word_bits(int lo, int hi, int k) {
  const int a = std::max(lo - 64 * k, 0), b = std::min(hi - 64 * k, 63);
  return (~std::uint64_t(0) >> (63 - b)) & (~std::uint64_t(0) << a);
}

// Sets the pixels [col_lo, col_hi] x [row_lo, row_hi].
void mark_box(std::uint64_t* mask, std::size_t row_words, int col_lo, int col_hi, int row_lo, int row_hi) {
  for (int k = col_lo >> 6; k <= col_hi >> 6; ++k) {
    const std::uint64_t bits = word_bits(col_lo, col_hi, k);
    for (int j = row_lo; j <= row_hi; ++j) mask[std::size_t(j) * row_words + std::size_t(k)] |= bits;
  }
}

// Whether any of the pixels [col_lo, col_hi] x [row_lo, row_hi] is set.
bool box_meets(const std::uint64_t* mask, std::size_t row_words, int col_lo, int col_hi, int row_lo, int row_hi) {
  for (int k = col_lo >> 6; k <= col_hi >> 6; ++k) {
    const std::uint64_t bits = word_bits(col_lo, col_hi, k);
    for (int j = row_lo; j <= row_hi; ++j)
      if (mask[std::size_t(j) * row_words + std::size_t(k)] & bits) return true;
  }
  return false;
}

// Coverage of the pixel centres in [col_lo, col_hi] x [row_lo, row_hi] set in the mask `wanted` by one
// counter-clockwise snapped triangle (twice its area `area` > 0): pixel centre P inside when every edge a -> b has E =
// (b - a) x (P - a) > 0, or E == 0 and the perturbed centre P + (eps, eps^2) is inside, i.e. E + du eps^2 - dv eps > 0:
// dv < 0, or dv == 0 and du > 0. The neighbour across the edge computes exactly -E with the reversed edge, so exactly
// one of the two claims the pixel. Each covered centre gives a crossing, its barycentric weights the edge values of the
// opposite edges over the area and its depth their weighted sum of the vertices' depths.
void rasterise(const std::int64_t U[3], const std::int64_t V[3], const double depth[3], std::int64_t area,
               bool swapped, int col_lo, int col_hi, int row_lo, int row_hi, std::int64_t step, int width,
               std::int32_t triangle, std::int8_t mesh, std::int8_t direction, const std::uint64_t* wanted,
               std::vector<RawCrossing>& out) {
  const std::size_t row_words = mask_row_words(width);
  const std::int64_t half = step / 2;
  std::int64_t du[3], dv[3];
  bool tie[3];
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3;
    du[a] = U[b] - U[a];
    dv[a] = V[b] - V[a];
    tie[a] = dv[a] < 0 || (dv[a] == 0 && du[a] > 0);
  }
  double inv_area = 0;  // 1 / area, taken at the first covered pixel (about half of the boxes cover none)
  for (int j = row_lo; j <= row_hi; ++j) {
    const std::int64_t pv = (2 * std::int64_t(j) + 1) * half;
    std::int64_t e_row[3];  // E at the pixel centre pu of the row is e_row - dv pu (exact: |E| < 2^61)
    for (int a = 0; a < 3; ++a) e_row[a] = du[a] * (pv - V[a]) + dv[a] * U[a];
    const std::uint64_t* wanted_row = wanted + std::size_t(j) * row_words;
    // Only the wanted pixels of the row are visited (a word of the mask at a time): a large triangle, as a plane's
    // box's, spans the image while the other mesh reaches a few of its pixels.
    for (int k = col_lo >> 6; k <= col_hi >> 6; ++k) {
      std::uint64_t bits = wanted_row[k] & word_bits(col_lo, col_hi, k);
      while (bits) {
        const int i = 64 * k + __builtin_ctzll(bits);
        bits &= bits - 1;
        const std::int64_t pu = (2 * std::int64_t(i) + 1) * half;
        const std::int64_t e[3] = {e_row[0] - dv[0] * pu, e_row[1] - dv[1] * pu, e_row[2] - dv[2] * pu};
        if ((e[0] > 0 || (e[0] == 0 && tie[0])) && (e[1] > 0 || (e[1] == 0 && tie[1])) &&
            (e[2] > 0 || (e[2] == 0 && tie[2]))) {
          // Barycentric weight of a vertex = the edge value of the opposite edge / area.
          if (inv_area == 0) inv_area = 1.0 / double(area);
          const double b0 = double(e[1]) * inv_area, b1 = double(e[2]) * inv_area, b2 = double(e[0]) * inv_area;
          RawCrossing& r = out.emplace_back();
          r.c.depth = b0 * depth[0] + b1 * depth[1] + b2 * depth[2];
          r.c.bary = swapped ? std::array<double, 3>{b0, b2, b1} : std::array<double, 3>{b0, b1, b2};
          r.c.triangle = triangle;
          r.c.mesh = mesh;
          r.c.direction = direction;
          r.pixel = j * width + i;
        }
      }
    }
  }
}

// The mesh's BVH when it describes the same mesh (as many vertices and triangles), else null.
const TriangleBvh* usable_tree(const MeshInput& m) {
  if (!m.tree || m.tree->box_nodes().empty()) return nullptr;
  const TriangleMesh& tm = m.tree->mesh();
  return tm.vertices.size() == m.vertices.size() && tm.triangles.size() == m.triangles.size() ? m.tree : nullptr;
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
  std::vector<std::array<int, 3>> row_tasks;       // (axis, first row, end row)
  std::vector<int> record_cursor;                  // scratch of the cells' record grouping
  std::array<int, 3> candidate_count{};            // per image: triangles rasterised (VolumeStats::candidate_triangles)
  std::array<std::vector<std::uint64_t>, 3> reach;  // per image: pixels each mesh's triangles reach (mark_reach)

  const MeshInput* in[2] = {nullptr, nullptr};
  VolumeOptions opt;
  Aabb box;
  // Per mesh and axis: count the ray's winding from +infinity (drop the triangles entirely below the box) rather
  // than from -infinity (drop those entirely above it); see compute().
  bool from_above[2][3] = {{false, false, false}, {false, false, false}};
  // Per mesh: bit w of triangle t's entry = image w may use it (pass_second); zero between computations (each
  // candidate_chunk clears its triangles' entries after reading them).
  std::array<std::vector<std::uint8_t>, 2> tri_images;
  // Groups of triangles with a box holding them all (a BVH leaf posed in world coordinates, or one triangle of a mesh
  // without a tree): the pixels a group's box reaches hold those its triangles' boxes reach, so a group none of whose
  // pixels the other mesh's groups reach has no triangle that needs rasterising in that image (pass_first,
  // pass_second).
  struct Leaf {
    Vec3 lo, hi;       // world box
    int first, count;  // slots [first, first + count) of order[mesh]
  };
  // One task of the walk for the groups (plan_sets, collect_set): a subtree of a mesh's BVH, the groups the first
  // levels of the walk reached, or a range of a mesh's triangles without a tree; with what it found.
  struct LeafSet {
    int mesh = 0;
    int node = 0;             // a tree node to walk from, or kTopLeaves, or kNoTree
    int first = 0, last = 0;  // kNoTree: triangles [first, last)
    std::vector<Leaf> leaves;
    std::array<std::vector<PixelRange>, 3> range;   // per image, per leaf: the pixels its box reaches
    std::array<std::vector<std::uint8_t>, 3> pass;  // per image, per leaf: may matter to the image
    std::vector<int> stack;                         // the walk's
    bool bad_index = false;
  };
  static constexpr int kTopLeaves = -1, kNoTree = -2;
  std::vector<LeafSet> sets;  // storage: only the first nsets are valid
  int nsets = 0;
  std::vector<std::pair<int, int>> top_walk;  // plan_sets' stack: (node, depth)
  double tol = 0;                             // widening of the posed BVH boxes (collect_set)
  Mat3 abs_rotation[2];                       // per mesh: |MeshInput::rotation|, for the posed BVH boxes
  std::array<std::span<const int>, 2> order;  // per mesh: the triangle of each leaf slot
  std::vector<int> identity;                  // 0, 1, 2, ...: the slots of a mesh without a tree
  std::array<std::vector<std::uint64_t>, 3> leaf_reach;  // per image: pixels each mesh's leaves reach (mark_leaves)
  std::uint8_t reject[2][3] = {{0, 0, 0}, {0, 0, 0}};
  double area = 0;  // pixel area s^2
  // Per task of the bounding-box stage: the box of a range of a mesh's vertices, and whether they are finite.
  struct VertexBox {
    int mesh = 0;
    std::size_t first = 0, last = 0;
    Vec3 lo, hi;
    bool finite = true;
  };
  std::vector<VertexBox> vertex_boxes;

  bool bounds(StageRun& st, VolumeResult& out);
  void images_and_volumes(StageRun& st, VolumeResult& out);
  void prepare_axis_geometry(int w, const Aabb& union_box, std::string& error);
  int classify(int m, const TriangleBvh::BoxNode& n, Vec3& lo, Vec3& hi) const;
  LeafSet& add_set(int mesh, int node);
  void plan_sets();
  void collect_set(LeafSet& set);
  void mark_leaves(int m, int w);
  void pass_first(int w);
  void pass_second(LeafSet& set);
  void candidate_chunk(int chunk, int first_b, int total);
  void gather_image(int w, int nchunks);
  void mark_reach(int w, int m, int nchunks, int first_b);
  void raster_chunk(int chunk, int first_b);
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

// The groups of triangles that can matter to some image (the test of candidate_chunk() on the vertices' out-codes),
// found by tasks (LeafSet) that are then filtered per image (pass_first, pass_second). With a mesh's BVH
// (MeshInput::tree) its nodes are walked with their boxes posed in world coordinates: a node entirely beyond a
// rejecting plane of every image is skipped with its triangles, and the nodes of at most kLeafGroup triangles reached
// are kept with their posed boxes. The posed boxes are widened by `tol` against the rounding of the caller's world
// vertices, so a node is skipped only when each of its triangles would fail the test, and a kept box holds its
// triangles. Without a tree each triangle that passes the test is a group of its own, with its vertices' box.
//
// What a walk does with node n (posed box [lo, hi]): 0 skip it, 1 keep it as a group, 2 go down to its children.
int IntersectionVolume::Impl::classify(int m, const TriangleBvh::BoxNode& n, Vec3& lo, Vec3& hi) const {
  const MeshInput& mi = *in[m];
  const Mat3& r = mi.rotation;
  const Vec3 centre = mi.position + r * (0.5 * (n.lo + n.hi));
  const Vec3 half = abs_rotation[m] * (0.5 * (n.hi - n.lo)) + Vec3::Constant(tol);
  lo = centre - half;
  hi = centre + half;
  if (rejected_by_every_image(box_outcode(lo, hi, box), reject[m])) return 0;
  return n.left >= 0 && n.count > kLeafGroup ? 2 : 1;
}

IntersectionVolume::Impl::LeafSet& IntersectionVolume::Impl::add_set(int mesh, int node) {
  if (int(sets.size()) <= nsets) sets.resize(std::size_t(nsets) + 1);
  LeafSet& s = sets[std::size_t(nsets++)];
  s.mesh = mesh;
  s.node = node;
  s.first = s.last = 0;
  s.leaves.clear();
  s.bad_index = false;
  return s;
}

// The walk's tasks, on the driver: per mesh with a tree, its first kSplitDepth levels are walked here (the groups
// they keep go to one set) and each node reached at that depth is a task of its own; a mesh without a tree is cut into
// ranges of kGroupTriangles triangles.
void IntersectionVolume::Impl::plan_sets() {
  constexpr int kSplitDepth = 5;  // up to 32 subtrees a mesh
  constexpr int kGroupTriangles = 4096;
  nsets = 0;
  for (int m = 0; m < 2; ++m) {
    const MeshInput& mi = *in[m];
    abs_rotation[m] = mi.rotation.cwiseAbs();
    const TriangleBvh* tree = usable_tree(mi);
    if (!tree) {
      order[std::size_t(m)] = std::span<const int>(identity.data(), mi.triangles.size());
      const int nt = int(mi.triangles.size());
      for (int first = 0; first < nt; first += kGroupTriangles) {
        LeafSet& s = add_set(m, kNoTree);
        s.first = first;
        s.last = std::min(nt, first + kGroupTriangles);
      }
      continue;
    }
    order[std::size_t(m)] = std::span<const int>(tree->leaf_triangles());
    const auto& nodes = tree->box_nodes();
    const int top = nsets;
    add_set(m, kTopLeaves);
    top_walk.clear();
    top_walk.emplace_back(0, 0);
    while (!top_walk.empty()) {
      const auto [index, depth] = top_walk.back();
      top_walk.pop_back();
      if (depth == kSplitDepth) {
        add_set(m, index);
        continue;
      }
      const TriangleBvh::BoxNode& n = nodes[std::size_t(index)];
      Vec3 lo, hi;
      const int action = classify(m, n, lo, hi);
      if (action == 1) sets[std::size_t(top)].leaves.push_back(Leaf{lo, hi, n.first, n.count});
      if (action == 2) {
        top_walk.emplace_back(n.right, depth + 1);
        top_walk.emplace_back(n.left, depth + 1);
      }
    }
  }
}

// One task of the walk (plan_sets), then the pixel range of each group it keeps, per image: its box's extremes snapped
// as candidate_chunk() snaps a triangle's. The box holds the vertices and both the arithmetic and the snapping are
// monotonic, so the range holds each of its triangles' (an empty range: the box misses the image).
void IntersectionVolume::Impl::collect_set(LeafSet& set) {
  const int m = set.mesh;
  const MeshInput& mi = *in[m];
  std::vector<Leaf>& out = set.leaves;
  if (set.node == kNoTree) {
    const int nv = int(mi.vertices.size());
    const auto& rej = reject[m];
    for (int tri = set.first; tri < set.last; ++tri) {
      const auto& t = mi.triangles[std::size_t(tri)];
      if (!valid_indices(t, nv)) {
        set.bad_index = true;
        continue;
      }
      const Vec3& p0 = mi.vertices[std::size_t(t[0])];
      const Vec3& p1 = mi.vertices[std::size_t(t[1])];
      const Vec3& p2 = mi.vertices[std::size_t(t[2])];
      const std::uint8_t all = outcode(p0, box) & outcode(p1, box) & outcode(p2, box);
      if (rejected_by_every_image(all, rej)) continue;
      out.push_back(Leaf{p0.cwiseMin(p1).cwiseMin(p2), p0.cwiseMax(p1).cwiseMax(p2), tri, 1});
    }
  } else if (set.node != kTopLeaves) {
    const auto& nodes = mi.tree->box_nodes();
    std::vector<int>& stack = set.stack;
    stack.clear();
    stack.push_back(set.node);
    while (!stack.empty()) {
      const TriangleBvh::BoxNode& n = nodes[std::size_t(stack.back())];
      stack.pop_back();
      Vec3 lo, hi;
      const int action = classify(m, n, lo, hi);
      if (action == 1) out.push_back(Leaf{lo, hi, n.first, n.count});
      if (action == 2) {
        stack.push_back(n.right);
        stack.push_back(n.left);
      }
    }
  }
  for (int w = 0; w < 3; ++w) {
    std::vector<PixelRange>& range = set.range[std::size_t(w)];
    range.assign(out.size(), PixelRange{1, 0, 1, 0});
    set.pass[std::size_t(w)].assign(out.size(), 0);
    const LayeredDepthImage& img = images[w];
    if (img.empty()) continue;
    const AxisWork& ax = axes[w];
    const int u = u_axis(w), v = v_axis(w);
    const double scale = ax.fixed_scale;
    const std::uint8_t rej = reject[m][w];
    for (std::size_t l = 0; l < out.size(); ++l) {
      const Leaf& leaf = out[l];
      if (box_outcode(leaf.lo, leaf.hi, box) & rej) continue;
      range[l] = centres_in(to_fixed((leaf.lo[u] - ax.origin_u) * scale), to_fixed((leaf.hi[u] - ax.origin_u) * scale),
                            to_fixed((leaf.lo[v] - ax.origin_v) * scale), to_fixed((leaf.hi[v] - ax.origin_v) * scale),
                            ax, img.width, img.height);
    }
  }
}

// Marks in mesh m's half of leaf_reach[w] the pixels its groups reach.
void IntersectionVolume::Impl::mark_leaves(int m, int w) {
  const LayeredDepthImage& img = images[w];
  if (img.empty()) return;
  const MaskSize size(img);
  std::uint64_t* mask = cleared_half(leaf_reach[std::size_t(w)], size, m);
  for (int k = 0; k < nsets; ++k) {
    const LeafSet& set = sets[std::size_t(k)];
    if (set.mesh != m) continue;
    for (const PixelRange& r : set.range[std::size_t(w)])
      if (!r.empty()) mark_box(mask, size.row_words, r.col_lo, r.col_hi, r.row_lo, r.row_hi);
  }
}

// Which groups of each mesh may matter to image w. A triangle is rasterised only at pixels the other mesh's triangles
// reach (raster_chunk), and the pixels a mesh's groups reach hold those its triangles reach; so a group of A whose
// range meets no pixel B's groups reach holds no triangle to rasterise in this image, nor one whose reach B's
// triangles need: it is dropped. A's half of leaf_reach[w] is then marked again from its kept groups alone, and B's
// groups are tested against it (pass_second), which still holds every pixel that triangles of both meshes reach. The
// triangles rasterised and the crossings they make are the same as without the groups; only fewer triangles are
// snapped, marked and tested.
void IntersectionVolume::Impl::pass_first(int w) {
  const LayeredDepthImage& img = images[w];
  if (img.empty()) return;
  const MaskSize size(img);
  const std::size_t row_words = size.row_words;
  std::uint64_t* reach_a = cleared_half(leaf_reach[std::size_t(w)], size, 0);
  const std::uint64_t* reach_b = reach_a + size.words;
  for (int k = 0; k < nsets; ++k) {
    LeafSet& set = sets[std::size_t(k)];
    if (set.mesh != 0) continue;
    const std::vector<PixelRange>& range = set.range[std::size_t(w)];
    std::vector<std::uint8_t>& pass = set.pass[std::size_t(w)];
    for (std::size_t l = 0; l < range.size(); ++l) {
      const PixelRange& r = range[l];
      if (r.empty() || !box_meets(reach_b, row_words, r.col_lo, r.col_hi, r.row_lo, r.row_hi)) continue;
      pass[l] = 1;
      mark_box(reach_a, row_words, r.col_lo, r.col_hi, r.row_lo, r.row_hi);
    }
  }
}

// B's groups of the set against the pixels A's kept groups reach (see pass_first); then the triangles of the set's kept
// groups, with the images each may matter to, into tri_images. Whether a kept triangle itself lies beyond a rejecting
// plane of an image is tested by candidate_chunk, which loads its vertices anyway.
void IntersectionVolume::Impl::pass_second(LeafSet& set) {
  const int m = set.mesh;
  const std::size_t n = set.leaves.size();
  if (m == 1)
    for (int w = 0; w < 3; ++w) {
      const LayeredDepthImage& img = images[w];
      if (img.empty()) continue;
      const MaskSize size(img);
      const std::uint64_t* reach_a = leaf_reach[std::size_t(w)].data();
      const std::vector<PixelRange>& range = set.range[std::size_t(w)];
      std::vector<std::uint8_t>& pass = set.pass[std::size_t(w)];
      for (std::size_t l = 0; l < n; ++l) {
        const PixelRange& r = range[l];
        pass[l] = !r.empty() && box_meets(reach_a, size.row_words, r.col_lo, r.col_hi, r.row_lo, r.row_hi);
      }
    }
  std::uint8_t* images_of = tri_images[std::size_t(m)].data();
  const std::span<const int> slots = order[std::size_t(m)];
  for (std::size_t l = 0; l < n; ++l) {
    const std::uint8_t which = std::uint8_t(set.pass[0][l] | (set.pass[1][l] << 1) | (set.pass[2][l] << 2));
    if (!which) continue;
    const Leaf& leaf = set.leaves[l];
    for (int slot = leaf.first; slot < leaf.first + leaf.count; ++slot) images_of[slots[std::size_t(slot)]] = which;
  }
}

// The selected triangles among [chunk * kTriangleChunk, ...) of the concatenation A, B: per image they matter to, the
// pixels whose centres their snapped box holds (most hold none or one). A triangle matters to image w when its box
// meets the overlap box in u and v and it is not entirely on the side of the box along w that its mesh's winding count
// does not need: beyond hi_w when counted from -infinity, below lo_w when counted from +infinity.
void IntersectionVolume::Impl::candidate_chunk(int chunk, int first_b, int total) {
  ChunkOut& out = chunks[chunk];
  for (auto& t : out.tris) t.clear();
  for (auto& t : out.geometry) t.clear();
  out.bad_index = false;
  const int begin = chunk * kTriangleChunk, end = std::min(total, begin + kTriangleChunk);
  std::vector<std::int32_t>& keep = out.keep;
  keep.clear();
  // The selected triangles (a non-zero tri_images entry), eight entries at a time: most are zero.
  for (int g = begin; g < end;) {
    const int mesh = g < first_b ? 0 : 1;
    const int tri = mesh == 0 ? g : g - first_b;
    const int stop = std::min(end, mesh == 0 ? first_b : total);
    const std::uint8_t* flags = tri_images[std::size_t(mesh)].data() + tri;
    const int n = stop - g;
    int k = 0;
    for (; k + 8 <= n; k += 8) {
      std::uint64_t word;
      std::memcpy(&word, flags + k, sizeof word);
      while (word) {
        const int byte = __builtin_ctzll(word) >> 3;
        keep.push_back(g + k + byte);
        word &= ~(std::uint64_t(0xff) << (8 * byte));
      }
    }
    for (; k < n; ++k)
      if (flags[k]) keep.push_back(g + k);
    g = stop;
  }
  auto triangle_of = [first_b](int g, int& mesh) {
    mesh = g < first_b ? 0 : 1;
    return mesh == 0 ? g : g - first_b;
  };
  // The vertex loads are random and dominate: prefetch them a few triangles ahead.
  constexpr std::size_t kAhead = 8;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    if (k + kAhead < keep.size()) {
      int mesh;
      const int tri = triangle_of(keep[k + kAhead], mesh);
      const MeshInput& m = *in[mesh];
      const auto& t = m.triangles[std::size_t(tri)];
      const int nv = int(m.vertices.size());
      for (int c = 0; c < 3; ++c) __builtin_prefetch(m.vertices.data() + std::clamp(t[c], 0, nv - 1));
    }
    int mesh;
    const int tri = triangle_of(keep[k], mesh);
    const MeshInput& m = *in[mesh];
    const auto& t = m.triangles[std::size_t(tri)];
    const int nv = int(m.vertices.size());
    if (!valid_indices(t, nv)) {
      out.bad_index = true;
      continue;
    }
    const Vec3* p[3] = {&m.vertices[std::size_t(t[0])], &m.vertices[std::size_t(t[1])], &m.vertices[std::size_t(t[2])]};
    const std::uint8_t all = outcode(*p[0], box) & outcode(*p[1], box) & outcode(*p[2], box);
    const auto& rej = reject[mesh];
    const std::uint8_t which = tri_images[std::size_t(mesh)][std::size_t(tri)];
    for (int w = 0; w < 3; ++w) {
      const LayeredDepthImage& img = images[w];
      if (img.empty() || (all & rej[w]) || !(which & (1u << w))) continue;
      const int u = u_axis(w), v = v_axis(w);
      const AxisWork& ax = axes[w];
      // Pixels whose centres (2 i + 1) step / 2 lie in the snapped box (inclusive: the tie rule may take a
      // centre on the boundary). Most triangles of a fine mesh are smaller than a pixel and hold no centre.
      const double scale = ax.fixed_scale;
      const std::int64_t u0 = to_fixed(((*p[0])[u] - ax.origin_u) * scale),
                         u1 = to_fixed(((*p[1])[u] - ax.origin_u) * scale),
                         u2 = to_fixed(((*p[2])[u] - ax.origin_u) * scale);
      const std::int64_t v0 = to_fixed(((*p[0])[v] - ax.origin_v) * scale),
                         v1 = to_fixed(((*p[1])[v] - ax.origin_v) * scale),
                         v2 = to_fixed(((*p[2])[v] - ax.origin_v) * scale);
      const PixelRange r = centres_in(std::min(std::min(u0, u1), u2), std::max(std::max(u0, u1), u2),
                                      std::min(std::min(v0, v1), v2), std::max(std::max(v0, v1), v2), ax, img.width,
                                      img.height);
      if (r.empty()) continue;
      out.tris[w].push_back(BoxRecord{keep[k], r.col_lo, r.col_hi, r.row_lo, r.row_hi});
      out.geometry[w].push_back(TriangleGeometry{{std::int32_t(u0), std::int32_t(u1), std::int32_t(u2)},
                                                 {std::int32_t(v0), std::int32_t(v1), std::int32_t(v2)},
                                                 {(*p[0])[w], (*p[1])[w], (*p[2])[w]}});
    }
  }
  // The chunk's entries of tri_images back to zero for the next computation.
  for (int g = begin; g < end;) {
    const int mesh = g < first_b ? 0 : 1;
    const int stop = std::min(end, mesh == 0 ? first_b : total);
    std::memset(tri_images[std::size_t(mesh)].data() + (mesh == 0 ? g : g - first_b), 0, std::size_t(stop - g));
    g = stop;
  }
}

// Marks in mesh m's half of reach[w] (words [m n, (m + 1) n)) the pixels whose centres some triangle of the mesh
// holds in its box. A ray can be inside both meshes only where both have crossings, so only the triangles whose box
// reaches a pixel the other mesh reaches are rasterised (see raster_chunk).
void IntersectionVolume::Impl::mark_reach(int w, int m, int nchunks, int first_b) {
  const LayeredDepthImage& img = images[w];
  if (img.empty()) return;
  const MaskSize size(img);
  std::uint64_t* mask = cleared_half(reach[std::size_t(w)], size, m);
  // The chunks holding mesh m's triangles (A's are [0, first_b), B's the rest).
  const int c0 = m == 0 ? 0 : first_b / kTriangleChunk;
  const int c1 = m == 0 ? std::min(nchunks, (first_b + kTriangleChunk - 1) / kTriangleChunk) : nchunks;
  for (int c = c0; c < c1; ++c)
    for (const BoxRecord& t : chunks[std::size_t(c)].tris[w])
      if ((t.g < first_b ? 0 : 1) == m) mark_box(mask, size.row_words, t.col_lo, t.col_hi, t.row_lo, t.row_hi);
}

// Rasterises the chunk's triangles at the pixels the other mesh reaches. The crossings left out would lie on rays
// that only their mesh crosses, where the other mesh's winding count is zero: no interval inside both (eq. 11),
// so nothing of the volumes or their gradients is lost; such pixels miss crossings (layered_depth_image.h).
void IntersectionVolume::Impl::raster_chunk(int chunk, int first_b) {
  ChunkOut& out = chunks[std::size_t(chunk)];
  for (int w = 0; w < 3; ++w) {
    out.raw[w].clear();
    out.reached[w] = 0;
    const LayeredDepthImage& img = images[w];
    const AxisWork& ax = axes[w];
    const MaskSize size(img);
    const std::size_t count = out.tris[w].size();
    for (std::size_t k = 0; k < count; ++k) {
      const BoxRecord& r = out.tris[w][k];
      const int mesh = r.g < first_b ? 0 : 1;
      // Most boxes hold one or two centres: first whether the other mesh reaches any of them.
      const std::uint64_t* wanted = reach[w].data() + std::size_t(1 - mesh) * size.words;
      if (!box_meets(wanted, size.row_words, r.col_lo, r.col_hi, r.row_lo, r.row_hi)) continue;
      ++out.reached[w];
      const int tri = mesh == 0 ? r.g : r.g - first_b;
      const TriangleGeometry& geo = out.geometry[w][k];
      std::int64_t U[3] = {geo.u[0], geo.u[1], geo.u[2]}, V[3] = {geo.v[0], geo.v[1], geo.v[2]};
      std::int64_t area = (U[1] - U[0]) * (V[2] - V[0]) - (V[1] - V[0]) * (U[2] - U[0]);
      if (area == 0) continue;  // seen edge-on: no ray crosses it
      double depth[3] = {geo.depth[0], geo.depth[1], geo.depth[2]};
      // The projected area has the sign of the normal's w component: positive = the ray leaves the mesh.
      const std::int8_t direction = area > 0 ? -1 : 1;
      const bool swapped = area < 0;  // vertices 1 and 2 exchanged to make it counter-clockwise
      if (swapped) {
        std::swap(U[1], U[2]);
        std::swap(V[1], V[2]);
        std::swap(depth[1], depth[2]);
        area = -area;
      }
      rasterise(U, V, depth, area, swapped, r.col_lo, r.col_hi, r.row_lo, r.row_hi, ax.step, img.width, tri,
                std::int8_t(mesh), direction, wanted, out.raw[w]);
    }
  }
}

// Gathers the chunks' crossings of image w by pixel (stable: chunk order within a pixel) into the image.
void IntersectionVolume::Impl::gather_image(int w, int nchunks) {
  LayeredDepthImage& img = images[w];
  const std::size_t npix = std::size_t(img.width) * std::size_t(img.height);
  std::vector<int>& offsets = img.offsets;
  offsets.assign(npix + 1, 0);
  for (int c = 0; c < nchunks; ++c)
    for (const RawCrossing& r : chunks[std::size_t(c)].raw[w]) ++offsets[std::size_t(r.pixel) + 1];
  for (std::size_t k = 0; k < npix; ++k) offsets[k + 1] += offsets[k];
  img.crossings.resize(std::size_t(offsets[npix]));
  std::vector<int>& cursor = axes[w].cursor;
  cursor.assign(offsets.begin(), offsets.end() - 1);
  for (int c = 0; c < nchunks; ++c)
    for (const RawCrossing& r : chunks[std::size_t(c)].raw[w])
      img.crossings[std::size_t(cursor[std::size_t(r.pixel)]++)] = r.c;
}

// Sorts each pixel's crossings of row j of image w by depth and walks every ray: intervals inside both meshes
// give the row's volume (eq. 11) and gradient records (eq. 12), and with cells their pieces (eq. 22-24).
void IntersectionVolume::Impl::process_row(int w, int j, WorkerScratch& ws) {
  AxisWork& ax = axes[w];
  LayeredDepthImage& img = images[w];
  RowWork& rw = ax.rows[j];
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

  // Sort each pixel's crossings by depth.
  Crossing* const base = img.crossings.data();
  const int* const offsets = img.offsets.data() + std::size_t(j) * std::size_t(width);
  for (int i = 0; i < width; ++i) sort_crossings(base + offsets[i], base + offsets[i + 1]);

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
    const Crossing* c = base + first;
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
  // The stages run as one StageRun on the pool's threads (one wake-up of the workers per computation). Small problems
  // run on the caller alone: the workers' wake-up costs more than it saves (a grasped 16 cm block: 0.5 ms per step on
  // two threads against 0.12 ms on one, when each stage woke them). Large meshes go parallel from the bounding boxes
  // on; smaller ones once the images have kParallelPixels.
  constexpr std::size_t kParallelTriangles = 20000;
  constexpr double kParallelPixels = 20000;
  if (a.triangles.size() + b.triangles.size() >= kParallelTriangles) {
    run_stages(*I.pool, [&](StageRun& st) {
      if (I.bounds(st, out)) I.images_and_volumes(st, out);
    });
    return;
  }
  StageRun serial;
  if (!I.bounds(serial, out)) return;
  const Vec3 extent = (I.box.hi - I.box.lo) / options.pixel_size;
  const double pixels = extent.x() * extent.y() + extent.y() * extent.z() + extent.z() * extent.x();
  if (pixels >= kParallelPixels)
    run_stages(*I.pool, [&](StageRun& st) { I.images_and_volumes(st, out); });
  else
    I.images_and_volumes(serial, out);
}

// The meshes' bounding boxes and their overlap (no ray outside it can be inside both meshes), each image's extent and
// fixed point, and which side each mesh's winding counts come from. False when there is nothing more to compute (no
// overlap, or an error in out.error).
bool IntersectionVolume::Impl::bounds(StageRun& st, VolumeResult& out) {
  const MeshInput& a = *in[0];
  const MeshInput& b = *in[1];
  // Vertex ranges as tasks; min and max are exact, so the boxes do not depend on the split.
  constexpr std::size_t kVertexChunk = 16384;
  vertex_boxes.clear();
  for (int m = 0; m < 2; ++m)
    for (std::size_t first = 0; first < in[m]->vertices.size(); first += kVertexChunk)
      vertex_boxes.push_back(
          VertexBox{m, first, std::min(in[m]->vertices.size(), first + kVertexChunk), Vec3::Zero(), Vec3::Zero(),
                    true});
  st.parallel(int(vertex_boxes.size()), [this](int t, int) {
    VertexBox& vb = vertex_boxes[std::size_t(t)];
    const std::span<const Vec3> vertices = in[vb.mesh]->vertices;
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    bool ok = true;
    for (std::size_t k = vb.first; k < vb.last; ++k) {
      const Vec3& p = vertices[k];
      ok = ok && all_finite(p);
      lo = lo.cwiseMin(p);
      hi = hi.cwiseMax(p);
    }
    vb.lo = lo;
    vb.hi = hi;
    vb.finite = ok;
  });
  Aabb bb[2];
  bool finite[2] = {true, true};
  for (int m = 0; m < 2; ++m) {
    bb[m].lo = Vec3::Constant(std::numeric_limits<double>::infinity());
    bb[m].hi = -bb[m].lo;
  }
  for (const VertexBox& vb : vertex_boxes) {
    bb[vb.mesh].lo = bb[vb.mesh].lo.cwiseMin(vb.lo);
    bb[vb.mesh].hi = bb[vb.mesh].hi.cwiseMax(vb.hi);
    finite[vb.mesh] = finite[vb.mesh] && vb.finite;
  }
  for (int m = 0; m < 2; ++m)
    if (!finite[m] || !all_finite(bb[m].lo) || !all_finite(bb[m].hi)) {
      out.error = std::string("ldi: mesh ") + (m == 0 ? "A" : "B") + " has no vertices or non-finite coordinates";
      return false;
    }
  if (!bb[0].overlaps(bb[1])) return false;
  box = Aabb{bb[0].lo.cwiseMax(bb[1].lo), bb[0].hi.cwiseMin(bb[1].hi)};
  out.boxes_overlap = true;
  out.overlap = box;
  area = opt.pixel_size * opt.pixel_size;
  const Aabb union_box{bb[0].lo.cwiseMin(bb[1].lo), bb[0].hi.cwiseMax(bb[1].hi)};
  // Along each axis a mesh's winding count is needed only inside [lo_w, hi_w]: count it from the side where less
  // of the mesh lies outside the box, and drop the triangles entirely on the other side (for two bodies side by
  // side along x, all of A left of the box would otherwise be rasterised in the x image). The mesh whose box
  // starts at lo_w always counts from -infinity and has no crossing below lo_w, the one whose box ends at hi_w has
  // exact counts above hi_w whichever way it counts: so no interval is found outside the box, and inside it both
  // counts are exact.
  for (int m = 0; m < 2; ++m) {
    for (int w = 0; w < 3; ++w) {
      from_above[m][w] = (box.lo[w] - bb[m].lo[w]) > (bb[m].hi[w] - box.hi[w]);
      images[w].from_above[m] = from_above[m][w];
      const int u = u_axis(w), v = v_axis(w);
      reject[m][w] = std::uint8_t((3u << (2 * u)) | (3u << (2 * v)) | ((from_above[m][w] ? 1u : 2u) << (2 * w)));
    }
  }
  for (int w = 0; w < 3; ++w) {
    prepare_axis_geometry(w, union_box, out.error);
    if (!out.ok()) {
      for (auto& img : images) img.width = img.height = 0;
      out.boxes_overlap = false;
      return false;
    }
  }
  // The BVH walk's boxes are widened by far more than the rounding of world vertices (about 1e-16 of their
  // coordinates).
  tol = 1e-9 * (1.0 + union_box.lo.cwiseAbs().cwiseMax(union_box.hi.cwiseAbs()).maxCoeff());
  if (identity.size() < std::max(a.triangles.size(), b.triangles.size())) {
    const std::size_t from = identity.size();
    identity.resize(std::max(a.triangles.size(), b.triangles.size()));
    for (std::size_t k = from; k < identity.size(); ++k) identity[k] = int(k);
  }
  for (int m = 0; m < 2; ++m)
    if (tri_images[std::size_t(m)].size() < in[m]->triangles.size())
      tri_images[std::size_t(m)].resize(in[m]->triangles.size(), 0);
  return true;
}

// The stages after bounds(): the groups of triangles that can matter to some image and their filter (the walk's tasks,
// then per image), the selected triangles' pixel boxes and rasterisation in parallel chunks, their crossings gathered
// by pixel in chunk order, the pixel rows (volumes and gradient records), then the cells and the gradients.
void IntersectionVolume::Impl::images_and_volumes(StageRun& st, VolumeResult& out) {
  plan_sets();
  st.parallel(nsets, [this](int k, int) { collect_set(sets[std::size_t(k)]); });
  for (int w = 0; w < 3; ++w) {
    const LayeredDepthImage& img = images[w];
    if (!img.empty()) {
      const MaskSize size(img);
      leaf_reach[std::size_t(w)].resize(2 * size.words);
      reach[std::size_t(w)].resize(2 * size.words);
    }
  }
  st.parallel(6, [this](int t, int) { mark_leaves(t / 3, t % 3); });
  st.parallel(3, [this](int w, int) { pass_first(w); });
  st.parallel(nsets, [this](int k, int) { pass_second(sets[std::size_t(k)]); });
  bool bad_index = false;
  for (int k = 0; k < nsets; ++k) bad_index = bad_index || sets[std::size_t(k)].bad_index;
  const int first_b = int(in[0]->triangles.size());
  const int total = first_b + int(in[1]->triangles.size());
  const int nchunks = (total + kTriangleChunk - 1) / kTriangleChunk;
  if (int(chunks.size()) < nchunks) chunks.resize(std::size_t(nchunks));
  // (Runs even when a bad index was found: it also clears tri_images.)
  st.parallel(nchunks, [this, first_b, total](int c, int) { candidate_chunk(c, first_b, total); });
  for (int c = 0; c < nchunks; ++c) bad_index = bad_index || chunks[std::size_t(c)].bad_index;
  if (bad_index) {
    out.error = "ldi: a triangle has a vertex index out of range";
    for (auto& img : images) img.width = img.height = 0;
    out.boxes_overlap = false;
    return;
  }
  st.parallel(6, [this, nchunks, first_b](int t, int) { mark_reach(t / 2, t % 2, nchunks, first_b); });
  st.parallel(nchunks, [this, first_b](int c, int) { raster_chunk(c, first_b); });
  for (int w = 0; w < 3; ++w) {
    candidate_count[w] = 0;
    for (int c = 0; c < nchunks; ++c) candidate_count[w] += chunks[std::size_t(c)].reached[w];
  }
  st.parallel(3, [this, nchunks](int w, int) { gather_image(w, nchunks); });
  for (int w = 0; w < 3; ++w) out.stats.candidate_triangles[w] = candidate_count[w];

  // Rows of all three images, in parallel: runs of consecutive rows of about the same work each (a row's crossings
  // and pixels), so that the many empty rows do not cost a hand-out each.
  row_tasks.clear();
  double work = 0;
  for (int w = 0; w < 3; ++w) {
    const LayeredDepthImage& img = images[w];
    work += double(img.total_crossings()) + 0.125 * double(img.width) * double(img.height) + 8.0 * img.height;
  }
  const double per_task = std::max(1.0, work / 64.0);
  for (int w = 0; w < 3; ++w) {
    LayeredDepthImage& img = images[w];
    const std::size_t h = std::size_t(img.height);
    if (axes[w].rows.size() < h) axes[w].rows.resize(h);
    out.stats.pixels[w] = img.width * img.height;
    double acc = 0;
    int start = 0;
    for (int j = 0; j < img.height; ++j) {
      const std::size_t row = std::size_t(j) * std::size_t(img.width);
      acc += double(img.offsets[row + std::size_t(img.width)] - img.offsets[row]) + 0.125 * img.width + 8.0;
      if (acc >= per_task || j + 1 == img.height) {
        row_tasks.push_back({w, start, j + 1});
        start = j + 1;
        acc = 0;
      }
    }
  }
  st.parallel(int(row_tasks.size()), [this](int t, int worker) {
    const std::array<int, 3>& task = row_tasks[std::size_t(t)];
    for (int j = task[1]; j < task[2]; ++j) process_row(task[0], j, scratch[std::size_t(worker)]);
  });

  // Mono volume per axis (eq. 11), summed in row order.
  for (int w = 0; w < 3; ++w) {
    double length = 0;
    for (int j = 0; j < images[w].height; ++j) {
      const RowWork& rw = axes[w].rows[std::size_t(j)];
      length += rw.length;
      out.mono.axis_longest[w] = std::max(out.mono.axis_longest[w], rw.longest);
      out.stats.intervals[w] += rw.intervals;
      out.stats.unclosed_rays += rw.unclosed;
    }
    out.mono.axis_volume[w] = area * length;
    out.stats.crossings[w] = long(images[w].total_crossings());
  }

  // Multi-volume: number the cells (sorted by z, y, x), add up their pieces, group their records by cell.
  int ncells = 0;
  if (opt.multi_volume) {
    cell_keys.clear();
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < images[w].height; ++j) {
        const auto& cells = axes[w].rows[std::size_t(j)].cells;
        cell_keys.insert(cell_keys.end(), cells.begin(), cells.end());
      }
    std::sort(cell_keys.begin(), cell_keys.end(), cell_less);
    cell_keys.erase(std::unique(cell_keys.begin(), cell_keys.end()), cell_keys.end());
    ncells = int(cell_keys.size());
    if (out.cells_.size() < std::size_t(ncells)) out.cells_.resize(std::size_t(ncells));
    out.num_cells_ = std::size_t(ncells);
    for (int c = 0; c < ncells; ++c) {
      reset_contact(out.cells_[std::size_t(c)]);
      out.cells_[std::size_t(c)].cell = cell_keys[std::size_t(c)];
    }
    cell_record_start.assign(std::size_t(ncells) + 1, 0);
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < images[w].height; ++j) {
        RowWork& rw = axes[w].rows[std::size_t(j)];
        rw.cell_global.resize(rw.cells.size());
        for (std::size_t k = 0; k < rw.cells.size(); ++k)
          rw.cell_global[k] = std::int32_t(
              std::lower_bound(cell_keys.begin(), cell_keys.end(), rw.cells[k], cell_less) - cell_keys.begin());
        for (const Piece& p : rw.pieces) {
          VolumeContact& cell = out.cells_[std::size_t(rw.cell_global[std::size_t(p.cell)])];
          cell.axis_volume[w] += p.volume;
          cell.axis_longest[w] = std::max(cell.axis_longest[w], p.interval);
        }
        for (GradRecord& r : rw.cell_records) {
          r.cell = rw.cell_global[std::size_t(r.cell)];
          ++cell_record_start[std::size_t(r.cell) + 1];
        }
      }
    for (int c = 0; c < ncells; ++c) cell_record_start[std::size_t(c) + 1] += cell_record_start[std::size_t(c)];
    sorted_cell_records.resize(std::size_t(cell_record_start[std::size_t(ncells)]));
    std::vector<int>& cursor = record_cursor;
    cursor.assign(cell_record_start.begin(), cell_record_start.end() - 1);
    for (int w = 0; w < 3; ++w)
      for (int j = 0; j < images[w].height; ++j)
        for (const GradRecord& r : axes[w].rows[std::size_t(j)].cell_records)
          sorted_cell_records[std::size_t(cursor[std::size_t(r.cell)]++)] = r;
  }

  // Gradients (eq. 13-14, 24): one task per (contact, mesh); contact 0 is the mono volume.
  st.parallel(2 * (1 + ncells), [this, &out](int t, int worker) {
    const int contact = t / 2, mesh = t % 2;
    WorkerScratch& ws = scratch[std::size_t(worker)];
    if (contact == 0) {
      reduce_mono(mesh, ws, out.mono.body[mesh]);
    } else {
      const int c = contact - 1;
      const GradRecord* base = sorted_cell_records.data();
      reduce(mesh, base + cell_record_start[std::size_t(c)], base + cell_record_start[std::size_t(c) + 1], ws,
             out.cells_[std::size_t(c)].body[mesh]);
    }
  });
  st.parallel(1 + ncells, [this, &out](int c, int) { finalize(c == 0 ? out.mono : out.cells_[std::size_t(c - 1)]); });
  if (opt.capture_intervals) capture(out.stats, out.capture);
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
