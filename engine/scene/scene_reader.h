// The strict JSON reader behind scene files, shared by the parts of the loader that live in their own
// files (bodies and materials in scene.cpp; joints; scripts). Every problem is thrown as a SceneError
// "FILE: /json/pointer: what was expected, got what", which the public functions turn into a message.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/math.h"

namespace cl::scene_io {

using json = nlohmann::json;

// --- limits ----------------------------------------------------------------------------------------
constexpr int kFormat = 1;
constexpr double kMaxContactMargin = 1.0;  // m
constexpr double kMaxSpeedLimit = 1e6;     // m/s: the largest max_speed a scene may set
constexpr double kMaxContactsLimit = 1e9;  // the largest max_contacts a scene may set
constexpr size_t kMaxSceneBytes = size_t(64) << 20;  // a scene file larger than 64 MiB is refused unread
constexpr double kUnitTolerance = 1e-6;    // |norm - 1| below this is rounding, normalised silently
// |norm - 1| below this is already unit in double precision: kept bit for bit, so that saving and loading
// again reproduces the same numbers (normalising would move the last bits each time).
constexpr double kUnitExact = 8 * std::numeric_limits<double>::epsilon();

// Thrown inside the loader only; the public functions turn it into SceneLoadResult::error.
struct SceneError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --- JSON pointers and value descriptions -------------------------------------------------------------

// One reference token of a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
inline std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

inline std::string child(const std::string& path, std::string_view key) { return path + "/" + pointer_token(key); }
inline std::string child(const std::string& path, size_t index) { return path + "/" + std::to_string(index); }
inline std::string shown(const std::string& path) { return path.empty() ? "/" : path; }

// True if `v` is small enough to quote in a message (bounded depth, so hostile nesting cannot recurse deep).
inline bool is_small(const json& v, int depth, int& budget) {
  if (--budget < 0 || depth > 4) return false;
  if (v.is_array() || v.is_object()) {
    for (const auto& e : v) {
      if (!is_small(e, depth + 1, budget)) return false;
    }
  }
  return true;
}

inline std::string dump_safe(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// "got ..." part of a message: the value itself when short, else what kind of value it is.
inline std::string describe(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) {
      return d > 0 ? "a number too large to represent (it reads as infinity)"
                   : "a negative number too large to represent (it reads as -infinity)";
    }
  }
  int budget = 24;
  if (is_small(v, 0, budget)) {
    std::string s = dump_safe(v);
    if (s.size() <= 80) return s;
  }
  if (v.is_string()) return "a string of " + std::to_string(v.get_ref<const std::string&>().size()) + " characters";
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " elements";
  if (v.is_object()) return "an object with " + std::to_string(v.size()) + " keys";
  return dump_safe(v);
}

inline std::string in_quotes(std::string_view s) { return dump_safe(json(std::string(s))); }

inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// " (did you mean "x"?)" when one known name is close to `name`, else "".
inline std::string suggestion(std::string_view name, const std::vector<std::string>& known) {
  size_t best = 3;
  std::string pick;
  for (const auto& k : known) {
    const size_t d = edit_distance(name, k);
    if (d < best) {
      best = d;
      pick = k;
    }
  }
  return pick.empty() ? std::string() : " (did you mean " + in_quotes(pick) + "?)";
}

// --- the reader ------------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SceneError(file_ + ": " + shown(path) + ": " + what);
  }
  [[noreturn]] void expected(const std::string& path, const std::string& what, const json& got) const {
    fail(path, "expected " + what + ", got " + describe(got));
  }
  void warn(const std::string& path, const std::string& what) { warnings_.push_back(file_ + ": " + shown(path) + ": " + what); }
  std::vector<std::string>& warnings() { return warnings_; }
  const std::string& file() const { return file_; }

  // Rejects keys of `obj` not in `allowed`; `owner` names the object in the message ("a body").
  void check_keys(const json& obj, const std::string& path, const std::vector<std::string>& allowed,
                  const std::string& owner, const std::vector<std::string>& other_known = {}) const {
    for (const auto& [key, value] : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      const bool elsewhere = std::find(other_known.begin(), other_known.end(), key) != other_known.end();
      fail(child(path, key), std::string("unknown key") + (elsewhere ? " for " + owner : "") + suggestion(key, allowed) +
                                 "; " + owner + " takes: " + join(allowed));
    }
  }

  const json& object(const json& v, const std::string& path, const std::string& what) const {
    if (!v.is_object()) expected(path, what, v);
    return v;
  }

  const json* optional(const json& obj, std::string_view key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const json& required(const json& obj, const std::string& path, std::string_view key, const std::string& what) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(child(path, key), "missing required field: expected " + what);
    return *it;
  }

  // Any finite number; `what` is the expectation shown when it is not one.
  double number(const json& v, const std::string& path, const std::string& what = "a finite number") const {
    if (!v.is_number()) expected(path, what, v);
    const double d = v.get<double>();
    if (!std::isfinite(d)) expected(path, what, v);
    return d;
  }
  double positive(const json& v, const std::string& path) const {
    const double d = number(v, path, "a positive number");
    if (!(d > 0)) expected(path, "a positive number", v);
    return d;
  }
  double in_range(const json& v, const std::string& path, double lo, double hi, const std::string& what) const {
    const double d = number(v, path, what);
    if (d < lo || d > hi) expected(path, what, v);
    return d;
  }
  // A whole number in [lo, hi] (1 or 1.0; never 12.9, which would be truncated); `what` names the range.
  long long whole_in_range(const json& v, const std::string& path, double lo, double hi, const std::string& what) const {
    const double d = number(v, path, what);
    if (d < lo || d > hi || d != std::floor(d)) expected(path, what, v);
    return (long long)d;
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) expected(path, "true or false", v);
    return v.get<bool>();
  }
  const std::string& string(const json& v, const std::string& path, const std::string& what) const {
    if (!v.is_string()) expected(path, what, v);
    return v.get_ref<const std::string&>();
  }

  // An array of `n` finite numbers. A non-number element is reported at the array, a non-finite one at the element.
  std::vector<double> numbers(const json& v, const std::string& path, size_t n, const std::string& what) const {
    if (!v.is_array() || v.size() != n) expected(path, what, v);
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      if (!v[i].is_number()) expected(path, what, v);
      out[i] = number(v[i], child(path, i));
    }
    return out;
  }
  Vec3 vec3(const json& v, const std::string& path) const {
    const auto d = numbers(v, path, 3, "an array of 3 numbers [x, y, z]");
    return Vec3(d[0], d[1], d[2]);
  }
  // A non-zero direction, normalised (with a warning unless it was unit up to rounding).
  Vec3 direction(const json& v, const std::string& path) {
    const Vec3 d = vec3(v, path);
    const double n = d.stableNorm();  // no underflow for tiny (still non-zero) components
    if (!(n > 0) || !std::isfinite(n)) expected(path, "a non-zero direction [x, y, z]", v);
    if (std::abs(n - 1.0) > kUnitTolerance) warn(path, "normalised (length was " + format_number(n) + ")");
    return std::abs(n - 1.0) <= kUnitExact ? d : Vec3(d / n);
  }
  Quat quaternion(const json& v, const std::string& path) {
    const auto d = numbers(v, path, 4, "an array of 4 numbers [w, x, y, z]");
    Quat q(d[0], d[1], d[2], d[3]);
    const double n = q.coeffs().stableNorm();
    if (!(n > 0) || !std::isfinite(n)) expected(path, "a non-zero quaternion [w, x, y, z]", v);
    if (std::abs(n - 1.0) > kUnitTolerance) warn(path, "normalised (norm was " + format_number(n) + ")");
    if (std::abs(n - 1.0) > kUnitExact) q.coeffs() /= n;
    return q;
  }

  static std::string format_number(double d) {
    std::ostringstream s;
    s.precision(6);
    s << d;
    return s.str();
  }

 private:
  std::string file_;
  std::vector<std::string> warnings_;
};

// --- writing ---------------------------------------------------------------------------------------
// A vector and a quaternion as the reader takes them back: [x, y, z] and [w, x, y, z]. J is the JSON type written
// (json, or ordered_json, which keeps the keys in the order the writer gives them).
template <class J = json>
J vec_json(const Vec3& v) {
  return J::array({v.x(), v.y(), v.z()});
}

template <class J = json>
J quat_json(const Quat& q) {
  return J::array({q.w(), q.x(), q.y(), q.z()});
}

}  // namespace cl::scene_io
