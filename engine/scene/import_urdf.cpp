// The URDF reader (import_urdf.h): a pass over the XML for lines and the tree's shape, then urdfdom for the model.
#include "scene/import_urdf.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include "scene/model_xml.h"

namespace cl {

namespace {

using tinyxml2::XMLElement;
namespace mx = model_xml;

// urdfdom reports its errors through console_bridge; this collects them while one file is parsed.
class Collector final : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

Vec3 vec(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }
Pose pose(const urdf::Pose& p) {
  return {vec(p.position), Quat(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z).normalized()};
}

class UrdfReader {
 public:
  explicit UrdfReader(const std::string& path) : file_(path) {}

  RobotModel read() {
    std::string text;
    auto doc = mx::open(file_, "robot", text);
    check_tree(doc->RootElement());
    urdf_ = parse(text, doc->RootElement());
    const urdf::ModelInterfaceSharedPtr& urdf = urdf_;
    model_.file = file_;
    model_.format = "urdf";
    model_.name = urdf->getName();
    urdf::LinkConstSharedPtr root = urdf->getRoot();
    if (!root) throw ModelError(file_ + ": urdfdom found no root link");
    const bool root_is_world = root->collision_array.empty();
    add_link(*root, Pose{}, root_is_world);
    return std::move(model_);
  }

 private:
  // --- the first pass: lines, joint types, the tree's shape --------------------------------------------------
  void check_tree(const XMLElement* robot) {
    for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      const std::string name = mx::text(e, "name");
      if (tag == "link") {
        if (name.empty()) model_fail(file_, mx::source_of(e), "a link needs a name");
        if (!links_.emplace(name, e).second) model_fail(file_, mx::source_of(e), "link name \"" + name + "\" is used twice");
      } else if (tag == "transmission") {
        model_.warnings.push_back(model_where(file_, mx::source_of(e)) +
                                  ": not imported (drive joints from the scene: \"motors\" and \"servos\")");
      }
    }
    std::map<std::string, const XMLElement*> parent_joint;  // child link -> its joint
    for (const XMLElement* e = robot->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
      const std::string name = mx::text(e, "name");
      if (name.empty()) model_fail(file_, mx::source_of(e), "a joint needs a name");
      if (!joints_.emplace(name, e).second) model_fail(file_, mx::source_of(e), "joint name \"" + name + "\" is used twice");
      const std::string type = mx::text(e, "type");
      static const std::set<std::string> known = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};
      if (!known.count(type))
        model_fail(file_, mx::source_of(e), "unknown joint type \"" + type +
                                                "\" (URDF's types: revolute, continuous, prismatic, fixed, floating, planar)");
      if (type == "planar")
        model_fail(file_, mx::source_of(e), "planar joints are not imported: ContactLab has ball, hinge, slider, "
                                            "hinge-2, universal and fixed joints");
      std::string ends[2];
      const char* roles[2] = {"parent", "child"};
      for (int k = 0; k < 2; ++k) {
        const XMLElement* end = e->FirstChildElement(roles[k]);
        ends[k] = end ? mx::text(end, "link") : "";
        if (ends[k].empty()) model_fail(file_, mx::source_of(e), std::string("a joint needs <") + roles[k] + " link=\"...\">");
        if (!links_.count(ends[k]))
          model_fail(file_, mx::source_of(end), std::string("unknown ") + roles[k] + " link \"" + ends[k] + "\"");
      }
      if (ends[0] == ends[1]) model_fail(file_, mx::source_of(e), "joins link \"" + ends[0] + "\" to itself");
      auto [it, fresh] = parent_joint.emplace(ends[1], e);
      if (!fresh)
        model_fail(file_, mx::source_of(e), "link \"" + ends[1] + "\" already has a parent through joint \"" +
                                                mx::text(it->second, "name") + "\" (line " +
                                                std::to_string(it->second->GetLineNum()) + "): a URDF is a tree");
      parent_of_[ends[1]] = ends[0];
    }
    // A loop: walking up from a link comes back to it.
    for (const auto& [link, joint] : parent_joint) {
      std::string at = link;
      for (size_t steps = 0; parent_of_.count(at); ++steps) {
        at = parent_of_[at];
        if (at == link || steps > parent_of_.size())
          model_fail(file_, mx::source_of(joint), "closes a loop in the tree through link \"" + link +
                                                      "\": a URDF is a tree (ContactLab scenes can close loops with "
                                                      "their own \"joints\")");
      }
    }
    // Geometry urdfdom does not know (a <capsule>, which some tools write), in a collision or a visual, makes it
    // log an error and return the model without the link's collision geometry: the link would have lost its
    // shapes in silence. Said here with the element's line.
    for (const XMLElement* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link"))
      for (const char* part : {"collision", "visual"})
        for (const XMLElement* c = link->FirstChildElement(part); c; c = c->NextSiblingElement(part)) {
          const XMLElement* g = c->FirstChildElement("geometry");
          if (!g) model_fail(file_, mx::source_of(c), std::string("a <") + part + "> needs a <geometry>");
          const XMLElement* shape = g->FirstChildElement();
          static const std::set<std::string> shapes = {"box", "sphere", "cylinder", "mesh"};
          if (!shape) model_fail(file_, mx::source_of(g), "a <geometry> needs a shape: box, sphere, cylinder or mesh");
          if (!shapes.count(shape->Name()))
            model_fail(file_, mx::source_of(shape), std::string("<") + shape->Name() + "> is no URDF geometry (box, "
                                                    "sphere, cylinder or mesh): not imported");
        }
    for (const XMLElement* e = robot->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint"))
      if (e->FirstChildElement("mimic"))
        model_.warnings.push_back(model_where(file_, mx::source_of(e)) + ": <mimic> is not imported (the joint moves on its own)");
  }

  urdf::ModelInterfaceSharedPtr parse(const std::string& text, const XMLElement* robot) {
    static std::mutex mutex;  // console_bridge's handler is process-wide
    std::lock_guard<std::mutex> lock(mutex);
    Collector collector;
    console_bridge::useOutputHandler(&collector);
    urdf::ModelInterfaceSharedPtr m;
    try {
      m = urdf::parseURDF(text);
    } catch (const std::exception& e) {
      collector.errors.push_back(e.what());
    }
    console_bridge::restorePreviousOutputHandler();
    // urdfdom may log an error and still return the model without what it could not read (a link's <inertial>
    // whose mass is no number, a limit's effort): any error fails the import.
    if (m && collector.errors.empty()) return m;
    const std::string why = collector.errors.empty() ? "urdfdom could not read the model" : collector.errors.front();
    throw ModelError(model_where(file_, locate(why, robot)) + ": urdfdom: " + why);
  }

  // Where urdfdom's message points: it names a joint or link, or a value it could not read, in brackets, parentheses
  // or quotes ("Joint [elbow] is missing a ...", "mass [heavy] is not a float", "effort value (x) is not a valid
  // float", "Unknown geometry type 'capsule'"): that joint or link, else the first element of that name or holding
  // that value.
  ModelSource locate(const std::string& why, const XMLElement* robot) const {
    const auto between = [&](char open, char close) -> std::string {
      const size_t a = why.find(open), b = why.find(close, a == std::string::npos ? 0 : a + 1);
      return a != std::string::npos && b != std::string::npos ? why.substr(a + 1, b - a - 1) : std::string();
    };
    for (const std::string& token : {between('[', ']'), between('(', ')'), between('\'', '\'')}) {
      if (token.empty()) continue;
      if (auto j = joints_.find(token); j != joints_.end()) return mx::source_of(j->second);
      if (auto l = links_.find(token); l != links_.end()) return mx::source_of(l->second);
      // Depth first through the file.
      std::vector<const XMLElement*> stack = {robot};
      while (!stack.empty()) {
        const XMLElement* e = stack.back();
        stack.pop_back();
        if (token == e->Name()) return mx::source_of(e);
        for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
          if (token == a->Value()) return mx::source_of(e);
        std::vector<const XMLElement*> children;
        for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) children.push_back(c);
        stack.insert(stack.end(), children.rbegin(), children.rend());
      }
    }
    return {};
  }

  // --- the model ---------------------------------------------------------------------------------------------
  // Adds `link` (unless it is the world) at `at` in the model frame, then its children.
  void add_link(const urdf::Link& link, const Pose& at, bool is_world) {
    const XMLElement* xml = links_.at(link.name);
    int index = -1;
    if (!is_world) {
      ModelLink l;
      l.name = link.name;
      l.pose = at;
      l.source = mx::source_of(xml);
      if (link.inertial && link.inertial->mass > 0) {
        const urdf::Inertial& in = *link.inertial;
        l.mass = in.mass;
        const Pose o = pose(in.origin);
        l.centre_of_mass = o.position;
        Mat3 i;
        i << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
        const Mat3 r = o.orientation.toRotationMatrix();
        l.inertia = r * i * r.transpose();
        l.has_inertia = true;
      }
      const XMLElement* c = xml->FirstChildElement("collision");
      for (const auto& collision : link.collision_array) {
        l.geoms.push_back(geom(*collision, c ? c : xml));
        if (c) c = c->NextSiblingElement("collision");
      }
      index = int(model_.links.size());
      model_.links.push_back(std::move(l));
    }
    // In the file's order (urdfdom keeps them by name), so that both formats of a model list bodies alike.
    std::vector<urdf::JointSharedPtr> joints = link.child_joints;
    std::sort(joints.begin(), joints.end(), [&](const auto& a, const auto& b) {
      return joints_.at(a->name)->GetLineNum() < joints_.at(b->name)->GetLineNum();
    });
    for (const auto& joint : joints) add_joint(*joint, index, at * pose(joint->parent_to_joint_origin_transform));
  }

  void add_joint(const urdf::Joint& joint, int parent, const Pose& child_pose) {
    const XMLElement* xml = joints_.at(joint.name);
    ModelJoint j;
    j.name = joint.name;
    j.parent = parent;
    j.source = mx::source_of(xml);
    j.anchor = child_pose.position;
    const Vec3 axis = vec(joint.axis);
    switch (joint.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS: j.type = ModelJoint::Type::Hinge; break;
      case urdf::Joint::PRISMATIC: j.type = ModelJoint::Type::Slider; break;
      case urdf::Joint::FIXED: j.type = ModelJoint::Type::Fixed; break;
      case urdf::Joint::FLOATING: j.type = ModelJoint::Type::Free; break;
      default: model_fail(file_, j.source, "joint type not imported");
    }
    if (j.type == ModelJoint::Type::Hinge || j.type == ModelJoint::Type::Slider) {
      if (axis.norm() < 1e-12) model_fail(file_, j.source, "a zero axis");
      j.axis = (child_pose.orientation * axis).normalized();
    }
    if (joint.limits) {
      if (joint.type != urdf::Joint::CONTINUOUS && j.type != ModelJoint::Type::Fixed) {
        if (joint.limits->lower > joint.limits->upper) model_fail(file_, j.source, "limit lower above upper");
        j.limits = std::make_pair(joint.limits->lower, joint.limits->upper);
      }
      if (joint.limits->effort > 0) j.effort = joint.limits->effort;
      if (joint.limits->velocity > 0) j.velocity = joint.limits->velocity;
    }
    if (joint.dynamics) j.damping = joint.dynamics->damping;
    // The child's index is the next link's.
    j.child = int(model_.links.size());
    model_.joints.push_back(j);
    add_link(*urdf_->getLink(joint.child_link_name), child_pose, false);
  }

  ModelGeom geom(const urdf::Collision& c, const XMLElement* xml) {
    ModelGeom g;
    g.source = mx::source_of(xml);
    g.pose = pose(c.origin);
    if (!c.geometry) model_fail(file_, g.source, "a collision without geometry");
    switch (c.geometry->type) {
      case urdf::Geometry::SPHERE: {
        g.type = ModelGeom::Type::Sphere;
        g.radius = static_cast<const urdf::Sphere&>(*c.geometry).radius;
        if (!(g.radius > 0)) model_fail(file_, g.source, "a sphere needs a positive radius");
        break;
      }
      case urdf::Geometry::BOX: {
        g.type = ModelGeom::Type::Box;
        g.half_extents = vec(static_cast<const urdf::Box&>(*c.geometry).dim) / 2;
        if (!(g.half_extents.minCoeff() > 0)) model_fail(file_, g.source, "a box needs a positive size");
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& cyl = static_cast<const urdf::Cylinder&>(*c.geometry);
        g.type = ModelGeom::Type::Cylinder;
        g.radius = cyl.radius;
        g.half_length = cyl.length / 2;
        if (!(g.radius > 0 && g.half_length > 0)) model_fail(file_, g.source, "a cylinder needs a positive radius and length");
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& mesh = static_cast<const urdf::Mesh&>(*c.geometry);
        g.type = ModelGeom::Type::Mesh;
        const Vec3 s = vec(mesh.scale);
        if (std::abs(s.x() - s.y()) > 1e-12 * std::abs(s.x()) || std::abs(s.x() - s.z()) > 1e-12 * std::abs(s.x()) ||
            !(s.x() > 0))
          model_fail(file_, g.source, "mesh scale: ContactLab scales meshes uniformly by a positive factor");
        g.mesh_scale = s.x();
        const XMLElement* m = xml->FirstChildElement("geometry");
        m = m ? m->FirstChildElement("mesh") : nullptr;
        g.mesh_file = mx::find_mesh(file_, m ? m : xml, mesh.filename);
        break;
      }
    }
    return g;
  }

  std::string file_;
  RobotModel model_;
  std::map<std::string, const XMLElement*> links_, joints_;
  std::map<std::string, std::string> parent_of_;
  urdf::ModelInterfaceSharedPtr urdf_;
};

}  // namespace

RobotModel import_urdf(const std::string& path) { return UrdfReader(path).read(); }

}  // namespace cl
