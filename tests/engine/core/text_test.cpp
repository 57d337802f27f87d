#include "core/text.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/scratch.h"
#include "support/strings.h"

namespace cl {
namespace {

using test::contains;

TEST(Text, ControlCharactersAndBadBytesAreEscaped) {
  EXPECT_EQ(escape_for_message("plain name, 1.5 m"), "plain name, 1.5 m");
  EXPECT_EQ(escape_for_message("two\nlines\ttab\r"), "two\\nlines\\ttab\\r");
  EXPECT_EQ(escape_for_message("\x1b[31mred\x1b[0m"), "\\e[31mred\\e[0m");
  EXPECT_EQ(escape_for_message(std::string("nul\0bell\x07" "del\x7f", 13)), "nul\\x00bell\\x07del\\x7F");
  // valid UTF-8 passes; a lone continuation byte, a truncated sequence and a C1 control (CSI) do not
  EXPECT_EQ(escape_for_message("Größe ≤ 1 ✓"), "Größe ≤ 1 ✓");
  EXPECT_EQ(escape_for_message("\x80x\xc3"), "\\x80x\\xC3");
  EXPECT_EQ(escape_for_message("\xc2\x9b" "31m"), "\\xC2\\x9B31m");
  // escaping is idempotent: a message escaped twice reads the same
  const std::string once = escape_for_message("a\nb\x1b");
  EXPECT_EQ(escape_for_message(once), once);
}

TEST(Text, ReadsRegularFilesOnly) {
  const std::string dir = cl::test::scratch_path("contactlab_text_test");
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/a.json";
  std::ofstream(file) << "{\"format\": 1}";
  std::string text, error;
  ASSERT_TRUE(read_text_file(file, 1000, "scene file", text, error)) << error;
  EXPECT_EQ(text, "{\"format\": 1}");

  EXPECT_FALSE(read_text_file(file, 5, "scene file", text, error));
  EXPECT_TRUE(contains(error, "13 bytes, more than the 5-byte limit")) << error;
  EXPECT_FALSE(read_text_file(dir, 1000, "scene file", text, error));
  EXPECT_TRUE(contains(error, "it is a directory")) << error;
  EXPECT_FALSE(read_text_file("/dev/zero", 1000, "scene file", text, error));
  EXPECT_TRUE(contains(error, "/dev/zero: cannot read scene file: it is a character device")) << error;
  EXPECT_FALSE(read_text_file(dir + "/missing.json", 1000, "mesh file", text, error));
  EXPECT_TRUE(contains(error, "missing.json: cannot open mesh file: No such file")) << error;
  EXPECT_FALSE(read_text_file("", 1000, "scene file", text, error));
  EXPECT_TRUE(contains(error, "empty scene file path")) << error;

  // A named pipe with no writer: refused at once, not waited on.
  const std::string fifo = dir + "/pipe.json";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_text_file(fifo, 1000, "scene file", text, error));
  EXPECT_TRUE(contains(error, "it is a pipe")) << error;
  // A path with a newline and an escape is quoted escaped.
  EXPECT_FALSE(read_text_file(dir + "/x\n\x1b[2J.json", 1000, "scene file", text, error));
  EXPECT_TRUE(contains(error, "/x\\n\\e[2J.json: cannot open")) << error;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cl
