#include "solvers/implicit_penalty/plane_ball.h"

namespace cl::implicit_penalty {

bool plane_ball_pair(const Shape& a, const Shape& b) {
  return (a.type == ShapeType::Plane && b.type == ShapeType::Sphere) ||
         (a.type == ShapeType::Sphere && b.type == ShapeType::Plane);
}

std::optional<PlaneBall> plane_ball(const Shape& shape_a, const BodyPose& a, const Shape& shape_b, const BodyPose& b,
                                    double skin) {
  if (!plane_ball_pair(shape_a, shape_b)) return std::nullopt;
  const bool plane_first = shape_a.type == ShapeType::Plane;
  const Shape& plane = plane_first ? shape_a : shape_b;
  const Shape& ball = plane_first ? shape_b : shape_a;
  const BodyPose& plane_pose = plane_first ? a : b;
  const BodyPose& ball_pose = plane_first ? b : a;
  // The plane n . p = offset in its body's frame (collision/narrowphase.cpp's signed distance).
  const Vec3 n = plane_pose.R * plane.normal;
  const double height = n.dot(ball_pose.x - plane_pose.x) - plane.offset;
  PlaneBall out;
  out.depth = skin + ball.radius - height;
  // Along the normal through the centre: the ball's lowest point to its centre (a fixed direction, also with the
  // centre below the plane).
  const Vec3 lowest = ball_pose.x - ball.radius * n;
  out.axes = plane_first ? RoundAxes{lowest, ball_pose.x} : RoundAxes{ball_pose.x, lowest};
  out.normal = plane_first ? n : Vec3(-n);
  return out;
}

}  // namespace cl::implicit_penalty
