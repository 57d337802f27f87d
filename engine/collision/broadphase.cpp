#include "collision/broadphase.h"

#include <algorithm>

namespace cl {

bool BroadPhase::find_pairs(const std::vector<Aabb>& boxes, const std::vector<char>& static_body,
                            std::vector<BodyPair>& out, size_t max_pairs) {
  out.clear();
  const int n = int(boxes.size());
  if (int(order_.size()) != n) {
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
  }

  // Sweep along the axis where the (finite) box centres spread the most: fewest false overlaps.
  Vec3 mean = Vec3::Zero(), sq = Vec3::Zero();
  int counted = 0;
  for (int i = 0; i < n; ++i) {
    if (static_body[i]) continue;
    const Vec3 c = 0.5 * (boxes[i].lo + boxes[i].hi);
    mean += c;
    sq += c.cwiseAbs2();
    ++counted;
  }
  if (counted > 1) {
    const Vec3 var = sq / counted - (mean / counted).cwiseAbs2();
    var.maxCoeff(&axis_);
  }

  // Insertion sort: nearly linear when bodies keep their order between steps (temporal coherence).
  // Ties are broken by index so the order, and hence the pair list, never depends on history.
  const int axis = axis_;
  auto less = [&](int i, int j) {
    const double a = boxes[i].lo[axis], b = boxes[j].lo[axis];
    return a < b || (a == b && i < j);
  };
  for (int i = 1; i < n; ++i) {
    const int v = order_[i];
    int j = i - 1;
    while (j >= 0 && less(v, order_[j])) {
      order_[j + 1] = order_[j];
      --j;
    }
    order_[j + 1] = v;
  }

  // Sweep: each box is tested against the boxes that start before it ends.
  for (int s = 0; s < n; ++s) {
    const int i = order_[s];
    const double end = boxes[i].hi[axis];
    for (int t = s + 1; t < n; ++t) {
      const int j = order_[t];
      if (boxes[j].lo[axis] > end) break;
      if (static_body[i] && static_body[j]) continue;
      if (!boxes[i].overlaps(boxes[j])) continue;
      out.push_back({std::min(i, j), std::max(i, j)});
      if (out.size() > max_pairs) return false;
    }
  }
  std::sort(out.begin(), out.end());
  return true;
}

void brute_force_pairs(const std::vector<Aabb>& boxes, const std::vector<char>& static_body,
                       std::vector<BodyPair>& out) {
  out.clear();
  for (int i = 0; i < int(boxes.size()); ++i)
    for (int j = i + 1; j < int(boxes.size()); ++j)
      if (!(static_body[i] && static_body[j]) && boxes[i].overlaps(boxes[j])) out.push_back({i, j});
}

}  // namespace cl
