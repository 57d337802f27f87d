// Scripted motion (thesis ch. 3): the space spline, arc length, the time laws, analytic derivatives, the
// verification protocol of thesis sect. 3.4, Fig. 3.6, and scripted bodies driving and pushing in a world.
#include "scripts/script.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "constraints/motion.h"
#include "scripts/spline.h"
#include "solvers/solver.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {
namespace {

using namespace cl::test;

using test::kPi;

// A curvy, non-planar open path with uneven point spacing.
std::vector<Vec3> wavy_points() {
  return {Vec3(0, 0, 0), Vec3(2, 1, 0), Vec3(3.5, 0.2, 1), Vec3(5, -1, 1.5), Vec3(7.5, 0, 0.5), Vec3(8, 2, -1)};
}

// A gentle path (large radii of curvature) for the integration test.
std::vector<Vec3> gentle_points() { return {Vec3(0, 1, 0), Vec3(4, 1.5, 0.5), Vec3(8, 1.2, 1.5), Vec3(12, 1, 1)}; }

std::vector<Vec3> circle_points(int n, double r) {
  std::vector<Vec3> p;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * kPi * i / n;
    p.emplace_back(r * std::cos(a), 1.0, r * std::sin(a));
  }
  return p;
}

Script make_script(std::vector<Vec3> points, double speed, ScriptTiming timing = ScriptTiming::Constant,
                   bool loop = false, double start_time = 0.0) {
  Script s;
  s.points = std::move(points);
  s.speed = speed;
  s.timing = timing;
  s.loop = loop;
  s.start_time = start_time;
  return s;
}

// Length of segment i measured independently of the quadrature: a polyline through many points of C_i(u).
double polyline_length(const CubicSegment& seg, int samples) {
  double len = 0;
  Vec3 prev = seg.point(0);
  for (int k = 1; k <= samples; ++k) {
    const Vec3 p = seg.point(double(k) / samples);
    len += (p - prev).norm();
    prev = p;
  }
  return len;
}

}  // namespace

// --- the space spline and its arc length ---------------------------------------------------------------

TEST(ScriptSpline, StraightSegmentHasItsChordLength) {
  const PathSpline two({Vec3(1, 2, 3), Vec3(4, 6, 3)}, false);
  EXPECT_NEAR(two.length(), 5.0, 1e-12);
  EXPECT_LE((two.position(2.5) - Vec3(2.5, 4, 3)).norm(), 1e-12);
  // Collinear points, unevenly spaced and in order: the chord-length spline reproduces the straight line.
  const PathSpline line({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1.2, 0, 0), Vec3(4, 0, 0), Vec3(10, 0, 0)}, false);
  EXPECT_NEAR(line.length(), 10.0, 1e-11);
  for (double s : {0.3, 1.1, 3.3, 7.7, 9.99}) {
    const PathPoint p = line.at(s);
    EXPECT_LE((p.position - Vec3(s, 0, 0)).norm(), 1e-10) << s;
    EXPECT_LE((p.tangent - Vec3(1, 0, 0)).norm(), 1e-10) << s;
    EXPECT_LE(p.curvature.norm(), 1e-8) << s;
  }
}

TEST(ScriptSpline, PassesThroughEveryControlPointAtItsArcLength) {
  const std::vector<Vec3> pts = wavy_points();
  const PathSpline path(pts, false);
  ASSERT_EQ(path.segment_count(), pts.size() - 1);
  EXPECT_EQ(path.knot_arc_length(0), 0.0);
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_LE((path.position(path.knot_arc_length(i)) - pts[i]).norm(), 1e-9) << i;
  }
  double total = 0;
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const double seg = path.knot_arc_length(i + 1) - path.knot_arc_length(i);
    const double reference = polyline_length(path.segment(i), 200000);
    EXPECT_NEAR(seg, reference, 1e-8 * reference) << i;
    EXPECT_GT(seg, (pts[i + 1] - pts[i]).norm()) << i;  // a curve is longer than its chord
    total += reference;
  }
  EXPECT_NEAR(path.length(), total, 1e-8 * total);

  // The scripted body passes each point at time (arc length) / speed.
  const Script s = make_script(pts, 2.0);
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_LE((sample_script(s, path.knot_arc_length(i) / 2.0).position - pts[i]).norm(), 1e-9) << i;
  }
}

TEST(ScriptSpline, ClosedCircleLengthApproachesTwoPiR) {
  const double r = 2.0;
  double previous_error = 1e9;
  for (int n : {4, 8, 16, 32, 64}) {
    const PathSpline circle(circle_points(n, r), true);
    ASSERT_TRUE(circle.closed());
    ASSERT_EQ(circle.segment_count(), size_t(n));
    const double error = std::abs(circle.length() - 2 * kPi * r) / (2 * kPi * r);
    EXPECT_LT(error, previous_error) << n;
    previous_error = error;
    // Closed and smooth across the seam.
    const PathPoint a = circle.at(1e-7), b = circle.at(circle.length() - 1e-7);
    EXPECT_LE((a.position - b.position).norm(), 1e-6) << n;
    EXPECT_LE((a.tangent - b.tangent).norm(), 1e-5) << n;
  }
  EXPECT_LT(previous_error, 1e-5);  // 64 points
  const PathSpline c16(circle_points(16, r), true);
  EXPECT_NEAR(c16.length(), 2 * kPi * r, 2e-3 * 2 * kPi * r);
  // Points on the spline stay near the circle, and the curvature is about 1/r.
  for (double s = 0; s < c16.length(); s += 0.37) {
    const PathPoint p = c16.at(s);
    EXPECT_NEAR(Vec2(p.position.x(), p.position.z()).norm(), r, 2e-3 * r) << s;
    EXPECT_NEAR(p.curvature.norm(), 1 / r, 0.02 / r) << s;
  }
}

TEST(ScriptSpline, IsC2AcrossKnotsWithNaturalEnds) {
  const std::vector<Vec3> pts = wavy_points();
  const PathSpline path(pts, false);
  const double e = 1e-6;
  for (size_t i = 1; i + 1 < pts.size(); ++i) {
    const double s = path.knot_arc_length(i);
    const PathPoint before = path.at(s - e), after = path.at(s + e);
    EXPECT_EQ(before.segment + 1, after.segment) << i;
    EXPECT_LE((before.position - after.position).norm(), 3 * e) << i;
    EXPECT_LE((before.tangent - after.tangent).norm(), 1e-4) << i;
    EXPECT_LE((before.curvature - after.curvature).norm(), 1e-3 * std::max(1.0, before.curvature.norm())) << i;
  }
  EXPECT_LE(path.at(0).curvature.norm(), 1e-9);
  EXPECT_LE(path.at(path.length()).curvature.norm(), 1e-9);
  EXPECT_GT(path.at(path.knot_arc_length(2)).curvature.norm(), 0.1);
}

TEST(ScriptSpline, ArcLengthInverseAndItsDerivatives) {
  const PathSpline path(wavy_points(), false);
  for (double s = 0.05; s < path.length(); s += 0.173) {
    const PathPoint p = path.at(s);
    // U inverts S.
    EXPECT_NEAR(path.knot_arc_length(size_t(p.segment)) + path.segment_arc_length(size_t(p.segment), p.u), s, 1e-11) << s;
    // U' and U'' (eq. 3.41) against central differences of U.
    const double h = 1e-4;
    const PathPoint a = path.at(s - h), b = path.at(s + h);
    if (a.segment != p.segment || b.segment != p.segment) continue;
    EXPECT_NEAR(p.du_ds, (b.u - a.u) / (2 * h), 1e-6 * std::abs(p.du_ds)) << s;
    EXPECT_NEAR(p.d2u_ds2, (b.u - 2 * p.u + a.u) / (h * h), 1e-4 * std::abs(p.du_ds) + 1e-4 * std::abs(p.d2u_ds2)) << s;
    EXPECT_NEAR(p.tangent.norm(), 1.0, 1e-12) << s;
    EXPECT_NEAR(p.tangent.dot(p.curvature), 0.0, 1e-9 * std::max(1.0, p.curvature.norm())) << s;
  }
}

// --- the time laws --------------------------------------------------------------------------------------

TEST(Script, ConstantSpeedAlongTheWholePath) {
  const double speed = 3.0;
  const Script s = make_script(wavy_points(), speed);
  const double L = script_length(s), T = script_duration(s);
  EXPECT_NEAR(T, L / speed, 1e-12);
  const double dt = 1e-3;
  Vec3 prev = sample_script(s, 0).position;
  for (double t = dt; t < T; t += dt) {
    const ScriptSample x = sample_script(s, t);
    EXPECT_NEAR(x.velocity.norm(), speed, 1e-3 * speed) << t;                  // 0.1 %
    EXPECT_NEAR((x.position - prev).norm(), speed * dt, 5e-3 * speed * dt) << t;  // equal spacing, 0.5 %
    prev = x.position;
  }
  // Stops at the end: at the last point with zero velocity.
  const ScriptSample end = sample_script(s, T + 0.5);
  EXPECT_LE((end.position - s.points.back()).norm(), 1e-9);
  EXPECT_EQ(end.velocity.norm(), 0.0);
  EXPECT_EQ(end.acceleration.norm(), 0.0);
}

TEST(Script, EqualTimeStepsAreEqualArcLengths) {
  // Arc length between samples measured by the spline's own table (independent of the chord test above).
  const Script s = make_script(wavy_points(), 1.5);
  const PathSpline& path = script_spline(s);
  const double T = script_duration(s);
  const int n = 97;
  double prev_s = 0;
  for (int k = 1; k <= n; ++k) {
    const double t = T * k / n;
    const Vec3 x = sample_script(s, t).position;
    // Find the arc length of x by locating it on the path (dense search, then the exact point).
    double best = 0, best_d = 1e9;
    const double window = std::min(path.length(), prev_s + 3 * 1.5 * T / n);
    for (double q = prev_s; q <= window + 1e-12; q += 1e-4) {
      const double d = (path.position(q) - x).norm();
      if (d < best_d) best_d = d, best = q;
    }
    EXPECT_LT(best_d, 1e-3);
    EXPECT_NEAR(best - prev_s, 1.5 * T / n, 2e-4) << k;
    prev_s = best;
  }
}

TEST(Script, VelocityAndAccelerationMatchFiniteDifferences) {
  const std::vector<Script> scripts = {
      make_script(wavy_points(), 2.0),
      make_script(wavy_points(), 2.0, ScriptTiming::Ease),
      make_script(circle_points(7, 3.0), 4.0, ScriptTiming::Constant, true),
      make_script(circle_points(5, 1.0), 1.0, ScriptTiming::Ease, true, 0.25),
  };
  for (size_t k = 0; k < scripts.size(); ++k) {
    const Script& s = scripts[k];
    const double T = script_duration(s);
    const double e = 1e-4;
    for (double t = s.start_time + 0.013; t < s.start_time + 0.999 * T; t += T / 53) {
      const ScriptSample x = sample_script(s, t);
      const Vec3 a = sample_script(s, t - e).position, b = sample_script(s, t + e).position;
      const Vec3 v_fd = (b - a) / (2 * e);
      const Vec3 a_fd = (b - 2 * x.position + a) / (e * e);
      const double vscale = std::max(1.0, x.velocity.norm());
      const double ascale = std::max(1.0, x.acceleration.norm());
      EXPECT_LE((x.velocity - v_fd).norm(), 1e-6 * vscale) << "script " << k << " t " << t;
      EXPECT_LE((x.acceleration - a_fd).norm(), 2e-3 * ascale) << "script " << k << " t " << t;
    }
  }
}

TEST(Script, EaseStartsAndEndsAtRestAndArrivesOnTime) {
  const double speed = 2.0;
  const Script s = make_script(wavy_points(), speed, ScriptTiming::Ease, false, 0.5);
  const double L = script_length(s), T = L / speed;
  // Waiting before start_time, at rest.
  const ScriptSample before = sample_script(s, 0.2);
  EXPECT_EQ(before.position, s.points.front());
  EXPECT_EQ(before.velocity.norm(), 0.0);
  // Starts at rest, ramps up, peaks at 15/8 of the mean speed halfway, ramps down.
  EXPECT_LE(sample_script(s, 0.5).velocity.norm(), 1e-12);
  EXPECT_LE(sample_script(s, 0.5 + 1e-3).velocity.norm(), 1e-3);
  EXPECT_NEAR(sample_script(s, 0.5 + T / 2).velocity.norm(), 1.875 * speed, 1e-9);
  EXPECT_LE(sample_script(s, 0.5 + T - 1e-3).velocity.norm(), 1e-3);
  EXPECT_LE(sample_script(s, 0.5 + T).velocity.norm(), 1e-12);
  // Not there a little early, there on time, staying there.
  EXPECT_GT((sample_script(s, 0.5 + 0.9 * T).position - s.points.back()).norm(), 0.01);
  EXPECT_LE((sample_script(s, 0.5 + T).position - s.points.back()).norm(), 1e-9);
  EXPECT_LE((sample_script(s, 0.5 + 2 * T).position - s.points.back()).norm(), 1e-9);
  // Symmetric: halfway in time is halfway along the path.
  const PathSpline& path = script_spline(s);
  EXPECT_LE((sample_script(s, 0.5 + T / 2).position - path.position(L / 2)).norm(), 1e-9);
}

TEST(Script, LoopGoesRoundRepeatedly) {
  const Script s = make_script(circle_points(6, 2.0), 3.0, ScriptTiming::Constant, true);
  const double T = script_duration(s);
  for (double t : {0.1, 0.7, 1.9}) {
    const ScriptSample a = sample_script(s, t), b = sample_script(s, t + 3 * T);
    EXPECT_LE((a.position - b.position).norm(), 1e-9) << t;
    EXPECT_LE((a.velocity - b.velocity).norm(), 1e-9) << t;
  }
  for (int lap = 1; lap <= 3; ++lap) {
    EXPECT_LE((sample_script(s, lap * T).position - s.points.front()).norm(), 1e-9) << lap;
    EXPECT_NEAR(sample_script(s, lap * T).velocity.norm(), 3.0, 1e-9) << lap;  // keeps going
  }
  // Ease when looping rests at the first point once per lap.
  Script e = s;
  e.timing = ScriptTiming::Ease;
  EXPECT_LE(sample_script(e, 2 * T).velocity.norm(), 1e-9);
  EXPECT_GT(sample_script(e, 2.5 * T).velocity.norm(), 3.0);
}

// Digest 3.6: integrate r' = v, v' = a(t) with RK4 from the scripted start and compare with r(t).
TEST(Script, VerificationProtocolRk4FollowsTheScript) {
  for (ScriptTiming timing : {ScriptTiming::Constant, ScriptTiming::Ease}) {
    const Script s = make_script(gentle_points(), 2.0, timing);
    const double T = script_duration(s);
    const double h = 1e-3;
    Vec3 r = sample_script(s, 0).position, v = sample_script(s, 0).velocity;
    const auto acc = [&](double t) { return sample_script(s, t).acceleration; };
    double max_error = 0;
    const int steps = int(std::floor(T / h));  // the constant law stops abruptly at T: integrate up to it
    for (int k = 0; k < steps; ++k) {
      const double t = k * h;
      const Vec3 k1r = v, k1v = acc(t);
      const Vec3 k2r = v + 0.5 * h * k1v, k2v = acc(t + 0.5 * h);
      const Vec3 k3r = v + 0.5 * h * k2v, k3v = k2v;
      const Vec3 k4r = v + h * k3v, k4v = acc(t + h);
      r += h / 6 * (k1r + 2 * k2r + 2 * k3r + k4r);
      v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
      max_error = std::max(max_error, (r - sample_script(s, t + h).position).norm());
    }
    EXPECT_LT(max_error, 1e-6 * script_length(s)) << script_timing_name(timing) << " max error " << max_error;
    // And the integrated velocity agrees with the scripted one.
    EXPECT_LE((v - sample_script(s, steps * h).velocity).norm(), 1e-5) << script_timing_name(timing);
  }
}

// --- degenerate input -------------------------------------------------------------------------------------

TEST(Script, DegenerateInputNeverCrashes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Script> scripts = {
      make_script({}, 1.0),
      make_script({Vec3(1, 2, 3)}, 1.0),
      make_script({Vec3(1, 2, 3), Vec3(1, 2, 3), Vec3(1, 2, 3)}, 1.0, ScriptTiming::Ease, true),
      make_script({Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0)}, 1.0),
      make_script({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 1.0, ScriptTiming::Constant, true),  // back and forth: cusps
      make_script({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(1, 0, 0)}, 1.0),               // turns straight back
      make_script({Vec3(0, 0, 0), Vec3(nan, 0, 0), Vec3(1, 1, 0)}, 1.0),
      make_script(wavy_points(), 0.0),
      make_script(wavy_points(), -2.0),
      make_script(wavy_points(), nan),
  };
  for (size_t k = 0; k < scripts.size(); ++k) {
    for (double t : {-1.0, 0.0, 0.01, 0.5, 1.0, 1.5, 2.0, 3.7, 1e6, nan}) {
      const ScriptSample x = sample_script(scripts[k], t);
      EXPECT_TRUE(all_finite(x.position) && all_finite(x.velocity) && all_finite(x.acceleration))
          << "script " << k << " t " << t;
    }
    EXPECT_TRUE(std::isfinite(script_length(scripts[k]))) << k;
  }
  EXPECT_EQ(script_length(scripts[0]), 0.0);
  EXPECT_EQ(sample_script(scripts[1], 5.0).position, Vec3(1, 2, 3));
  EXPECT_NEAR(script_length(scripts[3]), 1.0, 1e-12);  // duplicates merged
  EXPECT_EQ(sample_script(scripts[7], 1.0).position, wavy_points().front());  // speed 0: stays at the start
}

TEST(Script, PathProblemsAreNamedWithTheirPoint) {
  size_t at = 99;
  EXPECT_EQ(script_path_problem(wavy_points(), false, &at), "");
  EXPECT_EQ(script_path_problem(circle_points(3, 1), true, &at), "");
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0)}, false, &at), "");
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0), Vec3(1, 0, 0)}, true, &at).find("at least 3"), std::string::npos);
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0)}, false, &at).find("previous"),
            std::string::npos);
  EXPECT_EQ(at, 2u);
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 0, 0)}, true, &at).find("first"),
            std::string::npos);
  EXPECT_EQ(at, 3u);
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(1, 0, 0)}, false, &at).find("turn straight back"),
            std::string::npos);
  EXPECT_EQ(at, 1u);
  // Collinear in order is fine when open; a looping path through collinear points must turn back.
  EXPECT_EQ(script_path_problem({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(3, 0, 0)}, false, &at), "");
  EXPECT_NE(script_path_problem({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(3, 0, 0)}, true, &at), "");
}

TEST(Script, SplineCacheFollowsEdits) {
  Script s = make_script({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 1.0);
  EXPECT_NEAR(script_length(s), 1.0, 1e-12);
  const Script copy = s;  // shares the built spline
  s.points.back() = Vec3(3, 0, 0);
  EXPECT_NEAR(script_length(s), 3.0, 1e-12);
  EXPECT_NEAR(script_length(copy), 1.0, 1e-12);
  s.points.push_back(Vec3(3, 3, 0));
  s.loop = true;
  EXPECT_TRUE(script_spline(s).closed());
}

// --- scripted bodies in a world -------------------------------------------------------------------------

namespace {
// Ground, a kinematic box driven along `points`, and optionally a dynamic ball at `ball`. Sleeping is off
// unless asked for, so these tests see the scripts and the contacts alone.
World scripted_world(const std::vector<Vec3>& points, double speed, const Vec3* ball, bool sleeping = false) {
  World w;
  w.settings.dt = 0.01;
  if (w.solver().params().find("sleeping")) {
    EXPECT_TRUE(w.solver().params().set("sleeping", sleeping ? 1.0 : 0.0, nullptr));
  }
  add_plane(w);
  const int pusher = add_body(w, box(Vec3(0.3, 0.4, 0.6)), points.front(), 0.0, Quat::Identity(), 0, BodyKind::Kinematic);
  if (ball) add_body(w, sphere(0.5), *ball, 500.0);
  w.scripts.push_back(make_script(points, speed));
  w.scripts.back().body = pusher;
  return w;
}
}  // namespace

TEST(Script, ApplyScriptsThenPositionUpdateLandsOnThePath) {
  std::vector<Body> bodies(2);
  bodies[1].kind = BodyKind::Kinematic;
  std::vector<Script> scripts = {make_script(wavy_points(), 2.5, ScriptTiming::Ease), make_script(circle_points(5, 2), 4.0)};
  scripts[0].body = 1;
  scripts[1].body = 7;  // no such body: skipped
  scripts[1].loop = true;
  const double h = 0.01;
  for (int k = 0; k < 500; ++k) {
    const double t = k * h;
    apply_scripts(scripts, bodies, t, h);
    EXPECT_LE((bodies[1].position - sample_script(scripts[0], t).position).norm(), 1e-12);
    advance_poses(bodies, h);
    EXPECT_LE((bodies[1].position - sample_script(scripts[0], t + h).position).norm(), 1e-9) << k;
    EXPECT_EQ(bodies[0].position, Vec3::Zero());
  }
}

TEST(Script, ScriptedBodyStaysOnItsPathThroughWorldStep) {
  const std::vector<Vec3> path = {Vec3(-3, 0.6, 0), Vec3(-1, 0.9, 1), Vec3(1, 0.6, 0), Vec3(3, 1.2, -1)};
  World w = scripted_world(path, 1.5, nullptr);
  const int body = w.scripts[0].body;
  const double h = w.settings.dt;
  for (int k = 0; k < 600; ++k) {
    // Idempotent with World::step applying the scripts itself at the same time and step.
    apply_scripts(w.scripts, w.bodies, w.time(), h);
    ASSERT_TRUE(w.step().ok);
    EXPECT_LE((w.bodies[size_t(body)].position - sample_script(w.scripts[0], w.time()).position).norm(), 1e-9) << k;
    EXPECT_EQ(w.bodies[size_t(body)].orientation.coeffs(), Quat::Identity().coeffs());
  }
  EXPECT_LE((w.bodies[size_t(body)].position - path.back()).norm(), 1e-9);  // arrived and stopped
}

namespace {
void push_a_ball(bool sleeping) {
  const std::vector<Vec3> path = {Vec3(-3, 0.4, 0), Vec3(3, 0.4, 0)};
  const Vec3 ball0(0, 0.5, 0);
  World w = scripted_world(path, 1.0, &ball0, sleeping);
  const int pusher = w.scripts[0].body;
  const size_t ball = 2;
  const double h = w.settings.dt;
  bool touched = false;
  double min_gap = 1e9;
  for (int k = 0; k < 700; ++k) {  // the pusher arrives at x = 3 after 6 s
    apply_scripts(w.scripts, w.bodies, w.time(), h);
    const Vec3 v = w.bodies[size_t(pusher)].linear_velocity;
    ASSERT_TRUE(w.step().ok);
    for (const Contact& c : w.contacts()) touched |= (c.a == pusher || c.b == pusher) && (c.a == int(ball) || c.b == int(ball));
    // The contact changes neither the scripted velocity nor the path.
    EXPECT_EQ(w.bodies[size_t(pusher)].linear_velocity, v) << k;
    EXPECT_LE((w.bodies[size_t(pusher)].position - sample_script(w.scripts[0], w.time()).position).norm(), 1e-9) << k;
    // The ball never ends up inside the pusher's front face by more than a little.
    min_gap = std::min(min_gap, w.bodies[ball].position.x() - 0.5 - (w.bodies[size_t(pusher)].position.x() + 0.3));
  }
  EXPECT_TRUE(touched);
  EXPECT_GT(min_gap, -0.05);
  // The pusher stopped at x = 3; the ball was pushed ahead of it (or rolled further).
  EXPECT_GT(w.bodies[ball].position.x(), 3.0 + 0.3 + 0.5 - 0.05);
  EXPECT_NEAR(w.bodies[ball].position.y(), 0.5, 0.05);
}
}  // namespace

TEST(Script, ScriptedBodyPushesABallAndIsNotPushedBack) { push_a_ball(false); }

// With the sleepy policy on (the default), the ball falls asleep before the pusher arrives; a moving
// scripted body touching it must wake it (its group), or the pusher passes through it.
TEST(ScriptWorld, ScriptedBodyWakesASleepingBall) { push_a_ball(true); }

// Needs World::step to call apply_scripts (the lead wires it): no manual apply here.
TEST(ScriptWorld, StepDrivesScriptedBodies) {
  const std::vector<Vec3> path = {Vec3(-3, 0.6, 0), Vec3(0, 1.0, 1), Vec3(3, 0.6, 0)};
  World w = scripted_world(path, 2.0, nullptr);
  const int body = w.scripts[0].body;
  for (int k = 0; k < 150; ++k) {
    ASSERT_TRUE(w.step().ok);
    ASSERT_LE((w.bodies[size_t(body)].position - sample_script(w.scripts[0], w.time()).position).norm(), 1e-9) << k;
  }
  const World copy = w;  // scripts are part of the world
  ASSERT_EQ(copy.scripts.size(), 1u);
}

}  // namespace cl
