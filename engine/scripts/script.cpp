#include "scripts/script.h"

#include <algorithm>
#include <cmath>

#include "scripts/spline.h"

namespace cl {

struct ScriptSplineCache {
  std::vector<Vec3> points;
  bool loop = false;
  PathSpline spline;
};

namespace {

// s(t), s'(t), s''(t) of the time law (see script.h).
struct TimeLaw {
  double s = 0.0, ds = 0.0, dds = 0.0;
};

// Quintic smoothstep g(x) = 10x^3 - 15x^4 + 6x^5 and its derivatives on [0, 1].
double ease(double x) { return x * x * x * (10.0 + x * (-15.0 + 6.0 * x)); }
double ease_d1(double x) { return 30.0 * x * x * (1.0 - x) * (1.0 - x); }
double ease_d2(double x) { return 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x); }

TimeLaw time_law(const Script& script, double length, double t) {
  TimeLaw law;
  const double tau = t - script.start_time;
  // Waiting at the first point (also for NaN times and degenerate scripts).
  if (!(tau >= 0.0) || !(length > 0.0) || !(script.speed > 0.0) || !std::isfinite(script.speed)) return law;
  const double T = length / script.speed;
  double x = tau / T;  // laps done
  if (script.loop) {
    x -= std::floor(x);
  } else if (x >= 1.0) {
    law.s = length;  // arrived: at rest at the last point
    return law;
  }
  switch (script.timing) {
    case ScriptTiming::Constant:
      law.s = length * x;
      law.ds = script.speed;
      break;
    case ScriptTiming::Ease:
      // s = L g(tau / T): s' = L g' / T, s'' = L g'' / T^2 (eqs. 3.46-3.47 with t(v) = T v).
      law.s = length * ease(x);
      law.ds = length * ease_d1(x) / T;
      law.dds = length * ease_d2(x) / (T * T);
      break;
  }
  return law;
}

}  // namespace

std::string_view script_timing_name(ScriptTiming t) {
  switch (t) {
    case ScriptTiming::Constant: return "constant";
    case ScriptTiming::Ease: return "ease";
  }
  return "constant";
}

std::optional<ScriptTiming> script_timing_from_name(std::string_view name) {
  for (int i = 0; i < kScriptTimingCount; ++i) {
    const auto t = static_cast<ScriptTiming>(i);
    if (script_timing_name(t) == name) return t;
  }
  return std::nullopt;
}

const PathSpline& script_spline(const Script& script) {
  const auto& c = script.cache;
  if (!c || c->loop != script.loop || c->points != script.points) {
    script.cache = std::make_shared<const ScriptSplineCache>(
        ScriptSplineCache{script.points, script.loop, PathSpline(script.points, script.loop)});
  }
  return script.cache->spline;
}

double script_length(const Script& script) { return script_spline(script).length(); }

double script_duration(const Script& script) {
  const double length = script_length(script);
  if (!(length > 0.0) || !(script.speed > 0.0)) return 0.0;
  return length / script.speed;
}

ScriptSample sample_script(const Script& script, double t) {
  const PathSpline& path = script_spline(script);
  const TimeLaw law = time_law(script, path.length(), t);
  const PathPoint p = path.at(law.s);
  ScriptSample out;
  out.position = p.position;
  // x' = (C' U') s',  x'' = (C'' U'^2 + C' U'') s'^2 + (C' U') s''   (eqs. 3.11-3.12)
  out.velocity = p.tangent * law.ds;
  out.acceleration = p.curvature * (law.ds * law.ds) + p.tangent * law.dds;
  return out;
}

std::vector<Vec3> script_polyline(const Script& script, int per_segment) {
  const PathSpline& path = script_spline(script);
  std::vector<Vec3> out;
  if (path.segment_count() == 0) {
    if (!path.knots().empty()) out.push_back(path.knots().front());
    return out;
  }
  per_segment = std::max(1, per_segment);
  for (size_t i = 0; i < path.segment_count(); ++i) {
    const double s0 = path.knot_arc_length(i), s1 = path.knot_arc_length(i + 1);
    for (int k = 0; k < per_segment; ++k) out.push_back(path.position(s0 + (s1 - s0) * k / per_segment));
  }
  out.push_back(path.closed() ? path.knots().front() : path.knots().back());
  return out;
}

std::string script_path_problem(const std::vector<Vec3>& points, bool loop, size_t* index) {
  size_t dummy = 0;
  size_t& at = index ? *index : dummy;
  const size_t n = points.size();
  at = 0;
  if (n < 2) return "a path of at least 2 points";
  if (loop && n < 3) return "a looping path of at least 3 points (a closed path through 2 points turns straight back)";
  for (size_t i = 0; i < n; ++i) {
    at = i;
    if (!all_finite(points[i])) return "a point with finite coordinates";
    if (i > 0 && path_points_coincide(points[i - 1], points[i])) {
      return "a point distinct from the previous one (consecutive path points must differ)";
    }
  }
  if (loop && path_points_coincide(points[n - 1], points[0])) {
    at = n - 1;
    return "a point distinct from the first one (a looping path closes itself from its last point back to its "
           "first; do not repeat the first point)";
  }
  // A point where the path turns straight back: the spline would stop there (C' = 0, a cusp; thesis sect. 3.2.1).
  for (size_t i = loop ? 0 : 1; i < (loop ? n : n - 1); ++i) {
    const Vec3 a = points[i] - points[(i + n - 1) % n];
    const Vec3 b = points[(i + 1) % n] - points[i];
    if (a.dot(b) < 0 && a.cross(b).norm() <= 1e-9 * a.norm() * b.norm()) {
      at = i;
      return "a point where the path does not turn straight back (the segments before and after it point in "
             "opposite directions, so the body would have to stop and reverse)";
    }
  }
  return "";
}

void apply_scripts(const std::vector<Script>& scripts, std::vector<Body>& bodies, double t, double h) {
  for (const Script& script : scripts) {
    if (script.body < 0 || size_t(script.body) >= bodies.size()) continue;
    Body& b = bodies[size_t(script.body)];
    const ScriptSample now = sample_script(script, t);
    b.position = now.position;
    if (h > 0.0) {
      // The semi-implicit position update x += h v then lands exactly on the path at t + h.
      b.linear_velocity = (sample_script(script, t + h).position - now.position) / h;
    } else {
      b.linear_velocity = now.velocity;
    }
    b.angular_velocity.setZero();
  }
}

}  // namespace cl
