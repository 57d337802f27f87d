#include "viewer/plot_math.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace cl::viewer {

PlotRange robust_range(std::span<const double> samples) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (double s : samples)
    if (std::isfinite(s)) v.push_back(s);
  PlotRange r;
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  r.lo = std::min(0.0, v.front());
  const double top = v.back();
  // The 98th percentile: with 240 steps the 5 highest may be spikes; a range that reaches 1.5 times past it is not
  // worth clipping (every sample is then shown).
  const double p98 = v[size_t(std::floor(0.98 * double(v.size() - 1)))];
  const double span98 = p98 - r.lo;
  if (v.size() >= 10 && span98 > 0.0 && top - r.lo > 1.5 * span98) {
    r.hi = r.lo + 1.15 * span98;
    r.clipped = true;
  } else {
    r.hi = top;
  }
  if (!(r.hi > r.lo)) r.hi = r.lo + 1.0;
  return r;
}

SeriesSummary summarize(const History& h) {
  SeriesSummary s;
  double sum = 0.0;
  for (int i = 0; i < h.count; ++i) {
    const double v = h.at(i);
    if (!std::isfinite(v)) continue;
    s.min = s.count == 0 ? v : std::min(s.min, v);
    s.max = s.count == 0 ? v : std::max(s.max, v);
    sum += v;
    ++s.count;
  }
  s.mean = s.count > 0 ? sum / s.count : 0.0;
  return s;
}

ScaledUnit scale_unit(const std::string& unit, double largest) {
  ScaledUnit out{1.0, unit};
  // Plain units that take a prefix, with the power of ten they already carry ("ms" is 1e-3 s).
  struct Base {
    const char* unit;
    const char* stem;
    int power;
  };
  static constexpr Base kBases[] = {{"m", "m", 0}, {"mm", "m", -3}, {"s", "s", 0}, {"ms", "s", -3}, {"J", "J", 0},
                                    {"N", "N", 0}, {"W", "W", 0}};
  const Base* base = nullptr;
  for (const Base& b : kBases)
    if (unit == b.unit) base = &b;
  const double a = std::abs(largest);
  if (base == nullptr || !(a > 0.0) || !std::isfinite(a) || (a >= 1.0 && a < 1000.0)) return out;
  static constexpr std::pair<int, const char*> kPrefixes[] = {{-9, "n"}, {-6, "\u00b5"}, {-3, "m"}, {0, ""},
                                                             {3, "k"},  {6, "M"},       {9, "G"}};
  // The power of ten (a multiple of 3) of the value in the stem unit.
  const int power = std::clamp(3 * int(std::floor((std::log10(a) + base->power) / 3.0)), -9, 9);
  for (const auto& [p, prefix] : kPrefixes)
    if (p == power) {
      out.unit = std::string(prefix) + base->stem;
      out.factor = std::pow(10.0, base->power - power);
    }
  return out;
}

std::string short_number(double v) {
  char text[32];
  // Whole numbers up to a million as they are ("48200", shorter than "4.82e+04"), rounded to 3 significant digits.
  if (std::isfinite(v) && std::abs(v) >= 1000.0 && std::abs(v) < 1e6) {
    const double step = std::pow(10.0, std::floor(std::log10(std::abs(v))) - 2.0);
    std::snprintf(text, sizeof text, "%.0f", std::round(v / step) * step);
    return text;
  }
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

GridShape plot_grid_shape(int count, float width, float height, float min_width, float min_height, float aspect) {
  GridShape g;
  if (count <= 0 || width <= 0.0f) return g;
  double best = -1.0;
  const int most = std::max(1, std::min(count, int(width / std::max(min_width, 1.0f))));
  for (int c = 1; c <= most; ++c) {
    const int rows = (count + c - 1) / c;
    const float w = width / float(c), h = std::max(height / float(rows), min_height);
    // How close the cell's shape comes to the wanted one (1 at best), times how much of the area the rows fill
    // without scrolling.
    const double shape = std::min(double(w / h) / aspect, aspect / double(w / h));
    const double fill = std::min(1.0, double(height) / (double(rows) * h));
    const double score = shape * fill * fill;
    if (score > best + 1e-9) {
      best = score;
      g = {c, rows, w, h};
    }
  }
  return g;
}

SummaryColumn fit_summary_column(float width, float labels, float both, float max_only, float min_plot) {
  if (width - labels - both >= min_plot) return SummaryColumn::Both;
  if (width - labels - max_only >= min_plot) return SummaryColumn::MaxOnly;
  return SummaryColumn::None;
}

bool same_constant(std::span<const History* const> histories, double* value) {
  if (histories.empty()) return false;
  for (size_t i = 0; i < histories.size(); ++i) {
    const SeriesSummary s = histories[i] != nullptr ? summarize(*histories[i]) : SeriesSummary{};
    if (!s.constant() || (i > 0 && s.max != *value)) return false;
    *value = s.max;
  }
  return true;
}

}  // namespace cl::viewer
