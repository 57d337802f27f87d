// MuJoCo 2.2.2 (Debian's libmujoco-dev): the scene written as MJCF in memory and compiled by mj_loadXML; mj_step
// at the scene's dt with MuJoCo's default solver (Newton, pyramidal cones, soft contacts at their default
// solref/solimp) at the iteration count.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "peer.h"

namespace peers {

namespace {

// Contacts MuJoCo 2.2.2 may hold per dynamic body (its contact list and constraint rows are fixed at
// compile time: <size nconmax njmax>); a full list is reported as a failure of the step, never dropped silently.
constexpr int kContactsPerBody = 24;
// Rows per dynamic body: a pyramidal cone of condim 3 has 2 (condim - 1) = 4 rows per contact; the stacks and piles
// measured need about 10 contacts per body (the 20-row pyramid 2,400 contacts for 210 boxes), so 48 rows each.
constexpr int kRowsPerBody = 48;

// The last warning MuJoCo printed (it reports through a global function pointer).
std::string g_last_warning;
void record_warning(const char* text) { g_last_warning = text; }

std::string v3(const cl::Vec3& v) {
  std::ostringstream s;
  s.precision(17);
  s << v.x() << ' ' << v.y() << ' ' << v.z();
  return s.str();
}
std::string q4(const cl::Quat& q) {
  std::ostringstream s;
  s.precision(17);
  s << q.w() << ' ' << q.x() << ' ' << q.y() << ' ' << q.z();
  return s.str();
}
std::string num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// The geom of a body's shape in MJCF at the pose given (pos, quat), with its material's friction.
std::string geom_xml(const cl::World& w, const cl::Body& b, const cl::Vec3& pos, const cl::Quat& quat) {
  const double friction = w.materials[size_t(b.material)].friction;
  std::string type, size;
  cl::Vec3 p = pos;
  cl::Quat q = quat;
  switch (b.shape.type) {
    case cl::ShapeType::Plane: {
      // MuJoCo's plane is z = 0 of its frame, solid below: put it on the world-frame half space.
      cl::Vec3 n;
      double d = 0;
      world_plane(b, n, d);
      type = "plane";
      size = "0 0 1";  // infinite
      p = n * d;
      q = rotation_from_z(n);
      break;
    }
    case cl::ShapeType::Sphere: type = "sphere"; size = num(b.shape.radius); break;
    case cl::ShapeType::Box: type = "box"; size = v3(b.shape.half_extents); break;
    case cl::ShapeType::Capsule:
      // MuJoCo's capsule lies along its z axis (radius, half-length); ContactLab's along y.
      type = "capsule";
      size = num(b.shape.radius) + " " + num(b.shape.half_height);
      q = quat * rotation_from_z(cl::Vec3::UnitY());
      break;
    case cl::ShapeType::Mesh: break;
  }
  return "<geom type=\"" + type + "\" size=\"" + size + "\" pos=\"" + v3(p) + "\" quat=\"" + q4(q) +
         "\" condim=\"3\" friction=\"" + num(friction) + " 0 0\"/>\n";
}

class MujocoPeer final : public Peer {
 public:
  ~MujocoPeer() override {
    if (data_) mj_deleteData(data_);
    if (model_) mj_deleteModel(model_);
  }
  std::string name() const override { return "mujoco"; }
  std::string version() const override { return std::string("MuJoCo ") + mj_versionString(); }

  bool build(const cl::World& w, const PeerSettings& settings, std::string* error) override {
    scene_ = &w;
    mju_user_warning = &record_warning;
    int dynamic = 0;
    for (const cl::Body& b : w.bodies) dynamic += b.is_dynamic() ? 1 : 0;
    const long long nconmax = kContactsPerBody * (long long)dynamic + 100;
    const long long njmax = kRowsPerBody * (long long)dynamic + 400;
    const long long nv = 6LL * dynamic;
    const long long nstack = std::max(1000000LL, 4 * nv * nv + 20 * njmax);
    // What mj_makeData allocates for the constraint arrays: efc_J, efc_JT (njmax x nv) and efc_AR (njmax x
    // njmax) as doubles with their int column indices, and the stack.
    const double bytes = double(njmax) * double(nv) * (8 + 8 + 4) + double(njmax) * double(njmax) * (8 + 4) + 8.0 * double(nstack);
    if (bytes > settings.mujoco_max_gb * 1e9) {
      char text[400];
      std::snprintf(text, sizeof text,
                    "mujoco: MuJoCo 2.2.2 allocates its constraint arrays dense for the most rows a scene may have "
                    "(njmax x nv and njmax x njmax): %d dynamic bodies at %d rows each need about %.0f GB, over "
                    "the limit of %.1f GB (--mujoco-max-gb)",
                    dynamic, kRowsPerBody, bytes / 1e9, settings.mujoco_max_gb);
      *error = text;
      declined_ = true;
      return false;
    }

    std::string xml = "<mujoco model=\"contactlab\">\n<option timestep=\"" + num(w.settings.dt) + "\" gravity=\"" +
                      v3(w.settings.gravity) + "\" iterations=\"" + std::to_string(settings.iterations) + "\"/>\n" +
                      "<size nconmax=\"" + std::to_string(nconmax) + "\" njmax=\"" + std::to_string(njmax) +
                      "\" nstack=\"" + std::to_string(nstack) + "\"/>\n<worldbody>\n";
    double friction_min = 1e300, friction_max = -1e300, restitution_max = 0;
    for (const cl::Body& b : w.bodies) {
      const cl::Material& m = w.materials[size_t(b.material)];
      friction_min = std::min(friction_min, m.friction);
      friction_max = std::max(friction_max, m.friction);
      restitution_max = std::max(restitution_max, m.restitution);
      if (!b.is_dynamic()) {
        xml += geom_xml(w, b, b.position, b.orientation);
        continue;
      }
      // The body frame at the centre of mass (ContactLab's body origin), ContactLab's mass and inertia.
      xml += "<body pos=\"" + v3(b.position) + "\" quat=\"" + q4(b.orientation) + "\">\n<freejoint/>\n" +
             "<inertial pos=\"0 0 0\" mass=\"" + num(b.mass) + "\" diaginertia=\"" + v3(b.inertia_body.diagonal()) +
             "\"/>\n" + geom_xml(w, b, cl::Vec3::Zero(), cl::Quat::Identity()) + "</body>\n";
    }
    xml += "</worldbody>\n</mujoco>\n";

    // For inspection: CONTACTLAB_PEERS_MJCF=FILE writes the converted model (debugging the conversion).
    if (const char* dump = std::getenv("CONTACTLAB_PEERS_MJCF")) {
      std::FILE* f = std::fopen(dump, "w");
      if (f) {
        std::fwrite(xml.data(), 1, xml.size(), f);
        std::fclose(f);
      }
    }
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    if (mj_makeEmptyFileVFS(vfs.get(), "scene.xml", int(xml.size())) != 0) {
      *error = "mujoco: could not make the in-memory scene file";
      return false;
    }
    std::memcpy(vfs->filedata[vfs->nfile - 1], xml.data(), xml.size());
    char load_error[1000] = "";
    model_ = mj_loadXML("scene.xml", vfs.get(), load_error, sizeof load_error);
    mj_deleteVFS(vfs.get());
    if (!model_) {
      *error = std::string("mujoco: the converted scene does not compile: ") + cl::escape_for_message(load_error);
      return false;
    }
    data_ = mj_makeData(model_);
    if (!data_) {
      *error = "mujoco: mj_makeData failed (out of memory?)";
      return false;
    }
    // Dynamic bodies are MuJoCo bodies 1, 2, ... in scene order; each has one free joint.
    bodies_.assign(w.bodies.size(), -1);
    int next = 1;
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      const cl::Body& b = w.bodies[i];
      if (!b.is_dynamic()) continue;
      const int joint = model_->body_jntadr[next];
      bodies_[i] = joint;
      ++next;
      // Free joint velocities: linear in the world frame, angular in the body frame.
      mjtNum* qv = data_->qvel + model_->jnt_dofadr[joint];
      const cl::Vec3 wl = b.orientation.conjugate() * b.angular_velocity;
      for (int k = 0; k < 3; ++k) {
        qv[k] = b.linear_velocity[k];
        qv[3 + k] = wl[k];
      }
    }
    notes_ = {"mujoco: mj_step with its defaults (Newton solver, pyramidal cones, Euler integrator, soft contacts "
              "with solref 0.02 1, solimp 0.9 0.95 0.001) but " + std::to_string(settings.iterations) +
              " iterations; a pair's friction is the larger of its two geoms' (MuJoCo's rule), restitution is not "
              "modelled; no sleeping in MuJoCo"};
    if (friction_max > friction_min)
      notes_.push_back("mujoco: this scene's materials differ in friction: MuJoCo's pair friction (the larger) "
                       "differs from ContactLab's geometric mean on pairs of different materials");
    if (restitution_max > 0)
      notes_.push_back("mujoco: this scene has restitution up to " + num(restitution_max) +
                       ", which MuJoCo does not model (its contacts are inelastic)");
    return true;
  }

  bool step(PeerContacts& contacts, std::string* error) override {
    mj_step(model_, data_);
    for (int k : {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL}) {
      if (data_->warning[k].number > 0) {
        *error = "mujoco: " + std::string(k == mjWARN_CONTACTFULL ? "contact list" : "constraint rows") +
                 " full at time " + num(data_->time) + " (" + cl::escape_for_message(g_last_warning) + ")";
        return false;
      }
    }
    most_contacts_ = std::max(most_contacts_, data_->ncon);
    most_rows_ = std::max(most_rows_, data_->nefc);
    // d->contact holds the contacts mj_step found at the start of the step (dist < 0: penetration).
    for (int k = 0; k < data_->ncon; ++k) contacts.add(-data_->contact[k].dist);
    contacts.finish();
    return true;
  }

  std::string run_summary() const override {
    return "mujoco: at most " + std::to_string(most_contacts_) + " contacts (room for " + std::to_string(model_->nconmax) +
           ") and " + std::to_string(most_rows_) + " constraint rows (room for " + std::to_string(model_->njmax) + ") in a step";
  }

  void read_state(std::vector<PeerBodyState>& out) const override {
    out.resize(bodies_.size());
    for (size_t i = 0; i < bodies_.size(); ++i) {
      const cl::Body& b = scene_->bodies[i];
      if (bodies_[i] < 0) {
        out[i] = {b.position, b.orientation, cl::Vec3::Zero(), cl::Vec3::Zero()};
        continue;
      }
      const mjtNum* qp = data_->qpos + model_->jnt_qposadr[bodies_[i]];
      const mjtNum* qv = data_->qvel + model_->jnt_dofadr[bodies_[i]];
      const cl::Quat q = cl::Quat(qp[3], qp[4], qp[5], qp[6]).normalized();
      out[i] = {cl::Vec3(qp[0], qp[1], qp[2]), q, cl::Vec3(qv[0], qv[1], qv[2]), q * cl::Vec3(qv[3], qv[4], qv[5])};
    }
  }

 private:
  const cl::World* scene_ = nullptr;
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
  int most_contacts_ = 0, most_rows_ = 0;
  std::vector<int> bodies_;  // by ContactLab body index: the free joint's id, -1 for fixed bodies
};

}  // namespace

std::unique_ptr<Peer> make_mujoco_peer() { return std::make_unique<MujocoPeer>(); }

}  // namespace peers
