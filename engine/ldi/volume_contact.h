// One volume contact constraint's geometry (Allard et al. 2010, sect. 4-5): an intersection volume, its gradient
// with respect to the two bodies' rigid motion, and what friction needs of it (sect. 4.2, eq. 20-21). Made by the
// layered depth images for meshes (ldi/intersection_volume.h) and in closed form for convex primitive pairs
// (volume_geometry/exact_volume.h); the `volume` solver makes its constraints from it.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include "core/math.h"

namespace cl::ldi {

// dV/dp_k of one vertex, m^2.
struct VertexGradient {
  int vertex = 0;
  Vec3 gradient = Vec3::Zero();
};

// One mesh's share of a volume contact.
struct BodyTerms {
  std::vector<VertexGradient> gradient;  // vertices with a contribution, by increasing index (eq. 13-14)
  Vec3 linear = Vec3::Zero();            // dV/dx = sum_k dV/dp_k, m^2: rigid translation (chain rule, sect. 3.2)
  Vec3 angular = Vec3::Zero();           // dV/dtheta = sum_k (p_k - centre) x dV/dp_k, m^3: infinitesimal world
                                         // rotation dtheta about the mesh's centre (p_k += dtheta x (p_k - centre))
  double area_sum = 0;                   // S = sum_k A_k, A_k = normal . dV/dp_k (eq. 20), m^2; > 0 for A, < 0 for B
  Vec3 area_moment = Vec3::Zero();       // M = sum_k A_k (p_k - centre), m^3
  // Barycentre of this mesh's contact surface, centre + M / S (section 4.2); the centre itself when S = 0.
  Vec3 contact_centre(const Vec3& centre) const {
    return area_sum != 0 ? Vec3(centre + area_moment / area_sum) : centre;
  }
};

// One volume constraint: the whole intersection of the pair (mono-volume) or one grid cell's part of it.
struct VolumeContact {
  double volume = 0;                    // m^3: the three axis estimates combined (options.combine; the mean
                                        // by default, sect. 3.2)
  std::array<double, 3> axis_volume{};  // eq. 11 along x, y, z, m^3
  // Per image axis, the longest interval inside both meshes (eq. 11), m; for a cell, the longest whole interval
  // with a piece in the cell (the walls do not shorten it). See deepest().
  std::array<double, 3> axis_longest{};
  std::array<int, 3> cell{};            // multi-volume: integer coordinates of the cell; mono: (0, 0, 0)
  Vec3 normal = Vec3::Zero();           // unit, from A towards B: the direction of the repulsion on B, i.e. of
                                        // -(B's linear term) (sect. 4.2). Zero when the net repulsion vanishes
                                        // (one mesh entirely inside the other)
  double area = 0;                      // sum of the positive A_k over both meshes, m^2: the contact surface
                                        // estimate of section 4.3
  std::array<BodyTerms, 2> body;        // [0] = A, [1] = B
  // Mean intersection depth volume / area (section 4.3), m; 0 without area.
  double depth() const { return area > 0 ? volume / area : 0.0; }
  // The exact kernels' deepest point along `normal` (volume_geometry/exact_volume.h), m; negative for the images',
  // which give it per axis (axis_longest, deepest()).
  double exact_deepest = -1;
  // The deepest point of the intersection measured along the unit normal n, m: exact_deepest when the kernel knows
  // it (n is then its normal), else the longest interval of the image whose axis w is most along n, times |n_w|.
  // Through a layer between two parallel planes d apart every ray along w crosses d / |n_w|, so this is exact for
  // a flat resting contact and for the deepest ray of a sphere cap seen along its axis; taking the axis most along
  // n keeps |n_w| >= 1/sqrt(3). Sampled at pixel centres, so a tip narrower than a pixel reads shallower. 0 for a
  // zero normal.
  double deepest(const Vec3& n) const {
    if (exact_deepest >= 0) return exact_deepest;
    int w = 0;
    for (int k = 1; k < 3; ++k)
      if (std::abs(n[k]) > std::abs(n[w])) w = k;
    return axis_longest[std::size_t(w)] * std::abs(n[w]);
  }
  // A_k of entry i of body b's gradient list (eq. 20), m^2.
  double vertex_area(int b, std::size_t i) const { return normal.dot(body[b].gradient[i].gradient); }
};

}  // namespace cl::ldi
