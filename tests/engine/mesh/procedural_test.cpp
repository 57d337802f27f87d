#include "mesh/procedural.h"

#include "mesh/mass_properties.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include "support/builders.h"

namespace cl {
namespace {

using test::kPi;

// Every generated mesh must be a usable rigid body: validate_mesh finds nothing wrong.
void expect_valid(const TriangleMesh& m, int expected_euler = 2) {
  ASSERT_FALSE(m.empty());
  const MeshValidation v = validate_mesh(m);
  EXPECT_TRUE(v.ok());
  EXPECT_EQ(v.non_finite_vertices, 0);
  EXPECT_EQ(v.bad_indices, 0);
  EXPECT_EQ(v.degenerate_triangles, 0);
  EXPECT_EQ(v.boundary_edges, 0);
  EXPECT_EQ(v.non_manifold_edges, 0);
  EXPECT_EQ(v.inconsistent_edges, 0);
  EXPECT_EQ(v.unreferenced_vertices, 0);
  EXPECT_EQ(v.components, 1);
  EXPECT_GT(v.signed_volume, 0);
  for (const auto& p : v.problems) ADD_FAILURE() << p;
  // Euler characteristic V - E + F = 2 - 2 genus (closed: E = 3F / 2)
  const long long V = (long long)m.vertices.size(), F = (long long)m.triangles.size();
  EXPECT_EQ(F % 2, 0);
  EXPECT_EQ(V - 3 * F / 2 + F, expected_euler);
}

// Area of a regular n-gon inscribed in the unit circle over pi.
double polygon_factor(int n) { return n / (2 * kPi) * std::sin(2 * kPi / n); }

// Generalised winding number of a closed mesh about p (1 inside, 0 outside).
double winding_number(const TriangleMesh& m, const Vec3& p) {
  double w = 0;
  for (const auto& t : m.triangles) {
    const Vec3 a = m.vertices[t[0]] - p, b = m.vertices[t[1]] - p, c = m.vertices[t[2]] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    w += 2 * std::atan2(num, den);
  }
  return w / (4 * kPi);
}

// ---- bowl ----

TEST(ProceduralBowl, ValidVolumeAndCentreOfMass) {
  const BowlParams p{0.1, 0.015, 64};
  std::string err = "stale";
  const TriangleMesh m = bowl(p, &err);
  EXPECT_TRUE(err.empty()) << err;
  expect_valid(m);
  const MassProperties mp = mass_properties(m);
  ASSERT_TRUE(mp.valid);
  const double R = p.outer_radius, r = R - p.thickness;
  const double V = 2.0 / 3.0 * kPi * (R * R * R - r * r * r);
  EXPECT_NEAR(mp.volume / V, 1.0, 0.01);
  EXPECT_LT(mp.volume, V);  // inscribed polyhedra
  const double y = -3.0 / 8.0 * (std::pow(R, 4) - std::pow(r, 4)) / (R * R * R - r * r * r);
  EXPECT_NEAR(mp.centre_of_mass.y(), y, 0.01 * R);
  EXPECT_NEAR(mp.centre_of_mass.x(), 0, 1e-12);
  EXPECT_NEAR(mp.centre_of_mass.z(), 0, 1e-12);
  // open side up: nothing above the rim plane, the outer pole at the bottom
  const Aabb b = m.bounds();
  EXPECT_NEAR(b.hi.y(), 0, 1e-15);
  EXPECT_NEAR(b.lo.y(), -R, 1e-15);
  EXPECT_NEAR(b.hi.x(), R, 1e-12);
}

TEST(ProceduralBowl, VolumeConvergesWithResolution) {
  const double R = 0.2, t = 0.03, r = R - t;
  const double V = 2.0 / 3.0 * kPi * (R * R * R - r * r * r);
  const double e16 = std::abs(mass_properties(bowl({R, t, 16})).volume - V);
  const double e128 = std::abs(mass_properties(bowl({R, t, 128})).volume - V);
  EXPECT_LT(e128, e16 / 20);
  EXPECT_NEAR(mass_properties(bowl({R, t, 128})).volume / V, 1.0, 2e-3);
}

TEST(ProceduralBowl, ThinWallStillValid) {
  expect_valid(bowl({1.0, 1e-4, 32}));
  expect_valid(bowl({0.05, 0.049, 8}));
}

TEST(ProceduralBowl, BadParametersGiveError) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const BowlParams& p : {BowlParams{0, 0.01, 32}, BowlParams{-1, 0.01, 32}, BowlParams{0.1, 0.1, 32},
                              BowlParams{0.1, 0.2, 32}, BowlParams{0.1, 0, 32}, BowlParams{0.1, -0.01, 32},
                              BowlParams{0.1, 0.01, 7}, BowlParams{nan, 0.01, 32}, BowlParams{0.1, nan, 32},
                              BowlParams{std::numeric_limits<double>::infinity(), 0.01, 32}}) {
    std::string err;
    const TriangleMesh m = bowl(p, &err);
    EXPECT_TRUE(m.empty());
    EXPECT_TRUE(m.vertices.empty());
    EXPECT_NE(err.find("bowl"), std::string::npos) << err;
  }
  EXPECT_TRUE(bowl({0, 0.01, 32}).empty());  // null error pointer is fine
}

// ---- perforated box ----

TEST(ProceduralPerforatedBox, ValidExactVolumeAndGenus) {
  PerforatedBoxParams p;
  p.half_extents = Vec3(0.1, 0.02, 0.06);
  p.hole_radius = 0.012;
  p.holes_x = 3;
  p.holes_z = 2;
  p.hole_segments = 20;  // rounded up to 24
  std::string err;
  const TriangleMesh m = perforated_box(p, &err);
  EXPECT_TRUE(err.empty()) << err;
  expect_valid(m, 2 - 2 * 6);  // genus = number of holes
  const MassProperties mp = mass_properties(m);
  const Vec3 h = p.half_extents;
  const double hole = kPi * p.hole_radius * p.hole_radius * 2 * h.y();
  const double V_exact = 8 * h.prod() - 6 * hole * polygon_factor(24);
  EXPECT_NEAR(mp.volume, V_exact, 1e-12 * V_exact);
  EXPECT_NEAR(mp.volume / (8 * h.prod() - 6 * hole), 1.0, 0.01);  // box minus round holes
  EXPECT_NEAR(mp.centre_of_mass.norm(), 0, 1e-12);
  const Aabb b = m.bounds();
  EXPECT_NEAR((b.hi - h).norm(), 0, 1e-15);
  EXPECT_NEAR((b.lo + h).norm(), 0, 1e-15);
}

TEST(ProceduralPerforatedBox, HolesAreOpenThrough) {
  PerforatedBoxParams p;  // 2 x 2 holes in a 0.2 x 0.04 x 0.2 plate
  const TriangleMesh m = perforated_box(p);
  expect_valid(m, 2 - 2 * 4);
  // hole axes at x, z = +-0.05: outside the solid; the cell corners (plate material) inside
  EXPECT_NEAR(winding_number(m, Vec3(0.05, 0, 0.05)), 0, 1e-9);
  EXPECT_NEAR(winding_number(m, Vec3(-0.05, 0.015, -0.05)), 0, 1e-9);
  EXPECT_NEAR(winding_number(m, Vec3(0, 0, 0)), 1, 1e-9);
  EXPECT_NEAR(winding_number(m, Vec3(0.09, 0.01, 0.09)), 1, 1e-9);
}

TEST(ProceduralPerforatedBox, SingleHoleAndManyHoles) {
  PerforatedBoxParams p;
  p.holes_x = p.holes_z = 1;
  p.hole_radius = 0.08;
  expect_valid(perforated_box(p), 0);
  p.holes_x = 10;
  p.holes_z = 7;
  p.hole_radius = 0.005;
  p.hole_segments = 8;
  expect_valid(perforated_box(p), 2 - 2 * 70);
}

TEST(ProceduralPerforatedBox, BadParametersGiveError) {
  auto bad = [](auto edit) {
    PerforatedBoxParams p;
    edit(p);
    std::string err;
    EXPECT_TRUE(perforated_box(p, &err).empty());
    EXPECT_NE(err.find("perforated_box"), std::string::npos) << err;
  };
  bad([](PerforatedBoxParams& p) { p.half_extents.y() = 0; });
  bad([](PerforatedBoxParams& p) { p.half_extents.x() = std::numeric_limits<double>::quiet_NaN(); });
  bad([](PerforatedBoxParams& p) { p.hole_radius = 0; });
  bad([](PerforatedBoxParams& p) { p.hole_radius = 0.05; });  // cells are 0.1 wide: holes would touch
  bad([](PerforatedBoxParams& p) { p.holes_x = 0; });
  bad([](PerforatedBoxParams& p) { p.holes_z = -3; });
  bad([](PerforatedBoxParams& p) { p.hole_segments = 4; });
}

// ---- rock ----

TEST(ProceduralRock, ValidBoundedAndStarShaped) {
  for (std::uint64_t seed : {1ull, 2ull, 42ull, 123456789ull}) {
    const RockParams p{0.05, 0.4, seed, 4};
    std::string err;
    const TriangleMesh m = rock(p, &err);
    EXPECT_TRUE(err.empty()) << err;
    expect_valid(m);
    double lo = 1e9, hi = 0;
    for (const Vec3& v : m.vertices) {
      lo = std::min(lo, v.norm());
      hi = std::max(hi, v.norm());
    }
    EXPECT_NEAR(lo, p.radius * (1 - p.roughness), 1e-12);
    EXPECT_NEAR(hi, p.radius * (1 + p.roughness), 1e-12);
    // no fold-over: every face is seen from outside by a ray from the origin
    for (int t = 0; t < (int)m.triangles.size(); ++t) {
      const auto& f = m.triangles[t];
      const Vec3 c = (m.vertices[f[0]] + m.vertices[f[1]] + m.vertices[f[2]]) / 3;
      ASSERT_GT(m.normal(t).dot(c.normalized()), 0.05) << "seed " << seed << " triangle " << t;
    }
    const double V = mass_properties(m).volume;
    EXPECT_GT(V, 4.0 / 3.0 * kPi * std::pow(lo, 3));
    EXPECT_LT(V, 4.0 / 3.0 * kPi * std::pow(hi, 3));
  }
}

TEST(ProceduralRock, DeterministicInSeed) {
  const TriangleMesh a = rock({0.05, 0.2, 7, 3}), b = rock({0.05, 0.2, 7, 3}), c = rock({0.05, 0.2, 8, 3});
  ASSERT_EQ(a.vertices.size(), b.vertices.size());
  ASSERT_EQ(a.vertices.size(), c.vertices.size());
  double diff_same = 0, diff_other = 0;
  for (size_t i = 0; i < a.vertices.size(); ++i) {
    diff_same = std::max(diff_same, (a.vertices[i] - b.vertices[i]).norm());
    diff_other = std::max(diff_other, (a.vertices[i] - c.vertices[i]).norm());
  }
  EXPECT_EQ(diff_same, 0);
  EXPECT_GT(diff_other, 0.01);
  EXPECT_EQ(a.triangles.size(), 20u * 64u);
}

TEST(ProceduralRock, ZeroRoughnessIsASphere) {
  const TriangleMesh m = rock({0.1, 0.0, 3, 5});
  expect_valid(m);
  const MassProperties mp = mass_properties(m);
  EXPECT_NEAR(mp.volume / (4.0 / 3.0 * kPi * 1e-3), 1.0, 0.01);
  EXPECT_NEAR(mp.centre_of_mass.norm(), 0, 1e-12);
}

TEST(ProceduralRock, BadParametersGiveError) {
  for (const RockParams& p : {RockParams{0, 0.2, 1, 3}, RockParams{0.05, -0.1, 1, 3}, RockParams{0.05, 0.5, 1, 3},
                              RockParams{0.05, 0.2, 1, -1}, RockParams{0.05, 0.2, 1, 8},
                              RockParams{std::numeric_limits<double>::quiet_NaN(), 0.2, 1, 3}}) {
    std::string err;
    EXPECT_TRUE(rock(p, &err).empty());
    EXPECT_NE(err.find("rock"), std::string::npos) << err;
  }
}

// ---- screwdriver ----

TEST(ProceduralScrewdriver, ValidVolumeAndSymmetry) {
  ScrewdriverParams p;
  p.flutes = 0;
  p.segments = 64;
  std::string err;
  const TriangleMesh m = screwdriver(p, &err);
  EXPECT_TRUE(err.empty()) << err;
  expect_valid(m);
  const MassProperties mp = mass_properties(m);
  const double rh = p.handle_radius, rs = p.shaft_radius;
  // tip: ellipse semi-axes linear in y from (w/2, t/2) to (rs, rs)
  const double a0 = p.tip_width / 2, b0 = p.tip_thickness / 2, da = rs - a0, db = rs - b0;
  const double tip = kPi * p.tip_length * (a0 * b0 + (a0 * db + b0 * da) / 2 + da * db / 3);
  const double V = kPi * rh * rh * p.handle_length + 2.0 / 3.0 * kPi * rh * rh * p.dome_height +
                   kPi * rs * rs * p.shaft_length + tip;
  EXPECT_NEAR(mp.volume / V, 1.0, 0.01);
  EXPECT_NEAR(mp.centre_of_mass.x(), 0, 1e-9);
  EXPECT_NEAR(mp.centre_of_mass.z(), 0, 1e-9);
  EXPECT_GT(mp.centre_of_mass.y(), p.tip_length + p.shaft_length);  // the handle dominates
  const Aabb b = m.bounds();
  EXPECT_NEAR(b.lo.y(), 0, 1e-15);
  EXPECT_NEAR(b.hi.y(), p.tip_length + p.shaft_length + p.handle_length + p.dome_height, 1e-12);
  EXPECT_NEAR(b.hi.x(), rh, 1e-12);
  // the blade is flat: at y = 0 it spans tip_width along x and tip_thickness along z
  double wx = 0, wz = 0;
  for (const Vec3& v : m.vertices)
    if (v.y() == 0) wx = std::max(wx, std::abs(v.x())), wz = std::max(wz, std::abs(v.z()));
  EXPECT_NEAR(wx, p.tip_width / 2, 1e-12);
  EXPECT_NEAR(wz, p.tip_thickness / 2, 1e-12);
}

TEST(ProceduralScrewdriver, DefaultsFlutedAndFlatEnd) {
  expect_valid(screwdriver());
  ScrewdriverParams p;
  p.dome_height = 0;
  p.flutes = 9;
  p.flute_depth = 0.3;
  p.segments = 8;
  expect_valid(screwdriver(p));
  // flutes remove material
  ScrewdriverParams plain;
  plain.flutes = 0;
  EXPECT_LT(mass_properties(screwdriver()).volume, mass_properties(screwdriver(plain)).volume);
}

TEST(ProceduralScrewdriver, BadParametersGiveError) {
  auto bad = [](auto edit) {
    ScrewdriverParams p;
    edit(p);
    std::string err;
    EXPECT_TRUE(screwdriver(p, &err).empty());
    EXPECT_NE(err.find("screwdriver"), std::string::npos) << err;
  };
  bad([](ScrewdriverParams& p) { p.handle_radius = p.shaft_radius; });
  bad([](ScrewdriverParams& p) { p.shaft_radius = 0; });
  bad([](ScrewdriverParams& p) { p.tip_thickness = 3 * p.shaft_radius; });
  bad([](ScrewdriverParams& p) { p.tip_width = 0; });
  bad([](ScrewdriverParams& p) { p.dome_height = -1; });
  bad([](ScrewdriverParams& p) { p.segments = 3; });
  bad([](ScrewdriverParams& p) { p.flute_depth = 0.5; });
  bad([](ScrewdriverParams& p) { p.handle_length = std::numeric_limits<double>::quiet_NaN(); });
}

// ---- hex bolt and threaded block ----

// The thread surface the header promises.
double thread_radius(double major, double depth, double pitch, double theta, double y) {
  double u = y / pitch - theta / (2 * kPi);
  u -= std::floor(u);
  return major - depth + depth * std::abs(2 * u - 1);
}

TEST(ProceduralHexBolt, ValidVolumeAndThread) {
  HexBoltParams p;  // 20 whole turns
  std::string err;
  const TriangleMesh m = hex_bolt(p, &err);
  EXPECT_TRUE(err.empty()) << err;
  expect_valid(m);
  const MassProperties mp = mass_properties(m);
  const double a = p.shaft_radius - p.thread_depth, d = p.thread_depth;
  const double head = std::sqrt(3.0) / 2 * p.head_width * p.head_width * p.head_height;
  const double shaft = kPi * p.length * (a * a + a * d + d * d / 3);
  EXPECT_NEAR(mp.volume / (head + shaft * polygon_factor(48)), 1.0, 0.005);
  EXPECT_NEAR(mp.volume / (head + shaft), 1.0, 0.02);
  EXPECT_NEAR(mp.centre_of_mass.x(), 0, 1e-3 * p.shaft_radius);
  EXPECT_NEAR(mp.centre_of_mass.z(), 0, 1e-3 * p.shaft_radius);
  // shaft vertices lie on the helical thread surface, covering crests and roots
  int crest = 0, root = 0;
  for (const Vec3& v : m.vertices) {
    if (v.y() >= 0) continue;
    const double r = std::hypot(v.x(), v.z());
    if (r == 0) continue;  // end cap centre
    const double th = std::atan2(v.x(), v.z());
    EXPECT_NEAR(r, thread_radius(p.shaft_radius, d, p.thread_pitch, th, v.y()), 1e-9);
    crest += std::abs(r - p.shaft_radius) < 1e-9;
    root += std::abs(r - a) < 1e-9;
  }
  EXPECT_GT(crest, 20 * 48 / 2);
  EXPECT_GT(root, 20 * 48 / 2);
  const Aabb b = m.bounds();
  EXPECT_NEAR(b.lo.y(), -p.length, 1e-15);
  EXPECT_NEAR(b.hi.y(), p.head_height, 1e-15);
  EXPECT_NEAR(b.hi.z(), p.head_width / std::sqrt(3.0), 1e-12);  // a corner of the hexagon on +z
}

TEST(ProceduralHexBolt, PartialTurnsPlainShaftAndCoarse) {
  HexBoltParams p;
  p.length = 0.0137;  // not a whole number of turns
  expect_valid(hex_bolt(p));
  p.thread_depth = 0;
  const TriangleMesh plain = hex_bolt(p);
  expect_valid(plain);
  const double head = std::sqrt(3.0) / 2 * p.head_width * p.head_width * p.head_height;
  const double shaft = kPi * p.shaft_radius * p.shaft_radius * p.length * polygon_factor(48);
  EXPECT_NEAR(mass_properties(plain).volume, head + shaft, 1e-9 * (head + shaft));
  HexBoltParams c;
  c.segments = 12;  // -> 24
  c.samples_per_pitch = 2;
  c.thread_pitch = 0.01;
  c.thread_depth = 0.0025;
  expect_valid(hex_bolt(c));
}

TEST(ProceduralHexBolt, BadParametersGiveError) {
  auto bad = [](auto edit) {
    HexBoltParams p;
    edit(p);
    std::string err;
    EXPECT_TRUE(hex_bolt(p, &err).empty());
    EXPECT_NE(err.find("hex_bolt"), std::string::npos) << err;
  };
  bad([](HexBoltParams& p) { p.head_width = 0; });
  bad([](HexBoltParams& p) { p.head_height = -1; });
  bad([](HexBoltParams& p) { p.length = 0; });
  bad([](HexBoltParams& p) { p.shaft_radius = 0; });
  bad([](HexBoltParams& p) { p.shaft_radius = 0.5 * p.head_width; });
  bad([](HexBoltParams& p) { p.thread_pitch = 0; });
  bad([](HexBoltParams& p) { p.thread_pitch = 1e-9; });  // far too many turns
  bad([](HexBoltParams& p) { p.thread_depth = -0.001; });
  bad([](HexBoltParams& p) { p.thread_depth = 0.6 * p.shaft_radius; });
  bad([](HexBoltParams& p) { p.segments = 11; });
  bad([](HexBoltParams& p) { p.samples_per_pitch = 1; });
  bad([](HexBoltParams& p) { p.length = std::numeric_limits<double>::quiet_NaN(); });
}

TEST(ProceduralThreadedBlock, ValidVolumeAndGenus) {
  ThreadedBlockParams p;
  std::string err;
  const TriangleMesh m = threaded_block(p, &err);
  EXPECT_TRUE(err.empty()) << err;
  expect_valid(m, 0);  // a through-hole: genus 1
  const MassProperties mp = mass_properties(m);
  const double a = p.shaft_radius - p.thread_depth + p.clearance, d = p.thread_depth;
  const double hole = kPi * p.height * (a * a + a * d + d * d / 3) * polygon_factor(48);
  const double box = 4 * p.half_width * p.half_width * p.height;
  EXPECT_NEAR(mp.volume / (box - hole), 1.0, 0.005);
  EXPECT_NEAR(mp.centre_of_mass.x(), 0, 1e-3 * p.shaft_radius);
  EXPECT_NEAR(mp.centre_of_mass.z(), 0, 1e-3 * p.shaft_radius);
  EXPECT_NEAR(mp.centre_of_mass.y(), -p.height / 2, 1e-3 * p.height);
  ThreadedBlockParams c = p;
  c.height = 0.0071;
  c.clearance = 0;
  c.segments = 30;
  expect_valid(threaded_block(c), 0);
}

// Bolt and block with the same thread, at the same pose: the bolt's surface stays out of the block's solid.
// Shifted by half a pitch, crests meet crests and the bolt cuts into the block: the threads really interlock.
TEST(ProceduralThreadedBlock, BoltFitsItsHoleOnlyInPhase) {
  HexBoltParams bp;
  bp.segments = 24;
  bp.samples_per_pitch = 4;
  bp.thread_pitch = 0.004;
  bp.thread_depth = 0.001;
  bp.length = 0.016;
  ThreadedBlockParams kp;
  kp.segments = 24;
  kp.samples_per_pitch = 4;
  kp.thread_pitch = bp.thread_pitch;
  kp.thread_depth = bp.thread_depth;
  kp.shaft_radius = bp.shaft_radius;
  kp.height = 0.012;
  kp.clearance = 0.0001;
  const TriangleMesh bolt = hex_bolt(bp), block = threaded_block(kp);
  expect_valid(bolt);
  expect_valid(block, 0);
  // sanity of the inside test: block material is inside, the hole axis is not
  EXPECT_NEAR(winding_number(block, Vec3(0.01, -0.006, 0.01)), 1, 1e-6);
  EXPECT_NEAR(winding_number(block, Vec3(0, -0.006, 0)), 0, 1e-6);
  auto max_inside = [&](double shift) {
    double worst = 0;
    for (int t = 0; t < (int)bolt.triangles.size(); ++t) {
      const auto& f = bolt.triangles[t];
      Vec3 c = (bolt.vertices[f[0]] + bolt.vertices[f[1]] + bolt.vertices[f[2]]) / 3;
      c.y() += shift;
      if (c.y() > -0.001 || c.y() < -kp.height + 0.001) continue;  // away from the block's faces
      worst = std::max(worst, winding_number(block, c));
    }
    return worst;
  };
  EXPECT_LT(max_inside(0), 1e-6);
  EXPECT_GT(max_inside(0.5 * bp.thread_pitch), 0.99);
}

TEST(ProceduralThreadedBlock, BadParametersGiveError) {
  auto bad = [](auto edit) {
    ThreadedBlockParams p;
    edit(p);
    std::string err;
    EXPECT_TRUE(threaded_block(p, &err).empty());
    EXPECT_NE(err.find("threaded_block"), std::string::npos) << err;
  };
  bad([](ThreadedBlockParams& p) { p.height = 0; });
  bad([](ThreadedBlockParams& p) { p.half_width = p.shaft_radius; });
  bad([](ThreadedBlockParams& p) { p.clearance = -1e-4; });
  bad([](ThreadedBlockParams& p) { p.clearance = p.shaft_radius; });
  bad([](ThreadedBlockParams& p) { p.thread_depth = p.shaft_radius; });
  bad([](ThreadedBlockParams& p) { p.thread_pitch = -0.002; });
  bad([](ThreadedBlockParams& p) { p.segments = 5000; });
}

}  // namespace
}  // namespace cl
