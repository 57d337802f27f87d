// Waiting for another thread of a parallel computation by spinning, for the short waits between its stages or
// levels (a few microseconds when both threads run): a pause instruction for the first rounds, which keeps the wait
// off the memory system and the other hyperthread, then the core is yielded at every round, so that a wait for a
// thread the system has not scheduled does not keep that thread (or others) from running.
//
//   SpinWait wait;
//   while (!ready.load(std::memory_order_acquire)) wait();
#pragma once

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cl {

class SpinWait {
 public:
  void operator()() {
    if (rounds_ < kPauses) {
      ++rounds_;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      return;
    }
    std::this_thread::yield();
  }
  // Back to pausing: after the awaited thread has shown progress.
  void reset() { rounds_ = 0; }

 private:
  static constexpr int kPauses = 1024;
  int rounds_ = 0;
};

}  // namespace cl
