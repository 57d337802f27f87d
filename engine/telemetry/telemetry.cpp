#include "telemetry/telemetry.h"

#include <algorithm>
#include <fstream>

namespace cl {

bool Recorder::write_csv(const std::string& path, std::string* error) const {
  std::ofstream out(path);
  if (!out) {
    if (error) *error = path + ": cannot open for writing";
    return false;
  }
  out.precision(10);
  out << "step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,"
         "pairs,contacts,groups,layers,sleeping,iterations,residual,max_penetration,kinetic_energy,potential_energy\n";
  for (const StepStats& s : rows_) {
    const StepProfile& p = s.profile;
    out << s.step << ',' << s.time << ',' << p.total << ',' << p.broad_phase << ',' << p.narrow_phase << ','
        << p.graph << ',' << p.solve << ',' << p.integrate << ',' << s.pairs << ',' << s.contacts << ','
        << s.groups << ',' << s.layers << ',' << s.sleeping << ',' << s.iterations << ',' << s.residual << ',' << s.max_penetration << ','
        << s.kinetic_energy << ',' << s.potential_energy << '\n';
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
  auto event = [&](const char* name, double start_us, double dur_us, const StepStats& s) {
    out << ",\n{\"name\":\"" << name << "\",\"cat\":\"step\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" << start_us
        << ",\"dur\":" << dur_us << ",\"args\":{\"step\":" << s.step << ",\"contacts\":" << s.contacts << "}}";
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
