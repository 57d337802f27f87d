// The points of the conformance sweep that fail today because of bugs, not because of their method: each still
// runs, its cell's test reports it as skipped with its figure, and the test fails once it passes, so that it is
// taken off this list. The figures are those measured when the list was made (NAN: no figure, the run took more
// than its CPU budget). Listed: implicit-penalty's failing point (the resting 20-box tower at 1/1000 s and 4 m takes
// more than its CPU budget: 2,496 shell points, 4.6 million instructions a step, 7.3 before a face's points
// were summed from their moments, about 35 s of CPU on the reference machine at 63,200 steps, against 30 s). The whole sweep is registered with CONTACTLAB_CONFORMANCE_SWEEP=ON.
#pragma once

#include <cmath>  // NAN
#include <vector>

namespace cl::conformance {

struct AwaitingFix {
  const char* case_name;
  const char* solver;
  const char* condition;  // condition_name(): "1/250 s, 2 cm, 8 g"
  double figure;          // the figure measured when the point was listed (NaN: the run stopped)
};

inline const std::vector<AwaitingFix> kAwaitingFix = {
    {"tower20_light", "implicit-penalty", "1/1000 s, 4 m, 64 t", NAN},
};

}  // namespace cl::conformance
