// What the projected Gauss-Seidel's lane paths share (pgs.cpp for rows, pgs_contacts.cpp for contact
// constraints): the lane width, four values as one vector, the kernels' compilation for AVX2, and the barrier that
// ends a level when a solve's sweeps are split among threads. Internal to the constraints layer.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "constraints/pgs.h"
#include "core/spin_wait.h"

namespace cl::pgs_lanes {

constexpr int kWidth = 4;  // lanes: 4 doubles fill an AVX2 register
constexpr int kFloatWidth = 8;  // the contact path's lanes in single precision: 8 floats fill an AVX2 register
// The contact path's lanes on a machine with AVX-512: 8 doubles or 16 floats fill one of its registers.
constexpr int kWideWidth = 8, kWideFloatWidth = 16;
constexpr int kMaxBlockRows = 24;  // a block's rows: 8 contact points of three rows
constexpr int kMaxParticipants = 8;  // threads of one lane solve
constexpr int kBatchesPerThreadLevel = 8;  // each thread's least share of a level's batches

// W values, one per lane, as a GCC/Clang vector: four doubles or eight floats are one AVX2 instruction (two SSE2
// ones) per operation; four floats (the rows' path in single precision, PgsSettings::precision) one SSE2
// instruction on half the bytes, which is what a solve too large for the caches waits on. Loads and stores
// through it may be unaligned.
template <class T, int W = kWidth> struct LaneVector {
  typedef T type __attribute__((vector_size(W * sizeof(T)), aligned(sizeof(T))));
};

template <class T, int W = kWidth> inline typename LaneVector<T, W>::type load(const T* p) {
  return *reinterpret_cast<const typename LaneVector<T, W>::type*>(p);
}
template <class T, int W = kWidth> inline void store(T* p, typename LaneVector<T, W>::type v) {
  *reinterpret_cast<typename LaneVector<T, W>::type*>(p) = v;
}
// The number of lanes of a lane vector type.
template <class Lanes> constexpr int lanes_of() { return int(sizeof(Lanes) / sizeof(Lanes{}[0])); }

// The lane kernels are compiled for x86-64-v4 (AVX-512) and x86-64-v3 (AVX2) as well where GCC can pick the
// version at load time; their files are compiled without fused multiply-adds, so every version rounds as the
// one-row path does. AVX-512's 32 vector registers hold the velocities of two batches' lanes that AVX2's 16 spill.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CL_PGS_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CL_PGS_CLONES
#endif

// A spin barrier for the threads of one solve: a level's batches must all be updated before the next level's
// start. Waiters spin briefly, then yield, so that a thread the machine has not scheduled gets the core (SpinWait).
class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  void wait() {
    const unsigned phase = phase_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
      count_.store(0, std::memory_order_relaxed);
      phase_.store(phase + 1, std::memory_order_release);
      return;
    }
    SpinWait wait;
    while (phase_.load(std::memory_order_acquire) == phase) wait();
  }

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<unsigned> phase_{0};
};

// The velocities (v, w) of a batch's W lanes' bodies (their slots, from slot[first]), component by component, in
// the lanes' type.
template <class T, int W = kWidth, class Slots>
__attribute__((always_inline)) inline void load_lane_velocities(const std::array<double, 6>* velocity,
                                                                const Slots& slot,
                                                                typename LaneVector<T, W>::type (&u)[6],
                                                                int first = 0) {
  using Lanes = typename LaneVector<T, W>::type;
  const std::array<double, 6>* v[W];
  for (int l = 0; l < W; ++l) v[l] = &velocity[slot[size_t(first + l)]];
  [&]<size_t... L>(std::index_sequence<L...>) {
    for (size_t c = 0; c < 6; ++c) u[c] = Lanes{T((*v[L])[c])...};
  }(std::make_index_sequence<size_t(W)>{});
}
// Back into the slots of the lanes whose body the solve moves (`write`).
template <class T, int W = kWidth, class Slots, class Write>
__attribute__((always_inline)) inline void store_lane_velocities(std::array<double, 6>* velocity, const Slots& slot,
                                                                 const Write& write,
                                                                 const typename LaneVector<T, W>::type (&u)[6],
                                                                 int first = 0) {
  for (int l = 0; l < W; ++l)
    if (write[size_t(first + l)])
      for (size_t c = 0; c < 6; ++c) velocity[slot[size_t(first + l)]][c] = u[c][l];
}

// The two rows of a disc pair, lane by lane. Lane vectors go by value or as LaneVector: a deduced vector type
// is the 32-byte aligned one, and a reference of that type to a LaneVector (8-byte aligned) may be misaligned.
template <class T, int W = kWidth> struct LanePair {
  typename LaneVector<T, W>::type v[2];
};

// disc_steps (pgs_sweep.h) lane by lane: min(inv_1, inv_2) as std::min takes it, or each row's own where it is 0.
template <class T, int W = kWidth>
inline LanePair<T, W> disc_lane_steps(typename LaneVector<T, W>::type inv1, typename LaneVector<T, W>::type inv2) {
  using Lanes = typename LaneVector<T, W>::type;
  const Lanes m = inv2 < inv1 ? inv2 : inv1;
  const Lanes zero = {};
  return {{m > zero ? m : inv1, m > zero ? m : inv2}};
}

// The factor k that puts a disc pair's unbounded update (x_1, x_2) k on the disc of this radius, lane by lane: 1
// inside it (relax_disc in pgs_sweep.h, operation for operation).
template <class Lanes> inline Lanes disc_scale(Lanes x1, Lanes x2, Lanes radius) {
  const Lanes norm2 = x1 * x1 + x2 * x2;
  Lanes root = norm2;  // every lane set, then the square roots
  for (int lane = 0; lane < lanes_of<Lanes>(); ++lane) root[lane] = std::sqrt(norm2[lane]);
  const Lanes one = Lanes{} + 1;
  return norm2 > radius * radius ? radius / root : one;
}

// Puts a disc pair's unbounded update (x_1, x_2) from the impulses (l_1, l_2) on its disc, lane by lane: stores
// each new impulse at lambda_j, hands row j's change to apply(j, d) and returns the residual raised to |change|.
template <class T, int W = kWidth, class Apply>
inline typename LaneVector<T, W>::type commit_disc(LanePair<T, W> x, LanePair<T, W> l,
                                                   typename LaneVector<T, W>::type radius, T* lambda1, T* lambda2,
                                                   typename LaneVector<T, W>::type residual, Apply&& apply) {
  using Lanes = typename LaneVector<T, W>::type;
  const Lanes k = disc_scale(x.v[0], x.v[1], radius);
  T* const lambda[2] = {lambda1, lambda2};
  for (int j = 0; j < 2; ++j) {
    const Lanes next = x.v[j] * k;
    const Lanes d = next - l.v[j];
    store<T, W>(lambda[j], next);
    const Lanes size = d < T(0) ? -d : d;
    residual = size > residual ? size : residual;
    apply(j, d);
  }
  return residual;
}

// One row's projected update, lane by lane (relax in pgs_sweep.h, operation for operation): the unbounded
// update lambda - inv_diag w clamped to [lo, hi], stored at `out`; returns the change and raises the residual to
// its size.
template <class T, int W = kWidth>
inline typename LaneVector<T, W>::type commit_row(typename LaneVector<T, W>::type lambda,
                                                  typename LaneVector<T, W>::type inv_diag,
                                                  typename LaneVector<T, W>::type w, typename LaneVector<T, W>::type lo,
                                                  typename LaneVector<T, W>::type hi, T* out,
                                                  typename LaneVector<T, W>::type& residual) {
  using Lanes = typename LaneVector<T, W>::type;
  Lanes next = lambda - inv_diag * w;
  next = next < lo ? lo : next;
  next = next > hi ? hi : next;
  const Lanes d = next - lambda;
  store<T, W>(out, next);
  const Lanes size = d < T(0) ? -d : d;
  residual = size > residual ? size : residual;
  return d;
}

// Greedy colouring (as Box2D v3 colours its constraints): the lowest colour that no earlier block moving one of
// this block's moved bodies has, recorded for those bodies; -1 when all 256 are taken.
using ColoursUsed = std::array<uint64_t, 4>;
inline int take_colour(bool moves_a, ColoursUsed& a, bool moves_b, ColoursUsed& b) {
  int colour = -1;
  for (size_t w = 0; w < a.size() && colour < 0; ++w) {
    const uint64_t taken = (moves_a ? a[w] : 0) | (moves_b ? b[w] : 0);
    if (~taken != 0) colour = int(w) * 64 + std::countr_one(taken);
  }
  if (colour < 0) return -1;
  const uint64_t bit = uint64_t(1) << (colour % 64);
  if (moves_a) a[size_t(colour) / 64] |= bit;
  if (moves_b) b[size_t(colour) / 64] |= bit;
  return colour;
}

// How many threads a lane solve of these batches in these levels takes: more than one only when every level has
// batches enough for each thread to outweigh a barrier.
inline int lane_participants(TaskPool* pool, int batches, int levels) {
  if (!pool || pool->threads() <= 1 || pool->serial() || batches < kBatchesPerThreadLevel * 2 * levels) return 1;
  return std::min({pool->threads(), kMaxParticipants, batches / (kBatchesPerThreadLevel * levels)});
}

// Thread p's batches of a level: [level_batches[level], level_batches[level + 1]) split in `participants` shares.
inline std::pair<int, int> level_share(const std::vector<int>& level_batches, int level, int p, int participants) {
  const int begin = level_batches[size_t(level)], n = level_batches[size_t(level) + 1] - begin;
  return {begin + int(int64_t(n) * p / participants), begin + int(int64_t(n) * (p + 1) / participants)};
}

// The sweeps of a lane solve as thread p of `participants` runs them: each sweep takes the levels in order
// (backwards every second sweep when symmetric), sweep(first, last, backward) updating the thread's share of the
// level's batches, [first, last), and returning its largest |change of lambda|, a barrier after each level; then
// every thread reads all threads' residuals (and, with settings.relative, its shares' largest |lambda|,
// largest(first, last)) and takes the same stop decision from the same numbers, so the result is the same bit for
// bit on any number of threads. Thread 0 fills `result`.
struct LaneSweeps {
  const PgsSettings& settings;
  int participants;
  SpinBarrier barrier;
  // Per sweep parity and thread: its residual and its largest |lambda|; read by all after the sweep's last
  // barrier, rewritten two sweeps later (after at least one more barrier).
  std::array<std::array<double, kMaxParticipants>, 2> residual{}, largest{};
  PgsResult result;

  LaneSweeps(const PgsSettings& s, int n) : settings(s), participants(n), barrier(n) {}

  template <class Sweep, class Largest>
  void run(int p, const std::vector<int>& level_batches, Sweep&& sweep, Largest&& largest_lambda) {
    const int levels = int(level_batches.size()) - 1;
    int sweeps = 0;
    while (sweeps < settings.iterations) {
      ++sweeps;
      const size_t parity = size_t(sweeps % 2);
      double mine = 0.0;
      // Symmetric Gauss-Seidel: every second sweep takes the levels backwards, which is the sweep order of the
      // blocks reversed (blocks keep their row order).
      const bool backward = sweep_backward(settings, sweeps);
      for (int k = 0; k < levels; ++k) {
        const auto [first, last] = level_share(level_batches, backward ? levels - 1 - k : k, p, participants);
        mine = std::max(mine, sweep(first, last, backward));
        if (participants > 1) barrier.wait();
      }
      residual[parity][size_t(p)] = mine;
      if (settings.relative) {
        double most = 0.0;
        for (int level = 0; level < levels; ++level) {
          const auto [first, last] = level_share(level_batches, level, p, participants);
          most = std::max(most, largest_lambda(first, last));
        }
        largest[parity][size_t(p)] = most;
      }
      if (participants > 1) barrier.wait();
      double all = 0.0, most = 0.0;
      for (int q = 0; q < participants; ++q) {
        all = std::max(all, residual[parity][size_t(q)]);
        most = std::max(most, largest[parity][size_t(q)]);
      }
      if (p == 0) {
        result.sweeps = sweeps;
        result.residual = all;
        if (settings.residuals) settings.residuals->push_back(all);
      }
      if (sweep_converged(settings, all, [most] { return most; })) break;
    }
  }
};

// Runs a lane solve (one with a run(p) and a LaneSweeps `sweeps`) on `participants` threads of settings.pool, or
// on this one.
template <class Solve>
PgsResult run_lane_solve(const PgsSettings& settings, int participants, Solve& solve) {
  if (participants == 1)
    solve.run(0);
  else
    settings.pool->run(participants, [&](int task, int) { solve.run(task); });
  solve.sweeps.result.threads = participants;
  return solve.sweeps.result;
}

// The velocities (v, w) of a lane solve's bodies, by slot, with a zero dummy slot after them for empty lanes.
inline void gather_velocities(const std::vector<int>& bodies, std::span<const BodyVelocity> u,
                              std::vector<std::array<double, 6>>& out) {
  out.resize(bodies.size() + 1);
  for (size_t k = 0; k < bodies.size(); ++k) {
    const BodyVelocity& b = u[size_t(bodies[k])];
    out[k] = {b.v.x(), b.v.y(), b.v.z(), b.w.x(), b.w.y(), b.w.z()};
  }
  out.back() = {};
}
// The moved bodies' velocities back into u.
inline void scatter_velocities(const std::vector<int>& bodies, const std::vector<char>& moved,
                               const std::vector<std::array<double, 6>>& v, std::span<BodyVelocity> u) {
  for (size_t k = 0; k < bodies.size(); ++k) {
    if (!moved[k]) continue;
    const auto& s = v[k];
    u[size_t(bodies[k])] = {Vec3(s[0], s[1], s[2]), Vec3(s[3], s[4], s[5])};
  }
}

}  // namespace cl::pgs_lanes
