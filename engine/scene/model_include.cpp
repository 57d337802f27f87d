// Models placed in scenes (model_include.h): each link becomes one body per collision geom (ContactLab's bodies
// have one shape each; the pieces of a link are held together by fixed joints), each model joint a scene joint,
// each actuator a motor or servo on its joint.
#include "scene/model_include.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <set>

#include "core/shape.h"
#include "mesh/mass_properties.h"
#include "mesh/mesh.h"
#include "scene/robot_model.h"
#if CONTACTLAB_HAS_URDF
#include "scene/import_urdf.h"
#endif
#if CONTACTLAB_HAS_MJCF
#include "scene/import_mjcf.h"
#endif

namespace cl {

bool has_urdf_import() { return CONTACTLAB_HAS_URDF != 0; }
bool has_mjcf_import() { return CONTACTLAB_HAS_MJCF != 0; }

namespace {

using namespace scene_io;
using json = nlohmann::json;
using std::numbers::pi;

constexpr int kCylinderSegments = 24;  // cylinders become 24-sided prisms, as in the pile scene
const std::vector<std::string> kModelKeys = {"file", "name", "position", "orientation", "up", "fixed_base",
                                             "attach_to", "material", "density", "controls", "motors", "servos"};

// The rotation taking a body's y axis (ContactLab's capsules and cylinders) to a geom's z axis, and a plane's
// normal to its z.
const Quat kYToZ(Eigen::AngleAxisd(pi / 2, Vec3::UnitX()));

// One body of the scene made from a geom.
struct Piece {
  json body;
  double volume = 0;
  Vec3 centre = Vec3::Zero();  // the centre of mass in the link frame
  Mat3 unit_inertia = Mat3::Zero();  // per kg, about the centre, link axes
};

class Includer {
 public:
  Includer(Reader& r, json& doc) : r_(r), doc_(doc) {}

  void include(const json& m, const std::string& path) {
    r_.object(m, path, "an object {\"file\": ..., ...} placing a URDF or MJCF model");
    r_.check_keys(m, path, kModelKeys, "a model");
    path_ = path;
    const std::string fpath = child(path, "file");
    const std::string& file = r_.string(r_.required(m, path, "file", "a .urdf or MJCF .xml file"), fpath, "a file name");
    const std::string found = find(file);
    if (found.empty()) r_.fail(fpath, "model file " + in_quotes(file) + " not found next to the scene or in assets/");
    std::string ext = std::filesystem::path(file).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool urdf = ext == ".urdf";
    if (!urdf && ext != ".xml" && ext != ".mjcf")
      r_.fail(fpath, "expected a .urdf file or an MJCF .xml or .mjcf file, got " + in_quotes(file));
    try {
#if CONTACTLAB_HAS_URDF
      if (urdf) model_ = import_urdf(found);
#endif
#if CONTACTLAB_HAS_MJCF
      if (!urdf) model_ = import_mjcf(found);
#endif
    } catch (const ModelError& e) {
      r_.fail(fpath, e.what());
    }
    if (urdf && !has_urdf_import())
      r_.fail(fpath, "this build has no URDF import: install liburdfdom-dev and libtinyxml2-dev (bash .ci/deps) and "
                     "configure again");
    if (!urdf && !has_mjcf_import())
      r_.fail(fpath, "this build has no MJCF import: install libtinyxml2-dev (bash .ci/deps) and configure again");
    for (const std::string& w : model_.warnings) r_.warn(fpath, w);
    file_path_ = fpath;

    name_ = std::filesystem::path(file).stem().string();
    if (const json* n = r_.optional(m, "name")) name_ = r_.string(*n, child(path, "name"), "a model name");
    if (name_.empty() || name_.find('/') != std::string::npos)
      r_.fail(child(path, "name"), "expected a non-empty name without \"/\", got " + in_quotes(name_));
    if (!names_.insert(name_).second)
      r_.fail(child(path, "name"), "expected a unique model name, got " + in_quotes(name_) +
                                       " (name each placement of a file differently)");
    Pose place;
    if (const json* p = r_.optional(m, "position")) place.position = r_.vec3(*p, child(path, "position"));
    if (const json* q = r_.optional(m, "orientation")) place.orientation = r_.quaternion(*q, child(path, "orientation"));
    std::string up = "z";
    if (const json* u = r_.optional(m, "up")) up = r_.string(*u, child(path, "up"), "\"z\" or \"y\"");
    if (up != "z" && up != "y") r_.fail(child(path, "up"), "expected \"z\" or \"y\", got " + in_quotes(up));
    to_scene_ = place * Pose{Vec3::Zero(), up == "z" ? Quat(Eigen::AngleAxisd(-pi / 2, Vec3::UnitX())) : Quat::Identity()};
    fixed_base_.reset();
    if (const json* f = r_.optional(m, "fixed_base")) fixed_base_ = r_.boolean(*f, child(path, "fixed_base"));
    attach_to_.clear();
    if (const json* a = r_.optional(m, "attach_to")) attach_to_ = r_.string(*a, child(path, "attach_to"), "a body name");
    material_.clear();
    if (const json* mat = r_.optional(m, "material")) material_ = r_.string(*mat, child(path, "material"), "a material name");
    density_ = 1000;
    if (const json* d = r_.optional(m, "density")) density_ = r_.positive(*d, child(path, "density"));

    add_world();
    add_links();
    add_joints(m);
  }

 private:
  std::string find(const std::string& file) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const fs::path& c : {fs::path(r_.file()).parent_path() / file, fs::path(CONTACTLAB_ASSETS_SOURCE) / file})
      if (fs::is_regular_file(c, ec)) return c.string();
    return {};
  }
  std::string scoped(const std::string& n) const { return name_ + "/" + n; }
  [[noreturn]] void fail(const ModelSource& s, const std::string& what) { r_.fail(file_path_, model_where(model_.file, s) + ": " + what); }
  void warn(const ModelSource& s, const std::string& what) { r_.warn(file_path_, model_where(model_.file, s) + ": " + what); }

  std::string material_for(const ModelGeom& g) {
    if (!material_.empty()) return material_;
    if (!g.friction) return "default";
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", *g.friction);
    const std::string name = scoped(std::string("friction ") + text);
    json& materials = doc_["materials"];
    if (!materials.is_object()) materials = json::object();
    if (!materials.contains(name)) materials[name] = {{"friction", *g.friction}, {"restitution", 0}};
    return name;
  }

  // The body of a geom at `link` (model frame), without its kind and mass.
  Piece piece(const ModelGeom& g, const Pose& link, const std::string& body_name) {
    Piece p;
    const Pose at = to_scene_ * link * g.pose;  // the geom frame in the scene
    Quat orientation = at.orientation;
    Vec3 local_centre = Vec3::Zero();  // the centre of mass in the geom frame
    json shape;
    Shape s;  // for the volume and inertia
    switch (g.type) {
      case ModelGeom::Type::Plane:
        shape = {{"type", "plane"}, {"normal", vec_json(Vec3::UnitY())}, {"offset", 0}};
        orientation = at.orientation * kYToZ;
        break;
      case ModelGeom::Type::Sphere:
        shape = {{"type", "sphere"}, {"radius", g.radius}};
        s.type = ShapeType::Sphere;
        s.radius = g.radius;
        break;
      case ModelGeom::Type::Box:
        shape = {{"type", "box"}, {"half_extents", vec_json(g.half_extents)}};
        s.type = ShapeType::Box;
        s.half_extents = g.half_extents;
        break;
      case ModelGeom::Type::Capsule:
        shape = {{"type", "capsule"}, {"radius", g.radius}, {"half_height", g.half_length}};
        orientation = at.orientation * kYToZ;
        s.type = ShapeType::Capsule;
        s.radius = g.radius;
        s.half_height = g.half_length;
        break;
      case ModelGeom::Type::Cylinder: {
        shape = {{"type", "cylinder"}, {"radius", g.radius}, {"half_height", g.half_length}, {"segments", kCylinderSegments}};
        orientation = at.orientation * kYToZ;
        const double n = kCylinderSegments, area = n / 2 * g.radius * g.radius * std::sin(2 * pi / n);
        p.volume = area * 2 * g.half_length;
        // The inscribed prism's moments, close to the cylinder's (within 1% at 24 sides).
        const double rr = g.radius * g.radius * (1 + std::cos(2 * pi / n)) / 2, hh = g.half_length * g.half_length;
        p.unit_inertia = Vec3((rr / 4 + hh / 3), (rr / 4 + hh / 3), rr / 2).asDiagonal();
        ++cylinders_;
        break;
      }
      case ModelGeom::Type::Mesh: {
        MeshLoadResult mesh = load_mesh(g.mesh_file);
        if (!mesh.ok()) fail(g.source, "cannot use mesh: " + mesh.error);
        scale_mesh(mesh.mesh, g.mesh_scale);
        const MassProperties mp = mass_properties(mesh.mesh, 1.0);
        if (!mp.valid) fail(g.source, "mesh " + in_quotes(g.mesh_file) + " encloses no volume");
        p.volume = mp.volume;
        p.unit_inertia = mp.inertia / mp.mass;
        // ContactLab puts a mesh body's origin at the mesh's centre of mass.
        local_centre = mp.centre_of_mass;
        shape = {{"type", "mesh"}, {"file", relative_to_scene(g.mesh_file)}, {"scale", g.mesh_scale}};
        break;
      }
    }
    if (g.type == ModelGeom::Type::Sphere || g.type == ModelGeom::Type::Box || g.type == ModelGeom::Type::Capsule) {
      p.volume = shape_volume(s);
      p.unit_inertia = shape_unit_inertia(s);
    }
    // Into the link frame: the piece's axes are the geom's (times y-to-z for capsules and cylinders).
    const Quat in_link = g.type == ModelGeom::Type::Capsule || g.type == ModelGeom::Type::Cylinder
                             ? Quat(g.pose.orientation * kYToZ) : g.pose.orientation;
    const Mat3 rot = in_link.toRotationMatrix();
    if (g.type == ModelGeom::Type::Cylinder) {
      // unit_inertia above was about the cylinder's z axis (geom frame): the geom's rotation only.
      const Mat3 rg = g.pose.orientation.toRotationMatrix();
      p.unit_inertia = rg * p.unit_inertia * rg.transpose();
    } else {
      p.unit_inertia = rot * p.unit_inertia * rot.transpose();
    }
    p.centre = g.pose.apply(local_centre);
    p.body = {{"name", body_name}, {"shape", shape}, {"position", vec_json(at.apply(local_centre))},
              {"orientation", quat_json(orientation.normalized())}, {"material", material_for(g)}};
    return p;
  }

  std::string relative_to_scene(const std::string& path) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path rel = fs::relative(path, fs::absolute(fs::path(r_.file()).parent_path()), ec);
    return ec || rel.empty() ? path : rel.string();
  }

  void add_world() {
    world_body_.clear();
    for (size_t i = 0; i < model_.world_geoms.size(); ++i) {
      const std::string name = scoped(i == 0 ? "world" : "world#" + std::to_string(i + 1));
      Piece p = piece(model_.world_geoms[i], Pose{}, name);
      p.body["fixed"] = true;
      doc_["bodies"].push_back(p.body);
      if (world_body_.empty()) world_body_ = name;
    }
    if (!attach_to_.empty()) world_body_ = attach_to_;
  }

  // Which links are fixed: welded to the world (directly or through fixed links), or a fixed base.
  std::vector<char> fixed_links() {
    std::vector<char> fixed(model_.links.size(), 0);
    std::vector<int> joint_of(model_.links.size(), -1);
    for (size_t j = 0; j < model_.joints.size(); ++j) joint_of[size_t(model_.joints[j].child)] = int(j);
    for (size_t i = 0; i < model_.links.size(); ++i) {  // parents come first
      const int j = joint_of[i];
      if (j < 0) {
        fixed[i] = fixed_base_.value_or(false);
        continue;
      }
      const ModelJoint& joint = model_.joints[size_t(j)];
      if (joint.type == ModelJoint::Type::Free) fixed[i] = fixed_base_.value_or(false);
      else if (joint.type == ModelJoint::Type::Fixed) fixed[i] = joint.parent < 0 ? 1 : fixed[size_t(joint.parent)];
    }
    return fixed;
  }

  void add_links() {
    fixed_ = fixed_links();
    main_body_.assign(model_.links.size(), std::string());
    extra_pieces_.clear();
    cylinders_ = 0;
    for (size_t i = 0; i < model_.links.size(); ++i) {
      const ModelLink& link = model_.links[i];
      if (link.geoms.empty())
        fail(link.source, "no collision geometry: a ContactLab body needs a shape (give the link a collision geom, "
                          "or join its geoms to a neighbour)");
      std::vector<Piece> pieces;
      double volume = 0;
      for (size_t k = 0; k < link.geoms.size(); ++k) {
        const std::string name = scoped(k == 0 ? link.name : link.name + "#" + std::to_string(k + 1));
        pieces.push_back(piece(link.geoms[k], link.pose, name));
        volume += pieces.back().volume;
        if (link.geoms[k].type == ModelGeom::Type::Plane) fail(link.geoms[k].source, "a plane on a moving body");
      }
      if (!link.mass && model_.format == "urdf" && !fixed_[i])
        warn(link.source, "no <inertial> mass: the link gets the model's density (" + Reader::format_number(density_) + " kg/m^3)");
      double total_mass = 0;
      Vec3 centre = Vec3::Zero();
      for (size_t k = 0; k < pieces.size(); ++k) {
        json& b = pieces[k].body;
        if (fixed_[i]) {
          b["fixed"] = true;
          continue;
        }
        double mass;
        if (link.mass) mass = *link.mass * pieces[k].volume / volume;
        else if (link.geoms[k].mass) mass = *link.geoms[k].mass;
        else mass = link.geoms[k].density.value_or(density_) * pieces[k].volume;
        b["mass"] = mass;
        total_mass += mass;
        centre += mass * pieces[k].centre;
      }
      if (!fixed_[i] && link.mass && (link.centre_of_mass || link.has_inertia)) check_inertia(link, pieces, total_mass, centre / total_mass);
      main_body_[i] = pieces[0].body["name"];
      for (size_t k = 0; k < pieces.size(); ++k) {
        doc_["bodies"].push_back(pieces[k].body);
        if (k > 0 && !fixed_[i]) extra_pieces_.push_back({main_body_[i], pieces[k].body["name"], link.pose});
      }
    }
    if (cylinders_ > 0)
      r_.warn(file_path_, model_.file + ": " + std::to_string(cylinders_) + " cylinder" + (cylinders_ > 1 ? "s" : "") +
                              " made " + std::to_string(kCylinderSegments) + "-sided prisms (ContactLab has no cylinder "
                              "shape; a convex prism inscribed in it, its mass and inertia the prism's)");
  }

  // The file's inertial against the one the shapes give: ContactLab derives inertia from shapes, so a link whose
  // file gives another centre or other moments moves differently; say so.
  void check_inertia(const ModelLink& link, const std::vector<Piece>& pieces, double mass, const Vec3& centre) {
    Mat3 inertia = Mat3::Zero();
    for (const Piece& p : pieces) {
      const double m = p.body["mass"].get<double>();
      const Vec3 d = p.centre - centre;
      inertia += m * p.unit_inertia + m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    const double size = std::sqrt(inertia.trace() / mass);  // a length of the link
    if (link.centre_of_mass && (*link.centre_of_mass - centre).norm() > 0.05 * size + 1e-3) {
      warn(link.source, "the file's centre of mass is " + Reader::format_number((*link.centre_of_mass - centre).norm()) +
                            " m from the collision shapes' (ContactLab's mass properties come from the shapes)");
    } else if (link.has_inertia && (link.inertia - inertia).norm() > 0.1 * link.inertia.norm()) {
      char text[200];
      std::snprintf(text, sizeof text, "the file's inertia (diagonal %.4g %.4g %.4g kg m^2) differs from the collision "
                    "shapes' (%.4g %.4g %.4g) by more than 10%%: ContactLab uses the shapes'",
                    link.inertia(0, 0), link.inertia(1, 1), link.inertia(2, 2), inertia(0, 0), inertia(1, 1),
                    inertia(2, 2));
      warn(link.source, text);
    }
  }

  // --- joints and drives ------------------------------------------------------------------------------------
  void add_joints(const json& m) {
    json& joints = doc_["joints"];
    if (!joints.is_array()) joints = json::array();
    std::map<int, json> drive;   // model joint -> {"motor": ...} or {"servo": ...}
    add_actuators(m, drive);
    add_overrides(m, "motors", "motor", drive);
    add_overrides(m, "servos", "servo", drive);
    for (const auto& e : extra_pieces_) {
      joints.push_back({{"name", e.b}, {"type", "fixed"}, {"bodies", {e.a, e.b}},
                        {"anchor", vec_json(to_scene_.apply(e.link.position))}});
    }
    for (size_t ji = 0; ji < model_.joints.size(); ++ji) {
      const ModelJoint& j = model_.joints[ji];
      const bool child_fixed = fixed_[size_t(j.child)];
      const bool parent_fixed = j.parent < 0 || fixed_[size_t(j.parent)];
      if (j.type == ModelJoint::Type::Free) continue;
      if (child_fixed && parent_fixed) continue;  // welded to the world
      std::string a = j.parent >= 0 ? main_body_[size_t(j.parent)] : world_body_;
      if (a.empty())
        fail(j.source, "joins link \"" + model_.links[size_t(j.child)].name + "\" to the world, and the model has no "
                       "fixed body: name a fixed scene body to stand for its world with \"attach_to\"");
      json out = {{"name", scoped(j.name)}, {"bodies", {a, main_body_[size_t(j.child)]}},
                  {"anchor", vec_json(to_scene_.apply(j.anchor))}};
      switch (j.type) {
        case ModelJoint::Type::Hinge: out["type"] = "hinge"; break;
        case ModelJoint::Type::Slider: out["type"] = "slider"; break;
        case ModelJoint::Type::Ball: out["type"] = "ball"; break;
        default: out["type"] = "fixed"; break;
      }
      if (j.type == ModelJoint::Type::Hinge || j.type == ModelJoint::Type::Slider) {
        out["axis"] = vec_json(to_scene_.orientation * j.axis);
        if (j.limits) {
          if (j.type == ModelJoint::Type::Hinge && (j.limits->first < -pi - 1e-9 || j.limits->second > pi + 1e-9))
            fail(j.source, "a hinge range beyond [-pi, pi] (" + Reader::format_number(j.limits->first) + ", " +
                               Reader::format_number(j.limits->second) + " rad): ContactLab's hinge limits lie within one turn");
          out["limits"] = {{"lower", std::max(j.limits->first, -pi)}, {"upper", std::min(j.limits->second, pi)}};
        }
        auto d = drive.find(int(ji));
        if (d != drive.end()) {
          out.update(d->second);
          if (j.damping > 0 && d->second.contains("motor"))
            warn(j.source, "damping is not imported on a joint driven by a motor (a ContactLab joint has one drive)");
        } else if (j.damping > 0) {
          // Joint damping is a PD servo without stiffness: tau = -damping * rate.
          out["servo"] = {{"target", 0}, {"stiffness", 0}, {"damping", j.damping}};
        }
      } else if (j.damping > 0) {
        warn(j.source, "damping is not imported on a ball joint");
      }
      joints.push_back(out);
    }
  }

  double force_bound(const ModelJoint& j, const ModelActuator* a) const {
    if (a && a->force_range) return std::max(std::abs(a->force_range->first), std::abs(a->force_range->second));
    if (a && a->type == ModelActuator::Type::Motor && a->ctrl_range)
      return std::abs(a->gear) * std::max(std::abs(a->ctrl_range->first), std::abs(a->ctrl_range->second));
    if (j.effort) return *j.effort;
    return 0;
  }

  void add_actuators(const json& m, std::map<int, json>& drive) {
    std::map<std::string, double> controls;
    const std::string cpath = child(path_, "controls");
    if (const json* c = r_.optional(m, "controls")) {
      r_.object(*c, cpath, "an object {ACTUATOR: value}");
      for (const auto& [key, value] : c->items()) {
        bool known = false;
        std::vector<std::string> names;
        for (const ModelActuator& a : model_.actuators) {
          names.push_back(a.name);
          known = known || a.name == key;
        }
        if (!known)
          r_.fail(child(cpath, key), "unknown actuator " + in_quotes(key) + suggestion(key, names) +
                                         (names.empty() ? "; the model has none" : "; the model's: " + join(names)));
        controls[key] = r_.number(value, child(cpath, key));
      }
    }
    for (const ModelActuator& a : model_.actuators) {
      const ModelJoint& j = model_.joints[size_t(a.joint)];
      const double ctrl = controls.count(a.name) ? controls[a.name] : 0.0;
      if (a.ctrl_range && (ctrl < a.ctrl_range->first || ctrl > a.ctrl_range->second))
        r_.fail(child(cpath, a.name), "expected a control within the actuator's ctrlrange [" +
                                          Reader::format_number(a.ctrl_range->first) + ", " +
                                          Reader::format_number(a.ctrl_range->second) + "], got " + Reader::format_number(ctrl));
      if (drive.count(a.joint)) fail(a.source, "a second actuator on joint \"" + j.name + "\": ContactLab drives a joint once");
      const double bound = force_bound(j, &a);
      if (a.type == ModelActuator::Type::Position) {
        json servo = {{"target", ctrl}, {"stiffness", a.kp}, {"damping", a.kv + j.damping}};
        if (a.kp == 0 && a.kv + j.damping == 0) fail(a.source, "a position actuator without gains (kp 0, no damping)");
        if (bound > 0) servo["max_force"] = bound;
        if (a.ctrl_range) servo["range"] = {a.ctrl_range->first, a.ctrl_range->second};
        drive[a.joint] = {{"servo", servo}};
      } else {
        if (bound <= 0)
          fail(a.source, "no force bound (ctrlrange with gear, or forcerange): a ContactLab motor drives its joint's "
                         "speed with at most max_force, which it needs");
        // A motor (force = gear ctrl) has no speed of its own: its control becomes the speed the ContactLab motor
        // drives, with the actuator's largest force as the bound.
        drive[a.joint] = {{"motor", {{"speed", ctrl}, {"max_force", bound}}}};
        if (a.type == ModelActuator::Type::Motor)
          warn(a.source, "a force motor made a velocity motor: it drives the joint to the control as a speed (" +
                             Reader::format_number(ctrl) + ") with at most " + Reader::format_number(bound) +
                             " (gear times the ctrlrange, or forcerange)");
      }
    }
  }

  void add_overrides(const json& m, const char* key, const char* kind, std::map<int, json>& drive) {
    const json* o = r_.optional(m, key);
    if (!o) return;
    const std::string opath = child(path_, key);
    r_.object(*o, opath, "an object {JOINT: {...}}");
    for (const auto& [joint, value] : o->items()) {
      const int ji = model_.find_joint(joint);
      if (ji < 0) {
        std::vector<std::string> names;
        for (const ModelJoint& j : model_.joints)
          if (j.type == ModelJoint::Type::Hinge || j.type == ModelJoint::Type::Slider) names.push_back(j.name);
        r_.fail(child(opath, joint), "unknown joint " + in_quotes(joint) + suggestion(joint, names) + "; the model's "
                                         "hinges and sliders: " + join(names));
      }
      const ModelJoint& j = model_.joints[size_t(ji)];
      if (j.type != ModelJoint::Type::Hinge && j.type != ModelJoint::Type::Slider)
        r_.fail(child(opath, joint), "joint " + in_quotes(joint) + " is not a hinge or slider; ContactLab drives only those");
      json d = r_.object(value, child(opath, joint), std::string("a ") + kind + " object");
      if (!d.contains("max_force")) {
        const ModelActuator* a = nullptr;
        for (const ModelActuator& x : model_.actuators)
          if (x.joint == ji) a = &x;
        if (const double bound = force_bound(j, a); bound > 0) d["max_force"] = bound;
      }
      if (j.velocity && d.contains("speed") && d["speed"].is_number() && std::abs(d["speed"].get<double>()) > *j.velocity)
        r_.warn(child(child(opath, joint), "speed"), "faster than the joint's velocity bound in the file (" +
                                                         Reader::format_number(*j.velocity) + ")");
      drive[ji] = {{kind, d}};
    }
  }

  struct Weld {
    std::string a, b;
    Pose link;
  };

  Reader& r_;
  json& doc_;
  RobotModel model_;
  std::string path_, file_path_, name_, attach_to_, material_, world_body_;
  std::set<std::string> names_;
  Pose to_scene_;
  std::optional<bool> fixed_base_;
  double density_ = 1000;
  std::vector<char> fixed_;
  std::vector<std::string> main_body_;
  std::vector<Weld> extra_pieces_;
  int cylinders_ = 0;
};

}  // namespace

bool include_models(Reader& r, const json& doc, json& expanded) {
  if (!doc.is_object() || !doc.contains("models")) return false;
  const json& models = doc["models"];
  if (!models.is_array()) r.expected("/models", "an array of models {\"file\": ...}", models);
  expanded = doc;
  expanded.erase("models");
  if (!expanded.contains("bodies")) expanded["bodies"] = json::array();
  if (!expanded["bodies"].is_array()) r.expected("/bodies", "an array of bodies", expanded["bodies"]);
  if (expanded.contains("joints") && !expanded["joints"].is_array()) r.expected("/joints", "an array of joints", expanded["joints"]);
  if (expanded.contains("materials") && !expanded["materials"].is_object())
    r.expected("/materials", "an object {NAME: material}", expanded["materials"]);
  Includer includer(r, expanded);
  for (size_t i = 0; i < models.size(); ++i) includer.include(models[i], child("/models", i));
  return true;
}

}  // namespace cl
