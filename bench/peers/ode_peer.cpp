// ODE (Debian's libode-dev, double precision): dWorldQuickStep (its iterative projected Gauss-Seidel) at the
// scene's dt, a hash space, contacts made in the near callback with ContactLab's friction and restitution.
#include <ode/ode.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "peer.h"

#ifndef CONTACTLAB_ODE_VERSION
#define CONTACTLAB_ODE_VERSION "?"
#endif

namespace peers {

namespace {

// The most contact points ODE may return for one pair (its box-box gives up to 8; others fewer).
constexpr int kMaxContactsPerPair = 8;

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
        case cl::ShapeType::Mesh: *error = "ode: mesh shapes are not converted"; return false;
      }
      dGeomSetData(geom, reinterpret_cast<void*>(i));
      const bool capsule = b.shape.type == cl::ShapeType::Capsule;
      dQuaternion z_to_y;
      set_quat(z_to_y, rotation_from_z(cl::Vec3::UnitY()));
      if (b.is_dynamic()) {
        dBodyID body = dBodyCreate(world_);
        dMass mass;
        const cl::Vec3 inertia = b.inertia_body.diagonal();
        dMassSetParameters(&mass, b.mass, 0, 0, 0, inertia.x(), inertia.y(), inertia.z(), 0, 0, 0);
        dBodySetMass(body, &mass);
        dBodySetPosition(body, b.position.x(), b.position.y(), b.position.z());
        dQuaternion q;
        set_quat(q, b.orientation);
        dBodySetQuaternion(body, q);
        dBodySetLinearVel(body, b.linear_velocity.x(), b.linear_velocity.y(), b.linear_velocity.z());
        dBodySetAngularVel(body, b.angular_velocity.x(), b.angular_velocity.y(), b.angular_velocity.z());
        dGeomSetBody(geom, body);
        if (capsule) dGeomSetOffsetQuaternion(geom, z_to_y);
        bodies_[i] = body;
      } else if (b.shape.type != cl::ShapeType::Plane) {
        // A fixed body: a geom without a body, at the body's pose (a capsule turned from z to y first).
        dGeomSetPosition(geom, b.position.x(), b.position.y(), b.position.z());
        dQuaternion q;
        set_quat(q, capsule ? b.orientation * rotation_from_z(cl::Vec3::UnitY()) : b.orientation);
        dGeomSetQuaternion(geom, q);
      }
    }
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", settings.restitution_threshold);
    notes_ = {"ode: dWorldQuickStep at " + std::to_string(settings.iterations) +
              " iterations, ERP 0.2 and CFM 1e-5 (its defaults), contacts with friction pyramid dContactApprox1, "
              "up to " + std::to_string(kMaxContactsPerPair) + " points per pair, no bounce below " +
              threshold + " m/s (lcp's restitution_threshold); "
              "auto-disable off"};
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
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
  void collide(dGeomID g1, dGeomID g2) {
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    if (!b1 && !b2) return;  // two fixed bodies
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
  PeerContacts* contacts_ = nullptr;
  double dt_ = 1.0 / 60.0;
};

}  // namespace

std::unique_ptr<Peer> make_ode_peer() { return std::make_unique<OdePeer>(); }

}  // namespace peers
