// The layered depth images of IntersectionVolume (Allard et al. 2010, sect. 3.2): the images' extents and fixed point,
// the BVH walk for the triangles that may matter, and the rasterisation of the candidates into each image's crossings.
#include "ldi/intersection_volume_impl.h"

namespace cl::ldi {

using namespace detail;

namespace {

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

}  // namespace

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

}  // namespace cl::ldi
