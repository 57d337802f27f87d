#include "world/contact_matching.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace cl {

// Persistence for warm starting: a contact inherits the impulses of the previous step's contact of the
// same pair with the same feature id; failing that, of the nearest unclaimed one of the same pair within
// kPersistDistance. The second rule keeps stacks warm when coincident features (two equal boxes' corners)
// swap which test found them, which feature ids alone cannot tell apart.
//
// Both rules look up candidates instead of scanning the pair's previous contacts for every new one (a bolt in its
// thread has 14,000 contacts in one pair): the feature rule through the previous contacts sorted by (feature,
// index), taking the first unclaimed of equal feature as the scan did; the distance rule through a uniform grid of
// kPersistDistance cells (every previous contact closer than that lies in one of the 27 cells around the new
// one), taking the nearest unclaimed with ties to the lowest index, as the scan's strict comparison did. The
// matches are the ones the scans made. A pair whose previous features already strictly increase is not sorted.
void match_previous_contacts(const ContactList& previous, ContactList& current) {
  constexpr double kPersistDistance = 0.02;  // m
  std::vector<char> claimed(previous.size(), 0);
  struct Keyed {
    uint32_t feature;
    uint32_t k;
  };
  struct Celled {
    int64_t x, y, z;
    uint32_t k;
    bool operator<(const Celled& o) const {
      return x != o.x ? x < o.x : y != o.y ? y < o.y : z != o.z ? z < o.z : k < o.k;
    }
  };
  std::vector<Keyed> by_feature;
  std::vector<Celled> by_cell;
  auto cell_of = [&](const Vec3& p, uint32_t k) {
    return Celled{int64_t(std::floor(p.x() / kPersistDistance)), int64_t(std::floor(p.y() / kPersistDistance)),
                  int64_t(std::floor(p.z() / kPersistDistance)), k};
  };
  // Cells are only used where every coordinate is a finite number of cells from the origin.
  auto cellable = [&](const Vec3& p) { return all_finite(p) && p.cwiseAbs().maxCoeff() < 1e12 * kPersistDistance; };
  size_t pair_begin = 0;  // first previous contact of the current pair
  for (size_t i = 0; i < current.size();) {
    // The new contacts [i, j) and the previous ones [p0, p1) of one pair.
    size_t j = i;
    while (j < current.size() && current[j].a == current[i].a && current[j].b == current[i].b) ++j;
    while (pair_begin < previous.size() &&
           (previous[pair_begin].a < current[i].a ||
            (previous[pair_begin].a == current[i].a && previous[pair_begin].b < current[i].b)))
      ++pair_begin;
    size_t pair_end = pair_begin;
    while (pair_end < previous.size() && previous[pair_end].a == current[i].a &&
           previous[pair_end].b == current[i].b)
      ++pair_end;
    // A pair whose contacts all continue their own (kept or recycled, World::find_contacts) has nothing to match.
    if (std::all_of(current.begin() + std::ptrdiff_t(i), current.begin() + std::ptrdiff_t(j),
                    [](const Contact& c) { return c.persisted; })) {
      i = j;
      pair_begin = pair_end;
      continue;
    }
    auto inherit = [&](Contact& c, size_t k) {
      continue_contact(c, previous[k]);
      claimed[k] = 1;
    };
    if (pair_end > pair_begin) {
      // The pair's previous contacts by (feature, index): already in that order when their features strictly
      // increase (as implicit-penalty's points come), so sorted only otherwise.
      by_feature.clear();
      bool increasing = true;
      for (size_t k = pair_begin; k < pair_end; ++k) {
        if (k > pair_begin) increasing = increasing && previous[k - 1].feature < previous[k].feature;
        by_feature.push_back({previous[k].feature, uint32_t(k)});
      }
      if (!increasing)
        std::sort(by_feature.begin(), by_feature.end(),
                  [](const Keyed& x, const Keyed& y) { return x.feature != y.feature ? x.feature < y.feature : x.k < y.k; });
      // Each new contact takes the first unclaimed previous one of its feature. The first entry of feature at
      // least f is found by a walk that moves forward with the new contacts' features (they mostly come sorted
      // too), and by a binary search where one goes back.
      size_t at = 0;
      for (size_t n = i; n < j; ++n) {
        if (current[n].persisted) continue;
        const uint32_t f = current[n].feature;
        if (at > 0 && by_feature[at - 1].feature >= f)
          at = size_t(std::lower_bound(by_feature.begin(), by_feature.end(), f,
                                       [](const Keyed& x, uint32_t g) { return x.feature < g; }) -
                      by_feature.begin());
        while (at < by_feature.size() && by_feature[at].feature < f) ++at;
        for (size_t e = at; e < by_feature.size() && by_feature[e].feature == f; ++e)
          if (!claimed[by_feature[e].k]) {
            inherit(current[n], by_feature[e].k);
            break;
          }
      }
    }
    // The distance rule: unmatched new contacts against the unclaimed previous ones.
    size_t unmatched = 0, unclaimed = 0;
    bool cells = true;
    for (size_t n = i; n < j; ++n)
      if (!current[n].persisted) ++unmatched, cells = cells && cellable(current[n].position);
    for (size_t k = pair_begin; k < pair_end; ++k)
      if (!claimed[k]) ++unclaimed, cells = cells && cellable(previous[k].position);
    if (unmatched > 0 && unclaimed > 0 && (!cells || unmatched * unclaimed <= 4096)) {
      for (size_t n = i; n < j; ++n) {
        if (current[n].persisted) continue;
        size_t best = pair_end;
        double best_d = kPersistDistance;
        for (size_t k = pair_begin; k < pair_end; ++k) {
          const double d = (previous[k].position - current[n].position).norm();
          if (!claimed[k] && d < best_d) {
            best_d = d;
            best = k;
          }
        }
        if (best != pair_end) inherit(current[n], best);
      }
    } else if (unmatched > 0 && unclaimed > 0) {
      by_cell.clear();
      for (size_t k = pair_begin; k < pair_end; ++k)
        if (!claimed[k]) by_cell.push_back(cell_of(previous[k].position, uint32_t(k)));
      std::sort(by_cell.begin(), by_cell.end());
      for (size_t n = i; n < j; ++n) {
        if (current[n].persisted) continue;
        const Celled c = cell_of(current[n].position, 0);
        size_t best = pair_end;
        double best_d = kPersistDistance;
        for (int64_t dx = -1; dx <= 1; ++dx)
          for (int64_t dy = -1; dy <= 1; ++dy)
            for (int64_t dz = -1; dz <= 1; ++dz) {
              const Celled lo{c.x + dx, c.y + dy, c.z + dz, 0};
              for (auto it = std::lower_bound(by_cell.begin(), by_cell.end(), lo);
                   it != by_cell.end() && it->x == lo.x && it->y == lo.y && it->z == lo.z; ++it) {
                if (claimed[it->k]) continue;
                const double d = (previous[it->k].position - current[n].position).norm();
                if (d < best_d || (d == best_d && best != pair_end && it->k < best)) {
                  best_d = d;
                  best = it->k;
                }
              }
            }
        if (best != pair_end) inherit(current[n], best);
      }
    }
    i = j;
    pair_begin = pair_end;
  }
}

}  // namespace cl
