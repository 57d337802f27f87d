// Worlds as MJCF (mjcf_writer.h). MJCF holds a tree: each dynamic body gets one parent (the world or another
// body) through one joint, so the joints are walked breadth first from the fixed bodies, then from the bodies
// left, which float.
#include "scene/mjcf_writer.h"

#include <cmath>
#include <deque>
#include <map>
#include <sstream>

#include "core/text.h"
#include "scene/mesh_source.h"

namespace cl {

namespace {

std::string num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
std::string v3(const Vec3& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }
std::string q4(const Quat& q) { return num(q.w()) + " " + num(q.x()) + " " + num(q.y()) + " " + num(q.z()); }
std::string quoted(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"') out += "&quot;";
    else if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else out += c;
  }
  return "\"" + out + "\"";
}

const Quat kZToY = Quat::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitY());  // MuJoCo's capsule axis to ContactLab's

class Writer {
 public:
  Writer(const World& w, const MjcfWriteOptions& o) : w_(w), o_(o) {}

  bool write(std::string& xml, std::string* error) {
    try {
      check();
      build_tree();
      xml = document();
      return true;
    } catch (const std::runtime_error& e) {
      if (error) *error = e.what();
      return false;
    }
  }

 private:
  [[noreturn]] void fail_body(size_t i, const std::string& what) const {
    throw std::runtime_error("body '" + escape_for_message(w_.bodies[i].name) + "' (/bodies/" + std::to_string(i) + "): " + what);
  }
  [[noreturn]] void fail_joint(size_t j, const std::string& what) const {
    throw std::runtime_error("joint '" + escape_for_message(w_.joints[j].name) + "' (/joints/" + std::to_string(j) + "): " + what);
  }

  void check() const {
    for (size_t i = 0; i < w_.bodies.size(); ++i) {
      const Body& b = w_.bodies[i];
      if (b.kind == BodyKind::Kinematic) fail_body(i, "kinematic bodies are not written (MJCF has fixed and moving bodies)");
      if (b.shape.type == ShapeType::Mesh && !procedural_cylinder(b) && !convex_mesh(b))
        fail_body(i, "a mesh that does not bound a convex solid is not written (MuJoCo collides a mesh's convex hull)");
    }
    if (!w_.scripts.empty()) throw std::runtime_error("scripts are not written (/scripts)");
    if (!w_.forces.empty()) throw std::runtime_error("applied forces are not written (/forces)");
    for (size_t j = 0; j < w_.joints.size(); ++j) {
      const JointType t = w_.joints[j].type;
      if (t == JointType::Hinge2 || t == JointType::Universal)
        fail_joint(j, std::string(joint_type_name(t)) + " joints are not written (MJCF bodies take one hinge, slide, "
                                                        "ball or weld from their parent)");
    }
  }

  void build_tree() {
    const size_t n = w_.bodies.size();
    parent_.assign(n, -2);  // -2: not placed; -1: the world
    joint_of_.assign(n, -1);
    children_.assign(n + 1, {});  // index n: the world
    std::deque<size_t> queue;
    std::vector<char> used(w_.joints.size(), 0);
    for (size_t i = 0; i < n; ++i)
      if (!w_.bodies[i].is_dynamic()) parent_[i] = -1;
    auto place = [&](size_t child, int parent, int joint) {
      parent_[child] = parent;
      joint_of_[child] = joint;
      children_[parent < 0 ? n : size_t(parent)].push_back(child);
      queue.push_back(child);
    };
    // Bodies joined to fixed ones hang from the world.
    for (size_t j = 0; j < w_.joints.size(); ++j) {
      const Joint& jt = w_.joints[j];
      const bool a_fixed = !w_.bodies[size_t(jt.body_a)].is_dynamic(), b_fixed = !w_.bodies[size_t(jt.body_b)].is_dynamic();
      if (a_fixed == b_fixed) continue;
      const size_t moving = size_t(a_fixed ? jt.body_b : jt.body_a);
      if (parent_[moving] != -2) fail_joint(j, "a second joint between a body and the world: MJCF's tree holds one");
      if (!a_fixed) fail_joint(j, "the fixed body must be the joint's first body (its coordinate counts from it)");
      place(moving, -1, int(j));
      used[j] = 1;
    }
    for (size_t next = 0;; ++next) {
      while (!queue.empty()) {
        const size_t at = queue.front();
        queue.pop_front();
        for (size_t j = 0; j < w_.joints.size(); ++j) {
          const Joint& jt = w_.joints[j];
          if (used[j] || (size_t(jt.body_a) != at && size_t(jt.body_b) != at)) continue;
          const size_t other = size_t(jt.body_a) == at ? size_t(jt.body_b) : size_t(jt.body_a);
          if (parent_[other] != -2) fail_joint(j, "closes a loop: MJCF's tree of bodies cannot hold it");
          if (size_t(jt.body_a) != at && jt.type != JointType::Fixed && jt.type != JointType::Ball)
            fail_joint(j, "its first body is the child in MJCF's tree: swap the joint's bodies");
          used[j] = 1;
          place(other, int(at), int(j));
        }
      }
      while (next < n && parent_[next] != -2) ++next;
      if (next >= n) break;
      place(next, -1, -1);  // floats: a free joint
    }
  }

  std::string geom(const Body& b, const Vec3& pos, const Quat& q) {
    const double friction = w_.materials[size_t(b.material)].friction;
    std::string type, size, mesh;  // mesh: the quoted name of a mesh asset
    Vec3 p = pos;
    Quat r = q;
    switch (b.shape.type) {
      case ShapeType::Plane: {
        // MuJoCo's plane is z = 0 of its frame, solid below: the body-frame half space n . x <= d.
        type = "plane";
        size = "0 0 1";
        p = pos + q * (b.shape.normal * b.shape.offset);
        r = q * Quat::FromTwoVectors(Vec3::UnitZ(), b.shape.normal);
        break;
      }
      case ShapeType::Sphere: type = "sphere"; size = num(b.shape.radius); break;
      case ShapeType::Box: type = "box"; size = v3(b.shape.half_extents); break;
      case ShapeType::Capsule:
        type = "capsule";
        size = num(b.shape.radius) + " " + num(b.shape.half_height);
        r = q * kZToY;
        break;
      case ShapeType::Mesh: {
        if (const std::optional<CylinderSize> c = procedural_cylinder(b)) {
          type = "cylinder";
          size = num(c->radius) + " " + num(c->half_height);
          r = q * kZToY;
          break;
        }
        // A convex mesh (check), its vertices written into the file: one asset per shape, which bodies share.
        type = "mesh";
        auto [it, made] = mesh_names_.emplace(b.shape.mesh.get(), quoted("mesh" + std::to_string(assets_.size())));
        mesh = it->second;
        if (!made) break;
        std::string vertices;
        for (const Vec3& v : b.shape.mesh->mesh.vertices) vertices += (vertices.empty() ? "" : " ") + v3(v);
        assets_.push_back("<mesh name=" + mesh + " vertex=\"" + vertices + "\"/>\n");
        break;
      }
    }
    const std::string shape = mesh.empty() ? " size=\"" + size + "\"" : " mesh=" + mesh;
    return "<geom name=" + quoted(b.name) + " type=\"" + type + "\"" + shape + " pos=\"" + v3(p) + "\" quat=\"" +
           q4(r.normalized()) + "\" condim=\"3\" friction=\"" + num(friction) + " 0.005 0.0001\"/>\n";
  }

  void body(size_t i, int parent, std::string& out) {
    const Body& b = w_.bodies[i];
    const Vec3 pp = parent < 0 ? Vec3::Zero() : w_.bodies[size_t(parent)].position;
    const Quat pq = parent < 0 ? Quat::Identity() : w_.bodies[size_t(parent)].orientation;
    const Quat local_q = (pq.conjugate() * b.orientation).normalized();
    out += "<body name=" + quoted(b.name) + " pos=\"" + v3(pq.conjugate() * (b.position - pp)) + "\" quat=\"" + q4(local_q) + "\">\n";
    const int j = joint_of_[i];
    if (j < 0) {
      out += "<freejoint name=" + quoted(b.name + "/free") + "/>\n";
    } else {
      joint(size_t(j), i, out);
    }
    const Mat3& in = b.inertia_body;
    out += "<inertial pos=\"0 0 0\" mass=\"" + num(b.mass) + "\" fullinertia=\"" + num(in(0, 0)) + " " + num(in(1, 1)) +
           " " + num(in(2, 2)) + " " + num(in(0, 1)) + " " + num(in(0, 2)) + " " + num(in(1, 2)) + "\"/>\n";
    out += geom(b, Vec3::Zero(), Quat::Identity());
    for (size_t c : children_[i]) body(c, int(i), out);
    out += "</body>\n";
  }

  // The joint that joins body `child` to its parent, in the child's frame.
  void joint(size_t j, size_t child, std::string& out) {
    const Joint& jt = w_.joints[j];
    if (jt.type == JointType::Fixed) return;  // a body without joints is welded to its parent
    const Body& b = w_.bodies[child];
    const bool child_is_b = size_t(jt.body_b) == child;
    const Vec3 anchor = child_is_b ? jt.anchor_b : jt.anchor_a;
    const std::string name = jt.name.empty() ? "joint" + std::to_string(j) : jt.name;
    if (jt.type == JointType::Ball) {
      out += "<joint name=" + quoted(name) + " type=\"ball\" pos=\"" + v3(anchor) + "\"/>\n";
      return;
    }
    const Vec3 axis = child_is_b ? jt.axis_b : jt.axis_a;
    // MJCF's coordinate is 0 at the written pose; ContactLab's is joint_coordinate there.
    const double c = joint_coordinate(jt, w_.bodies);
    const bool hinge = jt.type == JointType::Hinge;
    std::string attrs = " type=\"" + std::string(hinge ? "hinge" : "slide") + "\" pos=\"" + v3(anchor) + "\" axis=\"" + v3(axis) + "\"";
    if (jt.limit.enabled) attrs += " limited=\"true\" range=\"" + num(jt.limit.lower - c) + " " + num(jt.limit.upper - c) + "\"";
    if (jt.servo.enabled && servo_is_pd(jt) && jt.servo.damping > 0) attrs += " damping=\"" + num(jt.servo.damping) + "\"";
    out += "<joint name=" + quoted(name) + attrs + "/>\n";
    (void)b;
    if (jt.motor.enabled && jt.motor.max_force > 0) {
      const double kv = jt.motor.max_force / o_.motor_speed_error;
      actuators_ += "<velocity name=" + quoted(name) + " joint=" + quoted(name) + " kv=\"" + num(kv) +
                    "\" forcelimited=\"true\" forcerange=\"" + num(-jt.motor.max_force) + " " + num(jt.motor.max_force) + "\"/>\n";
      controls_.push_back(jt.motor.speed);
    } else if (jt.servo.enabled && servo_is_pd(jt)) {
      std::string bound;
      if (std::isfinite(jt.servo.max_force))
        bound = " forcelimited=\"true\" forcerange=\"" + num(-jt.servo.max_force) + " " + num(jt.servo.max_force) + "\"";
      if (jt.servo.stiffness > 0) {
        actuators_ += "<position name=" + quoted(name) + " joint=" + quoted(name) + " kp=\"" + num(jt.servo.stiffness) + "\"" + bound + "/>\n";
        controls_.push_back(jt.servo.target - c);
      }
    } else if (jt.servo.enabled) {
      // A rigid hinge servo holds the angle: a joint equality at the target.
      equalities_ += "<joint joint1=" + quoted(name) + " polycoef=\"" + num(jt.servo.target - c) + " 0 0 0 0\"/>\n";
    }
  }

  std::string document() {
    std::string xml = "<mujoco model=" + quoted(w_.name.empty() ? "contactlab" : w_.name) + ">\n";
    xml += "<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
    xml += "<option timestep=\"" + num(w_.settings.dt) + "\" gravity=\"" + v3(w_.settings.gravity) + "\"";
    if (o_.iterations > 0) xml += " iterations=\"" + std::to_string(o_.iterations) + "\"";
    xml += "/>\n";
    if (o_.nconmax > 0 || o_.njmax > 0 || o_.nstack > 0)
      xml += "<size nconmax=\"" + std::to_string(o_.nconmax) + "\" njmax=\"" + std::to_string(o_.njmax) + "\" nstack=\"" +
             std::to_string(o_.nstack) + "\"/>\n";
    std::string world;
    for (size_t i = 0; i < w_.bodies.size(); ++i)
      if (!w_.bodies[i].is_dynamic()) world += geom(w_.bodies[i], w_.bodies[i].position, w_.bodies[i].orientation);
    for (size_t c : children_[w_.bodies.size()])
      if (w_.bodies[c].is_dynamic()) body(c, -1, world);
    if (!assets_.empty()) {
      xml += "<asset>\n";
      for (const std::string& a : assets_) xml += a;
      xml += "</asset>\n";
    }
    xml += "<worldbody>\n" + world + "</worldbody>\n";
    if (!actuators_.empty()) xml += "<actuator>\n" + actuators_ + "</actuator>\n";
    if (!equalities_.empty()) xml += "<equality>\n" + equalities_ + "</equality>\n";
    if (!controls_.empty()) {
      std::string ctrl;
      for (double c : controls_) ctrl += (ctrl.empty() ? "" : " ") + num(c);
      xml += "<keyframe>\n<key name=\"contactlab\" ctrl=\"" + ctrl + "\"/>\n</keyframe>\n";
    }
    return xml + "</mujoco>\n";
  }

  const World& w_;
  const MjcfWriteOptions& o_;
  std::vector<int> parent_, joint_of_;
  std::vector<std::vector<size_t>> children_;
  std::string actuators_, equalities_;
  std::vector<std::string> assets_;  // <mesh> elements, one per mesh shape written
  std::map<const MeshShape*, std::string> mesh_names_;  // the quoted asset name of each
  std::vector<double> controls_;
};

}  // namespace

std::string world_to_mjcf(const World& world, const MjcfWriteOptions& options, std::string* error) {
  std::string xml;
  Writer writer(world, options);
  if (!writer.write(xml, error)) return {};
  return xml;
}

}  // namespace cl
