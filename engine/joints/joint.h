// Joints between two bodies (thesis sect. 4.7-4.11): ball-in-socket, hinge, slider, hinge-2
// (wheel), universal and fixed; limits, velocity motors with a force limit, error reduction (ERP) and
// constraint force mixing (CFM) per joint. A joint produces velocity-level constraint rows that every
// solver built on rows (the `lcp` solver today) adds to its contact rows.
//
// Conventions (thesis sect. 4.9 with its sign errata corrected; a = body_a = "i", b = body_b = "j"):
//  - Equality rows measure (bearing velocity of a) - (bearing velocity of b) along the constrained
//    direction, and their target is k_cor * error with k_cor = erp / h and the error measured b - a, so an
//    ERP-only step removes the fraction erp of the error (ball: target = k_cor e.(p_b - p_a)).
//  - The joint coordinate x (hinge angle, slider displacement, hinge-2/universal angle about the first axis)
//    and the motor rate grow when b moves positively relative to a ("j - i", errata eq. 4.207):
//      hinge     x = signed angle of b about the axis relative to a, dx/dt = s.(w_b - w_a)
//      slider    x = s.(p_b - p_a) along the axis,  dx/dt = s.(v_b - v_a) - (c x s).(alpha w_a + (1 - alpha) w_b)
//                (c = r_b - r_a; the slider's forces act at p = r_a + alpha c on both bodies, alpha =
//                m_a / (m_a + m_b): the midpoint for equal masses, b's centre when a is fixed)
//      hinge-2   x = angle of the second (wheel) axis about the first (steering) axis, seen from a;
//      universal   the motor drives the relative spin about the second axis.
//  - Limit rows push the coordinate back inside [lower, upper] with lambda >= 0; motor rows have
//    lambda in [-max_force h, +max_force h] and target the motor speed.
#pragma once

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "constraints/row.h"
#include "core/body.h"

namespace cl {

enum class JointType : int { Ball = 0, Hinge, Slider, Hinge2, Universal, Fixed };
inline constexpr int kJointTypeCount = 6;
std::string_view joint_type_name(JointType t);  // "ball", "hinge", "slider", "hinge2", "universal", "fixed"
std::optional<JointType> joint_type_from_name(std::string_view name);

// What each type uses: an axis (hinge, slider, hinge2, universal), a second axis (hinge2, universal),
// and a coordinate that limits, motors and `coordinate` act on (all but ball and fixed).
bool joint_type_has_axis(JointType t);
bool joint_type_has_axis2(JointType t);
bool joint_type_has_coordinate(JointType t);
// Number of equality rows (degrees of freedom removed): ball 3, hinge 5, slider 5, hinge2 4, universal 4, fixed 6.
int joint_type_equality_rows(JointType t);

// Limit on the joint coordinate (hinge: angle about the axis, rad; slider: displacement along the axis, m;
// hinge-2 and universal: angle about the first axis, rad).
struct JointLimit {
  bool enabled = false;
  double lower = 0.0;
  double upper = 0.0;
};

// Velocity motor on the joint coordinate: drives its rate to `speed` (rad/s or m/s) with at most
// `max_force` (N m or N). Hinge-2 and universal drive the relative spin about the second (wheel) axis.
struct JointMotor {
  bool enabled = false;
  double speed = 0.0;
  double max_force = 0.0;
};

// Position servo on the joint coordinate (Xu, Zhao, Barbic 2014, eq. 65-66), drivable from the keyboard: the
// coordinate is driven to `target` (rad or m), which is kept within [lower, upper] (the reachable workspace;
// set it with set_servo_target). Allowed on sliders and hinges only.
//  - slider: a PD force along the axis, F = stiffness (x - target) + damping dx/dt (eq. 65), N/m and N s/m.
//    `implicit-penalty` integrates it implicitly (exact gradients); `lcp` adds it as a soft row whose CFM and
//    target are exactly the implicit (backward Euler) spring-damper of the same gains.
//  - hinge with stiffness and damping 0: a constraint that holds the relative rotation at the target angle
//    (eq. 66 applied to the relative rotation), in both solvers.
//  - hinge with a stiffness or damping: a PD torque about the axis, tau = stiffness (theta - target) + damping
//    dtheta/dt (N m/rad, N m s/rad), the rotational twin of eq. 65, treated like the slider's in both solvers.
//    The paper drives its screwdriver this way (sect. 6, Figs. 7-8: a PD-controlled torque that keeps the
//    angular velocity about constant): with the target moving at the keys' rate and `max_force` bounding the
//    torque, the driven body turns when the torque overcomes the friction, and is stuck when it does not.
// The hinge angle counts whole turns: `coordinate` is the unwrapped angle, which World::step carries from
// step to step (a hinge's pose alone only gives it modulo 2 pi), so a target of 10 pi means five turns.
struct JointServo {
  bool enabled = false;
  double target = 0.0;     // rad (hinge) or m (slider), within [lower, upper]
  double stiffness = 0.0;  // slider: N/m; hinge: N m/rad (0 with damping 0: the rigid constraint); >= 0
  double damping = 0.0;    // slider: N s/m; hinge: N m s/rad; >= 0
  double lower = -std::numeric_limits<double>::infinity();  // bounds on the target (rad or m)
  double upper = std::numeric_limits<double>::infinity();
  // Bound on the PD force (N) or torque (N m) the servo may apply, > 0 (infinity: none); not used by the
  // rigid hinge constraint.
  double max_force = std::numeric_limits<double>::infinity();
  // Keyboard control in the viewer (scene "keys": [raise, lower], "rate"): while `key_raise` is held the
  // target rises at `rate` (rad/s or m/s of simulated time), while `key_lower` is held it falls, clamped to
  // [lower, upper]. Keys are 'a'-'z' or '0'-'9' (lower case), '\0' for none (both or neither are set);
  // no two servos of a world share a key, and none is in kServoReservedKeys.
  char key_raise = '\0';
  char key_lower = '\0';
  double rate = 0.5;  // > 0
  // State, not settings: the hinge's unwrapped angle at the end of the last step (rad); NaN until the world
  // first measures it (then the angle of the current poses, in (-pi, pi]).
  double coordinate = std::numeric_limits<double>::quiet_NaN();
};
// Keys the viewer uses for its own shortcuts (R reset, F frame the scene, V split or overlaid comparison
// lanes, C follow a body with the camera), which servos may not take.
inline constexpr std::string_view kServoReservedKeys = "rfvc";
bool joint_type_has_servo(JointType t);  // hinge, slider
// Sets the servo's target, clamped to [servo.lower, servo.upper] (for keyboard control).
void set_servo_target(JointServo& servo, double target);
// The hinge angle of the current poses as a multiple-turn angle: the value congruent to `wrapped` modulo
// 2 pi nearest to the servo's last unwrapped coordinate (`wrapped` itself when that is unknown).
double unwrap_servo_angle(const JointServo& servo, double wrapped);

// The world-frame data a joint was made from and the two bodies' poses at that moment. Saving writes these
// back unchanged while the bodies have not moved (so load -> save is a fixed point), else the same data
// measured at the current poses (see describe_joint).
struct JointDescription {
  Vec3 anchor{0, 0, 0};
  Vec3 axis{1, 0, 0};
  Vec3 axis2{0, 0, 1};
  double coordinate = 0.0;  // the joint coordinate of these poses (0 unless given)
  Vec3 position_a{0, 0, 0}, position_b{0, 0, 0};
  Quat orientation_a = Quat::Identity(), orientation_b = Quat::Identity();
};

struct Joint {
  std::string name;
  JointType type = JointType::Ball;
  int body_a = -1;  // either body may be fixed or kinematic; at least one is dynamic
  int body_b = -1;
  // Frames fixed in each body, set by make_joint from world-frame data at the bodies' current poses.
  Vec3 anchor_a{0, 0, 0}, anchor_b{0, 0, 0};  // the joint point in each body's frame
  Vec3 axis_a{1, 0, 0}, axis_b{1, 0, 0};      // first axis in each body's frame (hinge, slider, hinge-2 steering, universal first)
  // Second axis (hinge-2 wheel, universal second) in each frame. axis2_b turns with b; axis2_a is the
  // reference direction in a's frame at which the coordinate about the first axis is zero.
  Vec3 axis2_a{0, 0, 1}, axis2_b{0, 0, 1};
  // q_a^* q_b at creation, rotated so that the hinge angle of the creation poses equals the given coordinate
  // (slider, fixed: the orientation to keep; hinge: the zero of the angle).
  Quat relative_rotation = Quat::Identity();
  double initial_angle = 0.0;                 // hinge-2, universal: angle between the axes at creation (rad)
  JointLimit limit;
  JointMotor motor;
  JointServo servo;
  double erp = 0.2;  // error reduction parameter in [0, 1] (thesis sect. 4.8): fraction of the error removed per step
  double cfm = 0.0;  // constraint force mixing >= 0 added to the diagonal (thesis 4.15): softness, m/(N s) or 1/(N m s)
  JointDescription made_from;
};

// A slider servo is a PD force; a hinge servo with gains a PD torque, without them a rigid constraint.
inline bool servo_is_pd(const Joint& joint) {
  return joint.type == JointType::Slider || joint.servo.stiffness > 0 || joint.servo.damping > 0;
}

// The pairs of bodies that joints join, each as {smaller index, larger index}, sorted and without repeats.
// Joined bodies do not collide with each other (as in ODE) and are in the same contact group.
std::vector<BodyPair> joined_pairs(const std::vector<Joint>& joints);

// Builds a joint from a world-frame anchor point and axes at the bodies' current poses. `axis2` is used by
// hinge-2 (wheel axis) and universal (second axis); it is ignored by the others. The axes are normalised.
// `coordinate` is the value the joint coordinate takes at the current poses (limits are in the same terms).
Joint make_joint(JointType type, const std::vector<Body>& bodies, int a, int b, const Vec3& anchor_world,
                 const Vec3& axis_world, const Vec3& axis2_world, double coordinate = 0.0);

// One of a joint's rows: a shared constraint row (constraints/row.h; w = J u - target + cfm lambda, boxed by
// [lo, hi]) with where it came from. lambda is an impulse (N s or N m s).
struct JointRow : Row {
  int joint = -1;  // index of the joint the row came from
  int kind = 0;    // kRowEquality, kRowLimit, kRowMotor or kRowServo (for display and statistics)
  // Where the row sits among all the rows its joint can have, stable from step to step while limit rows come
  // and go (match warm-start impulses by it): 0 .. n-1 the n equality rows, n the lower limit, n + 1 the
  // upper limit, n + 2 the motor, n + 3 the servo (hinge and slider only, n = 5); below kMaxJointRows.
  int slot = 0;
  bool spring = false;  // a PD servo's row: lambda is h times a spring-damper's force (JointWarmStart)
};

inline constexpr int kMaxJointRows = 9;  // 6 equality rows (fixed joint) + 2 limits + motor; 5 + 2 + motor + servo

inline constexpr int kRowEquality = 0, kRowLimit = 1, kRowMotor = 2, kRowServo = 3;
// A limit row is added while the coordinate is within this distance (rad or m) of its bound, or within
// twice its travel in one step, or past it. Inside the bound the row's target lets the coordinate reach the
// bound exactly at the end of the step and no further (like a contact's gap / h), so limits do not overshoot.
inline constexpr double kLimitSlack = 0.02;

// How joint_rows writes the equality rows.
//  - Physical: one row per constrained direction as in thesis sect. 4.9 (row value = bearing velocity of a minus
//    that of b along the direction, target = k_cor * error), lambda the impulse along that direction.
//  - Decoupled (default): the same constraints recombined, J' = L^-1 J and target' = L^-1 target with
//    J M^-1 J^T = L L^T at the current masses, so that J' M^-1 J'^T = I: the solutions u are identical,
//    but a projected Gauss-Seidel sweep solves a joint's equality rows exactly in one pass instead of
//    converging slowly through their coupling (a hinge at the end of a thin bar: 10 sweeps let a double
//    pendulum come apart by 0.3 m; decoupled, it stays within millimetres). The lambdas are then impulses
//    along those combinations. Rows of a joint with cfm > 0 stay physical (a diagonal CFM does not survive
//    the change of basis); limit and motor rows are always physical.
enum class JointRowForm { Physical, Decoupled };

// When joint_rows adds a limit's row. Near (default): while the coordinate is near, at or past the bound
// (kLimitSlack). Always: at every step, speculatively: before the bound its target only keeps the coordinate from
// passing the bound within the step, so the row carries no impulse unless the step would take it past, however
// fast it gets there (a velocity-level solver, whose impulses are bounded below by 0, can afford that).
enum class LimitRows { Near, Always };

// Appends the joint's rows at the current state for a step of h seconds: the equality rows, plus a limit
// row when the coordinate is near, at or past a bound, plus a motor row when the motor is on with
// max_force > 0, plus a servo row when the servo is on (see servo_row_target_and_cfm). A joint between two bodies of which none is dynamic adds nothing. Decoupled rows use the
// bodies' inv_mass and inv_inertia_world as they are (fixed and kinematic bodies count as infinite mass).
void joint_rows(const Joint& joint, int joint_index, const std::vector<Body>& bodies, double h,
                std::vector<JointRow>& out, JointRowForm form = JointRowForm::Decoupled,
                LimitRows limits = LimitRows::Near);

// Joint impulses kept from one step to the next, per joint and row slot, to warm start the next step's rows.
// A row starts from kWarmStart times its slot's last impulse: limit rows come and go, and full-strength warm
// starts of unconverged joint rows pump energy into chains (ODE uses 0.9 x_last for this, thesis sect. 6.1.4).
// A PD servo's row without a last impulse (the first step, or the servo just switched on) starts from its spring's
// force at the joint's present stretch with the joint held still. (A share of that force in every step's start, a
// position feedback taken explicitly, once held a loop of stiff servos that the sweeps left unsettled, two fingers
// squeezing a box from a palm; with the joint block of joints/joint_solve.h the loop settles within the step, and
// that share fed the sway of a walker on its feet until it blew up at 1/60 s. pid-penalty, whose joints' solve has
// no joint block, holds its gripped box without that share too: PidPenaltySolver.AGripperHoldsWhatCoulombHolds.)
class JointWarmStart {
 public:
  static constexpr double kWarmStart = 0.9;
  void clear() { lambda_.clear(); }
  // The initial impulse of a row of this step.
  double guess(const JointRow& row) const;
  // Forgets every impulse of the given joint (before keep() stores the rows it has now).
  void forget(int joint);
  void keep(const JointRow& row, double lambda);

 private:
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // a slot without an impulse yet
  std::vector<std::array<double, kMaxJointRows>> lambda_;
};

// The servo row of `lcp` (hinge and slider): it measures dx/dt like the motor row (lambda an impulse that
// raises x) and asks dx/dt = target - cfm lambda.
//  - slider, the implicit PD spring-damper F = -k (x + h dx/dt - x*) - c dx/dt of the servo's gains: with
//    lambda = h F, target = -k (x - x*) / (c + h k) and cfm = 1 / (h (c + h k)) (as ODE's ERP/CFM for a
//    spring, thesis sect. 4.15). The speed toward the target is (x* - x) k / c for a small step and never more than
//    (x* - x) / h, so the servo does not overshoot in one step; its force is the PD force, which bounds it.
//    Returns false (no row) when both gains are 0.
//  - hinge with gains: the same spring-damper on the unwrapped angle (N m/rad, N m s/rad), lambda = h tau.
//  - hinge without gains, a rigid row: target = (erp / h) (x* - x), cfm = the joint's cfm (the constraint of
//    eq. 66), with the error wrapped to (-pi, pi].
// x* is the target clamped to [lower, upper]. The PD rows' impulse is bounded by h max_force (see
// servo_row_bound).
bool servo_row_target_and_cfm(const Joint& joint, const std::vector<Body>& bodies, double h, double& target,
                              double& cfm);
// The bound on the servo row's impulse, h max_force for a PD servo (infinity for the rigid hinge).
double servo_row_bound(const Joint& joint, double h);
// A drive that is still moving its joint, which the sleepy policy (thesis sect. 6.5) must not put to sleep: a
// running motor (speed != 0, max_force > 0), or a servo not yet at rest. A PD servo with stiffness k and damping c
// approaches its rest (its target, less the sag of its load) as a first-order system of time constant c / k, so at
// the rate dx/dt it still has |dx/dt| c / k to go: the servo is restless while that exceeds kServoRestTravel. Its
// approach slows ever more as it nears, and slow is not at rest: a lift of time constant 2 s fell asleep 3 cm
// short of its rest. A rigid hinge servo is restless while its angle is further than that from its target.
inline constexpr double kServoRestTravel = 1e-4;  // m (slider) or rad (hinge)
bool joint_drive_restless(const Joint& joint, const std::vector<Body>& bodies);
// Flags (1) both bodies of every joint whose drive is restless, for the sleepy policy's `restless`.
std::vector<char> restless_bodies(const std::vector<Joint>& joints, const std::vector<Body>& bodies);
// Keeps the unwrapped angle of every hinge servo (JointServo::coordinate) up to date with the bodies' poses;
// World::step calls it after each position update.
void update_servo_coordinates(std::vector<Joint>& joints, const std::vector<Body>& bodies);

// A hinge's angle in (-pi, pi] at the orientations qa, qb of its bodies: the twist about the axis of
// q_d = qa^* qb Q^* (errata eq. 4.189), Q the relative rotation at angle 0.
double hinge_angle(const Joint& joint, const Quat& qa, const Quat& qb);
// A slider's displacement along its axis at the poses (x_a, R_a), x_b of its bodies: s = (R_a s^a) . (x_b - x_a) -
// s^a . (X_a - Q X_b), with Q the relative rotation at creation (zero at the creation poses, given coordinate
// aside). It depends on b's position only, so under the orientation rows it is also the anchors' offset.
double slider_coordinate(const Joint& joint, const Vec3& xa, const Mat3& Ra, const Vec3& xb);
// The joint coordinate the limit acts on (rad or m), for limits, motors and the viewer; 0 for ball, fixed.
double joint_coordinate(const Joint& joint, const std::vector<Body>& bodies);
// The rate the motor drives (rad/s or m/s): dx/dt for hinge and slider, the relative spin about the second
// axis for hinge-2 and universal; 0 for ball and fixed.
double joint_rate(const Joint& joint, const std::vector<Body>& bodies);
// Position error of the equality constraints (m for the anchor, rad for the axes): zero when satisfied.
// joint_error is the length of the stacked error [linear, angular].
struct JointErrorParts {
  double linear = 0.0;   // m: anchor separation (slider: offset across the axis)
  double angular = 0.0;  // rad: axis misalignment, relative rotation, or change of the angle between the axes
};
JointErrorParts joint_error_parts(const Joint& joint, const std::vector<Body>& bodies);
double joint_error(const Joint& joint, const std::vector<Body>& bodies);

// The anchor points of the joint on a and on b in world coordinates (equal when the joint is satisfied;
// for the slider they differ by the displacement along the axis).
void joint_anchors_world(const Joint& joint, const std::vector<Body>& bodies, Vec3& on_a, Vec3& on_b);
// The joint's world-frame description at the bodies' current poses: `made_from` while neither body has
// moved since the joint was made, else the anchor midway between the two anchors, the first axis as carried
// by a, the second as carried by b, and the current coordinate.
JointDescription describe_joint(const Joint& joint, const std::vector<Body>& bodies);

}  // namespace cl
