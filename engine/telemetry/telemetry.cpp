#include "telemetry/telemetry.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string_view>

#include "core/output_file.h"

namespace cl {

const char* step_stage_name(StepStage stage) {
  switch (stage) {
    case StepStage::NarrowPhase: return "narrow_phase";
    case StepStage::Solve: return "solve";
    case StepStage::Integrate: return "integrate";
  }
  return "";
}

double stage_ms(const StepProfile& profile, StepStage stage) {
  switch (stage) {
    case StepStage::NarrowPhase: return profile.narrow_phase;
    case StepStage::Solve: return profile.solve;
    case StepStage::Integrate: return profile.integrate;
  }
  return 0.0;
}

void add_solver_columns(std::vector<SolverColumn>& columns, const StepStats& s) {
  auto add = [&](const SolverColumn& c) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
  };
  for (const SubStage& st : s.sub_stages.stages()) add({st.name, true});
  for (const SolverCounter& k : s.counters.counters()) add({k.name, false});
}

namespace {

constexpr const char* kCsvColumns =
    "step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,"
    "pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,mean_penetration,"
    "kinetic_energy,potential_energy,signorini_m,adhesion_N,cone_N,dissipation_W,complementarity_W,normal_force_N,"
    "energy_change_J,momentum_error_Ns,angular_momentum_error_Nms";

// A measure, or nothing for one not measured (NaN).
struct Measured {
  double v;
};
std::ostream& operator<<(std::ostream& out, Measured m) {
  if (!std::isnan(m.v)) out << m.v;
  return out;
}

void csv_header(std::ostream& out, const std::vector<SolverColumn>& extra, std::string_view leading = {}) {
  out.precision(10);
  if (!leading.empty()) out << leading << ',';
  out << kCsvColumns;
  for (const SolverColumn& c : extra) out << ',' << c.name << (c.stage ? "_ms" : "");
  out << '\n';
}

void csv_row(std::ostream& out, const StepStats& s, const std::vector<SolverColumn>& extra,
             std::string_view leading = {}) {
  const StepProfile& p = s.profile;
  if (!leading.empty()) out << leading << ',';
  out << s.step << ',' << s.time << ',' << p.total << ',' << p.broad_phase << ',' << p.narrow_phase << ','
      << p.graph << ',' << p.solve << ',' << p.integrate << ',' << s.pairs << ',' << s.contacts << ','
      << s.groups << ',' << s.layers << ',' << s.sleeping << ',' << s.iterations << ',' << s.residual << ','
      << s.max_penetration << ',' << s.mean_penetration << ',' << s.kinetic_energy << ',' << s.potential_energy;
  const ContactResiduals& r = s.residuals;
  out << ',' << r.signorini << ',' << r.adhesion << ',' << r.cone << ',' << r.dissipation << ',' << r.complementarity
      << ',' << r.normal_force << ',' << s.energy_change << ',' << Measured{s.momentum_error} << ','
      << Measured{s.angular_momentum_error};
  const auto stages = s.sub_stages.stages();
  const auto counters = s.counters.counters();
  for (const SolverColumn& c : extra) {
    out << ',';
    if (c.stage) {
      auto it = std::find_if(stages.begin(), stages.end(), [&](const SubStage& st) { return c.name == st.name; });
      if (it != stages.end()) out << it->ms;
    } else {
      auto it = std::find_if(counters.begin(), counters.end(), [&](const SolverCounter& k) { return c.name == k.name; });
      if (it != counters.end()) out << it->value;
    }
  }
  out << '\n';
}

// Steps are laid end to end on one track using their measured wall times (microseconds), each stage a nested
// complete event ("ph": "X") inside its step. `t` is where the next step starts.
void trace_begin(std::ostream& out) {
  out.precision(12);
  out << "{\"traceEvents\":[\n";
  out << R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"ContactLab"}})";
}

void trace_step(std::ostream& out, const StepStats& s, double& t) {
  auto event = [&](const char* name, double start_us, double dur_us, const char* cat = "step") {
    out << ",\n{\"name\":\"" << name << "\",\"cat\":\"" << cat << "\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":"
        << start_us << ",\"dur\":" << dur_us << ",\"args\":{\"step\":" << s.step << ",\"contacts\":" << s.contacts
        << "}}";
  };
  const StepProfile& p = s.profile;
  event("step", t, p.total * 1e3);
  double u = t;
  const std::pair<const char*, double> stages[] = {{"broad_phase", p.broad_phase}, {"narrow_phase", p.narrow_phase},
                                                   {"graph", p.graph},             {"solve", p.solve},
                                                   {"integrate", p.integrate}};
  for (const auto& [name, ms] : stages) {
    event(name, u, ms * 1e3);
    // The solver's sub-stages of this stage, end to end from its start (their order, not their real start
    // times: a sub-stage may be entered many times per step, e.g. once per pair).
    double v = u;
    for (const SubStage& st : s.sub_stages.stages())
      if (std::string_view(step_stage_name(st.parent)) == name) {
        event(st.name, v, st.ms * 1e3, "solver");
        v += st.ms * 1e3;
      }
    u += ms * 1e3;
  }
  t += std::max(p.total * 1e3, u - t);
}

void trace_end(std::ostream& out) { out << "\n],\"displayTimeUnit\":\"ms\"}\n"; }

// Moves what the stream holds into the file (the stream then starts empty).
bool drain(std::ostringstream& text, OutputFile& file, std::string* error) {
  std::string why;
  const bool ok = file.write(text.view(), why);
  text.str({});
  if (!ok && error) *error = why;
  return ok;
}

// Writes the whole text of a recording through an OutputFile (the old file stays until the new one is complete).
bool write_whole(const std::string& path, const char* what, const std::ostringstream& text, std::string* error) {
  std::string why;
  if (write_output_file(path, text.view(), what, why)) return true;
  if (error) *error = why;
  return false;
}

}  // namespace

bool Recorder::write_csv(const std::string& path, std::string* error) const {
  std::ostringstream out;
  // The solvers' sub-stages and counters of all rows, in order of first appearance (a recording may span a
  // solver switch).
  std::vector<SolverColumn> extra;
  for (const StepStats& s : rows_) add_solver_columns(extra, s);
  csv_header(out, extra);
  for (const StepStats& s : rows_) csv_row(out, s, extra);
  return write_whole(path, "metrics file", out, error);
}

bool Recorder::write_trace(const std::string& path, std::string* error) const {
  std::ostringstream out;
  trace_begin(out);
  double t = 0.0;
  for (const StepStats& s : rows_) trace_step(out, s, t);
  trace_end(out);
  return write_whole(path, "trace file", out, error);
}

bool StepWriter::open(const std::string& csv_path, const std::string& trace_path, std::string* error) {
  csv_path_ = csv_path;
  trace_path_ = trace_path;
  std::string why;
  const auto fail = [&] {
    if (error) *error = why;
    discard();
    return false;
  };
  if (!csv_path.empty() && !csv_file_.open(csv_path, "metrics file", why)) return fail();
  if (!trace_path.empty()) {
    if (!trace_file_.open(trace_path, "trace file", why)) return fail();
    trace_begin(trace_);
  }
  return true;
}

void StepWriter::set_leading_columns(std::string names) { leading_ = std::move(names); }

void StepWriter::add_solver_columns(const StepStats& s) {
  cl::add_solver_columns(extra_, s);
  extra_given_ = true;
}

bool StepWriter::add(const StepStats& s, std::string* error, std::string_view leading) {
  constexpr std::streamoff kChunk = 1 << 16;  // bytes held before they go to the file
  if (csv_file_.is_open()) {
    if (!header_) {
      if (!extra_given_) cl::add_solver_columns(extra_, s);
      csv_header(csv_, extra_, leading_);
      header_ = true;
    }
    csv_row(csv_, s, extra_, leading);
    if (csv_.tellp() >= kChunk && !drain(csv_, csv_file_, error)) return discard(), false;
  }
  if (trace_file_.is_open()) {
    trace_step(trace_, s, t_);
    if (trace_.tellp() >= kChunk && !drain(trace_, trace_file_, error)) return discard(), false;
  }
  ++steps_;
  return true;
}

bool StepWriter::close(std::string* error) {
  std::string why;
  const auto failed = [&] {
    if (error && !why.empty()) *error = why;
    discard();
    return false;
  };
  // Both files finished (where a full disk shows) before either goes in place.
  if (csv_file_.is_open()) {
    if (!header_) csv_header(csv_, extra_, leading_);  // no step taken: the header alone
    if (!drain(csv_, csv_file_, error) || !csv_file_.finish(why)) return failed();
  }
  if (trace_file_.is_open()) {
    trace_end(trace_);
    if (!drain(trace_, trace_file_, error) || !trace_file_.finish(why)) return failed();
  }
  if (csv_file_.is_open() && !csv_file_.publish(why)) return failed();
  if (trace_file_.is_open() && !trace_file_.publish(why)) return failed();
  return true;
}

void StepWriter::discard() {
  csv_file_.discard();
  trace_file_.discard();
}

}  // namespace cl
