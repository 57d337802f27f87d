#include "graph/stack_loads.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

namespace cl {

void stack_loads(const ContactGraph& graph, const std::vector<Body>& bodies, std::vector<double>& load,
                 std::vector<Vec3>* centre, std::vector<double>* share, const Vec3& up) {
  const std::vector<int>& height = graph.height_of_body();
  load.assign(bodies.size(), 0.0);
  if (share) share->assign(bodies.size(), 0.0);
  if (centre) {
    centre->resize(bodies.size());
    for (size_t i = 0; i < bodies.size(); ++i) (*centre)[i] = bodies[i].position;
  }
  std::vector<std::pair<int, int>> by_height;  // (height, body), highest first
  for (const ContactGroup& group : graph.groups()) {
    if (group.floating) continue;
    by_height.clear();
    for (int b : group.bodies)
      if (bodies[size_t(b)].is_dynamic() && size_t(b) < height.size()) by_height.push_back({height[size_t(b)], b});
    std::sort(by_height.begin(), by_height.end(), std::greater<>());
    double above = 0.0;
    Vec3 moment = Vec3::Zero();
    for (size_t i = 0; i < by_height.size();) {
      size_t j = i;
      for (; j < by_height.size() && by_height[j].first == by_height[i].first; ++j) {
        const Body& b = bodies[size_t(by_height[j].second)];
        above += b.mass;
        moment += b.mass * b.position;
      }
      // The bodies of this height level with its lowest: those that carry what is above side by side.
      int level = 0;
      if (share) {
        double lowest = std::numeric_limits<double>::infinity();
        for (size_t k = i; k < j; ++k) lowest = std::min(lowest, up.dot(bodies[size_t(by_height[k].second)].position));
        for (size_t k = i; k < j; ++k) {
          const Body& b = bodies[size_t(by_height[k].second)];
          level += up.dot(b.position) <= lowest + 0.5 * shape_bounding_radius(b.shape);
        }
      }
      for (size_t k = i; k < j; ++k) {
        load[size_t(by_height[k].second)] = above;
        if (share) (*share)[size_t(by_height[k].second)] = up.isZero() ? above : above / double(std::max(level, 1));
        if (centre) (*centre)[size_t(by_height[k].second)] = moment / above;
      }
      i = j;
    }
  }
  for (size_t i = 0; i < bodies.size(); ++i)
    if (!bodies[i].is_dynamic()) {
      load[i] = std::numeric_limits<double>::infinity();
      if (share) (*share)[i] = load[i];
    }
}

}  // namespace cl
