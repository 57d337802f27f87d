#include "viewer/slider_scale.h"

#include <algorithm>
#include <cmath>

namespace cl::viewer {

bool logarithmic_range(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo) || lo < 0.0) return false;
  return lo > 0.0 ? hi / lo >= 100.0 : hi >= 1000.0;
}

double slider_fraction(double v, double lo, double hi, bool log) {
  if (!(hi > lo) || !std::isfinite(v)) return 0.0;
  if (log && lo >= 0.0 && hi > 0.0) {
    const double floor = lo > 0.0 ? lo : 1e-3 * hi;
    return std::clamp(std::log(std::max(v, floor) / floor) / std::log(hi / floor), 0.0, 1.0);
  }
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

}  // namespace cl::viewer
