// The MJCF subset reader (import_mjcf.h). Attribute values resolve as MuJoCo's compiler resolves them: the
// element's own, else its class's (the element's class attribute, else the nearest enclosing body's childclass,
// else "main"), else the class's parents', else MuJoCo's default.
#include "scene/import_mjcf.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <set>

#include "scene/model_xml.h"

namespace cl {

namespace {

using tinyxml2::XMLElement;
namespace mx = model_xml;
using std::numbers::pi;

struct DefaultClass {
  std::string parent;                                // "" for main
  std::map<std::string, const XMLElement*> elements;  // tag -> the default element
};

class MjcfReader {
 public:
  explicit MjcfReader(const std::string& path) : file_(path) {}

  RobotModel read() {
    std::string text;
    auto doc = mx::open(file_, "mujoco", text);
    const XMLElement* top = doc->RootElement();
    model_.file = file_;
    model_.format = "mjcf";
    model_.name = mx::text(top, "model");
    for (const XMLElement* e = top->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "compiler") read_compiler(e);
      else if (tag == "default") read_default(e, "");
      else if (tag == "include") fail(e, "<include> is not read: put the included elements in this file");
    }
    for (const XMLElement* e = top->FirstChildElement("asset"); e; e = e->NextSiblingElement("asset")) read_assets(e);
    for (const XMLElement* e = top->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "worldbody") read_worldbody(e);
    }
    for (const XMLElement* e = top->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "actuator") read_actuators(e);
      else if (tag != "compiler" && tag != "default" && tag != "asset" && tag != "worldbody" && tag != "option" &&
               tag != "size" && tag != "visual" && tag != "statistic")
        warn(e, "not imported (ContactLab reads the bodies, geoms, joints, defaults and motor, position and "
                "velocity actuators)");
    }
    return std::move(model_);
  }

 private:
  [[noreturn]] void fail(const XMLElement* e, const std::string& what) { model_fail(file_, mx::source_of(e), what); }
  void warn(const XMLElement* e, const std::string& what) {
    model_.warnings.push_back(model_where(file_, mx::source_of(e)) + ": " + what);
  }

  // --- settings and classes ------------------------------------------------------------------------------
  void read_compiler(const XMLElement* e) {
    const std::string angle = mx::text(e, "angle");
    if (angle == "radian") degrees_ = false;
    else if (angle == "degree") degrees_ = true;
    else if (!angle.empty()) fail(e, "attribute angle=\"" + angle + "\": expected \"degree\" or \"radian\"");
    const std::string seq = mx::text(e, "eulerseq");
    if (!seq.empty()) {
      if (seq.size() != 3 || seq.find_first_not_of("xyzXYZ") != std::string::npos)
        fail(e, "attribute eulerseq=\"" + seq + "\": expected three of x, y, z, X, Y, Z");
      eulerseq_ = seq;
    }
    if (const char* d = e->Attribute("meshdir")) meshdir_ = d;
    else if (const char* a = e->Attribute("assetdir")) meshdir_ = a;
  }

  void read_default(const XMLElement* e, const std::string& parent) {
    std::string name = mx::text(e, "class");
    if (name.empty()) {
      if (!parent.empty()) fail(e, "a nested <default> needs a class attribute");
      name = "main";
    }
    if (classes_.count(name)) fail(e, "default class \"" + name + "\" is defined twice");
    DefaultClass& c = classes_[name];
    c.parent = parent;
    for (const XMLElement* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) {
      if (std::string(k->Name()) == "default") read_default(k, name);
      else c.elements[k->Name()] = k;
    }
  }

  // The class an element takes its defaults from.
  std::string class_of(const XMLElement* e, const std::string& childclass) {
    std::string c = mx::text(e, "class");
    if (c.empty()) c = childclass;
    if (c.empty()) c = "main";
    if (c != "main" && !classes_.count(c)) fail(e, "unknown default class \"" + c + "\"");
    return c;
  }

  // The element that gives attribute `name`: e itself, else the default of its tag in its class or the class's
  // parents. Null when none does (MuJoCo's built-in default applies).
  const XMLElement* giver(const XMLElement* e, const std::string& cls, const char* name) {
    if (e->Attribute(name)) return e;
    for (std::string c = cls; !c.empty();) {
      auto it = classes_.find(c);
      if (it == classes_.end()) break;
      auto el = it->second.elements.find(e->Name());
      if (el != it->second.elements.end() && el->second->Attribute(name)) return el->second;
      c = it->second.parent;
    }
    return nullptr;
  }
  std::optional<std::vector<double>> nums(const XMLElement* e, const std::string& cls, const char* name,
                                          size_t count = 0) {
    const XMLElement* g = giver(e, cls, name);
    return g ? mx::numbers(file_, g, name, count) : std::nullopt;
  }
  std::optional<double> num(const XMLElement* e, const std::string& cls, const char* name) {
    auto v = nums(e, cls, name, 1);
    return v ? std::optional<double>((*v)[0]) : std::nullopt;
  }
  std::string str(const XMLElement* e, const std::string& cls, const char* name) {
    const XMLElement* g = giver(e, cls, name);
    return g ? mx::text(g, name) : "";
  }
  // true/false attributes ("auto" and absent: nothing).
  std::optional<bool> flag(const XMLElement* e, const std::string& cls, const char* name) {
    const std::string v = str(e, cls, name);
    if (v == "true") return true;
    if (v == "false") return false;
    if (v.empty() || v == "auto") return std::nullopt;
    fail(e, std::string("attribute ") + name + "=\"" + v + "\": expected true, false or auto");
  }

  double angle(double x) const { return degrees_ ? x * pi / 180.0 : x; }

  // --- poses ---------------------------------------------------------------------------------------------
  // The frame an element gives (pos and one orientation form), in its parent's frame.
  Pose frame(const XMLElement* e, const std::string& cls) {
    Pose p;
    if (auto v = nums(e, cls, "pos", 3)) p.position = Vec3((*v)[0], (*v)[1], (*v)[2]);
    int forms = 0;
    if (auto q = nums(e, cls, "quat", 4)) {
      ++forms;
      const Quat r((*q)[0], (*q)[1], (*q)[2], (*q)[3]);
      if (r.norm() < 1e-12) fail(e, "attribute quat: a zero quaternion");
      p.orientation = r.normalized();
    }
    if (auto a = nums(e, cls, "axisangle", 4)) {
      ++forms;
      const Vec3 axis((*a)[0], (*a)[1], (*a)[2]);
      if (axis.norm() < 1e-12) fail(e, "attribute axisangle: a zero axis");
      p.orientation = Quat(Eigen::AngleAxisd(angle((*a)[3]), axis.normalized()));
    }
    if (auto v = nums(e, cls, "euler", 3)) {
      ++forms;
      Quat q = Quat::Identity();
      for (int i = 0; i < 3; ++i) {
        const char c = eulerseq_[size_t(i)];
        const Vec3 axis = (c == 'x' || c == 'X') ? Vec3::UnitX() : (c == 'y' || c == 'Y') ? Vec3::UnitY() : Vec3::UnitZ();
        const Quat r(Eigen::AngleAxisd(angle((*v)[size_t(i)]), axis));
        q = std::islower(static_cast<unsigned char>(c)) ? Quat(q * r) : Quat(r * q);
      }
      p.orientation = q.normalized();
    }
    if (auto v = nums(e, cls, "xyaxes", 6)) {
      ++forms;
      Vec3 x((*v)[0], (*v)[1], (*v)[2]), y((*v)[3], (*v)[4], (*v)[5]);
      if (x.norm() < 1e-12) fail(e, "attribute xyaxes: a zero x axis");
      x.normalize();
      y -= x * x.dot(y);
      if (y.norm() < 1e-12) fail(e, "attribute xyaxes: the y axis is parallel to the x axis");
      y.normalize();
      Mat3 m;
      m.col(0) = x;
      m.col(1) = y;
      m.col(2) = x.cross(y);
      p.orientation = Quat(m).normalized();
    }
    if (auto v = nums(e, cls, "zaxis", 3)) {
      ++forms;
      const Vec3 z((*v)[0], (*v)[1], (*v)[2]);
      if (z.norm() < 1e-12) fail(e, "attribute zaxis: a zero axis");
      p.orientation = rotation_between(Vec3::UnitZ(), z);
    }
    if (forms > 1) fail(e, "more than one orientation (quat, axisangle, euler, xyaxes, zaxis)");
    return p;
  }

  // --- assets ----------------------------------------------------------------------------------------------
  void read_assets(const XMLElement* asset) {
    for (const XMLElement* e = asset->FirstChildElement(); e; e = e->NextSiblingElement()) {
      if (std::string(e->Name()) != "mesh") continue;  // textures and materials only colour
      const std::string cls = class_of(e, "");
      const std::string file = str(e, cls, "file");
      if (file.empty()) fail(e, "a mesh asset needs a file attribute");
      std::string name = mx::text(e, "name");
      if (name.empty()) name = std::filesystem::path(file).stem().string();
      double scale = 1;
      if (auto s = nums(e, cls, "scale", 3)) {
        if (std::abs((*s)[0] - (*s)[1]) > 1e-12 * std::abs((*s)[0]) || std::abs((*s)[0] - (*s)[2]) > 1e-12 * std::abs((*s)[0]))
          fail(e, "attribute scale: ContactLab scales meshes uniformly; give three equal factors");
        if ((*s)[0] <= 0) fail(e, "attribute scale: expected positive factors");
        scale = (*s)[0];
      }
      if (meshes_.count(name)) fail(e, "mesh asset \"" + name + "\" is defined twice");
      meshes_[name] = {mx::find_mesh(file_, e, file, meshdir_), scale};
    }
  }

  // --- the tree ---------------------------------------------------------------------------------------------
  void read_worldbody(const XMLElement* world) {
    const Pose origin;
    for (const XMLElement* e = world->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "geom") {
        if (auto g = read_geom(e, "", true)) {
          g->pose = origin * g->pose;
          model_.world_geoms.push_back(*g);
        }
      } else if (tag == "body") {
        read_body(e, -1, origin, "");
      } else if (tag == "joint" || tag == "freejoint" || tag == "inertial") {
        fail(e, "the world body has no " + tag);
      } else if (tag != "site" && tag != "camera" && tag != "light") {
        warn(e, "not imported");
      }
    }
  }

  void read_body(const XMLElement* e, int parent, const Pose& parent_pose, const std::string& inherited) {
    std::string childclass = mx::text(e, "childclass");
    if (childclass.empty()) childclass = inherited;
    else if (!classes_.count(childclass)) fail(e, "unknown default class \"" + childclass + "\"");
    ModelLink link;
    link.source = mx::source_of(e);
    link.name = link.source.name.empty() ? "body" + std::to_string(model_.links.size() + 1) : link.source.name;
    if (model_.find_link(link.name) >= 0) fail(e, "body name \"" + link.name + "\" is used twice");
    link.pose = parent_pose * frame(e, childclass);
    std::vector<const XMLElement*> joints, bodies;
    for (const XMLElement* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) {
      const std::string tag = k->Name();
      if (tag == "geom") {
        if (auto g = read_geom(k, childclass, false)) link.geoms.push_back(*g);
      } else if (tag == "joint" || tag == "freejoint") {
        joints.push_back(k);
      } else if (tag == "body") {
        bodies.push_back(k);
      } else if (tag == "inertial") {
        link.mass = mx::number(file_, k, "mass");
        if (!link.mass) fail(k, "an inertial needs a mass");
        if (!(*link.mass > 0)) fail(k, "attribute mass: expected a positive mass");
        link.centre_of_mass = frame(k, "").position;
        if (auto d = mx::vec3(file_, k, "diaginertia")) {
          const Mat3 r = frame(k, "").orientation.toRotationMatrix();
          link.inertia = r * Mat3(d->asDiagonal()) * r.transpose();
          link.has_inertia = true;
        }
      } else if (tag != "site" && tag != "camera" && tag != "light") {
        warn(k, "not imported");
      }
    }
    if (joints.size() > 1)
      fail(joints[1], "a second joint in body \"" + link.name + "\": ContactLab joins two bodies by one joint; "
                      "split the body into one body per joint");
    const int index = int(model_.links.size());
    model_.links.push_back(link);
    ModelJoint j;
    j.parent = parent;
    j.child = index;
    j.source = mx::source_of(e);
    j.anchor = link.pose.position;
    if (joints.empty()) {
      j.type = ModelJoint::Type::Fixed;  // a body without joints is welded to its parent
      j.name = link.name + "_weld";
    } else {
      read_joint(joints[0], childclass, link, j);
    }
    model_.joints.push_back(j);
    for (const XMLElement* b : bodies) read_body(b, index, link.pose, childclass);
  }

  void read_joint(const XMLElement* e, const std::string& childclass, const ModelLink& link, ModelJoint& j) {
    j.source = mx::source_of(e);
    j.name = j.source.name.empty() ? link.name + "_joint" : j.source.name;
    if (model_.find_joint(j.name) >= 0) fail(e, "joint name \"" + j.name + "\" is used twice");
    const std::string cls = class_of(e, childclass);
    std::string type = std::string(e->Name()) == "freejoint" ? "free" : str(e, cls, "type");
    if (type.empty()) type = "hinge";
    if (type == "hinge") j.type = ModelJoint::Type::Hinge;
    else if (type == "slide") j.type = ModelJoint::Type::Slider;
    else if (type == "ball") j.type = ModelJoint::Type::Ball;
    else if (type == "free") j.type = ModelJoint::Type::Free;
    else fail(e, "unknown joint type \"" + type + "\" (MJCF's types: hinge, slide, ball, free)");
    if (j.type == ModelJoint::Type::Free) {
      if (j.parent >= 0) fail(e, "a free joint in a body inside another body: only the world's children may be free");
      return;
    }
    Vec3 pos = Vec3::Zero();
    if (auto p = nums(e, cls, "pos", 3)) pos = Vec3((*p)[0], (*p)[1], (*p)[2]);
    j.anchor = link.pose.apply(pos);
    if (j.type != ModelJoint::Type::Ball) {
      Vec3 axis = Vec3::UnitZ();
      if (auto a = nums(e, cls, "axis", 3)) axis = Vec3((*a)[0], (*a)[1], (*a)[2]);
      if (axis.norm() < 1e-12) fail(e, "attribute axis: a zero axis");
      j.axis = (link.pose.orientation * axis).normalized();
    }
    const std::optional<bool> limited = flag(e, cls, "limited");
    if (auto r = nums(e, cls, "range", 2); r && limited.value_or(true)) {
      if ((*r)[0] > (*r)[1]) fail(e, "attribute range: lower above upper");
      if (j.type == ModelJoint::Type::Ball) {
        warn(e, "a ball joint's range (a cone) is not imported: ContactLab's ball joints have no limits");
      } else {
        const bool angular = j.type == ModelJoint::Type::Hinge;
        j.limits = std::make_pair(angular ? angle((*r)[0]) : (*r)[0], angular ? angle((*r)[1]) : (*r)[1]);
      }
    } else if (limited.value_or(false)) {
      fail(e, "limited=\"true\" without a range");
    }
    if (auto d = num(e, cls, "damping")) j.damping = *d;
    for (const char* unsupported : {"stiffness", "armature", "frictionloss"})
      if (auto v = num(e, cls, unsupported); v && *v != 0)
        warn(e, std::string("attribute ") + unsupported + " is not imported (ContactLab's joints have none)");
  }

  std::optional<ModelGeom> read_geom(const XMLElement* e, const std::string& childclass, bool in_world) {
    const std::string cls = class_of(e, childclass);
    ModelGeom g;
    g.source = mx::source_of(e);
    const auto contype = num(e, cls, "contype"), conaffinity = num(e, cls, "conaffinity");
    if (contype.value_or(1) == 0 && conaffinity.value_or(1) == 0) {
      warn(e, "contype and conaffinity 0: a geom that only shows is not imported (nor its mass)");
      return std::nullopt;
    }
    std::string type = str(e, cls, "type");
    if (type.empty()) type = "sphere";
    const std::string mesh = str(e, cls, "mesh");
    if (!mesh.empty() && !e->Attribute("type") && type == "sphere") type = "mesh";
    g.pose = frame(e, cls);
    const std::vector<double> size = nums(e, cls, "size").value_or(std::vector<double>{});
    auto need = [&](size_t n) {
      if (size.size() < n) fail(e, "a " + type + " needs " + std::to_string(n) + " size values, got " + std::to_string(size.size()));
      for (size_t i = 0; i < n; ++i)
        if (!(size[i] > 0)) fail(e, "attribute size: expected positive sizes");
    };
    if (type == "plane") {
      if (!in_world) fail(e, "a plane on a moving body: ContactLab's planes are fixed; put it in <worldbody>");
      g.type = ModelGeom::Type::Plane;
    } else if (type == "sphere") {
      g.type = ModelGeom::Type::Sphere;
      need(1);
      g.radius = size[0];
    } else if (type == "box") {
      g.type = ModelGeom::Type::Box;
      need(3);
      g.half_extents = Vec3(size[0], size[1], size[2]);
    } else if (type == "capsule" || type == "cylinder") {
      g.type = type == "capsule" ? ModelGeom::Type::Capsule : ModelGeom::Type::Cylinder;
      if (auto ft = nums(e, cls, "fromto", 6)) {
        need(1);
        const Vec3 a((*ft)[0], (*ft)[1], (*ft)[2]), b((*ft)[3], (*ft)[4], (*ft)[5]);
        if ((b - a).norm() < 1e-12) fail(e, "attribute fromto: the two ends are the same point");
        g.pose.position = (a + b) / 2;
        g.pose.orientation = rotation_between(Vec3::UnitZ(), b - a);
        g.half_length = (b - a).norm() / 2;
      } else {
        need(2);
        g.half_length = size[1];
      }
      g.radius = size[0];
    } else if (type == "mesh") {
      g.type = ModelGeom::Type::Mesh;
      auto it = meshes_.find(mesh);
      if (mesh.empty()) fail(e, "a mesh geom needs a mesh attribute");
      if (it == meshes_.end()) fail(e, "unknown mesh asset \"" + mesh + "\"");
      g.mesh_file = it->second.first;
      g.mesh_scale = it->second.second;
    } else if (type == "ellipsoid" || type == "hfield" || type == "sdf") {
      fail(e, "geom type \"" + type + "\" is not imported (ContactLab's shapes: plane, sphere, box, capsule, "
              "cylinder as a prism, mesh)");
    } else {
      fail(e, "unknown geom type \"" + type + "\" (MJCF's types: plane, sphere, box, capsule, cylinder, ellipsoid, "
              "mesh, hfield)");
    }
    g.friction = 1.0;  // MuJoCo's default sliding friction
    if (auto f = nums(e, cls, "friction")) {
      if (!((*f)[0] >= 0)) fail(e, "attribute friction: expected a non-negative sliding friction");
      g.friction = (*f)[0];
    }
    if (auto m = num(e, cls, "mass")) {
      if (!(*m > 0)) fail(e, "attribute mass: expected a positive mass");
      g.mass = *m;
    } else if (auto d = num(e, cls, "density")) {
      if (!(*d > 0)) fail(e, "attribute density: expected a positive density");
      g.density = *d;
    }
    return g;
  }

  // --- actuators -------------------------------------------------------------------------------------------
  void read_actuators(const XMLElement* list) {
    for (const XMLElement* e = list->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      ModelActuator a;
      if (tag == "motor") a.type = ModelActuator::Type::Motor;
      else if (tag == "position") a.type = ModelActuator::Type::Position;
      else if (tag == "velocity") a.type = ModelActuator::Type::Velocity;
      else {
        warn(e, "not imported: ContactLab maps <motor>, <position> and <velocity> actuators on joints");
        continue;
      }
      const std::string cls = class_of(e, "");
      a.source = mx::source_of(e);
      const std::string joint = str(e, cls, "joint");
      if (joint.empty()) {
        warn(e, "not imported: only actuators on a joint are (no tendon, site or body transmission)");
        continue;
      }
      a.joint = model_.find_joint(joint);
      if (a.joint < 0) fail(e, "unknown joint \"" + joint + "\"");
      const ModelJoint::Type jt = model_.joints[size_t(a.joint)].type;
      if (jt != ModelJoint::Type::Hinge && jt != ModelJoint::Type::Slider)
        fail(e, "joint \"" + joint + "\" is not a hinge or slide joint: ContactLab drives only those");
      a.name = a.source.name.empty() ? joint + "_" + tag : a.source.name;
      if (auto g = nums(e, cls, "gear")) {
        a.gear = (*g)[0];
        if (a.gear == 0) fail(e, "attribute gear: expected a non-zero gear");
      }
      if (auto r = nums(e, cls, "ctrlrange", 2); r && flag(e, cls, "ctrllimited").value_or(true)) {
        if ((*r)[0] > (*r)[1]) fail(e, "attribute ctrlrange: lower above upper");
        a.ctrl_range = std::make_pair((*r)[0], (*r)[1]);
      }
      if (auto r = nums(e, cls, "forcerange", 2); r && flag(e, cls, "forcelimited").value_or(true)) {
        if ((*r)[0] > (*r)[1]) fail(e, "attribute forcerange: lower above upper");
        a.force_range = std::make_pair((*r)[0], (*r)[1]);
      }
      if (auto kp = num(e, cls, "kp")) a.kp = *kp;
      else if (a.type == ModelActuator::Type::Position) a.kp = 1;  // MuJoCo's default
      if (auto kv = num(e, cls, "kv")) a.kv = *kv;
      else if (a.type == ModelActuator::Type::Velocity) a.kv = 1;
      if (a.kp < 0 || a.kv < 0) fail(e, "attributes kp and kv: expected gains >= 0");
      model_.actuators.push_back(a);
    }
  }

  std::string file_;
  RobotModel model_;
  bool degrees_ = true;       // MJCF's default angle unit
  std::string eulerseq_ = "xyz";
  std::string meshdir_;
  std::map<std::string, DefaultClass> classes_;
  std::map<std::string, std::pair<std::string, double>> meshes_;  // name -> path, scale
};

}  // namespace

RobotModel import_mjcf(const std::string& path) { return MjcfReader(path).read(); }

}  // namespace cl
