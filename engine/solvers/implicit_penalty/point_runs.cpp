#include "solvers/implicit_penalty/point_runs.h"

namespace cl::implicit_penalty {

RunMoments run_moments(std::span<const PenetratingPoint> run) {
  RunMoments m;
  m.count = int(run.size());
  // The upper triangle of r r^T, mirrored at the end.
  double xx = 0, xy = 0, xz = 0, yy = 0, yz = 0, zz = 0;
  for (const PenetratingPoint& p : run) {
    const Vec3& r = p.r_b;
    m.d += p.d;
    m.r += r;
    m.dr += p.d * r;
    xx += r.x() * r.x();
    xy += r.x() * r.y();
    xz += r.x() * r.z();
    yy += r.y() * r.y();
    yz += r.y() * r.z();
    zz += r.z() * r.z();
  }
  m.rr << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  return m;
}

const RunMoments& RunMomentsMemo::get(std::span<const PenetratingPoint> run) {
  for (const Entry& e : entries_)
    if (e.first == run.data() && e.size == run.size()) return e.moments;
  entries_.push_back({run.data(), run.size(), run_moments(run)});
  return entries_.back().moments;
}

}  // namespace cl::implicit_penalty
