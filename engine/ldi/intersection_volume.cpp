// The volumes and gradients of IntersectionVolume from its depth images (depth_images.cpp): per pixel row, the
// intervals inside both meshes and their gradient records (eq. 11-12, multi-volume eq. 22-24), reduced per mesh
// and cell, and the computation's stages run in order.
#include "ldi/intersection_volume.h"

#include "ldi/intersection_volume_impl.h"

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

using namespace detail;

IntersectionVolume::IntersectionVolume() : impl_(std::make_unique<Impl>()) {}
IntersectionVolume::~IntersectionVolume() = default;

const LayeredDepthImage& IntersectionVolume::image(int axis) const { return impl_->images[axis]; }

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

