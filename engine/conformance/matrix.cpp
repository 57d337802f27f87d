#include "conformance/matrix.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "solvers/registry.h"

namespace cl::conformance {

Verdict Sweep::verdict() const {
  if (count(Verdict::Fail) > 0 || points.empty()) return Verdict::Fail;
  return count(Verdict::MethodLimit) > 0 ? Verdict::MethodLimit : Verdict::Pass;
}

int Sweep::count(Verdict v) const {
  return int(std::count_if(points.begin(), points.end(), [v](const CellResult& p) { return p.verdict == v; }));
}

const CellResult& Sweep::worst() const {
  size_t worst = 0;
  for (size_t i = 1; i < points.size(); ++i)
    if (points[i].badness() > points[worst].badness()) worst = i;
  return points[worst];
}

double Sweep::seconds() const {
  double s = 0.0;
  for (const CellResult& p : points) s += p.cpu_seconds;
  return s;
}

bool Matrix::passes() const {
  return std::none_of(cells.begin(), cells.end(), [](const Sweep& c) { return c.verdict() == Verdict::Fail; });
}

std::string case_names() {
  std::string names;
  for (const Case& c : cases()) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

Matrix run_matrix(const std::string& scene_dir, const MatrixOptions& options) {
  Matrix m;
  m.solvers = options.solvers;
  if (m.solvers.empty())
    for (const SolverInfo& info : solver_registry()) m.solvers.push_back(info.name);
  if (options.cases.empty())
    for (const Case& c : cases()) m.cases.push_back(&c);
  for (const std::string& name : options.cases) {
    const Case* c = find_case(name);
    if (!c) throw std::invalid_argument("unknown conformance case '" + name + "' (cases: " + case_names() + ")");
    m.cases.push_back(c);
  }
  m.cells.resize(m.cases.size() * m.solvers.size());

  // Every point to run: its cell and condition. Each cell's points are placed before the run, so each worker
  // writes only its own slot.
  struct Job {
    size_t cell;
    size_t point;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < m.cells.size(); ++i) {
    const Case& c = *m.cases[i / m.solvers.size()];
    const std::vector<Condition> conditions = options.sweep ? sweep_conditions(c.scale) : std::vector{nominal(c.scale)};
    m.cells[i].points.resize(conditions.size());
    for (size_t k = 0; k < conditions.size(); ++k) {
      m.cells[i].points[k].condition = conditions[k];
      jobs.push_back({i, k});
    }
  }

  // Workers take the next point from a shared counter.
  std::atomic<size_t> next{0};
  std::mutex report;
  auto work = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      const size_t i = jobs[j].cell;
      CellResult& point = m.cells[i].points[jobs[j].point];
      point = run_case(*m.cases[i / m.solvers.size()], m.solvers[i % m.solvers.size()], scene_dir, point.condition,
                       options.params);
      if (options.done) {
        std::lock_guard<std::mutex> lock(report);
        options.done(point);
      }
    }
  };
  const int workers = std::clamp(options.jobs, 1, int(std::max<size_t>(jobs.size(), 1)));
  std::vector<std::thread> threads;
  for (int t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return m;
}

std::string format_figure(double value) {
  if (!std::isfinite(value)) return "-";
  if (value == 0) value = 0;  // no "-0.00"
  char buf[32];
  if (value != 0 && (std::abs(value) < 1e-3 || std::abs(value) >= 1e5)) std::snprintf(buf, sizeof buf, "%.2e", value);
  else std::snprintf(buf, sizeof buf, "%#.3g", value);
  std::string s = buf;
  if (s.back() == '.') s.pop_back();  // "%#.3g" of 100 is "100."
  return s;
}

std::string format_exact(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

namespace {

// Table cells may not hold a bare '|'.
std::string escape_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

std::string with_unit(const std::string& number, const std::string& unit) {
  return unit.empty() ? number : number + " " + unit;
}

// "4.86 (exact 4.905 +- 0.1635) at 1/30 s, 1 m, 1 t": a point's figure and where it is.
std::string point_summary(const CellResult& p) {
  return format_figure(p.value) + " (exact " + format_exact(p.exact) + " +- " + format_exact(p.tolerance) + ") at " +
         condition_name(p.condition);
}

// "pass 36", "FAIL 3 of 36", "method 36 of 36".
std::string sweep_verdict(const Sweep& s, bool markdown) {
  const int n = int(s.points.size());
  switch (s.verdict()) {
    case Verdict::Pass: return "pass " + std::to_string(n);
    case Verdict::Fail:
      return std::string(markdown ? "**FAIL**" : "FAIL") + " " + std::to_string(s.count(Verdict::Fail)) + " of " +
             std::to_string(n);
    case Verdict::MethodLimit:
      return "method " + std::to_string(s.count(Verdict::MethodLimit)) + " of " + std::to_string(n);
  }
  return "?";
}

// The case's nominal point: "1 m, 1 t".
std::string nominal_point(const Case& c) { return format_length(c.scale.size) + ", " + format_mass(c.scale.mass); }

}  // namespace

std::string matrix_markdown(const Matrix& m) {
  std::string out = "| case | figure | exact | tolerance at 1/60 s |";
  for (const std::string& s : m.solvers) out += " `" + s + "` |";
  out += "\n|---|---|---|---|";
  for (size_t s = 0; s < m.solvers.size(); ++s) out += "---|";
  out += "\n";
  for (size_t i = 0; i < m.cases.size(); ++i) {
    const Case& c = *m.cases[i];
    const Condition at = nominal(c.scale);
    out += "| `" + c.name + "` | " + escape_cell(c.measured) + (c.unit.empty() ? "" : ", " + c.unit) + " | " +
           format_exact(c.exact) + " at " + nominal_point(c) + " | " + format_exact(tolerance_at(c, at)) + " |";
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const Sweep& cell = m.cell(i, s);
      out += " " + sweep_verdict(cell, true) + "; worst " + escape_cell(point_summary(cell.worst())) + " |";
    }
    out += "\n";
  }
  out += "\nEach cell is the verdict over the case's sweep and its worst point, the one furthest from its exact "
         "value in tolerances: its figure, the exact value and tolerance there, and its condition (time step, "
         "size, mass). `pass N`: all N points within their tolerances; **FAIL** k of N: k points outside theirs (or "
         "a secondary check failed, or the run stopped: `-`); `method`: points that fail because of the method "
         "(see below). Figures have 3 significant digits.\n\n";
  for (const Case* c : m.cases) {
    out += "- `" + c->name + "` ([`" + c->scene + "`](../scenes/conformance/" + c->scene + ")): exact " +
           with_unit(format_exact(c->exact), c->unit) + " at " + nominal_point(*c) + ", " + c->exact_source +
           ". Tolerance: " + c->tolerance_reason + ".";
    if (c->scale.sweeps) {
      out += " Swept over sizes and masses: " + c->scale.size_of + " and the mass of " + c->scale.mass_of;
      out += c->scale.power == 0 ? "; the figure does not scale.\n"
                                 : "; the figure scales as L^" + format_exact(c->scale.power) + ".\n";
    } else {
      out += " Swept over the time step only.\n";
    }
  }
  bool any_marked = false;
  for (size_t i = 0; i < m.cases.size(); ++i) {
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const Sweep& cell = m.cell(i, s);
      if (cell.count(Verdict::MethodLimit) == 0) continue;
      if (!any_marked) out += "\nCells that fail because of the method:\n\n";
      any_marked = true;
      for (const MethodLimit& limit : m.cases[i]->limits)
        if (limit.solver == m.solvers[s])
          out += "- `" + m.solvers[s] + "` on `" + m.cases[i]->name + "` (" + sweep_verdict(cell, true) + "): " +
                 limit.reason + ".\n";
    }
  }
  return out;
}

std::string matrix_text(const Matrix& m) {
  size_t solver_width = 6;
  for (const std::string& s : m.solvers) solver_width = std::max(solver_width, s.size());
  auto pad = [](std::string s, size_t w) {
    s.resize(std::max(s.size(), w), ' ');
    return s;
  };
  std::string out;
  for (size_t i = 0; i < m.cases.size(); ++i) {
    const Case& c = *m.cases[i];
    out += c.name + ": " + c.measured + (c.unit.empty() ? "" : " (" + c.unit + ")") + ", exact " +
           format_exact(c.exact) + " at " + nominal_point(c) + "\n";
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const Sweep& cell = m.cell(i, s);
      out += "  " + pad(m.solvers[s], solver_width) + "  " + pad(sweep_verdict(cell, false), 13) + "  worst " +
             point_summary(cell.worst()) + "\n";
    }
  }
  int points = 0, pass = 0, marked = 0, failed = 0;
  for (const Sweep& cell : m.cells) {
    points += int(cell.points.size());
    pass += cell.count(Verdict::Pass);
    marked += cell.count(Verdict::MethodLimit);
    failed += cell.count(Verdict::Fail);
  }
  char summary[200];
  std::snprintf(summary, sizeof summary, "%d cell%s, %d points: %d pass, %d fail because of the method, %d FAIL\n",
                int(m.cells.size()), m.cells.size() == 1 ? "" : "s", points, pass, marked, failed);
  out += "\n" + std::string(summary) + "CPU time of the runs:";
  for (size_t s = 0; s < m.solvers.size(); ++s) {
    double seconds = 0.0;
    for (size_t i = 0; i < m.cases.size(); ++i) seconds += m.cell(i, s).seconds();
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %s %.1f s", s == 0 ? "" : ",", m.solvers[s].c_str(), seconds);
    out += buf;
  }
  return out + "\n";
}

std::string matrix_points_text(const Matrix& m) {
  std::string out;
  for (size_t i = 0; i < m.cases.size(); ++i) {
    const Case& c = *m.cases[i];
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const Sweep& cell = m.cell(i, s);
      out += c.name + " under " + m.solvers[s] + ": " + c.measured + (c.unit.empty() ? "" : " (" + c.unit + ")") +
             ", " + sweep_verdict(cell, false) + "\n";
      for (const CellResult& p : cell.points) {
        char time[32];
        std::snprintf(time, sizeof time, " [%.2f s]", p.cpu_seconds);
        out += "  " + condition_name(p.condition) + ": " + format_figure(p.value) + " (exact " + format_exact(p.exact) +
               " +- " + format_exact(p.tolerance) + ") " + verdict_name(p.verdict) +
               (p.message.empty() ? "" : ", " + p.message) + time + "\n";
      }
    }
  }
  return out;
}

}  // namespace cl::conformance
