// The `volume` solver's drawing (Solver::draw_debug, VolumeSolver::pair_geometry): the simulation is bit-identical
// whether or not it is drawn, between or around every step; what it draws at the poses of a collision stage
// agrees with what the solver used there (constraints = the world's contacts, cells one per constraint, the
// intervals' volume and the vertex gradients = the constraint's volume and rigid gradient, eq. 11-14); at the
// current poses it is what the next collision stage computes; and it draws the layers asked for, no others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scene/scene.h"
#include "solvers/volume/volume_solver.h"
#include "support/builders.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

const VolumeSolver& solver_of(const World& w) { return dynamic_cast<const VolumeSolver&>(w.solver()); }

void set_param(World& w, const char* name, double value) { ASSERT_TRUE(w.solver().params().set(name, value, nullptr)) << name; }

constexpr unsigned kAllVolumeLayers = kDebugVolumes | kDebugVolumeGradients | kDebugVolumeCells;

// Everything drawn, by kind.
struct DrawRecorder : DebugDraw {
  struct Line {
    Vec3 a, b;
    DebugColor color;
  };
  std::vector<Line> lines, arrows;
  std::vector<std::pair<Vec3, DebugColor>> points;
  std::map<std::string, double, std::less<>> notes;
  explicit DrawRecorder(unsigned layers) { request.layers = layers; }
  void line(const Vec3& a, const Vec3& b, const DebugColor& c) override { lines.push_back({a, b, c}); }
  void arrow(const Vec3& a, const Vec3& b, const DebugColor& c) override { arrows.push_back({a, b, c}); }
  void point(const Vec3& p, const DebugColor& c) override { points.emplace_back(p, c); }
  void note(std::string_view label, double value) override { notes[std::string(label)] = value; }
};

bool same_rgb(const DebugColor& x, const DebugColor& y) { return x[0] == y[0] && x[1] == y[1] && x[2] == y[2]; }

// Bitwise equality of everything a step produces.
void expect_identical(const World& x, const World& y, int step) {
  ASSERT_EQ(x.bodies.size(), y.bodies.size());
  for (size_t i = 0; i < x.bodies.size(); ++i) {
    const Body& a = x.bodies[i];
    const Body& b = y.bodies[i];
    EXPECT_EQ(a.position, b.position) << "body " << i << " step " << step;
    EXPECT_EQ(a.orientation.coeffs(), b.orientation.coeffs()) << "body " << i << " step " << step;
    EXPECT_EQ(a.linear_velocity, b.linear_velocity) << "body " << i << " step " << step;
    EXPECT_EQ(a.angular_velocity, b.angular_velocity) << "body " << i << " step " << step;
  }
  ASSERT_EQ(x.contacts().size(), y.contacts().size()) << "step " << step;
  for (size_t k = 0; k < x.contacts().size(); ++k) {
    const Contact& a = x.contacts()[k];
    const Contact& b = y.contacts()[k];
    EXPECT_EQ(a.position, b.position);
    EXPECT_EQ(a.normal, b.normal);
    EXPECT_EQ(a.depth, b.depth);
    EXPECT_EQ(a.normal_impulse, b.normal_impulse);
    EXPECT_EQ(a.friction_impulse, b.friction_impulse);
  }
  EXPECT_EQ(x.last_stats().iterations, y.last_stats().iterations);
}

// The volume contacts of pair (a, b) among the world's contacts: speculative ones (the shared narrow phase's
// points of a pair still apart, feature bit 31) are no volumes.
std::vector<const Contact*> volume_contacts(const World& w, int a, int b) {
  std::vector<const Contact*> out;
  for (const Contact& c : w.contacts())
    if (c.a == a && c.b == b && !(c.feature & (1u << 31))) out.push_back(&c);
  return out;
}

}  // namespace

// The deeply interpenetrated scene (boxes and tori on the ground), multi- and mono-volume: drawn with every layer
// before each step, at the pre-step and the current poses, gives the same simulation bit for bit as not drawn.
TEST(VolumeDebugDraw, SimulationIsBitIdenticalWhetherOrNotDrawn) {
  for (bool multi : {true, false}) {
    World plain = test::load_shipped_scene("volume_interpenetrated.json");
    set_param(plain, "multi_volume", multi ? 1 : 0);
    World drawn = plain;
    const int steps = multi ? 25 : 12;
    size_t lines = 0;
    for (int s = 0; s < steps; ++s) {
      const std::vector<Body> before = drawn.bodies;
      DrawRecorder rec(kAllVolumeLayers | kDebugMethod);
      drawn.draw_debug(rec);
      ASSERT_TRUE(plain.step().ok);
      ASSERT_TRUE(drawn.step().ok);
      drawn.draw_debug(rec, &before);
      lines += rec.lines.size();
      expect_identical(plain, drawn, s);
      if (HasFailure()) return;
    }
    EXPECT_GT(lines, 0u);
  }
}

// At the poses of a step's collision stage (the bodies before the step; the scene has no scripts), each pair's
// geometry agrees with the contacts the world got from collide(): one constraint per volume contact (feature =
// index) at the same position and normal, one grid cell per constraint, gradients that balance between the two
// bodies (equal and opposite forces).
TEST(VolumeDebugDraw, GeometryAtTheCollisionStageMatchesItsContacts) {
  World w = test::load_shipped_scene("volume_interpenetrated.json");
  for (int s = 0; s < 2; ++s) ASSERT_TRUE(w.step().ok);
  const std::vector<Body> stage = w.bodies;
  ASSERT_TRUE(w.step().ok);
  const std::vector<BodyPair> pairs = w.collision_pairs(stage);
  ASSERT_GE(pairs.size(), 3u);
  size_t constraints = 0;
  for (const BodyPair& p : pairs) {
    SCOPED_TRACE("pair " + std::to_string(p.a) + " " + std::to_string(p.b));
    const VolumeSolver::PairGeometry g = solver_of(w).pair_geometry(stage, p.a, p.b, 20000);
    const std::vector<const Contact*> contacts = volume_contacts(w, p.a, p.b);
    ASSERT_EQ(contacts.size(), g.constraints.size());
    for (const Contact* c : contacts) {
      ASSERT_LT(c->feature, g.constraints.size());
      EXPECT_EQ(c->position, g.constraints[c->feature].position);
      EXPECT_EQ(c->normal, g.constraints[c->feature].normal);
    }
    // Cells (multi-volume is the scene's setting): one per constraint, distinct.
    ASSERT_EQ(g.cells.size(), g.constraints.size());
    auto sorted = g.cells;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Gradients balance over the two bodies (sect. 3.2: F_A = -F_B).
    Vec3 sum = Vec3::Zero();
    double scale = 0;
    for (const auto& list : g.gradients)
      for (const auto& a : list) {
        sum += a.gradient;
        scale += a.gradient.norm();
      }
    if (!g.constraints.empty()) {
      EXPECT_GT(scale, 0.0);
      // The image looking along the contact's normal sees it; the other two may not, when the contact is a
      // layer thinner than a pixel aligned with an axis (rays parallel to it miss it).
      int axis = 0;
      g.constraints[0].normal.cwiseAbs().maxCoeff(&axis);
      EXPECT_FALSE(g.intervals.segments[size_t(axis)].empty()) << "axis " << axis;
    }
    EXPECT_LE(sum.norm(), 1e-9 * scale + 1e-15);
    constraints += g.constraints.size();
  }
  EXPECT_GT(constraints, 5u);
}

// Mono-volume, a box sunk into the ground, seen by the depth images (exact_primitives off): the intervals' lengths
// give the constraint's volume (eq. 11, normal-weighted as the solver combines them) and the vertex gradients sum
// to its rigid linear term; the constraint is the one the step then uses.
TEST(VolumeDebugDraw, MonoIntervalsAndGradientsGiveTheConstraint) {
  World w;
  w.settings.dt = 0.01;
  ASSERT_TRUE(w.set_solver("volume", nullptr));
  set_param(w, "pixel_size", 0.01);
  set_param(w, "multi_volume", 0);
  set_param(w, "exact_primitives", 0);
  set_param(w, "threads", 1);
  add_plane(w);
  add_body(w, box(Vec3(0.2, 0.1, 0.15)), Vec3(0.003, 0.07, -0.002), 500.0);
  w.bodies[1].orientation = Quat(Eigen::AngleAxisd(0.2, Vec3(1, 0, 1).normalized()));
  const VolumeSolver::PairGeometry g = solver_of(w).pair_geometry(w.bodies, 0, 1, 20000);
  ASSERT_EQ(g.constraints.size(), 1u);
  EXPECT_TRUE(g.cells.empty());
  const VolumeSolver::Constraint& c = g.constraints[0];
  double volume = 0;
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(g.intervals.stride[size_t(axis)], 1);
    double length = 0;
    for (const auto& seg : g.intervals.segments[size_t(axis)]) length += (seg[1] - seg[0])[axis];
    volume += c.normal[axis] * c.normal[axis] * length * 0.01 * 0.01;
  }
  EXPECT_NEAR(volume, c.volume, 1e-9 * c.volume);
  for (int s = 0; s < 2; ++s) {
    Vec3 sum = Vec3::Zero();
    for (const auto& a : g.gradients[size_t(s)]) sum += a.gradient;
    EXPECT_NEAR((sum - c.linear[size_t(s)]).norm(), 0.0, 1e-12 * c.linear[size_t(s)].norm()) << "body " << s;
  }
  ASSERT_TRUE(w.step().ok);
  const std::vector<const Contact*> contacts = volume_contacts(w, 0, 1);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0]->position, c.position);
  EXPECT_EQ(contacts[0]->normal, c.normal);
}

// The same box under the exact kernel: the intervals are the exact intersection sampled at the pixel centres
// (their volume is the constraint's to the pixel's resolution: 1 % here), the arrows are the terms of its faces
// and sum to each body's dV/dx exactly, and the constraint is the one the step uses. Multi-volume: one box per
// constraint, its column's part.
TEST(VolumeDebugDraw, ExactPairDrawsItsIntersection) {
  for (bool multi : {false, true}) {
    SCOPED_TRACE(multi ? "multi" : "mono");
    World w;
    w.settings.dt = 0.01;
    ASSERT_TRUE(w.set_solver("volume", nullptr));
    set_param(w, "pixel_size", 0.01);
    set_param(w, "multi_volume", multi ? 1 : 0);
    add_plane(w);
    add_body(w, box(Vec3(0.2, 0.1, 0.15)), Vec3(0.003, 0.07, -0.002), 500.0);
    w.bodies[1].orientation = Quat(Eigen::AngleAxisd(0.2, Vec3(1, 0, 1).normalized()));
    const VolumeSolver::PairGeometry g = solver_of(w).pair_geometry(w.bodies, 0, 1, 1000000);
    // Tilted, the box's corner under the ground leaves a corner column of the 3 x 3 empty.
    ASSERT_EQ(g.constraints.size(), multi ? 8u : 1u);
    double exact = 0;
    for (const auto& c : g.constraints) exact += c.volume;
    double sampled = 0;
    for (const auto& seg : g.intervals.segments[1]) sampled += (seg[1] - seg[0]).y() * 0.01 * 0.01;
    EXPECT_NEAR(sampled, exact, 0.01 * exact);
    Vec3 linear[2] = {Vec3::Zero(), Vec3::Zero()};
    for (const auto& c : g.constraints)
      for (int s = 0; s < 2; ++s) linear[s] += c.linear[size_t(s)];
    for (int s = 0; s < 2; ++s) {
      Vec3 sum = Vec3::Zero();
      for (const auto& a : g.gradients[size_t(s)]) sum += a.gradient;
      // The arrows are the whole intersection's dV/dx; a column's constraint keeps its part along the normal.
      EXPECT_NEAR(sum.dot(g.constraints[0].normal), linear[s].dot(g.constraints[0].normal), 1e-12 * sum.norm());
    }
    EXPECT_EQ(g.cell_boxes.size(), multi ? 8u : 0u);
    ASSERT_TRUE(w.step().ok);
    const std::vector<const Contact*> contacts = volume_contacts(w, 0, 1);
    ASSERT_EQ(contacts.size(), g.constraints.size());
    for (const Contact* c : contacts) EXPECT_EQ(c->position, g.constraints[c->feature].position);
  }
}

// Drawn between steps at the current poses (the viewer's default), the cells layer's constraint points are
// where the next collision stage puts its volume contacts, bit for bit; the notes count them.
TEST(VolumeDebugDraw, DrawingAtTheCurrentPosesIsWhatTheNextCollisionStageComputes) {
  World w = test::load_shipped_scene("volume_interpenetrated.json");
  for (int s = 0; s < 2; ++s) ASSERT_TRUE(w.step().ok);
  DrawRecorder rec(kDebugVolumeCells);
  w.draw_debug(rec);
  ASSERT_TRUE(w.step().ok);
  std::vector<std::array<double, 3>> drawn, contacts;
  for (const auto& [p, color] : rec.points)
    if (same_rgb(color, debug_colors::kCell)) drawn.push_back({p.x(), p.y(), p.z()});
  for (const Contact& c : w.contacts())
    if (!(c.feature & (1u << 31))) contacts.push_back({c.position.x(), c.position.y(), c.position.z()});
  std::sort(drawn.begin(), drawn.end());
  std::sort(contacts.begin(), contacts.end());
  ASSERT_GT(contacts.size(), 5u);
  EXPECT_EQ(drawn, contacts);
  EXPECT_EQ(rec.notes.at("constraints"), double(contacts.size()));
  EXPECT_GE(rec.notes.at("pairs"), 3.0);
  EXPECT_EQ(rec.notes.at("cells"), double(contacts.size()));  // multi-volume: one cell per constraint
  // Every cell drawn as its 12 edges, three frame lines per constraint; impulses as arrows.
  EXPECT_EQ(rec.lines.size(), 12 * contacts.size() + 3 * contacts.size());
  EXPECT_FALSE(rec.arrows.empty());
}

// Each layer alone draws only its own kind: volumes the intervals along the axes asked for (in their axis
// colours, subsampled to the limit), gradients arrows whose longest per pair is gradient_length; no volume
// layer draws nothing (and computes nothing: no notes), nor does another solver's layer.
TEST(VolumeDebugDraw, DrawsTheLayersAskedFor) {
  World w = test::load_shipped_scene("volume_interpenetrated.json");
  ASSERT_TRUE(w.step().ok);
  EXPECT_EQ(w.solver().debug_layers(), kAllVolumeLayers);

  DrawRecorder volumes(kDebugVolumes);
  volumes.request.volume_axes = {true, false, true};
  volumes.request.max_intervals_per_axis = 500;
  w.draw_debug(volumes);
  ASSERT_FALSE(volumes.lines.empty());
  EXPECT_TRUE(volumes.arrows.empty());
  EXPECT_TRUE(volumes.points.empty());
  std::array<long, 3> per_axis{0, 0, 0};
  for (const auto& l : volumes.lines) {
    int axis = -1;
    for (int a = 0; a < 3; ++a)
      if (same_rgb(l.color, debug_colors::kAxes[size_t(a)])) axis = a;
    ASSERT_GE(axis, 0);
    ++per_axis[size_t(axis)];
    // Along its image axis: the other two coordinates equal.
    for (int a = 0; a < 3; ++a) {
      if (a != axis) {
        EXPECT_EQ(l.a[a], l.b[a]);
      }
    }
  }
  EXPECT_GT(per_axis[0], 0);
  EXPECT_EQ(per_axis[1], 0);
  EXPECT_GT(per_axis[2], 0);
  EXPECT_EQ(double(per_axis[0]), volumes.notes.at("drawn x"));
  EXPECT_GE(volumes.notes.at("pixel stride"), 2.0);  // the limit subsampled them
  const auto& notes = volumes.notes;
  EXPECT_GT(notes.at("intervals x") + notes.at("intervals y") + notes.at("intervals z"),
            notes.at("drawn x") + notes.at("drawn y") + notes.at("drawn z"));
  for (const BodyPair& p : w.collision_pairs(w.bodies)) {
    const VolumeSolver::PairGeometry g = solver_of(w).pair_geometry(w.bodies, p.a, p.b, 500);
    for (size_t a = 0; a < 3; ++a) {
      const long stride = g.intervals.stride[a];
      EXPECT_LE(g.intervals.total[a] / (stride * stride), 500);
    }
  }

  DrawRecorder gradients(kDebugVolumeGradients);
  gradients.request.gradient_length = 0.25;
  w.draw_debug(gradients);
  ASSERT_FALSE(gradients.arrows.empty());
  EXPECT_TRUE(gradients.lines.empty());
  double longest = 0;
  for (const auto& a : gradients.arrows) {
    EXPECT_TRUE(same_rgb(a.color, debug_colors::kFirstBody) || same_rgb(a.color, debug_colors::kSecondBody));
    longest = std::max(longest, (a.b - a.a).norm());
  }
  EXPECT_NEAR(longest, 0.25, 1e-12);

  DrawRecorder none(kDebugMethod);
  w.draw_debug(none);
  EXPECT_TRUE(none.lines.empty() && none.arrows.empty() && none.points.empty() && none.notes.empty());
  ASSERT_TRUE(w.set_solver("lcp", nullptr));
  DrawRecorder other(kAllVolumeLayers);
  w.draw_debug(other);
  EXPECT_TRUE(other.lines.empty() && other.arrows.empty() && other.points.empty() && other.notes.empty());
}

}  // namespace cl
