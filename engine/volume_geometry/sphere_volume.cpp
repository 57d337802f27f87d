#include "volume_geometry/sphere_volume.h"

#include <algorithm>
#include <cmath>

#include "volume_geometry/disk_polygon.h"

namespace cl::vg {

double cap_volume(double r, double h) { return M_PI * h * h * (3.0 * r - h) / 3.0; }

namespace {

// Distance from a sphere's centre to the centroid of its cap of height h, m.
double cap_centroid(double r, double h) { return 3.0 * (2.0 * r - h) * (2.0 * r - h) / (4.0 * (3.0 * r - h)); }

// The eq. 20 moment of a sphere's cap, M = int A (p - c) dA with A = n . u (u the unit outward normal, p - c = r u),
// for the contact normal n = s e along the cap's axis e (s = +-1), cos_alpha the cos of the cap's half angle:
// M = r (int u u^T dA) n, and int u u^T dA = 2 pi r^2 [c3 e e^T + s3 / 2 (I - e e^T)] with
// c3 = (1 - cos^3) / 3, s3 = 2/3 - cos + cos^3 / 3; along the axis only c3 remains.
Vec3 cap_moment(double r, double cos_alpha, const Vec3& e, double s) {
  const double c3 = (1.0 - cos_alpha * cos_alpha * cos_alpha) / 3.0;
  return (2.0 * M_PI * r * r * r * c3 * s) * e;
}

// Fills the rest of a contact of normal n from the bodies' dV/dx (both along n, opposite) and their moments: the
// volume's own fields.
void set_volume(ldi::VolumeContact& out, double volume, double deepest) {
  out.volume = volume;
  out.axis_volume = {volume, volume, volume};
  out.axis_longest = {0, 0, 0};
  out.exact_deepest = deepest;
}

void clear_body(ldi::BodyTerms& b) {
  b.gradient.clear();
  b.linear.setZero();
  b.angular.setZero();
  b.area_sum = 0;
  b.area_moment.setZero();
}

// A contact that overlaps but cannot push: one body entirely inside the other (no part of either boundary inside
// the other pushes one way more than another).
void enclosed(ldi::VolumeContact& out, double volume) {
  out.normal.setZero();
  out.area = 0;
  clear_body(out.body[0]);
  clear_body(out.body[1]);
  set_volume(out, volume, 0.0);
}

// Fixed-order Gauss-Legendre, 8 points on [0, 1].
constexpr double kGaussX[8] = {0.019855071751231856, 0.10166676129318664, 0.2372337950418355, 0.4082826787521751,
                               0.5917173212478249,   0.7627662049581645,  0.8983332387068134, 0.9801449282487681};
constexpr double kGaussW[8] = {0.05061426814518813, 0.11119051722668724, 0.15685332293894363, 0.18134189168918100,
                               0.18134189168918100, 0.15685332293894363, 0.11119051722668724, 0.05061426814518813};

}  // namespace

bool sphere_plane(const Vec3& c, double r, const Vec3& n, double d, const Vec3& plane_centre, ldi::VolumeContact& out,
                  std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid) {
  const double delta = n.dot(c) - d;  // the centre's height above the plane
  if (delta >= r) return false;
  if (delta <= -r) {
    enclosed(out, 4.0 / 3.0 * M_PI * r * r * r);
    centroid = c;
    return true;
  }
  const double h = r - delta, a2 = std::max(0.0, r * r - delta * delta), disk = M_PI * a2;
  const Vec3 foot = c - delta * n;
  // The plane's part of the boundary: the disk of radius a under the sphere. The sphere's: its cap about -n, of
  // half angle alpha with cos alpha = delta / r, whose normals integrate to -n pi a^2 and pass through c.
  out.normal = n;
  out.body[0].linear = disk * n;
  out.body[0].angular = (foot - plane_centre).cross(out.body[0].linear);
  out.body[0].area_sum = disk;
  out.body[0].area_moment = disk * (foot - plane_centre);
  out.body[1].linear = -disk * n;
  out.body[1].angular.setZero();
  out.body[1].area_sum = -disk;
  out.body[1].area_moment = cap_moment(r, delta / r, -n, -1.0);
  for (auto& b : out.body) b.gradient.clear();
  // Eq. 20's positive weights: the disk, and the cap's band facing up when the centre is under the plane.
  out.area = disk + (delta < 0 ? M_PI * delta * delta : 0.0);
  set_volume(out, cap_volume(r, h), h);
  centroid = c - cap_centroid(r, h) * n;
  boundary[0].push_back({foot, out.body[0].linear});
  boundary[1].push_back({out.body[1].contact_centre(c), out.body[1].linear});
  return true;
}

bool sphere_sphere(const Vec3& c0, double r0, const Vec3& c1, double r1, ldi::VolumeContact& out,
                   std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid) {
  const double dist = (c1 - c0).norm();
  if (dist >= r0 + r1) return false;
  if (dist <= std::abs(r0 - r1)) {
    const double r = std::min(r0, r1);
    enclosed(out, 4.0 / 3.0 * M_PI * r * r * r);
    centroid = r0 < r1 ? c0 : c1;
    return true;
  }
  const Vec3 e = (c1 - c0) / dist;
  // The plane of the intersection circle, x0 from c0 and x1 from c1; the lens is the two caps beyond it.
  const double x0 = (dist * dist + r0 * r0 - r1 * r1) / (2.0 * dist), x1 = dist - x0;
  const double a2 = std::max(0.0, r0 * r0 - x0 * x0), disk = M_PI * a2;
  const double h0 = r0 - x0, h1 = r1 - x1;
  const double v0 = cap_volume(r0, h0), v1 = cap_volume(r1, h1);
  out.normal = e;
  out.body[0].linear = disk * e;
  out.body[0].angular.setZero();
  out.body[0].area_sum = disk;
  out.body[0].area_moment = cap_moment(r0, x0 / r0, e, 1.0);
  out.body[1].linear = -disk * e;
  out.body[1].angular.setZero();
  out.body[1].area_sum = -disk;
  out.body[1].area_moment = cap_moment(r1, x1 / r1, -e, -1.0);
  for (auto& b : out.body) b.gradient.clear();
  out.area = disk + (x0 < 0 ? M_PI * x0 * x0 : 0.0) + (x1 < 0 ? M_PI * x1 * x1 : 0.0);
  set_volume(out, v0 + v1, r0 + r1 - dist);
  centroid = (v0 * (c0 + cap_centroid(r0, h0) * e) + v1 * (c1 - cap_centroid(r1, h1) * e)) / (v0 + v1);
  boundary[0].push_back({out.body[0].contact_centre(c0), out.body[0].linear});
  boundary[1].push_back({out.body[1].contact_centre(c1), out.body[1].linear});
  return true;
}

namespace {

// The volume of a sphere (centre q in the box's frame, radius r) inside the box [-h, h], and its first moment, by
// slices across box axis k: each slice is the box's rectangle cut by a disk of radius r cos(theta) at
// z = q_k + r sin(theta). Between the angles at which the circle meets an edge line or a corner of the rectangle
// the slice area is analytic in theta; each such piece takes 8 Gauss-Legendre points. At such an angle a new cut
// of the disk begins, whose area grows as (theta - theta_0)^(3/2): an end of a piece there is approached as
// theta = theta_0 + (b - a) t^2, which makes the integrand smooth in t.
double sliced_volume(const Vec3& q, double r, const Vec3& h, int k, Vec3& moment) {
  moment.setZero();
  const int u = (k + 1) % 3, v = (k + 2) % 3;
  const double z0 = std::max(-h[k], q[k] - r), z1 = std::min(h[k], q[k] + r);
  if (z1 <= z0) return 0.0;
  struct Cut {
    double theta;
    bool onset;  // a circle-edge or circle-corner meeting (else an end of the range)
    bool operator<(const Cut& o) const { return theta < o.theta; }
  };
  Cut cuts[18];
  int count = 0;
  const double t0 = std::asin(std::clamp((z0 - q[k]) / r, -1.0, 1.0));
  const double t1 = std::asin(std::clamp((z1 - q[k]) / r, -1.0, 1.0));
  cuts[count++] = {t0, false};
  const double du[2] = {std::abs(q[u] - h[u]), std::abs(q[u] + h[u])};
  const double dv[2] = {std::abs(q[v] - h[v]), std::abs(q[v] + h[v])};
  double radii[8];
  int nr = 0;
  for (int i = 0; i < 2; ++i) {
    radii[nr++] = du[i];
    radii[nr++] = dv[i];
    for (int j = 0; j < 2; ++j) radii[nr++] = std::hypot(du[i], dv[j]);
  }
  for (int i = 0; i < nr; ++i)
    if (radii[i] < r) {
      const double a = std::acos(radii[i] / r);
      for (double t : {a, -a})
        if (t > t0 && t < t1) cuts[count++] = {t, true};
    }
  cuts[count++] = {t1, false};
  std::sort(cuts, cuts + count);
  double volume = 0;
  const Vec2 centre(q[u], q[v]);
  for (int p = 0; p + 1 < count; ++p) {
    if (cuts[p + 1].theta <= cuts[p].theta) continue;
    // Pieces longer than half a radian in parts (the integrand's cos^3 and its like are then resolved to about
    // 1e-12).
    const int parts = std::max(1, int(std::ceil((cuts[p + 1].theta - cuts[p].theta) / 0.5)));
    for (int j = 0; j < parts; ++j) {
      const double span = cuts[p + 1].theta - cuts[p].theta;
      const double a = cuts[p].theta + span * j / parts;
      const double b = j + 1 == parts ? cuts[p + 1].theta : cuts[p].theta + span * (j + 1) / parts;
      const bool left = j == 0 && cuts[p].onset, right = j + 1 == parts && cuts[p + 1].onset;
      for (int g = 0; g < 8; ++g) {
        const double t = kGaussX[g];
        // theta = a + (b - a) s(t): s = t^2 (3 - 2 t) with onsets at both ends, t^2 or 1 - (1 - t)^2 at one.
        double s = t, ds = 1.0;
        if (left && right) {
          s = t * t * (3.0 - 2.0 * t);
          ds = 6.0 * t * (1.0 - t);
        } else if (left) {
          s = t * t;
          ds = 2.0 * t;
        } else if (right) {
          s = 1.0 - (1.0 - t) * (1.0 - t);
          ds = 2.0 * (1.0 - t);
        }
        const double theta = a + (b - a) * s;
        const double rho = r * std::cos(theta);
        const PlaneArea slice = rectangle_in_disk(h[u], h[v], centre, rho);
        const double wgt = kGaussW[g] * (b - a) * ds * rho;  // dz = r cos(theta) d theta
        const double z = q[k] + r * std::sin(theta);
        volume += wgt * slice.area;
        Vec3 m;
        m[u] = slice.moment.x();
        m[v] = slice.moment.y();
        m[k] = z * slice.area;
        moment += wgt * m;
      }
    }
  }
  return volume;
}

}  // namespace

bool sphere_box(const Vec3& c, double r, const Vec3& box_centre, const Mat3& box_rotation, const Vec3& half,
                ldi::VolumeContact& out, std::array<std::vector<BoundaryTerm>, 2>& boundary, Vec3& centroid) {
  const Vec3 q = box_rotation.transpose() * (c - box_centre);
  const Vec3 outside = (q.cwiseAbs() - half).cwiseMax(0.0);
  if (outside.squaredNorm() >= r * r) return false;
  // The volume by slices across the axis along which the centre lies farthest out of the box's slab (the box face
  // nearest the contact: its slices are whole rectangles but for the few that the disk's rim crosses).
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(q[i]) - half[i] > std::abs(q[k]) - half[k]) k = i;
  Vec3 moment;
  const double volume = sliced_volume(q, r, half, k, moment);
  if (!(volume > 0)) return false;
  centroid = box_centre + box_rotation * (moment / volume);
  // The box's part of the boundary: each face's rectangle inside the sphere's disk on the face's plane.
  struct Face {
    Vec3 normal, centroid;
    double area;
  };
  Face faces[6];
  int count = 0;
  Vec3 lin = Vec3::Zero(), ang = Vec3::Zero();
  double total = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (double side : {1.0, -1.0}) {
      const double delta = side * q[axis] - half[axis];  // the centre's height over the face's plane
      if (std::abs(delta) >= r) continue;
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const PlaneArea pa = rectangle_in_disk(half[u], half[v], Vec2(q[u], q[v]), std::sqrt(r * r - delta * delta));
      if (!(pa.area > 0)) continue;
      Vec3 local;
      local[axis] = side * half[axis];
      local[u] = pa.moment.x() / pa.area;
      local[v] = pa.moment.y() / pa.area;
      Face& f = faces[count++];
      f.normal = side * box_rotation.col(axis);
      f.centroid = box_centre + box_rotation * local;
      f.area = pa.area;
      lin += f.area * f.normal;
      ang += (f.centroid - box_centre).cross(f.area * f.normal);
      total += f.area;
    }
  for (auto& b : out.body) b.gradient.clear();
  const double len = lin.norm();
  if (!(len > 1e-9 * total)) {  // the box inside the sphere, or the sphere inside the box
    enclosed(out, volume);
    return true;
  }
  // Body 0 is the sphere: dV/dx_sphere = -dV/dx_box, and no torque about its centre.
  const Vec3 n = -lin / len;
  out.normal = n;
  out.body[1].linear = lin;
  out.body[1].angular = ang;
  out.body[1].area_sum = 0;
  out.body[1].area_moment.setZero();
  out.area = 0;
  for (int i = 0; i < count; ++i) {
    const double a = n.dot(faces[i].normal) * faces[i].area;
    out.body[1].area_sum += a;
    out.body[1].area_moment += a * (faces[i].centroid - box_centre);
    out.area += std::max(a, 0.0);
    boundary[1].push_back({faces[i].centroid, faces[i].area * faces[i].normal});
  }
  out.body[0].linear = -lin;
  out.body[0].angular.setZero();
  out.body[0].area_sum = len;
  // The sphere's eq. 20 moment as that of the cap about n with the same projected area pi r^2 sin^2 alpha (exact
  // for a sphere on one face), the larger cap when more than half the sphere is in.
  const double sin2 = std::min(1.0, len / (M_PI * r * r));
  const double cos_alpha = std::sqrt(1.0 - sin2) * (volume < 2.0 / 3.0 * M_PI * r * r * r ? 1.0 : -1.0);
  out.body[0].area_moment = cap_moment(r, cos_alpha, n, 1.0);
  out.area += len;
  // The deepest point along n: the chord of the sphere inside the box on the line through its centre along n.
  const Vec3 nl = box_rotation.transpose() * n;
  double lo = -r, hi = r;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(nl[i]) < 1e-15) {
      if (std::abs(q[i]) > half[i]) hi = lo;
      continue;
    }
    const double ta = (-half[i] - q[i]) / nl[i], tb = (half[i] - q[i]) / nl[i];
    lo = std::max(lo, std::min(ta, tb));
    hi = std::min(hi, std::max(ta, tb));
  }
  set_volume(out, volume, std::max(0.0, hi - lo));
  boundary[0].push_back({out.body[0].contact_centre(c), out.body[0].linear});
  return true;
}

}  // namespace cl::vg
