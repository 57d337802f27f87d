# Precompiled headers: the headers that nearly every file of a target includes are parsed once per target instead
# of once per file (CONTRIBUTING.md, "Build"). Parsing and instantiating them took about half of a test
# file's compile time: Eigen, the standard library, GoogleTest, nlohmann/json and the engine's world and scene.
# Each file still includes what it uses, so -DCONTACTLAB_PCH=OFF builds the same program.
option(CONTACTLAB_PCH "Precompile the headers that every file of a target includes (a shorter build)" ON)

# The standard library and Eigen headers of every engine file.
set(CONTACTLAB_PCH_BASE <algorithm> <array> <cmath> <cstdint> <cstdio> <functional> <limits> <map> <memory>
    <numbers> <optional> <span> <string> <string_view> <utility> <vector> <Eigen/Core> <Eigen/Geometry>)
# What the tests, the benchmarks and the viewer add: the world, the scene files and their JSON.
set(CONTACTLAB_PCH_ENGINE <nlohmann/json.hpp> [["world/world.h"]] [["scene/scene.h"]])

# contactlab_precompile(TARGET [REUSE_FROM OTHER] [HEADERS header...]): TARGET's files are compiled with the
# base headers and HEADERS precompiled, or with those of OTHER (a target of the same compile options).
function(contactlab_precompile target)
  if(NOT CONTACTLAB_PCH)
    return()
  endif()
  cmake_parse_arguments(PCH "" "REUSE_FROM" "HEADERS" ${ARGN})
  # A precompiled header the compiler cannot use (made with other options) is a warning, not a slow build unseen.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Winvalid-pch>)
  # With the standard headers precompiled, GCC 12 also reports the std::string concatenation of GCC PR 105329 as
  # writing out of bounds, which it does not do when it parses them (-DCONTACTLAB_PCH=OFF keeps these warnings).
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds -Wno-stringop-overflow>)
  if(PCH_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${PCH_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${CONTACTLAB_PCH_BASE} ${PCH_HEADERS})
  endif()
endfunction()
