// The HEALPix join against the O(N*M) reference: identical pair sets on random catalogs with
// poles, RA wrap, exact duplicates and empty sides, radii 0.01 arcsec .. 1 deg, every search
// method; then the find and join modes and the self-match.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

using namespace celeris::xmatch;

namespace {

// Points clustered around anchors (random, at the poles, at RA 0/360) within ~3 radii, plus exact
// duplicates, so that every radius has matches, non-matches and boundary cases.
SkyPoints clustered(std::mt19937_64& rng, size_t n, double radius_arcsec) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::pair<double, double>> anchors = {
      {0.0, 90.0},      {123.0, -90.0},       {0.0, 0.0},
      {360.0, 10.0},    {359.9999999, -30.0}, {0.0000001, 45.0},
      {180.0, 89.9999}, {270.0, -89.99999},   {45.0, 41.8103149}};
  for (int k = 0; k < 30; ++k)
    anchors.push_back({360 * u(rng), std::asin(2 * u(rng) - 1) * 180 / celeris::healpix::pi});
  SkyPoints p;
  const double spread = 3 * radius_arcsec / 3600.0;  // degrees
  for (size_t k = 0; k < n; ++k) {
    const auto& [ra0, dec0] = anchors[k % anchors.size()];
    if (k > 0 && k % 17 == 0) {  // exact duplicate of an earlier point
      p.ra.push_back(p.ra[k / 2]);
      p.dec.push_back(p.dec[k / 2]);
      continue;
    }
    double dec = dec0 + spread * (2 * u(rng) - 1);
    dec = std::clamp(dec, -90.0, 90.0);
    const double cosd = std::max(std::cos(dec * celeris::healpix::pi / 180), 1e-6);
    double ra = ra0 + std::min(spread / cosd, 180.0) * (2 * u(rng) - 1);
    if (ra < 0) ra += 360;
    if (ra >= 360) ra -= 360;
    if (k % 11 == 0) ra = (k % 2) ? 360.0 : 0.0;  // exactly on the wrap
    p.ra.push_back(ra);
    p.dec.push_back(dec);
  }
  return p;
}

void expect_same_pairs(const std::vector<Pair>& got, const std::vector<Pair>& want,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].i, want[k].i) << what << " pair " << k;
    ASSERT_EQ(got[k].j, want[k].j) << what << " pair " << k;
    ASSERT_NEAR(got[k].sep_arcsec, want[k].sep_arcsec, 1e-9) << what;
  }
}

}  // namespace

class BruteForce : public ::testing::TestWithParam<double> {};

TEST_P(BruteForce, MatchEqualsReference) {
  const double radius = GetParam();
  std::mt19937_64 rng(uint64_t(radius * 1e6) + 17);
  const SkyPoints a = clustered(rng, 1500, radius), b = clustered(rng, 1300, radius);
  const auto want = brute_force_pairs(a, b, radius, false);
  EXPECT_GT(want.size(), 100u);
  for (Search s : {Search::Auto, Search::Neighbours, Search::Disc}) {
    Options o;
    o.radius_arcsec = radius;
    o.search = s;
    expect_same_pairs(match_pairs(a, b, o), want, "search " + std::to_string(int(s)));
  }
  // An explicitly coarser index gives the same pairs.
  Options o;
  o.radius_arcsec = radius;
  o.order = std::max(0, index_order(o) - 3);
  expect_same_pairs(match_pairs(a, b, o), want, "coarse order");
  o.search = Search::Disc;
  o.order = std::min(29, index_order(o) + 2);
  expect_same_pairs(match_pairs(a, b, o), want, "fine disc order");
}

TEST_P(BruteForce, SelfMatchEqualsReference) {
  const double radius = GetParam();
  std::mt19937_64 rng(uint64_t(radius * 1e6) + 99);
  const SkyPoints a = clustered(rng, 1500, radius);
  const auto want = brute_force_pairs(a, a, radius, true);
  for (Search s : {Search::Auto, Search::Disc}) {
    Options o;
    o.radius_arcsec = radius;
    o.search = s;
    const auto got = self_pairs(a, o);
    expect_same_pairs(got, want, "self");
    for (const Pair& p : got) ASSERT_LT(p.i, p.j);
  }
}

INSTANTIATE_TEST_SUITE_P(Radii, BruteForce, ::testing::Values(0.01, 0.5, 2.0, 60.0, 3600.0));

TEST(XMatch, UniformCatalogsManyThreads) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a, b;
  for (int k = 0; k < 4000; ++k) {
    a.ra.push_back(360 * u(rng));
    a.dec.push_back(-2 + 4 * u(rng));
    b.ra.push_back(360 * u(rng));
    b.dec.push_back(-2 + 4 * u(rng));
  }
  const auto want = brute_force_pairs(a, b, 300.0, false);
  for (int threads : {1, 2, 4}) {
    Options o;
    o.radius_arcsec = 300.0;
    o.threads = threads;
    expect_same_pairs(match_pairs(a, b, o), want, "threads");
  }
}

TEST(XMatch, EmptySides) {
  SkyPoints empty, one;
  one.ra = {10};
  one.dec = {20};
  Options o;
  EXPECT_TRUE(match_pairs(empty, one, o).empty());
  EXPECT_TRUE(match_pairs(one, empty, o).empty());
  EXPECT_TRUE(self_pairs(empty, o).empty());
  EXPECT_TRUE(self_pairs(one, o).empty());
  o.join = Join::Or;
  const auto rows = crossmatch(empty, one, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].i, -1);
  EXPECT_EQ(rows[0].j, 0);
}

TEST(XMatch, BadCoordinatesNameTheRow) {
  SkyPoints a;
  a.ra = {10, 20, std::nan("")};
  a.dec = {0, 0, 0};
  Options o;
  try {
    match_pairs(a, a, o);
    FAIL() << "no error";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 3"), std::string::npos) << e.what();
  }
  a.ra[2] = 30;
  a.dec[1] = 91;
  EXPECT_THROW(self_pairs(a, o), celeris::Error);
  a.dec[1] = 0;
  o.radius_arcsec = -1;
  EXPECT_THROW(self_pairs(a, o), celeris::Error);
}

// Left rows 0, 1 and right rows 0, 1, 2 on the equator, separations in arcsec:
//   (0,0) 1.0  (0,1) 0.5  (1,1) 0.8  (1,2) 1.5 ; right 3 far away, left 2 far away.
struct Small : ::testing::Test {
  SkyPoints a, b;
  Options o;
  void SetUp() override {
    const double s = 1.0 / 3600;
    a.ra = {0.0, 1.3 * s, 50.0};
    a.dec = {0, 0, 0};
    b.ra = {-1.0 * s + 360.0, 0.5 * s, 2.8 * s, 90.0};
    b.dec = {0, 0, 0, 0};
    o.radius_arcsec = 1.6;
  }
  static std::set<std::pair<int64_t, int64_t>> ij(const std::vector<Pair>& p) {
    std::set<std::pair<int64_t, int64_t>> s;
    for (const Pair& x : p) s.insert({x.i, x.j});
    return s;
  }
};

TEST_F(Small, FindModes) {
  using S = std::set<std::pair<int64_t, int64_t>>;
  o.find = Find::All;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 0}, {0, 1}, {1, 1}, {1, 2}}));
  o.find = Find::Best1;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 1}}));
  o.find = Find::Best2;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 0}, {0, 1}, {1, 2}}));
  o.find = Find::Greedy;  // (0,1) 0.5 first, then (1,1) is taken, (0,0) is taken, (1,2) 1.5
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}}));
  // STILTS best: the right side (4 rows) is the larger: each right row's nearest left row
  // (0,0), (0,1), (1,2) [best2]; then each left row's nearest of those: (0,1), (1,2).
  o.find = Find::Best;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}}));
}

TEST_F(Small, JoinModes) {
  using S = std::set<std::pair<int64_t, int64_t>>;
  o.find = Find::Greedy;
  o.join = Join::And;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}}));
  o.join = Join::All1;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}, {2, -1}}));
  o.join = Join::All2;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}, {-1, 0}, {-1, 3}}));
  o.join = Join::Or;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{0, 1}, {1, 2}, {2, -1}, {-1, 0}, {-1, 3}}));
  o.join = Join::Not2;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{2, -1}}));
  o.join = Join::Not1;
  EXPECT_EQ(ij(crossmatch(a, b, o)), (S{{-1, 0}, {-1, 3}}));
}

TEST(XMatch, SelfFindAndJoin) {
  // Three points in a row 1 arcsec apart and one isolated point.
  const double s = 1.0 / 3600;
  SkyPoints p;
  p.ra = {10, 10 + s, 10 + 2.1 * s, 200};
  p.dec = {-20, -20, -20, 30};
  Options o;
  o.radius_arcsec = 1.5;
  auto rows = self_crossmatch(p, o);
  ASSERT_EQ(rows.size(), 2u);  // (0,1), (1,2); never (i,i), never twice
  o.find = Find::Best1;
  rows = self_crossmatch(p, o);
  ASSERT_EQ(rows.size(), 3u);  // 0->1, 1->0, 2->1
  EXPECT_EQ(rows[1].i, 1);
  EXPECT_EQ(rows[1].j, 0);
  o.find = Find::Greedy;
  rows = self_crossmatch(p, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].i, 0);
  o.find = Find::Best;  // 0 and 1 are each other's nearest; 2's nearest (1) is not mutual
  rows = self_crossmatch(p, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].i, 0);
  EXPECT_EQ(rows[0].j, 1);
  o.find = Find::All;
  o.join = Join::Not2;
  rows = self_crossmatch(p, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].i, 3);
  o.join = Join::Or;
  EXPECT_THROW(self_crossmatch(p, o), celeris::Error);
}

TEST(XMatch, BestModesAgainstDefinition) {
  std::mt19937_64 rng(12);
  const SkyPoints a = clustered(rng, 800, 2.0), b = clustered(rng, 900, 2.0);
  Options o;
  o.radius_arcsec = 2.0;
  const auto all = match_pairs(a, b, o);
  const auto best1 = select_pairs(all, Find::Best1, false, a.size(), b.size());
  std::vector<double> min1(a.size(), 1e300);
  for (const Pair& p : all) min1[p.i] = std::min(min1[p.i], p.sep_arcsec);
  std::set<int64_t> seen;
  for (const Pair& p : best1) {
    EXPECT_TRUE(seen.insert(p.i).second);
    EXPECT_EQ(p.sep_arcsec, min1[p.i]);
  }
  const auto best = select_pairs(all, Find::Greedy, false, a.size(), b.size());
  std::set<int64_t> si, sj;
  for (const Pair& p : best) {
    EXPECT_TRUE(si.insert(p.i).second);
    EXPECT_TRUE(sj.insert(p.j).second);
  }
  // Every pair left out shares a row with a kept pair at least as close.
  for (const Pair& p : all) {
    if (std::find_if(best.begin(), best.end(),
                     [&](const Pair& q) { return q.i == p.i && q.j == p.j; }) != best.end())
      continue;
    bool blocked = false;
    for (const Pair& q : best)
      if ((q.i == p.i || q.j == p.j) && q.sep_arcsec <= p.sep_arcsec) blocked = true;
    EXPECT_TRUE(blocked);
  }
}

// find best as STILTS defines it (RowMatcher.eliminateMultipleRowEntries over the nearest pair
// of every row of the larger table), written out plainly, on both orders of the sides (so each
// side is once the larger); and against greedy: in a crowded field greedy keeps more pairs.
TEST(XMatch, StiltsBestAgainstDefinition) {
  std::mt19937_64 rng(21);
  const SkyPoints a = clustered(rng, 900, 3.0), b = clustered(rng, 700, 3.0);
  Options o;
  o.radius_arcsec = 3.0;
  for (bool swap : {false, true}) {
    const SkyPoints& l = swap ? b : a;
    const SkyPoints& r = swap ? a : b;
    const auto all = match_pairs(l, r, o);
    const bool left_larger = l.size() >= r.size();
    // Nearest of every row of the larger side (ties: smaller partner row).
    std::map<int64_t, Pair> first;
    for (const Pair& p : all) {
      const int64_t key = left_larger ? p.i : p.j, other = left_larger ? p.j : p.i;
      auto it = first.find(key);
      if (it == first.end() || p.sep_arcsec < it->second.sep_arcsec ||
          (p.sep_arcsec == it->second.sep_arcsec &&
           other < (left_larger ? it->second.j : it->second.i)))
        first[key] = p;
    }
    // STILTS: in (separation, i, j) order, keep a pair when neither row was seen before.
    std::vector<Pair> cand;
    for (const auto& kv : first) cand.push_back(kv.second);
    std::sort(cand.begin(), cand.end(), [](const Pair& x, const Pair& y) {
      return x.sep_arcsec != y.sep_arcsec ? x.sep_arcsec < y.sep_arcsec
                                          : (x.i != y.i ? x.i < y.i : x.j < y.j);
    });
    std::set<int64_t> seen_i, seen_j;
    std::set<std::pair<int64_t, int64_t>> want;
    for (const Pair& p : cand) {
      const bool fresh_i = seen_i.insert(p.i).second, fresh_j = seen_j.insert(p.j).second;
      if (fresh_i && fresh_j) want.insert({p.i, p.j});
    }
    const auto got = select_pairs(all, Find::Best, false, l.size(), r.size());
    std::set<std::pair<int64_t, int64_t>> got_set;
    for (const Pair& p : got) got_set.insert({p.i, p.j});
    EXPECT_EQ(got_set, want) << (swap ? "swapped" : "");
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), [](const Pair& x, const Pair& y) {
      return x.i != y.i ? x.i < y.i : x.j < y.j;
    }));
    const auto greedy = select_pairs(all, Find::Greedy, false, l.size(), r.size());
    EXPECT_GT(greedy.size(), got.size()) << "a crowded field: greedy finds more partners";
  }
}

TEST(XMatch, ParseRadius) {
  EXPECT_DOUBLE_EQ(parse_radius_arcsec("2arcsec"), 2.0);
  EXPECT_DOUBLE_EQ(parse_radius_arcsec("2 arcsec"), 2.0);
  EXPECT_DOUBLE_EQ(parse_radius_arcsec("1.5arcmin"), 90.0);
  EXPECT_DOUBLE_EQ(parse_radius_arcsec("0.1deg"), 360.0);
  EXPECT_DOUBLE_EQ(parse_radius_arcsec("3"), 3.0);
  EXPECT_THROW(parse_radius_arcsec("2 parsec"), celeris::Error);
  EXPECT_THROW(parse_radius_arcsec("abc"), celeris::Error);
  EXPECT_THROW(parse_radius_arcsec("-1arcsec"), celeris::Error);
}

TEST(XMatch, SimulatedCatalogHasRepeatPairs) {
  CatalogParams p;
  p.rows = 20000;
  p.dec_min = -1;
  p.dec_max = 1;
  p.repeats = 4;
  const celeris::Table t = simulate_catalog(p);
  ASSERT_EQ(t.rows, 20000u);
  const SkyPoints pts = table_positions(t, "RA", "DEC", "sim");
  for (size_t k = 0; k < pts.size(); ++k) {
    ASSERT_GE(pts.ra[k], 0);
    ASSERT_LT(pts.ra[k], 360);
  }
  Options o;
  o.radius_arcsec = 3;
  const auto pairs = self_pairs(pts, o);
  // clusters of ~4 detections: ~6 pairs per cluster of 4, i.e. ~1.5 per row
  EXPECT_GT(double(pairs.size()) / t.rows, 0.8);
}
