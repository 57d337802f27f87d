#include "solvers/params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace cl {

ParamSet::ParamSet(std::span<const ParamSpec> specs) : specs_(specs.begin(), specs.end()) {
  values_.reserve(specs_.size());
  for (const ParamSpec& s : specs_) values_.push_back(s.default_value);
}

const ParamSpec* ParamSet::find(std::string_view name) const {
  for (const ParamSpec& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<double> ParamSet::get(std::string_view name) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return values_[i];
  return std::nullopt;
}

static std::string format_number(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

bool ParamSet::set(std::string_view name, double value, std::string* error) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    const ParamSpec& s = specs_[i];
    if (s.name != name) continue;
    auto fail = [&](const std::string& why) {
      if (error) *error = "parameter '" + s.name + "': " + why;
      return false;
    };
    if (!std::isfinite(value)) return fail("expected a finite number");
    if (s.kind != ParamKind::Real && value != std::floor(value))
      return fail(std::string("expected ") + (s.kind == ParamKind::Bool ? "true or false" : "a whole number") +
                  ", got " + format_number(value));
    if (value < s.min || value > s.max)
      return fail("expected a value in [" + format_number(s.min) + ", " + format_number(s.max) + "]" +
                  (s.unit.empty() ? "" : " " + s.unit) + ", got " + format_number(value));
    values_[i] = value;
    return true;
  }
  if (error) {
    *error = "unknown parameter '" + std::string(name) + "' (known:";
    for (const ParamSpec& s : specs_) *error += " " + s.name;
    *error += ")";
  }
  return false;
}

bool ParamSet::set_from_string(std::string_view name, std::string_view text, std::string* error) {
  const ParamSpec* spec = find(name);
  if (!spec) return set(name, 0.0, error);  // produces the "unknown parameter" message
  // Words are matched in any case: TRUE, True and true are one value.
  const auto same_word = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
           });
  };
  if (spec->kind == ParamKind::Bool) {
    for (std::string_view word : {"true", "on", "1", "yes"})
      if (same_word(text, word)) return set(name, 1.0, error);
    for (std::string_view word : {"false", "off", "0", "no"})
      if (same_word(text, word)) return set(name, 0.0, error);
    if (error)
      *error = "parameter '" + spec->name + "': expected true or false (or on/off, yes/no, 1/0, in any case), got '" +
               std::string(text) + "'";
    return false;
  }
  if (spec->kind == ParamKind::Choice) {
    for (size_t c = 0; c < spec->choices.size(); ++c)
      if (same_word(spec->choices[c], text)) return set(name, double(c), error);
  }
  double v = 0.0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) {
    if (error) {
      *error = "parameter '" + spec->name + "': expected ";
      if (spec->kind == ParamKind::Choice) {
        *error += "one of";
        for (const std::string& c : spec->choices) *error += " " + c;
      } else {
        *error += spec->kind == ParamKind::Integer ? "a whole number" : "a number";
      }
      *error += ", got '" + std::string(text) + "'";
    }
    return false;
  }
  return set(name, v, error);
}

std::string ParamSet::to_string(size_t index) const {
  const ParamSpec& s = specs_[index];
  const double v = values_[index];
  switch (s.kind) {
    case ParamKind::Bool: return v != 0 ? "true" : "false";
    case ParamKind::Choice: return s.choices.at(size_t(v));
    case ParamKind::Integer: return std::to_string((long long)v);
    case ParamKind::Real: return format_number(v);
  }
  return format_number(v);
}

}  // namespace cl
