// ODE (Debian's libode-dev, double precision): dWorldQuickStep (its iterative projected Gauss-Seidel) at the
// scene's dt, a hash space, contacts made in the near callback with ContactLab's friction and restitution.
#include <ode/ode.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "joints.h"
#include "peer.h"
#include "scene/mesh_source.h"

#ifndef CONTACTLAB_ODE_VERSION
#define CONTACTLAB_ODE_VERSION "?"
#endif

namespace peers {

namespace {

// The most contact points ODE may return for one pair (its box-box gives up to 8; others fewer).
constexpr int kMaxContactsPerPair = 8;
// How ODE counts a joint's coordinate against ContactLab's (body b against body a, joints.h), measured: a slider's
// position and a hinge's angle as body 1 against body 2, the other way round. But ODE swaps a joint attached to a
// fixed (null) body 1, and a hinge's stops, and the velocity of an angular or linear motor, then count in the
// swapped bodies' terms (dJointGetHingeAngle alone turns the angle back), that is as ContactLab does.
double stop_sign(cl::JointType type, bool swapped) { return type == cl::JointType::Hinge && swapped ? 1.0 : -1.0; }
double motor_sign(bool swapped) { return swapped ? 1.0 : -1.0; }

void set_quat(dQuaternion q, const cl::Quat& r) {
  q[0] = r.w();
  q[1] = r.x();
  q[2] = r.y();
  q[3] = r.z();
}

class OdePeer final : public Peer {
 public:
  OdePeer() { dInitODE2(0); }
  ~OdePeer() override {
    if (contact_group_) dJointGroupDestroy(contact_group_);
    if (space_) dSpaceDestroy(space_);  // destroys the geoms in it
    if (world_) dWorldDestroy(world_);  // destroys the bodies
    dCloseODE();
  }
  std::string name() const override { return "ode"; }
  std::string version() const override { return std::string("ODE ") + CONTACTLAB_ODE_VERSION; }

  bool build(const cl::World& w, const PeerSettings& settings, std::string* error) override {
    scene_ = &w;
    settings_ = settings;
    // QuickStep reorders its rows at random from ODE's one global seed: reset it, so a run does not depend on
    // the runs before it in the process.
    dRandSetSeed(0);
    world_ = dWorldCreate();
    space_ = dHashSpaceCreate(nullptr);
    contact_group_ = dJointGroupCreate(0);
    dWorldSetGravity(world_, w.settings.gravity.x(), w.settings.gravity.y(), w.settings.gravity.z());
    dWorldSetQuickStepNumIterations(world_, settings.iterations);
    dWorldSetAutoDisableFlag(world_, 0);  // every body awake, as ContactLab's with sleeping=false
    dt_ = w.settings.dt;

    bodies_.assign(w.bodies.size(), nullptr);
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      const cl::Body& b = w.bodies[i];
      dGeomID geom = nullptr;
      switch (b.shape.type) {
        case cl::ShapeType::Plane: {
          // ODE's planes are not placeable: the world-frame half space a x + b y + c z <= d.
          cl::Vec3 n;
          double d = 0;
          world_plane(b, n, d);
          geom = dCreatePlane(space_, n.x(), n.y(), n.z(), d);
          break;
        }
        case cl::ShapeType::Sphere: geom = dCreateSphere(space_, b.shape.radius); break;
        case cl::ShapeType::Box:
          geom = dCreateBox(space_, 2 * b.shape.half_extents.x(), 2 * b.shape.half_extents.y(), 2 * b.shape.half_extents.z());
          break;
        // ODE's capsule lies along its z axis, with `length` between the hemisphere centres.
        case cl::ShapeType::Capsule: geom = dCreateCapsule(space_, b.shape.radius, 2 * b.shape.half_height); break;
        case cl::ShapeType::Mesh: {
          // A procedural cylinder (ODE's lies along its z axis) or a convex mesh (check_convertible refuses other
          // meshes).
          if (const std::optional<cl::CylinderSize> c = cl::procedural_cylinder(b)) {
            geom = dCreateCylinder(space_, c->radius, 2 * c->half_height);
          } else if (const cl::TriangleMesh* mesh = cl::convex_mesh(b)) {
            geom = make_convex(*mesh);
          } else {
            *error = "ode: a mesh that does not bound a convex solid is not converted";
            return false;
          }
          break;
        }
      }
      dGeomSetData(geom, reinterpret_cast<void*>(i));
      // ContactLab's capsules and cylinders lie along their y axis, ODE's along z.
      const bool along_y = b.shape.type == cl::ShapeType::Capsule || cl::procedural_cylinder(b).has_value();
      dQuaternion z_to_y;
      set_quat(z_to_y, rotation_from_z(cl::Vec3::UnitY()));
      if (b.is_dynamic()) {
        dBodyID body = dBodyCreate(world_);
        dMass mass;
        // ContactLab's body-frame inertia, whole: a mesh's frame need not be its principal axes.
        const cl::Mat3& in = b.inertia_body;
        dMassSetParameters(&mass, b.mass, 0, 0, 0, in(0, 0), in(1, 1), in(2, 2), in(0, 1), in(0, 2), in(1, 2));
        dBodySetMass(body, &mass);
        dBodySetPosition(body, b.position.x(), b.position.y(), b.position.z());
        dQuaternion q;
        set_quat(q, b.orientation);
        dBodySetQuaternion(body, q);
        dBodySetLinearVel(body, b.linear_velocity.x(), b.linear_velocity.y(), b.linear_velocity.z());
        dBodySetAngularVel(body, b.angular_velocity.x(), b.angular_velocity.y(), b.angular_velocity.z());
        dGeomSetBody(geom, body);
        if (along_y) dGeomSetOffsetQuaternion(geom, z_to_y);
        bodies_[i] = body;
      } else if (b.shape.type != cl::ShapeType::Plane) {
        // A fixed body: a geom without a body, at the body's pose (a capsule or cylinder turned from z to y first).
        dGeomSetPosition(geom, b.position.x(), b.position.y(), b.position.z());
        dQuaternion q;
        set_quat(q, along_y ? b.orientation * rotation_from_z(cl::Vec3::UnitY()) : b.orientation);
        dGeomSetQuaternion(geom, q);
      }
    }
    make_joints(w);
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", settings.restitution_threshold);
    notes_ = {"ode: dWorldQuickStep at " + std::to_string(settings.iterations) +
              " iterations, ERP 0.2 and CFM 1e-10 (its defaults in double precision), contacts with friction "
              "pyramid dContactApprox1, "
              "up to " + std::to_string(kMaxContactsPerPair) + " points per pair, no bounce below " +
              threshold + " m/s (lcp's restitution_threshold); "
              "auto-disable off"};
    if (!w.joints.empty())
      notes_.push_back("ode: hinge, slider, ball and fixed joints with their limits as ODE's own, ERP 0.2; motors "
                       "and servos as an angular or linear motor on the joint's axis, set each step to the row of "
                       "ContactLab's drive (a servo's implicit PD spring-damper as the motor's velocity and CFM)");
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
    if (drives_->any()) set_drives();
    contacts_ = &contacts;
    dSpaceCollide(space_, this, &OdePeer::near_callback);
    dWorldQuickStep(world_, dt_);
    dJointGroupEmpty(contact_group_);
    contacts.finish();
    (void)error;
    return true;
  }

  void read_state(std::vector<PeerBodyState>& out) const override {
    out.resize(bodies_.size());
    for (size_t i = 0; i < bodies_.size(); ++i) {
      const cl::Body& b = scene_->bodies[i];
      if (!bodies_[i]) {
        out[i] = {b.position, b.orientation, cl::Vec3::Zero(), cl::Vec3::Zero()};
        continue;
      }
      const dReal* p = dBodyGetPosition(bodies_[i]);
      const dReal* q = dBodyGetQuaternion(bodies_[i]);
      const dReal* v = dBodyGetLinearVel(bodies_[i]);
      const dReal* w = dBodyGetAngularVel(bodies_[i]);
      out[i] = {cl::Vec3(p[0], p[1], p[2]), cl::Quat(q[0], q[1], q[2], q[3]), cl::Vec3(v[0], v[1], v[2]),
                cl::Vec3(w[0], w[1], w[2])};
    }
  }

 private:
  static void near_callback(void* data, dGeomID g1, dGeomID g2) {
    static_cast<OdePeer*>(data)->collide(g1, g2);
  }
  // A convex mesh as ODE's convex polyhedron: a plane and a polygon per triangle (counter-clockwise seen from
  // outside), which ODE keeps pointers to, so they are kept here.
  dGeomID make_convex(const cl::TriangleMesh& mesh) {
    ConvexData& d = *convex_.emplace_back(std::make_unique<ConvexData>());
    for (const cl::Vec3& v : mesh.vertices) d.points.insert(d.points.end(), {v.x(), v.y(), v.z()});
    unsigned faces = 0;
    for (size_t t = 0; t < mesh.triangles.size(); ++t) {
      const cl::Vec3 n = mesh.normal(int(t));
      if (n.isZero(0.0)) continue;  // a degenerate triangle bounds nothing (TriangleMesh::convex skips it too)
      ++faces;
      const auto& tri = mesh.triangles[t];
      d.planes.insert(d.planes.end(), {n.x(), n.y(), n.z(), n.dot(mesh.vertices[size_t(tri[0])])});
      d.polygons.insert(d.polygons.end(), {3u, unsigned(tri[0]), unsigned(tri[1]), unsigned(tri[2])});
    }
    return dCreateConvex(space_, d.planes.data(), faces, d.points.data(),
                         unsigned(mesh.vertices.size()), d.polygons.data());
  }

  // The scene's joints as ODE's own joints (joints.h), attached to null for a fixed body, with their limits as the
  // joints' stops. A hinge's or slider's drive is a joint of its own, an angular or linear motor on the joint's
  // axis (as carried by body 1) without stops: at a stop ODE's hinge and slider no longer solve their motor but
  // push with its whole force bound, away from the stop as soon as the drive's rate (which ContactLab's limits
  // bound) turns back, and without bound for a servo without one.
  void make_joints(const cl::World& w) {
    drives_ = std::make_unique<JointDrives>(w);
    joined_ = cl::joined_pairs(w.joints);
    drive_joints_.clear();
    drive_signs_.clear();
    for (const cl::Joint& j : w.joints) {
      const JointStart start = joint_start(j, w.bodies);
      const cl::Vec3& p = start.anchor;
      const cl::Vec3& s = start.axis;
      dBodyID a = bodies_[size_t(j.body_a)], b = bodies_[size_t(j.body_b)];
      const bool swapped = a == nullptr;
      dJointID id = nullptr;
      switch (j.type) {
        case cl::JointType::Hinge: id = dJointCreateHinge(world_, nullptr); break;
        case cl::JointType::Slider: id = dJointCreateSlider(world_, nullptr); break;
        case cl::JointType::Ball: id = dJointCreateBall(world_, nullptr); break;
        default: id = dJointCreateFixed(world_, nullptr); break;  // check_convertible leaves fixed joints only
      }
      dJointAttach(id, a, b);
      // The anchor and axis are set after attaching: ODE takes the angle's zero and the slider's origin there.
      switch (j.type) {
        case cl::JointType::Hinge:
          dJointSetHingeAnchor(id, p.x(), p.y(), p.z());
          dJointSetHingeAxis(id, s.x(), s.y(), s.z());
          break;
        case cl::JointType::Slider: dJointSetSliderAxis(id, s.x(), s.y(), s.z()); break;
        case cl::JointType::Ball: dJointSetBallAnchor(id, p.x(), p.y(), p.z()); break;
        default: dJointSetFixed(id); break;
      }
      const bool hinge = j.type == cl::JointType::Hinge, slider = j.type == cl::JointType::Slider;
      if (j.limit.enabled && (hinge || slider)) {
        const auto [lo, hi] = engine_limits(j, start.coordinate, stop_sign(j.type, swapped));
        if (hinge) {
          dJointSetHingeParam(id, dParamLoStop, lo);
          dJointSetHingeParam(id, dParamHiStop, hi);
        } else {
          dJointSetSliderParam(id, dParamLoStop, lo);
          dJointSetSliderParam(id, dParamHiStop, hi);
        }
      }
      dJointID drive = nullptr;
      if ((j.motor.enabled || j.servo.enabled) && (hinge || slider)) {
        drive = hinge ? dJointCreateAMotor(world_, nullptr) : dJointCreateLMotor(world_, nullptr);
        dJointAttach(drive, a, b);
        if (hinge) {
          dJointSetAMotorMode(drive, dAMotorUser);
          dJointSetAMotorNumAxes(drive, 1);
          dJointSetAMotorAxis(drive, 0, 1, s.x(), s.y(), s.z());
        } else {
          dJointSetLMotorNumAxes(drive, 1);
          dJointSetLMotorAxis(drive, 0, 1, s.x(), s.y(), s.z());
        }
      }
      drive_joints_.push_back(drive);
      drive_signs_.push_back(motor_sign(swapped));
    }
  }

  // Each drive's row at the state before the step, as its motor: its target rate the motor's velocity, its impulse
  // bound over h the force bound, and its cfm (velocity per impulse) times h the motor's CFM, since ODE's is per
  // unit force. A row without cfm keeps ODE's own (the world's CFM).
  void set_drives() {
    drives_->update(*this);
    for (size_t k = 0; k < drive_joints_.size(); ++k) {
      dJointID drive = drive_joints_[k];
      if (!drive) continue;
      const std::optional<cl::JointRow> row = drives_->drive_row(k, dt_);
      const bool angular = dJointGetType(drive) == dJointTypeAMotor;
      const auto set = [&](int param, dReal value) {
        if (angular) dJointSetAMotorParam(drive, param, value);
        else dJointSetLMotorParam(drive, param, value);
      };
      if (!row) {
        set(dParamFMax, 0);  // off this step (a motor of max_force 0)
        continue;
      }
      set(dParamVel, drive_signs_[k] * row->target);
      set(dParamFMax, std::min(row->hi, -row->lo) / dt_);
      if (row->cfm > 0) set(dParamCFM, row->cfm * dt_);
    }
  }

  void collide(dGeomID g1, dGeomID g2) {
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    if (!b1 && !b2) return;  // two fixed bodies
    // Bodies a joint joins do not collide, as in ContactLab (also where one of them is fixed).
    const size_t i1 = reinterpret_cast<size_t>(dGeomGetData(g1)), i2 = reinterpret_cast<size_t>(dGeomGetData(g2));
    if (!joined_.empty() &&
        std::binary_search(joined_.begin(), joined_.end(), cl::BodyPair{int(std::min(i1, i2)), int(std::max(i1, i2))}))
      return;
    dContact contact[kMaxContactsPerPair];
    const int n = dCollide(g1, g2, kMaxContactsPerPair, &contact[0].geom, sizeof(dContact));
    if (n == 0) return;
    const cl::Body& a = scene_->bodies[reinterpret_cast<size_t>(dGeomGetData(g1))];
    const cl::Body& b = scene_->bodies[reinterpret_cast<size_t>(dGeomGetData(g2))];
    const double mu = combined_friction(*scene_, a, b);
    const double bounce = combined_restitution(*scene_, a, b);
    for (int k = 0; k < n; ++k) {
      dSurfaceParameters& s = contact[k].surface;
      s.mode = dContactApprox1 | (bounce > 0 ? dContactBounce : 0);
      s.mu = mu;
      s.bounce = bounce;
      s.bounce_vel = settings_.restitution_threshold;
      contacts_->add(contact[k].geom.depth);
      dJointID j = dJointCreateContact(world_, contact_group_, &contact[k]);
      dJointAttach(j, b1, b2);
    }
  }

  const cl::World* scene_ = nullptr;
  PeerSettings settings_;
  dWorldID world_ = nullptr;
  dSpaceID space_ = nullptr;
  dJointGroupID contact_group_ = nullptr;
  std::vector<dBodyID> bodies_;  // by ContactLab body index; null for fixed bodies
  std::vector<dJointID> drive_joints_;  // by ContactLab joint index: its motor, or null (destroyed with the world)
  std::vector<double> drive_signs_;     // motor_sign of each
  struct ConvexData {
    std::vector<dReal> planes, points;
    std::vector<unsigned> polygons;
  };
  std::vector<std::unique_ptr<ConvexData>> convex_;  // what ODE's convex geoms point to
  std::vector<cl::BodyPair> joined_;
  std::unique_ptr<JointDrives> drives_;
  PeerContacts* contacts_ = nullptr;
  double dt_ = 1.0 / 60.0;
};

}  // namespace

std::unique_ptr<Peer> make_ode_peer() { return std::make_unique<OdePeer>(); }

}  // namespace peers
