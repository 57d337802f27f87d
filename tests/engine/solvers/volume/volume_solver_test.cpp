// The `volume` solver (Allard et al. 2010, Algorithm 1): resting with about half a pixel of depth, deep
// interpenetration removed by post-stabilisation (eq. 18-19), equal and opposite forces, friction on a slope
// (eq. 20-21), mono and multi-volume, one row per region of a sphere's cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "scene/scene.h"
#include "solvers/registry.h"
#include "solvers/volume/volume_solver.h"
#include "support/builders.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {

constexpr double kPixel = 0.01;

World volume_world(bool multi = false) {
  World w;
  w.settings.dt = 0.01;
  std::string error;
  EXPECT_TRUE(w.set_solver("volume", &error)) << error;
  w.solver().params().set("pixel_size", kPixel, &error);
  w.solver().params().set("multi_volume", multi ? 1 : 0, &error);
  w.solver().params().set("cell_size", 0.1, &error);
  w.solver().params().set("threads", 1, &error);
  return w;
}

// Multi-volume at h = 1/60 s with the boolean parameter `name` set to `on`.
World volume_world_with(const char* name, bool on) {
  World w = volume_world(true);
  w.settings.dt = 1.0 / 60.0;
  std::string error;
  EXPECT_TRUE(w.solver().params().set(name, on ? 1 : 0, &error)) << error;
  return w;
}

const VolumeSolver& volume_solver(World& w) { return dynamic_cast<const VolumeSolver&>(w.solver()); }

double total_volume(World& w, int a, int b) {
  const auto* list = volume_solver(w).constraints(a, b);
  double v = 0;
  if (list)
    for (const auto& c : *list) v += c.volume;
  return v;
}

void box_rests_on_plane(bool multi) {
  World w = volume_world(multi);
  const int ground = add_plane(w);
  const int box_body = add_body(w, box(Vec3(0.2, 0.1, 0.2)), Vec3(0, 0.102, 0), 500.0);
  const double area = 0.4 * 0.4;
  for (int s = 0; s < 100; ++s) ASSERT_TRUE(w.step().ok);
  const Vec3 p100 = w.bodies[box_body].position;
  for (int s = 0; s < 100; ++s) ASSERT_TRUE(w.step().ok);
  const Body& b = w.bodies[box_body];
  // At rest, no drift over the second second.
  EXPECT_LT(b.linear_velocity.norm(), 0.02);
  EXPECT_LT((b.position - p100).norm(), 2e-3);
  EXPECT_LT(std::abs(b.position.x()) + std::abs(b.position.z()), 2e-3);
  // About half a pixel of depth (eps_V, sect. 4.3): between 0 and 1.5 pixels.
  const double depth = 0.1 - b.position.y();
  EXPECT_GT(depth, 0.0);
  EXPECT_LT(depth, 1.5 * kPixel);
  EXPECT_LT(total_volume(w, ground, box_body), 1.5 * kPixel * area);
  EXPECT_GE(w.contacts().size(), multi ? 4u : 1u);
}

}  // namespace

TEST(VolumeSolver, IsRegistered) {
  const SolverInfo* info = find_solver("volume");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->make()->name(), "volume");
  EXPECT_NE(info->make()->params().find("pixel_size"), nullptr);
}

TEST(VolumeSolver, MonoVolumeBoxRestsOnPlaneWithHalfAPixelOfDepth) { box_rests_on_plane(false); }

TEST(VolumeSolver, MultiVolumeBoxRestsOnPlaneWithHalfAPixelOfDepth) { box_rests_on_plane(true); }

// Two cubes overlapping by 40% of their side: post-stabilisation separates them in a few steps, in
// positions only, so no kinetic energy appears.
TEST(VolumeSolver, DeepInterpenetrationSeparatedByPostStabilisation) {
  for (bool multi : {false, true}) {
    World w = volume_world(multi);
    w.settings.gravity = Vec3::Zero();
    const int a = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0));
    const int b = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0.12, 0.01, 0.005));
    const double v0 = 0.08 * 0.19 * 0.195;
    ASSERT_TRUE(w.step().ok);
    for (int s = 0; s < 4; ++s) ASSERT_TRUE(w.step().ok);
    const double gap = (w.bodies[b].position - w.bodies[a].position).x();
    EXPECT_GT(gap, 0.2 - 1.5 * kPixel) << "multi " << multi;
    EXPECT_LT(total_volume(w, a, b), 0.05 * v0) << "multi " << multi;
    EXPECT_LT(w.kinetic_energy(), 1e-6) << "multi " << multi;
    for (int s = 0; s < 20; ++s) ASSERT_TRUE(w.step().ok);
    EXPECT_LT(w.kinetic_energy(), 1e-6) << "multi " << multi;
  }
}

// The shipped scene of deeply interpenetrated bodies, multi-volume: a torus standing 0.3 m deep in the ground
// is lifted by about that much in the first step, not thrown (each cell's correction is bounded by its mean
// depth: cells that motion empties slowly once asked for metres), and the first step adds no kinetic energy.
TEST(VolumeSolver, InterpenetratedSceneSeparatesWithoutThrowing) {
  SceneLoadResult r = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/volume_interpenetrated.json");
  ASSERT_TRUE(r.ok()) << r.error;
  World& w = r.world;
  std::vector<double> y0;
  for (const Body& b : w.bodies) y0.push_back(b.position.y());
  ASSERT_TRUE(w.step().ok);
  for (size_t i = 0; i < w.bodies.size(); ++i) {
    EXPECT_LT(w.bodies[i].position.y() - y0[i], 0.45) << w.bodies[i].name << " thrown up";
  }
  EXPECT_LT(w.kinetic_energy(), 0.1);
  for (int s = 0; s < 4; ++s) ASSERT_TRUE(w.step().ok);
  // Separated within five steps: every volume constraint's mean depth V / area is under a pixel.
  double mean_depth = 0.0;
  for (const Contact& c : w.contacts())
    if (const auto* list = volume_solver(w).constraints(c.a, c.b))
      for (const VolumeSolver::Constraint& k : *list) mean_depth = std::max(mean_depth, k.mean_depth());
  EXPECT_LT(mean_depth, 0.01) << "separated within five steps";
}

// Forces equal and opposite: an isolated pair in zero gravity keeps its momentum through an oblique impact.
TEST(VolumeSolver, IsolatedPairConservesMomentum) {
  for (bool multi : {false, true}) {
    World w = volume_world(multi);
    w.settings.gravity = Vec3::Zero();
    const int a = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0), 1000.0);
    const int b = add_body(w, box(Vec3(0.15, 0.08, 0.1)), Vec3(0.3, 0.05, 0.02), 300.0,
                           Quat(Eigen::AngleAxisd(0.3, Vec3(0.2, 0.3, 1).normalized())));
    w.bodies[a].linear_velocity = Vec3(1, 0, 0);
    w.bodies[b].linear_velocity = Vec3(-1, 0.1, 0);
    auto momentum = [&] {
      return Vec3(w.bodies[a].mass * w.bodies[a].linear_velocity + w.bodies[b].mass * w.bodies[b].linear_velocity);
    };
    const Vec3 p0 = momentum();
    bool touched = false;
    for (int s = 0; s < 40; ++s) {
      ASSERT_TRUE(w.step().ok);
      touched |= !w.contacts().empty();
    }
    EXPECT_TRUE(touched);
    EXPECT_LT((momentum() - p0).norm(), 1e-6 * p0.norm() + 1e-9) << "multi " << multi;
    // They no longer approach.
    const Vec3 d = w.bodies[b].position - w.bodies[a].position;
    EXPECT_GE((w.bodies[b].linear_velocity - w.bodies[a].linear_velocity).dot(d), -1e-6);
  }
}

// A box on a 20 degree slope: mu = 0.6 > tan(20) holds it, mu = 0.2 < tan(20) lets it slide.
TEST(VolumeSolver, FrictionOnASlope) {
  const double angle = 20.0 * M_PI / 180.0;
  const Vec3 n(-std::sin(angle), std::cos(angle), 0);
  const Vec3 down_slope(-std::cos(angle), -std::sin(angle), 0);
  for (double mu : {0.6, 0.2}) {
    World w = volume_world();
    const int m = add_material(w, mu, 0.0);
    add_plane(w, n, 0.0, m);
    const int b = add_body(w, box(Vec3(0.1, 0.05, 0.1)), n * 0.0505, 500.0,
                           Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ())), m);
    const Vec3 start = w.bodies[b].position;
    for (int s = 0; s < 100; ++s) ASSERT_TRUE(w.step().ok);
    const double slid = (w.bodies[b].position - start).dot(down_slope);
    if (mu > std::tan(angle)) {
      EXPECT_LT(std::abs(slid), 0.01) << "mu " << mu;
    } else {
      // Free sliding would go g (sin - mu cos) t^2 / 2 = 0.76 m in 1 s.
      EXPECT_GT(slid, 0.4) << "mu " << mu;
      EXPECT_LT(slid, 1.0) << "mu " << mu;
    }
  }
}

// Multi-volume (sect. 5): a tilted box dropped on the ground settles flat and stops (a single volume per pair
// would leave it rocking about the contact centre).
TEST(VolumeSolver, MultiVolumeTiltedBoxSettles) {
  World w = volume_world(true);
  add_plane(w);
  const int b = add_body(w, box(Vec3(0.15, 0.1, 0.15)), Vec3(0, 0.3, 0), 500.0,
                         Quat(Eigen::AngleAxisd(0.3, Vec3(1, 0, 0.5).normalized())));
  for (int s = 0; s < 250; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_LT(w.kinetic_energy(), 1e-4);
  EXPECT_NEAR(w.bodies[b].position.y(), 0.1, 0.015);
}

}  // namespace cl

namespace cl {
namespace {

// The layer pass (stack_layers): a 100 kg box on a 1 kg slab on the ground at dt 1/60. With plain Gauss-Seidel
// the heavy box sinks through the slab; with the layers the slab is held while the box's contact is solved
// again, and both rest within a pixel or two of their places.
TEST(VolumeSolver, StackLayersHoldAHeavyBoxOnALightOne) {
  for (const bool layers : {false, true}) {
    World w = volume_world_with("stack_layers", layers);
    add_plane(w);
    const int light = add_body(w, box(Vec3(0.5, 0.1, 0.5)), Vec3(0, 0.1, 0), 5.0);  // 1 kg: 1 m x 0.2 m x 1 m at 5 kg/m^3
    const int heavy = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.7, 0), 100.0);   // 100 kg
    bool ok = true;
    for (int s = 0; s < 180 && ok; ++s) ok = w.step().ok;
    ASSERT_TRUE(ok);
    const double sunk = 0.7 - w.bodies[size_t(heavy)].position.y();
    std::printf("[ layers %d ] the heavy box sank %.4f m; the slab is at %.4f m\n", int(layers), sunk,
                w.bodies[size_t(light)].position.y());
    if (layers) {
      EXPECT_LT(sunk, 3 * kPixel);
      EXPECT_GT(sunk, 0.0);
    } else {
      EXPECT_GT(sunk, 3 * kPixel);  // the plain solve lets it through (why the layers exist)
    }
  }
}

// Every parameter is in physical units, so a uniform scale of the masses changes no motion: the impulses scale
// with the masses and the velocities do not. Scaled by 1024, a power of two, every product and quotient of a
// mass scales exactly in floating point, so columns of 10 cm boxes of 1 g, 1.024 kg and 1049 kg must step bit
// for bit alike; a threshold in absolute units makes them part (a PGS tolerance in impulse units, which the
// light boxes' impulses pass sweeps before the heavy ones': 26,215 sweeps in 120 steps at 1 g, 26,400 at 1 kg).
TEST(VolumeSolver, MassScaleChangesNoMotion) {
  std::vector<Vec3> positions[3];
  std::vector<Quat> orientations[3];
  for (int k = 0; k < 3; ++k) {
    World w = volume_world_with("stack_layers", true);
    add_plane(w);
    const double density = std::ldexp(1.0, 10 * k);  // kg/m^3: 1 g, 1.024 kg and 1049 kg boxes of 10 cm
    for (int i = 0; i < 10; ++i) add_body(w, box(Vec3(0.05, 0.05, 0.05)), Vec3(0, 0.05 + 0.1 * i, 0), density);
    for (int s = 0; s < 120; ++s) ASSERT_TRUE(w.step().ok);
    for (const Body& b : w.bodies) {
      positions[k].push_back(b.position);
      orientations[k].push_back(b.orientation);
    }
  }
  for (int k = 1; k < 3; ++k)
    for (size_t i = 0; i < positions[0].size(); ++i) {
      EXPECT_EQ(positions[0][i], positions[k][i]) << "body " << i << ", mass scale 1024^" << k;
      EXPECT_EQ(orientations[0][i].coeffs(), orientations[k][i].coeffs()) << "body " << i << ", mass scale 1024^" << k;
    }
}

// A ball rolling on a fixed slab with sphere_region_rows, seen by the depth images (exact_primitives off): its
// cap's cells make one connected region and one row (sect. 4.1), which pushes through the ball's centre, so it
// keeps its speed and rolls without slipping; with a row per cell (off) the cells at the front of its cap brake
// it. The exact kernel keeps a cap one volume: it rolls either way (exact_primitives on).
TEST(VolumeSolver, RegionRowLetsABallRollOnASlab) {
  for (const bool exact : {false, true})
  for (const bool region_rows : {true, false}) {
    SCOPED_TRACE(std::string(exact ? "exact" : "images") + (region_rows ? " region rows" : " rows per cell"));
    World w = volume_world_with("sphere_region_rows", region_rows);
    ASSERT_TRUE(w.solver().params().set("exact_primitives", exact ? 1 : 0, nullptr));
    // The rows per cell alone: with speculative contacts (on by default) the ball rolls on the narrow phase's
    // point contact at the steps whose volume its rise has emptied, which brakes less (1.93 m/s).
    std::string error;
    if (!region_rows) {
      ASSERT_TRUE(w.solver().params().set("speculative_contacts", 0, &error)) << error;
    }
    add_body(w, box(Vec3(4, 0.25, 1)), Vec3(2, -0.25, 0), 1000.0, Quat::Identity(), 0, BodyKind::Fixed);
    const double r = 0.25;
    const int ball = add_body(w, sphere(r), Vec3(0, r - 0.5 * kPixel, 0), 1000.0);
    w.bodies[size_t(ball)].linear_velocity = Vec3(2, 0, 0);
    w.bodies[size_t(ball)].angular_velocity = Vec3(0, 0, -2 / r);  // rolling: v = -w x (-r y)
    bool ok = true;
    for (int s = 0; s < 60 && ok; ++s) ok = w.step().ok;
    ASSERT_TRUE(ok);
    const Body& b = w.bodies[size_t(ball)];
    // Rolling: v = w r to within w times a pixel, the depth of the intersection the method keeps (the friction
    // holds still the cap's contact centre, which lies inside it, not the lowest point).
    const double slip = (b.linear_velocity + b.angular_velocity.cross(Vec3(0, -r, 0))).x();
    std::printf("[ region rows %d ] after 1 s: %.4f m/s, slip %.4f m/s\n", int(region_rows), b.linear_velocity.x(), slip);
    if (region_rows || exact) {
      EXPECT_NEAR(b.linear_velocity.x(), 2.0, 0.02);
      EXPECT_LT(std::abs(slip), b.angular_velocity.norm() * kPixel);
    } else {
      EXPECT_LT(b.linear_velocity.x(), 1.9);  // the rows per cell brake it (why the region row exists)
    }
  }
}

// A ball placed exactly touching a 30 degree incline (friction 0.5) has no intersection volume in its first
// step. With speculative_contacts its point contact holds it from that step on: it rolls without slipping, the
// slip |v + w x (-r n)| under a h (a = 5/7 g sin 30), and never sinks into the incline. Off (the paper's), it
// falls freely for the first step: slip g h.
TEST(VolumeSolver, SpeculativeContactHoldsABallPlacedTouching) {
  for (const bool speculative : {true, false}) {
    SceneLoadResult r = load_scene_file(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/conformance/rolling_sphere.json");
    ASSERT_TRUE(r.ok()) << r.error;
    World w = std::move(r.world);
    std::string error;
    ASSERT_TRUE(w.set_solver("volume", &error)) << error;
    ASSERT_TRUE(w.solver().params().set("threads", 1, &error)) << error;
    ASSERT_TRUE(w.solver().params().set("speculative_contacts", speculative ? 1 : 0, &error)) << error;
    const double h = w.settings.dt, g = 9.81, radius = 0.5;
    const double pi = std::acos(-1.0);
    const Vec3 n(-std::sin(pi / 6), std::cos(pi / 6), 0.0);
    const int ball = 1;
    double slip = 0.0, sink = 0.0;
    for (int s = 0; s < 60; ++s) {
      ASSERT_TRUE(w.step().ok);
      const Body& b = w.bodies[size_t(ball)];
      slip = std::max(slip, (b.linear_velocity + b.angular_velocity.cross(-radius * n)).norm());
      sink = std::max(sink, radius - n.dot(b.position));  // depth of the ball's lowest point in the incline
    }
    std::printf("[ speculative %d ] largest slip %.3g m/s, deepest %.3g m\n", int(speculative), slip, sink);
    if (speculative) {
      EXPECT_LT(slip, 5.0 / 7.0 * g * std::sin(pi / 6) * h);
      EXPECT_LT(sink, 1e-6);
      EXPECT_NEAR(w.bodies[size_t(ball)].linear_velocity.norm(), 5.0 / 7.0 * g * std::sin(pi / 6), 0.01);
    } else {
      EXPECT_NEAR(slip, g * h, 0.01);
    }
  }
}

// Speculative contacts beside a thin intersection: a 10 cm box tilted by a hair on the ground (1e-3 rad about x,
// one edge 0.06 mm deep, the other 0.04 mm clear) intersects it far less than half a pixel deep, over part of its
// face; the pair keeps, beside its volumes, the narrow phase's points, all four corners: while one of a pair's
// points is still apart or touching (in by at most 2^-16 pixel) the others are kept too, the corners of the low
// edge in by 0.06 mm (dropped one by one, the first corner to sink left the face on the other three and a box at
// the edge of sticking rocked and slid, VolumeConformance.EdgeOfSticking).
// Tilted by 0.12 rad with its low edge 9 mm deep (more than the half pixel post-stabilisation keeps) and its high
// edge 3 mm clear, within the contact margin, it gets its volumes alone. Off: volumes alone.
TEST(VolumeSolver, ThinIntersectionKeepsThePointsApartOrTouching) {
  for (const bool speculative : {true, false})
    for (const bool thin : {true, false}) {
      SCOPED_TRACE(std::string(speculative ? "speculative" : "off") + (thin ? " thin" : " deep"));
      World w = volume_world_with("speculative_contacts", speculative);
      std::string error;
      ASSERT_TRUE(w.solver().params().set("stabilization_iterations", 0, &error)) << error;
      add_plane(w);
      const double tilt = thin ? 1e-3 : 0.12, low = thin ? 6e-5 : 0.009;  // the low edge's depth, m
      const double centre = 0.05 * (std::cos(tilt) + std::sin(tilt)) - low;
      add_body(w, box(Vec3(0.05, 0.05, 0.05)), Vec3(0, centre, 0), 1000.0, Quat(Eigen::AngleAxisd(tilt, Vec3::UnitX())));
      ASSERT_TRUE(w.step().ok);
      int volumes = 0, points = 0, touching = 0;
      for (const Contact& c : w.contacts()) {
        if (c.feature & (1u << 31)) {
          ++points;
          touching += c.depth <= std::ldexp(kPixel, -16);
        } else {
          ++volumes;
        }
      }
      EXPECT_GT(volumes, 0);
      EXPECT_EQ(points, speculative && thin ? 4 : 0);
      EXPECT_EQ(touching, speculative && thin ? 2 : 0);
    }
}

// max_penetration is the deepest point, as under every method: a unit box standing 1 cm deep in the ground reads
// 1 cm exactly, mono and multi-volume (its nine columns, exact_primitives); the mean over its constraints too,
// and the paper's mean depth V / area stays on each constraint.
// Post-stabilisation is off so that the constraints kept after the step are those of the collision stage.
TEST(VolumeSolver, PenetrationIsTheDeepestPointOfAResting1cmBox) {
  for (bool multi : {false, true}) {
    SCOPED_TRACE(multi ? "multi" : "mono");
    World w = volume_world(multi);
    std::string error;
    ASSERT_TRUE(w.solver().params().set("stabilization_iterations", 0, &error)) << error;
    const int ground = add_plane(w);
    const int b = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0.003, 0.49, -0.002));
    ASSERT_TRUE(w.step().ok);
    const StepStats& s = w.last_stats();
    EXPECT_NEAR(s.max_penetration, 0.01, 1e-12);
    EXPECT_NEAR(s.mean_penetration, 0.01, 1e-12);
    const auto* list = volume_solver(w).constraints(ground, b);
    ASSERT_NE(list, nullptr);
    ASSERT_EQ(list->size(), multi ? 9u : 1u);  // 3 x 3 columns under a face
    for (const VolumeSolver::Constraint& c : *list) {
      EXPECT_NEAR(c.deepest, 0.01, 1e-12);
      EXPECT_NEAR(c.mean_depth(), 0.01, 1e-12);
    }
    for (const Contact& c : w.contacts()) EXPECT_EQ(c.depth, (*list)[c.feature].deepest);
  }
}

// A box tilted by asin(0.01) about z, its lowest edge 2 cm deep: the deepest point is that edge, the ray of the
// y image nearest to it within a pixel (2 cm less at most 0.01 pixel), while the mean depth V / area is that
// of the layer, 2 cm at one end and 1 cm at the other: 1.5 cm.
TEST(VolumeSolver, PenetrationOfATiltedBoxIsItsDeepestEdge) {
  World w = volume_world(false);
  std::string error;
  ASSERT_TRUE(w.solver().params().set("stabilization_iterations", 0, &error)) << error;
  const int ground = add_plane(w);
  const double t = std::asin(0.01);
  const Quat q(Eigen::AngleAxisd(t, Vec3(0, 0, 1)));
  const int b = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, -0.02 + 0.5 * std::cos(t) + 0.5 * 0.01, 0), 1000.0, q);
  ASSERT_TRUE(w.step().ok);
  EXPECT_NEAR(w.last_stats().max_penetration, 0.02, 2e-4);
  const auto* list = volume_solver(w).constraints(ground, b);
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_NEAR((*list)[0].mean_depth(), 0.015, 0.001);
}

// volume honours restitution and friction; with friction_directions = 0 it names the materials whose friction
// it then ignores, those that bodies use only.
TEST(VolumeSolver, UnsupportedOnlyWhenFrictionIsSwitchedOff) {
  World w;
  const int rough = add_material(w, 0.6, 0.6);
  add_material(w, 0.9, 0.0);  // used by no body
  w.materials[0].friction = 0.0;
  add_plane(w);
  add_body(w, sphere(0.3), Vec3(0, 1, 0), 1000.0, Quat::Identity(), rough);
  std::string error;
  ASSERT_TRUE(w.set_solver("volume", &error)) << error;
  EXPECT_TRUE(w.unsupported_features().empty());
  ASSERT_TRUE(w.solver().params().set("friction_directions", 0, &error)) << error;
  const std::vector<std::string> u = w.unsupported_features();
  ASSERT_EQ(u.size(), 1u);
  EXPECT_NE(u[0].find("volume: friction_directions = 0: the friction of material 'm1' is ignored"), std::string::npos)
      << u[0];
  EXPECT_EQ(u[0].find("m2"), std::string::npos) << u[0];
}

}  // namespace
}  // namespace cl

namespace cl {

// Multi-volume of an exact pair (the intersection's 3 x 3 columns, rim_width 0.1): a box three times as tall as it
// is wide on an incline of friction 1 tips over its lower edge when tan theta passes width / height = 1/3
// (18.4 degrees), when its weight's line leaves the contact: at 15 degrees it stands, at 22 it tips (the rim
// columns hold the pressure within 5 % of the edges, so it stands up to 17.6 degrees). Mono-volume (one row,
// whose moment is the whole contact surface's) does not hold it: at 15 degrees it falls too. (Mono-volume with
// speculative contacts stands at 15 degrees: the box's four corners keep their point rows beside its thin
// volume, since the points of a face are kept together, and hold it as point contacts do; the volume's own row
// is checked here, without them.)
TEST(VolumeSolver, MultiVolumeColumnsHoldATallBoxUntilItsTippingAngle) {
  for (const bool multi : {true, false})
    for (const double degrees : {15.0, 22.0}) {
      SCOPED_TRACE(std::string(multi ? "multi" : "mono") + " at " + std::to_string(int(degrees)) + " degrees");
      World w;
      w.settings.dt = 1.0 / 60.0;
      std::string error;
      ASSERT_TRUE(w.set_solver("volume", &error)) << error;
      ASSERT_TRUE(w.solver().params().set("multi_volume", multi ? 1 : 0, &error)) << error;
      if (!multi) {
        ASSERT_TRUE(w.solver().params().set("speculative_contacts", 0, &error)) << error;
      }
      const double angle = degrees * M_PI / 180;
      const Vec3 n(-std::sin(angle), std::cos(angle), 0);
      const int m = add_material(w, 1.0, 0.0);
      add_plane(w, n, 0.0, m);
      const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
      const int b = add_body(w, box(Vec3(0.1, 0.3, 0.1)), n * 0.3, 500.0, tilt, m);
      for (int s = 0; s < 120; ++s) ASSERT_TRUE(w.step().ok);
      const double turned = Eigen::AngleAxisd(w.bodies[size_t(b)].orientation * tilt.inverse()).angle();
      if (multi && degrees < 18) {
        // Standing: turned by at most the depth post-stabilisation keeps (half a pixel) across its width, and still.
        EXPECT_LT(turned, 0.5 * 0.01 / 0.2);
        EXPECT_LT(w.bodies[size_t(b)].angular_velocity.norm(), 1e-3);
      } else {
        EXPECT_GT(turned, 0.2);
      }
    }
}

// A 0.2 mm sheet dropped flat or tilted comes to rest lying on the ground at 1/30 to 1/1000 s: post-stabilisation
// keeps at most a tenth of the thinner body's half thickness of mean depth (rest_depth's half pixel, 5 mm, is 25
// times the sheet, so no volume of it was ever pushed out), with less than half its half thickness in the
// ground. It came to rest half in the ground (flat) or tilted through it. Tilted at 1/30 s it kept rocking from
// edge to edge at 0.03 J, never resting: its far edge, 14 mm up, was beyond the 10 mm contact margin while each
// step's gravity turned it down 16 mm about the near edge; speculative contacts now reach as far as the step can
// close (VolumeSolver::step_reach).
TEST(VolumeSolver, AThinSheetRestsOnTheGround) {
  test::expect_sheet_rests("volume", {1.0 / 30, 1.0 / 60, 1.0 / 100, 1.0 / 200, 1.0 / 500, 1.0 / 1000});
}

// A box squeezed between two servo-driven fingers and lifted holds where Coulomb's law holds it, and slides out where
// it does not (tests/support/scenes.h, expect_gripper_holds_what_coulomb_holds). The fingers' servos and the box
// form a loop of stiff rows that plain sweeps do not settle within a step: the joint block (joints/joint_solve.h)
// settles the servos against the contacts after every sweep. Before it, at 1/30 s the 2 cm box held at mu 0.3 fell
// out of the fingers, and at 1/60 s the one held at mu 0.5 slid 11 % of its size down them.
TEST(VolumeSolver, AGripperHoldsWhatCoulombHolds) { expect_gripper_holds_what_coulomb_holds("volume"); }

}  // namespace cl
