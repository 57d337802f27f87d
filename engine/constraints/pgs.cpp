#include "constraints/pgs.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "constraints/pgs_pair.h"

namespace cl {

namespace {

// ---------------------------------------------------------------------------------------------------------
// Layout of a solve.
//
// Gauss-Seidel updates one row at a time, and a row update reads and writes only its two bodies. The solve
// cuts the rows into blocks: runs of consecutive rows between the same two bodies (a contact's normal and
// friction rows, the points of one touching pair, a joint's rows), never splitting a row from the rows that
// follow it (Row::follows). It gives each block a level, one more than the last earlier block that shares a
// body the solve moves, and sweeps level by level. Blocks of one level share no moved body, so they commute:
// sweeping level by level performs every row update on exactly the velocities the given order would (the
// dependency levels of a sparse triangular solve, applied to Gauss-Seidel). Within a level, kWidth blocks of
// the same shape (row count and friction links) are updated together, one per lane, from structure-of-arrays
// data, with the arithmetic of the one-row path in the same order: the result is the same bit for bit.
// ---------------------------------------------------------------------------------------------------------

constexpr int kWidth = 4;  // lanes: 4 doubles fill an AVX2 register
// Per row and lane: J (12), B = M^-1 J^T (12), target, cfm, lo, hi, mu, 1/A_ii, lambda; padded to 32.
enum Field {
  kJaLin = 0, kJaAng = 3, kJbLin = 6, kJbAng = 9,
  kBaLin = 12, kBaAng = 15, kBbLin = 18, kBbAng = 21,
  kTarget = 24, kCfm, kLo, kHi, kMu, kInvDiag, kLambda,
  kFields = 32
};
constexpr int kMaxBlockRows = 24;  // a block's rows: 8 contact points of three rows

// A block's shape, which every lane of a batch shares: its row count, the rows that lead a group (a row and
// the rows that follow it), and per row the block row whose impulse bounds it (friction), or -1.
struct Shape {
  int rows = 0;
  uint32_t starts = 0;  // bit i: row i leads a group
  std::array<int8_t, kMaxBlockRows> normal{};
  bool operator==(const Shape&) const = default;
};

struct Batch {
  int shape = 0;                            // index in Layout::shapes
  size_t data = 0;                          // offset of its first row's fields in Layout::data
  std::array<int, kWidth> a{}, b{};         // each lane's bodies' slots (the dummy slot for an empty lane)
  std::array<int, kWidth> first{};          // each lane's first row in the caller's list (-1: empty lane)
  std::array<bool, kWidth> write_a{}, write_b{};  // whether the solve moves the lane's body a, b
};

struct Block {
  int first = 0, rows = 0;  // its rows in the caller's list
  int a = 0, b = 0;         // its bodies' slots in Layout::bodies
  int shape = 0, level = 0;
  int lane = 0;  // its lane in its batch
};

// A solve's blocks in level order. One per thread, reused between solves so that a step does not allocate.
struct Layout {
  std::vector<double> data;                  // the batches' fields, kFields x kWidth per row; only grows
  std::vector<Batch> batches;                // level by level
  std::vector<int> level_batches;            // batches of level k: [level_batches[k], level_batches[k + 1])
  // The bodies the rows touch, by slot: their world index, velocity (v, w) and whether any row moves them; one
  // dummy slot after them for empty lanes. A solve costs its rows, not the world's body count: slot_of and
  // stamp are indexed by world body, but only read for the rows' bodies.
  std::vector<int> bodies;
  std::vector<std::array<double, 6>> velocity;
  std::vector<char> moved;
  std::vector<int> last_level;  // per body: the level of the last block so far that moves it
  int levels = 0;
  std::vector<int> slot_of;
  std::vector<unsigned> stamp;  // slot_of[i] is valid in this solve when stamp[i] == generation
  unsigned generation = 0;
  std::vector<Block> blocks;
  std::vector<Shape> shapes;
  std::vector<int> order, level_begin, open;

  int slot(int body) {
    if (stamp[size_t(body)] != generation) {
      stamp[size_t(body)] = generation;
      slot_of[size_t(body)] = int(bodies.size());
      bodies.push_back(body);
      moved.push_back(0);
    }
    return slot_of[size_t(body)];
  }
};

// The row's side moves its body when its B has any non-zero entry (a fixed, kinematic or held body's B is 0).
bool moves(const Vec3& lin, const Vec3& ang) {
  return lin.x() != 0.0 || lin.y() != 0.0 || lin.z() != 0.0 || ang.x() != 0.0 || ang.y() != 0.0 || ang.z() != 0.0;
}

// Splits rows into blocks and gives them levels; false when a block cannot be laid out in lanes (its rows do not
// share their bodies, a row joins a body to itself, a friction row's normal row lies outside its block, or it is
// too large).
bool build_blocks(std::span<const Row> rows, size_t body_count, Layout& L) {
  L.blocks.clear();
  L.shapes.clear();
  L.bodies.clear();
  L.moved.clear();
  if (L.stamp.size() < body_count) {
    L.stamp.resize(body_count, 0);
    L.slot_of.resize(body_count, 0);
  }
  if (++L.generation == 0) {  // wrapped: no stamp may match by accident
    std::fill(L.stamp.begin(), L.stamp.end(), 0u);
    L.generation = 1;
  }
  Shape shape;
  auto close = [&] {
    if (L.blocks.empty()) return;
    Block& block = L.blocks.back();
    shape.rows = block.rows;
    for (int i = block.rows; i < kMaxBlockRows; ++i) shape.normal[size_t(i)] = -1;
    shape.starts &= (uint32_t(1) << block.rows) - 1;
    const auto it = std::find(L.shapes.begin(), L.shapes.end(), shape);
    block.shape = int(it - L.shapes.begin());
    if (it == L.shapes.end()) L.shapes.push_back(shape);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.a < 0 || r.b < 0 || r.a == r.b || size_t(r.a) >= body_count || size_t(r.b) >= body_count) return false;
    const Row* lead = L.blocks.empty() ? nullptr : &rows[size_t(L.blocks.back().first)];
    const bool same_bodies = lead && r.a == lead->a && r.b == lead->b;
    if (r.follows && !same_bodies) return false;
    bool start = !same_bodies;
    if (!r.follows) {
      // The group this row leads (it and the rows that follow it) stays in one block.
      size_t group = 1;
      while (i + group < rows.size() && rows[i + group].follows) ++group;
      if (group > size_t(kMaxBlockRows)) return false;
      start = start || L.blocks.back().rows + int(group) > kMaxBlockRows;
    }
    if (start) {
      close();
      L.blocks.push_back({int(i), 1, L.slot(r.a), L.slot(r.b)});
    } else {
      ++L.blocks.back().rows;
    }
    const Block& block = L.blocks.back();
    if (r.normal_row >= 0 && (r.normal_row < block.first || size_t(r.normal_row) >= i)) return false;
    const int at = int(i) - block.first;
    shape.normal[size_t(at)] = int8_t(r.normal_row >= 0 ? r.normal_row - block.first : -1);
    if (at == 0) shape.starts = 0;
    if (!r.follows) shape.starts |= uint32_t(1) << at;
    if (moves(r.ba_lin, r.ba_ang)) L.moved[size_t(block.a)] = 1;
    if (moves(r.bb_lin, r.bb_ang)) L.moved[size_t(block.b)] = 1;
  }
  close();
  // Levels: a block comes one level after the last earlier block that shares a moved body with it. Blocks of a
  // level share no moved body, so they commute, and sweeping level by level performs every row update on the
  // same velocities as sweeping the rows in their given order.
  L.last_level.assign(L.bodies.size(), -1);
  L.levels = 0;
  for (Block& block : L.blocks) {
    const size_t a = size_t(block.a), b = size_t(block.b);
    const bool ma = L.moved[a], mb = L.moved[b];
    block.level = 1 + std::max(ma ? L.last_level[a] : -1, mb ? L.last_level[b] : -1);
    if (ma) L.last_level[a] = block.level;
    if (mb) L.last_level[b] = block.level;
    L.levels = std::max(L.levels, block.level + 1);
  }
  return true;
}

// Lays the blocks out in batches: per level, blocks of one shape kWidth at a time, in block order.
void fill_batches(std::span<const Row> rows, Layout& L) {
  // Blocks by level, each level in block order (a counting sort).
  L.level_begin.assign(size_t(L.levels) + 1, 0);
  for (const Block& block : L.blocks) ++L.level_begin[size_t(block.level) + 1];
  for (int c = 0; c < L.levels; ++c) L.level_begin[size_t(c) + 1] += L.level_begin[size_t(c)];
  L.order.resize(L.blocks.size());
  L.open.assign(L.level_begin.begin(), L.level_begin.end() - 1);
  for (size_t k = 0; k < L.blocks.size(); ++k) L.order[size_t(L.open[size_t(L.blocks[k].level)]++)] = int(k);

  // Batches and lanes.
  const int dummy = int(L.bodies.size());
  L.batches.clear();
  L.level_batches.assign(1, 0);
  size_t size = 0;
  size_t pos = 0;
  for (int level = 0; level < L.levels; ++level) {
    L.open.assign(L.shapes.size(), -1);  // per shape: the batch of this level with a free lane
    for (; pos < L.order.size() && L.blocks[size_t(L.order[pos])].level == level; ++pos) {
      Block& block = L.blocks[size_t(L.order[pos])];
      int& open = L.open[size_t(block.shape)];
      if (open < 0) {
        Batch fresh;
        fresh.shape = block.shape;
        fresh.data = size;
        fresh.a.fill(dummy);
        fresh.b.fill(dummy);
        fresh.first.fill(-1);
        size += size_t(block.rows) * kFields * kWidth;
        open = int(L.batches.size());
        L.batches.push_back(fresh);
        block.lane = 0;
      } else {
        block.lane = 1;
        while (L.batches[size_t(open)].first[size_t(block.lane)] >= 0) ++block.lane;
      }
      Batch& batch = L.batches[size_t(open)];
      const size_t lane = size_t(block.lane);
      batch.a[lane] = block.a;
      batch.b[lane] = block.b;
      batch.first[lane] = block.first;
      // A moved body is written back even by a lane that leaves it alone (its value unchanged): no other block
      // of the level touches it.
      batch.write_a[lane] = L.moved[size_t(block.a)] != 0;
      batch.write_b[lane] = L.moved[size_t(block.b)] != 0;
      if (block.lane == kWidth - 1) open = -1;
    }
    L.level_batches.push_back(int(L.batches.size()));
  }

  // The fields, batch by batch so that each batch's memory is written while it is in cache; an empty lane is
  // all zeros with bounds [0, 0], so it never changes.
  if (L.data.size() < size) L.data.resize(size);
  for (const Batch& batch : L.batches)
    for (size_t lane = 0; lane < kWidth; ++lane)
      for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i) {
        double* f = L.data.data() + batch.data + size_t(i) * kFields * kWidth + lane;
        if (batch.first[lane] < 0) {
          for (int field = 0; field < kFields; ++field) f[field * kWidth] = 0.0;
          continue;
        }
        const Row& r = rows[size_t(batch.first[lane] + i)];
        auto put = [f](int field, const Vec3& v) {
          f[field * kWidth] = v.x();
          f[(field + 1) * kWidth] = v.y();
          f[(field + 2) * kWidth] = v.z();
        };
        put(kJaLin, r.ja_lin), put(kJaAng, r.ja_ang), put(kJbLin, r.jb_lin), put(kJbAng, r.jb_ang);
        put(kBaLin, r.ba_lin), put(kBaAng, r.ba_ang), put(kBbLin, r.bb_lin), put(kBbAng, r.bb_ang);
        f[kTarget * kWidth] = r.target;
        f[kCfm * kWidth] = r.cfm;
        f[kLo * kWidth] = r.lo;
        f[kHi * kWidth] = r.hi;
        f[kMu * kWidth] = r.mu;
        f[kInvDiag * kWidth] = r.inv_diag;
        f[kLambda * kWidth] = r.lambda;
      }
}

// Four doubles, one per lane, as a GCC/Clang vector: the compiler emits one AVX2 instruction, or two SSE2 ones,
// per operation. Loads and stores through it may be unaligned.
typedef double Lanes __attribute__((vector_size(kWidth * sizeof(double)), aligned(sizeof(double))));
static_assert(kWidth == 4, "the gathers below spell out four lanes");

inline Lanes load(const double* p) { return *reinterpret_cast<const Lanes*>(p); }
inline void store(double* p, Lanes v) { *reinterpret_cast<Lanes*>(p) = v; }

// One batch: gathers its lanes' body velocities, updates its rows in order, each across all lanes (digest 6.6:
// w = J u - target + cfm lambda, lambda <- clamp(lambda - w / A_ii, lo, hi), u += B d lambda), and scatters
// the velocities back; backward takes the block's groups in reverse. Returns the largest |change of lambda|.
// Compiled for x86-64-v3 (AVX2) as well where GCC can pick the version at load time; pgs.cpp is compiled
// without fused multiply-adds, so both versions round as the one-row path does.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
double update_batch(const Batch& batch, const Shape& shape, double* data, std::array<double, 6>* velocity,
                    bool backward) {
  constexpr int W = kWidth;
  const std::array<double, 6>* va[W] = {&velocity[batch.a[0]], &velocity[batch.a[1]], &velocity[batch.a[2]], &velocity[batch.a[3]]};
  const std::array<double, 6>* vb[W] = {&velocity[batch.b[0]], &velocity[batch.b[1]], &velocity[batch.b[2]], &velocity[batch.b[3]]};
  Lanes ua[6], ub[6];
  for (size_t c = 0; c < 6; ++c) {
    ua[c] = Lanes{(*va[0])[c], (*va[1])[c], (*va[2])[c], (*va[3])[c]};
    ub[c] = Lanes{(*vb[0])[c], (*vb[1])[c], (*vb[2])[c], (*vb[3])[c]};
  }
  Lanes residual = {0.0, 0.0, 0.0, 0.0};
  auto update_row = [&](int i) {
    double* f = data + size_t(i) * kFields * W;
    auto field = [f](int k) { return load(f + k * kWidth); };
    Lanes lo, hi;
    const int nr = shape.normal[size_t(i)];
    if (nr >= 0) {
      // Friction box (digest 4.6): |lambda_t| <= mu lambda_n with the normal impulse of this sweep.
      hi = field(kMu) * load(data + (size_t(nr) * kFields + kLambda) * W);
      lo = -hi;
    } else {
      lo = field(kLo);
      hi = field(kHi);
    }
    // w = J u - target + cfm lambda, summed in the order Row::value sums it, so that both paths round alike.
    auto dot = [&](int j, const Lanes* u) { return field(j) * u[0] + field(j + 1) * u[1] + field(j + 2) * u[2]; };
    const Lanes value = dot(kJaLin, ua) + dot(kJaAng, ua + 3) + dot(kJbLin, ub) + dot(kJbAng, ub + 3);
    const Lanes lambda = field(kLambda);
    const Lanes w = value - field(kTarget) + field(kCfm) * lambda;
    Lanes next = lambda - field(kInvDiag) * w;
    next = next < lo ? lo : next;
    next = next > hi ? hi : next;
    const Lanes d = next - lambda;
    store(f + kLambda * W, next);
    const Lanes size = d < 0.0 ? -d : d;
    residual = size > residual ? size : residual;
    for (int c = 0; c < 3; ++c) {
      ua[c] += d * field(kBaLin + c);
      ua[3 + c] += d * field(kBaAng + c);
      ub[c] += d * field(kBbLin + c);
      ub[3 + c] += d * field(kBbAng + c);
    }
  };
  if (!backward) {
    for (int i = 0; i < shape.rows; ++i) update_row(i);
  } else {
    // The block's groups last to first, each group's rows in order (as PgsSettings::symmetric asks).
    for (int end = shape.rows; end > 0;) {
      int begin = end - 1;
      while (begin > 0 && !(shape.starts >> begin & 1u)) --begin;
      for (int i = begin; i < end; ++i) update_row(i);
      end = begin;
    }
  }
  for (int l = 0; l < W; ++l) {
    if (batch.write_a[size_t(l)])
      for (size_t c = 0; c < 6; ++c) velocity[batch.a[size_t(l)]][c] = ua[c][l];
    if (batch.write_b[size_t(l)])
      for (size_t c = 0; c < 6; ++c) velocity[batch.b[size_t(l)]][c] = ub[c][l];
  }
  return std::max(std::max(residual[0], residual[1]), std::max(residual[2], residual[3]));
}

// The plain sweep over rows in their given order: asked for, or for row lists the lanes cannot take (see
// build_blocks).
inline double relax(std::span<Row> rows, Row& r, std::span<BodyVelocity> u) {
  double lo = r.lo, hi = r.hi;
  if (r.normal_row >= 0) {
    hi = r.mu * rows[size_t(r.normal_row)].lambda;
    lo = -hi;
  }
  const double w = r.value(u[r.a], u[r.b]) - r.target + r.cfm * r.lambda;
  const double next = std::clamp(r.lambda - r.inv_diag * w, lo, hi);
  const double d = next - r.lambda;
  if (d == 0.0) return 0.0;
  r.lambda = next;
  r.apply(d, u);
  return std::abs(d);
}

PgsResult solve_in_order(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings) {
  PgsResult result;
  const size_t n = rows.size();
  while (result.sweeps < settings.iterations) {
    ++result.sweeps;
    double residual = 0.0;
    if (!settings.symmetric || result.sweeps % 2 == 1) {
      for (Row& r : rows) residual = std::max(residual, relax(rows, r, u));
    } else {
      for (size_t end = n; end > 0;) {
        size_t begin = end - 1;
        while (begin > 0 && rows[begin].follows) --begin;
        for (size_t i = begin; i < end; ++i) residual = std::max(residual, relax(rows, rows[i], u));
        end = begin;
      }
    }
    result.residual = residual;
    if (settings.residuals) settings.residuals->push_back(residual);
    double limit = settings.tolerance;
    if (settings.relative) {
      double largest = 0.0;
      for (const Row& r : rows) largest = std::max(largest, std::abs(r.lambda));
      limit *= largest;
    }
    if (residual <= limit) break;
  }
  return result;
}

}  // namespace

void apply_impulses(std::span<const Row> rows, std::span<BodyVelocity> u) {
  for (const Row& r : rows)
    if (r.lambda != 0.0) r.apply(r.lambda, u);
}

PgsResult solve_pgs(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings) {
  if (rows.empty()) return {};
  if (settings.pair_runs)
    if (const std::optional<PgsResult> r = solve_pgs_pair_runs(rows, u, settings)) return *r;
  thread_local Layout L;
  if (!settings.lanes || !build_blocks(rows, u.size(), L))
    return solve_in_order(rows, u, settings);
  fill_batches(rows, L);
  L.velocity.resize(L.bodies.size() + 1);
  for (size_t k = 0; k < L.bodies.size(); ++k) {
    const BodyVelocity& b = u[size_t(L.bodies[k])];
    L.velocity[k] = {b.v.x(), b.v.y(), b.v.z(), b.w.x(), b.w.y(), b.w.z()};
  }
  L.velocity.back() = {};

  PgsResult result;
  const int levels = int(L.level_batches.size()) - 1;
  while (result.sweeps < settings.iterations) {
    ++result.sweeps;
    double residual = 0.0;
    // Symmetric Gauss-Seidel: every second sweep takes the levels backwards, which is the given order of the
    // blocks reversed (blocks keep their row order).
    const bool backward = settings.symmetric && result.sweeps % 2 == 0;
    for (int k = 0; k < levels; ++k) {
      const int level = backward ? levels - 1 - k : k;
      for (int bi = L.level_batches[size_t(level)]; bi < L.level_batches[size_t(level) + 1]; ++bi) {
        const Batch& batch = L.batches[size_t(bi)];
        residual = std::max(residual, update_batch(batch, L.shapes[size_t(batch.shape)], L.data.data() + batch.data,
                                                   L.velocity.data(), backward));
      }
    }
    result.residual = residual;
    if (settings.residuals) settings.residuals->push_back(residual);
    // Early exit (digest 6.5, SOR-LCP-4): a sweep that moved no impulse by more than the tolerance (with
    // `relative`, that fraction of the largest impulse).
    double limit = settings.tolerance;
    if (settings.relative) {
      double largest = 0.0;
      for (const Batch& batch : L.batches)
        for (int l = 0; l < kWidth; ++l) {
          if (batch.first[size_t(l)] < 0) continue;
          for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i)
            largest = std::max(largest, std::abs(L.data[batch.data + (size_t(i) * kFields + kLambda) * kWidth + size_t(l)]));
        }
      limit *= largest;
    }
    if (residual <= limit) break;
  }

  for (const Batch& batch : L.batches)
    for (int l = 0; l < kWidth; ++l) {
      const int first = batch.first[size_t(l)];
      if (first < 0) continue;
      for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i)
        rows[size_t(first + i)].lambda = L.data[batch.data + (size_t(i) * kFields + kLambda) * kWidth + size_t(l)];
    }
  for (size_t k = 0; k < L.bodies.size(); ++k) {
    if (!L.moved[k]) continue;
    const auto& s = L.velocity[k];
    u[size_t(L.bodies[k])] = {Vec3(s[0], s[1], s[2]), Vec3(s[3], s[4], s[5])};
  }
  return result;
}

}  // namespace cl
