// Solver parameters published as data: one list per solver drives the scene file, `--set`, the UI panel
// and the table in docs/solvers.md, so a parameter never exists in one place and not another.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cl {

enum class ParamKind { Real, Integer, Bool, Choice };

struct ParamSpec {
  std::string name;      // as used in scene files and --set
  ParamKind kind = ParamKind::Real;
  std::string unit;      // "" when dimensionless
  double min = 0.0;      // inclusive range (for Choice: 0 .. choices.size()-1)
  double max = 1.0;
  double default_value = 0.0;
  std::string help;      // one line, shown as tooltip and in docs/solvers.md
  std::vector<std::string> choices;  // names of the values of a Choice parameter
};

// Values of a parameter list, stored as doubles (bools as 0/1, integers and choices as whole numbers).
class ParamSet {
 public:
  ParamSet() = default;
  explicit ParamSet(std::span<const ParamSpec> specs);

  std::span<const ParamSpec> specs() const { return specs_; }
  const ParamSpec* find(std::string_view name) const;
  std::optional<double> get(std::string_view name) const;  // nothing for a name the list does not have
  double value(size_t index) const { return values_[index]; }

  // Sets a value after checking kind and range; on failure returns false and explains in *error.
  bool set(std::string_view name, double value, std::string* error);
  // Parses "3", "0.5", "true", "off" or a choice name, then sets it.
  bool set_from_string(std::string_view name, std::string_view text, std::string* error);
  // The value as it would be written in a scene file or on the command line.
  std::string to_string(size_t index) const;

 private:
  std::vector<ParamSpec> specs_;
  std::vector<double> values_;
};

// A solver's parameter list bound to the typed fields of its settings struct S: each parameter is written once,
// as its spec next to the field that holds it, and read() fills a settings struct from a ParamSet in one pass.
// The field's type must fit the kind: double for Real, bool for Bool, an integer or enum for Integer and Choice
// (a choice's value is the index of its name).
template <class S>
class ParamTable {
 public:
  struct Entry {
    ParamSpec spec;
    std::function<void(S&, double)> store;
  };
  template <class T>
  static Entry bind(T S::*field, ParamSpec spec) {
    const bool fits = std::is_same_v<T, bool>     ? spec.kind == ParamKind::Bool
                      : std::is_floating_point_v<T> ? spec.kind == ParamKind::Real
                                                    : (std::is_integral_v<T> || std::is_enum_v<T>) &&
                                                          (spec.kind == ParamKind::Integer || spec.kind == ParamKind::Choice);
    if (!fits) throw std::logic_error("parameter '" + spec.name + "': its kind does not fit the field's type");
    return {std::move(spec), [field](S& s, double v) {
              if constexpr (std::is_same_v<T, bool>) s.*field = v != 0.0;
              else s.*field = static_cast<T>(v);
            }};
  }

  explicit ParamTable(std::vector<Entry> entries) : entries_(std::move(entries)) {
    for (const Entry& e : entries_) {
      for (const ParamSpec& s : specs_)
        if (s.name == e.spec.name) throw std::logic_error("parameter '" + s.name + "' is listed twice");
      specs_.push_back(e.spec);
    }
  }
  std::span<const ParamSpec> specs() const { return specs_; }
  // The settings for the values of `p`, which must have been made from this table's specs.
  S read(const ParamSet& p) const {
    S s{};
    for (size_t i = 0; i < entries_.size(); ++i) entries_[i].store(s, p.value(i));
    return s;
  }

 private:
  std::vector<Entry> entries_;
  std::vector<ParamSpec> specs_;
};

}  // namespace cl
