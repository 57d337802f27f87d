#include "telemetry/telemetry.h"

#include <algorithm>
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

bool Recorder::write_csv(const std::string& path, std::string* error) const {
  std::ofstream out(path);
  if (!out) {
    if (error) *error = path + ": cannot open for writing";
    return false;
  }
  // The solvers' sub-stages of all rows, in order of first appearance (a recording may span a solver switch).
  std::vector<std::string_view> extra;
  for (const StepStats& s : rows_)
    for (const SubStage& st : s.sub_stages.stages())
      if (std::find(extra.begin(), extra.end(), std::string_view(st.name)) == extra.end()) extra.push_back(st.name);
  out.precision(10);
  out << "step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,"
         "pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,mean_penetration,"
         "kinetic_energy,potential_energy";
  for (std::string_view name : extra) out << ',' << name << "_ms";
  out << '\n';
  for (const StepStats& s : rows_) {
    const StepProfile& p = s.profile;
    out << s.step << ',' << s.time << ',' << p.total << ',' << p.broad_phase << ',' << p.narrow_phase << ','
        << p.graph << ',' << p.solve << ',' << p.integrate << ',' << s.pairs << ',' << s.contacts << ','
        << s.groups << ',' << s.layers << ',' << s.sleeping << ',' << s.iterations << ',' << s.residual << ','
        << s.max_penetration << ',' << s.mean_penetration << ',' << s.kinetic_energy << ',' << s.potential_energy;
    const auto stages = s.sub_stages.stages();
    for (std::string_view name : extra) {
      out << ',';
      auto it = std::find_if(stages.begin(), stages.end(), [&](const SubStage& st) { return name == st.name; });
      if (it != stages.end()) out << it->ms;
    }
    out << '\n';
  }
  if (!out) {
    if (error) *error = path + ": write failed";
    return false;
  }
  return true;
}

bool Recorder::write_trace(const std::string& path, std::string* error) const {
  std::ofstream out(path);
  if (!out) {
    if (error) *error = path + ": cannot open for writing";
    return false;
  }
  // Steps are laid end to end on one track using their measured wall times (microseconds), each
  // stage a nested complete event ("ph": "X") inside its step.
  out << "{\"traceEvents\":[\n";
  out << R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"ContactLab"}})";
  double t = 0.0;
  auto event = [&](const char* name, double start_us, double dur_us, const StepStats& s, const char* cat = "step") {
    out << ",\n{\"name\":\"" << name << "\",\"cat\":\"" << cat << "\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":"
        << start_us << ",\"dur\":" << dur_us << ",\"args\":{\"step\":" << s.step << ",\"contacts\":" << s.contacts
        << "}}";
  };
  out.precision(12);
  for (const StepStats& s : rows_) {
    const StepProfile& p = s.profile;
    event("step", t, p.total * 1e3, s);
    double u = t;
    const std::pair<const char*, double> stages[] = {{"broad_phase", p.broad_phase}, {"narrow_phase", p.narrow_phase},
                                                     {"graph", p.graph},             {"solve", p.solve},
                                                     {"integrate", p.integrate}};
    for (const auto& [name, ms] : stages) {
      event(name, u, ms * 1e3, s);
      // The solver's sub-stages of this stage, end to end from its start (their order, not their real
      // start times: a sub-stage may be entered many times per step, e.g. once per pair).
      double v = u;
      for (const SubStage& st : s.sub_stages.stages())
        if (std::string_view(step_stage_name(st.parent)) == name) {
          event(st.name, v, st.ms * 1e3, s, "solver");
          v += st.ms * 1e3;
        }
      u += ms * 1e3;
    }
    t += std::max(p.total * 1e3, u - t);
  }
  out << "\n],\"displayTimeUnit\":\"ms\"}\n";
  if (!out) {
    if (error) *error = path + ": write failed";
    return false;
  }
  return true;
}

}  // namespace cl
