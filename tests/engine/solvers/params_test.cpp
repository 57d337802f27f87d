#include "solvers/params.h"

#include <gtest/gtest.h>

#include "solvers/registry.h"

namespace cl {
namespace {

enum class Mode { First, Second };
struct Example {
  double gain = -1;
  int count = -1;
  bool on = false;
  Mode mode = Mode::First;
};

const ParamTable<Example>& example() {
  using T = ParamTable<Example>;
  static const T table({
      T::bind(&Example::gain, {"gain", ParamKind::Real, "N/m", 0, 10, 2.5, "a gain"}),
      T::bind(&Example::count, {"count", ParamKind::Integer, "", 1, 9, 3, "a count"}),
      T::bind(&Example::on, {"on", ParamKind::Bool, "", 0, 1, 1, "a switch"}),
      T::bind(&Example::mode, {"mode", ParamKind::Choice, "", 0, 1, 0, "a choice", {"first", "second"}}),
  });
  return table;
}

// read() fills every field from the set's values, defaults first, then what was set by name or text.
TEST(ParamTable, ReadFillsTheTypedFields) {
  ParamSet p(example().specs());
  Example e = example().read(p);
  EXPECT_EQ(e.gain, 2.5);
  EXPECT_EQ(e.count, 3);
  EXPECT_TRUE(e.on);
  EXPECT_EQ(e.mode, Mode::First);
  std::string error;
  ASSERT_TRUE(p.set("gain", 7.25, &error)) << error;
  ASSERT_TRUE(p.set_from_string("on", "off", &error)) << error;
  ASSERT_TRUE(p.set_from_string("mode", "second", &error)) << error;
  e = example().read(p);
  EXPECT_EQ(e.gain, 7.25);
  EXPECT_FALSE(e.on);
  EXPECT_EQ(e.mode, Mode::Second);
}

// An unknown name is an error everywhere: set() refuses it and lists the known names, get() has no value.
TEST(ParamTable, UnknownNamesAreErrors) {
  ParamSet p(example().specs());
  std::string error;
  EXPECT_FALSE(p.set("gian", 1.0, &error));
  EXPECT_EQ(error, "unknown parameter 'gian' (known: gain count on mode)");
  EXPECT_FALSE(p.get("gian").has_value());
  EXPECT_EQ(p.get("count"), 3.0);
}

// A field whose type does not fit the parameter's kind, and a name listed twice, are refused when the table is
// built (every solver's table is built by the registry test below).
TEST(ParamTable, MismatchedKindsAndDuplicateNamesAreRefused) {
  using T = ParamTable<Example>;
  EXPECT_THROW(T::bind(&Example::gain, {"gain", ParamKind::Integer, "", 0, 10, 1, ""}), std::logic_error);
  EXPECT_THROW(T::bind(&Example::on, {"on", ParamKind::Real, "", 0, 1, 1, ""}), std::logic_error);
  EXPECT_THROW(T::bind(&Example::count, {"count", ParamKind::Bool, "", 0, 1, 1, ""}), std::logic_error);
  EXPECT_THROW(T({T::bind(&Example::gain, {"gain", ParamKind::Real, "", 0, 10, 1, ""}),
                  T::bind(&Example::gain, {"gain", ParamKind::Real, "", 0, 10, 1, ""})}),
               std::logic_error);
}

// Every registered solver publishes a parameter list whose defaults are valid values of their own kind and
// range, and a new solver starts from them.
TEST(ParamTable, EveryRegisteredSolverHasValidDefaults) {
  for (const SolverInfo& info : solver_registry()) {
    const auto solver = info.make();
    const ParamSet& p = solver->params();
    ASSERT_EQ(p.specs().size(), info.params.size()) << info.name;
    for (size_t i = 0; i < info.params.size(); ++i) {
      const ParamSpec& s = info.params[i];
      ParamSet copy = p;
      std::string error;
      EXPECT_TRUE(copy.set(s.name, s.default_value, &error)) << info.name << ": " << error;
      EXPECT_EQ(p.value(i), s.default_value) << info.name << "." << s.name;
      EXPECT_FALSE(s.help.empty()) << info.name << "." << s.name;
    }
  }
}

}  // namespace
}  // namespace cl
