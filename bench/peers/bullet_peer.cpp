// Bullet (Debian's libbullet-dev, single precision as Debian builds it): btDiscreteDynamicsWorld with the
// sequential-impulse solver at its defaults but the iteration count, one fixed step of the scene's dt per step.
#include <btBulletDynamicsCommon.h>

#include <memory>
#include <string>
#include <vector>

#include "peer.h"

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

class BulletPeer final : public Peer {
 public:
  ~BulletPeer() override {
    // The world first (it refers to the bodies), then bodies, shapes and the world's parts.
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
        case cl::ShapeType::Mesh: *error = "bullet: mesh shapes are not converted"; return false;
      }
      const bool dynamic = b.is_dynamic();
      // ContactLab's mass and body-frame inertia (diagonal for these shapes about their own axes).
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
    notes_ = {"bullet: btDiscreteDynamicsWorld, sequential impulses at " + std::to_string(settings.iterations) +
              " iterations, split impulse, warm starting and ERP 0.2 (its defaults), single precision; "
              "friction and restitution combined as ContactLab does (geometric mean, larger) through Bullet's "
              "combination callbacks; deactivation disabled"};
    (void)error;
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
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
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  double dt_ = 1.0 / 60.0;
};

}  // namespace

std::unique_ptr<Peer> make_bullet_peer() { return std::make_unique<BulletPeer>(); }

}  // namespace peers
