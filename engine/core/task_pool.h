// A small persistent pool of worker threads: the layered-depth-image stages (parallel over pixel rows) and the
// comparison lanes (one world per task) share it.
//
// run(n, fn) calls fn(task, worker) once for every task in [0, n) and returns when all are done; the calling
// thread takes part as worker 0. Tasks are handed out dynamically, so which worker runs a task varies from run
// to run: callers keep results deterministic by writing each task's output to a place owned by the task and
// combining those in task order afterwards (never in worker order). Between runs the workers, and the caller
// waiting for a run's last task, spin for up to kSpin before they sleep: a step that runs the pool hundreds of times
// (each layer of a stack) finds them awake, where waking a sleeping thread takes tens of microseconds.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <type_traits>
#include <mutex>
#include <thread>
#include <vector>

namespace cl {

class TaskPool {
 public:
  // threads: total workers including the caller; 0 = std::thread::hardware_concurrency().
  explicit TaskPool(int threads = 1);
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  int threads() const { return threads_; }
  // While serial, run() does every task on the calling thread (worker 0): for work too small to repay
  // waking the workers. Results are the same either way (see above).
  void set_serial(bool serial) { serial_ = serial; }
  bool serial() const { return serial_; }
  // Runs fn(task, worker) for every task in [0, n); worker is in [0, threads()). Not reentrant. fn is called
  // through a plain pointer (no std::function, so no allocation per run).
  template <class F>
  void run(int n, F&& fn) {
    run_erased(n, &fn, [](void* f, int task, int worker) {
      (*static_cast<std::remove_reference_t<F>*>(f))(task, worker);
    });
  }
  // run() over the items [0, n) in ranges of `per_task`: fn(first, last, worker) for each range.
  template <class F>
  void run_ranges(int n, int per_task, F&& fn) {
    run((n + per_task - 1) / per_task,
        [&](int task, int worker) { fn(task * per_task, std::min(n, (task + 1) * per_task), worker); });
  }

 private:
  static constexpr std::chrono::microseconds kSpin{200};
  using Call = void (*)(void*, int, int);
  void run_erased(int n, void* fn, Call call);
  void worker_loop(int worker);
  void drain(int worker);

  int threads_ = 1;
  bool serial_ = false;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  void* job_ = nullptr;
  Call call_ = nullptr;
  int tasks_ = 0;
  int next_ = 0;        // next task to hand out (under mutex_)
  std::atomic<int> finished_{0};  // tasks of the current run done (written under mutex_)
  std::atomic<unsigned> generation_{0};  // runs opened (written under mutex_)
  std::atomic<bool> stop_{false};  // written under mutex_
};

// fn(first, last, worker) over the items [0, n): in ranges of `per_task` on the pool's threads, or as one range on
// the calling thread (worker 0) without a pool. Each item's output goes to a place of its own, so the result is the
// same either way.
template <class F>
void for_ranges(TaskPool* pool, int n, int per_task, F&& fn) {
  if (pool)
    pool->run_ranges(n, per_task, fn);
  else
    fn(0, n, 0);
}

}  // namespace cl
