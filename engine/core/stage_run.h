// A sequence of parallel stages on a TaskPool's threads, with one wake-up of the workers for the whole sequence.
//
// TaskPool::run wakes the sleeping workers for every run, and a worker that wakes later than the run's tasks
// take (tens of microseconds on a busy machine) leaves them all to the caller: a computation made of a dozen
// short stages, each a run of its own, then gains little from a second thread. run_stages instead starts one
// pool run in which one thread, the driver, calls body(stages); every stages.parallel(n, fn) call made there
// hands out fn's items to the driver and to every worker that has joined, and the workers wait for the next
// stage by spinning (pausing, then yielding the core) rather than sleeping, until body returns. A worker that
// joins late takes part from the stage then open; none is waited for, so the driver alone completes the
// sequence if no worker comes. Serial code between stages runs on the driver while the workers wait.
//
// Determinism, as with TaskPool::run: which thread runs an item varies, so each item writes its own output and
// the caller combines the outputs in item order. fn(item, worker) gets the pool's worker index of the thread
// running it (the driver's too), for per-worker scratch.
#pragma once

#include <atomic>
#include <type_traits>

#include "core/task_pool.h"

namespace cl {

class StageRun {
 public:
  // Stages a run can hand out to the workers; the stages after them run on the driver alone (same results).
  static constexpr int kMaxStages = 32;

  // Calls fn(item, worker) for every item in [0, n) and returns when all are done. Only from the driver (inside
  // run_stages' body).
  template <class F>
  void parallel(int n, F&& fn) {
    parallel_erased(n, &fn, [](void* f, int item, int worker) {
      (*static_cast<std::remove_reference_t<F>*>(f))(item, worker);
    });
  }
  // The pool worker index of the driver.
  int driver() const { return driver_; }
  // Stages so far handed out to the workers (for tests).
  int shared_stages() const { return published_.load(std::memory_order_relaxed); }

 private:
  template <class Body>
  friend void run_stages(TaskPool& pool, Body&& body);
  using Call = void (*)(void*, int, int);

  struct alignas(64) Stage {
    std::atomic<int> next{0};  // next item to hand out
    std::atomic<int> done{0};  // items finished
    int count = 0;
    void* fn = nullptr;
    Call call = nullptr;
  };

  void parallel_erased(int n, void* fn, Call call);
  void take_items(Stage& s, int worker);
  void help(int worker);  // a worker's part: the stages as they are published, until the driver finishes
  void finish();

  bool shared_ = false;  // workers may join (else every stage runs on the driver)
  int driver_ = 0;
  alignas(64) std::atomic<int> published_{0};  // stages published
  std::atomic<bool> finished_{false};
  Stage stages_[kMaxStages];
};

// Runs body(StageRun&) on one of pool's threads with the others helping in its parallel stages; returns when body
// has returned. With one thread, or a serial pool, body runs on the caller and every stage on it.
template <class Body>
void run_stages(TaskPool& pool, Body&& body) {
  StageRun run;
  if (pool.threads() == 1 || pool.serial()) {
    body(run);
    return;
  }
  run.shared_ = true;
  std::atomic<bool> claimed{false};
  pool.run(pool.threads(), [&](int, int worker) {
    // The first thread to start drives, whichever task it took (a worker that wakes at once may take task 0).
    if (!claimed.exchange(true, std::memory_order_acq_rel)) {
      run.driver_ = worker;
      struct Finish {
        StageRun& r;
        ~Finish() { r.finish(); }
      } finish{run};
      body(run);
    } else {
      run.help(worker);
    }
  });
}

}  // namespace cl
