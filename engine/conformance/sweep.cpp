#include "conformance/sweep.h"

#include <cmath>
#include <cstdio>

namespace cl::conformance {

double Scale::time() const { return std::sqrt(length); }
double Scale::speed() const { return std::sqrt(length); }

Scale scale_of(const CaseScale& scale, const Condition& condition) {
  return {condition.size / scale.size, condition.mass / scale.mass};
}

const std::vector<int>& sweep_rates() {
  static const std::vector<int> rates = {30, 60, 120, 250, 500, 1000};
  return rates;
}

const std::vector<double>& sweep_sizes() {
  static const std::vector<double> sizes = {0.02, 0.1, 1.0, 4.0};
  return sizes;
}

const std::vector<double>& sweep_masses() {
  static const std::vector<double> masses = {0.01, 1e5};
  return masses;
}

Condition nominal(const CaseScale& scale) { return {1.0 / 60.0, scale.size, scale.mass}; }

std::vector<Condition> sweep_conditions(const CaseScale& scale) {
  std::vector<Condition> out;
  for (int rate : sweep_rates()) {
    const double dt = 1.0 / rate;
    out.push_back({dt, scale.size, scale.mass});
    if (!scale.sweeps) continue;
    for (double size : sweep_sizes()) {
      if (size == scale.size) continue;
      const double l = size / scale.size;
      out.push_back({dt, size, scale.mass * l * l * l});
    }
    for (double mass : sweep_masses())
      if (mass != scale.mass) out.push_back({dt, scale.size, mass});
  }
  return out;
}

namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

std::string format_length(double m) {
  if (m >= 1.0) return number(m) + " m";
  if (m >= 0.01) return number(m * 100) + " cm";
  return number(m * 1000) + " mm";
}

std::string format_mass(double kg) {
  if (kg >= 1000.0) return number(kg / 1000) + " t";
  if (kg >= 1.0) return number(kg) + " kg";
  return number(kg * 1000) + " g";
}

std::string condition_name(const Condition& c) {
  const double rate = 1.0 / c.dt;
  const std::string step = std::abs(rate - std::round(rate)) < 1e-9 * rate ? "1/" + std::to_string(std::lround(rate)) + " s"
                                                                          : number(c.dt) + " s";
  return step + ", " + format_length(c.size) + ", " + format_mass(c.mass);
}

}  // namespace cl::conformance
