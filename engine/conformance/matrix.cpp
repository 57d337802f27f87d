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

bool Matrix::passes() const {
  return std::none_of(cells.begin(), cells.end(), [](const CellResult& c) { return c.verdict == Verdict::Fail; });
}

std::string case_names() {
  std::string names;
  for (const Case& c : cases()) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

Matrix run_matrix(const std::string& scene_dir, std::vector<std::string> solvers,
                  const std::vector<std::string>& names, int jobs, const std::function<void(const CellResult&)>& done) {
  Matrix m;
  if (solvers.empty())
    for (const SolverInfo& info : solver_registry()) solvers.push_back(info.name);
  m.solvers = std::move(solvers);
  if (names.empty())
    for (const Case& c : cases()) m.cases.push_back(&c);
  for (const std::string& name : names) {
    const Case* c = find_case(name);
    if (!c) throw std::invalid_argument("unknown conformance case '" + name + "' (cases: " + case_names() + ")");
    m.cases.push_back(c);
  }
  m.cells.resize(m.cases.size() * m.solvers.size());

  // Workers take the next cell from a shared counter; each writes only its own slot.
  std::atomic<size_t> next{0};
  std::mutex report;
  auto work = [&] {
    for (size_t i = next++; i < m.cells.size(); i = next++) {
      m.cells[i] = run_case(*m.cases[i / m.solvers.size()], m.solvers[i % m.solvers.size()], scene_dir);
      if (done) {
        std::lock_guard<std::mutex> lock(report);
        done(m.cells[i]);
      }
    }
  };
  const int workers = std::clamp(jobs, 1, int(std::max<size_t>(m.cells.size(), 1)));
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

std::string cell_markdown(const CellResult& c) {
  const std::string figure = format_figure(c.value);
  switch (c.verdict) {
    case Verdict::Pass: return figure + " pass";
    case Verdict::Fail: return figure + " **FAIL**";
    case Verdict::MethodLimit: return figure + " method";
  }
  return figure;
}

std::string with_unit(const std::string& number, const std::string& unit) {
  return unit.empty() ? number : number + " " + unit;
}

}  // namespace

std::string matrix_markdown(const Matrix& m) {
  std::string out = "| case | figure | exact | tolerance |";
  for (const std::string& s : m.solvers) out += " `" + s + "` |";
  out += "\n|---|---|---|---|";
  for (size_t s = 0; s < m.solvers.size(); ++s) out += "---|";
  out += "\n";
  for (size_t i = 0; i < m.cases.size(); ++i) {
    const Case& c = *m.cases[i];
    out += "| `" + c.name + "` | " + escape_cell(c.measured) + (c.unit.empty() ? "" : ", " + c.unit) + " | " +
           format_exact(c.exact) + " | " + format_exact(c.tolerance) + " |";
    for (size_t s = 0; s < m.solvers.size(); ++s) out += " " + cell_markdown(m.cell(i, s)) + " |";
    out += "\n";
  }
  out += "\nEach cell is the figure measured at the solver's default parameters (3 significant digits) and its "
         "verdict: `pass` within the tolerance of the exact value, **FAIL** outside it (or a secondary check "
         "failed, or the run stopped: `-`), `method` fails because of the method (see below).\n\n";
  for (const Case* c : m.cases) {
    out += "- `" + c->name + "` ([`" + c->scene + "`](../scenes/conformance/" + c->scene + ")): exact " +
           with_unit(format_exact(c->exact), c->unit) + ", " + c->exact_source + ". Tolerance " +
           with_unit(format_exact(c->tolerance), c->unit) + ": " + c->tolerance_reason + ".\n";
  }
  bool any_marked = false;
  for (size_t i = 0; i < m.cases.size(); ++i) {
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const CellResult& cell = m.cell(i, s);
      if (cell.verdict != Verdict::MethodLimit) continue;
      if (!any_marked) out += "\nCells that fail because of the method:\n\n";
      any_marked = true;
      for (const MethodLimit& limit : m.cases[i]->limits)
        if (limit.solver == cell.solver)
          out += "- `" + cell.solver + "` on `" + cell.case_name + "` (" + format_figure(cell.value) + "): " +
                 limit.reason + ".\n";
    }
  }
  return out;
}

std::string matrix_text(const Matrix& m) {
  size_t name_width = 4;
  for (const Case* c : m.cases) name_width = std::max(name_width, c->name.size());
  std::vector<std::string> exact;
  size_t exact_width = 5;
  for (const Case* c : m.cases) {
    exact.push_back(with_unit(format_exact(c->exact) + " +- " + format_exact(c->tolerance), c->unit));
    exact_width = std::max(exact_width, exact.back().size());
  }
  std::vector<size_t> width;
  for (const std::string& s : m.solvers) width.push_back(std::max<size_t>(s.size(), 14));

  auto pad = [](std::string s, size_t w) {
    s.resize(std::max(s.size(), w), ' ');
    return s;
  };
  std::string out = pad("case", name_width) + "  " + pad("exact", exact_width);
  for (size_t s = 0; s < m.solvers.size(); ++s) out += "  " + pad(m.solvers[s], width[s]);
  while (out.back() == ' ') out.pop_back();
  out += "\n";
  for (size_t i = 0; i < m.cases.size(); ++i) {
    out += pad(m.cases[i]->name, name_width) + "  " + pad(exact[i], exact_width);
    for (size_t s = 0; s < m.solvers.size(); ++s) {
      const CellResult& c = m.cell(i, s);
      out += "  " + pad(format_figure(c.value) + " " + verdict_name(c.verdict), width[s]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  int pass = 0, marked = 0, failed = 0;
  double seconds = 0;
  std::string details;
  for (const CellResult& c : m.cells) {
    seconds += c.wall_seconds;
    if (c.verdict == Verdict::Pass) ++pass;
    else if (c.verdict == Verdict::MethodLimit) ++marked;
    else ++failed;
    if (c.verdict != Verdict::Pass) {
      char time[32];
      std::snprintf(time, sizeof time, " [%.2f s]", c.wall_seconds);
      details += "  " + c.solver + " / " + c.case_name + ": " + verdict_name(c.verdict) + ", " + c.message + time + "\n";
    }
  }
  char summary[160];
  std::snprintf(summary, sizeof summary, "%d cells: %d pass, %d fail because of the method, %d FAIL (%.1f s of runs)\n",
                int(m.cells.size()), pass, marked, failed, seconds);
  out += "\n" + std::string(summary);
  if (!details.empty()) out += details;
  return out;
}

}  // namespace cl::conformance
