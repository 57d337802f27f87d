// Bullet (Debian's libbullet-dev, single precision as Debian builds it): btDiscreteDynamicsWorld with the
// sequential-impulse solver at its defaults but the iteration count, one fixed step of the scene's dt per step.
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "joints.h"
#include "peer.h"
#include "scene/mesh_source.h"

namespace peers {

namespace {

// ContactLab's combination rules for every contact (Bullet's own are products): the geometric mean of the
// frictions and the larger restitution. Bodies carry their material's friction and restitution.
btScalar geometric_mean_friction(const btCollisionObject* a, const btCollisionObject* b) {
  return btSqrt(a->getFriction() * b->getFriction());
}
btScalar larger_restitution(const btCollisionObject* a, const btCollisionObject* b) {
  return btMax(a->getRestitution(), b->getRestitution());
}

btVector3 bt(const cl::Vec3& v) { return btVector3(btScalar(v.x()), btScalar(v.y()), btScalar(v.z())); }
btQuaternion bt(const cl::Quat& q) { return btQuaternion(btScalar(q.x()), btScalar(q.y()), btScalar(q.z()), btScalar(q.w())); }
cl::Vec3 cl3(const btVector3& v) { return cl::Vec3(v.x(), v.y(), v.z()); }

// Bullet counts a hinge's angle as body A against body B, the other way round from ContactLab's coordinate
// (body b against body a, joints.h); a slider's position it counts as ContactLab does.
constexpr double kHingeSign = -1.0, kSliderSign = 1.0;

// A joint's drive (motor or servo) as one row of Bullet's solver: the row ContactLab's joints give
// (JointDrives::drive_row), set before each step. Bullet's sequential impulses update a row's impulse as
// lambda += D (target - J u) - cfm' lambda, D = 1 / (J M^-1 J^T), whose fixed point is J u = target - (cfm' / D)
// lambda: the row's cfm (velocity per impulse) is handed over as cfm' = cfm D, at Bullet's own masses. That
// iteration does not settle for cfm' >= 1 (it oscillates at 1 and diverges above), a servo as soft as h (c + h k)
// <= 1 / (J M^-1 J^T) (a light finger's): there, where the servo's spring-damper is too weak to move the bodies
// further than the step's own motion, its force is taken at the start of the step,
// lambda = (target - J u) / cfm = -h (k (x - x*) + (c + h k) dx/dt) within the force bound, which explicit
// integration keeps stable in that range, and the row applies exactly that (lo = hi = lambda).
class DriveConstraint final : public btTypedConstraint {
 public:
  // CONTACT_CONSTRAINT_TYPE: a type no part of Bullet casts (its debug drawing casts D6 and the others).
  DriveConstraint(btRigidBody& a, btRigidBody& b) : btTypedConstraint(CONTACT_CONSTRAINT_TYPE, a, b) {}
  std::optional<cl::JointRow> row;

  void getInfo1(btConstraintInfo1* info) override {
    info->m_numConstraintRows = row ? 1 : 0;
    info->nub = 0;
  }
  void getInfo2(btConstraintInfo2* info) override {
    if (!row) return;
    const btVector3 la = bt(row->ja_lin), aa = bt(row->ja_ang), lb = bt(row->jb_lin), ab = bt(row->jb_ang);
    const btScalar jmj = la.length2() * m_rbA.getInvMass() + aa.dot(m_rbA.getInvInertiaTensorWorld() * aa) +
                         lb.length2() * m_rbB.getInvMass() + ab.dot(m_rbB.getInvInertiaTensorWorld() * ab);
    for (int k = 0; k < 3; ++k) {
      info->m_J1linearAxis[k] = la[k];
      info->m_J1angularAxis[k] = aa[k];
      info->m_J2linearAxis[k] = lb[k];
      info->m_J2angularAxis[k] = ab[k];
    }
    const double lo = std::max(row->lo, -double(SIMD_INFINITY)), hi = std::min(row->hi, double(SIMD_INFINITY));
    const double cfm = jmj > 0 ? row->cfm / jmj : 0.0;
    info->m_constraintError[0] = btScalar(row->target);
    if (cfm < 1.0) {
      info->cfm[0] = btScalar(cfm);
      info->m_lowerLimit[0] = btScalar(lo);
      info->m_upperLimit[0] = btScalar(hi);
      return;
    }
    const double rate = la.dot(m_rbA.getLinearVelocity()) + aa.dot(m_rbA.getAngularVelocity()) +
                        lb.dot(m_rbB.getLinearVelocity()) + ab.dot(m_rbB.getAngularVelocity());
    const double lambda = std::clamp((row->target - rate) / row->cfm, lo, hi);
    info->m_lowerLimit[0] = info->m_upperLimit[0] = btScalar(lambda);
  }
  void setParam(int, btScalar, int) override {}
  btScalar getParam(int, int) const override { return 0; }
};

class BulletPeer final : public Peer {
 public:
  ~BulletPeer() override {
    // The world first (it refers to the bodies and constraints), then constraints, bodies, shapes and the world's
    // parts.
    if (world_)
      for (int i = world_->getNumConstraints() - 1; i >= 0; --i) world_->removeConstraint(world_->getConstraint(i));
    if (world_)
      for (int i = world_->getNumCollisionObjects() - 1; i >= 0; --i)
        world_->removeCollisionObject(world_->getCollisionObjectArray()[i]);
    world_.reset();
  }
  std::string name() const override { return "bullet"; }
  std::string version() const override {
    return "Bullet " + std::to_string(BT_BULLET_VERSION / 100) + "." + std::to_string(BT_BULLET_VERSION % 100);
  }

  bool build(const cl::World& w, const PeerSettings& settings, std::string* error) override {
    gCalculateCombinedFrictionCallback = &geometric_mean_friction;
    gCalculateCombinedRestitutionCallback = &larger_restitution;
    config_ = std::make_unique<btDefaultCollisionConfiguration>();
    dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
    broadphase_ = std::make_unique<btDbvtBroadphase>();
    solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
    world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), config_.get());
    world_->setGravity(bt(w.settings.gravity));
    world_->getSolverInfo().m_numIterations = settings.iterations;
    dt_ = w.settings.dt;

    bodies_.assign(w.bodies.size(), nullptr);
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      const cl::Body& b = w.bodies[i];
      btTransform pose(bt(b.orientation), bt(b.position));
      std::unique_ptr<btCollisionShape> shape;
      switch (b.shape.type) {
        case cl::ShapeType::Plane: shape = std::make_unique<btStaticPlaneShape>(bt(b.shape.normal), btScalar(b.shape.offset)); break;
        case cl::ShapeType::Sphere: shape = std::make_unique<btSphereShape>(btScalar(b.shape.radius)); break;
        case cl::ShapeType::Box: shape = std::make_unique<btBoxShape>(bt(b.shape.half_extents)); break;
        // Bullet's capsule lies along its y axis, as ContactLab's; its height is the distance between the
        // centres of the two hemispheres.
        case cl::ShapeType::Capsule: shape = std::make_unique<btCapsuleShape>(btScalar(b.shape.radius), btScalar(2 * b.shape.half_height)); break;
        case cl::ShapeType::Mesh: {
          // A procedural cylinder, Bullet's lying along y as ContactLab's, or a convex mesh as its hull
          // (check_convertible refuses other meshes). The hull's margin, which Bullet adds around it, is 1 mm
          // instead of its default 4 cm.
          if (const std::optional<cl::CylinderSize> c = cl::procedural_cylinder(b)) {
            shape = std::make_unique<btCylinderShape>(btVector3(btScalar(c->radius), btScalar(c->half_height),
                                                                btScalar(c->radius)));
          } else if (const cl::TriangleMesh* mesh = cl::convex_mesh(b)) {
            auto hull = std::make_unique<btConvexHullShape>();
            for (const cl::Vec3& v : mesh->vertices) hull->addPoint(bt(v), false);
            hull->recalcLocalAabb();
            hull->setMargin(btScalar(0.001));
            shape = std::move(hull);
          } else {
            *error = "bullet: a mesh that does not bound a convex solid is not converted";
            return false;
          }
          break;
        }
      }
      const bool dynamic = b.is_dynamic();
      // ContactLab's mass and body-frame inertia: diagonal for these shapes about their own axes (check_convertible
      // refuses a mesh whose frame is not its principal axes).
      const btScalar mass = dynamic ? btScalar(b.mass) : btScalar(0);
      const btVector3 inertia = dynamic ? bt(cl::Vec3(b.inertia_body.diagonal())) : btVector3(0, 0, 0);
      motion_.push_back(std::make_unique<btDefaultMotionState>(pose));
      btRigidBody::btRigidBodyConstructionInfo info(mass, motion_.back().get(), shape.get(), inertia);
      const cl::Material& m = w.materials[size_t(b.material)];
      info.m_friction = btScalar(m.friction);
      info.m_restitution = btScalar(m.restitution);
      auto body = std::make_unique<btRigidBody>(info);
      if (dynamic) {
        body->setLinearVelocity(bt(b.linear_velocity));
        body->setAngularVelocity(bt(b.angular_velocity));
        body->setActivationState(DISABLE_DEACTIVATION);  // every body awake, as ContactLab's with sleeping=false
      }
      world_->addRigidBody(body.get());
      bodies_[i] = body.get();
      shapes_.push_back(std::move(shape));
      owned_.push_back(std::move(body));
    }
    make_joints(w);
    notes_ = {"bullet: btDiscreteDynamicsWorld, sequential impulses at " + std::to_string(settings.iterations) +
              " iterations, split impulse, warm starting and ERP 0.2 (its defaults), single precision; "
              "friction and restitution combined as ContactLab does (geometric mean, larger) through Bullet's "
              "combination callbacks; deactivation disabled"};
    if (!w.joints.empty())
      notes_.push_back("bullet: hinge, slider, ball and fixed joints as btHingeConstraint, btSliderConstraint, "
                       "btPoint2PointConstraint and btFixedConstraint with Bullet's own limits; motors and servos as "
                       "one row each in Bullet's solver, the row of ContactLab's drive (a servo's implicit PD "
                       "spring-damper as the row's target and CFM)");
    (void)error;
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
    if (drives_ && drives_->any()) {
      drives_->update(*this);
      for (size_t k = 0; k < drive_rows_.size(); ++k)
        if (drive_rows_[k]) drive_rows_[k]->row = drives_->drive_row(k, dt_);
    }
    // maxSubSteps 0: one step of exactly dt (no fixed-step interpolation).
    world_->stepSimulation(btScalar(dt_), 0);
    // The manifolds hold the points found at the start of this step (distance < 0: penetration).
    const int n = dispatcher_->getNumManifolds();
    for (int k = 0; k < n; ++k) {
      const btPersistentManifold* manifold = dispatcher_->getManifoldByIndexInternal(k);
      for (int p = 0; p < manifold->getNumContacts(); ++p) contacts.add(-double(manifold->getContactPoint(p).getDistance()));
    }
    contacts.finish();
    (void)error;
    return true;
  }

  // The scene's joints as Bullet's constraints (joints.h), each built from one world frame at the anchor, turned so
  // that its own axis (z for a hinge, x for a slider) is the joint's; the joined bodies do not collide.
  void make_joints(const cl::World& w) {
    drives_ = std::make_unique<JointDrives>(w);
    for (const cl::Joint& j : w.joints) {
      btRigidBody& a = *bodies_[size_t(j.body_a)];
      btRigidBody& b = *bodies_[size_t(j.body_b)];
      const JointStart start = joint_start(j, w.bodies);
      const cl::Vec3 own_axis = j.type == cl::JointType::Slider ? cl::Vec3::UnitX() : cl::Vec3::UnitZ();
      const btTransform frame(bt(cl::Quat::FromTwoVectors(own_axis, start.axis)), bt(start.anchor));
      const btTransform in_a = a.getCenterOfMassTransform().inverse() * frame;
      const btTransform in_b = b.getCenterOfMassTransform().inverse() * frame;
      std::unique_ptr<btTypedConstraint> c;
      switch (j.type) {
        case cl::JointType::Hinge: {
          auto h = std::make_unique<btHingeConstraint>(a, b, in_a, in_b, false);
          if (j.limit.enabled) {
            const auto [lo, hi] = engine_limits(j, start.coordinate, kHingeSign);
            h->setLimit(btScalar(lo), btScalar(hi));
          }
          c = std::move(h);
          break;
        }
        case cl::JointType::Slider: {
          auto s = std::make_unique<btSliderConstraint>(a, b, in_a, in_b, true);
          if (j.limit.enabled) {
            const auto [lo, hi] = engine_limits(j, start.coordinate, kSliderSign);
            s->setLowerLinLimit(btScalar(lo));
            s->setUpperLinLimit(btScalar(hi));
          }
          c = std::move(s);
          break;
        }
        case cl::JointType::Ball:
          c = std::make_unique<btPoint2PointConstraint>(a, b, in_a.getOrigin(), in_b.getOrigin());
          break;
        default: c = std::make_unique<btFixedConstraint>(a, b, in_a, in_b); break;  // fixed (check_convertible)
      }
      world_->addConstraint(c.get(), true);
      constraints_.push_back(std::move(c));
      if (!j.motor.enabled && !j.servo.enabled) {
        drive_rows_.push_back(nullptr);
        continue;
      }
      auto drive = std::make_unique<DriveConstraint>(a, b);
      world_->addConstraint(drive.get(), true);
      drive_rows_.push_back(drive.get());
      constraints_.push_back(std::move(drive));
    }
  }

  void read_state(std::vector<PeerBodyState>& out) const override {
    out.resize(bodies_.size());
    for (size_t i = 0; i < bodies_.size(); ++i) {
      const btRigidBody* b = bodies_[i];
      const btTransform& t = b->getCenterOfMassTransform();
      const btQuaternion q = t.getRotation();
      out[i].position = cl3(t.getOrigin());
      out[i].orientation = cl::Quat(q.w(), q.x(), q.y(), q.z());
      out[i].linear_velocity = cl3(b->getLinearVelocity());
      out[i].angular_velocity = cl3(b->getAngularVelocity());
    }
  }

 private:
  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> motion_;
  std::vector<std::unique_ptr<btRigidBody>> owned_;
  std::vector<btRigidBody*> bodies_;  // by ContactLab body index
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;  // joints and their drives
  std::vector<DriveConstraint*> drive_rows_;                     // by ContactLab joint index; null: no drive
  std::unique_ptr<JointDrives> drives_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  double dt_ = 1.0 / 60.0;
};

}  // namespace

std::unique_ptr<Peer> make_bullet_peer() { return std::make_unique<BulletPeer>(); }

}  // namespace peers
