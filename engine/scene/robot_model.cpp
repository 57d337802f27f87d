// Where model elements are, for messages; the rotations the readers share.
#include "scene/robot_model.h"

#include <cmath>

#include "core/text.h"

namespace cl {

std::string model_where(const std::string& file, const ModelSource& source) {
  std::string s = file;
  if (source.line > 0) s += ":" + std::to_string(source.line);
  if (!source.element.empty()) {
    s += ": <" + source.element;
    if (!source.name.empty()) s += " name=\"" + source.name + "\"";
    s += ">";
  }
  return s;
}

void model_fail(const std::string& file, const ModelSource& source, const std::string& what) {
  throw ModelError(model_where(file, source) + ": " + what);
}

int RobotModel::find_link(const std::string& link_name) const {
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].name == link_name) return int(i);
  return -1;
}

int RobotModel::find_joint(const std::string& joint_name) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == joint_name) return int(i);
  return -1;
}

Quat rotation_between(const Vec3& from, const Vec3& to) {
  return Quat::FromTwoVectors(from.normalized(), to.normalized()).normalized();
}

}  // namespace cl
