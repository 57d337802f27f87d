// The libFuzzer entry points: one executable per target (fuzz_scene, fuzz_obj, fuzz_off, fuzz_cli), the target
// chosen at compile time by CONTACTLAB_FUZZ_TARGET.
#include <cstddef>
#include <cstdint>

#include "targets.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cl::fuzz::disable_grid_cache();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cl::fuzz::Target* target = cl::fuzz::find_target(CONTACTLAB_FUZZ_TARGET);
  target->run(data, size, target->label);
  return 0;
}
