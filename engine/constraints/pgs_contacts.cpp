#include "constraints/pgs_contacts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "constraints/friction_balance.h"
#include "constraints/pgs_lanes.h"
#include "constraints/pgs_sweep.h"

namespace cl {

namespace {

using namespace pgs_lanes;

// Per contact and lane: the lever arms r_a and r_b, then per row the direction (the linear J of b; a's is its
// negation), the angular parts of B = M^-1 J^T of a and b, 1 / A_ii and lambda, then the normal's target and mu. Per
// batch before its contacts: the two bodies' inverse masses (the linear B is m J). A row's angular J is formed from
// the lever arms where it is used (lane_cross): 41 values per three-row contact where storing it took 53,
// which is what a sweep over a group too large for the caches waits on (a fifth of the time of the 100-row
// pyramids' whole-group sweeps), and in the caches the cross products cost less than the loads they replace.
enum ContactField { kRa = 0, kRb = 3, kFirstRow = 6 };
enum RowField { kDir = 0, kBaAng = 3, kBbAng = 6, kInvDiag = 9, kLambda = 10, kRowFields = 11 };
enum BatchField { kMassA = 0, kMassB = 1, kBatchFields = 2 };

int contact_fields(int rows) { return kFirstRow + rows * kRowFields + 2; }
int row_field(int r) { return kFirstRow + r * kRowFields; }
int target_field(int rows) { return kFirstRow + rows * kRowFields; }
int mu_field(int rows) { return kFirstRow + rows * kRowFields + 1; }

}  // namespace

bool ContactPgs::machine_is_wide() {
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  // The lane kernels' x86-64-v4 version (CL_PGS_CLONES) is the one that runs here.
  static const bool wide = __builtin_cpu_supports("x86-64-v4");
  return wide;
#else
  return false;
#endif
}

ContactPgs::ContactPgs(LaneWidth width)
    : wide_(width == LaneWidth::Wide || (width == LaneWidth::Machine && machine_is_wide())) {}

template <> std::vector<double>& ContactPgs::data<double>() { return values().d; }
template <> std::vector<float>& ContactPgs::data<float>() { return values().f; }
template <> const std::vector<double>& ContactPgs::data<double>() const { return values().d; }
template <> const std::vector<float>& ContactPgs::data<float>() const { return values().f; }

bool ContactPgs::plan(std::span<const ContactBodies> contacts, int rows, bool disc, std::span<const InverseMass> masses,
                      PgsPrecision precision) {
  kept_ = false;
  masses_ = masses;
  if (rows < 1 || rows > 3 || (disc && rows != 3)) return valid_ = false;
  thread_local std::vector<uint8_t> moving;
  moving.resize(contacts.size());
  for (size_t k = 0; k < contacts.size(); ++k) {
    const auto [a, b] = contacts[k];
    if (a < 0 || b < 0 || a == b || size_t(a) >= masses.size() || size_t(b) >= masses.size()) return valid_ = false;
    moving[k] = uint8_t((movable(masses[size_t(a)]) ? 1 : 0) | (movable(masses[size_t(b)]) ? 2 : 0));
  }
  // A resting stack has the same pairs, in the same order, from step to step: its layout is kept.
  kept_ = valid_ && rows == rows_ && disc == disc_ && precision == precision_ && contacts.size() == keys_.size() &&
          std::equal(contacts.begin(), contacts.end(), keys_.begin()) &&
          std::equal(moving.begin(), moving.end(), moves_.begin());
  if (!kept_) {
    keys_.assign(contacts.begin(), contacts.end());
    moves_.assign(moving.begin(), moving.end());
    rows_ = rows;
    disc_ = disc;
    precision_ = precision;
    static_assert(kWideFloatWidth <= kMaxLanes && kWideWidth <= kMaxLanes);
    if (precision == PgsPrecision::Single)
      width_ = wide_ ? kWideFloatWidth : kFloatWidth;
    else
      width_ = wide_ ? kWideWidth : kWidth;
    if (!(valid_ = layout(masses))) return false;
  }
  // Room for the values, which may be shared (share_values) with a larger or smaller layout.
  if (precision == PgsPrecision::Single) {
    if (values().f.size() < size_) values().f.resize(size_);
  } else {
    if (values().d.size() < size_) values().d.resize(size_);
  }
  // The bodies' inverse masses, which may change while the layout stays (a body's mass edited).
  const size_t dummy = bodies_.size();
  auto mass_of = [&](int slot) { return size_t(slot) == dummy ? 0.0 : masses[size_t(bodies_[size_t(slot)])].linear; };
  const size_t w = size_t(width_);
  for (const Batch& batch : batches_)
    for (size_t l = 0; l < w; ++l) {
      if (precision == PgsPrecision::Single) {
        data<float>()[batch.data + kMassA * w + l] = float(mass_of(batch.a[l]));
        data<float>()[batch.data + kMassB * w + l] = float(mass_of(batch.b[l]));
      } else {
        data<double>()[batch.data + kMassA * w + l] = mass_of(batch.a[l]);
        data<double>()[batch.data + kMassB * w + l] = mass_of(batch.b[l]);
      }
    }
  return true;
}

// Blocks, colours and batches as solve_pgs lays out the same contacts' rows (pgs.cpp: build_blocks,
// colour_blocks, order_blocks, plan_batches): runs of at most 24 rows of one pair, greedy colours in block order,
// per colour blocks of one contact count width_ at a time. The blocks of a colour share no moved body, so how
// they are batched does not change a result: every LaneWidth gives the same bit for bit.
bool ContactPgs::layout(std::span<const InverseMass> masses) {
  static_assert(kMaxBlockRows / 3 == kBlockContacts);
  const int per_block = kMaxBlockRows / rows_;
  if (slot_of_.size() < masses.size()) slot_of_.resize(masses.size(), -1);
  bodies_.clear();
  moved_.clear();
  blocks_.clear();
  auto slot = [&](int body) {
    int& s = slot_of_[size_t(body)];
    if (s < 0) {
      s = int(bodies_.size());
      bodies_.push_back(body);
      moved_.push_back(0);
    }
    return s;
  };
  for (size_t k = 0; k < keys_.size(); ++k) {
    const auto [a, b] = keys_[k];
    if (blocks_.empty() || blocks_.back().count == per_block || keys_[size_t(blocks_.back().first)] != keys_[k])
      blocks_.push_back({int(k), 0, slot(a), slot(b)});
    Block& block = blocks_.back();
    ++block.count;
    if (moves_[k] & 1) moved_[size_t(block.a)] = 1;
    if (moves_[k] & 2) moved_[size_t(block.b)] = 1;
  }
  for (int body : bodies_) slot_of_[size_t(body)] = -1;

  // Colours: each block the lowest no earlier block moving one of its moved bodies has.
  std::vector<ColoursUsed> used(bodies_.size());
  int levels = 0;
  for (Block& block : blocks_) {
    const size_t a = size_t(block.a), b = size_t(block.b);
    const int colour = take_colour(moved_[a], used[a], moved_[b], used[b]);
    if (colour < 0) return false;
    block.level = colour;
    levels = std::max(levels, colour + 1);
  }

  // The blocks colour by colour, each colour in block order (a counting sort), laid out in batches.
  std::vector<int> begin(size_t(levels) + 1, 0), order(blocks_.size());
  for (const Block& block : blocks_) ++begin[size_t(block.level) + 1];
  for (int c = 0; c < levels; ++c) begin[size_t(c) + 1] += begin[size_t(c)];
  for (size_t k = 0; k < blocks_.size(); ++k) order[size_t(begin[size_t(blocks_[k].level)]++)] = int(k);
  const int dummy = int(bodies_.size());
  const int fields = contact_fields(rows_);
  at_.assign(keys_.size(), 0);
  batches_.clear();
  level_batches_.assign(1, 0);
  size_t size = 0, pos = 0;
  std::vector<int> open;
  for (int level = 0; level < levels; ++level) {
    open.assign(size_t(per_block) + 1, -1);  // per contact count: the batch of this level with a free lane
    for (; pos < order.size() && blocks_[size_t(order[pos])].level == level; ++pos) {
      Block& block = blocks_[size_t(order[pos])];
      int& batch_index = open[size_t(block.count)];
      if (batch_index < 0) {
        Batch fresh;
        fresh.count = block.count;
        fresh.data = size;
        std::fill(std::begin(fresh.a), std::end(fresh.a), dummy);
        std::fill(std::begin(fresh.b), std::end(fresh.b), dummy);
        size += size_t(kBatchFields + block.count * fields) * size_t(width_);
        batch_index = int(batches_.size());
        batches_.push_back(fresh);
        block.lane = 0;
      } else {
        block.lane = 1;
        while (batches_[size_t(batch_index)].full[block.lane]) ++block.lane;
      }
      Batch& batch = batches_[size_t(batch_index)];
      const int lane = block.lane;
      batch.a[lane] = block.a;
      batch.b[lane] = block.b;
      batch.full[lane] = true;
      batch.first[lane] = block.first;
      batch.write_a[lane] = moved_[size_t(block.a)] != 0;
      batch.write_b[lane] = moved_[size_t(block.b)] != 0;
      for (int i = 0; i < block.count; ++i)
        at_[size_t(block.first + i)] = batch.data + size_t(kBatchFields + i * fields) * size_t(width_) + size_t(lane);
      if (lane == width_ - 1) batch_index = -1;
    }
    level_batches_.push_back(int(batches_.size()));
  }
  size_ = size;  // every lane is written by write() (an empty one with zeros), the inverse masses by plan()
  velocity_.resize(bodies_.size() + 1);
  return true;
}

namespace {

using Lanes = LaneVector<double>::type;

// M v for a 3x3 matrix and a vector given by components, four lanes at once, with the additions in the order
// Eigen's fixed-size product takes them on x86-64 (the first two rows as one packet, the third as a reduction):
// the values prepare() (row.h) computes, bit for bit.
inline void lane_product(const Lanes (&m)[9], const Lanes (&v)[3], Lanes (&out)[3]) {
  // m is column-major, as Eigen stores a Mat3: m[3 j + i] is row i, column j.
  out[0] = (m[0] * v[0] + m[3] * v[1]) + m[6] * v[2];
  out[1] = (m[1] * v[0] + m[4] * v[1]) + m[7] * v[2];
  out[2] = m[2] * v[0] + (m[5] * v[1] + m[8] * v[2]);
}
inline Lanes lane_dot(const Lanes (&x)[3], const Lanes (&y)[3]) { return (x[0] * y[0] + x[1] * y[1]) + x[2] * y[2]; }

// r x d lane by lane, as point_row (row.h) forms a row's angular Jacobians: J_a,ang = -(r_a x dir), J_b,ang =
// r_b x dir. By value in and out: a deduced vector type is the aligned one, and a reference of it to a LaneVector's
// array may be misaligned (pgs_lanes.h).
template <class L> struct LaneCross {
  L v[3];
};
template <class L>
__attribute__((always_inline)) inline LaneCross<L> lane_cross(L r0, L r1, L r2, L d0, L d1, L d2) {
  return {{r1 * d2 - r2 * d1, r2 * d0 - r0 * d2, r0 * d1 - r1 * d0}};
}

// The contacts of four lanes of one batch, from lane `first` of its `width`, as point_row and prepare (row.h)
// compute their rows, operation for operation, in double, written to their fields: per contact the lever arms; per
// row the direction, B's angular parts I_a^-1 (-r_a x dir) and I_b^-1 (r_b x dir), 1 / A_ii with A_ii = m_a + m_b +
// the two angular terms summed as prepare sums them, and the impulse; per contact the target and mu. An empty lane
// is written from a zero point and zero masses: zeros (a normal that never moves, tangents bounded by mu 0).
template <class T>
CL_PGS_CLONES void write_batch(const ContactPgs::Batch& batch, int rows, T* data, std::span<const ContactPoint> points,
                               const InverseMass* const (&mass_a)[kWidth], const InverseMass* const (&mass_b)[kWidth],
                               int width, int first) {
  constexpr int W = kWidth;
  static const ContactPoint none;
  const int fields = contact_fields(rows);
  auto put = [](T* f, Lanes v) {
    if constexpr (std::is_same_v<T, double>)
      store<double>(f, v);
    else
      store<float>(f, __builtin_convertvector(v, LaneVector<float>::type));
  };
  // The two bodies' inverse masses, the same for every contact of a lane.
  Lanes la, lb, ia[9], ib[9];
  for (int l = 0; l < W; ++l) {
    la[l] = mass_a[l]->linear;
    lb[l] = mass_b[l]->linear;
    for (int j = 0; j < 9; ++j) {
      ia[j][l] = mass_a[l]->angular.data()[j];
      ib[j][l] = mass_b[l]->angular.data()[j];
    }
  }
  const Lanes zero = {0, 0, 0, 0}, tiny = {1e-300, 1e-300, 1e-300, 1e-300}, one = {1, 1, 1, 1};
  for (int i = 0; i < batch.count; ++i) {
    const ContactPoint* p[W];
    for (int l = 0; l < W; ++l) {
      const int lane_first = batch.first[first + l];
      p[l] = lane_first < 0 ? &none : &points[size_t(lane_first + i)];
    }
    auto gather = [&p](auto&& get) { return Lanes{get(*p[0]), get(*p[1]), get(*p[2]), get(*p[3])}; };
    Lanes ra[3], rb[3];
    for (int c = 0; c < 3; ++c) {
      ra[c] = gather([c](const ContactPoint& q) { return q.ra[c]; });
      rb[c] = gather([c](const ContactPoint& q) { return q.rb[c]; });
    }
    T* f = data + size_t(kBatchFields + i * fields) * size_t(width) + size_t(first);
    for (int c = 0; c < 3; ++c) {
      put(f + (kRa + c) * width, ra[c]);
      put(f + (kRb + c) * width, rb[c]);
    }
    for (int r = 0; r < rows; ++r) {
      Lanes d[3], ja_lin[3], ja_ang[3], jb_ang[3], ba_lin[3], bb_lin[3], ba_ang[3], bb_ang[3];
      for (int c = 0; c < 3; ++c) d[c] = gather([c, r](const ContactPoint& q) { return q.dir[r][c]; });
      const auto ca = lane_cross(ra[0], ra[1], ra[2], d[0], d[1], d[2]);
      const auto cb = lane_cross(rb[0], rb[1], rb[2], d[0], d[1], d[2]);
      for (int c = 0; c < 3; ++c) {
        ja_ang[c] = -ca.v[c];
        jb_ang[c] = cb.v[c];
      }
      for (int c = 0; c < 3; ++c) {
        ja_lin[c] = -d[c];
        ba_lin[c] = la * ja_lin[c];
        bb_lin[c] = lb * d[c];
      }
      lane_product(ia, ja_ang, ba_ang);
      lane_product(ib, jb_ang, bb_ang);
      const Lanes diag = lane_dot(ja_lin, ba_lin) + lane_dot(ja_ang, ba_ang) + lane_dot(d, bb_lin) + lane_dot(jb_ang, bb_ang);
      T* const row = f + size_t(row_field(r) * width);
      for (int c = 0; c < 3; ++c) {
        put(row + (kDir + c) * width, d[c]);
        put(row + (kBaAng + c) * width, ba_ang[c]);
        put(row + (kBbAng + c) * width, bb_ang[c]);
      }
      put(row + kInvDiag * width, diag > tiny ? one / diag : zero);  // a contact row has no CFM
      put(row + kLambda * width, gather([r](const ContactPoint& q) { return q.lambda[r]; }));
    }
    put(f + target_field(rows) * width, gather([](const ContactPoint& q) { return q.target; }));
    put(f + mu_field(rows) * width, gather([](const ContactPoint& q) { return q.mu; }));
  }
}

}  // namespace

void ContactPgs::write(std::span<const ContactPoint> points, int first, int last) {
  static_assert(ContactPgs::kRowFields == size_t(RowField::kRowFields) && kLambdaField == size_t(RowField::kLambda) &&
                kFirstRowField == size_t(ContactField::kFirstRow));
  static const InverseMass none;
  const size_t dummy = bodies_.size();
  auto mass_of = [&](int slot) { return size_t(slot) == dummy ? &none : &masses_[size_t(bodies_[size_t(slot)])]; };
  for (int bi = first; bi < last; ++bi) {
    const Batch& batch = batches_[size_t(bi)];
    for (int half = 0; half < width_; half += kWidth) {  // four lanes at a time
      const InverseMass* a[kWidth];
      const InverseMass* b[kWidth];
      for (int l = 0; l < kWidth; ++l) {
        a[l] = mass_of(batch.a[half + l]);
        b[l] = mass_of(batch.b[half + l]);
      }
      if (precision_ == PgsPrecision::Single)
        write_batch(batch, rows_, data<float>().data() + batch.data, points, a, b, width_, half);
      else
        write_batch(batch, rows_, data<double>().data() + batch.data, points, a, b, width_, half);
    }
  }
}


namespace {

// u += M^-1 J^T lambda for the contacts of four lanes of one batch (from lane `first` of its `width`) at once:
// each lane's bodies' velocities gathered, each contact's rows added in order (Row::apply's u += lambda B, B's
// linear parts m (-n) and m n), scattered back. In double precision, as the fields may be float: the same
// additions as apply_impulses, but a body's contacts are taken colour by colour instead of in contact order.
template <class T>
CL_PGS_CLONES void warm_start_batch(const ContactPgs::Batch& batch, int rows, const T* data, const double (&ma)[kWidth],
                                    const double (&mb)[kWidth], std::array<double, 6>* velocity, int width, int first) {
  using Lanes = LaneVector<double>::type;
  const int W = width;
  const int fields = contact_fields(rows);
  auto field = [](const T* f) {
    if constexpr (std::is_same_v<T, double>)
      return load<double>(f);
    else
      return __builtin_convertvector(load<float>(f), Lanes);
  };
  Lanes ua[6], ub[6];
  load_lane_velocities<double>(velocity, batch.a, ua, first);
  load_lane_velocities<double>(velocity, batch.b, ub, first);
  const Lanes mass_a = {ma[0], ma[1], ma[2], ma[3]}, mass_b = {mb[0], mb[1], mb[2], mb[3]};
  for (int i = 0; i < batch.count; ++i) {
    const T* c = data + size_t(kBatchFields + i * fields) * size_t(W) + size_t(first);
    for (int r = 0; r < rows; ++r) {
      const T* f = c + size_t(row_field(r) * W);
      const Lanes l = field(f + kLambda * W);
      for (int k = 0; k < 3; ++k) {
        const Lanes dir = field(f + (kDir + k) * W);
        ua[k] -= l * (mass_a * dir);
        ua[3 + k] += l * field(f + (kBaAng + k) * W);
        ub[k] += l * (mass_b * dir);
        ub[3 + k] += l * field(f + (kBbAng + k) * W);
      }
    }
  }
  store_lane_velocities<double>(velocity, batch.a, batch.write_a, ua, first);
  store_lane_velocities<double>(velocity, batch.b, batch.write_b, ub, first);
}

}  // namespace

void ContactPgs::warm_start(std::span<BodyVelocity> u, TaskPool* pool) {
  if (keys_.empty() || !valid_) return;
  gather_velocities(bodies_, u, velocity_);
  const size_t dummy = bodies_.size();
  // The inverse masses in double, as apply_impulses uses them (the batch's fields are float in single precision).
  auto mass_of = [&](int slot) { return size_t(slot) == dummy ? 0.0 : masses_[size_t(bodies_[size_t(slot)])].linear; };
  auto add = [&](int first, int last) {
    for (int bi = first; bi < last; ++bi) {
      const Batch& batch = batches_[size_t(bi)];
      for (int half = 0; half < width_; half += kWidth) {  // four lanes at a time
        double ma[kWidth], mb[kWidth];
        for (int l = 0; l < kWidth; ++l) {
          ma[l] = mass_of(batch.a[half + l]);
          mb[l] = mass_of(batch.b[half + l]);
        }
        if (precision_ == PgsPrecision::Single)
          warm_start_batch(batch, rows_, data<float>().data() + batch.data, ma, mb, velocity_.data(), width_, half);
        else
          warm_start_batch(batch, rows_, data<double>().data() + batch.data, ma, mb, velocity_.data(), width_, half);
      }
    }
  };
  // On several threads a colour at a time, as the sweeps go: a colour's batches share no moved body, and the
  // colours follow in batch order, so every body's impulses are added in the same order as on one thread.
  const int levels = int(level_batches_.size()) - 1;
  const int participants = lane_participants(pool, int(batches_.size()) * (wide_ ? 2 : 1), levels);
  if (participants == 1) {
    add(0, int(batches_.size()));
  } else {
    SpinBarrier barrier(participants);
    pool->run(participants, [&](int p, int) {
      for (int level = 0; level < levels; ++level) {
        const auto [first, last] = level_share(level_batches_, level, p, participants);
        add(first, last);
        barrier.wait();
      }
    });
  }
  scatter_velocities(bodies_, moved_, velocity_, u);
}

namespace {

using Batch = ContactPgs::Batch;

// N batches of contacts: gathers their lanes' body velocities, updates each contact's rows in order across all
// lanes (thesis sect. 6.1.5-6.1.6), with the arithmetic of pgs.cpp's update_batches on the rows these fields stand
// for, and scatters the velocities back; backward takes the contacts in reverse (each contact's rows in order).
// Returns the largest |change of lambda|.
template <class T, int W, int N>
__attribute__((always_inline)) inline double update_contacts(const Batch* const* batch, int rows, bool disc,
                                                             T* const* data, std::array<double, 6>* velocity,
                                                             bool backward) {
  using Lanes = typename LaneVector<T, W>::type;
  const int fields = contact_fields(rows);
  const Lanes zero = {};
  Lanes ua[N][6], ub[N][6], ma[N], mb[N];
  for (int n = 0; n < N; ++n) {
    load_lane_velocities<T, W>(velocity, batch[n]->a, ua[n]);
    load_lane_velocities<T, W>(velocity, batch[n]->b, ub[n]);
    ma[n] = load<T, W>(data[n] + kMassA * W);
    mb[n] = load<T, W>(data[n] + kMassB * W);
  }
  Lanes residual = zero;
  // A row of a contact: its fields and its Jacobian's direction and angular parts (lane_cross).
  struct LaneRow {
    T* f;
    Lanes d[3], ja[3], jb[3];
  };
  auto row_of = [&](T* c, int r) __attribute__((always_inline)) {
    LaneRow row;
    row.f = c + size_t(row_field(r)) * W;
    Lanes ra[3], rb[3];
    for (int k = 0; k < 3; ++k) {
      ra[k] = load<T, W>(c + (kRa + k) * W);
      rb[k] = load<T, W>(c + (kRb + k) * W);
      row.d[k] = load<T, W>(row.f + (kDir + k) * W);
    }
    const auto ca = lane_cross(ra[0], ra[1], ra[2], row.d[0], row.d[1], row.d[2]);
    const auto cb = lane_cross(rb[0], rb[1], rb[2], row.d[0], row.d[1], row.d[2]);
    for (int k = 0; k < 3; ++k) {
      row.ja[k] = -ca.v[k];
      row.jb[k] = cb.v[k];
    }
    return row;
  };
  // J u of a row, summed in the order Row::value sums it, so that both paths round alike. J_a's linear part is
  // -dir: its term (-dir) . v_a is -(dir . v_a) exactly, and -x + y is y - x.
  auto value_of = [&](const LaneRow& j, int n) __attribute__((always_inline)) {
    return ((j.ja[0] * ua[n][3] + j.ja[1] * ua[n][4] + j.ja[2] * ua[n][5]) -
            (j.d[0] * ua[n][0] + j.d[1] * ua[n][1] + j.d[2] * ua[n][2])) +
           (j.d[0] * ub[n][0] + j.d[1] * ub[n][1] + j.d[2] * ub[n][2]) +
           (j.jb[0] * ub[n][3] + j.jb[1] * ub[n][4] + j.jb[2] * ub[n][5]);
  };
  // u += B d, B's linear parts m_a (-dir) and m_b dir as prepare() forms them (d (m_a (-dir)) is -(d (m_a dir))).
  auto apply = [&](const LaneRow& j, int n, Lanes d) __attribute__((always_inline)) {
    for (int c = 0; c < 3; ++c) {
      ua[n][c] -= d * (ma[n] * j.d[c]);
      ua[n][3 + c] += d * load<T, W>(j.f + (kBaAng + c) * W);
      ub[n][c] += d * (mb[n] * j.d[c]);
      ub[n][3 + c] += d * load<T, W>(j.f + (kBbAng + c) * W);
    }
  };
  // Row r of contact i of every batch (not a disc pair's).
  auto update_row = [&](int i, int r) __attribute__((always_inline)) {
    for (int n = 0; n < N; ++n) {
      T* c = data[n] + size_t(kBatchFields + i * fields) * W;
      const LaneRow j = row_of(c, r);
      Lanes lo, hi, target;
      if (r > 0) {
        // Friction box (thesis sect. 4.7): |lambda_t| <= mu lambda_n with the normal impulse of this sweep.
        hi = load<T, W>(c + mu_field(rows) * W) * load<T, W>(c + (row_field(0) + kLambda) * W);
        lo = -hi;
        target = zero;
      } else {
        lo = zero;
        hi = zero + std::numeric_limits<T>::infinity();
        target = load<T, W>(c + target_field(rows) * W);
      }
      const Lanes lambda = load<T, W>(j.f + kLambda * W);
      const Lanes w = value_of(j, n) - target + zero * lambda;  // a contact row has no CFM
      apply(j, n, commit_row<T, W>(lambda, load<T, W>(j.f + kInvDiag * W), w, lo, hi, j.f + kLambda * W, residual));
    }
  };
  // The tangent rows of contact i of every batch as a disc pair (relax_disc in pgs_sweep.h).
  auto update_disc = [&](int i) __attribute__((always_inline)) {
    for (int n = 0; n < N; ++n) {
      T* c = data[n] + size_t(kBatchFields + i * fields) * W;
      const LaneRow js[2] = {row_of(c, 1), row_of(c, 2)};
      const Lanes radius = load<T, W>(c + mu_field(rows) * W) * load<T, W>(c + (row_field(0) + kLambda) * W);
      LanePair<T, W> x, l;
      const LanePair<T, W> step =
          disc_lane_steps<T, W>(load<T, W>(js[0].f + kInvDiag * W), load<T, W>(js[1].f + kInvDiag * W));
      for (int k = 0; k < 2; ++k) {
        l.v[k] = load<T, W>(js[k].f + kLambda * W);
        x.v[k] = l.v[k] - step.v[k] * (value_of(js[k], n) - zero + zero * l.v[k]);
      }
      residual = commit_disc<T, W>(x, l, radius, js[0].f + kLambda * W, js[1].f + kLambda * W, residual,
                                   [&](int k, Lanes d) { apply(js[k], n, d); });
    }
  };
  const int count = batch[0]->count;
  for (int step = 0; step < count; ++step) {
    const int i = backward ? count - 1 - step : step;
    update_row(i, 0);
    if (disc) {
      update_disc(i);
    } else {
      for (int r = 1; r < rows; ++r) update_row(i, r);
    }
  }
  for (int n = 0; n < N; ++n) {
    store_lane_velocities<T, W>(velocity, batch[n]->a, batch[n]->write_a, ua[n]);
    store_lane_velocities<T, W>(velocity, batch[n]->b, batch[n]->write_b, ub[n]);
  }
  T most = residual[0];
  for (int l = 1; l < W; ++l) most = std::max(most, residual[l]);
  return double(most);
}

// One batch of W lanes.
template <class T, int W>
CL_PGS_CLONES double update_contact_batch(const Batch& batch, int rows, bool disc, T* data,
                                          std::array<double, 6>* velocity, bool backward) {
  const Batch* b[1] = {&batch};
  T* d[1] = {data};
  return update_contacts<T, W, 1>(b, rows, disc, d, velocity, backward);
}
// Two batches of one level and one contact count at once (they commute): twice the independent work per row.
template <class T, int W>
CL_PGS_CLONES double update_contact_batch_pair(const Batch& x, const Batch& y, int rows, bool disc, T* data_x,
                                               T* data_y, std::array<double, 6>* velocity, bool backward) {
  const Batch* b[2] = {&x, &y};
  T* d[2] = {data_x, data_y};
  return update_contacts<T, W, 2>(b, rows, disc, d, velocity, backward);
}

// The lanes of a batch (a bit each) in which some contact's friction is near the edge of its disc: near_disc_edge
// (friction_balance.h) lane by lane, with the same operations.
template <class T, int W>
CL_PGS_CLONES uint32_t full_disc_lanes(int count, int rows, T least_speed, const T* data) {
  using Lanes = typename LaneVector<T, W>::type;
  const int fields = contact_fields(rows);
  const Lanes zero = {}, near = zero + T(kNearDiscEdge), least = zero + least_speed;
  Lanes any = zero;
  for (int i = 0; i < count; ++i) {
    const T* c = data + size_t(kBatchFields + i * fields) * W;
    const Lanes normal = load<T, W>(c + (row_field(0) + kLambda) * W), mu = load<T, W>(c + mu_field(rows) * W);
    const Lanes mass = load<T, W>(c + (row_field(0) + kInvDiag) * W);  // the normal row's 1 / A_nn
    const Lanes t1 = load<T, W>(c + (row_field(1) + kLambda) * W), t2 = load<T, W>(c + (row_field(2) + kLambda) * W);
    const Lanes radius = near * mu * normal, used = t1 * t1 + t2 * t2;
    any = ((normal > zero) & (mu * normal >= least * mass) & (used > zero) & (used >= radius * radius)) ? near : any;
  }
  uint32_t bits = 0;
  for (int l = 0; l < W; ++l) bits |= any[l] != T(0) ? uint32_t(1) << l : 0;
  return bits;
}

}  // namespace

// The sweeps, run by `participants` threads at once (or by one), as pgs.cpp's LaneSolve (LaneSweeps): each takes the
// same share of every level's batches in every sweep, so the result is the same bit for bit on any number of threads.
template <class T>
struct ContactLaneSolve {
  ContactPgs& P;
  LaneSweeps sweeps;

  ContactLaneSolve(ContactPgs& p, const PgsSettings& s, int n) : P(p), sweeps(s, n) {}


  double largest_lambda(int first, int last) const {
    double most = 0.0;
    const int fields = contact_fields(P.rows_);
    for (int bi = first; bi < last; ++bi) {
      const Batch& batch = P.batches_[size_t(bi)];
      for (int i = 0; i < batch.count; ++i)
        for (int r = 0; r < P.rows_; ++r)
          for (int l = 0; l < P.width_; ++l) {
            const size_t field = size_t(kBatchFields + i * fields + row_field(r) + kLambda);
            most = std::max(most, double(std::abs(P.data<T>()[batch.data + field * size_t(P.width_) + size_t(l)])));
          }
    }
    return most;
  }

  template <int W> void run_lanes(int p) {
    T* data = P.data<T>().data();
    auto sweep = [&](int first, int last, bool backward) {
      double mine = 0.0;
      for (int bi = first; bi < last; ++bi) {
        const Batch& batch = P.batches_[size_t(bi)];
        if (bi + 1 < last && P.batches_[size_t(bi) + 1].count == batch.count) {
          const Batch& next = P.batches_[size_t(bi) + 1];
          mine = std::max(mine, update_contact_batch_pair<T, W>(batch, next, P.rows_, P.disc_, data + batch.data,
                                                                data + next.data, P.velocity_.data(), backward));
          ++bi;
        } else {
          mine = std::max(mine, update_contact_batch<T, W>(batch, P.rows_, P.disc_, data + batch.data,
                                                           P.velocity_.data(), backward));
        }
      }
      return mine;
    };
    sweeps.run(p, P.level_batches_, sweep, [&](int first, int last) { return largest_lambda(first, last); });
  }
  void run(int p) {
    constexpr bool single = std::is_same_v<T, float>;
    if (P.wide_)
      run_lanes<single ? kWideFloatWidth : kWideWidth>(p);
    else
      run_lanes<single ? kFloatWidth : kWidth>(p);
  }
};

void ContactPgs::find_full_discs(double least_speed, std::vector<std::pair<int, int>>& out) const {
  out.clear();
  if (!valid_ || !disc_) return;
  auto scan = [&]<class T, int W>(const std::vector<T>& data) {
    for (const Batch& batch : batches_) {
      const uint32_t lanes = full_disc_lanes<T, W>(batch.count, rows_, T(least_speed), data.data() + batch.data);
      for (int l = 0; l < W; ++l)
        if ((lanes >> l & 1) && batch.full[l]) out.emplace_back(batch.first[l], batch.count);
    }
  };
  if (precision_ == PgsPrecision::Single) {
    if (wide_)
      scan.template operator()<float, kWideFloatWidth>(data<float>());
    else
      scan.template operator()<float, kFloatWidth>(data<float>());
  } else {
    if (wide_)
      scan.template operator()<double, kWideWidth>(data<double>());
    else
      scan.template operator()<double, kWidth>(data<double>());
  }
}

PgsResult ContactPgs::solve(std::span<BodyVelocity> u, const PgsSettings& settings) {
  if (keys_.empty() || !valid_) return {};
  gather_velocities(bodies_, u, velocity_);
  // A thread's least share of a level is counted in batches of the narrow width: a wide batch counts as two.
  const int narrow_batches = int(batches_.size()) * (wide_ ? 2 : 1);
  const int participants = lane_participants(settings.pool, narrow_batches, int(level_batches_.size()) - 1);
  PgsResult result;
  if (precision_ == PgsPrecision::Single) {
    ContactLaneSolve<float> solve(*this, settings, participants);
    result = run_lane_solve(settings, participants, solve);
  } else {
    ContactLaneSolve<double> solve(*this, settings, participants);
    result = run_lane_solve(settings, participants, solve);
  }
  scatter_velocities(bodies_, moved_, velocity_, u);
  return result;
}

}  // namespace cl
