#include "compare/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "solvers/registry.h"

namespace cl {

namespace {

double total_energy(const World& w) { return w.kinetic_energy() + w.potential_energy(); }

}  // namespace

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  const size_t k = std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
  return v[k];
}

void ComparisonSummary::begin(const Lanes& lanes) {
  acc_.assign(size_t(lanes.size()), Acc{});
  for (int i = 0; i < lanes.size(); ++i) acc_[size_t(i)].energy_start = total_energy(lanes.world(i));
}

void ComparisonSummary::add(const Lanes& lanes) {
  for (int i = 0; i < lanes.size() && i < int(acc_.size()); ++i) {
    Acc& a = acc_[size_t(i)];
    const StepStats& s = lanes.world(i).last_stats();
    if (s.step <= a.steps) continue;  // the lane did not step (it had stopped)
    a.steps = s.step;
    a.ms.push_back(s.profile.total);
    a.max_pen = std::max(a.max_pen, s.max_penetration);
    a.sum_mean_pen += s.mean_penetration;
    a.sum_iterations += s.iterations;
    a.residual = s.residual;
    a.sum_residuals.signorini += s.residuals.signorini;
    a.sum_residuals.cone += s.residuals.cone;
    a.sum_residuals.dissipation += s.residuals.dissipation;
    a.sum_residuals.complementarity += s.residuals.complementarity;
    if (!std::isnan(s.momentum_error)) a.momentum = std::max(a.momentum, s.momentum_error);
    if (!std::isnan(s.angular_momentum_error)) a.angular_momentum = std::max(a.angular_momentum, s.angular_momentum_error);
  }
}

std::vector<LaneSummary> ComparisonSummary::lanes(const Lanes& lanes) const {
  std::vector<LaneSummary> out;
  for (int i = 0; i < lanes.size() && i < int(acc_.size()); ++i) {
    const Acc& a = acc_[size_t(i)];
    const World& w = lanes.world(i);
    LaneSummary s;
    s.label = lane_label(w);
    s.steps = int64_t(a.ms.size());
    s.stopped = lanes.stopped(i);
    s.error = lanes.result(i).error;
    s.ms_median = quantile(a.ms, 0.5);
    s.ms_p95 = quantile(a.ms, 0.95);
    s.max_penetration = a.max_pen;
    const double n = std::max<double>(1.0, double(a.ms.size()));
    s.mean_penetration = a.sum_mean_pen / n;
    s.iterations_mean = a.sum_iterations / n;
    s.residual_last = a.residual;
    if (const SolverInfo* info = find_solver(w.solver().name())) {
      s.iterations_unit = info->iterations_unit;
      s.residual_unit = info->residual_unit;
    }
    s.signorini = a.sum_residuals.signorini / n;
    s.cone = a.sum_residuals.cone / n;
    s.dissipation = a.sum_residuals.dissipation / n;
    s.complementarity = a.sum_residuals.complementarity / n;
    s.momentum_error = a.momentum >= 0.0 ? a.momentum : std::nan("");
    s.angular_momentum_error = a.angular_momentum >= 0.0 ? a.angular_momentum : std::nan("");
    s.energy_start = a.energy_start;
    s.energy_end = total_energy(w);
    s.divergence = divergence(w, lanes.world(0));
    out.push_back(std::move(s));
  }
  return out;
}

std::string comparison_table(const std::string& scene, double dt, int64_t steps,
                             const std::vector<LaneSummary>& lanes) {
  std::string out;
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s: %lld steps of %g s, %zu lanes\n", scene.c_str(), (long long)steps, dt,
                lanes.size());
  out += buf;
  // One number format (%.4g) throughout; every column with its unit. Each method's own iterations and residual
  // are labelled with what they count, which differs between methods (docs/solvers.md).
  std::snprintf(buf, sizeof buf, "%-4s %-32s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s  %s\n",
                "lane", "solver", "ms med", "ms p95", "max pen mm", "mean pen mm", "E start J", "E drift J",
                "div max m", "div mean m", "signor mm", "cone N", "dissip W", "compl W", "mom N s", "angmom Nms",
                "own iterations / step, own residual (unit)");
  out += buf;
  auto measured = [](double v) {
    char text[32];
    if (std::isnan(v)) return std::string("-");
    std::snprintf(text, sizeof text, "%.4g", v);
    return std::string(text);
  };
  for (size_t i = 0; i < lanes.size(); ++i) {
    const LaneSummary& l = lanes[i];
    std::string label = l.label.size() > 32 ? l.label.substr(0, 29) + "..." : l.label;
    std::snprintf(buf, sizeof buf,
                  "%-4zu %-32s %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g "
                  "%10s %10s  %.4g %s, %.4g %s%s\n",
                  i + 1, label.c_str(), l.ms_median, l.ms_p95, l.max_penetration * 1e3, l.mean_penetration * 1e3,
                  l.energy_start, l.energy_end - l.energy_start, l.divergence.max, l.divergence.mean,
                  l.signorini * 1e3, l.cone, l.dissipation, l.complementarity, measured(l.momentum_error).c_str(),
                  measured(l.angular_momentum_error).c_str(), l.iterations_mean, l.iterations_unit.c_str(),
                  l.residual_last, l.residual_unit.c_str(), l.stopped ? "  STOPPED" : "");
    out += buf;
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].label.size() > 32) out += "lane " + std::to_string(i + 1) + ": " + lanes[i].label + "\n";
    if (lanes[i].stopped)
      out += "lane " + std::to_string(i + 1) + " stopped after " + std::to_string(lanes[i].steps) +
             " steps: " + lanes[i].error + "\n";
  }
  return out;
}

}  // namespace cl
