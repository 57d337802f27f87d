// Box-box contact generation with the thesis's improved rules (thesis sect. 6.3):
//  1. separating axis test over the 15 axes, with near-zero entries of the relative rotation snapped to
//     zero so nearly aligned boxes are exactly face cases;
//  2. an edge-edge axis wins only if it is clearly better than the best face axis, is not within 2 degrees of
//     that face's normal (both edges along the face), AND all four edge end points lie outside the other box;
//     otherwise the best face axis is used;
//  3. face case: corners first (incident face corners inside the reference face, reference face corners
//     inside the incident face), then edge crossings, skipping crossings whose edge end points are
//     already flagged, so no redundant points are produced.
// Feature ids are built from the reference face and the features touching, so they stay the same while
// the same features touch and solvers can warm start.
#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"

namespace cl {

namespace {

constexpr double kSnap = 1e-6;  // relative-rotation entries below this are treated as exactly zero
constexpr double kFaceAligned = 0.99939082701909576;  // cos 2 degrees: an edge axis this close to a face's normal

bool inside_box(const Vec3& h, const Vec3& x, double tol) { return (x.cwiseAbs() - h).maxCoeff() < -tol; }

// Closest points between lines p + s d and q + t e, parameters clamped to the segments' half lengths.
void closest_edges(const Vec3& p, const Vec3& d, double hd, const Vec3& q, const Vec3& e, double he, Vec3& on_p,
                   Vec3& on_q) {
  const Vec3 r = p - q;
  const double b = d.dot(e), c = d.dot(r), f = e.dot(r), denom = 1.0 - b * b;
  double s = denom > 1e-12 ? (b * f - c) / denom : 0.0;
  s = std::clamp(s, -hd, hd);
  double t = std::clamp(b * s + f, -he, he);
  s = std::clamp(b * t - c, -hd, hd);
  on_p = p + s * d;
  on_q = q + t * e;
}

// Face case. Everything in the reference box's frame; the reference face has outward normal s * e_k.
// `inc_rot`, `inc_pos`: incident box axes and centre in that frame. Normals of the output point from the
// reference box to the incident box, in the reference frame (the caller rotates and orients them).
void face_contacts(const Vec3& hr, int k, double s, const Mat3& inc_rot, const Vec3& inc_pos, const Vec3& hi,
                   double margin, uint32_t feature_base, std::vector<ContactPointOut>& out) {
  const int u = (k + 1) % 3, v = (k + 2) % 3;
  const Vec3 n = s * Vec3::Unit(k);
  const size_t first = out.size();

  // Incident face: the face of the incident box most anti-parallel to n.
  int j = 0;
  (n.transpose() * inc_rot).cwiseAbs().maxCoeff(&j);
  const double sj = n.dot(inc_rot.col(j)) > 0 ? -1.0 : 1.0;
  const int ju = (j + 1) % 3, jv = (j + 2) % 3;
  // Its four corners in order around the face, with their corner indices in the incident box.
  const int su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  Vec3 c3[4];
  int cid[4];
  for (int i = 0; i < 4; ++i) {
    Vec3 local = Vec3::Zero();
    local[j] = sj * hi[j];
    local[ju] = su[i] * hi[ju];
    local[jv] = sv[i] * hi[jv];
    c3[i] = inc_pos + inc_rot * local;
    cid[i] = (local.x() > 0 ? 1 : 0) | (local.y() > 0 ? 2 : 0) | (local.z() > 0 ? 4 : 0);
  }
  const Vec3 inc_normal = inc_rot.col(j) * sj;
  const double scale = std::max(hr.maxCoeff(), hi.maxCoeff());
  const double tol = 1e-9 * scale;
  auto height = [&](const Vec3& x) { return s * x[k] - hr[k]; };  // > 0 outside the reference face

  // 1a. Incident corners inside the reference rectangle, inclusive by a small tolerance so that equal
  //     boxes stacked with a slight twist keep their four corners instead of turning into an octagon.
  const double corner_tol = 1e-3 * scale;
  bool inc_flag[4] = {false, false, false, false};
  for (int i = 0; i < 4; ++i) {
    if (std::abs(c3[i][u]) > hr[u] + corner_tol || std::abs(c3[i][v]) > hr[v] + corner_tol) continue;
    const double z = height(c3[i]);
    if (z >= margin) continue;
    inc_flag[i] = true;
    out.push_back({c3[i] - n * (0.5 * z), n, -z, feature_base | uint32_t(cid[i])});
  }

  // A point next to one already found adds a redundant row (thesis sect. 6.3): such points are skipped.
  const double merge = 0.02 * scale;
  auto near_existing = [&](const Vec3& p) {
    for (size_t q = first; q < out.size(); ++q)
      if ((out[q].position - p).squaredNorm() < merge * merge) return true;
    return false;
  };

  // 1b. Reference corners inside the incident face's projection, inclusive by the same tolerance: a reference
  //     corner on an incident edge (a narrow box against a wide one of the same height, their edges flush) is on
  //     no crossing of the edges (those end at it), and strictly inside it was no contact either; a gripper's finger
  //     met its box in no point at all and the box fell out of the grip in the first step.
  const double ru[4] = {-hr[u], hr[u], hr[u], -hr[u]}, rv[4] = {-hr[v], -hr[v], hr[v], hr[v]};
  auto cross2 = [&](int a, int b, double pu, double pv) {
    return (c3[b][u] - c3[a][u]) * (pv - c3[a][v]) - (c3[b][v] - c3[a][v]) * (pu - c3[a][u]);
  };
  auto edge_length = [&](int a, int b) { return std::hypot(c3[b][u] - c3[a][u], c3[b][v] - c3[a][v]); };
  const double area = cross2(0, 1, c3[2][u], c3[2][v]);
  bool ref_flag[4] = {false, false, false, false};
  if (std::abs(area) > tol * tol) {
    const double orient = area > 0 ? 1.0 : -1.0;
    for (int r = 0; r < 4; ++r) {
      bool inside = true;
      for (int e = 0; e < 4 && inside; ++e)
        inside = orient * cross2(e, (e + 1) % 4, ru[r], rv[r]) > -corner_tol * edge_length(e, (e + 1) % 4);
      if (!inside || std::abs(inc_normal[k]) < 1e-9) continue;
      // Height of the incident face above the reference face at (ru, rv).
      Vec3 x = Vec3::Zero();
      x[u] = ru[r];
      x[v] = rv[r];
      x[k] = c3[0][k] - (inc_normal[u] * (ru[r] - c3[0][u]) + inc_normal[v] * (rv[r] - c3[0][v])) / inc_normal[k];
      const double z = height(x);
      if (z >= margin) continue;
      ref_flag[r] = true;
      Vec3 on_ref = x;
      on_ref[k] = s * hr[k];
      if (near_existing(on_ref + n * (0.5 * z))) continue;
      out.push_back({on_ref + n * (0.5 * z), n, -z, feature_base | uint32_t(8 + r)});
    }
  }

  // 2. Edge crossings of incident edges with the reference rectangle's sides, unless both end points of
  //    either edge are already contacts; both edges must straddle each other.
  for (int e = 0; e < 4; ++e) {
    const int e1 = (e + 1) % 4;
    if (inc_flag[e] && inc_flag[e1]) continue;
    const double pu = c3[e][u], pv = c3[e][v], du = c3[e1][u] - pu, dv = c3[e1][v] - pv;
    for (int r = 0; r < 4; ++r) {
      const int r1 = (r + 1) % 4;
      if (ref_flag[r] && ref_flag[r1]) continue;
      const double qu = ru[r], qv = rv[r], eu = ru[r1] - qu, ev = rv[r1] - qv;
      const double denom = du * ev - dv * eu;
      if (std::abs(denom) < 1e-12 * scale * scale) continue;  // parallel
      const double t = ((qu - pu) * ev - (qv - pv) * eu) / denom;  // along the incident edge
      const double w = ((qu - pu) * dv - (qv - pv) * du) / denom;  // along the reference side
      if (t <= 0.0 || t >= 1.0 || w <= 0.0 || w >= 1.0) continue;
      const Vec3 x = c3[e] + t * (c3[e1] - c3[e]);
      const double z = height(x);
      if (z >= margin) continue;
      if (near_existing(x - n * (0.5 * z))) continue;
      out.push_back({x - n * (0.5 * z), n, -z, feature_base | uint32_t(12 + 4 * e + r)});
    }
  }
}

}  // namespace

int collide_box_box(const Vec3& pa, const Quat& qa, const Vec3& ha, const Vec3& pb, const Quat& qb, const Vec3& hb,
                    double margin, std::vector<ContactPointOut>& out) {
  const size_t first = out.size();
  const Mat3 ra = qa.toRotationMatrix(), rb = qb.toRotationMatrix();
  // B's axes and centre in A's frame, with rotation noise snapped away.
  Mat3 r = ra.transpose() * rb;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (std::abs(r(i, j)) < kSnap) r(i, j) = 0.0;
      else if (std::abs(r(i, j)) > 1.0 - kSnap) r(i, j) = r(i, j) > 0 ? 1.0 : -1.0;
  const Mat3 abs_r = r.cwiseAbs();
  const Vec3 t = ra.transpose() * (pb - pa);

  // Separation along each axis; the largest separation (least overlap) of each kind wins.
  double best_a = -1e300, best_b = -1e300;
  int axis_a = 0, axis_b = 0;
  for (int i = 0; i < 3; ++i) {
    const double sep = std::abs(t[i]) - (ha[i] + abs_r.row(i).dot(hb));
    if (sep > margin) return 0;
    if (sep > best_a) { best_a = sep; axis_a = i; }
  }
  for (int j = 0; j < 3; ++j) {
    const double sep = std::abs(t.dot(r.col(j))) - (abs_r.col(j).dot(ha) + hb[j]);
    if (sep > margin) return 0;
    if (sep > best_b) { best_b = sep; axis_b = j; }
  }
  double best_edge = -1e300;
  Vec3 edge_axis = Vec3::Zero();
  int edge_i = 0, edge_j = 0;
  for (int i = 0; i < 3; ++i) {
    // e_i x r_j has no component along i: its components i1, i2 are -r(i2, j) and r(i1, j). Only those two enter
    // the length, the projections and R^T axis (a zero term adds nothing), so each is two products, not three.
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const double u1 = -r(i2, j), u2 = r(i1, j);
      const double len = std::sqrt(u1 * u1 + u2 * u2);
      if (len < 1e-6) continue;  // parallel edges: covered by the face axes
      const double a1 = u1 / len, a2 = u2 / len;
      const Vec3 in_b = r.row(i1).transpose() * a1 + r.row(i2).transpose() * a2;  // the axis in B's frame
      const double sep = std::abs(t[i1] * a1 + t[i2] * a2) -
                         (ha[i1] * std::abs(a1) + ha[i2] * std::abs(a2) + hb.dot(in_b.cwiseAbs()));
      if (sep > margin) return 0;
      if (sep > best_edge) {
        best_edge = sep;
        edge_axis = Vec3::Zero();
        edge_axis[i1] = a1;
        edge_axis[i2] = a2;
        edge_i = i;
        edge_j = j;
      }
    }
  }

  // Prefer A's faces, then B's, then edges: a rival axis must be clearly better to win (coherence).
  const double scale = std::min(ha.minCoeff(), hb.minCoeff());
  const double prefer = 1e-3 * scale;
  const bool face_b = best_b > best_a + prefer;
  const double best_face = face_b ? best_b : best_a;

  // Nor does an edge-edge axis within kFaceAligned of the best face's normal: both edges then lie along that face,
  // as a box's edges do when its face is nearly parallel to the other's (sect. 6.3's face case, its points). Apart
  // within the margin, such faces' closest edges can be a little further apart along their crossing's axis than
  // along the face's normal, and the pair had one edge point where it had four: a gripped box whose face turned
  // 0.1 degree from its finger's while the two parted by half a millimetre was held on one side only and spun
  // out of the grip.
  const Vec3 face_normal = face_b ? Vec3(r.col(axis_b)) : Vec3(Vec3::Unit(axis_a));
  const bool along_face = std::abs(edge_axis.dot(face_normal)) > kFaceAligned;
  if (best_edge > best_face + prefer && !along_face) {
    // Edge-edge candidate: orient the axis from A to B, find the supporting edge of each box.
    if (edge_axis.dot(t) < 0) edge_axis = -edge_axis;
    Vec3 ca = Vec3::Zero(), cb = Vec3::Zero();
    for (int k = 0; k < 3; ++k)
      if (k != edge_i) ca[k] = edge_axis[k] > 0 ? ha[k] : -ha[k];
    const Vec3 axis_in_b = r.transpose() * edge_axis;
    for (int k = 0; k < 3; ++k)
      if (k != edge_j) cb[k] = axis_in_b[k] > 0 ? -hb[k] : hb[k];
    const Vec3 cb_a = t + r * cb;  // B's edge centre in A's frame
    const Vec3 da = Vec3::Unit(edge_i), db = r.col(edge_j);
    // Validate (thesis sect. 6.3): all four end points outside the other box.
    const double tol = 1e-9 * scale;
    bool valid = true;
    for (double sgn : {-1.0, 1.0}) {
      const Vec3 end_a = ca + sgn * ha[edge_i] * da;  // A's edge end in A's frame
      const Vec3 end_b = cb_a + sgn * hb[edge_j] * db;
      if (inside_box(hb, r.transpose() * (end_a - t), tol) || inside_box(ha, end_b, tol)) valid = false;
    }
    if (valid) {
      Vec3 on_a, on_b;
      closest_edges(ca, da, ha[edge_i], cb_a, db, hb[edge_j], on_a, on_b);
      const uint32_t feature = (3u << 8) | uint32_t(edge_i * 3 + edge_j) << 4;
      out.push_back({pa + ra * (0.5 * (on_a + on_b)), ra * edge_axis, -best_edge, feature});
      return int(out.size() - first);
    }
  }

  if (!face_b) {
    // Reference face on A, incident face on B; everything is already in A's frame.
    const double s = t[axis_a] >= 0 ? 1.0 : -1.0;
    const uint32_t base = (1u << 8) | uint32_t(axis_a * 2 + (s > 0 ? 1 : 0)) << 5;
    face_contacts(ha, axis_a, s, r, t, hb, margin, base, out);
    for (size_t i = first; i < out.size(); ++i) {
      out[i].position = pa + ra * out[i].position;
      out[i].normal = ra * out[i].normal;
    }
  } else {
    // Reference face on B: express A in B's frame, then flip the normals to point from A to B.
    const Mat3 rt = r.transpose();
    const Vec3 ta = -(rt * t);
    const double s = ta[axis_b] >= 0 ? 1.0 : -1.0;
    const uint32_t base = (2u << 8) | uint32_t(axis_b * 2 + (s > 0 ? 1 : 0)) << 5;
    face_contacts(hb, axis_b, s, rt, ta, ha, margin, base, out);
    for (size_t i = first; i < out.size(); ++i) {
      out[i].position = pb + rb * out[i].position;
      out[i].normal = -(rb * out[i].normal);
    }
  }
  return int(out.size() - first);
}

}  // namespace cl
