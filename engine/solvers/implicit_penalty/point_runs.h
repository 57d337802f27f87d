// Runs of a pair's penetrating points that share their field gradient and their normal, and the moments of their
// positions. A box face's points inside another box's face region or below a plane all carry the same g_a (the
// face's axis, exactly: box_signed_distance) and the same n_b (their face's normal), and the points of a face are
// consecutive in the shell. Over such a run every per-point term of the contact force and its gradients (Xu, Zhao,
// Barbic 2014, sec. 4.1-4.2, eq. 19-51) is a per-run vector times the point's depth or position, or a per-run matrix
// times its position's outer product, so a run's sums come from a handful of moments instead of one outer product
// per term and point.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "collision/shell_points.h"

namespace cl::implicit_penalty {

// Runs shorter than this are summed point by point (a mesh's or a ball's points, whose gradients differ, make
// runs of one): a run's moments cost a few 3 x 3 products once.
inline constexpr size_t kLeastPointRun = 4;

// The number of points from `from` on (from < points.size()) whose g_a and n_b equal those of points[from] (a
// signed zero equals its opposite). Inline: every sum over a pair's points walks its runs.
inline size_t point_run_length(std::span<const PenetratingPoint> points, size_t from) {
  const Vec3 g = points[from].g_a, n = points[from].n_b;
  size_t to = from + 1;
  for (; to < points.size(); ++to) {
    const Vec3& h = points[to].g_a;
    const Vec3& m = points[to].n_b;
    if (h.x() != g.x() || h.y() != g.y() || h.z() != g.z() || m.x() != n.x() || m.y() != n.y() || m.z() != n.z()) break;
  }
  return to - from;
}

// Moments of a run's points in the points body's frame: r = r_b, d its depth (< 0).
struct RunMoments {
  int count = 0;
  double d = 0.0;             // sum d
  Vec3 r{0, 0, 0};            // sum r
  Vec3 dr{0, 0, 0};           // sum d r
  Mat3 rr = Mat3::Zero();     // sum r r^T
};
RunMoments run_moments(std::span<const PenetratingPoint> run);

// The moments of the runs of one list of points, kept while the list is unchanged: a side's penalty forces and its
// depth damping walk the same runs (add_point_forces, add_depth_damping), so each run is summed once. Runs are known
// by their first point's address and their length; the caller clears the memo before its list changes.
class RunMomentsMemo {
 public:
  void clear() { entries_.clear(); }
  const RunMoments& get(std::span<const PenetratingPoint> run);

 private:
  struct Entry {
    const PenetratingPoint* first;
    size_t size;
    RunMoments moments;
  };
  std::vector<Entry> entries_;
};

// run_moments(run), from `memo` when given.
inline RunMoments run_moments(std::span<const PenetratingPoint> run, RunMomentsMemo* memo) {
  return memo ? memo->get(run) : run_moments(run);
}

}  // namespace cl::implicit_penalty
