// The residuals of telemetry/residuals.h on hand-built contact reports: each shows the violation it names, and
// none where the laws hold.
#include "telemetry/residuals.h"

#include <gtest/gtest.h>

namespace cl {
namespace {

// A contact of b on a along +y at the origin, mu 0.5, resting: the normal force 10 N, no friction, no motion.
ReportedContact resting() {
  ReportedContact c;
  c.a = 0;
  c.b = 1;
  c.normal = Vec3(0, 1, 0);
  c.depth = 0.001;
  c.normal_force = Vec3(0, 10, 0);
  c.friction = 0.5;
  return c;
}

ContactResiduals of(const ReportedContact& c, double dt = 0.01) {
  ContactReport r;
  r.dt = dt;
  r.contacts.push_back(c);
  return contact_residuals(r);
}

TEST(Residuals, NoneWhereTheLawsHold) {
  // At rest, inside the cone.
  ReportedContact c = resting();
  c.friction_force = Vec3(3, 0, 4);  // |f_t| = 5 = mu f_n: on the cone's edge, sticking
  ContactResiduals r = of(c);
  EXPECT_EQ(r.signorini, 0.0);
  EXPECT_EQ(r.adhesion, 0.0);
  EXPECT_EQ(r.cone, 0.0);
  EXPECT_EQ(r.dissipation, 0.0);
  EXPECT_EQ(r.complementarity, 0.0);
  EXPECT_EQ(r.normal_force, 10.0);
  // Sliding along +x on the cone's edge against the slip: maximum dissipation, complementarity.
  c.velocity = Vec3(2, 0, 0);
  c.friction_force = Vec3(-5, 0, 0);
  r = of(c);
  EXPECT_EQ(r.cone, 0.0);
  EXPECT_EQ(r.dissipation, 0.0);
  EXPECT_EQ(r.complementarity, 0.0);
  // Separating without force.
  ReportedContact s = resting();
  s.normal_force = Vec3::Zero();
  s.depth = -0.01;
  s.velocity = Vec3(0, 1, 0);
  r = of(s);
  EXPECT_EQ(r.signorini, 0.0);
  EXPECT_EQ(r.complementarity, 0.0);
}

TEST(Residuals, FrictionOutsideTheCone) {
  ReportedContact c = resting();
  c.friction_force = Vec3(6, 0, 8);  // |f_t| = 10 > mu f_n = 5
  EXPECT_DOUBLE_EQ(of(c).cone, 5.0);  // N
}

TEST(Residuals, GapAndForceBothNonZero) {
  ReportedContact c = resting();
  c.depth = -0.02;                  // a 2 cm gap at the start
  c.velocity = Vec3(0, -1, 0);      // closing 1 cm over the 0.01 s step: a 1 cm gap left at its end
  const ContactResiduals r = of(c);
  EXPECT_NEAR(r.signorini, 0.01, 1e-12);  // m, the force-weighted gap
  // And a pulling force is adhesion.
  c.normal_force = Vec3(0, -4, 0);
  EXPECT_DOUBLE_EQ(of(c).adhesion, 4.0);
}

TEST(Residuals, FrictionAlongTheSlip) {
  ReportedContact c = resting();
  c.velocity = Vec3(2, 0, 0);
  c.friction_force = Vec3(5, 0, 0);  // pushes along the slip: it should oppose it
  const ContactResiduals r = of(c);
  EXPECT_DOUBLE_EQ(r.dissipation, 20.0);      // W: |f_t||v_t| + f_t . v_t
  EXPECT_EQ(r.cone, 0.0);                     // its size is within the cone
  EXPECT_DOUBLE_EQ(r.complementarity, 20.0);  // |f_n mu |v_t| + f_t . v_t| = |10 + 10|
}

TEST(Residuals, PushingWhileSeparatingBreaksComplementarity) {
  ReportedContact c = resting();
  c.depth = 0.0;
  c.velocity = Vec3(0, 0.5, 0);  // leaves at 0.5 m/s while pushed with 10 N
  EXPECT_DOUBLE_EQ(of(c).complementarity, 5.0);  // W
}

}  // namespace
}  // namespace cl
