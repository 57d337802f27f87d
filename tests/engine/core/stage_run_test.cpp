#include "core/stage_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace cl {
namespace {

constexpr uint64_t kUnset = ~uint64_t(0), kStale = ~uint64_t(0) - 1;  // never run; ran too early

// Stage s has counts[s] items; item i of stage s writes value[s][i] = i + the sum of stage s - 1's values, read when it
// runs: an item that ran before the previous stage was complete, twice, or never, leaves a different table. The
// sums grow geometrically over many stages, so they are taken modulo 2^64 (unsigned, whose wrap is defined).
std::vector<std::vector<uint64_t>> run_table(TaskPool& pool, const std::vector<int>& counts, int* driver = nullptr,
                                         std::atomic<bool>* bad_worker = nullptr) {
  std::vector<std::vector<uint64_t>> value(counts.size());
  for (std::size_t s = 0; s < counts.size(); ++s) value[s].assign(std::size_t(counts[s]), kUnset);
  run_stages(pool, [&](StageRun& st) {
    if (driver) *driver = st.driver();
    for (std::size_t s = 0; s < counts.size(); ++s) {
      // Serial work on the driver between stages, reading the previous stage's results.
      uint64_t before = 0;
      if (s > 0)
        for (uint64_t x : value[s - 1]) before += x;
      st.parallel(counts[s], [&, s, before](int item, int worker) {
        if (bad_worker && (worker < 0 || worker >= pool.threads())) bad_worker->store(true);
        uint64_t sum = 0;
        if (s > 0)
          for (uint64_t x : value[s - 1]) sum += x;
        value[s][std::size_t(item)] = sum == before ? uint64_t(item) + sum : kStale;
      });
    }
  });
  return value;
}

std::vector<std::vector<uint64_t>> expected_table(const std::vector<int>& counts) {
  std::vector<std::vector<uint64_t>> value(counts.size());
  uint64_t previous = 0;
  for (std::size_t s = 0; s < counts.size(); ++s) {
    uint64_t sum = 0;
    for (int i = 0; i < counts[s]; ++i) {
      value[s].push_back(uint64_t(i) + previous);
      sum += uint64_t(i) + previous;
    }
    previous = sum;
  }
  return value;
}

TEST(StageRun, EveryItemOnceAndStagesInOrder) {
  const std::vector<int> counts = {3, 0, 1, 64, 2, 1000, 7, 5, 300, 1};
  const auto expected = expected_table(counts);
  for (int threads : {1, 2, 3, 4}) {
    TaskPool pool(threads);
    for (int round = 0; round < 50; ++round) {
      int driver = -1;
      std::atomic<bool> bad_worker{false};
      EXPECT_EQ(run_table(pool, counts, &driver, &bad_worker), expected) << threads << " threads, round " << round;
      EXPECT_GE(driver, 0);
      EXPECT_LT(driver, threads);
      EXPECT_FALSE(bad_worker.load());
    }
  }
}

TEST(StageRun, MoreStagesThanSharedRunOnTheDriver) {
  std::vector<int> counts(StageRun::kMaxStages + 9);
  for (std::size_t s = 0; s < counts.size(); ++s) counts[s] = int(3 + s % 5);
  TaskPool pool(2);
  EXPECT_EQ(run_table(pool, counts), expected_table(counts));
}

TEST(StageRun, SerialPoolAndPlainRunStayOnTheCaller) {
  const std::vector<int> counts = {4, 16, 2};
  TaskPool pool(2);
  pool.set_serial(true);
  const std::thread::id caller = std::this_thread::get_id();
  bool elsewhere = false;
  int driver = -1;
  run_stages(pool, [&](StageRun& st) {
    driver = st.driver();
    for (int n : counts)
      st.parallel(n, [&](int, int worker) {
        elsewhere = elsewhere || worker != 0 || std::this_thread::get_id() != caller;
      });
    EXPECT_EQ(st.shared_stages(), 0);
  });
  EXPECT_EQ(driver, 0);
  EXPECT_FALSE(elsewhere);
  EXPECT_EQ(run_table(pool, counts), expected_table(counts));
  StageRun plain;
  int calls = 0;
  plain.parallel(5, [&](int, int worker) {
    ++calls;
    elsewhere = elsewhere || worker != 0 || std::this_thread::get_id() != caller;
  });
  EXPECT_EQ(calls, 5);
  EXPECT_FALSE(elsewhere);
}

// The workers take part: item 0 waits for item 1 to start on another thread, which only a worker that joined the
// stage can do (the driver is busy with item 0). Bounded, so that a worker that never comes fails the test.
TEST(StageRun, WorkersJoinTheStages) {
  TaskPool pool(2);
  for (int round = 0; round < 20; ++round) {
    std::atomic<bool> started{false};
    bool joined = false;
    std::thread::id first, second;
    run_stages(pool, [&](StageRun& st) {
      st.parallel(2, [&](int item, int) {
        if (item == 1) {
          second = std::this_thread::get_id();
          started.store(true);
          return;
        }
        first = std::this_thread::get_id();
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!started.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        joined = started.load();
      });
      EXPECT_EQ(st.shared_stages(), 1);
    });
    ASSERT_TRUE(joined) << "round " << round;
    EXPECT_NE(first, second);
  }
}

// The pool's own runs work as before between StageRuns, and many short StageRuns in a row (workers joining late, or
// after the driver has finished) leave nothing behind.
TEST(StageRun, PoolRunsBetweenStageRuns) {
  TaskPool pool(3);
  const std::vector<int> counts = {2, 1, 3};
  const auto expected = expected_table(counts);
  for (int round = 0; round < 500; ++round) {
    ASSERT_EQ(run_table(pool, counts), expected) << "round " << round;
    std::vector<int> hits(17, 0);
    pool.run(17, [&](int task, int) { ++hits[std::size_t(task)]; });
    ASSERT_EQ(hits, std::vector<int>(17, 1)) << "round " << round;
  }
}

}  // namespace
}  // namespace cl
