// MuJoCo 2.2.2 (Debian's libmujoco-dev): the scene written as MJCF in memory (engine/scene/mjcf_writer.h) and
// compiled by mj_loadXML; mj_step at the scene's dt with MuJoCo's default solver (Newton, pyramidal cones, soft
// contacts at their default solref/solimp) at the iteration count.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "scene/mjcf_writer.h"
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

std::string num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
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

    // The scene as MJCF (engine/scene/mjcf_writer.h): fixed bodies as world geoms, dynamic ones as a tree along
    // their joints (free where they have none), ContactLab's masses and inertias at their centres of mass.
    cl::MjcfWriteOptions options;
    options.iterations = settings.iterations;
    options.nconmax = nconmax;
    options.njmax = njmax;
    options.nstack = nstack;
    const std::string xml = cl::world_to_mjcf(w, options, error);
    if (xml.empty()) {
      *error = "mujoco: " + *error;
      return false;
    }
    double friction_min = 1e300, friction_max = -1e300, restitution_max = 0;
    for (const cl::Body& b : w.bodies) {
      const cl::Material& m = w.materials[size_t(b.material)];
      friction_min = std::min(friction_min, m.friction);
      friction_max = std::max(friction_max, m.friction);
      restitution_max = std::max(restitution_max, m.restitution);
    }

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
    // The motors' speeds and servos' targets: the writer's keyframe.
    if (model_->nkey > 0) mj_resetDataKeyframe(model_, data_, 0);
    // Each dynamic body is the MuJoCo body of its name; a floating one has a free joint.
    bodies_.assign(w.bodies.size(), -1);
    for (size_t i = 0; i < w.bodies.size(); ++i) {
      const cl::Body& b = w.bodies[i];
      if (!b.is_dynamic()) continue;
      bodies_[i] = mj_name2id(model_, mjOBJ_BODY, b.name.c_str());
      const int joint = model_->body_jntadr[bodies_[i]];
      if (joint < 0 || model_->jnt_type[joint] != mjJNT_FREE) continue;  // starts at rest in its joint
      // Free joint velocities: linear in the world frame, angular in the body frame.
      mjtNum* qv = data_->qvel + model_->jnt_dofadr[joint];
      const cl::Vec3 wl = b.orientation.conjugate() * b.angular_velocity;
      for (int k = 0; k < 3; ++k) {
        qv[k] = b.linear_velocity[k];
        qv[3 + k] = wl[k];
      }
    }
    mj_forward(model_, data_);
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
    if (!model_) return {};  // declined or failed to build: nothing ran
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
      // The body frame is its centre of mass (the writer puts the inertial at the origin); velocities in the world.
      const int id = bodies_[i];
      const mjtNum* p = data_->xpos + 3 * id;
      const mjtNum* q = data_->xquat + 4 * id;
      mjtNum v[6];
      mj_objectVelocity(model_, data_, mjOBJ_BODY, id, v, 0);
      out[i] = {cl::Vec3(p[0], p[1], p[2]), cl::Quat(q[0], q[1], q[2], q[3]).normalized(), cl::Vec3(v[3], v[4], v[5]),
                cl::Vec3(v[0], v[1], v[2])};
    }
  }

 private:
  const cl::World* scene_ = nullptr;
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
  int most_contacts_ = 0, most_rows_ = 0;
  std::vector<int> bodies_;  // by ContactLab body index: the MuJoCo body id, -1 for fixed bodies
};

}  // namespace

std::unique_ptr<Peer> make_mujoco_peer() { return std::make_unique<MujocoPeer>(); }

}  // namespace peers
