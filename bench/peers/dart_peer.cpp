// DART (Debian's libdart-dev 6.12, double precision): dart::simulation::World with a BoxedLcpConstraintSolver whose
// primary solver is the Dantzig pivoting solver (an exact boxed LCP per constrained group, from ODE's dLCP), one step
// of the scene's dt per step. Every body is a skeleton of one body node on a free joint (fixed ones not mobile).
#include <dart/collision/dart/DARTCollisionDetector.hpp>
#include <dart/collision/fcl/FCLCollisionDetector.hpp>
#include <dart/config.hpp>
#include <dart/constraint/BoxedLcpConstraintSolver.hpp>
#include <dart/constraint/ContactConstraint.hpp>
#include <dart/constraint/DantzigBoxedLcpSolver.hpp>
#include <dart/constraint/PgsBoxedLcpSolver.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/CylinderShape.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/simulation/World.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "peer.h"

namespace peers {

namespace {

namespace dd = dart::dynamics;

// A fixed plane becomes a box this wide and deep below the plane, its top face on the plane, so that every
// collision detector of CONTACTLAB_PEERS_DART_COLLISION takes it alike (DART's own collides planes with cylinders
// only).
constexpr double kGroundHalfWidth = 1000.0;
constexpr double kGroundHalfDepth = 10.0;
// The most contacts one collision query returns (DART's default, 1,000, is less than a 1,000-body pile has).
constexpr std::size_t kMaxContacts = 200000;

// Which collision detector DART runs: FCL with its analytic primitives. Its box-box test (after ODE's) gives up to
// four points on a face, as DART's own detector does (tower20: 80 contact points under both, 1.3 mm of drift in
// 5 s with FCL and 1.5 mm with DART's own), and unlike DART's own it collides cylinders with boxes (capsules,
// below). DART's default, FCL on tessellated primitives, does not hold a box: tower20 sinks 1 m into itself, and a
// sphere resting on a box rolls 0.10 m in 10 s from facet to facet (2.7 um on the analytic sphere).
// CONTACTLAB_PEERS_DART_COLLISION=fcl|dart|fcl-mesh in the environment chooses another, to compare them.
std::string collision_choice() {
  const char* env = std::getenv("CONTACTLAB_PEERS_DART_COLLISION");
  return env && *env ? env : "fcl";
}

Eigen::Isometry3d pose_of(const cl::Vec3& position, const cl::Quat& orientation) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() = orientation.toRotationMatrix();
  t.translation() = position;
  return t;
}

class DartPeer final : public Peer {
 public:
  std::string name() const override { return "dart"; }
  std::string version() const override { return std::string("DART ") + DART_VERSION; }

  bool build(const cl::World& w, const PeerSettings& settings, std::string* error) override {
    world_ = dart::simulation::World::create("contactlab");
    world_->setGravity(w.settings.gravity);
    world_->setTimeStep(w.settings.dt);
    // Dantzig first; where it fails on a group, DART's projected Gauss-Seidel at the peers' iteration count.
    auto pgs = std::make_shared<dart::constraint::PgsBoxedLcpSolver>();
    dart::constraint::PgsBoxedLcpSolver::Option pgs_option;
    pgs_option.mMaxIteration = settings.iterations;
    pgs->setOption(pgs_option);
    world_->setConstraintSolver(std::make_unique<dart::constraint::BoxedLcpConstraintSolver>(
        std::make_shared<dart::constraint::DantzigBoxedLcpSolver>(), pgs));
    dart::constraint::ConstraintSolver* solver = world_->getConstraintSolver();
    const std::string detector = collision_choice();
    if (detector == "dart") {
      solver->setCollisionDetector(dart::collision::DARTCollisionDetector::create());
    } else if (detector == "fcl" || detector == "fcl-mesh") {
      auto fcl = dart::collision::FCLCollisionDetector::create();
      fcl->setPrimitiveShapeType(detector == "fcl" ? dart::collision::FCLCollisionDetector::PRIMITIVE
                                                   : dart::collision::FCLCollisionDetector::MESH);
      fcl->setContactPointComputationMethod(dart::collision::FCLCollisionDetector::DART);
      solver->setCollisionDetector(fcl);
    } else {
      *error = "dart: CONTACTLAB_PEERS_DART_COLLISION=" + detector + ": expected fcl-mesh, fcl or dart";
      return false;
    }
    solver->getCollisionOption().maxNumContacts = kMaxContacts;

    bodies_.assign(w.bodies.size(), nullptr);
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      const cl::Body& b = w.bodies[i];
      if (detector == "dart" && b.shape.type == cl::ShapeType::Capsule) {
        *error = "dart: body '" + b.name + "': DART's own collision detector has no cylinder-box test (a capsule)";
        return false;
      }
      dd::ShapePtr shape;
      Eigen::Isometry3d pose = pose_of(b.position, b.orientation);
      std::vector<std::pair<dd::ShapePtr, Eigen::Isometry3d>> parts;  // shapes in the body's frame
      switch (b.shape.type) {
        case cl::ShapeType::Plane: {
          cl::Vec3 n;
          double d = 0;
          world_plane(b, n, d);
          shape = std::make_shared<dd::BoxShape>(
              2 * Eigen::Vector3d(kGroundHalfWidth, kGroundHalfWidth, kGroundHalfDepth));
          // The box's z axis along the plane's normal, its top face (z = half depth) on the plane.
          pose = pose_of(n.normalized() * (d / n.norm() - kGroundHalfDepth), rotation_from_z(n));
          break;
        }
        case cl::ShapeType::Sphere: shape = std::make_shared<dd::SphereShape>(b.shape.radius); break;
        case cl::ShapeType::Box: shape = std::make_shared<dd::BoxShape>(2 * b.shape.half_extents); break;
        // ContactLab's capsule along y: the union of a cylinder (DART's along its z axis) between the hemisphere
        // centres and a sphere at each.
        case cl::ShapeType::Capsule: {
          Eigen::Isometry3d axis = Eigen::Isometry3d::Identity();
          axis.linear() = rotation_from_z(cl::Vec3::UnitY()).toRotationMatrix();
          parts.emplace_back(std::make_shared<dd::CylinderShape>(b.shape.radius, 2 * b.shape.half_height), axis);
          for (const double end : {-1.0, 1.0}) {
            Eigen::Isometry3d at = Eigen::Isometry3d::Identity();
            at.translation() = cl::Vec3(0, end * b.shape.half_height, 0);
            parts.emplace_back(std::make_shared<dd::SphereShape>(b.shape.radius), at);
          }
          break;
        }
        case cl::ShapeType::Mesh: *error = "dart: mesh shapes are not converted"; return false;
      }
      dd::SkeletonPtr skeleton = dd::Skeleton::create("body" + std::to_string(i));
      dd::BodyNode* node = skeleton->createJointAndBodyNodePair<dd::FreeJoint>().second;
      if (shape) parts.emplace_back(shape, Eigen::Isometry3d::Identity());
      const cl::Material& m = w.materials[size_t(b.material)];
      for (const auto& [part, offset] : parts) {
        dd::ShapeNode* shape_node = node->createShapeNodeWith<dd::CollisionAspect, dd::DynamicsAspect>(part);
        shape_node->setRelativeTransform(offset);
        shape_node->getDynamicsAspect()->setFrictionCoeff(m.friction);
        shape_node->getDynamicsAspect()->setRestitutionCoeff(m.restitution);
      }
      if (b.is_dynamic()) {
        // ContactLab's mass and body-frame inertia about the centre of mass (the body's origin).
        node->setInertia(dd::Inertia(b.mass, Eigen::Vector3d::Zero(), b.inertia_body));
      }
      auto* joint = static_cast<dd::FreeJoint*>(node->getParentJoint());
      joint->setTransform(pose);
      if (b.is_dynamic()) {
        joint->setLinearVelocity(b.linear_velocity);
        joint->setAngularVelocity(b.angular_velocity);
        bodies_[i] = node;
      } else {
        skeleton->setMobile(false);
      }
      world_->addSkeleton(skeleton);
    }
    using dart::constraint::ContactConstraint;
    char defaults[160];
    std::snprintf(defaults, sizeof defaults,
                  "contact ERP %g, CFM %g, error allowance %g m, at most %g m/s of error reduction (its defaults)",
                  ContactConstraint::getErrorReductionParameter(), ContactConstraint::getConstraintForceMixing(),
                  ContactConstraint::getErrorAllowance(), ContactConstraint::getMaxErrorReductionVelocity());
    notes_ = {"dart: World with BoxedLcpConstraintSolver: Dantzig (exact, pivoting; no iteration count), PGS at " +
              std::to_string(settings.iterations) + " iterations where Dantzig fails; collision detector " +
              (detector == "fcl-mesh" ? std::string("FCL on tessellated primitives")
               : detector == "fcl"    ? std::string("FCL with analytic primitives")
                                      : std::string("DART's own")) +
              " (a capsule as a cylinder and two spheres: DART 6.12's FCL has no capsule), planes as a 2 km box; " +
              defaults + "; friction the smaller and restitution the product of a pair's (DART's rules); no sleeping"};
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
    world_->step();
    // The collision result of this step: found at its start, before the positions were integrated.
    for (const dart::collision::Contact& c : world_->getLastCollisionResult().getContacts())
      contacts.add(c.penetrationDepth);
    contacts.finish();
    (void)error;
    return true;
  }

  void read_state(std::vector<PeerBodyState>& out) const override {
    out.resize(bodies_.size());
    for (size_t i = 0; i < bodies_.size(); ++i) {
      const dd::BodyNode* node = bodies_[i];
      if (!node) continue;  // fixed: the caller keeps the scene's pose
      const Eigen::Isometry3d& t = node->getWorldTransform();
      out[i].position = t.translation();
      out[i].orientation = cl::Quat(t.linear());
      out[i].linear_velocity = node->getLinearVelocity();
      out[i].angular_velocity = node->getAngularVelocity();
    }
  }

 private:
  dart::simulation::WorldPtr world_;
  std::vector<dd::BodyNode*> bodies_;  // by ContactLab body index; null for fixed bodies
};

}  // namespace

std::unique_ptr<Peer> make_dart_peer() { return std::make_unique<DartPeer>(); }

}  // namespace peers
