#include "telemetry/telemetry.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

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
    "kinetic_energy,potential_energy";

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

bool open_file(std::ofstream& out, const std::string& path, std::string* error) {
  errno = 0;
  out.open(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    if (error) *error = path + ": cannot open for writing" + (errno ? std::string(": ") + std::strerror(errno) : "");
    return false;
  }
  return true;
}

// Flushes and closes: a write error that only shows when the buffer reaches the file (a full disk) fails here.
bool close_file(std::ofstream& out, const std::string& path, std::string* error) {
  if (!out.is_open()) return true;
  errno = 0;
  out.flush();
  const bool flushed = bool(out);
  out.close();
  if (!flushed || out.fail()) {
    if (error) *error = path + ": write failed" + (errno ? std::string(": ") + std::strerror(errno) : "");
    return false;
  }
  return true;
}

}  // namespace

bool Recorder::write_csv(const std::string& path, std::string* error) const {
  std::ofstream out;
  if (!open_file(out, path, error)) return false;
  // The solvers' sub-stages and counters of all rows, in order of first appearance (a recording may span a
  // solver switch).
  std::vector<SolverColumn> extra;
  for (const StepStats& s : rows_) add_solver_columns(extra, s);
  csv_header(out, extra);
  for (const StepStats& s : rows_) csv_row(out, s, extra);
  return close_file(out, path, error);
}

bool Recorder::write_trace(const std::string& path, std::string* error) const {
  std::ofstream out;
  if (!open_file(out, path, error)) return false;
  trace_begin(out);
  double t = 0.0;
  for (const StepStats& s : rows_) trace_step(out, s, t);
  trace_end(out);
  return close_file(out, path, error);
}

bool StepWriter::open(const std::string& csv_path, const std::string& trace_path, std::string* error) {
  csv_path_ = csv_path;
  trace_path_ = trace_path;
  if (!csv_path.empty() && !open_file(csv_, csv_path, error)) return false;
  if (!trace_path.empty()) {
    if (!open_file(trace_, trace_path, error)) return false;
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
  if (csv_.is_open()) {
    if (!header_) {
      if (!extra_given_) cl::add_solver_columns(extra_, s);
      csv_header(csv_, extra_, leading_);
      header_ = true;
    }
    csv_row(csv_, s, extra_, leading);
    if (!csv_) {
      if (error) *error = csv_path_ + ": write failed";
      return false;
    }
  }
  if (trace_.is_open()) {
    trace_step(trace_, s, t_);
    if (!trace_) {
      if (error) *error = trace_path_ + ": write failed";
      return false;
    }
  }
  return true;
}

bool StepWriter::close(std::string* error) {
  if (csv_.is_open() && !header_) csv_header(csv_, extra_, leading_);  // no step taken: the header alone
  if (trace_.is_open()) trace_end(trace_);
  const bool csv_ok = close_file(csv_, csv_path_, error);
  const bool trace_ok = close_file(trace_, trace_path_, csv_ok ? error : nullptr);
  return csv_ok && trace_ok;
}

}  // namespace cl
