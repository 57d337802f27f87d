// Fuzz targets: each takes arbitrary bytes and feeds them to one input path of ContactLab. A target returns
// normally for every input; a crash, an exception escaping it or a sanitizer report is a finding. The same
// functions are linked into libFuzzer executables (fuzz_main.cpp, option CONTACTLAB_FUZZ, clang) and into the
// deterministic corpus replay run by ctest (replay.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cl::fuzz {

// `label` names the input in messages; the scene target also finds the mesh files a scene names next to it
// (the replay passes the file's path, libFuzzer "fuzz.json" in the working directory).
// Bytes -> scene text -> load_scene_text; a scene that loads takes one World step under its own solver.
void scene(const std::uint8_t* data, std::size_t size, const std::string& label);
// Bytes -> load_mesh_from_string as a Wavefront OBJ / an OFF file (the checks and repairs of the default options).
void obj(const std::uint8_t* data, std::size_t size, const std::string& label);
void off(const std::uint8_t* data, std::size_t size, const std::string& label);
// Bytes split at NUL into argv[1..] (argv[0] is "contactlab") -> parse_command_line.
void command_line(const std::uint8_t* data, std::size_t size, const std::string& label);
// The same argv run for real (--headless or --compare, at most 3 steps) in a fresh sandbox folder holding a scene
// that reads a mesh, hard and symbolic links to both, a directory, a named pipe, a read-only file and a dangling
// link; the working directory while it runs. Aborts (a finding) unless the exit code is 0, 2 or 3, the inputs
// are byte for byte as they were and no temporary file is left.
void output_paths(const std::uint8_t* data, std::size_t size, const std::string& label);

struct Target {
  const char* name;
  const char* label;  // the label under libFuzzer
  void (*run)(const std::uint8_t* data, std::size_t size, const std::string& label);
};
// scene, obj, off, cli, outputs.
const std::vector<Target>& targets();
const Target* find_target(const std::string& name);

// Turns the distance-grid disk cache off for this process (XDG_CACHE_HOME points where no directory can be
// made), so that a fuzzing session's mutated meshes never fill ~/.cache/contactlab. The replay keeps the cache:
// its corpus is fixed, and the shipped scenes' grids are then built once.
void disable_grid_cache();

}  // namespace cl::fuzz
