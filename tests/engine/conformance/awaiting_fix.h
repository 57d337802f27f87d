// The points of the conformance sweep that fail today because of bugs, not because of their method: each still
// runs, its cell's test reports it as skipped with its figure, and the test fails once it passes, so that it is
// taken off this list. The figures are those measured when the list was made (NAN: no figure, the run took more
// than its CPU budget). Listed: pid-penalty's failing points (rolling_slip at 1/1000 s: the ball placed touching the
// incline, at depth 0, has no contact in its first substep, which is the whole step at 1/1000 s, so it slides
// freely for that step, g sin theta h = 0.0049 m/s against the rolling's a h = 0.0035 m/s);
// volume's whole sweep passes; implicit-penalty's failing point (the resting 20-box tower at 1/1000 s and 4 m takes
// more than its CPU budget: 2,496 shell points, 4.6 million instructions a step, 7.3 before a face's points
// were summed from their moments, about 21 s of CPU at 63,000 steps). The whole sweep is registered with CONTACTLAB_CONFORMANCE_SWEEP=ON.
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
    {"rolling_slip", "pid-penalty", "1/1000 s, 1 m, 10 g", 0.0049},
    {"rolling_slip", "pid-penalty", "1/1000 s, 1 m, 100 t", 0.0049},
    {"rolling_slip", "pid-penalty", "1/1000 s, 1 m, 524 kg", 0.0049},
    {"rolling_slip", "pid-penalty", "1/1000 s, 10 cm, 524 g", 0.0049},
    {"rolling_slip", "pid-penalty", "1/1000 s, 2 cm, 4.19 g", 0.0049},
    {"rolling_slip", "pid-penalty", "1/1000 s, 4 m, 33.5 t", 0.0049},
    {"tower20_light", "implicit-penalty", "1/1000 s, 4 m, 64 t", NAN},
};

}  // namespace cl::conformance
