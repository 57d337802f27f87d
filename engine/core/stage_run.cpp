#include "core/stage_run.h"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cl {

namespace {

// One step of a wait for another thread: a pause instruction for the first rounds (the stages' gaps are a few
// microseconds when both threads run), then the core is yielded, so that a wait for a thread the system has not
// scheduled does not keep others from running.
inline void wait_step(int& rounds) {
  constexpr int kPauses = 1024;
  if (rounds < kPauses) {
    ++rounds;
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
    return;
  }
  std::this_thread::yield();
}

}  // namespace

void StageRun::take_items(Stage& s, int worker) {
  for (;;) {
    const int item = s.next.fetch_add(1, std::memory_order_relaxed);
    if (item >= s.count) return;
    s.call(s.fn, item, worker);
    s.done.fetch_add(1, std::memory_order_release);
  }
}

void StageRun::parallel_erased(int n, void* fn, Call call) {
  if (n <= 0) return;
  const int index = published_.load(std::memory_order_relaxed);
  if (!shared_ || n == 1 || index >= kMaxStages) {
    for (int item = 0; item < n; ++item) call(fn, item, driver_);
    return;
  }
  Stage& s = stages_[index];
  s.count = n;
  s.fn = fn;
  s.call = call;
  // The stage's fields, and everything the driver wrote before, become visible with the stage's publication.
  published_.store(index + 1, std::memory_order_release);
  take_items(s, driver_);
  int rounds = 0;
  while (s.done.load(std::memory_order_acquire) != n) wait_step(rounds);
}

void StageRun::help(int worker) {
  int seen = 0;
  int rounds = 0;
  for (;;) {
    const int published = published_.load(std::memory_order_acquire);
    if (published > seen) {
      // Earlier stages than the last published are finished (the driver publishes a stage once the previous
      // one is done): only the last can have items left.
      take_items(stages_[published - 1], worker);
      seen = published;
      rounds = 0;
      continue;
    }
    // Set only once the last stage is done, so no stage is left to take.
    if (finished_.load(std::memory_order_acquire)) return;
    wait_step(rounds);
  }
}

void StageRun::finish() { finished_.store(true, std::memory_order_release); }

}  // namespace cl
