// The states of the last steps of every lane, to a memory budget: a ring buffer of frames, each a copy of every
// lane's World after one step (a World is a value: a copy is its whole state, contacts and the solver's warm
// starts included, so a frame restored and stepped goes on exactly as the run it was taken from).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "world/world.h"

namespace cl {

struct HistoryFrame {
  int64_t step = 0;   // lane 1's steps taken
  double time = 0.0;  // lane 1's time, s
  std::vector<World> lanes;
  std::vector<std::string> errors;  // why each lane had stopped ("" while it ran), as at this step
  uint64_t bytes = 0;               // heap the copies take (heap_bytes_in_use before and after)
};

class StateHistory {
 public:
  // 512 MiB by default: what one step of a lane takes per scene and method is measured by bench/history_bench.cpp
  // (docs/viewer.md, Timeline).
  static constexpr uint64_t kDefaultBudget = uint64_t(512) << 20;
  static constexpr uint64_t kMinBudget = uint64_t(1) << 20;

  explicit StateHistory(uint64_t budget = kDefaultBudget) : budget_(budget) {}

  // The most heap the frames may take together; the oldest go beyond it (the newest frame always stays).
  void set_budget(uint64_t bytes);
  uint64_t budget() const { return budget_; }
  uint64_t bytes() const { return bytes_; }

  void clear();
  // Copies every lane as the newest frame, then drops the oldest frames beyond the budget.
  void push(std::span<const World* const> lanes, std::span<const std::string> errors);
  // Drops every frame after frame i (resuming from it discards the steps after it).
  void truncate_after(int i);

  int size() const { return int(frames_.size()); }
  bool empty() const { return frames_.empty(); }
  const HistoryFrame& at(int i) const { return frames_[size_t(i)]; }
  const HistoryFrame& back() const { return frames_.back(); }
  // The frame of lane 1's step `step`, -1 when it is not (or no longer) held.
  int index_of_step(int64_t step) const;
  // Frames dropped for the budget since the last clear.
  int64_t dropped() const { return dropped_; }

 private:
  void trim();

  std::deque<HistoryFrame> frames_;
  uint64_t budget_;
  uint64_t bytes_ = 0;
  int64_t dropped_ = 0;
};

// The bytes malloc has handed out and not taken back (in its arenas and mapped): the difference across a copy is
// what the copy holds, allocator overhead included.
uint64_t heap_bytes_in_use();

// A copy of the worlds and the heap it took.
std::vector<World> copy_worlds(std::span<const World* const> worlds, uint64_t* bytes);

}  // namespace cl
