// contactlab_peers: one scene (or several) stepped by each ContactLab method and by each peer engine of this
// build (Bullet, ODE, MuJoCo, DART), like for like, and a table of what each did: the step's wall time (median and
// 95th percentile), the largest distance a body ends from its start, the deepest and the mean penetration and
// the energies at the end. See docs/performance.md, "Peers".
//
//   contactlab_peers SCENE.json [SCENE.json ...] [--steps N] [--iterations N] [--methods LIST] [--engines LIST]
//                    [--budget SECONDS] [--csv FILE] [--metrics FILE] [--mujoco-max-gb G] [--set NAME=VALUE]...
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "compare/summary.h"
#include "core/text.h"
#include "peer.h"
#include "scene/scene.h"
#include "solvers/registry.h"

namespace peers {
#ifdef CONTACTLAB_PEER_BULLET
std::unique_ptr<Peer> make_bullet_peer();
#endif
#ifdef CONTACTLAB_PEER_ODE
std::unique_ptr<Peer> make_ode_peer();
#endif
#ifdef CONTACTLAB_PEER_MUJOCO
std::unique_ptr<Peer> make_mujoco_peer();
#endif
#ifdef CONTACTLAB_PEER_DART
std::unique_ptr<Peer> make_dart_peer();
#endif

std::vector<std::unique_ptr<Peer>> make_peers() {
  std::vector<std::unique_ptr<Peer>> out;
#ifdef CONTACTLAB_PEER_BULLET
  out.push_back(make_bullet_peer());
#endif
#ifdef CONTACTLAB_PEER_ODE
  out.push_back(make_ode_peer());
#endif
#ifdef CONTACTLAB_PEER_MUJOCO
  out.push_back(make_mujoco_peer());
#endif
#ifdef CONTACTLAB_PEER_DART
  out.push_back(make_dart_peer());
#endif
  return out;
}
}  // namespace peers

namespace {

constexpr const char* kUsage =
    "usage: contactlab_peers SCENE.json [SCENE.json ...] [--steps N] [--iterations N] [--methods LIST]\n"
    "                        [--engines LIST] [--budget SECONDS] [--csv FILE] [--metrics FILE] [--mujoco-max-gb G]\n"
    "                        [--set NAME=VALUE]...\n"
    "  --steps N         steps of the scene's dt per run (default 600)\n"
    "  --iterations N    solver iterations of every engine, and of each ContactLab method that has an\n"
    "                    'iterations' parameter (default 10)\n"
    "  --methods LIST    ContactLab methods, comma-separated (default: every registered one; 'none' for none)\n"
    "  --engines LIST    peer engines of this build, comma-separated (default: all; 'none' for none)\n"
    "  --budget SECONDS  wall time after which a run stops and is marked 'budget' (default 60)\n"
    "  --csv FILE        one row per run: the table's figures\n"
    "  --metrics FILE    one row per step of every run, in contactlab --metrics columns after lane,solver,scene\n"
    "  --mujoco-max-gb G refuse scenes for which MuJoCo 2.2.2 would allocate more (default 3)\n"
    "  --threads N       world threads of the ContactLab runs (default: the scene's)\n"
    "  --interleave      step a scene's runs in turn, step by step, so that the machine's load falls on all alike\n"
    "                    (default: one run after the other)\n"
    "  --set NAME=VALUE  a parameter of every ContactLab method that has it (after --iterations), e.g.\n"
    "                    friction_directions=1 for one friction row per contact as Bullet has; at least one\n"
    "                    method run must have it\n"
    "A method may carry its own parameters, after --set's: --methods lcp,lcp:shock_propagation=false runs both;\n"
    "threads=N there sets the world's threads of that run (lcp,lcp:threads=2).\n"
    "Where Bullet runs, each run's median is also given as a ratio to Bullet's on the same scene ('x bullet').\n";

// The --metrics columns of `contactlab --headless` (engine/telemetry), after lane,solver,scene as `--compare`
// writes them, and then the drift (m) of this tool.
constexpr const char* kStepColumns =
    "lane,solver,scene,step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,"
    "pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,mean_penetration,"
    "kinetic_energy,potential_energy,drift";
// One row per run; the figures carry the --metrics names (wall_ms as its median and 95th percentile).
constexpr const char* kRunColumns =
    "scene,engine,method,bodies,dt,steps,iterations,status,wall_ms_median,wall_ms_p95,drift,max_penetration,"
    "mean_penetration,kinetic_energy,potential_energy,contacts,ratio_to_bullet,top_drift,cpu_ms_median,cpu_ratio_to_bullet";

struct Options {
  std::vector<std::string> scenes;
  int steps = 600;
  int iterations = 10;
  std::vector<std::string> methods;  // empty: every registered one
  bool methods_given = false;
  std::vector<std::string> engines;
  bool engines_given = false;
  double budget = 60.0;
  std::string csv, metrics;
  double mujoco_max_gb = 3.0;
  std::vector<std::pair<std::string, std::string>> params;  // --set NAME=VALUE, in order
  bool interleave = false;  // step the runs of a scene in turn, step by step
  int threads = 0;          // world threads of the ContactLab runs (0: the scene's)
};

// A --methods entry: a method's name, then its own parameters, "lcp:shock_propagation=false:iterations=20".
struct MethodSpec {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
};

MethodSpec parse_method(std::string_view spec) {
  MethodSpec out;
  size_t colon = spec.find(':');
  out.name = std::string(spec.substr(0, colon));
  while (colon != std::string_view::npos) {
    const size_t next = spec.find(':', colon + 1);
    const std::string_view item = spec.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1);
    const size_t eq = item.find('=');
    out.params.emplace_back(std::string(item.substr(0, eq)),
                            eq == std::string_view::npos ? std::string() : std::string(item.substr(eq + 1)));
    colon = next;
  }
  return out;
}

// One run of one scene under one engine and method.
struct Run {
  std::string engine, method;
  std::string status = "ok";  // ok, budget (stopped by the time budget), skipped (the engine declined), failed
  std::string message;        // why it stopped (budget, failure)
  std::string detail;         // what the engine reports of the run, printed under the table
  int steps = 0;              // steps taken
  std::vector<double> ms;     // wall time of each step
  double drift = 0, top_drift = 0, max_pen = 0, sum_mean_pen = 0, kinetic = 0, potential = 0, sum_contacts = 0;
  bool iterations_matched = true;
  double ms_median() const { return cl::quantile(ms, 0.5); }
  double ms_p95() const { return cl::quantile(ms, 0.95); }
  // The process's CPU time of each step (all its threads): on a loaded machine a wall time includes the waits for
  // a core, which fall on whichever step is running when the scheduler takes the core away.
  std::vector<double> cpu;
  double cpu_median() const { return cl::quantile(cpu, 0.5); }
};

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool bad(const std::string& what) {
  std::fprintf(stderr, "contactlab_peers: %s\n%s", what.c_str(), kUsage);
  return false;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    auto number = [&](double& out, double lo, double hi) {
      const char* v = value();
      if (!v) return bad(std::string(arg) + ": needs a value");
      char* end = nullptr;
      const double x = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(x >= lo && x <= hi)) {
        char range[64];
        std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
        return bad(std::string(arg) + ": expected a number in " + range + ", got '" + cl::escape_for_message(v) + "'");
      }
      out = x;
      return true;
    };
    double x = 0;
    if (arg == "--steps" || arg == "--iterations") {
      if (!number(x, 1, arg == "--steps" ? 1e7 : 1000)) return false;
      if (x != std::floor(x)) return bad(std::string(arg) + ": expected a whole number");
      (arg == "--steps" ? o.steps : o.iterations) = int(x);
    } else if (arg == "--budget") {
      if (!number(o.budget, 0.001, 1e6)) return false;
    } else if (arg == "--threads") {
      if (!number(x, 1, 64)) return false;
      if (x != std::floor(x)) return bad("--threads: expected a whole number");
      o.threads = int(x);
    } else if (arg == "--interleave") {
      o.interleave = true;
    } else if (arg == "--mujoco-max-gb") {
      if (!number(o.mujoco_max_gb, 0.001, 1e4)) return false;
    } else if (arg == "--methods" || arg == "--engines") {
      const char* v = value();
      if (!v) return bad(std::string(arg) + ": needs a value");
      std::vector<std::string> list = std::string_view(v) == "none" ? std::vector<std::string>{} : split(v);
      if (arg == "--methods") {
        o.methods = list;
        o.methods_given = true;
      } else {
        o.engines = list;
        o.engines_given = true;
      }
    } else if (arg == "--csv" || arg == "--metrics") {
      const char* v = value();
      if (!v || !*v) return bad(std::string(arg) + ": needs a file name");
      (arg == "--csv" ? o.csv : o.metrics) = v;
    } else if (arg == "--set") {
      const char* v = value();
      const std::string_view text = v ? v : "";
      const size_t eq = text.find('=');
      if (!v || eq == std::string_view::npos || eq == 0)
        return bad("--set: expected NAME=VALUE, got '" + cl::escape_for_message(text) + "'");
      o.params.emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
    } else if (arg == "-h" || arg == "--help") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (arg.starts_with("-")) {
      return bad("unknown option '" + cl::escape_for_message(arg) + "'");
    } else {
      o.scenes.emplace_back(arg);
    }
  }
  if (o.scenes.empty()) return bad("no scene given");
  return true;
}

// The per-step CSV (--metrics), or nothing when not asked.
class StepCsv {
 public:
  bool open(const std::string& path) {
    if (path.empty()) return true;
    out_.open(path);
    if (!out_) return false;
    out_.precision(10);
    out_ << kStepColumns << '\n';
    return bool(out_);
  }
  bool enabled() const { return out_.is_open(); }
  // A ContactLab step: every column as contactlab --metrics writes it.
  void add_contactlab(const std::string& lane, const std::string& scene, const cl::StepStats& s, double wall_ms,
                      double drift, std::string_view solver) {
    if (!enabled()) return;
    const cl::StepProfile& p = s.profile;
    out_ << lane << ',' << solver << ',' << cl::csv_field(scene) << ',' << s.step << ',' << s.time << ',' << wall_ms << ','
         << p.broad_phase << ',' << p.narrow_phase << ',' << p.graph << ',' << p.solve << ',' << p.integrate << ','
         << s.pairs << ',' << s.contacts << ',' << s.groups << ',' << s.layers << ',' << s.sleeping << ','
         << s.iterations << ',' << s.residual << ',' << s.max_penetration << ',' << s.mean_penetration << ','
         << s.kinetic_energy << ',' << s.potential_energy << ',' << drift << '\n';
  }
  // A peer's step: the columns a peer has (the stage times, pairs, groups, layers, sleeping, iterations and
  // residual it does not report are left empty).
  void add_peer(const std::string& lane, const std::string& solver, const std::string& scene, int step, double time,
                double wall_ms, const peers::PeerContacts& c, double kinetic, double potential, double drift) {
    if (!enabled()) return;
    out_ << lane << ',' << solver << ',' << cl::csv_field(scene) << ',' << step << ',' << time << ',' << wall_ms
         << ",,,,,,," << c.contacts << ",,,,,," << c.max_penetration << ',' << c.mean_penetration << ',' << kinetic
         << ',' << potential << ',' << drift << '\n';
  }
  bool close() {
    if (!enabled()) return true;
    out_.close();
    return !out_.fail();
  }

 private:
  std::ofstream out_;
};

// The largest distance of a dynamic body from where it started, m.
double drift_of(const cl::World& start, const cl::World& now) {
  double d = 0;
  for (size_t i = 0; i < start.bodies.size(); ++i)
    if (start.bodies[i].is_dynamic()) d = std::max(d, (now.bodies[i].position - start.bodies[i].position).norm());
  return d;
}

// How far the dynamic body that started highest (largest y; the top of a stack) ends from its start, m.
double top_drift_of(const cl::World& start, const cl::World& now) {
  int top = -1;
  for (size_t i = 0; i < start.bodies.size(); ++i)
    if (start.bodies[i].is_dynamic() && (top < 0 || start.bodies[i].position.y() > start.bodies[size_t(top)].position.y()))
      top = int(i);
  return top < 0 ? 0.0 : (now.bodies[size_t(top)].position - start.bodies[size_t(top)].position).norm();
}

double now_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The process's CPU time so far, ms.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * double(t.tv_sec) + 1e-6 * double(t.tv_nsec);
}

// The --set values a method takes (those of its parameters), as its runs name them: " [NAME=VALUE ...]", or "".
std::string settings_label(const std::string& method, const Options& o) {
  const MethodSpec spec = parse_method(method);
  const cl::ParamSet params(cl::find_solver(spec.name)->params);
  std::string applied;
  for (const auto& [name, text] : o.params)
    if (params.find(name)) applied += (applied.empty() ? "" : " ") + name + "=" + text;
  for (const auto& [name, text] : spec.params) applied += (applied.empty() ? "" : " ") + name + "=" + text;
  return applied.empty() ? "" : " [" + applied + "]";
}

// One run, stepped one step at a time, so that several runs can be interleaved step by step (--interleave): on a
// shared machine a change of load then falls on every run alike. start() prepares it (false: it ends at once,
// with its status), step() takes one step (false: the run has ended, by its steps, a failure or the budget),
// finish() reads the end state.
class Lane {
 public:
  virtual ~Lane() = default;
  virtual bool start() = 0;
  bool step(int s) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool more = step_once(s);
    spent_ms_ += now_ms(t0);
    if (more && spent_ms_ > o_.budget * 1000 && s + 1 < o_.steps) {
      run.status = "budget";
      run.message = "stopped after " + std::to_string(run.steps) + " of " + std::to_string(o_.steps) + " steps (" +
                    std::to_string(int(o_.budget)) + " s budget)";
      return false;
    }
    return more && s + 1 < o_.steps;
  }
  virtual void finish() = 0;
  Run run;

 protected:
  Lane(const cl::World& scene, const Options& o, StepCsv& csv, std::string lane)
      : scene_(scene), o_(o), csv_(csv), lane_(std::move(lane)) {}
  virtual bool step_once(int s) = 0;
  const cl::World& scene_;
  const Options& o_;
  StepCsv& csv_;
  std::string lane_;

 private:
  double spent_ms_ = 0;  // this run's own time (its steps and their bookkeeping), for the budget
};

class ContactlabLane : public Lane {
 public:
  ContactlabLane(const cl::World& scene, std::string method, const Options& o, StepCsv& csv, std::string lane)
      : Lane(scene, o, csv, std::move(lane)), method_(std::move(method)), w_(scene) {}

  bool start() override {
    const MethodSpec spec = parse_method(method_);
    run.engine = "contactlab";
    run.method = spec.name;
    w_.methods.clear();  // the benchmark runs every method on every scene on purpose (the scene lists its own)
    if (o_.threads > 0) w_.settings.threads = o_.threads;
    std::string error;
    if (!w_.set_solver(spec.name, &error)) {
      run.status = "failed";
      run.message = error;
      return false;
    }
    // Every body awake, and the iteration count of the peers where the method has one.
    cl::ParamSet& params = w_.solver().params();
    if (params.get("sleeping")) params.set("sleeping", 0, nullptr);
    if (params.get("iterations"))
      params.set("iterations", o_.iterations, nullptr);
    else
      run.iterations_matched = false;
    // --set, where the method has the parameter (checked in main before anything runs); the run's method names
    // the values it took, so that the table and the CSV tell such runs from ones at the defaults.
    for (const auto& [name, text] : o_.params)
      if (params.get(name)) params.set_from_string(name, text, nullptr);
    for (const auto& [name, text] : spec.params) {
      if (name == "threads")
        w_.settings.threads = std::atoi(text.c_str());
      else
        params.set_from_string(name, text, nullptr);
    }
    run.method += settings_label(method_, o_);
    return true;
  }

  void finish() override {
    run.drift = drift_of(scene_, w_);
    run.top_drift = top_drift_of(scene_, w_);
    run.kinetic = w_.kinetic_energy();
    run.potential = w_.potential_energy();
  }

 private:
  bool step_once(int) override {
    const double c0 = cpu_ms();
    const auto t0 = std::chrono::steady_clock::now();
    const cl::StepResult r = w_.step();
    const double ms = now_ms(t0);
    const double cpu = cpu_ms() - c0;
    if (!r.ok) {
      run.status = "failed";
      run.message = r.error;
      return false;
    }
    run.ms.push_back(ms);
    run.cpu.push_back(cpu);
    ++run.steps;
    const cl::StepStats& st = w_.last_stats();
    run.max_pen = std::max(run.max_pen, st.max_penetration);
    run.sum_mean_pen += st.mean_penetration;
    run.sum_contacts += st.contacts;
    if (csv_.enabled()) csv_.add_contactlab(lane_, scene_.name, st, ms, drift_of(scene_, w_), run.engine == "contactlab" ? parse_method(method_).name : method_);
    return true;
  }

  std::string method_;
  cl::World w_;
};

class PeerLane : public Lane {
 public:
  PeerLane(std::unique_ptr<peers::Peer> peer, const cl::World& scene, const Options& o, StepCsv& csv, std::string lane,
           std::vector<std::string>& notes)
      : Lane(scene, o, csv, std::move(lane)), peer_(std::move(peer)), notes_(notes), mirror_(scene) {}

  bool start() override {
    static const std::vector<std::pair<std::string, std::string>> kSolverName = {
        {"bullet", "sequential-impulse"}, {"ode", "quickstep"}, {"mujoco", "newton"}, {"dart", "dantzig"}};
    run.engine = peer_->name();
    for (const auto& [engine, solver] : kSolverName)
      if (engine == run.engine) run.method = solver;
    peers::PeerSettings settings;
    settings.iterations = o_.iterations;
    settings.mujoco_max_gb = o_.mujoco_max_gb;
    std::string error;
    if (!peer_->build(scene_, settings, &error)) {
      run.status = peer_->declined() ? "skipped" : "failed";
      run.message = error;
      return false;
    }
    for (const std::string& n : peer_->notes())
      if (std::find(notes_.begin(), notes_.end(), n) == notes_.end()) notes_.push_back(n);
    return true;
  }

  void finish() override {
    run.detail = peer_->run_summary();
    run.drift = drift_of(scene_, mirror_);
    run.top_drift = top_drift_of(scene_, mirror_);
    run.kinetic = mirror_.kinetic_energy();
    run.potential = mirror_.potential_energy();
  }

 private:
  // A copy of the scene (mirror_) holds the peer's state, so energies and drift are computed by the same code as
  // ContactLab's (World::kinetic_energy, potential_energy).
  bool step_once(int s) override {
    peers::PeerContacts contacts;
    std::string error;
    const double c0 = cpu_ms();
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = peer_->step(contacts, &error);
    const double ms = now_ms(t0);
    const double cpu = cpu_ms() - c0;
    if (!ok) {
      run.status = "failed";
      run.message = error;
      return false;
    }
    peer_->read_state(state_);
    for (size_t i = 0; i < state_.size(); ++i) {
      cl::Body& b = mirror_.bodies[i];
      if (!b.is_dynamic()) continue;
      peers::copy_state(state_[i], b);
      if (!b.position.allFinite() || !b.linear_velocity.allFinite() || !b.angular_velocity.allFinite()) {
        run.status = "failed";
        run.message = run.engine + ": body '" + cl::escape_for_message(b.name) + "' non-finite at step " + std::to_string(s + 1);
        return false;
      }
    }
    run.ms.push_back(ms);
    run.cpu.push_back(cpu);
    ++run.steps;
    run.max_pen = std::max(run.max_pen, contacts.max_penetration);
    run.sum_mean_pen += contacts.mean_penetration;
    run.sum_contacts += contacts.contacts;
    if (csv_.enabled())
      csv_.add_peer(lane_, run.engine, scene_.name, s + 1, (s + 1) * scene_.settings.dt, ms, contacts,
                    mirror_.kinetic_energy(), mirror_.potential_energy(), drift_of(scene_, mirror_));
    return true;
  }

  std::unique_ptr<peers::Peer> peer_;
  std::vector<std::string>& notes_;
  cl::World mirror_;
  std::vector<peers::PeerBodyState> state_;
};

// Steps the lanes: one after the other, or with `interleave` step by step in turn (step 1 of every lane, then
// step 2, ...), so that the runs share the machine's load alike.
void run_lanes(std::vector<std::unique_ptr<Lane>>& lanes, bool interleave, int steps) {
  std::vector<char> going(lanes.size());
  for (size_t i = 0; i < lanes.size(); ++i) going[i] = lanes[i]->start();
  if (interleave) {
    for (int s = 0; s < steps; ++s)
      for (size_t i = 0; i < lanes.size(); ++i)
        if (going[i]) going[i] = lanes[i]->step(s);
  } else {
    for (size_t i = 0; i < lanes.size(); ++i)
      for (int s = 0; going[i] && s < steps; ++s) going[i] = lanes[i]->step(s);
  }
  for (auto& lane : lanes) lane->finish();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;

  // The methods and engines asked for, checked before anything runs.
  std::vector<std::string> methods = o.methods;
  if (!o.methods_given)
    for (const cl::SolverInfo& s : cl::solver_registry()) methods.push_back(s.name);
  for (const std::string& m : methods) {
    const MethodSpec spec = parse_method(m);
    if (!cl::find_solver(spec.name)) {
      bad("--methods: unknown method '" + cl::escape_for_message(spec.name) + "' (registered: " + cl::solver_names() + ")");
      return 2;
    }
    cl::ParamSet set(cl::find_solver(spec.name)->params);
    for (const auto& [name, text] : spec.params) {
      std::string error;
      if (name == "threads") {  // the world's threads (as --threads), not a method parameter
        char* end = nullptr;
        const long n = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || n < 1 || n > 64) error = "expected a whole number in [1, 64]";
      } else if (!set.find(name)) {
        error = "no such parameter";
      }
      if (!error.empty()) {
        bad("--methods " + cl::escape_for_message(m) + ": " + cl::escape_for_message(name) + ": " + error);
        return 2;
      }
      if (name == "threads") continue;
      if (error.empty()) set.set_from_string(name, text, &error);
      if (!error.empty()) {
        bad("--methods " + cl::escape_for_message(m) + ": " + cl::escape_for_message(name) + ": " + error);
        return 2;
      }
    }
  }
  // Each --set names a parameter of at least one method run, with a value every method that has it takes.
  for (const auto& [name, text] : o.params) {
    std::vector<std::string> takers;
    for (const std::string& m : methods) {
      cl::ParamSet set(cl::find_solver(parse_method(m).name)->params);
      if (!set.find(name)) continue;
      std::string error;
      if (!set.set_from_string(name, text, &error)) {
        bad("--set " + cl::escape_for_message(name) + "=" + cl::escape_for_message(text) + ": " + m + ": " + error);
        return 2;
      }
      takers.push_back(m);
    }
    if (takers.empty()) {
      std::string run;
      for (const std::string& m : methods) run += (run.empty() ? "" : ", ") + m;
      bad("--set " + cl::escape_for_message(name) + ": no method run has this parameter (methods: " +
          (run.empty() ? "none" : run) + ")");
      return 2;
    }
  }
  std::vector<std::unique_ptr<peers::Peer>> all = peers::make_peers();
  std::vector<std::string> engine_names;
  for (const auto& p : all) engine_names.push_back(p->name());
  std::vector<std::string> engines = o.engines_given ? o.engines : engine_names;
  for (const std::string& e : engines)
    if (std::find(engine_names.begin(), engine_names.end(), e) == engine_names.end()) {
      std::string built;
      for (const std::string& n : engine_names) built += (built.empty() ? "" : ", ") + n;
      bad("--engines: '" + cl::escape_for_message(e) + "' is not a peer of this build (built: " +
          (built.empty() ? "none" : built) + ")");
      return 2;
    }

  // Every scene loads and every engine asked for can take it, or nothing runs.
  std::vector<cl::World> worlds;
  for (const std::string& path : o.scenes) {
    cl::SceneLoadResult r = cl::load_scene_file(path);
    if (!r.ok()) {
      std::fprintf(stderr, "contactlab_peers: %s\n", r.error.c_str());
      return 2;
    }
    for (const std::string& e : engines) {
      const std::string why = peers::check_convertible(r.world, path, e);
      if (!why.empty()) {
        std::fprintf(stderr, "contactlab_peers: %s\n", why.c_str());
        return 2;
      }
    }
    worlds.push_back(std::move(r.world));
  }

  StepCsv step_csv;
  if (!step_csv.open(o.metrics)) {
    std::fprintf(stderr, "contactlab_peers: --metrics %s: cannot write\n", cl::escape_for_message(o.metrics).c_str());
    return 2;
  }
  std::ofstream run_csv;
  if (!o.csv.empty()) {
    run_csv.open(o.csv);
    if (!run_csv) {
      std::fprintf(stderr, "contactlab_peers: --csv %s: cannot write\n", cl::escape_for_message(o.csv).c_str());
      return 2;
    }
    run_csv.precision(8);
    run_csv << kRunColumns << '\n';
  }

  bool any_failed = false;
  std::vector<std::string> notes;
  for (size_t k = 0; k < worlds.size(); ++k) {
    const cl::World& scene = worlds[k];
    int dynamic = 0;
    for (const cl::Body& b : scene.bodies) dynamic += b.is_dynamic() ? 1 : 0;
    std::printf("%s: %zu bodies (%d dynamic), %d steps of %g s, %d iterations\n", scene.name.c_str(),
                scene.bodies.size(), dynamic, o.steps, scene.settings.dt, o.iterations);
    // The method column fits the longest label (a method with its --set values and "(own it.)").
    int width = 26;
    for (const std::string& m : methods)
      width = std::max(width, int((parse_method(m).name + settings_label(m, o) + " (own it.)").size()));
    std::printf("%-11s %-*s %9s %9s %9s %9s %11s %11s %11s %11s %9s  %s\n", "engine", width, "method", "ms med", "ms p95",
                "x bullet", "cpu med", "drift m", "max pen m", "mean pen m", "KE end J", "contacts", "status");
    std::fflush(stdout);
    std::vector<Run> runs;
    int lane = 0;
    double bullet_ms = 0, bullet_cpu = 0;  // Bullet's medians on this scene, when it ran
    auto report = [&](const Run& r) {
      const double n = std::max(1, r.steps);
      const bool ratio = bullet_ms > 0 && r.steps > 0;
      char ratio_text[32] = "";
      char cpu_ratio_text[32] = "";
      if (ratio) std::snprintf(ratio_text, sizeof ratio_text, "%.3f", r.ms_median() / bullet_ms);
      if (ratio && bullet_cpu > 0) std::snprintf(cpu_ratio_text, sizeof cpu_ratio_text, "%.3f", r.cpu_median() / bullet_cpu);
      std::string method = r.method + (r.iterations_matched ? "" : " (own it.)");
      std::printf("%-11s %-*s %9.3f %9.3f %9s %9.3f %11.3g %11.3g %11.3g %11.3g %9.0f  %s%s%s\n", r.engine.c_str(), width,
                  method.c_str(), r.ms_median(), r.ms_p95(), ratio ? ratio_text : "-", r.steps > 0 ? r.cpu_median() : 0.0, r.drift, r.max_pen, r.sum_mean_pen / n, r.kinetic,
                  r.sum_contacts / n, r.status.c_str(), r.message.empty() ? "" : ": ",
                  cl::escape_for_message(r.message).c_str());
      std::fflush(stdout);
      if (run_csv.is_open())
        run_csv << cl::csv_field(scene.name) << ',' << r.engine << ',' << r.method << ',' << scene.bodies.size() << ','
                << scene.settings.dt << ',' << r.steps << ',' << (r.iterations_matched ? std::to_string(o.iterations) : "")
                << ',' << r.status << ',' << r.ms_median() << ',' << r.ms_p95() << ',' << r.drift << ',' << r.max_pen
                << ',' << r.sum_mean_pen / n << ',' << r.kinetic << ',' << r.potential << ',' << r.sum_contacts / n
                << ',' << ratio_text << ',' << r.top_drift << ',' << (r.steps > 0 ? r.cpu_median() : 0.0) << ','
                << cpu_ratio_text << '\n';
      if (r.status == "failed") any_failed = true;
      runs.push_back(r);
    };
    std::vector<std::unique_ptr<Lane>> lanes;
    for (const std::string& m : methods)
      lanes.push_back(std::make_unique<ContactlabLane>(scene, m, o, step_csv, std::to_string(++lane)));
    for (const std::string& e : engines) {
      // A fresh engine per scene, its world built once and then stepped.
      std::unique_ptr<peers::Peer> fresh;
      for (auto& q : peers::make_peers())
        if (q->name() == e) fresh = std::move(q);
      lanes.push_back(std::make_unique<PeerLane>(std::move(fresh), scene, o, step_csv, std::to_string(++lane), notes));
    }
    run_lanes(lanes, o.interleave, o.steps);
    for (const auto& l : lanes)
      if (l->run.engine == "bullet" && l->run.status == "ok" && l->run.steps > 0) {
        bullet_ms = l->run.ms_median();
        bullet_cpu = l->run.cpu_median();
      }
    for (const auto& l : lanes) report(l->run);
    for (const Run& r : runs)
      if (!r.detail.empty()) std::printf("  %s\n", r.detail.c_str());
    std::printf("\n");
  }
  std::printf("ms: wall time of one step; cpu: the process's CPU time of one step (all threads); drift: the largest distance a dynamic body ends from its start; pen: "
              "depth of the contacts found at the start of a step (max over the run; mean over the steps of the "
              "mean over penetrating contacts); KE: kinetic energy after the last step; contacts: per step, mean.\n");
  std::printf("contactlab: continuous collision as the scene says, sleeping off, 'iterations' = %d where the method "
              "has it ('own it.': the method has no such parameter and runs its own defaults)\n", o.iterations);
  for (const auto& p : all) std::printf("%s\n", p->version().c_str());
  for (const std::string& n : notes) std::printf("%s\n", n.c_str());
  if (!step_csv.close() || (run_csv.is_open() && (run_csv.close(), run_csv.fail()))) {
    std::fprintf(stderr, "contactlab_peers: writing the CSV failed\n");
    return 2;
  }
  return any_failed ? 3 : 0;
}
