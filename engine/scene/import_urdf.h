// URDF read into a RobotModel through Debian's liburdfdom-dev (urdf::parseURDF), with a first pass over the XML
// (libtinyxml2-dev) that gives every link and joint its line and finds what urdfdom would report without one:
// syntax errors, unknown joint types, links with two parents and loops in the tree.
//
// Read: links with their <inertial> (mass, origin, inertia) and <collision> geometry (box, sphere, cylinder, mesh
// with uniform scale; OBJ and OFF files); joints revolute (a hinge with limits), continuous (a hinge), prismatic
// (a slider with limits), fixed and floating (none: the child moves freely), with their axes, limits, effort and
// velocity bounds and damping. A root link without collision geometry (the "world" link of fixed-base robots) is
// the model's world. Planar joints (ContactLab has none), non-uniform mesh scales and other mesh formats are
// errors naming the file, the element and its line; visuals, transmissions, Gazebo tags and mimic joints are not
// read (a warning names the mimic joints and transmissions).
#pragma once

#include <string>

#include "scene/robot_model.h"

namespace cl {

// Throws ModelError.
RobotModel import_urdf(const std::string& path);

}  // namespace cl
