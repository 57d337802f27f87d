// Layered depth images (Allard et al. 2010, section 3.2; Heidelberger et al. 2003): two closed triangle meshes
// rasterised along one world axis. Per pixel, the ray through the pixel centre parallel to the axis and every
// surface crossing on it, sorted by depth, each with the mesh it belongs to, whether the ray enters or leaves
// that mesh there, and the triangle and barycentric weights that give its depth (the weights are the
// derivatives of the depth with respect to the vertices' coordinates along the axis, eq. 12). Only rays that both
// meshes may cross are kept whole: a pixel whose centre no triangle of one mesh holds in its (snapped) bounding box
// cannot be inside that mesh, so it has no interval inside both, and the other mesh's crossings there may be left
// out (most of an image's pixels, for two large meshes touching in a few places).
//
// Axes: the image along axis w (0 = x, 1 = y, 2 = z) looks along +w; its pixel coordinates are (u, v) =
// ((w + 1) % 3, (w + 2) % 3), so (u, v, w) is right-handed: x -> (y, z), y -> (z, x), z -> (x, y).
// Pixels lie on a world-anchored grid: pixel (i, j) of an image has its centre at u = (i0 + i + 0.5) s,
// v = (j0 + j + 0.5) s, with s the pixel size, so the same world ray always has the same pixel whatever the
// bodies' positions. An image covers the pixels whose centres lie in the overlap of the two meshes' bounding
// boxes (no ray outside it can meet both meshes), plus a one-pixel border. Along w only what decides the rays'
// state inside the box is kept: per mesh, either the triangles entirely beyond the box (w > hi_w) are left out
// and the ray's winding count is summed from -infinity, or those entirely before it (w < lo_w) are, and the count
// starts at minus the sum of the crossings kept (from +infinity); `from_above` says which.
//
// Coverage is exact and watertight: vertices are snapped to a fixed-point sub-pixel grid (up to 2^-16 pixel)
// and the edge functions are evaluated in 64-bit integers, with ties (a pixel centre exactly on an edge or a
// vertex) broken by a symbolic perturbation of the pixel centre, (u, v) + (eps, eps^2): the two triangles of an
// edge compute exactly opposite edge values, so a ray through an edge or a vertex crosses the surface exactly
// once per sheet, and entering/leaving come in pairs on every ray of a closed mesh. Triangles seen edge-on (zero
// projected area after snapping) are never crossed. The barycentric weights are those of the snapped triangle
// (in [0, 1] for every covered pixel, summing to 1), and the depth is the weighted sum of the vertices' exact
// depths, so d(depth)/d(vertex k's w) = weight k exactly.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/math.h"

namespace cl::ldi {

// (w + 1) % 3 and (w + 2) % 3 for w in 0..2, without a division.
inline int u_axis(int w) { return w == 2 ? 0 : w + 1; }
inline int v_axis(int w) { return w == 0 ? 2 : w - 1; }

// One surface crossing of a pixel's ray.
struct Crossing {
  double depth = 0;               // w coordinate of the crossing point, world metres
  std::array<double, 3> bary{};   // weights of the triangle's vertices 0, 1, 2: depth = sum bary[k] * w(vertex k)
  std::int32_t triangle = -1;     // index into its mesh's triangles
  std::int8_t mesh = 0;           // 0 = the first mesh (A), 1 = the second (B)
  std::int8_t direction = 0;      // +1: the ray (along +w) enters the mesh here (outward normal has n_w < 0);
                                  // -1: it leaves (n_w > 0)
};

// The crossings of one axis, row by row. Valid until the next computation by the IntersectionVolume that owns it.
struct LayeredDepthImage {
  int axis = 2;                   // w: the viewing direction
  double pixel_size = 0;          // s, m; a pixel covers s^2 m^2
  int i0 = 0, j0 = 0;             // world index of column 0 and row 0
  int width = 0, height = 0;      // pixels along u and v (0 when the overlap is thinner than a pixel)
  int subpixel_bits = 0;          // fixed-point precision used for the coverage of this image
  std::array<bool, 2> from_above{false, false};  // per mesh: winding counted from +infinity (see above)
  // Storage kept from call to call (valid when the image is not empty).
  std::vector<Crossing> crossings;  // row by row, pixel by pixel, each pixel's by depth
  std::vector<int> offsets;         // [j * width + i]: first crossing of pixel (i, j); size width * height + 1

  bool empty() const { return width <= 0 || height <= 0; }
  // Crossings of pixel (i, j), sorted by depth (ties by mesh, then triangle).
  std::span<const Crossing> pixel(int i, int j) const {
    const std::size_t k = std::size_t(j) * std::size_t(width) + std::size_t(i);
    return std::span<const Crossing>(crossings.data() + offsets[k], std::size_t(offsets[k + 1] - offsets[k]));
  }
  // World u and v of the centre of pixel (i, j).
  double u_centre(int i) const { return (i0 + i + 0.5) * pixel_size; }
  double v_centre(int j) const { return (j0 + j + 0.5) * pixel_size; }
  // The world point of pixel (i, j)'s ray at depth w.
  Vec3 point(int i, int j, double w) const {
    Vec3 p;
    p[u_axis(axis)] = u_centre(i);
    p[v_axis(axis)] = v_centre(j);
    p[axis] = w;
    return p;
  }
  std::size_t total_crossings() const;
};

// Calls f(lower, upper) for every interval of a ray inside both meshes (eq. 11): from the crossing that makes
// the ray inside both (z-, on the lower contact surface S-) to the one that ends it (z+, on the upper surface
// S+), in depth order, skipping empty ones. A ray is inside a mesh while that mesh's winding count is positive
// (robust to crossings of equal depth met in either order, as at a grazed silhouette edge); the count is summed
// from -infinity, or for a mesh counted from above (from_above) starts at minus the sum of its crossings kept.
// Returns true when the ray is still inside both after its last crossing (an open mesh).
template <class F>
bool for_each_interval(std::span<const Crossing> ray, const std::array<bool, 2>& from_above, F&& f) {
  int wind[2] = {0, 0};
  for (int m = 0; m < 2; ++m)
    if (from_above[m])
      for (const Crossing& c : ray)
        if (c.mesh == m) wind[m] -= c.direction;
  bool inside = false;
  std::size_t start = 0;
  for (std::size_t k = 0; k < ray.size(); ++k) {
    wind[ray[k].mesh] += ray[k].direction;
    const bool now = wind[0] > 0 && wind[1] > 0;
    if (now && !inside) start = k;
    if (!now && inside && ray[k].depth > ray[start].depth) f(ray[start], ray[k]);
    inside = now;
  }
  return inside;
}

// One interval of a pixel's ray inside both meshes, for drawing (the viewer's intersection volumes, Fig. 1).
struct RayInterval {
  int i = 0, j = 0;       // pixel
  double lower = 0;       // z-, m
  double upper = 0;       // z+, m
  int lower_mesh = 0;     // the mesh whose surface bounds the interval below / above
  int upper_mesh = 0;
};
// All intervals of an image, row by row; `out` is cleared first.
void intersection_intervals(const LayeredDepthImage& image, std::vector<RayInterval>& out);

}  // namespace cl::ldi
