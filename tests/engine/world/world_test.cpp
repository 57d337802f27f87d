#include "world/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "collision/shell_points.h"
#include "scene/scene.h"
#include "solvers/registry.h"
#include "support/builders.h"
#include "support/scenes.h"

namespace cl {

using namespace cl::test;

namespace {
// A small pile: boxes, spheres and capsules dropped onto a plane, overlapping in the broad phase.
World pile() {
  World w;
  const int mat = add_material(w, 0.6, 0.2);
  add_plane(w, Vec3(0, 1, 0), 0.0, mat);
  for (int i = 0; i < 24; ++i) {
    const Vec3 p(0.37 * (i % 4) - 0.5, 0.6 + 0.8 * (i / 4), 0.21 * (i % 3));
    const Quat q(Eigen::AngleAxisd(0.3 * i, Vec3(1, i % 2, 0.5).normalized()));
    const Shape s = i % 3 == 0 ? box(Vec3(0.3, 0.2, 0.25)) : i % 3 == 1 ? sphere(0.25) : capsule(0.15, 0.2);
    add_body(w, s, p, 900.0 + 10 * i, q, mat);
  }
  return w;
}

bool same_state(const World& a, const World& b) {
  if (a.bodies.size() != b.bodies.size()) return false;
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const Body& x = a.bodies[i];
    const Body& y = b.bodies[i];
    if (std::memcmp(x.position.data(), y.position.data(), sizeof(double) * 3) != 0) return false;
    if (std::memcmp(x.orientation.coeffs().data(), y.orientation.coeffs().data(), sizeof(double) * 4) != 0) return false;
    if (std::memcmp(x.linear_velocity.data(), y.linear_velocity.data(), sizeof(double) * 3) != 0) return false;
    if (std::memcmp(x.angular_velocity.data(), y.angular_velocity.data(), sizeof(double) * 3) != 0) return false;
  }
  return true;
}
}  // namespace

TEST(World, MaxContactsStopsAHeapInsteadOfExhaustingMemory) {
  // 60 boxes at one pose overlap in 1,770 pairs with several contacts each.
  World w;
  add_plane(w);
  for (int i = 0; i < 60; ++i) add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 2, 0));
  for (const int threads : {1, 2}) {
  SCOPED_TRACE(threads);
  w.settings.threads = threads;
  World limited = w;
  limited.settings.max_contacts = 1000;  // fewer than the pairs: the broad phase stops
  StepResult r = limited.step();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("too many contacts: more than 1000 overlapping pairs at step 1 (max_contacts 1000)"),
            std::string::npos) << r.error;
  limited = w;
  limited.settings.max_contacts = 2000;  // more than the pairs, fewer than their contacts: the narrow phase stops
  r = limited.step();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("more than 2000 contacts at step 1"), std::string::npos) << r.error;
  EXPECT_LE(limited.contacts().size(), 2000u);
  World unlimited = w;
  unlimited.settings.max_contacts = 0;  // no limit
  r = unlimited.step();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_GT(unlimited.last_stats().contacts, 2000);
  }
}

// The narrow phase on several threads (WorldSettings::threads) finds each pair's contacts on their own and joins them
// in pair order: the same contacts and the same motion as on one thread, bit for bit, under every method (those
// whose collide() is not reentrant keep to one thread).
void expect_same_on_one_and_two_threads(World one, int steps) {
  World two = one;
  one.settings.threads = 1;
  two.settings.threads = 2;
  // Contacts, or the shell points of a method that has one contact per touching pair (implicit-penalty's counter
  // shell_points): the narrow phase had work to share between the threads.
  size_t most = 0;
  for (int s = 0; s < steps; ++s) {
    const StepResult r1 = one.step(), r2 = two.step();
    // A method may stop on this pile of overlapping heavy bodies (implicit-penalty blows up at step 28): on both
    // thread counts at the same step with the same message.
    ASSERT_EQ(r1.ok, r2.ok) << "step " << s;
    ASSERT_EQ(r1.error, r2.error);
    ASSERT_EQ(one.contacts().size(), two.contacts().size()) << "step " << s;
    for (size_t k = 0; k < one.contacts().size(); ++k) {
      const Contact& c = one.contacts()[k];
      const Contact& d = two.contacts()[k];
      ASSERT_TRUE(c.a == d.a && c.b == d.b && c.feature == d.feature && c.depth == d.depth &&
                  c.position == d.position && c.normal == d.normal)
          << "step " << s << ", contact " << k;
    }
    most = std::max(most, one.contacts().size());
    for (const SolverCounter& c : one.last_stats().counters.counters())
      if (std::string(c.name) == "shell_points") most = std::max(most, size_t(c.value));
    if (!r1.ok) break;
  }
  EXPECT_TRUE(same_state(one, two));
  EXPECT_GT(most, 16u);
}

TEST(World, NarrowPhaseOnTwoThreadsGivesTheResultsOfOne) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w = pile();
    ASSERT_TRUE(w.set_solver(info.name, nullptr));
    expect_same_on_one_and_two_threads(w, 90);
  }
}

// A stack of more pairs than eight of the narrow phase's tasks of 256, at rest, then slid: each pair is found kept,
// recycled or to collide on the world's threads, and the kept ones carried on (re-projected when recycled) there,
// with the same contacts and the same motion as on one thread (the 100-row pyramid's 15,000 pairs, every one kept from
// its second step on).
TEST(World, NarrowPhaseOfALargeStackOnTwoThreadsGivesTheResultsOfOne) {
  World w = load_shipped_scene("large/large_pyramid.json");
  ASSERT_TRUE(w.solver().params().set("sleeping", 0, nullptr));
  ASSERT_TRUE(w.step().ok);
  ASSERT_GE(w.graph().edges().size(), 8u * 256u);
  expect_same_on_one_and_two_threads(w, 3);
  // The whole pyramid slid sideways, by 1 cm (every pair collided again, and anchored: its features are the same),
  // then by 0.01 mm a step, less than the recycle distance: every pair recycled.
  World one = w, two = w;
  one.settings.threads = 1;
  two.settings.threads = 2;
  for (int s = 0; s < 4; ++s) {
    for (World* x : {&one, &two})
      for (Body& b : x->bodies)
        if (b.is_dynamic()) b.position.x() += s == 0 ? 1e-2 : 1e-5;
    ASSERT_TRUE(one.step().ok);
    ASSERT_TRUE(two.step().ok);
    ASSERT_EQ(one.contacts().size(), two.contacts().size()) << "step " << s;
    for (size_t k = 0; k < one.contacts().size(); ++k) {
      const Contact& c = one.contacts()[k];
      const Contact& d = two.contacts()[k];
      ASSERT_TRUE(c.a == d.a && c.b == d.b && c.depth == d.depth && c.position == d.position && c.normal == d.normal)
          << "step " << s << ", contact " << k;
    }
  }
  EXPECT_TRUE(same_state(one, two));
}

TEST(World, NarrowPhaseOnTwoThreadsGivesTheResultsOfOneWithMeshes) {
  // Tori (meshes with distance fields and point shells) under the two methods that collide pairs on threads.
  for (const char* name : {"lcp", "implicit-penalty"}) {
    SCOPED_TRACE(name);
    World w = load_shipped_scene("torus_stack.json");
    ASSERT_TRUE(w.set_solver(name, nullptr));
    expect_same_on_one_and_two_threads(w, 60);
  }
}

TEST(World, NarrowPhaseOnTwoThreadsGivesTheResultsOfOneForOneBigMeshPair) {
  // A bolt in its threaded hole: one pair, whose shell queries the threads share (Solver::collide_on_threads).
  World w = load_shipped_scene("bolt_in_hole.json");
  ASSERT_TRUE(w.set_solver("implicit-penalty", nullptr));
  for (const Body& b : w.bodies)
    if (b.shape.type == ShapeType::Mesh) {
      const auto shell = penalty_shell(b.shape, 0.0);  // a mesh's shell ignores the spacing
      ASSERT_GE(shell->tree->nodes.size(), kLeastSplitShellNodes) << b.name;  // split between the threads
    }
  expect_same_on_one_and_two_threads(w, 20);
}

TEST(World, SteppingIsDeterministic) {
  World a = pile(), b = pile();
  for (int s = 0; s < 240; ++s) {
    ASSERT_TRUE(a.step().ok);
    ASSERT_TRUE(b.step().ok);
  }
  EXPECT_TRUE(same_state(a, b));
  EXPECT_GT(a.contacts().size(), 10u);
}

TEST(World, CopyIsAnIndependentSimulation) {
  World a = pile();
  for (int s = 0; s < 60; ++s) a.step();
  World b = a;  // copy mid-run, contact cache and warm start included
  const World snapshot = a;
  for (int s = 0; s < 120; ++s) {
    a.step();
    b.step();
  }
  EXPECT_TRUE(same_state(a, b));       // same future
  EXPECT_FALSE(same_state(a, snapshot));  // the copy did not move with them
  ASSERT_TRUE(b.set_solver("lcp", nullptr));
  ASSERT_TRUE(b.solver().params().set("iterations", 3, nullptr));
  EXPECT_EQ(a.solver().params().get("iterations"), 10);  // solvers are not shared
}

// Copy construction and copy assignment both carry the scene's description and the solver with its settings
// (the viewer's Reset and Save as work on copies).
TEST(World, CopyKeepsTheDescriptionAndTheSolver) {
  World a = pile();
  a.name = "pile";
  a.description = "Boxes, spheres and capsules dropped onto a plane.";
  ASSERT_TRUE(a.set_solver("implicit-penalty", nullptr));
  ASSERT_TRUE(a.solver().params().set("stiffness", 2e5, nullptr));
  const World constructed = a;
  World assigned;
  assigned = a;
  const World* copies[] = {&constructed, &assigned};
  for (const World* w : copies) {
    EXPECT_EQ(w->name, "pile");
    EXPECT_EQ(w->description, a.description);
    EXPECT_EQ(w->solver().name(), "implicit-penalty");
    EXPECT_EQ(w->solver().params().get("stiffness"), 2e5);
    EXPECT_NE(&w->solver(), &a.solver());
  }
}

TEST(World, SwitchingSolverWhileRunning) {
  World w = pile();
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
  std::string error;
  EXPECT_FALSE(w.set_solver("no-such-method", &error));
  EXPECT_NE(error.find("available: lcp"), std::string::npos) << error;
  EXPECT_EQ(w.solver().name(), "lcp");
  EXPECT_TRUE(w.set_solver("lcp", &error));
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
}

// Each method keeps its parameters while another one is active: lcp -> volume -> lcp gives lcp its values back,
// and volume's values wait for it in turn. A method never used starts at its defaults.
TEST(World, SwitchingSolverKeepsEachSolversParameters) {
  World w = pile();
  std::string error;
  ASSERT_TRUE(w.solver().params().set("iterations", 3, &error)) << error;
  ASSERT_TRUE(w.set_solver("volume", &error)) << error;
  EXPECT_EQ(w.solver().params().get("iterations"), 20);  // volume's default
  ASSERT_TRUE(w.solver().params().set("iterations", 7, &error)) << error;
  ASSERT_TRUE(w.solver().params().set("multi_volume", 0, &error)) << error;
  EXPECT_EQ(w.solver_params_copy("lcp").get("iterations"), 3);
  ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
  EXPECT_EQ(w.solver().params().get("iterations"), 3);
  EXPECT_EQ(w.solver_params_copy("volume").get("iterations"), 7);
  ASSERT_TRUE(w.set_solver("volume", &error)) << error;
  EXPECT_EQ(w.solver().params().get("iterations"), 7);
  EXPECT_EQ(w.solver().params().get("multi_volume"), 0);
  ASSERT_TRUE(w.set_solver("volume", &error)) << error;  // choosing the active method again keeps its values
  EXPECT_EQ(w.solver().params().get("iterations"), 7);
  EXPECT_EQ(w.solver_params_copy("implicit-penalty").get("penetration"), 0.001);
  // Parameters of an inactive method are set in place and taken when it becomes active.
  ParamSet* implicit = w.solver_params("implicit-penalty");
  ASSERT_NE(implicit, nullptr);
  ASSERT_TRUE(implicit->set("penetration", 0.004, &error)) << error;
  EXPECT_EQ(w.solver().name(), "volume");
  ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
  EXPECT_EQ(w.solver().params().get("penetration"), 0.004);
  EXPECT_EQ(&w.solver().params(), w.solver_params("implicit-penalty"));  // the active one's own set
  EXPECT_EQ(w.solver_params("no-such-method"), nullptr);
  EXPECT_TRUE(w.solver_params_copy("no-such-method").specs().empty());
  // Copies carry every method's values.
  World copy = w;
  ASSERT_TRUE(copy.set_solver("lcp", &error)) << error;
  EXPECT_EQ(copy.solver().params().get("iterations"), 3);
  EXPECT_EQ(copy.solver_params_copy("volume").get("iterations"), 7);
}

// A scene that lists its methods refuses the others and keeps its solver and state.
TEST(World, MethodsListRefusesOtherSolvers) {
  World w = pile();
  w.name = "piled";
  w.methods = {"lcp", "implicit-penalty"};
  for (int s = 0; s < 10; ++s) ASSERT_TRUE(w.step().ok);
  const World before = w;
  std::string error;
  EXPECT_TRUE(w.allows_solver("implicit-penalty"));
  EXPECT_FALSE(w.allows_solver("volume"));
  EXPECT_FALSE(w.set_solver("volume", &error));
  EXPECT_NE(error.find("scene 'piled' is for the methods lcp, implicit-penalty"), std::string::npos) << error;
  EXPECT_NE(error.find("not 'volume'"), std::string::npos) << error;
  EXPECT_EQ(w.solver().name(), "lcp");
  EXPECT_EQ(w.contacts().size(), before.contacts().size());  // nothing was reset
  EXPECT_TRUE(same_state(w, before));
  EXPECT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
  w.methods.clear();
  EXPECT_TRUE(w.allows_solver("volume"));
}

// What the active solver does not honour is the solver's answer for this world's bodies, materials and joints.
TEST(World, UnsupportedFeaturesComeFromTheActiveSolver) {
  World w = pile();  // its material has restitution 0.2
  std::string error;
  EXPECT_TRUE(w.unsupported_features().empty());  // lcp honours restitution
  ASSERT_TRUE(w.set_solver("implicit-penalty", &error)) << error;
  EXPECT_TRUE(w.unsupported_features().empty());  // so does implicit-penalty's physical model
  ASSERT_TRUE(w.solver().params().set_from_string("contact_model", "per_point", &error)) << error;
  const std::vector<std::string> per_point = w.unsupported_features();
  ASSERT_EQ(per_point.size(), 1u);
  EXPECT_NE(per_point[0].find("restitution"), std::string::npos) << per_point[0];
  ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
  EXPECT_TRUE(w.unsupported_features().empty());
}

TEST(World, NonFiniteStateIsReportedWithBodyAndStage) {
  World w = pile();
  w.bodies[5].linear_velocity.x() = std::numeric_limits<double>::quiet_NaN();
  const StepResult r = w.step();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("'" + w.bodies[5].name + "'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("solve"), std::string::npos) << r.error;
}

// The blow-up rule: a body faster than max_speed stops the step with its name, the stage and the step; a
// spinning body counts its rim speed; max_speed 0 turns the rule off.
TEST(World, BodyPastMaxSpeedIsReportedAsABlowUp) {
  World w = pile();
  w.settings.max_speed = 100.0;
  for (int s = 0; s < 5; ++s) ASSERT_TRUE(w.step().ok);  // a settling pile is far below it
  w.bodies[5].linear_velocity = Vec3(0, 120, 0);
  const StepResult r = w.step();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("blow-up"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("'" + w.bodies[5].name + "'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("step 6"), std::string::npos) << r.error;

  World spin = pile();
  spin.settings.gravity = Vec3::Zero();
  spin.settings.max_speed = 100.0;
  spin.bodies[5].angular_velocity = Vec3(0, 1e4, 0);  // rim speed far past 100 m/s, centre at rest
  EXPECT_FALSE(spin.step().ok);

  World off = pile();
  off.settings.max_speed = 0.0;
  off.bodies[5].linear_velocity = Vec3(0, 5000, 0);
  EXPECT_TRUE(off.step().ok);
}

TEST(World, TelemetryCountsContactsGroupsAndEnergy) {
  World w = pile();
  for (int s = 0; s < 200; ++s) w.step();
  const StepStats& s = w.last_stats();
  EXPECT_EQ(s.step, 200);
  EXPECT_EQ(s.contacts, int(w.contacts().size()));
  EXPECT_GE(s.groups, 1);
  EXPECT_GE(s.iterations, 1);  // the most sweeps any group needed, velocities and projection
  EXPECT_GT(s.potential_energy, 0.0);
  EXPECT_GE(s.profile.total, s.profile.solve);
}

// The contact report and its residuals are computed when first read after a step (World::finish_report): read
// late, from a copy, or after the method or dt changed, they are what the step's method reported.
TEST(World, TheContactReportIsTheStepsWhenReadLate) {
  for (const char* method : {"lcp", "implicit-penalty", "volume", "pid-penalty"}) {
    SCOPED_TRACE(method);
    World w = pile();
    ASSERT_TRUE(w.set_solver(method, nullptr));
    for (int s = 0; s < 60; ++s) w.step();
    World copy = w;  // copied before anything read the report
    const ContactReport now = w.contact_report();
    const ContactResiduals residuals = w.last_stats().residuals;
    ASSERT_FALSE(now.contacts.empty());
    ASSERT_GT(residuals.contacts, 0);
    auto same = [&](const ContactReport& r) {
      if (r.contacts.size() != now.contacts.size() || r.dt != now.dt) return false;
      for (size_t k = 0; k < r.contacts.size(); ++k)
        if (r.contacts[k].normal_force != now.contacts[k].normal_force ||
            r.contacts[k].friction_force != now.contacts[k].friction_force ||
            r.contacts[k].velocity != now.contacts[k].velocity)
          return false;
      return true;
    };
    // A copy's first read, after its own method was switched away (the report is the step's method's).
    World switched = copy;
    ASSERT_TRUE(switched.set_solver(std::string(method) == "lcp" ? "volume" : "lcp", nullptr));
    EXPECT_TRUE(same(switched.contact_report()));
    EXPECT_EQ(switched.last_stats().residuals.complementarity, residuals.complementarity);
    // Or after dt changed.
    World later = copy;
    later.settings.dt *= 2.0;
    EXPECT_TRUE(same(later.contact_report()));
    EXPECT_TRUE(same(copy.contact_report()));
    // A report not read before the contacts are forgotten (bodies moved, added or removed) is dropped with them,
    // and so is one whose bodies were removed: it would read bodies that are not the step's.
    World reset = w;
    reset.step();
    reset.reset_contacts();
    EXPECT_TRUE(reset.contact_report().contacts.empty());
    EXPECT_EQ(reset.last_stats().residuals.contacts, 0);
    World removed = w;
    removed.step();
    removed.bodies.pop_back();
    EXPECT_TRUE(removed.contact_report().contacts.empty());
    // The next step's report is that step's.
    w.step();
    EXPECT_FALSE(same(w.contact_report()));
  }
}

TEST(World, KinematicBodiesPushButAreNotPushed) {
  World w;
  w.settings.gravity = Vec3::Zero();
  const int pusher = add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(-1.2, 0, 0), 0, Quat::Identity(), 0, BodyKind::Kinematic);
  w.bodies[pusher].linear_velocity = Vec3(1, 0, 0);
  const int ball = add_body(w, sphere(0.5), Vec3(0.0, 0, 0));
  for (int s = 0; s < 60; ++s) ASSERT_TRUE(w.step().ok);
  EXPECT_NEAR(w.bodies[pusher].linear_velocity.x(), 1.0, 0.0);
  EXPECT_NEAR(w.bodies[pusher].position.x(), -0.2, 1e-9);
  EXPECT_GT(w.bodies[ball].position.x(), 0.2);
}

// max_penetration is the deepest contact, mean_penetration the mean depth of the penetrating contacts; gaps
// (speculative contacts, depth < 0) count for neither. A unit box tilted about z rests on two lower corners 2 cm
// deep; its other two lower corners are 1 cm deep, or 5 mm above the ground (within the 1 cm margin).
TEST(World, PenetrationIsTheDeepestContactAndTheMeanOfThePenetratingOnes) {
  for (const double other : {-0.01, 0.005}) {
    World w;
    add_plane(w);
    const double sin_t = (other + 0.02) / 1.0;  // the two pairs of corners are 1 m apart across the tilt
    const double t = std::asin(sin_t);
    const Quat q(Eigen::AngleAxisd(t, Vec3(0, 0, 1)));
    // Lowest corners at y - 0.5 cos t - 0.5 sin t = -0.02.
    add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, -0.02 + 0.5 * std::cos(t) + 0.5 * sin_t, 0), 1000.0, q);
    ASSERT_TRUE(w.step().ok);
    int penetrating = 0, gaps = 0;
    for (const Contact& c : w.contacts()) (c.depth > 0 ? penetrating : gaps) += 1;
    ASSERT_EQ(penetrating + gaps, 4);
    EXPECT_EQ(gaps, other > 0 ? 2 : 0);
    const StepStats& s = w.last_stats();
    EXPECT_NEAR(s.max_penetration, 0.02, 1e-9);
    EXPECT_NEAR(s.mean_penetration, other > 0 ? 0.02 : 0.015, 1e-9);
    EXPECT_EQ(s.max_penetration, w.max_penetration());
    EXPECT_EQ(s.mean_penetration, w.mean_penetration());
  }
  // Nothing touching: both 0.
  World w;
  add_plane(w);
  add_body(w, box(Vec3(0.5, 0.5, 0.5)), Vec3(0, 2, 0));
  ASSERT_TRUE(w.step().ok);
  EXPECT_EQ(w.last_stats().max_penetration, 0.0);
  EXPECT_EQ(w.last_stats().mean_penetration, 0.0);
}

// Every solver's own stages (StepStats::sub_stages) run inside the world stage they name, so per stage their
// times add up to at most that stage's time; the stages that did work in the first step took some (later, e.g.,
// volume's narrow phase finds the images that post-stabilisation computed at the same poses, and reuses them).
TEST(World, SolverSubStagesAddUpWithinTheirStage) {
  const struct {
    const char* solver;
    std::vector<std::string> busy;  // stages that must have taken time in the first step
  } cases[] = {{"lcp", {"velocity_pgs", "positions", "projection", "sleeping"}},
               {"implicit-penalty", {"shell_queries", "forces", "assembly", "linear_solve", "friction_pgs"}},
               {"volume", {"images", "volume_modelling", "velocity_rows", "velocity_pgs", "stabilization"}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.solver);
    World w;
    std::string error;
    ASSERT_TRUE(w.set_solver(c.solver, &error)) << error;
    const int mat = add_material(w, 0.5, 0.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    add_body(w, box(Vec3(0.2, 0.1, 0.2)), Vec3(0, 0.095, 0), 500.0, Quat::Identity(), mat);
    add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0.02, 0.29, 0), 500.0, Quat::Identity(), mat);
    for (int step = 0; step < 5; ++step) {
      ASSERT_TRUE(w.step().ok);
      const StepStats& s = w.last_stats();
      ASSERT_GT(s.sub_stages.size(), 0);
      double sum[3] = {0, 0, 0};
      for (const SubStage& sub : s.sub_stages.stages()) {
        EXPECT_GE(sub.ms, 0.0) << sub.name;
        sum[int(sub.parent)] += sub.ms;
        const std::string name = sub.name;
        if (step == 0 && std::find(c.busy.begin(), c.busy.end(), name) != c.busy.end()) {
          EXPECT_GT(sub.ms, 0.0) << name;
        }
        // The CSV names it <name>_ms: it must not take a fixed column's name.
        for (const char* fixed : {"wall", "broad_phase", "narrow_phase", "graph", "solve", "integrate"})
          EXPECT_NE(name, fixed);
      }
      for (StepStage stage : {StepStage::NarrowPhase, StepStage::Solve, StepStage::Integrate})
        EXPECT_LE(sum[int(stage)], stage_ms(s.profile, stage)) << step_stage_name(stage);
      for (const std::string& name : c.busy) {
        const auto stages = s.sub_stages.stages();
        EXPECT_TRUE(std::any_of(stages.begin(), stages.end(), [&](const SubStage& x) { return name == x.name; }))
            << name;
      }
    }
  }
}

// --- continuous collision -------------------------------------------------------------------------------

namespace {

// A ball of 10 cm (0.52 kg) shot at 30 m/s along x at a fixed wall 5 cm thick (its faces at x = -/+0.025), no
// gravity, h = 1/60 s: half a metre a step, ten wall thicknesses.
World ball_at_wall(std::string_view solver, bool continuous) {
  World w;
  std::string error;
  EXPECT_TRUE(w.set_solver(solver, &error)) << error;
  w.settings.gravity.setZero();
  w.settings.continuous = continuous;
  add_body(w, box(Vec3(0.025, 0.5, 0.5)), Vec3(0, 0, 0), 0.0, Quat::Identity(), 0, BodyKind::Fixed);
  const int ball = add_body(w, sphere(0.05), Vec3(-0.3, 0, 0));
  w.bodies[ball].linear_velocity = Vec3(30, 0, 0);
  return w;
}

struct Shot {
  double deepest = 0.0;  // m: the furthest the ball's front reached past the wall's front face
  double farthest = -1e9;  // m: the furthest x of the ball's centre
  double depth = 0.0;    // m: the ball's overlap with the wall at the end
  double speed = 0.0;    // m/s: its speed at the end
  bool stopped_first = false;  // continuous collision stopped it in the first step
};

Shot shoot(World& w, int steps) {
  Shot s;
  const int ball = 1;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(w.step().ok) << "step " << i;
    if (i == 0) s.stopped_first = w.last_swept_stops() == std::vector<int>{ball};
    const double x = w.bodies[ball].position.x();
    s.farthest = std::max(s.farthest, x);
    s.deepest = std::max(s.deepest, x + 0.05 + 0.025);
  }
  s.depth = std::max(0.0, w.bodies[ball].position.x() + 0.05 + 0.025);
  s.speed = w.bodies[ball].linear_velocity.norm();
  return s;
}

}  // namespace

// The ball stops at the wall under every method: continuous collision puts it at the wall in the first step
// with its speed, and the method's contact stops it there. It never gets behind the wall (its centre never
// passes the front face) nor stays deep in it.
TEST(World, ContinuousCollisionStopsAFastBallAtAThinWallUnderEverySolver) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w = ball_at_wall(info.name, true);
    const Shot s = shoot(w, 60);
    std::printf("[ ball at wall ] %-16s deepest %.2f mm, at the end %.2f mm deep at %.3f m/s\n",
                info.name.c_str(), 1e3 * s.deepest, 1e3 * s.depth, s.speed);
    EXPECT_TRUE(s.stopped_first);
    EXPECT_LT(s.farthest, -0.025) << "the centre passed the wall's face";
    EXPECT_LT(s.deepest, 0.0125);  // a quarter of the wall: the penalty spring gives most
    EXPECT_LT(s.depth, 0.006);     // volume keeps its half pixel of rest depth
    // The penalty spring, compressed by the ball's later steps while continuous collision holds the ball short
    // of passing through, gives part of that back: it leaves at about 5 % of its approach speed, restitution 0.
    EXPECT_LT(s.speed, info.name == "implicit-penalty" ? 0.06 * 30.0 : 0.1);
  }
}

// Without it the ball passes through the wall in one step (lcp, volume) or is caught inside it.
TEST(World, WithoutContinuousCollisionAFastBallTunnels) {
  World w = ball_at_wall("lcp", false);
  const Shot s = shoot(w, 2);
  EXPECT_GT(s.farthest, 0.5);
  EXPECT_FALSE(s.stopped_first);
}

// The default scene under lcp: spheres of 40 cm fall 4 to 8 m onto the boxes (9 to 13 m/s, up to 21 cm a step,
// twenty times the contact margin), so the step before a sphere lands the narrow phase finds no contact for it.
// No contact of a sphere is deeper than a few millimetres at the start of any step.
TEST(World, SpheresOfTheDefaultSceneDoNotSinkIntoTheBoxes) {
  for (bool continuous : {false, true}) {
    World w = load_shipped_scene("default.json");
    w.settings.continuous = continuous;
    double deepest = 0.0;
    for (int i = 0; i < 240; ++i) {
      ASSERT_TRUE(w.step().ok) << "step " << i;
      for (const Contact& c : w.contacts())
        if (w.bodies[c.a].name.starts_with("ball_") || w.bodies[c.b].name.starts_with("ball_"))
          deepest = std::max(deepest, c.depth);
    }
    std::printf("[ default.json ] continuous %s: deepest sphere contact %.1f mm\n", continuous ? "on" : "off",
                1e3 * deepest);
    if (continuous) EXPECT_LT(deepest, 0.005);
    else EXPECT_GT(deepest, 0.05) << "the case this guards: without it the spheres sink";
  }
}

// A resting tower of five boxes moves far less than the contact margin a step under every method: continuous
// collision stops none of it, and it steps bit-identically with the setting on and off.
TEST(World, ContinuousCollisionLeavesARestingTowerBitIdentical) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World on;
    std::string error;
    ASSERT_TRUE(on.set_solver(info.name, &error)) << error;
    add_plane(on);
    for (int i = 0; i < 5; ++i) add_body(on, box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2 + 0.4 * i, 0), 500.0);
    World off = on;
    off.settings.continuous = false;
    for (int i = 0; i < 120; ++i) {
      ASSERT_TRUE(on.step().ok);
      ASSERT_TRUE(off.step().ok);
      EXPECT_TRUE(on.last_swept_stops().empty()) << "step " << i;
    }
    EXPECT_TRUE(same_state(on, off));
  }
}

// A tower at rest under lcp keeps every contact of the step before, and the whole list in place: its contacts are
// continued, and take a material changed while the world runs (the viewer edits them), the same as when the top box
// was moved a little (its pair recycled) or enough to be collided again.
TEST(World, ContactsKeptWholeTakeTheMaterialsAsTheyAreNow) {
  for (const double shift : {0.0, 1e-5, 2e-2}) {
    SCOPED_TRACE("top box moved by " + std::to_string(shift) + " m");
    const bool one_moves = shift > 0.0;
    World w;
    std::string error;
    ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
    const int mat = add_material(w, 0.6, 0.1);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    for (int i = 0; i < 3; ++i)
      add_body(w, box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2 + 0.4 * i, 0), 500.0, Quat::Identity(), mat);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w.step().ok);
    const World before = w;
    w.bodies[3].position.x() += shift;  // the top box
    w.materials[size_t(mat)].friction = 0.2;
    w.materials[size_t(mat)].restitution = 0.3;
    ASSERT_TRUE(w.step().ok);
    if (!one_moves) {
      EXPECT_TRUE(same_state(w, before));  // nothing moved, so no pair was collided
    }
    ASSERT_EQ(w.contacts().size(), before.contacts().size());
    for (size_t k = 0; k < w.contacts().size(); ++k) {
      const Contact& c = w.contacts()[k];
      EXPECT_TRUE(c.persisted) << k;
      EXPECT_DOUBLE_EQ(c.friction, 0.2) << k;
      EXPECT_DOUBLE_EQ(c.restitution, 0.3) << k;
      if (one_moves && c.b == 3) continue;
      EXPECT_EQ(c.position, before.contacts()[k].position) << k;
      EXPECT_EQ(c.depth, before.contacts()[k].depth) << k;
    }
  }
}

// A scene at rest keeps the broad phase's pairs without a sweep; any change of a box or of what is fixed sweeps again.
TEST(World, BroadPhasePairsFollowEveryChangeOfTheBoxes) {
  World w;
  std::string error;
  ASSERT_TRUE(w.set_solver("lcp", &error)) << error;
  add_plane(w);
  for (int i = 0; i < 3; ++i) add_body(w, box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2 + 0.4 * i, 0), 500.0);
  const auto expect_pairs_of_the_step = [&](const char* what, size_t expected) {
    SCOPED_TRACE(what);
    const std::vector<Body> before = w.bodies;
    ASSERT_TRUE(w.step().ok);
    EXPECT_EQ(size_t(w.last_stats().pairs), w.collision_pairs(before).size());
    EXPECT_EQ(size_t(w.last_stats().pairs), expected);
  };
  for (int i = 0; i < 5; ++i) expect_pairs_of_the_step("at rest", 3);
  w.bodies[3].position.x() += 5.0;  // the top box, lifted away from the tower
  w.bodies[3].position.y() = 5.0;
  expect_pairs_of_the_step("top box moved away", 2);
  expect_pairs_of_the_step("top box falling", 2);
  w.bodies[3].position.x() -= 5.0;  // back onto the middle one
  w.bodies[3].position.y() = 1.0;
  w.bodies[3].linear_velocity.setZero();
  expect_pairs_of_the_step("top box back", 3);
  w.bodies[1].kind = BodyKind::Fixed;  // the bottom box's pair with the plane is fixed against fixed
  w.bodies[1].set_mass_properties(0.0, 0.0);
  expect_pairs_of_the_step("bottom box fixed", 2);
}

// A tumbling 20 cm box dropped at 20 m/s onto a fixed plate 1 cm thick (20 m wide) (a third of a metre a step, 33 plate
// thicknesses) lands on it under every method: never below its top face, and no deeper in it than the method's
// own contact depth and a quarter of the plate's half thickness.
TEST(World, ContinuousCollisionLandsATumblingBoxOnAThinPlate) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w;
    std::string error;
    ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
    add_body(w, box(Vec3(10, 0.005, 10)), Vec3(0, 0, 0), 0.0, Quat::Identity(), 0, BodyKind::Fixed);
    const int b = add_body(w, box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 1, 0), 500.0,
                           Quat(Eigen::AngleAxisd(0.4, Vec3(1, 0, 1).normalized())));
    w.bodies[b].linear_velocity = Vec3(0, -20, 0);
    w.bodies[b].angular_velocity = Vec3(3, 0, 2);
    double lowest = 1e9;
    for (int i = 0; i < 180; ++i) {  // it lands on a corner and slides off a few metres
      ASSERT_TRUE(w.step().ok) << "step " << i;
      const Body& body = w.bodies[b];
      lowest = std::min(lowest, shape_aabb(body.shape, body.position, body.orientation).lo.y());
    }
    std::printf("[ box on plate ] %-16s lowest corner %.2f mm below the plate's top, at rest %.2f m/s\n",
                info.name.c_str(), 1e3 * (0.005 - lowest), w.bodies[b].linear_velocity.norm());
    EXPECT_GT(w.bodies[b].position.y(), 0.005) << "below the plate";
    // Put in at the method's depth, then a contact may deepen by that or a quarter of the plate's half thickness.
    const double depth = w.solver().continuous_depth();
    const bool within = lowest > 0.005 - (depth + std::max(depth, 0.25 * 0.005)) - 1e-3;
    EXPECT_LT(w.bodies[b].linear_velocity.norm(), 0.5);
    // Known fault under implicit-penalty, listed so that this fails once it is fixed: the box lands and rests on
    // the plate (before the definite exact gradients it fell through), but its corner reaches 15.9 mm below the
    // 10 mm plate's top on landing. Cause not yet established; the likely one is that the point shells do not see
    // a corner in the plate until it is centimetres deep (a point sits on the corner only where the spacing allows).
    if (info.name == "implicit-penalty")
      EXPECT_FALSE(within) << "implicit-penalty holds the corner at the plate now: drop its exception";
    else
      EXPECT_TRUE(within) << "lowest corner " << 1e3 * (0.005 - lowest) << " mm below the plate's top";
  }
}

// Two boxes joined by a ball joint, thrown at 30 m/s at the wall, are stopped together in the step they would
// pass it (the joint not pulled apart by stopping one of them alone), and neither passes the wall after.
TEST(World, ContinuousCollisionStopsJointedBodiesTogether) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    SceneLoadResult r = load_scene_text(R"({"format": 1, "gravity": [0, 0, 0], "bodies": [
        {"name": "wall", "shape": {"type": "box", "half_extents": [0.025, 0.5, 0.5]}, "fixed": true},
        {"name": "a", "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}, "density": 500,
         "position": [-0.3, 0, 0], "linear_velocity": [30, 0, 0]},
        {"name": "b", "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}, "density": 500,
         "position": [-0.4, 0, 0], "linear_velocity": [30, 0, 0]}],
        "joints": [{"type": "ball", "bodies": ["a", "b"], "anchor": [-0.35, 0, 0]}]})",
                                        "jointed.json");
    ASSERT_TRUE(r.ok()) << r.error;
    World w = std::move(r.world);
    std::string error;
    ASSERT_TRUE(w.set_solver(info.name, &error)) << error;
    ASSERT_TRUE(w.step().ok);
    EXPECT_EQ(w.last_swept_stops(), (std::vector<int>{1, 2}));
    Vec3 on_a, on_b;
    joint_anchors_world(w.joints[0], w.bodies, on_a, on_b);
    EXPECT_LT((on_a - on_b).norm(), 1e-6);
    for (int i = 0; i < 30; ++i) {
      ASSERT_TRUE(w.step().ok);
      for (int k : {1, 2}) {
        const Body& body = w.bodies[k];
        EXPECT_LT(shape_aabb(body.shape, body.position, body.orientation).hi.x(), 0.0) << "step " << i;
      }
    }
  }
}

}  // namespace cl

namespace cl {

// collision_pairs finds, at any poses, the pairs a step's narrow phase collides there: after a step from those
// poses, exactly the contact graph's live edges less the jointed pairs (a column of three boxes on the ground,
// the upper two hinged together: they touch but do not collide); and it changes nothing.
TEST(World, CollisionPairsAreThePairsTheStepCollides) {
  World start;
  add_plane(start);
  for (int i = 0; i < 3; ++i) add_body(start, box(Vec3(0.5, 0.5, 0.5)), Vec3(0.01 * i, 0.5 + i, 0));
  start.joints.push_back(make_joint(JointType::Hinge, start.bodies, 2, 3, Vec3(0, 2.5, 0), Vec3::UnitZ(), Vec3::UnitX()));
  World w = start;
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(w.step().ok);
  const std::vector<Body> before = w.bodies;
  const std::vector<BodyPair> pairs = w.collision_pairs(before);
  World untouched = start;
  for (int s = 0; s < 30; ++s) ASSERT_TRUE(untouched.step().ok);
  ASSERT_TRUE(w.step().ok);
  ASSERT_TRUE(untouched.step().ok);
  const std::vector<BodyPair> joined = joined_pairs(w.joints);
  std::vector<BodyPair> collided;
  int joined_edges = 0;
  for (const GraphEdge& e : w.graph().edges()) {
    if (e.events & kVanishedProximity) continue;
    if (std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b})) ++joined_edges;
    else collided.push_back({e.a, e.b});
  }
  EXPECT_GT(joined_edges, 0);
  std::sort(collided.begin(), collided.end());
  EXPECT_FALSE(pairs.empty());
  EXPECT_EQ(pairs, collided);
  for (const BodyPair& p : pairs) EXPECT_FALSE(std::binary_search(joined.begin(), joined.end(), p));
  for (size_t i = 0; i < w.bodies.size(); ++i) EXPECT_EQ(w.bodies[i].position, untouched.bodies[i].position);
}

}  // namespace cl
