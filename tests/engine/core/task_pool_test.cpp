#include "core/task_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace cl {
namespace {

// Back-to-back runs of few tasks (a stack's layers run the pool so, the workers still spinning from the run before):
// every task of every run runs once, on a worker of the pool, and run() returns only when all have.
TEST(TaskPool, BackToBackRunsRunEveryTaskOnce) {
  for (int threads : {2, 4}) {
    TaskPool pool(threads);
    std::vector<std::atomic<int>> ran(17);
    std::atomic<bool> bad_worker{false};
    for (int r = 0; r < 3000; ++r) {
      const int n = 1 + r % 17;
      for (auto& count : ran) count.store(0);
      pool.run(n, [&](int task, int worker) {
        if (worker < 0 || worker >= threads) bad_worker = true;
        ran[size_t(task)].fetch_add(1);
      });
      for (int t = 0; t < 17; ++t) ASSERT_EQ(ran[size_t(t)].load(), t < n ? 1 : 0) << "run " << r << ", task " << t;
    }
    EXPECT_FALSE(bad_worker.load());
  }
}

// Two tasks that each wait for the other to start can finish only on two threads at once: the worker must take
// part, whether it was still spinning from the run before or had gone to sleep (a pause longer than its spin).
TEST(TaskPool, WorkersTakePartAfterSpinningAndAfterSleeping) {
  TaskPool pool(2);
  const auto rendezvous = [&pool] {
    std::atomic<int> arrived{0};
    std::atomic<bool> both{true};
    pool.run(2, [&](int, int) {
      arrived.fetch_add(1);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived.load() < 2)
        if (std::chrono::steady_clock::now() > until) {
          both = false;
          return;
        }
    });
    return both.load();
  };
  for (int r = 0; r < 200; ++r) ASSERT_TRUE(rendezvous()) << "back-to-back run " << r;
  for (int r = 0; r < 5; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(rendezvous()) << "run " << r << " after a pause";
  }
}

// A pool destroyed right after a run, its worker still spinning, or long after, its worker asleep, joins it.
TEST(TaskPool, DestroyedWhileItsWorkersSpinOrSleep) {
  for (int pause_ms : {0, 5}) {
    std::atomic<int> ran{0};
    {
      TaskPool pool(3);
      pool.run(8, [&](int, int) { ran.fetch_add(1); });
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    }
    EXPECT_EQ(ran.load(), 8);
  }
}

// for_ranges hands out the items [0, n) in ranges of per_task on the pool's threads, each item once and every range
// but the last full; without a pool it calls fn once, with the whole range, on worker 0.
TEST(TaskPool, ForRangesCoversEveryItemOnce) {
  TaskPool pool(2);
  for (int n : {0, 1, 7, 256, 1000}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
    std::atomic<int> short_ranges{0};
    for_ranges(&pool, n, 64, [&](int first, int last, int worker) {
      EXPECT_TRUE(worker >= 0 && worker < 2);
      EXPECT_EQ(first % 64, 0);
      if (last - first < 64) {
        EXPECT_EQ(last, n);
        short_ranges.fetch_add(1);
      }
      for (int i = first; i < last; ++i) seen[size_t(i)].fetch_add(1);
    });
    for (int i = 0; i < n; ++i) ASSERT_EQ(seen[size_t(i)].load(), 1) << "item " << i;
    EXPECT_LE(short_ranges.load(), 1);
    int calls = 0;
    for_ranges(nullptr, n, 64, [&](int first, int last, int worker) {
      EXPECT_EQ(first, 0);
      EXPECT_EQ(last, n);
      EXPECT_EQ(worker, 0);
      ++calls;
    });
    EXPECT_EQ(calls, 1);
  }
}

}  // namespace
}  // namespace cl
