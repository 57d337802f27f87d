#include "core/task_pool.h"

#include <algorithm>

#include "core/spin_wait.h"

namespace cl {

TaskPool::TaskPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  threads_ = std::clamp(threads, 1, 256);
  for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Takes tasks until none are left. Tasks are taken one at a time under the lock: stages hand out at most a few
// thousand tasks (row chunks, groups of pairs), each far longer than the lock. The job is read with the task, so a
// worker that wakes late for one run takes part in whichever run is open.
void TaskPool::drain(int worker) {
  for (;;) {
    int task;
    void* job;
    Call call;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= tasks_) return;
      task = next_++;
      job = job_;
      call = call_;
    }
    call(job, task, worker);
    std::lock_guard<std::mutex> lock(mutex_);
    if (++finished_ == tasks_) done_.notify_all();
  }
}

// Spins while waiting() holds, for at most kSpin; then the caller sleeps on its condition if it must.
template <class Waiting>
static void spin_while(Waiting&& waiting, std::chrono::microseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  SpinWait wait;
  while (waiting() && std::chrono::steady_clock::now() < until) wait();
}

void TaskPool::worker_loop(int worker) {
  unsigned seen = 0;
  for (;;) {
    spin_while([&] { return generation_.load(std::memory_order_acquire) == seen && !stop_.load(); }, kSpin);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain(worker);
  }
}

// A run ends when its last task has finished, not when every worker has woken: on a loaded machine a sleeping
// worker may not be scheduled for milliseconds, and the caller does the tasks itself meanwhile.
void TaskPool::run_erased(int n, void* fn, Call call) {
  if (n <= 0) return;
  if (threads_ == 1 || n == 1 || serial_) {
    for (int t = 0; t < n; ++t) call(fn, t, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = fn;
    call_ = call;
    tasks_ = n;
    next_ = 0;
    finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  spin_while([&] { return finished_.load(std::memory_order_acquire) != n; }, kSpin);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == tasks_; });
  job_ = nullptr;
  call_ = nullptr;
}

}  // namespace cl
