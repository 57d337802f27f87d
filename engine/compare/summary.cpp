#include "compare/summary.h"

#include <algorithm>
#include <cstdio>

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
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: %lld steps of %g s, %zu lanes\n", scene.c_str(), (long long)steps, dt,
                lanes.size());
  out += buf;
  std::snprintf(buf, sizeof buf, "%-4s %-32s %9s %9s %11s %11s %12s %12s %11s %11s %9s %11s\n", "lane", "solver",
                "ms med", "ms p95", "max pen mm", "mean pen mm", "E start J", "E drift J", "div max m",
                "div mean m", "iters", "residual");
  out += buf;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const LaneSummary& l = lanes[i];
    std::string label = l.label.size() > 32 ? l.label.substr(0, 29) + "..." : l.label;
    std::snprintf(buf, sizeof buf, "%-4zu %-32s %9.3f %9.3f %11.4g %11.4g %12.5g %12.4g %11.4g %11.4g %9.1f %11.4g%s\n",
                  i + 1, label.c_str(), l.ms_median, l.ms_p95, l.max_penetration * 1e3, l.mean_penetration * 1e3,
                  l.energy_start, l.energy_end - l.energy_start, l.divergence.max, l.divergence.mean,
                  l.iterations_mean, l.residual_last, l.stopped ? "  STOPPED" : "");
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
