#include "replay/history.h"

#include <malloc.h>

#include <algorithm>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CL_ASAN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CL_ASAN_ALLOCATOR 1
#endif
#ifdef CL_ASAN_ALLOCATOR
#include <sanitizer/allocator_interface.h>
#endif

namespace cl {

uint64_t heap_bytes_in_use() {
#if defined(CL_ASAN_ALLOCATOR)
  // AddressSanitizer replaces malloc, and glibc's counters then stay at zero: ask its allocator instead.
  return uint64_t(__sanitizer_get_current_allocated_bytes());
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
#else
  return 0;
#endif
}

std::vector<World> copy_worlds(std::span<const World* const> worlds, uint64_t* bytes) {
  const uint64_t before = heap_bytes_in_use();
  std::vector<World> copies;
  copies.reserve(worlds.size());
  for (const World* w : worlds) copies.push_back(*w);
  const uint64_t after = heap_bytes_in_use();
  if (bytes) *bytes = after > before ? after - before : 0;
  return copies;
}

void StateHistory::set_budget(uint64_t bytes) {
  budget_ = std::max(bytes, kMinBudget);
  trim();
}

void StateHistory::clear() {
  frames_.clear();
  bytes_ = 0;
  dropped_ = 0;
}

void StateHistory::push(std::span<const World* const> lanes, std::span<const std::string> errors) {
  HistoryFrame f;
  f.lanes = copy_worlds(lanes, &f.bytes);
  f.errors.assign(errors.begin(), errors.end());
  f.errors.resize(lanes.size());
  if (!lanes.empty()) {
    f.step = lanes[0]->step_count();
    f.time = lanes[0]->time();
  }
  bytes_ += f.bytes;
  frames_.push_back(std::move(f));
  trim();
}

void StateHistory::truncate_after(int i) {
  while (int(frames_.size()) > i + 1 && !frames_.empty()) {
    bytes_ -= frames_.back().bytes;
    frames_.pop_back();
  }
}

int StateHistory::index_of_step(int64_t step) const {
  if (frames_.empty()) return -1;
  // Frames hold consecutive steps from the oldest.
  const int64_t i = step - frames_.front().step;
  if (i < 0 || i >= int64_t(frames_.size()) || frames_[size_t(i)].step != step) return -1;
  return int(i);
}

void StateHistory::trim() {
  while (frames_.size() > 1 && bytes_ > budget_) {
    bytes_ -= frames_.front().bytes;
    frames_.pop_front();
    ++dropped_;
  }
}

}  // namespace cl
