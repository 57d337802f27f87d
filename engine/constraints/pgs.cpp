#include "constraints/pgs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "constraints/pgs_lanes.h"
#include "constraints/pgs_pair.h"
#include "constraints/pgs_sweep.h"

namespace cl {

namespace {

using namespace pgs_lanes;

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
//
// Coloured (PgsSettings::coloured), the levels are colours instead: a greedy graph colouring of the blocks, as
// Box2D v3 colours its constraints. The sweep order is then colour by colour, a different Gauss-Seidel order
// than the given one, but a level now holds about a colour's share of all blocks (6 levels of ~100 blocks on the
// 20-row pyramid, against 111 levels of ~5 in the given order): fuller lanes, and levels large enough to split
// among threads, each thread taking the same batches of every level in every sweep, with a barrier per level.
// ---------------------------------------------------------------------------------------------------------

// Per row and lane: J (12), B = M^-1 J^T (12), target, cfm, lo, hi, mu, 1/A_ii, lambda; padded to 32.
enum Field {
  kJaLin = 0, kJaAng = 3, kJbLin = 6, kJbAng = 9,
  kBaLin = 12, kBaAng = 15, kBbLin = 18, kBbAng = 21,
  kTarget = 24, kCfm, kLo, kHi, kMu, kInvDiag, kLambda,
  kFields = 32
};

// A block's shape, which every lane of a batch shares: its row count, the rows that lead a group (a row and
// the rows that follow it), and per row the block row whose impulse bounds it (friction), or -1.
struct Shape {
  int rows = 0;
  uint32_t starts = 0;  // bit i: row i leads a group
  uint32_t disc = 0;    // bit i: row i is the second of a disc pair (Row::cone), updated with row i - 1
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
  std::vector<float> data_f;                 // the same in single precision (PgsSettings::precision)
  std::vector<Batch> batches;                // level by level
  std::vector<int> level_batches;            // batches of level k: [level_batches[k], level_batches[k + 1])
  // The bodies the rows touch, by slot: their world index, velocity (v, w) and whether any row moves them; one
  // dummy slot after them for empty lanes. A solve costs its rows, not the world's body count: slot_of and
  // stamp are indexed by world body, but only read for the rows' bodies.
  std::vector<int> bodies;
  std::vector<std::array<double, 6>> velocity;
  std::vector<char> moved;
  std::vector<int> last_level;  // per body: the level of the last block so far that moves it
  std::vector<ColoursUsed> colours_used;  // per body: the colours of blocks that move it
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


// Colours (greedy, in block order): each block takes the lowest colour no earlier block moving one of its
// moved bodies has. Blocks of one colour share no moved body, so they commute; the sweep order becomes colour
// by colour, each colour in block order. False when some body is in more blocks than there are colours (then
// the levels of the given order are used instead, by both the lanes and the one-row path).
bool colour_blocks(Layout& L) {
  L.levels = 0;
  L.colours_used.assign(L.bodies.size(), {});
  for (Block& block : L.blocks) {
    const size_t a = size_t(block.a), b = size_t(block.b);
    const int colour = take_colour(L.moved[a], L.colours_used[a], L.moved[b], L.colours_used[b]);
    if (colour < 0) return false;
    block.level = colour;
    L.levels = std::max(L.levels, colour + 1);
  }
  return true;
}

// Splits rows into blocks and gives them levels; false when a block cannot be laid out in lanes (its rows do not
// share their bodies, a row joins a body to itself, a friction row's normal row lies outside its block, or it is
// too large).
bool build_blocks(std::span<const Row> rows, size_t body_count, bool coloured, Layout& L) {
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
  int last_shape = -1;
  auto close = [&] {
    if (L.blocks.empty()) return;
    Block& block = L.blocks.back();
    shape.rows = block.rows;
    std::memset(shape.normal.data() + block.rows, -1, size_t(kMaxBlockRows - block.rows));
    shape.starts &= (uint32_t(1) << block.rows) - 1;
    shape.disc &= (uint32_t(1) << block.rows) - 1;
    // Most blocks have the shape of the block before them (a contact's normal and friction rows): tried first.
    if (last_shape >= 0 && L.shapes[size_t(last_shape)] == shape) {
      block.shape = last_shape;
      return;
    }
    const auto it = std::find(L.shapes.begin(), L.shapes.end(), shape);
    block.shape = last_shape = int(it - L.shapes.begin());
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
    // A disc pair: First right before Second in the block, both friction rows of one normal row.
    const bool first = r.cone == FrictionCone::First, second = r.cone == FrictionCone::Second;
    if ((first || second) && r.normal_row < 0) return false;
    if (first && (i + 1 >= rows.size() || rows[i + 1].cone != FrictionCone::Second)) return false;
    if (second && (at == 0 || rows[i - 1].cone != FrictionCone::First || rows[i - 1].normal_row != r.normal_row))
      return false;
    shape.normal[size_t(at)] = int8_t(r.normal_row >= 0 ? r.normal_row - block.first : -1);
    if (at == 0) shape.starts = shape.disc = 0;
    if (!r.follows) shape.starts |= uint32_t(1) << at;
    if (second) shape.disc |= uint32_t(1) << at;
    if (r.moves_a()) L.moved[size_t(block.a)] = 1;
    if (r.moves_b()) L.moved[size_t(block.b)] = 1;
  }
  close();
  if (coloured && colour_blocks(L)) return true;
  L.levels = 0;
  // Levels: a block comes one level after the last earlier block that shares a moved body with it. Blocks of a
  // level share no moved body, so they commute, and sweeping level by level performs every row update on the
  // same velocities as sweeping the rows in their given order.
  L.last_level.assign(L.bodies.size(), -1);
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

// The blocks by level, each level in block order (a counting sort): the order of the sweep.
void order_blocks(Layout& L) {
  L.level_begin.assign(size_t(L.levels) + 1, 0);
  for (const Block& block : L.blocks) ++L.level_begin[size_t(block.level) + 1];
  for (int c = 0; c < L.levels; ++c) L.level_begin[size_t(c) + 1] += L.level_begin[size_t(c)];
  L.order.resize(L.blocks.size());
  L.open.assign(L.level_begin.begin(), L.level_begin.end() - 1);
  for (size_t k = 0; k < L.blocks.size(); ++k) L.order[size_t(L.open[size_t(L.blocks[k].level)]++)] = int(k);
}

// Lays the ordered blocks out in batches: per level, blocks of one shape kWidth at a time, in block order.
void plan_batches(Layout& L, bool single) {
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

  if (single) {
    if (L.data_f.size() < size) L.data_f.resize(size);
  } else if (L.data.size() < size) {
    L.data.resize(size);
  }
}

template <class T> std::vector<T>& data_of(Layout& L);
template <> std::vector<double>& data_of<double>(Layout& L) { return L.data; }
template <> std::vector<float>& data_of<float>(Layout& L) { return L.data_f; }

// An empty lane: all zeros with bounds [0, 0], so it never changes.
Row empty_lane_row() {
  Row r;
  r.lo = r.hi = 0.0;
  return r;
}

// A batch's fields, written while its memory is in cache (by the thread that sweeps it): per row and field,
// the four lanes' values gathered and stored at once.
template <class T>
void fill_batch(std::span<const Row> rows, Layout& L, const Batch& batch) {
  using Lanes = typename LaneVector<T>::type;
  static const Row empty = empty_lane_row();
  for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i) {
    const Row* r[kWidth];
    for (size_t lane = 0; lane < kWidth; ++lane)
      r[lane] = batch.first[lane] < 0 ? &empty : &rows[size_t(batch.first[lane] + i)];
    T* f = data_of<T>(L).data() + batch.data + size_t(i) * kFields * kWidth;
    auto put = [&](int field, Vec3 Row::*v) {
      for (int c = 0; c < 3; ++c)
        store<T>(f + (field + c) * kWidth, Lanes{T((r[0]->*v)[c]), T((r[1]->*v)[c]), T((r[2]->*v)[c]), T((r[3]->*v)[c])});
    };
    auto put1 = [&](int field, double Row::*v) {
      store<T>(f + field * kWidth, Lanes{T(r[0]->*v), T(r[1]->*v), T(r[2]->*v), T(r[3]->*v)});
    };
    put(kJaLin, &Row::ja_lin), put(kJaAng, &Row::ja_ang), put(kJbLin, &Row::jb_lin), put(kJbAng, &Row::jb_ang);
    put(kBaLin, &Row::ba_lin), put(kBaAng, &Row::ba_ang), put(kBbLin, &Row::bb_lin), put(kBbAng, &Row::bb_ang);
    put1(kTarget, &Row::target), put1(kCfm, &Row::cfm), put1(kLo, &Row::lo), put1(kHi, &Row::hi);
    put1(kMu, &Row::mu), put1(kInvDiag, &Row::inv_diag), put1(kLambda, &Row::lambda);
  }
}

// N batches: gathers their lanes' body velocities, updates their rows in order, each across all lanes (thesis
// sect. 6.1.5-6.1.6: w = J u - target + cfm lambda, lambda <- clamp(lambda - w / A_ii, lo, hi), u += B d lambda),
// and scatters the velocities back; backward takes the block's groups in reverse. Returns the largest
// |change of lambda|.
template <class T, int N>
__attribute__((always_inline)) inline double update_batches(const Batch* const* batch, const Shape& shape,
                                                            T* const* data, std::array<double, 6>* velocity,
                                                            bool backward) {
  using Lanes = typename LaneVector<T>::type;
  constexpr int W = kWidth;
  Lanes ua[N][6], ub[N][6];
  for (int n = 0; n < N; ++n) {
    load_lane_velocities<T>(velocity, batch[n]->a, ua[n]);
    load_lane_velocities<T>(velocity, batch[n]->b, ub[n]);
  }
  Lanes residual = {0, 0, 0, 0};
  // Rows i - 1 and i of every batch, a disc pair (relax_disc in pgs_sweep.h, operation for operation).
  auto update_disc = [&](int i) {
    for (int n = 0; n < N; ++n) {
      T* f1 = data[n] + size_t(i - 1) * kFields * W;
      T* f2 = data[n] + size_t(i) * kFields * W;
      const Lanes radius = load<T>(f2 + kMu * W) * load<T>(data[n] + (size_t(shape.normal[size_t(i)]) * kFields + kLambda) * W);
      LanePair<T> x, l;
      T* const fs[2] = {f1, f2};
      const LanePair<T> step = disc_lane_steps<T>(load<T>(f1 + kInvDiag * W), load<T>(f2 + kInvDiag * W));
      for (int k = 0; k < 2; ++k) {
        const T* f = fs[k];
        auto field = [f](int j) { return load<T>(f + j * kWidth); };
        auto dot = [&](int j, const Lanes* u) { return field(j) * u[0] + field(j + 1) * u[1] + field(j + 2) * u[2]; };
        const Lanes value = dot(kJaLin, ua[n]) + dot(kJaAng, ua[n] + 3) + dot(kJbLin, ub[n]) + dot(kJbAng, ub[n] + 3);
        l.v[k] = field(kLambda);
        x.v[k] = l.v[k] - step.v[k] * (value - field(kTarget) + field(kCfm) * l.v[k]);
      }
      residual = commit_disc<T>(x, l, radius, f1 + kLambda * W, f2 + kLambda * W, residual, [&](int j, Lanes d) {
        const T* f = fs[j];
        for (int c = 0; c < 3; ++c) {
          ua[n][c] += d * load<T>(f + (kBaLin + c) * W);
          ua[n][3 + c] += d * load<T>(f + (kBaAng + c) * W);
          ub[n][c] += d * load<T>(f + (kBbLin + c) * W);
          ub[n][3 + c] += d * load<T>(f + (kBbAng + c) * W);
        }
      });
    }
  };
  // Row i of every batch: independent chains side by side, which the processor overlaps.
  auto update_row = [&](int i) {
    if (shape.disc >> i & 1u) return update_disc(i);
    if (i + 1 < shape.rows && (shape.disc >> (i + 1) & 1u)) return;  // a disc pair's first row: with the second
    for (int n = 0; n < N; ++n) {
      T* f = data[n] + size_t(i) * kFields * W;
      auto field = [f](int k) { return load<T>(f + k * kWidth); };
      Lanes lo, hi;
      const int nr = shape.normal[size_t(i)];
      if (nr >= 0) {
        // Friction box (thesis sect. 4.7): |lambda_t| <= mu lambda_n with the normal impulse of this sweep.
        hi = field(kMu) * load<T>(data[n] + (size_t(nr) * kFields + kLambda) * W);
        lo = -hi;
      } else {
        lo = field(kLo);
        hi = field(kHi);
      }
      // w = J u - target + cfm lambda, summed in the order Row::value sums it, so that both paths round alike.
      auto dot = [&](int j, const Lanes* u) { return field(j) * u[0] + field(j + 1) * u[1] + field(j + 2) * u[2]; };
      const Lanes value = dot(kJaLin, ua[n]) + dot(kJaAng, ua[n] + 3) + dot(kJbLin, ub[n]) + dot(kJbAng, ub[n] + 3);
      const Lanes lambda = field(kLambda);
      const Lanes w = value - field(kTarget) + field(kCfm) * lambda;
      const Lanes d = commit_row<T>(lambda, field(kInvDiag), w, lo, hi, f + kLambda * W, residual);
      for (int c = 0; c < 3; ++c) {
        ua[n][c] += d * field(kBaLin + c);
        ua[n][3 + c] += d * field(kBaAng + c);
        ub[n][c] += d * field(kBbLin + c);
        ub[n][3 + c] += d * field(kBbAng + c);
      }
    }
  };
  if (!backward) {
    for (int i = 0; i < shape.rows; ++i) update_row(i);
  } else {
    backward_by_groups(0, shape.rows, [&](int i) { return (shape.starts >> i & 1u) != 0; }, update_row);
  }
  for (int n = 0; n < N; ++n) {
    store_lane_velocities<T>(velocity, batch[n]->a, batch[n]->write_a, ua[n]);
    store_lane_velocities<T>(velocity, batch[n]->b, batch[n]->write_b, ub[n]);
  }
  return double(std::max(std::max(residual[0], residual[1]), std::max(residual[2], residual[3])));
}

CL_PGS_CLONES double update_batch(const Batch& batch, const Shape& shape, double* data,
                                  std::array<double, 6>* velocity, bool backward) {
  const Batch* b[1] = {&batch};
  double* d[1] = {data};
  return update_batches<double, 1>(b, shape, d, velocity, backward);
}
CL_PGS_CLONES double update_batch(const Batch& batch, const Shape& shape, float* data,
                                  std::array<double, 6>* velocity, bool backward) {
  const Batch* b[1] = {&batch};
  float* d[1] = {data};
  return update_batches<float, 1>(b, shape, d, velocity, backward);
}
// Two batches of one level and one shape at once (they commute): twice the independent work per row, so the
// processor overlaps the two update chains instead of waiting on each multiply-add.
CL_PGS_CLONES double update_batch_pair(const Batch& x, const Batch& y, const Shape& shape, double* data_x,
                                       double* data_y, std::array<double, 6>* velocity, bool backward) {
  const Batch* b[2] = {&x, &y};
  double* d[2] = {data_x, data_y};
  return update_batches<double, 2>(b, shape, d, velocity, backward);
}
CL_PGS_CLONES double update_batch_pair(const Batch& x, const Batch& y, const Shape& shape, float* data_x,
                                       float* data_y, std::array<double, 6>* velocity, bool backward) {
  const Batch* b[2] = {&x, &y};
  float* d[2] = {data_x, data_y};
  return update_batches<float, 2>(b, shape, d, velocity, backward);
}

// The plain sweep over rows in their given order: asked for, or for row lists the lanes cannot take (see
// build_blocks).
PgsResult solve_in_order(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings) {
  PgsResult result;
  const size_t n = rows.size();
  while (result.sweeps < settings.iterations) {
    ++result.sweeps;
    double residual = 0.0;
    auto update = [&](size_t i) {
      residual = std::max(residual, relax(rows, i, [&](size_t k) -> double& { return rows[k].lambda; }, u));
    };
    if (!sweep_backward(settings, result.sweeps)) {
      for (size_t i = 0; i < n; ++i) update(i);
    } else {
      backward_by_groups(size_t(0), n, [&](size_t i) { return !rows[i].follows; }, update);
    }
    result.residual = residual;
    if (settings.residuals) settings.residuals->push_back(residual);
    if (sweep_converged(settings, residual, [&] {
          double largest = 0.0;
          for (const Row& r : rows) largest = std::max(largest, std::abs(r.lambda));
          return largest;
        }))
      break;
  }
  return result;
}

// The lane solve, run by `participants` threads at once (or by one). Each takes the same share of every level's
// batches in every sweep (so its batches stay in its core's cache), fills them, and sweeps them; a barrier ends
// each level. Blocks of a level commute, and the largest of the threads' residuals is the largest of all, so the
// result is the same bit for bit on any number of threads. Every thread takes the same stop decision from the
// same numbers.
template <class T>
struct LaneSolve {
  std::span<Row> rows;
  Layout& L;
  LaneSweeps sweeps;

  LaneSolve(std::span<Row> r, Layout& layout, const PgsSettings& s, int n) : rows(r), L(layout), sweeps(s, n) {}

  // Thread p's batches of a level.
  std::pair<int, int> share(int level, int p) const { return level_share(L.level_batches, level, p, sweeps.participants); }

  double largest_lambda(int first, int last) const {
    double most = 0.0;
    for (int bi = first; bi < last; ++bi) {
      const Batch& batch = L.batches[size_t(bi)];
      for (int l = 0; l < kWidth; ++l) {
        if (batch.first[size_t(l)] < 0) continue;
        for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i)
          most = std::max(most, double(std::abs(data_of<T>(L)[batch.data + (size_t(i) * kFields + kLambda) * kWidth + size_t(l)])));
      }
    }
    return most;
  }

  void run(int p) {
    const int levels = int(L.level_batches.size()) - 1;
    for (int level = 0; level < levels; ++level) {
      const auto [first, last] = share(level, p);
      for (int bi = first; bi < last; ++bi) fill_batch<T>(rows, L, L.batches[size_t(bi)]);
    }
    if (sweeps.participants > 1) sweeps.barrier.wait();
    auto sweep = [&](int first, int last, bool backward) {
      double mine = 0.0;
      for (int bi = first; bi < last; ++bi) {
        const Batch& batch = L.batches[size_t(bi)];
        const Shape& shape = L.shapes[size_t(batch.shape)];
        if (bi + 1 < last && L.batches[size_t(bi) + 1].shape == batch.shape) {
          const Batch& next = L.batches[size_t(bi) + 1];
          mine = std::max(mine, update_batch_pair(batch, next, shape, data_of<T>(L).data() + batch.data,
                                                  data_of<T>(L).data() + next.data, L.velocity.data(), backward));
          ++bi;
        } else {
          mine = std::max(mine, update_batch(batch, shape, data_of<T>(L).data() + batch.data, L.velocity.data(), backward));
        }
      }
      return mine;
    };
    sweeps.run(p, L.level_batches, sweep, [&](int first, int last) { return largest_lambda(first, last); });
    // The impulses back into the rows, each thread its own batches.
    for (int level = 0; level < levels; ++level) {
      const auto [first, last] = share(level, p);
      for (int bi = first; bi < last; ++bi) {
        const Batch& batch = L.batches[size_t(bi)];
        for (int l = 0; l < kWidth; ++l) {
          const int row = batch.first[size_t(l)];
          if (row < 0) continue;
          for (int i = 0; i < L.shapes[size_t(batch.shape)].rows; ++i)
            rows[size_t(row + i)].lambda = double(data_of<T>(L)[batch.data + (size_t(i) * kFields + kLambda) * kWidth + size_t(l)]);
        }
      }
    }
  }
};

// One row at a time in the layout's block order (colour by colour): the rows copied in that order, their
// friction links moved with them, solved, and the impulses copied back.
PgsResult solve_reordered(std::span<Row> rows, std::span<BodyVelocity> u, const PgsSettings& settings, const Layout& L) {
  thread_local std::vector<Row> sorted;
  sorted.clear();
  for (int k : L.order) {
    const Block& block = L.blocks[size_t(k)];
    const int shift = int(sorted.size()) - block.first;
    for (int i = 0; i < block.rows; ++i) {
      sorted.push_back(rows[size_t(block.first + i)]);
      if (sorted.back().normal_row >= 0) sorted.back().normal_row += shift;
    }
  }
  const PgsResult result = solve_in_order(sorted, u, settings);
  size_t at = 0;
  for (int k : L.order) {
    const Block& block = L.blocks[size_t(k)];
    for (int i = 0; i < block.rows; ++i) rows[size_t(block.first + i)].lambda = sorted[at++].lambda;
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
  // The one-pair path sweeps in the given order, so not for a coloured solve.
  if (settings.pair_runs && !settings.coloured)
    if (const std::optional<PgsResult> r = solve_pgs_pair_runs(rows, u, settings)) return *r;
  thread_local Layout L;
  if (!(settings.lanes || settings.coloured) || !build_blocks(rows, u.size(), settings.coloured, L))
    return solve_in_order(rows, u, settings);
  order_blocks(L);
  if (!settings.lanes) return solve_reordered(rows, u, settings, L);
  const bool single = settings.precision == PgsPrecision::Single;
  plan_batches(L, single);
  gather_velocities(L.bodies, u, L.velocity);
  const int participants = lane_participants(settings.pool, int(L.batches.size()), int(L.level_batches.size()) - 1);
  PgsResult result;
  if (single) {
    LaneSolve<float> solve(rows, L, settings, participants);
    result = run_lane_solve(settings, participants, solve);
  } else {
    LaneSolve<double> solve(rows, L, settings, participants);
    result = run_lane_solve(settings, participants, solve);
  }

  scatter_velocities(L.bodies, L.moved, L.velocity, u);
  return result;
}

}  // namespace cl
