// Every method fills the contact report (solvers/report_contacts.h, Solver::report_contacts): every field set and
// finite, the forces on a resting box carrying its weight, and under lcp the residuals of a resting box zero.
#include "solvers/report_contacts.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "solvers/registry.h"
#include "support/builders.h"

namespace cl {
namespace {

using test::add_body;
using test::add_material;
using test::add_plane;
using test::box;

// A 0.4 x 0.2 x 0.4 m box (32 kg) resting on a plane, mu 0.5.
World resting_box(const std::string& solver) {
  World w;
  const int mat = add_material(w, 0.5, 0.0);
  add_plane(w, Vec3(0, 1, 0), 0.0, mat);
  add_body(w, box(Vec3(0.2, 0.1, 0.2)), Vec3(0, 0.1, 0), 1000.0, Quat::Identity(), mat);
  w.settings.dt = 1.0 / 60.0;
  EXPECT_TRUE(w.set_solver(solver, nullptr));
  return w;
}

bool finite(const Vec3& v) { return v.allFinite(); }

TEST(ContactReport, EveryMethodFillsEveryField) {
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w = resting_box(info.name);
    const double weight = w.bodies[1].mass * 9.81;
    double sum_fn = 0.0;
    int window = 0;
    for (int step = 0; step < 150; ++step) {
      ASSERT_TRUE(w.step().ok);
      const ContactReport& report = w.contact_report();
      EXPECT_EQ(report.dt, w.settings.dt);
      if (step < 90) continue;  // settled after 1.5 s
      ASSERT_FALSE(report.contacts.empty());
      double fn = 0.0;
      for (const ReportedContact& c : report.contacts) {
        EXPECT_EQ(c.a, 0);
        EXPECT_EQ(c.b, 1);
        EXPECT_TRUE(finite(c.point) && finite(c.normal) && finite(c.normal_force) && finite(c.friction_force) &&
                    finite(c.velocity) && std::isfinite(c.depth));
        EXPECT_NEAR(c.normal.norm(), 1.0, 1e-9);
        EXPECT_NEAR(c.normal.y(), 1.0, 1e-3);  // the plane's normal, from the plane (a) to the box (b)
        EXPECT_NEAR(c.normal_force.cross(c.normal).norm(), 0.0, 1e-9 * weight);  // along the normal
        EXPECT_NEAR(c.friction_force.dot(c.normal), 0.0, 1e-9 * weight);       // in the tangent plane
        EXPECT_EQ(c.friction, 0.5);
        EXPECT_LT(std::abs(c.point.y()), 0.02);          // on the plane, within the contact's depth
        EXPECT_LT(std::abs(c.point.x()), 0.2 + 1e-6);    // under the box
        EXPECT_LT(std::abs(c.point.z()), 0.2 + 1e-6);
        EXPECT_LT(c.depth, 0.02);
        fn += c.normal_value();
      }
      sum_fn += fn;
      ++window;
    }
    // Over the last second the contact forces carry the weight: the box's momentum is the same at both ends of
    // the window (at rest), so the mean force is m g to within the box's change of momentum over it.
    const double mean = sum_fn / window;
    const double momentum = w.bodies[1].mass * w.bodies[1].linear_velocity.norm();
    EXPECT_NEAR(mean, weight, 0.01 * weight + momentum / (window * w.settings.dt)) << "mean normal force " << mean;
  }
}

TEST(ContactReport, EveryMethodReportsTheSlipAndTheFrictionOfASlidingBox) {
  // The box of resting_box, placed on the plane sliding along x at 2 m/s, slides for about 0.4 s: every contact
  // that carries load reports the slip (the box's velocity, along x) and a friction force against it, and the
  // friction forces add up to mu times the normal forces. A field a method left at its default (no slip, no
  // friction) fails here.
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w = resting_box(info.name);
    Body& box = w.bodies[1];
    box.linear_velocity = Vec3(2, 0, 0);
    const double weight = box.mass * 9.81;
    for (int step = 0; step < 15; ++step) {
      const double start = box.position.x();
      ASSERT_TRUE(w.step().ok);
      if (step < 3) continue;  // the contact's first steps
      const double speed = box.linear_velocity.x();
      ASSERT_GT(speed, 0.5);
      Vec3 friction = Vec3::Zero();
      double fn = 0.0;
      for (const ReportedContact& c : w.contact_report().contacts) {
        fn += c.normal_value();
        friction += c.friction_force;
        if (c.normal_value() < 0.01 * weight) continue;
        EXPECT_NEAR(c.velocity.x(), speed, 0.05 * speed);  // the box's point slips at the box's speed
        EXPECT_LT(c.friction_force.x(), -0.5 * c.friction * c.normal_value());  // against the slip
        // Under the box, somewhere along its way in the step (found at its start, or during its substeps).
        EXPECT_GT(c.point.x(), start - 0.2 - 1e-6);
        EXPECT_LT(c.point.x(), box.position.x() + 0.2 + 1e-6);
      }
      EXPECT_NEAR(fn, weight, 0.05 * weight);
      EXPECT_NEAR(friction.x(), -0.5 * fn, 0.03 * 0.5 * fn) << "step " << step;
      EXPECT_LT(std::abs(friction.z()), 0.01 * fn);
    }
  }
}

TEST(ContactReport, FrictionlessContactsReportNoFriction) {
  // Two balls stacked on a plane, mu 0 (the thesis's scene S15, scaled down): every force a method applies at a
  // frictionless contact is along its normal, so none of it may be reported as friction.
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w;
    const int mat = add_material(w, 0.0, 0.0);
    add_plane(w, Vec3(0, 1, 0), 0.0, mat);
    add_body(w, test::sphere(0.1), Vec3(0, 0.1, 0), 500.0, Quat::Identity(), mat);
    add_body(w, test::sphere(0.2), Vec3(0, 0.4, 0), 1000.0, Quat::Identity(), mat);
    w.settings.dt = 1.0 / 60.0;
    ASSERT_TRUE(w.set_solver(info.name, nullptr));
    const double weight = (w.bodies[1].mass + w.bodies[2].mass) * 9.81;
    int loaded = 0;
    for (int step = 0; step < 90; ++step) {
      ASSERT_TRUE(w.step().ok);
      if (step < 30) continue;
      for (const ReportedContact& c : w.contact_report().contacts) {
        EXPECT_EQ(c.friction, 0.0);
        if (c.normal_value() < 0.01 * weight) continue;
        ++loaded;
        EXPECT_LT(c.friction_force.norm(), 1e-3 * c.normal_value())
            << "step " << step << ", bodies " << c.a << "-" << c.b << ": normal force " << c.normal_value();
      }
    }
    EXPECT_GT(loaded, 60);  // both contacts carry load in most steps
  }
}

TEST(ContactReport, ReportedForcesBalanceTheMomentumOfALanding) {
  // A box resting on the plane is pushed into it at 1 m/s: over the next 0.5 s the reported normal forces, times
  // the step, add up to the change of its momentum along the normal plus its weight's impulse (nothing else acts).
  // Every method reports the force it applied, so no part of it (a penalty's damping) may be counted twice.
  for (const SolverInfo& info : solver_registry()) {
    SCOPED_TRACE(info.name);
    World w = resting_box(info.name);
    for (int step = 0; step < 60; ++step) ASSERT_TRUE(w.step().ok);  // settled
    Body& box = w.bodies[1];
    box.linear_velocity.y() = -1.0;
    const double before = box.mass * box.linear_velocity.y();
    double impulse = 0.0;
    const int steps = 30;
    for (int step = 0; step < steps; ++step) {
      ASSERT_TRUE(w.step().ok);
      for (const ReportedContact& c : w.contact_report().contacts) impulse += c.normal_force.y() * w.settings.dt;
    }
    const double weight_impulse = box.mass * 9.81 * steps * w.settings.dt;
    const double change = box.mass * box.linear_velocity.y() - before;
    EXPECT_NEAR(impulse, change + weight_impulse, 0.02 * (std::abs(change) + weight_impulse))
        << "reported " << impulse << " N s, momentum change " << change << " + weight " << weight_impulse;
  }
}

TEST(ContactReport, LcpRestingSphereHoldsTheLaws) {
  // One contact, statically determinate: the laws hold and every residual is zero (to rounding).
  World w;
  const int mat = add_material(w, 0.5, 0.0);
  add_plane(w, Vec3(0, 1, 0), 0.0, mat);
  add_body(w, test::sphere(0.2), Vec3(0, 0.2, 0), 1000.0, Quat::Identity(), mat);
  w.settings.dt = 1.0 / 60.0;
  ASSERT_TRUE(w.set_solver("lcp", nullptr));
  const double weight = w.bodies[1].mass * 9.81;
  for (int step = 0; step < 120; ++step) ASSERT_TRUE(w.step().ok);
  const ContactResiduals& r = w.last_stats().residuals;
  EXPECT_NEAR(r.normal_force, weight, 1e-3 * weight);
  EXPECT_LT(r.signorini, 1e-9);  // m: closed to within rounding (a nanometre)
  EXPECT_EQ(r.adhesion, 0.0);
  EXPECT_LT(r.cone, 1e-9 * weight);
  // The power residuals against the weight times a speed of 1 mm/s: the sphere rests.
  EXPECT_LT(r.dissipation, 1e-3 * weight * 1e-3);
  EXPECT_LT(r.complementarity, 1e-3 * weight * 1e-3);
}

TEST(ContactReport, LcpRestingBoxCarriesItsWeightWithinTheFrictionBox) {
  // Four corner contacts share the weight in a way the laws leave open (statically indeterminate). lcp's solve
  // leaves friction at the corners that cancels between them, and its friction box bounds each of the two
  // tangent directions by mu f_n, not their sum: a corner's friction may reach sqrt(2) mu f_n, which the cone
  // residual reports.
  World w = resting_box("lcp");
  const double weight = w.bodies[1].mass * 9.81;
  for (int step = 0; step < 120; ++step) ASSERT_TRUE(w.step().ok);
  const ContactResiduals& r = w.last_stats().residuals;
  EXPECT_NEAR(r.normal_force, weight, 1e-3 * weight);
  EXPECT_LT(r.signorini, 1e-9);
  EXPECT_EQ(r.adhesion, 0.0);
  Vec3 net = Vec3::Zero();
  for (const ReportedContact& c : w.contact_report().contacts) {
    EXPECT_LE(c.friction_force.norm(), std::sqrt(2.0) * c.friction * c.normal_value() * (1 + 1e-9));
    net += c.friction_force;
  }
  EXPECT_LT(net.norm(), 1e-6 * weight);  // nothing pushes the box sideways
  EXPECT_LT(r.dissipation, 1e-3 * weight * 1e-3);  // it rests: no slip for friction to oppose
}

TEST(ContactReport, MomentumMeasuredOnlyWhereNothingActsFromOutside) {
  // Two spheres colliding in empty space, no gravity: momentum is measured and conserved by lcp.
  World w;
  const int mat = add_material(w, 0.3, 0.5);
  add_body(w, test::sphere(0.1), Vec3(-0.3, 0, 0), 1000.0, Quat::Identity(), mat);
  add_body(w, test::sphere(0.1), Vec3(0.3, 0.05, 0), 500.0, Quat::Identity(), mat);
  w.bodies[0].linear_velocity = Vec3(2, 0, 0);
  w.settings.gravity = Vec3::Zero();
  w.settings.dt = 0.01;
  ASSERT_TRUE(w.set_solver("lcp", nullptr));
  double largest = 0.0;
  bool touched = false;
  for (int step = 0; step < 40; ++step) {
    ASSERT_TRUE(w.step().ok);
    const StepStats& s = w.last_stats();
    ASSERT_FALSE(std::isnan(s.momentum_error));
    largest = std::max(largest, s.momentum_error);
    touched = touched || s.residuals.normal_force > 0.0;
  }
  EXPECT_TRUE(touched);
  EXPECT_LT(largest, 1e-9 * w.bodies[0].mass * 2.0);
  // With gravity it is not measured.
  w.settings.gravity = Vec3(0, -9.81, 0);
  ASSERT_TRUE(w.step().ok);
  EXPECT_TRUE(std::isnan(w.last_stats().momentum_error));
}

}  // namespace
}  // namespace cl
