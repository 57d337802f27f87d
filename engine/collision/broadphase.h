// Broad phase: incremental sweep-and-prune along the axis of largest spread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/body.h"
#include "core/math.h"

namespace cl {

class BroadPhase {
 public:
  // Finds all pairs whose boxes overlap, skipping pairs where both `skip_pair_mask` entries are true
  // (e.g. two bodies that never move). Output sorted by (a, b). Cost O(n log n) the first time, then
  // near O(n + pairs) while the order along the axis changes little (insertion sort keeps it coherent).
  // Stops and returns false once more than `max_pairs` pairs are found (`out` then holds max_pairs + 1 of
  // them, unsorted), so that bodies heaped at one place cannot take memory quadratic in their count.
  bool find_pairs(const std::vector<Aabb>& boxes, const std::vector<char>& static_body, std::vector<BodyPair>& out,
                  size_t max_pairs = SIZE_MAX);
  void clear() { order_.clear(); }

 private:
  std::vector<int> order_;  // body indices sorted by box minimum along axis_
  int axis_ = 0;
};

// O(n^2) reference used by the tests.
void brute_force_pairs(const std::vector<Aabb>& boxes, const std::vector<char>& static_body,
                       std::vector<BodyPair>& out);

}  // namespace cl
