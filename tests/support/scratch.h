// Scratch files for tests: each test gets its own folder under testing::TempDir().
//
// ctest runs every test as its own process, two at a time, with one TEST_TMPDIR for the whole suite. A file name
// shared by two tests (a fixture helper writing "scene.json", say) is then written by one process while the other
// reads it, and the reader sees it empty. A folder named after the running test cannot be shared that way.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace cl::test {

// TempDir()/<Suite>.<Test>, created if missing ('/' in parameterised names becomes '_'). Outside a test,
// TempDir()/no_test.
inline std::filesystem::path scratch_dir() {
  const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "no_test";
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / name;
  std::filesystem::create_directories(dir);
  return dir;
}

// scratch_dir(), emptied first: a test run again finds the files of its last run there otherwise.
inline std::filesystem::path fresh_scratch_dir() {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A file in the running test's own scratch folder.
inline std::string scratch_path(const std::string& file) { return (scratch_dir() / file).string(); }

}  // namespace cl::test
