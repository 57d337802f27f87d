#include "targets.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mesh/mesh.h"
#include "scene/scene.h"

namespace cl::fuzz {

void scene(const std::uint8_t* data, std::size_t size, const std::string& label) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SceneLoadResult r = load_scene_text(text, label);
  if (!r.ok()) return;
  r.world.step();  // a non-finite or blown-up step is a result (exit 3), not a finding
}

namespace {
void mesh(const std::uint8_t* data, std::size_t size, const char* format, const std::string& name) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const MeshLoadResult r = load_mesh_from_string(text, format, name);
  if (r.ok()) validate_mesh(r.mesh);
}
}  // namespace

void obj(const std::uint8_t* data, std::size_t size, const std::string& label) { mesh(data, size, "obj", label); }
void off(const std::uint8_t* data, std::size_t size, const std::string& label) { mesh(data, size, "off", label); }

namespace {

// argv from bytes split at NUL.
std::vector<std::string> split_arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"contactlab"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(char(data[i]));
    }
  }
  if (!current.empty()) args.push_back(current);
  return args;
}

// The bytes as a command line: arguments split at NUL, parsed into `cmd`. Returns parse_command_line's verdict.
bool parse_arguments(const std::uint8_t* data, std::size_t size, CommandLine& cmd) {
  std::vector<std::string> args = split_arguments(data, size);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string error;
  return parse_command_line(int(args.size()), argv.data(), cmd, &error);
}

}  // namespace

void command_line(const std::uint8_t* data, std::size_t size, const std::string&) {
  CommandLine cmd;
  parse_arguments(data, size, cmd);
}

namespace {

// The sandbox of the output-path target: a scene that reads a mesh, and around it the kinds of place an output
// can be sent to: hard and symbolic links to the inputs, a directory, a missing folder, a named pipe nobody reads
// and a read-only file, besides /dev/full and /dev/null, which the arguments may name directly.
constexpr const char* kSandboxScene =
    R"({"format": 1, "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
 {"name": "box", "shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}, "mass": 1, "position": [0, 0.5, 0]},
 {"name": "tet", "shape": {"type": "mesh", "file": "tet.obj", "resolution": 8}, "mass": 1, "position": [1, 0.5, 0]}]}
)";
constexpr const char* kSandboxMesh = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

void output_paths(const std::uint8_t* data, std::size_t size, const std::string&) {
  namespace fs = std::filesystem;
  // A fresh sandbox for every input, the working directory while it runs.
  const fs::path box = fs::temp_directory_path() / ("contactlab_fuzz_outputs_" + std::to_string(::getpid()));
  fs::remove_all(box);
  fs::create_directories(box / "adir");
  { std::ofstream(box / "scene.json") << kSandboxScene; }
  { std::ofstream(box / "tet.obj") << kSandboxMesh; }
  { std::ofstream(box / "readonly.csv") << "read only\n"; }
  fs::permissions(box / "readonly.csv", fs::perms::owner_read);
  fs::create_hard_link(box / "scene.json", box / "hard.json");
  fs::create_hard_link(box / "tet.obj", box / "hard.obj");
  fs::create_symlink("scene.json", box / "soft.json");
  fs::create_symlink("tet.obj", box / "soft.obj");
  fs::create_symlink("nowhere/x.csv", box / "dangling.csv");
  fs::create_hard_link(box / "scene.json", box / "cmp.lanes.json");  // the sidecar of --metrics cmp.csv
  ::mkfifo((box / "pipe.csv").c_str(), 0600);
  const fs::path cwd = fs::current_path();
  fs::current_path(box);

  CommandLine cmd;
  int code = 0;
  if (parse_arguments(data, size, cmd) && !cmd.help && !cmd.list_solvers &&
      !cmd.conformance && (cmd.headless || !cmd.compare.empty() || !cmd.sweep.empty())) {
    cmd.steps = std::min(cmd.steps, 3);  // the outputs are the point, not the run
    cmd.duration = std::min(cmd.duration, 0.05);
    if (cmd.dts.size() > 2) cmd.dts.resize(2);
    cmd.threads = 1;
    // Messages of the run are not wanted in the replay's log.
    std::fflush(stderr);
    const int saved = ::dup(2), null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    code = !cmd.sweep.empty() ? run_sweep(cmd) : cmd.compare.empty() ? run_headless(cmd) : run_compare(cmd);
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    ::close(null);
  }
  // The contract: an exit of 0, 2 or 3; the inputs byte for byte as they were; no temporary file left behind.
  const bool inputs_kept = slurp(box / "scene.json") == kSandboxScene && slurp(box / "tet.obj") == kSandboxMesh &&
                           slurp(box / "readonly.csv") == "read only\n";
  bool temporaries = false;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(box))
    temporaries = temporaries || e.path().filename().string().rfind(".", 0) == 0;
  fs::current_path(cwd);
  fs::remove_all(box);
  if (code != 0 && code != 2 && code != 3) {
    std::fprintf(stderr, "output_paths: exit code %d\n", code);
    std::abort();
  }
  if (!inputs_kept) {
    std::fprintf(stderr, "output_paths: an input file was changed\n");
    std::abort();
  }
  if (temporaries) {
    std::fprintf(stderr, "output_paths: a temporary file was left behind\n");
    std::abort();
  }
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all{{"scene", "fuzz.json", scene},       {"obj", "fuzz.obj", obj},
                                       {"off", "fuzz.off", off},            {"cli", "argv", command_line},
                                       {"outputs", "argv", output_paths}};
  return all;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

void disable_grid_cache() { setenv("XDG_CACHE_HOME", "/dev/null", 1); }

}  // namespace cl::fuzz
