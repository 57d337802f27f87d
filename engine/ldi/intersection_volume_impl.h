// The workings of IntersectionVolume (intersection_volume.h), shared by its two stage files: the depth images'
// rasterisation (depth_images.cpp) and the volumes and gradients from them (intersection_volume.cpp). Not for use
// outside this folder.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/stage_run.h"
#include "core/task_pool.h"
#include "ldi/intersection_volume.h"
#include "mesh/bvh.h"

namespace cl::ldi {

namespace detail {

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
inline void next_generation(WorkerScratch& ws) {
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

inline void sort_crossings(Crossing* first, Crossing* last) {
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

inline void reset_body(BodyTerms& b) {
  b.gradient.clear();
  b.linear.setZero();
  b.angular.setZero();
  b.area_sum = 0;
  b.area_moment.setZero();
}

inline void reset_contact(VolumeContact& c) {
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

inline bool cell_less(const std::array<int, 3>& a, const std::array<int, 3>& b) {
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
inline std::uint64_t* cleared_half(std::vector<std::uint64_t>& masks, const MaskSize& size, int m) {
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
inline void mark_box(std::uint64_t* mask, std::size_t row_words, int col_lo, int col_hi, int row_lo, int row_hi) {
  for (int k = col_lo >> 6; k <= col_hi >> 6; ++k) {
    const std::uint64_t bits = word_bits(col_lo, col_hi, k);
    for (int j = row_lo; j <= row_hi; ++j) mask[std::size_t(j) * row_words + std::size_t(k)] |= bits;
  }
}

// Whether any of the pixels [col_lo, col_hi] x [row_lo, row_hi] is set.
inline bool box_meets(const std::uint64_t* mask, std::size_t row_words, int col_lo, int col_hi, int row_lo, int row_hi) {
  for (int k = col_lo >> 6; k <= col_hi >> 6; ++k) {
    const std::uint64_t bits = word_bits(col_lo, col_hi, k);
    for (int j = row_lo; j <= row_hi; ++j)
      if (mask[std::size_t(j) * row_words + std::size_t(k)] & bits) return true;
  }
  return false;
}

// The mesh's BVH when it describes the same mesh (as many vertices and triangles), else null.
inline const TriangleBvh* usable_tree(const MeshInput& m) {
  if (!m.tree || m.tree->box_nodes().empty()) return nullptr;
  const TriangleMesh& tm = m.tree->mesh();
  return tm.vertices.size() == m.vertices.size() && tm.triangles.size() == m.triangles.size() ? m.tree : nullptr;
}

}  // namespace detail

struct IntersectionVolume::Impl {
  // The working types of the stages (detail::), by their short names.
  using AxisWork = detail::AxisWork;
  using ChunkOut = detail::ChunkOut;
  using WorkerScratch = detail::WorkerScratch;
  using GradRecord = detail::GradRecord;
  using PixelRange = detail::PixelRange;
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

}  // namespace cl::ldi
