// The `volume` solver's debug capture for the viewer (VolumeSolver::set_debug_capture): the simulation is
// bit-identical with it on, off or switched during a run; what it records agrees with what the solver used
// (constraints = the world's contacts, cells one per constraint, the intervals' volume and the vertex gradients
// = the constraint's volume and rigid gradient, eq. 11-14), and it is dropped when turned off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scene/scene.h"
#include "solvers/volume/volume_solver.h"
#include "support/builders.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

World load(const std::string& name) {
  SceneLoadResult r = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.world;
}

VolumeSolver& volume_solver(World& w) { return dynamic_cast<VolumeSolver&>(w.solver()); }

void set(World& w, const char* name, double value) { ASSERT_TRUE(w.solver().params().set(name, value, nullptr)) << name; }

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

// The records of the pairs the world's last step still has (what the viewer draws).
std::vector<const VolumeSolver::DebugPair*> current(World& w) {
  std::vector<const VolumeSolver::DebugPair*> out;
  const auto& records = volume_solver(w).debug_pairs();
  for (const GraphEdge& e : w.graph().edges()) {
    if (e.events & kVanishedProximity) continue;
    const auto it = records.find({e.a, e.b});
    if (it != records.end()) out.push_back(&it->second);
  }
  return out;
}

}  // namespace

// The deeply interpenetrated scene (boxes and tori on the ground), multi- and mono-volume: capture on from the
// start, and switched on and off every few steps, give the same simulation bit for bit as capture off.
TEST(VolumeDebugCapture, SimulationIsBitIdenticalWithCaptureOnOrOff) {
  for (bool multi : {true, false}) {
    World off = load("volume_interpenetrated.json");
    set(off, "multi_volume", multi ? 1 : 0);
    World on = off, toggled = off;
    volume_solver(on).set_debug_capture(true);
    const int steps = multi ? 25 : 12;
    for (int s = 0; s < steps; ++s) {
      volume_solver(toggled).set_debug_capture(s % 4 < 2);
      ASSERT_TRUE(off.step().ok);
      ASSERT_TRUE(on.step().ok);
      ASSERT_TRUE(toggled.step().ok);
      expect_identical(off, on, s);
      expect_identical(off, toggled, s);
      if (HasFailure()) return;
    }
    EXPECT_FALSE(volume_solver(on).debug_pairs().empty());
    EXPECT_TRUE(volume_solver(off).debug_pairs().empty());
  }
}

// The record of each pair agrees with the contacts the world got from collide() at the same stage: one
// constraint per contact (feature = index) at the same position and normal, one grid cell per constraint,
// gradients that balance between the two bodies (equal and opposite forces).
TEST(VolumeDebugCapture, RecordsMatchTheContactsOfTheCollisionStage) {
  World w = load("volume_interpenetrated.json");
  volume_solver(w).set_debug_capture(true);
  for (int s = 0; s < 3; ++s) ASSERT_TRUE(w.step().ok);
  const auto records = current(w);
  ASSERT_GE(records.size(), 3u);
  size_t constraints = 0;
  for (const VolumeSolver::DebugPair* d : records) {
    SCOPED_TRACE("pair " + std::to_string(d->a) + " " + std::to_string(d->b));
    EXPECT_LT(d->a, d->b);
    EXPECT_TRUE(d->multi_volume);
    EXPECT_EQ(d->cell_size, 0.1);
    EXPECT_EQ(d->pixel_size, 0.01);
    std::vector<const Contact*> contacts;
    // Speculative contacts (the shared narrow phase's points of the pair still apart, feature bit 31) are no
    // volumes.
    for (const Contact& c : w.contacts())
      if (c.a == d->a && c.b == d->b && !(c.feature & (1u << 31))) contacts.push_back(&c);
    ASSERT_EQ(contacts.size(), d->constraints.size());
    for (const Contact* c : contacts) {
      ASSERT_LT(c->feature, d->constraints.size());
      EXPECT_EQ(c->position, d->constraints[c->feature].position);
      EXPECT_EQ(c->normal, d->constraints[c->feature].normal);
    }
    // Cells: one per constraint, distinct.
    ASSERT_EQ(d->cells.size(), d->constraints.size());
    auto sorted = d->cells;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Gradients balance over the two bodies (sect. 3.2: F_A = -F_B).
    Vec3 sum = Vec3::Zero();
    double scale = 0;
    for (const auto& list : d->gradients)
      for (const auto& g : list) {
        sum += g.gradient;
        scale += g.gradient.norm();
      }
    if (!d->constraints.empty()) {
      EXPECT_GT(scale, 0.0);
      // The image looking along the contact's normal sees it; the other two may not, when the contact is a
      // layer thinner than a pixel aligned with an axis (rays parallel to it miss it).
      int w = 0;
      d->constraints[0].normal.cwiseAbs().maxCoeff(&w);
      EXPECT_FALSE(d->intervals.segments[w].empty()) << "axis " << w;
    }
    EXPECT_LE(sum.norm(), 1e-9 * scale + 1e-15);
    constraints += d->constraints.size();
  }
  EXPECT_GT(constraints, 5u);
}

// Mono-volume, a box sunk into the ground: the captured intervals' lengths give the constraint's volume (eq. 11,
// normal-weighted as the solver combines them) and the captured vertex gradients sum to its rigid linear term.
TEST(VolumeDebugCapture, MonoIntervalsAndGradientsGiveTheConstraint) {
  World w;
  w.settings.dt = 0.01;
  ASSERT_TRUE(w.set_solver("volume", nullptr));
  set(w, "pixel_size", 0.01);
  set(w, "multi_volume", 0);
  set(w, "threads", 1);
  add_plane(w);
  add_body(w, box(Vec3(0.2, 0.1, 0.15)), Vec3(0.003, 0.07, -0.002), 500.0);
  w.bodies[1].orientation = Quat(Eigen::AngleAxisd(0.2, Vec3(1, 0, 1).normalized()));
  volume_solver(w).set_debug_capture(true);
  ASSERT_TRUE(w.step().ok);
  const auto records = current(w);
  ASSERT_EQ(records.size(), 1u);
  const VolumeSolver::DebugPair& d = *records[0];
  ASSERT_EQ(d.constraints.size(), 1u);
  EXPECT_TRUE(d.cells.empty());
  const VolumeSolver::Constraint& c = d.constraints[0];
  double volume = 0;
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(d.intervals.stride[axis], 1);
    double length = 0;
    for (const auto& seg : d.intervals.segments[axis]) length += (seg[1] - seg[0])[axis];
    volume += c.normal[axis] * c.normal[axis] * length * d.pixel_size * d.pixel_size;
  }
  EXPECT_NEAR(volume, c.volume, 1e-9 * c.volume);
  for (int s = 0; s < 2; ++s) {
    Vec3 sum = Vec3::Zero();
    for (const auto& g : d.gradients[s]) sum += g.gradient;
    EXPECT_NEAR((sum - c.linear[s]).norm(), 0.0, 1e-12 * c.linear[s].norm()) << "body " << s;
  }
}

// capture_now() between steps records exactly what the next collision stage computes at those poses (the
// viewer's default, drawing at the drawn poses), and changes nothing in the simulation.
TEST(VolumeDebugCapture, CaptureNowRecordsWhatTheNextCollisionStageComputes) {
  World w = load("volume_interpenetrated.json");
  World reference = w;
  for (int s = 0; s < 2; ++s) {
    ASSERT_TRUE(w.step().ok);
    ASSERT_TRUE(reference.step().ok);
  }
  std::vector<std::pair<int, int>> pairs;
  for (const GraphEdge& e : w.graph().edges())
    if (!(e.events & kVanishedProximity)) pairs.emplace_back(e.a, e.b);
  ASSERT_GE(pairs.size(), 3u);
  volume_solver(w).capture_now(w.bodies, pairs, 500);
  EXPECT_FALSE(volume_solver(w).debug_capture());
  const auto snapshots = volume_solver(w).debug_pairs();  // a copy
  ASSERT_EQ(snapshots.size(), pairs.size());
  volume_solver(w).set_debug_capture(true, 500);
  ASSERT_TRUE(w.step().ok);
  ASSERT_TRUE(reference.step().ok);
  expect_identical(reference, w, 3);
  int compared = 0;
  for (const auto& [pair, snap] : snapshots) {
    const auto it = volume_solver(w).debug_pairs().find(pair);
    ASSERT_NE(it, volume_solver(w).debug_pairs().end());
    const VolumeSolver::DebugPair& stage = it->second;
    EXPECT_FALSE(snap.collision_stage);
    EXPECT_TRUE(stage.collision_stage);
    EXPECT_EQ(snap.positions, stage.positions);
    EXPECT_EQ(snap.interval_limit, 500);
    ASSERT_EQ(snap.constraints.size(), stage.constraints.size());
    for (size_t k = 0; k < snap.constraints.size(); ++k) {
      const auto& x = snap.constraints[k];
      const auto& y = stage.constraints[k];
      EXPECT_EQ(x.volume, y.volume);
      EXPECT_EQ(x.area, y.area);
      EXPECT_EQ(x.normal, y.normal);
      EXPECT_EQ(x.position, y.position);
      EXPECT_EQ(x.linear, y.linear);
      EXPECT_EQ(x.angular, y.angular);
      EXPECT_EQ(x.area_sum, y.area_sum);
      EXPECT_EQ(x.area_moment, y.area_moment);
    }
    EXPECT_EQ(snap.cells, stage.cells);
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(snap.intervals.segments[a], stage.intervals.segments[a]);
      EXPECT_EQ(snap.intervals.stride[a], stage.intervals.stride[a]);
      EXPECT_LE(snap.intervals.total[a] / (long(snap.intervals.stride[a]) * snap.intervals.stride[a]), 500);
    }
    compared += int(snap.constraints.size());
  }
  EXPECT_GT(compared, 5);
}

// Off drops the records; a copied world (the viewer's reset) starts with the capture off.
TEST(VolumeDebugCapture, OffDropsTheRecordsAndCopiesStartOff) {
  World w = load("volume_interpenetrated.json");
  volume_solver(w).set_debug_capture(true);
  ASSERT_TRUE(w.step().ok);
  EXPECT_TRUE(volume_solver(w).debug_capture());
  EXPECT_FALSE(volume_solver(w).debug_pairs().empty());
  World copy = w;
  EXPECT_FALSE(volume_solver(copy).debug_capture());
  EXPECT_TRUE(volume_solver(copy).debug_pairs().empty());
  volume_solver(w).set_debug_capture(false);
  EXPECT_TRUE(volume_solver(w).debug_pairs().empty());
  ASSERT_TRUE(w.step().ok);
  EXPECT_TRUE(volume_solver(w).debug_pairs().empty());
}

}  // namespace cl
