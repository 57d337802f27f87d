#include "core/stage_run.h"

#include "core/spin_wait.h"

namespace cl {

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
  SpinWait wait;
  while (s.done.load(std::memory_order_acquire) != n) wait();
}

void StageRun::help(int worker) {
  int seen = 0;
  SpinWait wait;
  for (;;) {
    const int published = published_.load(std::memory_order_acquire);
    if (published > seen) {
      // Earlier stages than the last published are finished (the driver publishes a stage once the previous
      // one is done): only the last can have items left.
      take_items(stages_[published - 1], worker);
      seen = published;
      wait.reset();
      continue;
    }
    // Set only once the last stage is done, so no stage is left to take.
    if (finished_.load(std::memory_order_acquire)) return;
    wait();
  }
}

void StageRun::finish() { finished_.store(true, std::memory_order_release); }

}  // namespace cl
