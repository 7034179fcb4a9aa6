// The CPU count without pairs (count_cpu.hpp: half scan of a self-match, blocked chord tests,
// branch-free bins) against the plain reference: every pair by an O(N*M) loop
// (brute_force_pairs), binned by PairCount::add. Random catalogs with rows at and around both
// poles, on both sides of RA 0/360 (and RA given as 360 or negative), exact duplicates (zero
// separation) and empty sides; both search methods, 1 and 2 threads, whole catalogs (count_pairs),
// self-match ranges (count_cpu) and catalogs sorted by pixel counted in runs (count_sorted).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "xmatch/count_bins.hpp"
#include "xmatch/count_cpu.hpp"
#include "xmatch/sorted_count.hpp"

using namespace celeris::xmatch;
namespace hp = celeris::healpix;

namespace {

// n rows, a sixth each: uniform over the sphere; a cap at the north pole (some exactly at it);
// one at the south pole; a strip across RA 0 written as RA in [0, 1), [359, 360] and negative;
// copies of earlier rows (zero separation); a dense spot at the equator. The spots are about
// `radius_arcsec` * sqrt(rows) across, so a row has a few dozen others within the radius.
SkyPoints awkward_sky(std::mt19937_64& rng, size_t n, double radius_arcsec) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double spot = radius_arcsec / 3600.0 * std::sqrt(double(n) / 6 * hp::pi / 30);
  SkyPoints p;
  for (size_t k = 0; k < n; ++k) {
    double ra = 0, dec = 0;
    switch (k % 6) {
      case 0:
        ra = 360 * u(rng);
        dec = std::asin(2 * u(rng) - 1) / hp::pi * 180;
        break;
      case 1:
        ra = 360 * u(rng);
        dec = k % 24 == 1 ? 90.0 : 90 - spot / std::sqrt(hp::pi) * std::sqrt(u(rng));
        break;
      case 2:
        ra = k % 24 == 2 ? 0.0 : 360 * u(rng);
        dec = k % 36 == 2 ? -90.0 : -90 + spot / std::sqrt(hp::pi) * std::sqrt(u(rng));
        break;
      case 3: {
        const double x = spot * (u(rng) - 0.5);  // degrees east of RA 0
        // The same meridian written three ways: 0 <= RA < 360, RA up to 360 itself, RA < 0.
        ra = k % 18 == 3 ? (x < 0 ? x : x - 360) : x < 0 ? 360 + x : (k % 12 == 3 ? 360.0 : x);
        dec = 20 + spot * (u(rng) - 0.5);
        break;
      }
      case 4: {
        const size_t from = size_t(double(k) * u(rng));  // an earlier row, repeated exactly
        ra = p.ra[from];
        dec = p.dec[from];
        break;
      }
      default:
        ra = 123 + spot * u(rng);
        dec = spot * (u(rng) - 0.5);
    }
    p.ra.push_back(ra);
    p.dec.push_back(dec);
  }
  return p;
}

PairCount brute_count(const SkyPoints& a, const SkyPoints& b, bool self, double radius, int bins) {
  PairCount c(radius, bins);
  c.add(brute_force_pairs(a, self ? a : b, radius, self));
  return c;
}

void expect_same_count(const PairCount& got, const PairCount& want, const std::string& what) {
  EXPECT_EQ(got.pairs, want.pairs) << what;
  ASSERT_EQ(got.histogram.size(), want.histogram.size()) << what;
  for (size_t b = 0; b < want.histogram.size(); ++b)
    EXPECT_EQ(got.histogram[b], want.histogram[b]) << what << ", bin " << b;
}

}  // namespace

// The branch-free bisection counts the same starts as bin_of: every length up to 40 and 1000,
// starts with repeats of +inf at the end (bins no chord reaches), chords at, just below and just
// above every start and at random.
TEST(XMatchCountCpu, BranchFreeBinIsBinOf) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0.0, 4.0);
  for (size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 19, 31, 33, 40, 1000}) {
    for (size_t infs : {size_t(0), size_t(1), size_t(3)}) {
      std::vector<double> s(n);
      for (double& x : s) x = u(rng);
      std::sort(s.begin(), s.end());
      for (size_t k = 0; k < std::min(infs, n); ++k)
        s[n - 1 - k] = std::numeric_limits<double>::infinity();
      std::vector<double> probes = {0.0, 4.0, std::numeric_limits<double>::infinity()};
      for (double x : s)
        probes.insert(probes.end(), {x, std::nextafter(x, 0.0), std::nextafter(x, 8.0)});
      for (int t = 0; t < 200; ++t) probes.push_back(u(rng));
      for (double c2 : probes)
        ASSERT_EQ(detail::bin_of_branch_free(s.data(), s.size(), c2), detail::bin_of(s, c2))
            << n << " starts, " << infs << " inf, c2 " << c2;
    }
  }
}

// count_pairs on the CPU: the brute-force count, bin for bin, self-match and two catalogs, both
// search methods, several radii and bin counts, 1 and 2 threads.
TEST(XMatchCountCpu, CountPairsIsBruteForce) {
  std::mt19937_64 rng(32);
  for (double radius : {2.0, 20.16, 300.0}) {
    const SkyPoints a = awkward_sky(rng, 3000, radius), b = awkward_sky(rng, 2000, radius);
    for (bool self : {true, false}) {
      for (int bins : {1, 20, 1000}) {
        const PairCount want = brute_count(a, b, self, radius, bins);
        ASSERT_GT(want.pairs, 2000u) << radius;
        for (Search search : {Search::Neighbours, Search::Disc}) {
          for (int threads : {1, 2}) {
            Options o;
            o.radius_arcsec = radius;
            o.search = search;
            o.threads = threads;
            PairCount got(radius, bins);
            count_pairs(a, b, self, o, got);
            expect_same_count(got, want,
                              std::to_string(radius) + " arcsec, " + (self ? "self, " : "") +
                                  std::to_string(bins) + " bins, " +
                                  (search == Search::Disc ? "disc, " : "neighbours, ") +
                                  std::to_string(threads) + " threads");
          }
        }
      }
    }
  }
}

// A coarser index order than the automatic one (more candidates a row, pixels shared by more
// rows) and an order at the neighbour search's limit give the same count.
TEST(XMatchCountCpu, ExplicitOrdersAreBruteForce) {
  std::mt19937_64 rng(33);
  const SkyPoints a = awkward_sky(rng, 2500, 20);
  const PairCount want = brute_count(a, a, true, 20, 20);
  ASSERT_GT(want.pairs, 2000u);
  for (int order : {0, 4, 8, hp::order_for_radius(20 * hp::pi / (180.0 * 3600.0))}) {
    Options o;
    o.radius_arcsec = 20;
    o.order = order;
    PairCount got(20, 20);
    count_pairs(a, a, true, o, got);
    expect_same_count(got, want, "order " + std::to_string(order));
  }
}

// A self-match's left rows cut into consecutive ranges (and into every third row), each part
// counted over the whole catalog: every pair once in total (the pair's first row in (pixel, row)
// order decides the part).
TEST(XMatchCountCpu, SelfRangesSumToTheWhole) {
  std::mt19937_64 rng(34);
  const SkyPoints a = awkward_sky(rng, 3000, 20);
  const PairCount want = brute_count(a, a, true, 20, 9);
  ASSERT_GT(want.pairs, 2000u);
  Options o;
  o.radius_arcsec = 20;
  const std::vector<double> starts = detail::chord2_bin_starts(20, 9);
  const detail::RowSpan all{a.ra.data(), a.dec.data(), a.size()};
  for (size_t parts : {1, 2, 7}) {
    std::vector<uint64_t> hist(9, 0);
    for (size_t k = 0; k < parts; ++k) {
      std::vector<uint8_t> is_left(a.size(), 0);
      for (size_t r = a.size() * k / parts; r < a.size() * (k + 1) / parts; ++r) is_left[r] = 1;
      detail::count_cpu(nullptr, all, is_left.data(), o, starts, hist, 1);
    }
    PairCount got(20, 9);
    for (size_t b = 0; b < hist.size(); ++b) {
      got.histogram[b] = hist[b];
      got.pairs += hist[b];
    }
    expect_same_count(got, want, std::to_string(parts) + " ranges");
  }
  std::vector<uint64_t> hist(9, 0);
  for (size_t k = 0; k < 3; ++k) {
    std::vector<uint8_t> is_left(a.size(), 0);
    for (size_t r = k; r < a.size(); r += 3) is_left[r] = 1;
    detail::count_cpu(nullptr, all, is_left.data(), o, starts, hist, 2);
  }
  PairCount got(20, 9);
  for (size_t b = 0; b < hist.size(); ++b) {
    got.histogram[b] = hist[b];
    got.pairs += hist[b];
  }
  expect_same_count(got, want, "every third row");
}

// Catalogs sorted by pixel and counted in runs of several sizes (count_sorted on the CPU, a run
// per thread): the brute-force count.
TEST(XMatchCountCpu, SortedRunsAreBruteForce) {
  std::mt19937_64 rng(35);
  const SkyPoints a = awkward_sky(rng, 4000, 20), b = awkward_sky(rng, 2500, 20);
  Options o;
  o.radius_arcsec = 20;
  const int order = chunk_order(o);
  const PixelSorted sa = pixel_sorted(a, order), sb = pixel_sorted(b, order);
  for (bool self : {true, false}) {
    const PairCount want = brute_count(a, b, self, 20, 20);
    ASSERT_GT(want.pairs, 2000u);
    for (size_t bytes : {size_t(0), size_t(200000), size_t(1)}) {
      PairCount got(20, 20);
      SortedCountStats stats;
      count_sorted(sa, self ? nullptr : &sb, o, got, &stats, bytes);
      expect_same_count(got, want,
                        std::string(self ? "self, " : "") + std::to_string(bytes) + " bytes");
      if (bytes == 1) EXPECT_GT(stats.runs, 10u);
    }
  }
}

// Empty sides count nothing; one row counts nothing against itself; two equal rows are one pair
// at separation 0 (the first bin).
TEST(XMatchCountCpu, EmptyAndTinyInputs) {
  Options o;
  o.radius_arcsec = 20;
  SkyPoints none, one, two;
  one.ra = {359.9};
  one.dec = {-89.99};
  two.ra = {0.0, 360.0};
  two.dec = {90.0, 90.0};
  for (const auto& [l, r, self, pairs] :
       std::vector<std::tuple<const SkyPoints*, const SkyPoints*, bool, uint64_t>>{
           {&none, &none, true, 0},
           {&none, &one, false, 0},
           {&one, &none, false, 0},
           {&one, &one, true, 0},
           {&one, &one, false, 1},
           {&two, &two, true, 1},
           {&two, &two, false, 4}}) {
    PairCount c(20, 4);
    count_pairs(*l, *r, self, o, c);
    EXPECT_EQ(c.pairs, pairs) << l->size() << " x " << r->size() << (self ? " self" : "");
    EXPECT_EQ(c.histogram[0], pairs);
  }
}

// A bad position or option is refused with the join's messages (side and 1-based row named).
TEST(XMatchCountCpu, BadInputIsRefused) {
  SkyPoints good, bad;
  good.ra = {10, 20};
  good.dec = {0, 0};
  bad.ra = {10, 20, 30};
  bad.dec = {0, 0, 91};
  Options o;
  o.radius_arcsec = 20;
  auto message = [&](const SkyPoints& l, const SkyPoints& r, bool self, const Options& opt) {
    PairCount c(opt.radius_arcsec > 0 ? opt.radius_arcsec : 1, 4);
    try {
      count_pairs(l, r, self, opt, c);
    } catch (const celeris::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(bad, good, false, o).find("left catalog: row 3"), std::string::npos);
  EXPECT_NE(message(good, bad, false, o).find("right catalog: row 3"), std::string::npos);
  EXPECT_NE(message(bad, bad, true, o).find("catalog: row 3"), std::string::npos);
  Options fine = o;
  fine.order = 20;
  fine.search = Search::Neighbours;
  EXPECT_NE(message(good, good, true, fine).find("too fine"), std::string::npos);
  EXPECT_NE(message(good, good, false, fine).find("narrower than the radius"), std::string::npos);
}
