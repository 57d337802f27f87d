#include "solvers/pid_penalty/pid_penalty_solver.h"

#include <algorithm>
#include <cmath>

#include "solvers/pid_penalty/internal.h"

namespace cl {

using namespace pid_penalty;

void PidPenaltySolver::draw_debug(const DebugScene& scene, DebugDraw& draw) const {
  (void)scene;  // its state of the last step, drawn where it was
  if (!draw.request.wants(kDebugMethod)) return;
  constexpr DebugColor kPenalty{0.2f, 0.85f, 0.3f, 1.0f}, kImpact{1.0f, 0.3f, 0.2f, 1.0f};
  constexpr DebugColor kP{0.3f, 0.5f, 1.0f, 1.0f}, kI{1.0f, 0.85f, 0.2f, 1.0f}, kD{0.9f, 0.3f, 0.9f, 1.0f};
  constexpr DebugColor kFriction{1.0f, 0.55f, 0.1f, 1.0f};
  constexpr double kLongest = 0.3;  // m: the largest point force (or friction) of the step
  double largest = 0.0;
  for (const PairView& v : views_) {
    for (const PairView::Point& p : v.bottom) largest = std::max(largest, std::abs(p.p) + std::abs(p.i) + std::abs(p.d));
    largest = std::max(largest, v.friction.norm());
  }
  const double scale = largest > 0.0 ? kLongest / largest : 0.0;
  for (const PairView& v : views_) {
    if (v.mode == Mode::Separated || v.bottom.empty()) continue;
    const DebugColor& state = v.mode == Mode::Penalty ? kPenalty : kImpact;
    // The polygon: its points in angular order about their centre on the contact plane.
    Vec3 t1, t2;
    tangent_basis(v.normal, t1, t2);
    Vec3 middle = Vec3::Zero();
    for (const PairView::Point& p : v.bottom) middle += p.position;
    middle /= double(v.bottom.size());
    std::vector<std::pair<double, Vec3>> ring;
    for (const PairView::Point& p : v.bottom) {
      const Vec3 r = p.position - middle;
      ring.push_back({std::atan2(r.dot(t2), r.dot(t1)), p.position});
    }
    std::sort(ring.begin(), ring.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t k = 0; k < ring.size() && ring.size() > 1; ++k)
      draw.line(ring[k].second, ring[(k + 1) % ring.size()].second, state);
    for (const PairView::Point& p : v.bottom) {
      draw.point(p.position, state);
      if (!p.loaded) continue;
      const Vec3 a = p.position, b = a + scale * p.p * v.normal, c = b + scale * p.i * v.normal,
                 d = c + scale * p.d * v.normal;
      draw.line(a, b, kP);
      draw.line(b, c, kI);
      draw.line(c, d, kD);
    }
    if (v.friction.norm() > 1e-9 * largest) draw.line(v.centre, v.centre + scale * v.friction, kFriction);
  }
}

}  // namespace cl
