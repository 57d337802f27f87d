// Intersection volume of two closed triangle meshes and its gradient with respect to every vertex, from layered
// depth images (Allard et al. 2010, "Volume contact constraints at arbitrary resolution", section 3.2, eq. 11-14),
// split by a grid into several volumes (section 5, eq. 22-24), with what friction needs (section 4.2, eq. 20-21).
// This is the geometric kernel of the `volume` solver; it knows nothing of bodies beyond an optional centre for
// the rigid chain rule.
//
// Method, per axis w of x, y, z (see layered_depth_image.h for the images):
//  - along each pixel's ray, winding counts of both meshes over the sorted crossings give the intervals inside
//    both; their lengths times the pixel area a = s^2 sum to that axis's volume estimate V_w (eq. 11: an
//    interval runs from a lower surface z- to an upper one z+);
//  - moving the upper surface point of an interval along w by dz grows the volume by a dz, the lower one shrinks
//    it; the surface point's depth is sum_k b_k w_k over its triangle's vertices, so the vertex k of the triangle
//    at an upper end gets +a b_k, at a lower end -a b_k, in its w component (eq. 12). This is the exact
//    derivative of V_w with respect to the vertices' w coordinates (V_w is piecewise linear in them: moving a
//    vertex along w does not change which pixels its triangles cover).
//  - the three estimates are averaged (the paper accumulates the volume three times and "subsequently corrects
//    by 1/3"; AxisCombination::NormalWeighted is an alternative for thin layers); each gradient component comes
//    from its own axis only (eq. 13-14): dV/dp_k = (dV_x/dp_k^x, dV_y/dp_k^y, dV_z/dp_k^z). The other
//    components are not available from one image (a triangle's depth moves by its slope when it slides
//    sideways, unbounded at grazing angles), which is why three images are rendered.
//  - exact balance: the weights of a crossing sum to 1 and both ends of an interval lie on the same ray, so over
//    the two meshes the gradients sum to zero (F_A = -F_B) and their moments about any common point cancel (up to
//    the sub-pixel snapping of the vertices, 2^-16 pixel).
//
// Multi-volume (section 5): the world is cut by a grid of cubic cells of side cell_size aligned with the image
// axes (cell (cx, cy, cz) covers [cx h, (cx + 1) h) x ...). A ray belongs to the cell column of its pixel centre;
// along the ray, an interval is cut by the cell walls w = m h. A piece bounded by a wall W (rather than by a
// surface) has W = alpha z+ + (1 - alpha) z- (eq. 22-23) with alpha fixed, so the wall's term of the gradient is
// shared by the interval's two surfaces: a alpha at z+ and a (1 - alpha) at z- (eq. 24). Hence each cell's
// forces are equal and opposite, and the walls' terms cancel between neighbouring cells: the cells' volumes and
// gradients add up to the mono volume and gradient (up to rounding).
//
// Friction (section 4.2): normal n = the summed repulsion direction; per-vertex area A_k = n . dV/dp_k (eq. 20);
// weighted relative velocity v_rel = sum_k A_k dp_k/dt over both meshes, zero when both translate together
// because sum_k A_k = 0 (the gradients balance). (Not when they turn together: sum_k A_k p_k over both meshes is
// not zero, the two contact surfaces' barycentres being about a depth apart, the paper's "ghost torque".) For a
// rigid body with velocity (v, omega) about centre c, sum_k A_k dp_k/dt = S v + omega x M with S = sum_k A_k and
// M = sum_k A_k (p_k - c): BodyTerms carries S and M, so the friction row along a tangent t for that body is
// [S t^T, (M x t)^T] (eq. 21 chained to the rigid DOFs).
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/math.h"
#include "ldi/layered_depth_image.h"
#include "ldi/volume_contact.h"

namespace cl {
class TriangleBvh;
}

namespace cl::ldi {

// A closed, outward-oriented triangle mesh in world coordinates (the caller applies the body's pose). The spans
// must stay valid during compute().
struct MeshInput {
  std::span<const Vec3> vertices;
  std::span<const std::array<int, 3>> triangles;  // counter-clockwise seen from outside
  Vec3 centre = Vec3::Zero();  // reference point of the rigid rotation for dV/dtheta (the body's centre of mass)
  // Optional: the BVH of the same mesh in the body's frame (same vertices and triangles, in the same order) and
  // the pose that gives `vertices`: vertices[k] = position + rotation * tree->mesh().vertices[k]. With it only the
  // triangles in tree nodes that reach the images are visited (most of a large mesh is far from the other);
  // the results are the same bit for bit. Ignored when its mesh's sizes differ from these spans.
  const TriangleBvh* tree = nullptr;
  Mat3 rotation = Mat3::Identity();
  Vec3 position = Vec3::Zero();
};

// How a contact's volume is made from the three images' estimates.
enum class AxisCombination {
  // The paper's: the mean of the three (sect. 3.2, "accumulated three times and subsequently corrected by 1/3").
  Mean,
  // sum_w n_w^2 V_w with n the contact's normal (the mean when the normal is zero). A thin layer (a resting
  // contact a fraction of a pixel deep) is sampled exactly by the image looking along its normal but only by
  // the rows that happen to cross it in the other two: for a face-to-face contact aligned with the axes,
  // half a pixel deep, the mean reads 0.33 or 1.67 times the volume depending on the sub-pixel position, while
  // this weighting reads it exactly. Same expectation as the mean for any shape; the gradient is unchanged.
  NormalWeighted,
};

struct VolumeOptions {
  double pixel_size = 0.01;  // s, m, > 0: side of the square pixels of all three images
  bool multi_volume = false; // also split the intersection by the cell grid (section 5)
  double cell_size = 0.05;   // h, m, >= pixel_size: side of the multi-volume cells
  int threads = 1;           // workers including the caller; 0 = all hardware threads. Results do not depend on it
  int max_image_side = 8192; // pixels; a larger image (pixel size too small for the overlap) is an error
  AxisCombination combine = AxisCombination::Mean;
  // Debug capture for drawing (VolumeResult::capture): off by default, and then it costs nothing. When on, the
  // intervals are gathered after everything else is computed, from the finished images; the volumes,
  // gradients and cells are bit-identical either way.
  bool capture_intervals = false;
  long capture_limit = 20000;  // at most about this many segments per axis (see IntervalCapture::stride)
};

// The intervals inside both meshes (eq. 11) as world segments, for drawing the intersection volumes as in the
// paper's Fig. 1 (x, y and z images in red, green and blue). Segment k of axis w runs along w from the lower
// surface z- to the upper surface z+ of one interval, at the centre of its pixel.
struct IntervalCapture {
  std::array<std::vector<std::array<Vec3, 2>>, 3> segments;  // per axis w: {lower, upper} world points, m
  // Subsampling per axis: only the pixels whose world indices (i0 + i, j0 + j) are both multiples of the stride
  // are kept, the smallest stride k with total / k^2 <= capture_limit (1: all of them). World-anchored, so the
  // pattern does not flicker as the bodies move.
  std::array<int, 3> stride{1, 1, 1};
  std::array<long, 3> total{};  // intervals before subsampling (VolumeStats::intervals)
  double pixel_size = 0;        // s of the images, m
  void clear() {
    for (auto& s : segments) s.clear();
    stride = {1, 1, 1};
    total = {0, 0, 0};
    pixel_size = 0;
  }
};

struct VolumeStats {
  std::array<int, 3> pixels{};      // image sizes width * height per axis
  std::array<long, 3> crossings{};  // surface crossings stored per axis (on rays both meshes may cross, see
                                    // layered_depth_image.h)
  std::array<long, 3> intervals{};  // intervals inside both meshes per axis
  std::array<int, 3> candidate_triangles{};  // triangles rasterised, per axis (both meshes): those whose snapped
                                             // bounding box holds a pixel centre that a box of the other mesh's
                                             // triangles also holds
  long unclosed_rays = 0;           // rays still inside both meshes after their last crossing (open meshes);
                                    // such intervals are dropped
};

// The result for one pair; reuse it from step to step (its vectors keep their capacity).
class VolumeResult {
 public:
  bool ok() const { return error.empty(); }
  std::string error;               // non-empty on bad input (then everything else is zero)
  bool boxes_overlap = false;      // the meshes' bounding boxes overlap
  Aabb overlap;                    // their intersection (meaningful when boxes_overlap)
  VolumeContact mono;              // the whole intersection as one contact (sections 3.2, 4)
  VolumeStats stats;
  IntervalCapture capture;         // filled only with options.capture_intervals (else empty)
  // Multi-volume contacts (one per cell with an intersection in any axis), ordered by cell z, then y, then x.
  // Empty unless options.multi_volume.
  std::span<const VolumeContact> cells() const { return {cells_.data(), num_cells_}; }

 private:
  friend class IntersectionVolume;
  std::vector<VolumeContact> cells_;  // storage: only the first num_cells_ are valid
  std::size_t num_cells_ = 0;
};

// The workspace: thread pool, images and scratch, reused from call to call. One per thread of the caller.
class IntersectionVolume {
 public:
  IntersectionVolume();
  ~IntersectionVolume();
  IntersectionVolume(const IntersectionVolume&) = delete;
  IntersectionVolume& operator=(const IntersectionVolume&) = delete;

  // Rasterises a and b, fills `out`. Deterministic: the same inputs give bit-identical results for any
  // options.threads.
  void compute(const MeshInput& a, const MeshInput& b, const VolumeOptions& options, VolumeResult& out);
  // The three images of the last compute() (x, y, z), valid until the next one.
  const LayeredDepthImage& image(int axis) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for a one-off evaluation (allocates a workspace).
VolumeResult intersection_volume(const MeshInput& a, const MeshInput& b, const VolumeOptions& options);

}  // namespace cl::ldi
