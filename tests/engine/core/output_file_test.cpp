#include "core/output_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/scratch.h"
#include "support/strings.h"

namespace cl {
namespace {

namespace fs = std::filesystem;

using test::contains;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Files in the folder other than the ones named: temporary files left behind.
int other_files(const fs::path& dir, std::initializer_list<std::string> names) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    bool known = false;
    for (const std::string& name : names) known = known || e.path().filename() == name;
    n += known ? 0 : 1;
  }
  return n;
}

TEST(OutputFile, WritesWholeFilesOrSaysWhy) {
  const std::string file = (cl::test::fresh_scratch_dir() / "state.json").string();
  std::string error;
  ASSERT_TRUE(write_output_file(file, "{\"time\": 1}\n", "state file", error)) << error;
  EXPECT_EQ(slurp(file), "{\"time\": 1}\n");
  // A full disk fails when the bytes reach it; a missing folder before anything is written.
  EXPECT_FALSE(write_output_file("/dev/full", "x", "state file", error));
  EXPECT_EQ(error, "/dev/full: cannot write state file: No space left on device");
  EXPECT_FALSE(write_output_file("/nonexistent-dir/s.json", "x", "scene file", error));
  EXPECT_EQ(error, "/nonexistent-dir/s.json: cannot write scene file: its folder '/nonexistent-dir' does not exist");
  EXPECT_FALSE(write_output_file(cl::test::scratch_dir().string(), "x", "scene file", error));
  EXPECT_TRUE(contains(error, ": cannot write scene file: it is a directory")) << error;
}

TEST(OutputFile, TheOldFileStaysUntilTheNewOneIsComplete) {
  const fs::path dir = cl::test::fresh_scratch_dir();
  const std::string file = (dir / "m.csv").string();
  put(file, "earlier\n");
  ::chmod(file.c_str(), 0640);
  {
    OutputFile out;
    std::string error;
    ASSERT_TRUE(out.open(file, "metrics file", error)) << error;
    ASSERT_TRUE(out.write(std::string(200000, 'x'), error)) << error;
    EXPECT_EQ(slurp(file), "earlier\n");  // written so far to a temporary file
    EXPECT_EQ(other_files(dir, {"m.csv"}), 1);
    // Dropped (a failed run, an exception): the earlier file as it was, no temporary file left.
  }
  EXPECT_EQ(slurp(file), "earlier\n");
  EXPECT_EQ(other_files(dir, {"m.csv"}), 0);
  OutputFile out;
  std::string error;
  ASSERT_TRUE(out.open(file, "metrics file", error)) << error;
  ASSERT_TRUE(out.write("new\n", error));
  ASSERT_TRUE(out.commit(error)) << error;
  EXPECT_EQ(slurp(file), "new\n");
  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the old file's permissions
  EXPECT_EQ(other_files(dir, {"m.csv"}), 0);
}

TEST(OutputFile, WritesThroughASymbolicLinkAndBesideAHardLink) {
  const fs::path dir = cl::test::fresh_scratch_dir();
  put((dir / "real.csv").string(), "old\n");
  fs::create_symlink("real.csv", dir / "link.csv");
  std::string error;
  ASSERT_TRUE(write_output_file((dir / "link.csv").string(), "new\n", "metrics file", error)) << error;
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_EQ(slurp((dir / "real.csv").string()), "new\n");
  // A hard link's other name keeps the old bytes: the file is replaced, not written into.
  put((dir / "a.json").string(), "scene\n");
  fs::create_hard_link(dir / "a.json", dir / "b.json");
  ASSERT_TRUE(write_output_file((dir / "b.json").string(), "state\n", "state file", error)) << error;
  EXPECT_EQ(slurp((dir / "a.json").string()), "scene\n");
  EXPECT_EQ(slurp((dir / "b.json").string()), "state\n");
}

TEST(OutputFile, APipeWithoutReaderIsAnErrorNotAHang) {
  const std::string fifo = (cl::test::fresh_scratch_dir() / "pipe.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  OutputFile out;
  std::string error;
  EXPECT_FALSE(out.open(fifo, "metrics file", error));
  EXPECT_TRUE(contains(error, "pipe.csv: cannot write metrics file: it is a named pipe that nobody reads")) << error;
  // /dev/null takes anything, in place.
  EXPECT_TRUE(write_output_file("/dev/null", "x", "metrics file", error)) << error;
}

TEST(OutputFile, ASignalLeavesTheEarlierFileAndNoTemporaryOne) {
  const fs::path dir = cl::test::fresh_scratch_dir();
  const std::string file = (dir / "s.json").string();
  put(file, "earlier\n");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_output_cleanup();
    OutputFile out;
    std::string error;
    if (!out.open(file, "state file", error)) ::_exit(1);
    out.write(std::string(100000, 'x'), error);
    ::raise(SIGTERM);
    ::_exit(2);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(slurp(file), "earlier\n");
  EXPECT_EQ(other_files(dir, {"s.json"}), 0);
}

}  // namespace
}  // namespace cl
