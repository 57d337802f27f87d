#include "core/output_plan.h"

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/scratch.h"
#include "support/strings.h"

namespace cl {
namespace {

namespace fs = std::filesystem;

using test::contains;

TEST(OutputPlan, OutputsAreComparedByIdentityNotSpelling) {
  const fs::path dir = cl::test::fresh_scratch_dir();
  std::ofstream((dir / "scene.json").string()) << "{}\n";
  std::ofstream((dir / "torus.obj").string()) << "v 0 0 0\n";
  fs::create_hard_link(dir / "scene.json", dir / "hard.json");
  fs::create_symlink("scene.json", dir / "soft.json");
  const std::string scene = (dir / "scene.json").string();
  const auto plan_with = [&](const std::string& role, const std::string& out) {
    OutputPlan plan;
    plan.read("the scene", scene);
    plan.read("the mesh file of scene.json: /bodies/1/shape/file", (dir / "torus.obj").string());
    plan.write(role, out);
    return plan;
  };
  std::string error;
  EXPECT_FALSE(plan_with("--state", (dir / "hard.json").string()).check(error));
  EXPECT_TRUE(contains(error, "--state '" + (dir / "hard.json").string() + "' would overwrite the scene '" + scene +
                                  "' (the same file by another name or link), which the run reads")) << error;
  EXPECT_FALSE(plan_with("--metrics", (dir / "soft.json").string()).check(error));
  EXPECT_FALSE(plan_with("--trace", (dir / "." / "sub" / ".." / "scene.json").string()).check(error));
  EXPECT_FALSE(plan_with("--metrics", (dir / "torus.obj").string()).check(error));
  EXPECT_TRUE(contains(error, "would overwrite the mesh file of scene.json: /bodies/1/shape/file")) << error;
  EXPECT_TRUE(plan_with("--metrics", (dir / "m.csv").string()).check(error)) << error;

  // Two outputs: the same file, existing or not, by any name; /dev/null may take both.
  fs::create_hard_link(dir / "torus.obj", dir / "unrelated.txt");
  OutputPlan two;
  two.write("--metrics", (dir / "new.csv").string());
  two.write("--trace", (dir / "." / "new.csv").string());
  EXPECT_FALSE(two.check(error));
  EXPECT_TRUE(contains(error, "are the same file: each output needs its own")) << error;
  OutputPlan null;
  null.write("--metrics", "/dev/null");
  null.write("--trace", "/dev/null");
  EXPECT_TRUE(null.check(error)) << error;
}

TEST(OutputPlan, OutputsAreProbedBeforeTheRun) {
  const fs::path dir = cl::test::fresh_scratch_dir();
  std::string error;
  OutputPlan missing;
  missing.write("--state", (dir / "no" / "s.json").string());
  EXPECT_FALSE(missing.check(error));
  EXPECT_TRUE(contains(error, "s.json: cannot write --state: its folder '" + (dir / "no").string() + "' does not exist"))
      << error;
  OutputPlan folder;
  folder.write("--metrics", dir.string());
  EXPECT_FALSE(folder.check(error));
  EXPECT_TRUE(contains(error, "cannot write --metrics: it is a directory")) << error;
  // The probe leaves nothing behind.
  OutputPlan fine;
  fine.write("--metrics", (dir / "m.csv").string());
  EXPECT_TRUE(fine.check(error)) << error;
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_EQ(probe_output((dir / "m.csv").string(), "metrics file"), "");
}

}  // namespace
}  // namespace cl
