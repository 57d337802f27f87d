// The projected Gauss-Seidel's path for contact constraints (thesis sect. 6.1.4-6.1.7), kept between steps in a
// compact lane layout. A contact's normal row and tangent rows (thesis sect. 4.5-4.7) share their bodies and their
// lever arms, so instead of a Row per row (J and B of both bodies, bounds, copied into the lanes of pgs.cpp: 32
// values per row) each contact is written once, straight into its lanes: its two lever arms r_a and r_b; per row the
// direction, the two angular parts of B = M^-1 J^T, 1 / A_ii and the impulse; the normal target and mu; and per lane
// of a batch the two bodies' inverse masses (the linear parts of J and B are +-n and m n). A row's angular Jacobians
// -r_a x n and r_b x n are formed from the lever arms in each sweep, as point_row (row.h) forms them. That is 41
// values per three-row contact instead of 96 (53 with the angular Jacobians stored), in float under
// `solver_precision=float`: a sweep over a group too large for the caches waits on memory, not on that arithmetic.
//
// The layout (blocks of a pair's contacts, their colours, the batches) is what solve_pgs lays out for the same
// contacts as rows, and it is kept from one solve to the next while the contacts' bodies, row counts and moved
// bodies are unchanged (a resting stack: the same pairs every step), so it is not recomputed. The sweeps are
// solve_pgs's coloured lane sweeps (the same order, bounds and disc relax_disc), with the same arithmetic in the same
// order: in double precision, from the same warm-started velocities, the impulses and velocities are the same bit
// for bit as solve_pgs's from the rows.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "constraints/pgs.h"

namespace cl {

// One contact point as a velocity solve sees it: J u = (v_b + w_b x r_b - v_a - w_a x r_a) . dir for its normal
// and its tangent directions (point_row in row.h), normal bounds [0, inf), a tangent's +-mu lambda_n (or, for a
// disc pair, the disc of radius mu lambda_n).
struct ContactPoint {
  Vec3 ra = Vec3::Zero(), rb = Vec3::Zero();  // from each body's centre of mass to the point
  Vec3 dir[3] = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};  // the normal, then the tangents
  double target = 0.0;  // what the normal row drives J u to (bounce or gap closing, m/s); the tangents' is 0
  double mu = 0.0;
  double lambda[3] = {0.0, 0.0, 0.0};  // the warm start
};

// Whether a solve can move a body with these inverse mass properties.
inline bool movable(const InverseMass& m) { return m.linear != 0.0 || !m.angular.isZero(0.0); }

// The bodies of a contact.
struct ContactBodies {
  int a = -1, b = -1;
  bool operator==(const ContactBodies&) const = default;
};

// How many contacts a batch updates at once: as many as the machine's vector registers hold (Machine: Wide where
// the CPU has AVX-512 and the lane kernels are compiled for it, else Narrow), or either width by choice. The blocks
// of a colour share no moved body, so the width does not change a result: every width gives the same bit for bit.
enum class LaneWidth {
  Machine,
  Narrow,  // 4 doubles or 8 floats: an AVX2 register
  Wide,    // 8 doubles or 16 floats: an AVX-512 register
};

// The values of contacts' lanes. write() sets them whole from the contacts' points, and plan() the bodies' inverse
// masses, so nothing in them is kept from one solve to the next: solves that never run at once may keep theirs in
// one (ContactPgs::share_values).
struct ContactLaneValues {
  std::vector<double> d;
  std::vector<float> f;
};

class ContactPgs {
 public:
  explicit ContactPgs(LaneWidth width = LaneWidth::Machine);
  // Whether LaneWidth::Machine is Wide on this machine.
  static bool machine_is_wide();
  // Lays out contacts between these bodies, each of `rows` rows (1: the normal only, 2: one tangent, 3: two), the
  // two tangents a disc pair when `disc` (FrictionCone), with the inverse masses the solve will see (a body with
  // none is not moved). The layout of the previous call is kept when all of this is unchanged. False when the
  // contacts cannot be laid out (a body of a contact out of range or on both sides, or more colours than the
  // lanes take): then build rows for solve_pgs.
  bool plan(std::span<const ContactBodies> contacts, int rows, bool disc, std::span<const InverseMass> masses,
            PgsPrecision precision);
  // Keeps the lanes' values in `values` from the next plan() on (null: in this ContactPgs' own). ContactPgs that share
  // them must not be solved at once: what lambda() reads is the last written. lcp's solves (the first phase, the
  // stack layers, the projections) share theirs, so that each layer is written where the layer before it was, in the
  // caches, instead of into values of its own that the step before left to be fetched from memory again (a 100-row
  // pyramid's layers: 20 MB a step).
  void share_values(ContactLaneValues* values) { shared_ = values; }
  // Whether the last plan kept the layout of the one before.
  bool kept_layout() const { return kept_; }
  // Writes the contacts' constraints into their lanes, points[k] contact k's (one for each contact of plan): J, B and
  // 1 / A_ii of its rows as prepare() (row.h) computes them, the same bit for bit, four contacts at once. Only the
  // contacts of batches [first, last): distinct batches may be written from several threads at once.
  void write(std::span<const ContactPoint> points, int first, int last);
  void write(std::span<const ContactPoint> points) { write(points, 0, batch_count()); }
  int batch_count() const { return int(batches_.size()); }
  // u += M^-1 J^T lambda for every contact's warm start (apply_impulses), batch by batch in lanes: a body's
  // contacts are added colour by colour, not in contact order, so u may differ from apply_impulses's by rounding.
  // A large layout is split among the pool's threads colour by colour, with the same result bit for bit.
  void warm_start(std::span<BodyVelocity> u, TaskPool* pool = nullptr);
  // The sweeps (settings.iterations, tolerance, residuals, pool as for solve_pgs; always coloured, in lanes).
  PgsResult solve(std::span<BodyVelocity> u, const PgsSettings& settings);
  // Contact k's impulse on its row r.
  double lambda(int k, int r) const {
    const size_t at = at_[size_t(k)] + (kFirstRowField + size_t(r) * kRowFields + kLambdaField) * size_t(width_);
    return precision_ == PgsPrecision::Single ? double(values().f[at]) : values().d[at];
  }
  // Sets contact k's impulse on its row r without moving any body (friction_balance.h moves impulses so).
  void set_lambda(int k, int r, double value) {
    const size_t at = at_[size_t(k)] + (kFirstRowField + size_t(r) * kRowFields + kLambdaField) * size_t(width_);
    if (precision_ == PgsPrecision::Single)
      values().f[at] = float(value);
    else
      values().d[at] = value;
  }
  size_t size() const { return keys_.size(); }
  int rows() const { return rows_; }
  // Most contacts of one pair a lane holds at three rows a contact: a longer run of one pair's contacts is split.
  static constexpr int kBlockContacts = 8;
  // The blocks (up to kBlockContacts contacts of one pair, in the planned order: {first, count}) in which some
  // contact's friction is near the edge of its disc and worth balancing at least_speed (near_disc_edge,
  // friction_balance.h), for a disc layout.
  void find_full_discs(double least_speed, std::vector<std::pair<int, int>>& out) const;

  struct Block {
    int first = 0, count = 0;  // its contacts
    int a = 0, b = 0;          // its bodies' slots
    int level = 0, lane = 0;
  };
  // A batch has 4 or 8 lanes in double precision and 8 or 16 in single (LaneWidth).
  static constexpr int kMaxLanes = 16;
  struct Batch {
    int count = 0;                    // contacts per lane
    size_t data = 0;                  // offset of its fields
    int a[kMaxLanes] = {}, b[kMaxLanes] = {};  // each lane's bodies' slots (the dummy slot for an empty lane)
    int first[kMaxLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                            -1, -1, -1, -1, -1, -1, -1, -1};  // each lane's first contact (-1: an empty lane)
    bool write_a[kMaxLanes] = {}, write_b[kMaxLanes] = {};
    bool full[kMaxLanes] = {};        // lanes in use
  };

 private:
  template <class T> friend struct ContactLaneSolve;
  template <class T> std::vector<T>& data();
  template <class T> const std::vector<T>& data() const;
  bool layout(std::span<const InverseMass> masses);

  // Where a contact's first row starts among its fields, a row's fields, and its impulse's among them
  // (pgs_contacts.cpp); each field is one value per lane.
  static constexpr size_t kFirstRowField = 6, kRowFields = 11, kLambdaField = 10;

  // What the layout was planned for.
  std::vector<ContactBodies> keys_;
  std::vector<uint8_t> moves_;  // per contact: bit 0 body a is moved, bit 1 body b
  int rows_ = 0;
  bool disc_ = false;
  PgsPrecision precision_ = PgsPrecision::Double;
  bool wide_ = false;  // LaneWidth::Wide
  int width_ = 4;  // lanes per batch
  bool valid_ = false, kept_ = false;
  std::span<const InverseMass> masses_;

  // The layout: bodies by slot, blocks by colour, batches level by level, each contact's place.
  std::vector<int> bodies_, slot_of_;
  std::vector<char> moved_;
  std::vector<Block> blocks_;
  std::vector<Batch> batches_;
  std::vector<int> level_batches_;
  std::vector<size_t> at_;     // per contact: offset of its fields in its batch, lane added
  size_t size_ = 0;  // values of the layout
  ContactLaneValues own_;
  ContactLaneValues* shared_ = nullptr;
  ContactLaneValues& values() { return shared_ ? *shared_ : own_; }
  const ContactLaneValues& values() const { return shared_ ? *shared_ : own_; }
  std::vector<std::array<double, 6>> velocity_;  // per slot, during a solve; a dummy slot last
};

}  // namespace cl
