// The joints of a ContactLab scene as the Bullet and ODE peers build them (peer.h).
//
// Each engine makes its own hinge, slider, ball or fixed joint from the joint's world-frame anchor and axis at the
// bodies' starting poses, and holds its limits with its own limit rows. Engines count a joint's coordinate from 0 at
// the poses the joint was made at, some the other way round from ContactLab (joint_coordinate: body b against
// body a about or along the axis), so a limit is handed over counted from the start and signed (engine_limits).
//
// The drives are ContactLab's, solved by the engine's solver: a motor or servo is one row a step, the row `lcp`
// solves (joints/joint.h, joint_rows): a motor's speed with its force bound, and a servo's implicit PD
// spring-damper, target = -k (x - x*) / (c + h k) and cfm = 1 / (h (c + h k)), so that every engine drives the
// model with the gains and the sag the scene asks for (an explicit PD force at the models' gains, 3000 N s/m on a
// 2 kg lift at 4 ms, is unstable).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "joints/joint.h"
#include "peer.h"

namespace peers {

// A joint's frame at the bodies' starting poses, world: the anchor (on body a), the axis of a hinge or slider
// as body a holds it (unit), and ContactLab's coordinate there (0 for ball and fixed joints).
struct JointStart {
  cl::Vec3 anchor{0, 0, 0};
  cl::Vec3 axis{1, 0, 0};
  double coordinate = 0.0;
};
JointStart joint_start(const cl::Joint& joint, const std::vector<cl::Body>& bodies);

// A hinge's or slider's limit [lower, upper] in an engine's terms: counted from `start` and times `sign` (-1 for
// an engine that counts the coordinate the other way), lower <= upper.
std::pair<double, double> engine_limits(const cl::Joint& joint, double start, double sign);

// Empty when the Bullet and ODE peers can build the joint; else what they cannot, for check_convertible.
std::string joint_not_converted(const cl::Joint& joint, const std::vector<cl::Body>& bodies);

// ContactLab's view of a peer's bodies, kept for the joints' drive rows.
class JointDrives {
 public:
  explicit JointDrives(const cl::World& world);
  // Whether any joint has a motor or servo (without, the peer need not read its state for them).
  bool any() const { return any_; }
  // Reads the engine's state before a step (Peer::read_state); hinge servos unwrap their angle from it.
  void update(const Peer& peer);
  // The drive row of joint `j` for a step of h at the state of the last update: its motor's (or, without one,
  // its servo's), J u the rate of ContactLab's coordinate, lambda an impulse in [lo, hi]; nothing without a drive.
  std::optional<cl::JointRow> drive_row(size_t j, double h) const;

 private:
  std::vector<cl::Body> bodies_;
  std::vector<cl::Joint> joints_;
  std::vector<PeerBodyState> state_;
  bool any_ = false;
};

}  // namespace peers
