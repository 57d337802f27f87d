#include "targets.h"

#include <cstdlib>
#include <string_view>

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

void command_line(const std::uint8_t* data, std::size_t size, const std::string&) {
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
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  CommandLine cmd;
  std::string error;
  parse_command_line(int(args.size()), argv.data(), cmd, &error);
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all{
      {"scene", "fuzz.json", scene}, {"obj", "fuzz.obj", obj}, {"off", "fuzz.off", off}, {"cli", "argv", command_line}};
  return all;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

void disable_grid_cache() { setenv("XDG_CACHE_HOME", "/dev/null", 1); }

}  // namespace cl::fuzz
