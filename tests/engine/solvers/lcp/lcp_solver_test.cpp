// The lcp solver against analytic answers: free fall, resting impulses, incline stick/slip,
// restitution, momentum conservation.
#include "solvers/lcp/lcp_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "support/builders.h"
#include "support/scenes.h"
#include "world/world.h"

namespace cl {

using namespace cl::test;

namespace {
using test::kG;

World empty_world(double dt = 1.0 / 60.0) {
  World w;
  w.settings.dt = dt;
  w.settings.gravity = Vec3(0, -kG, 0);
  return w;
}
}  // namespace

// Semi-implicit Euler: y_n = y_0 - g h^2 n (n + 1) / 2 exactly, and within 1% of y_0 - g t^2 / 2.
TEST(LcpSolver, FreeFall) {
  World w = empty_world(0.01);
  const int id = add_body(w, sphere(0.5), Vec3(0, 100, 0));
  const int n = 200;
  for (int s = 0; s < n; ++s) ASSERT_TRUE(w.step().ok);
  const double h = 0.01;
  EXPECT_NEAR(w.bodies[id].position.y(), 100 - kG * h * h * n * (n + 1) / 2.0, 1e-9);
  const double t = n * h;
  EXPECT_NEAR(w.bodies[id].position.y(), 100 - 0.5 * kG * t * t, 0.01 * 0.5 * kG * t * t);
  EXPECT_NEAR(w.bodies[id].linear_velocity.y(), -kG * t, 1e-9);
}

// The convergence record of a step: one residual per sweep of the velocity solve (largest over the contact
// groups; the shock-propagation layers' sweeps merge into the same indices), at most `iterations` long (or
// `layer_iterations`, the layers' own, if more), falling
// from its first sweep to its last, never below the step's residual (the largest last-sweep residual of a
// solve), and empty for a step without contacts.
TEST(LcpSolver, ConvergenceHasOneResidualPerSweep) {
  World w = empty_world();
  std::string error;
  ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error)) << error;
  add_plane(w);
  for (int i = 0; i < 3; ++i) add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5 + i, 0));
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
  const auto conv = w.solver().convergence();
  ASSERT_FALSE(conv.empty());
  // A solve takes at most `iterations` sweeps, a stack layer's under shock propagation `layer_iterations`.
  const int iterations = int(std::max(w.solver().params().get("iterations").value(),
                                      w.solver().params().get("layer_iterations").value()));
  EXPECT_LE(int(conv.size()), iterations);
  EXPECT_GE(*std::max_element(conv.begin(), conv.end()), w.last_stats().residual);
  EXPECT_GT(conv.front(), conv.back());

  World empty = empty_world();
  add_body(empty, sphere(0.5), Vec3(0, 10, 0));
  ASSERT_TRUE(empty.step().ok);
  EXPECT_TRUE(empty.solver().convergence().empty());
}

// Digest test 4: a box resting on a plane; the normal impulses sum to m g h and the friction impulses
// stay inside +-mu lambda_n (here zero, nothing pushes sideways).
TEST(LcpSolver, RestingBoxImpulsesCarryItsWeight) {
  World w = empty_world();
  add_plane(w);
  const int box_id = add_body(w, box(Vec3(0.5, 0.25, 0.4)), Vec3(0, 0.25, 0));
  for (int s = 0; s < 120; ++s) ASSERT_TRUE(w.step().ok);
  double sum = 0.0;
  for (const Contact& c : w.contacts()) {
    sum += c.normal_impulse;
    EXPECT_LE(c.friction_impulse.norm(), c.friction * c.normal_impulse * std::sqrt(2.0) + 1e-12);
  }
  EXPECT_EQ(w.contacts().size(), 4u);
  const double weight = w.bodies[box_id].mass * kG * w.settings.dt;
  EXPECT_NEAR(sum, weight, 1e-3 * weight);
  EXPECT_LT(w.bodies[box_id].linear_velocity.norm(), 1e-6);
  EXPECT_NEAR(w.bodies[box_id].position.y(), 0.25, 2e-3);
}

namespace {
// A 1 m box on a plane inclined by `angle` about z, with friction mu; returns the distance slid along the
// slope and the velocity along it at the times t1 and t2.
struct SlideResult { double s1, v1, s2, v2; };
SlideResult slide(double angle, double mu, double t1, double t2) {
  World w = empty_world();
  const int mat = add_material(w, mu, 0.0);
  const Vec3 n(-std::sin(angle), std::cos(angle), 0);  // tilted up-slope towards -x
  add_plane(w, n, 0.0, mat);
  const Quat q(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  const int id = add_body(w, box(Vec3(0.5, 0.5, 0.5)), n * 0.5, 1000.0, q, mat);
  const Vec3 down_slope = Vec3(std::cos(angle), std::sin(angle), 0) * -1.0;  // along the surface, downhill
  const Vec3 start = w.bodies[id].position;
  SlideResult r{};
  const int n1 = int(std::lround(t1 / w.settings.dt)), n2 = int(std::lround(t2 / w.settings.dt));
  for (int s = 1; s <= n2; ++s) {
    EXPECT_TRUE(w.step().ok);
    if (s == n1) {
      r.s1 = (w.bodies[id].position - start).dot(down_slope);
      r.v1 = w.bodies[id].linear_velocity.dot(down_slope);
    }
  }
  r.s2 = (w.bodies[id].position - start).dot(down_slope);
  r.v2 = w.bodies[id].linear_velocity.dot(down_slope);
  return r;
}
}  // namespace

TEST(LcpSolver, InclineSticksBelowFrictionAngle) {
  const double mu = 0.5;
  for (double deg : {10.0, 20.0, 25.0}) {  // tan < 0.5 up to 26.6 degrees
    const SlideResult r = slide(deg * std::numbers::pi / 180, mu, 1.0, 3.0);
    EXPECT_LT(std::abs(r.s2), 1e-3) << deg << " degrees";
    EXPECT_LT(std::abs(r.v2), 1e-3) << deg << " degrees";
  }
}

TEST(LcpSolver, InclineSlidesWithCoulombAcceleration) {
  const double mu = 0.5;
  for (double deg : {30.0, 35.0, 40.0}) {
    const double a = deg * std::numbers::pi / 180;
    const double expected = kG * (std::sin(a) - mu * std::cos(a));
    const SlideResult r = slide(a, mu, 0.5, 1.5);
    const double measured = (r.v2 - r.v1) / 1.0;
    EXPECT_NEAR(measured, expected, 0.05 * expected) << deg << " degrees";
  }
}

// A ball dropped on a plane with restitution e rebounds to about e^2 of its drop height.
TEST(LcpSolver, BallBouncesWithRestitution) {
  for (double e : {0.3, 0.6, 0.9}) {
    World w = empty_world(1.0 / 240.0);
    const int mat = add_material(w, 0.5, e);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    const double r = 0.1, drop = 1.0;
    const int id = add_body(w, sphere(r), Vec3(0, r + drop, 0), 1000.0, Quat::Identity(), mat);
    bool bounced = false;
    double apex = 0.0;
    for (int s = 0; s < 2 * 240; ++s) {
      ASSERT_TRUE(w.step().ok);
      const double vy = w.bodies[id].linear_velocity.y();
      if (vy > 0) bounced = true;
      if (bounced) apex = std::max(apex, w.bodies[id].position.y() - r);
      if (bounced && vy < 0) break;
    }
    EXPECT_NEAR(apex, e * e * drop, 0.05 * e * e * drop) << "e = " << e;
  }
}

// Restitution has no absolute speed threshold: two 1 cm balls without gravity meeting at 0.1 m/s with e = 1
// swap their velocities as two 1 m balls at 5 m/s do.
TEST(LcpSolver, SlowSmallImpactsBounce) {
  World w = empty_world();
  w.settings.gravity = Vec3::Zero();
  const int mat = add_material(w, 0.0, 1.0);
  const int a = add_body(w, sphere(0.005), Vec3(-0.02, 0, 0), 1000.0, Quat::Identity(), mat);
  const int b = add_body(w, sphere(0.005), Vec3(0, 0, 0), 1000.0, Quat::Identity(), mat);
  w.bodies[a].linear_velocity = Vec3(0.1, 0, 0);
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_NEAR(w.bodies[a].linear_velocity.x(), 0.0, 1e-3);
  EXPECT_NEAR(w.bodies[b].linear_velocity.x(), 0.1, 1e-3);
}

// A resting contact's approach is one step of gravity, g h: it never bounces, at any step, even with e = 1 (a
// bounce would throw the box up at g h; what is left is the solver's round-off).
TEST(LcpSolver, RestingContactsDoNotBounceAtAnyStep) {
  for (double h : {1.0 / 30, 1.0 / 1000}) {
    World w = empty_world(h);
    std::string error;
    ASSERT_TRUE(w.solver().params().set("sleeping", 0, &error)) << error;
    const int mat = add_material(w, 0.5, 1.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    const int box_id = add_body(w, box(Vec3(0.01, 0.01, 0.01)), Vec3(0, 0.01, 0), 1000.0, Quat::Identity(), mat);
    double fastest = 0.0;
    for (int s = 0; s < int(1.0 / h); ++s) {
      ASSERT_TRUE(w.step().ok);
      fastest = std::max(fastest, std::abs(w.bodies[box_id].linear_velocity.y()));
    }
    EXPECT_LT(fastest, 1e-3 * kG * h) << "h = " << h;  // a bounce would leave at g h
  }
}

// An isolated pair colliding off centre with friction, no gravity: the impulses are internal, so linear
// and angular momentum are unchanged.
TEST(LcpSolver, IsolatedPairConservesMomentum) {
  World w = empty_world();
  w.settings.gravity = Vec3::Zero();
  const int mat = add_material(w, 0.8, 0.3);
  const Quat q(Eigen::AngleAxisd(0.4, Vec3(1, 2, 0.5).normalized()));
  const int a = add_body(w, box(Vec3(0.5, 0.3, 0.4)), Vec3(-1.0, 0.1, 0), 800.0, q, mat);
  const int b = add_body(w, sphere(0.4), Vec3(1.0, -0.05, 0.1), 1500.0, Quat::Identity(), mat);
  w.bodies[a].linear_velocity = Vec3(2, 0, 0);
  w.bodies[a].angular_velocity = Vec3(0, 1, 3);
  w.bodies[b].linear_velocity = Vec3(-1, 0.2, 0);
  ASSERT_TRUE(w.solver().params().set("correction_iterations", 0, nullptr));  // projection moves positions only
  auto momentum = [&](Vec3& p, Vec3& l) {
    p.setZero();
    l.setZero();
    for (const Body& body : w.bodies) {
      p += body.mass * body.linear_velocity;
      l += body.position.cross(body.mass * body.linear_velocity) + body.inertia_world() * body.angular_velocity;
    }
  };
  Vec3 p0, l0, p1, l1;
  momentum(p0, l0);
  int contacts = 0;
  for (int s = 0; s < 90; ++s) {
    // Gyroscopic torque w x I w is integrated explicitly per body, so compare only across the impulses:
    // bodies here are torque-free between steps except for it; measure momentum change per step.
    Vec3 pb, lb, pa, la;
    momentum(pb, lb);
    ASSERT_TRUE(w.step().ok);
    contacts += int(w.contacts().size());
    momentum(pa, la);
    EXPECT_LT((pa - pb).norm(), 1e-9 * (1 + pb.norm()));
  }
  EXPECT_GT(contacts, 0) << "the bodies never touched";
  momentum(p1, l1);
  EXPECT_LT((p1 - p0).norm(), 1e-9 * p0.norm());
}

// Angular momentum across one velocity solve with contacts: J^T lambda is internal.
TEST(LcpSolver, ContactImpulsesConserveAngularMomentum) {
  World w = empty_world();
  w.settings.gravity = Vec3::Zero();
  const int mat = add_material(w, 0.8, 0.0);
  const int a = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0, 0), 1000.0, Quat::Identity(), mat);
  const int b = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0.3, 0.99, 0.1),
                         700.0, Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY())), mat);
  w.bodies[a].linear_velocity = Vec3(0.5, 1.0, 0.0);
  w.bodies[b].linear_velocity = Vec3(-0.5, -1.0, 0.3);
  // No gyroscopic term: start without spin and look at a single step.
  ASSERT_TRUE(w.solver().params().set("correction_iterations", 0, nullptr));
  Vec3 l0 = Vec3::Zero(), l1 = Vec3::Zero();
  for (const Body& body : w.bodies) l0 += body.position.cross(body.mass * body.linear_velocity);
  // Evaluate the momentum after the solve at the start-of-step positions and inertias, where the
  // impulses act; the position update afterwards changes neither.
  std::vector<Vec3> x0;
  std::vector<Mat3> i0;
  for (const Body& body : w.bodies) {
    x0.push_back(body.position);
    i0.push_back(body.inertia_world());
  }
  ASSERT_TRUE(w.step().ok);
  ASSERT_FALSE(w.contacts().empty());
  for (size_t i = 0; i < w.bodies.size(); ++i) {
    const Body& body = w.bodies[i];
    l1 += x0[i].cross(body.mass * body.linear_velocity) + i0[i] * body.angular_velocity;
  }
  EXPECT_LT((l1 - l0).norm(), 1e-9 * (1 + l0.norm()));
}

// A capsule tumbling freely (a symmetric top) through whole world steps: kinetic energy and the angular momentum
// vector are kept (the explicit term of eq. 4.12 spins such a body up until it is non-finite), and so is the spin
// about the symmetry axis, which torque-free motion keeps constant.
TEST(LcpSolver, FreeTumblingBodyKeepsEnergyAndMomentum) {
  World w = empty_world();
  w.settings.gravity = Vec3::Zero();
  const int id = add_body(w, capsule(0.25, 0.5), Vec3(0, 0, 0));
  w.bodies[id].angular_velocity = Vec3(3.0, 20.0, 0.5);  // mostly about the long axis, slightly off
  const double energy = w.kinetic_energy();
  const Vec3 momentum = w.bodies[id].inertia_world() * w.bodies[id].angular_velocity;
  for (int s = 0; s < 600; ++s) {
    ASSERT_TRUE(w.step().ok);
    const Body& b = w.bodies[id];
    ASSERT_NEAR(w.kinetic_energy(), energy, 1e-6 * energy) << "step " << s;
    ASSERT_LT((b.inertia_world() * b.angular_velocity - momentum).norm(), 1e-12 * momentum.norm()) << "step " << s;
    const double axial_spin = (b.rotation().transpose() * b.angular_velocity).y();
    ASSERT_NEAR(axial_spin, 20.0, 0.2) << "step " << s;
  }
}

// Resting stacks keep their contacts from step to step (by feature id or position), so PGS warm starts.
TEST(LcpSolver, RestingStackContactsPersist) {
  World w = empty_world();
  add_plane(w);
  for (int i = 0; i < 5; ++i) add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5 + i, 0));
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
  for (int s = 0; s < 30; ++s) {
    ASSERT_TRUE(w.step().ok);
    ASSERT_GE(w.contacts().size(), 20u);
    for (const Contact& c : w.contacts())
      if (c.depth >= 0) {
        EXPECT_TRUE(c.persisted) << c.a << "-" << c.b << " feature " << c.feature;
      }
  }
}

// The projection (thesis sect. 4.16) of a settled stack whose contacts are all within allowed_penetration does no
// sweep: the step is the one without it (correction_iterations = 0) bit for bit, sweeps included. A contact pushed
// deeper than allowed is still projected out, at any step and size.
TEST(LcpSolver, ProjectionSkipsAStackWithinTheAllowedDepth) {
  for (double size : {0.02, 1.0, 4.0})
    for (double dt : {1.0 / 30, 1.0 / 60, 1.0 / 1000}) {
      SCOPED_TRACE(testing::Message() << "size " << size << " dt " << dt);
      World w = empty_world(dt);
      ASSERT_TRUE(w.solver().params().set("sleeping", 0, nullptr));
      add_plane(w);
      for (int i = 0; i < 5; ++i) add_body(w, box(Vec3::Constant(0.5 * size)), Vec3(0, size * (0.5 + i), 0));
      for (int s = 0; s < int(2.0 / dt); ++s) ASSERT_TRUE(w.step().ok);
      auto without_projection = [](World v) {
        EXPECT_TRUE(v.solver().params().set("correction_iterations", 0, nullptr));
        return v;
      };
      World with = w, without = without_projection(w);
      ASSERT_TRUE(with.step().ok);
      ASSERT_TRUE(without.step().ok);
      EXPECT_EQ(with.last_stats().iterations, without.last_stats().iterations);
      for (size_t i = 0; i < w.bodies.size(); ++i) EXPECT_EQ(with.bodies[i].position, without.bodies[i].position) << i;

      // A tenth of a box into the one below: deeper than the depth a contact keeps (1 mm, or 5 % of a small box).
      const double push = 0.1 * size, excess = push - std::min(0.001, 0.05 * size);
      w.bodies.back().position.y() -= push;
      with = w, without = without_projection(w);
      ASSERT_TRUE(with.step().ok);
      ASSERT_TRUE(without.step().ok);
      EXPECT_GT(with.last_stats().iterations, without.last_stats().iterations);
      EXPECT_GT(with.bodies.back().position.y(), without.bodies.back().position.y() + 0.5 * excess);
    }
}

// A 0.2 mm sheet dropped flat or tilted comes to rest lying on the ground at 1/30 to 1/1000 s: the projection
// leaves a contact at most a tenth of the thinner body's half thickness deep (allowed_penetration, 1 mm, is
// five times the sheet), so it is held with less than half its half thickness in the ground. With the full
// millimetre it sank wholly through (exit 3).
TEST(LcpSolver, AThinSheetRestsOnTheGround) {
  expect_sheet_rests("lcp", {1.0 / 30, 1.0 / 60, 1.0 / 200, 1.0 / 1000});
}

// With warm starting the five-box column settles under plain PGS; without it 10 sweeps leave it sinking
// for longer.
TEST(LcpSolver, WarmStartingHelpsAStackConverge) {
  auto top_sink = [](bool warm) {
    World w = empty_world();
    add_plane(w);
    for (int i = 0; i < 5; ++i) add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5 + i, 0));
    EXPECT_TRUE(w.solver().params().set("warm_start", warm ? 1 : 0, nullptr));
    EXPECT_TRUE(w.solver().params().set("shock_propagation", 0, nullptr));  // plain PGS
    EXPECT_TRUE(w.solver().params().set("sleeping", 0, nullptr));
    double worst = 0;
    for (int s = 0; s < 120; ++s) {
      EXPECT_TRUE(w.step().ok);
      worst = std::max(worst, 4.5 - w.bodies.back().position.y());
    }
    return worst;
  };
  const double warm = top_sink(true), cold = top_sink(false);
  EXPECT_LT(warm, 0.02);
  EXPECT_LT(warm, cold);
}

TEST(LcpSolver, PublishesItsParameters) {
  LcpSolver s;
  for (const char* name : {"iterations", "correction_iterations", "warm_start", "friction_directions"})
    EXPECT_NE(s.params().find(name), nullptr) << name;
  EXPECT_EQ(s.params().get("iterations"), 10);
  EXPECT_EQ(s.params().get("correction_iterations"), 5);
  std::string error;
  EXPECT_FALSE(s.params().set("iterations", 0, &error));
  EXPECT_NE(error.find("[1, 1000]"), std::string::npos) << error;
  EXPECT_FALSE(s.params().set_from_string("iterations", "2.5", &error));
  EXPECT_FALSE(s.params().set_from_string("warm_start", "maybe", &error));
  EXPECT_TRUE(s.params().set_from_string("warm_start", "off", &error));
  EXPECT_EQ(s.params().get("warm_start"), 0);
  EXPECT_FALSE(s.params().set("no_such_thing", 1, &error));
  EXPECT_NE(error.find("unknown parameter"), std::string::npos);
}

// lcp honours every scene feature; with friction_directions = 0 it says that the materials' friction is left out.
TEST(LcpSolver, UnsupportedOnlyWhenFrictionIsSwitchedOff) {
  World w;
  const int rough = add_material(w, 0.6, 0.5);
  add_plane(w, Vec3(0, 1, 0), 0.0, rough);
  add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 0.5, 0), 1000.0, Quat::Identity(), rough);
  std::string error;
  EXPECT_TRUE(w.unsupported_features().empty());
  ASSERT_TRUE(w.solver().params().set("friction_directions", 0, &error)) << error;
  const std::vector<std::string> u = w.unsupported_features();
  ASSERT_EQ(u.size(), 1u);
  EXPECT_NE(u[0].find("friction_directions = 0: the friction of material 'm1' is ignored"), std::string::npos) << u[0];
  w.materials[size_t(rough)].friction = 0.0;  // nothing left to ignore
  EXPECT_TRUE(w.unsupported_features().empty());
}

// `steps` steps of a shipped scene on the world's one and two threads: the large PGS solves are split between them
// (the counter says how many rows, at least `threaded` a step), and every body ends bit for bit where it does on
// one, every contact with the same impulses (which the next step starts from).
void expect_same_on_two_threads(const char* scene, int steps, double threaded) {
  SCOPED_TRACE(scene);
  World one = load_shipped_scene(scene);
  ASSERT_TRUE(one.solver().params().set("sleeping", 0, nullptr));
  World two = one;
  one.settings.threads = 1;
  two.settings.threads = 2;
  double rows = 0.0;
  for (int s = 0; s < steps; ++s) {
    ASSERT_TRUE(one.step().ok);
    ASSERT_TRUE(two.step().ok);
    for (const SolverCounter& c : two.last_stats().counters.counters())
      if (std::string(c.name) == "threaded_rows") rows += c.value;
  }
  EXPECT_GT(rows, steps * threaded);
  // A resting pyramid's bodies end at rest whatever impulses held them.
  ASSERT_EQ(one.contacts().size(), two.contacts().size());
  for (size_t k = 0; k < one.contacts().size(); ++k) {
    const Contact& c = one.contacts()[k];
    const Contact& d = two.contacts()[k];
    ASSERT_TRUE(c.normal_impulse == d.normal_impulse && c.friction_impulse == d.friction_impulse &&
                c.layer_normal_impulse == d.layer_normal_impulse &&
                c.layer_friction_impulse == d.layer_friction_impulse)
        << "contact " << k;
  }
  for (size_t i = 0; i < one.bodies.size(); ++i) {
    const Body& x = one.bodies[i];
    const Body& y = two.bodies[i];
    ASSERT_EQ(x.position, y.position) << "body " << i;
    ASSERT_EQ(x.orientation.coeffs(), y.orientation.coeffs()) << "body " << i;
    ASSERT_EQ(x.linear_velocity, y.linear_velocity) << "body " << i;
    ASSERT_EQ(x.angular_velocity, y.angular_velocity) << "body " << i;
  }
}

// The 20-row pyramid: one contact group of about 7,200 rows, whose first phase is swept on the two threads.
TEST(LcpSolver, LargeGroupOnTwoThreadsGivesTheResultOfOne) { expect_same_on_two_threads("pyramid20.json", 40, 5000.0); }

// The 100-row pyramid, 59,800 contacts: the solves' upkeep is shared too (the warm start, the impulses read back and
// kept, the projection's depths, the stack's balanced start).
TEST(LcpSolver, HundredRowPyramidOnTwoThreadsGivesTheResultOfOne) {
  expect_same_on_two_threads("large/large_pyramid.json", 4, 150000.0);
}

// The same with 5 cm gaps in every row: boxes that settle as the layers are taken in turn by the two threads.
TEST(LcpSolver, HundredRowPyramidWithGapsOnTwoThreadsGivesTheResultOfOne) {
  expect_same_on_two_threads("large/pyramid100_gaps.json", 6, 100000.0);
}

// A capsule 30 % of its radius deep, spinning about its axis at v / r while it rolls at v = 3 sqrt(s) m/s (scaled
// with the size s) across the ground or a fixed ball of radius s: the projection lifts it to allowed_penetration
// (at most a tenth of its half thickness) in its first step and it stays there. Carried forward along the
// velocities at the step's end, the depth missed the h^2 v^2 / r of its turn (10 mm at 1/60 s), and the capsule
// stayed that much deeper, step after step (a capsule on a ball in scenes/default.json, 12 mm).
TEST(LcpSolver, ARollingCapsuleIsLiftedToTheAllowedDepth) {
  for (bool on_ball : {false, true})
    for (double s : {0.02, 0.25, 1.0, 4.0})
      for (double dt : {1 / 30.0, 1 / 60.0, 1 / 100.0, 1 / 200.0, 1 / 500.0, 1 / 1000.0}) {
        SCOPED_TRACE((on_ball ? "on a ball, size " : "on the ground, size ") + std::to_string(s) + ", dt " +
                     std::to_string(dt));
        World w = empty_world(dt);
        std::string error;
        ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
        const int under = on_ball ? add_body(w, sphere(s), Vec3::Zero(), 0.0, Quat::Identity(), 0, BodyKind::Fixed)
                                  : add_plane(w);
        const double r = 0.25 * s, top = on_ball ? s : 0.0, v = 3.0 * std::sqrt(s);
        const int c = add_body(w, capsule(r, 0.5 * s), Vec3(0, top + 0.7 * r, on_ball ? -0.05 * s : 0.0), 1000.0,
                               Quat(Eigen::AngleAxisd(0.5 * std::numbers::pi, Vec3::UnitZ())));  // along x
        w.bodies[c].linear_velocity = Vec3(0, 0, v);
        w.bodies[c].angular_velocity = Vec3(v / r, 0, 0);
        const double left = std::min(0.001, 0.1 * r);  // allowed_penetration's default, thin-body bound
        // Across 30 % of the capsule's length (2 % of the ball's radius on the ball, where it rolls off), from the
        // narrow phase of the third step on.
        const int steps = std::max(3, int((on_ball ? 0.02 : 0.3) * s / v / dt));
        double deepest = 0.0;
        for (int i = 0; i < steps; ++i) {
          ASSERT_TRUE(w.step().ok);
          if (i < 2) continue;
          for (const Contact& k : w.contacts())
            if (std::minmax(k.a, k.b) == std::minmax(under, c)) deepest = std::max(deepest, k.depth);
        }
        EXPECT_LE(deepest, 1.01 * left) << "deeper than allowed: " << 1e3 * deepest << " mm";
      }
}

}  // namespace cl
