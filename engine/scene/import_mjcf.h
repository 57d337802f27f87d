// MJCF (MuJoCo's XML) read into a RobotModel: a subset, read by our own reader on Debian's libtinyxml2-dev so that
// every element keeps its line (docs/models.md says why this and not libmujoco-dev's compiler).
//
// Read: <compiler angle eulerseq meshdir>; <default> classes, nested, with class and childclass; <asset><mesh
// name file scale>; <worldbody> with its geoms (fixed) and its tree of <body name pos quat|euler|axisangle|xyaxes|
// zaxis childclass>, each with <inertial pos mass>, <geom type (plane, sphere, box, capsule, cylinder, mesh) size
// fromto pos orientation friction density mass contype conaffinity mesh>, at most one <joint type (hinge, slide,
// ball, free) pos axis range limited damping> or <freejoint>; <actuator> <motor>, <position> and <velocity> on
// joints (gear, ctrlrange, ctrllimited, forcerange, forcelimited, kp, kv). Sites, cameras, lights, <option>,
// <size>, <visual> and <statistic> do not change the mechanics and are skipped; any other element, a geom with
// contype and conaffinity 0 (drawn only) and an attribute ContactLab cannot honour (joint stiffness, armature,
// a ball joint's range) give a warning naming it; ellipsoids, height fields, two joints in one body, a plane on
// a moving body, <include> and unknown joint or geom types are errors naming the file, element and line.
#pragma once

#include <string>

#include "scene/robot_model.h"

namespace cl {

// Throws ModelError.
RobotModel import_mjcf(const std::string& path);

}  // namespace cl
