// Scripted motion (thesis ch. 3): a body follows a spline path, with arc-length
// re-parameterisation and a time law (constant speed or ease-in/ease-out), optionally looping. Scripted
// bodies are kinematic: they push dynamic bodies and are never pushed back.
//
// Position at time t is x(t) = C(U(s(t))) (eq. 3.10): C is the space spline through the points
// (scripts/spline.h: C2 cubic, chord-length knots, natural ends or periodic when looping), U inverts its
// arc length, and s(t) is the time law:
//   constant  s = speed (t - start_time); s' = speed, s'' = 0.
//   ease      s = L g(x), x = (t - start_time) / T, T = L / speed, g(x) = 10x^3 - 15x^4 + 6x^5 (quintic
//             smoothstep: g', g'' vanish at x = 0 and 1), so the body starts and stops with zero velocity
//             and acceleration, reaches the end at T (mean speed = speed, peak 1.875 speed). This is the
//             thesis's velocity spline V(v) -> (t, s) with t(v) = T v (t_v = T, t_vv = 0 in eqs. 3.46-3.47).
// Before start_time the body waits at the first point. Without loop it stops at the last point (velocity 0)
// at start_time + T. With loop the path is closed (last point back to the first) and the law repeats every
// T: constant goes round at constant speed; ease comes to rest at the first point once per lap.
// Velocity and acceleration by the chain rule (eqs. 3.11-3.12):
//   x' = C' U' s',  x'' = C'' U'^2 s'^2 + C' U' s'' + C' U'' s'^2.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/body.h"

namespace cl {

enum class ScriptTiming : int { Constant = 0, Ease };
inline constexpr int kScriptTimingCount = 2;
std::string_view script_timing_name(ScriptTiming t);  // "constant", "ease"
std::optional<ScriptTiming> script_timing_from_name(std::string_view name);

class PathSpline;
struct ScriptSplineCache;

struct Script {
  int body = -1;                 // a kinematic body
  std::vector<Vec3> points;      // control points the path passes through (world frame, m), at least 2
  double speed = 1.0;            // m/s along the path (the mean speed for "ease")
  ScriptTiming timing = ScriptTiming::Constant;
  bool loop = false;             // start over (closed path through the last point back to the first)
  double start_time = 0.0;       // s: the body waits at the first point until then

  // The spline built from `points` and `loop` on first use, and rebuilt when either changes. Copies of a
  // Script share it (it is immutable). Not synchronised: do not sample one Script from two threads at once.
  mutable std::shared_ptr<const ScriptSplineCache> cache;
};

// Pose and velocity a script prescribes at time t.
struct ScriptSample {
  Vec3 position{0, 0, 0};
  Vec3 velocity{0, 0, 0};
  Vec3 acceleration{0, 0, 0};
};
ScriptSample sample_script(const Script& script, double t);
// Path length in m (one lap of the closed path when looping).
double script_length(const Script& script);
// Time for one pass along the path, s (length / speed; 0 for a degenerate script).
double script_duration(const Script& script);
// The script's space spline (built on first use).
const PathSpline& script_spline(const Script& script);
// Points along the path for drawing: `per_segment` samples per spline segment, equally spaced in arc length.
std::vector<Vec3> script_polyline(const Script& script, int per_segment = 16);

// What a regular path (thesis sect. 3.2.1) would need that `points` lack, phrased as an expectation ("a point
// distinct from the previous one ..."), or "" if they make one; *index is the offending point. Checks:
// at least 2 points (3 when looping), finite coordinates, each point distinct from the previous one (when
// looping, the last from the first), and no point where the path turns straight back (the segments before
// and after it antiparallel: the spline would have a cusp where the body stops and reverses).
std::string script_path_problem(const std::vector<Vec3>& points, bool loop, size_t* index);

// Sets each scripted body's position at time t and the velocity that carries it exactly to its scripted
// position at t + h (so the position update lands on the path). The angular velocity is set to zero and
// the orientation is left as it is. Scripts naming no valid body are skipped. With h <= 0 the velocity is
// the analytic one at t.
void apply_scripts(const std::vector<Script>& scripts, std::vector<Body>& bodies, double t, double h);

}  // namespace cl
