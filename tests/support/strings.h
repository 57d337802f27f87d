// String helpers for tests.
#pragma once

#include <string>

namespace cl::test {

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace cl::test
