#include "world/contact_matching.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace cl {

namespace {

// The rules spelled out as plain scans over the pair's previous contacts, in index order: first the same feature,
// then the nearest unclaimed within 2 cm (strictly nearer wins, so ties go to the lower index).
void match_by_scan(const ContactList& previous, ContactList& current) {
  constexpr double kPersistDistance = 0.02;
  std::vector<char> claimed(previous.size(), 0);
  auto same_pair = [](const Contact& x, const Contact& y) { return x.a == y.a && x.b == y.b; };
  auto inherit = [&](Contact& c, size_t k) {
    continue_contact(c, previous[k]);
    claimed[k] = 1;
  };
  for (Contact& c : current)
    for (size_t k = 0; k < previous.size() && !c.persisted; ++k)
      if (same_pair(c, previous[k]) && !claimed[k] && previous[k].feature == c.feature) inherit(c, k);
  for (Contact& c : current) {
    if (c.persisted) continue;
    size_t best = previous.size();
    double best_d = kPersistDistance;
    for (size_t k = 0; k < previous.size(); ++k) {
      if (!same_pair(c, previous[k]) || claimed[k]) continue;
      const double d = (previous[k].position - c.position).norm();
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    if (best != previous.size()) inherit(c, best);
  }
}

// Contacts of pairs (0, 1), (0, 2) and (3, 4), sorted by pair; per pair `count` contacts with features from a small
// range (repeats) and positions on a 5 mm lattice in a 10 cm box (equal distances, so ties), each with its own
// impulse to tell which one was inherited.
ContactList contacts(std::mt19937& rng, int count, double impulse_base) {
  std::uniform_int_distribution<int> feature(0, count / 3 + 1), lattice(0, 20);
  ContactList out;
  for (const auto& [a, b] : {std::pair(0, 1), std::pair(0, 2), std::pair(3, 4)})
    for (int i = 0; i < count; ++i) {
      Contact c;
      c.a = a;
      c.b = b;
      c.feature = uint32_t(feature(rng));
      const int x = lattice(rng), y = lattice(rng), z = lattice(rng);
      c.position = Vec3(0.005 * x - 0.031, 0.005 * y + 1.2, 0.005 * z);
      c.normal_impulse = impulse_base + double(out.size());
      c.friction_impulse = Vec3(c.normal_impulse, -1, 2);
      out.push_back(c);
    }
  return out;
}

void expect_same_matches(const ContactList& previous, const ContactList& fresh) {
  ContactList fast = fresh, scan = fresh;
  match_previous_contacts(previous, fast);
  match_by_scan(previous, scan);
  int persisted = 0;
  for (size_t n = 0; n < fresh.size(); ++n) {
    ASSERT_EQ(fast[n].persisted, scan[n].persisted) << "contact " << n;
    ASSERT_EQ(fast[n].normal_impulse, scan[n].normal_impulse) << "contact " << n;
    ASSERT_EQ(fast[n].friction_impulse, scan[n].friction_impulse) << "contact " << n;
    persisted += fast[n].persisted;
  }
  // Some by feature, some by distance, some not at all: every rule was exercised.
  EXPECT_GT(persisted, 0);
  EXPECT_LT(persisted, int(fresh.size()));
}

}  // namespace

TEST(ContactMatching, FewContactsMatchAsTheScansDo) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    const ContactList previous = contacts(rng, 12, 0.0), fresh = contacts(rng, 10, 1000.0);
    expect_same_matches(previous, fresh);
  }
}

TEST(ContactMatching, ManyContactsOfOnePairMatchAsTheScansDo) {
  // 300 x 300 contacts in a pair: past the size at which the distance rule looks up cells instead of scanning.
  std::mt19937 rng(11);
  for (int round = 0; round < 3; ++round) {
    const ContactList previous = contacts(rng, 300, 0.0), fresh = contacts(rng, 300, 1e6);
    expect_same_matches(previous, fresh);
  }
}

TEST(ContactMatching, StrictlyIncreasingFeaturesMatchAsTheScansDo) {
  // Each pair's previous features strictly increasing (the walk instead of the sorted copy); the new ones mostly
  // increasing with repeats, steps back and contacts already persisted, so the walk both moves on and looks back.
  std::mt19937 rng(13);
  for (int round = 0; round < 10; ++round) {
    ContactList previous = contacts(rng, 300, 0.0), fresh = contacts(rng, 300, 1e6);
    std::uniform_int_distribution<int> step(1, 3), back(0, 9);
    for (size_t k = 0; k < previous.size(); ++k)
      previous[k].feature = k > 0 && previous[k - 1].b == previous[k].b ? previous[k - 1].feature + uint32_t(step(rng))
                                                                        : uint32_t(step(rng));
    for (size_t n = 0; n < fresh.size(); ++n) {
      const bool first = n == 0 || fresh[n - 1].b != fresh[n].b;
      const int r = back(rng);
      fresh[n].feature = first ? 0 : r == 0 ? fresh[n - 1].feature / 2 : fresh[n - 1].feature + uint32_t(r % 3);
      fresh[n].persisted = r == 9;
    }
    expect_same_matches(previous, fresh);
  }
}

TEST(ContactMatching, ANonFinitePositionFallsBackToTheScan) {
  std::mt19937 rng(3);
  ContactList previous = contacts(rng, 300, 0.0);
  const ContactList fresh = contacts(rng, 300, 1e6);
  previous[5].position.x() = std::numeric_limits<double>::quiet_NaN();
  previous[6].position.y() = 1e300;
  expect_same_matches(previous, fresh);
}

TEST(ContactMatching, AContactContinuesAtMostOnePrevious) {
  std::mt19937 rng(5);
  const ContactList previous = contacts(rng, 200, 0.0);
  ContactList fresh = contacts(rng, 200, 1e6);
  match_previous_contacts(previous, fresh);
  std::vector<int> taken(previous.size(), 0);
  for (const Contact& c : fresh)
    if (c.persisted) ++taken[size_t(c.normal_impulse)];  // previous impulses are their indices
  for (size_t k = 0; k < taken.size(); ++k) EXPECT_LE(taken[k], 1) << k;
}

}  // namespace cl
