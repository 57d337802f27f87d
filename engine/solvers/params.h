// Solver parameters published as data: one list per solver drives the scene file, `--set`, the UI panel
// and the README table, so a parameter never exists in one place and not another.
#pragma once

#include <span>
#include <string>
#include <string_view>
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
  std::string help;      // one line, shown as tooltip and in the README
  std::vector<std::string> choices;  // names of the values of a Choice parameter
};

// Values of a parameter list, stored as doubles (bools as 0/1, integers and choices as whole numbers).
class ParamSet {
 public:
  ParamSet() = default;
  explicit ParamSet(std::span<const ParamSpec> specs);

  std::span<const ParamSpec> specs() const { return specs_; }
  const ParamSpec* find(std::string_view name) const;
  double get(std::string_view name) const;  // default of an unknown name is 0
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

}  // namespace cl
