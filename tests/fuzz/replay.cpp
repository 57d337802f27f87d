// The corpus replay: runs every file given (directories: each regular file in them, in name order) through one
// fuzz target, deterministically, without libFuzzer. Registered as ctest fuzz.replay.*; under the sanitizer
// build a report stops it. An exception escaping the target is a failure; the exit code is 1 if any file
// failed, 2 on bad usage.
//   contactlab_fuzz_replay TARGET PATH...      TARGET: scene, obj, off, cli, outputs
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "targets.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const cl::fuzz::Target* target = argc >= 3 ? cl::fuzz::find_target(argv[1]) : nullptr;
  if (!target) {
    std::fprintf(stderr, "usage: contactlab_fuzz_replay TARGET PATH...   (TARGET: scene, obj, off, cli, outputs)\n");
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    const fs::path p = argv[i];
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> in_dir;
      for (const fs::directory_entry& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "contactlab_fuzz_replay: %s: not a file or directory\n", p.c_str());
      return 2;
    }
  }
  int failures = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const fs::path& f : files) {
    // Named before it runs, so that a crash or a sanitizer report shows which file caused it.
    std::printf("%s %s\n", target->name, f.c_str());
    std::fflush(stdout);
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::printf("  FAILED: cannot read the file\n");
      ++failures;
      continue;
    }
    const auto file_start = std::chrono::steady_clock::now();
    try {
      target->run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), f.string());
    } catch (const std::exception& e) {
      std::printf("  FAILED: exception escaped the target: %s\n", e.what());
      ++failures;
    } catch (...) {
      std::printf("  FAILED: unknown exception escaped the target\n");
      ++failures;
    }
    const double file_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - file_start).count();
    if (file_seconds > 0.5) std::printf("  slow: %.2f s\n", file_seconds);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu files, %d failed, %.2f s\n", target->name, files.size(), failures, seconds);
  return failures == 0 ? 0 : 1;
}
