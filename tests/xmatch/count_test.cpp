// `--count` without the pairs: the squared-chord bin edges the GPU uses give the host's bins
// (count_bins.hpp), and the counts of PartitionChunks::count, count_pairs and count_sorted (the
// catalogs sorted by pixel, sorted_count.hpp) equal those of the pairs binned on the host, on the
// CPU and (skipped without a device) on the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "xmatch/count_bins.hpp"
#include "xmatch/sorted_count.hpp"

using namespace celeris::xmatch;
namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);

// Rows over the sphere, plus two dense spots (a square across RA 0, a cap at the north pole) a
// quarter of the rows each, where a row has about 20 others within `radius_arcsec`.
SkyPoints sky(std::mt19937_64& rng, size_t n, double radius_arcsec) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints p;
  const double spot = radius_arcsec / 3600.0 * std::sqrt(double(n) / 4 * hp::pi / 20);
  for (size_t k = 0; k < n; ++k) {
    double ra, dec;
    if (k % 4 == 0) {
      ra = std::fmod(360 - spot / 2 + spot * u(rng), 360.0);
      dec = -30 + spot * u(rng);
    } else if (k % 4 == 1) {
      ra = 360 * u(rng);
      dec = 90 - spot / std::sqrt(hp::pi) * std::sqrt(u(rng));
    } else {
      ra = 360 * u(rng);
      dec = std::asin(2 * u(rng) - 1) / hp::pi * 180;
    }
    p.ra.push_back(ra);
    p.dec.push_back(dec);
  }
  return p;
}

void expect_same_count(const PairCount& got, const PairCount& want, const std::string& what) {
  EXPECT_EQ(got.pairs, want.pairs) << what;
  ASSERT_EQ(got.histogram.size(), want.histogram.size()) << what;
  for (size_t b = 0; b < want.histogram.size(); ++b)
    EXPECT_EQ(got.histogram[b], want.histogram[b]) << what << ", bin " << b;
}

// The rows an MPI rank holds for chunks [first, last) after the exchange: the chunks' left rows
// and every right row of their pixels and those pixels' neighbours; a self-match's left rows as
// positions in the right rows.
PartitionRows partition_rows(const SkyPoints& a, const SkyPoints& b, const ChunkPlan& plan,
                             size_t first, size_t last) {
  PartitionRows rows;
  if (first >= last) return rows;
  const ChunkCut begin = plan.chunks[first].begin, end = plan.chunks[last - 1].end;
  std::vector<uint64_t> rank(plan.left_counts.size(), 0);
  std::vector<uint8_t> margin(plan.left_counts.size(), 0);
  std::vector<int64_t> left;
  for (size_t k = 0; k < a.size(); ++k) {
    const int64_t p = hp::radec2pix_nest(plan.order, a.ra[k], a.dec[k]);
    const ChunkCut at{p, rank[size_t(p)]++};
    if (!(begin <= at) || end <= at) continue;
    left.push_back(int64_t(k));
    int64_t nb[9];
    const int n = pixel_and_neighbours(plan.order, p, nb);
    for (int q = 0; q < n; ++q) margin[size_t(nb[q])] = 1;
  }
  for (size_t k = 0; k < b.size(); ++k)
    if (margin[size_t(hp::radec2pix_nest(plan.order, b.ra[k], b.dec[k]))]) {
      rows.right.ra.push_back(b.ra[k]);
      rows.right.dec.push_back(b.dec[k]);
      rows.right_rows.push_back(int64_t(k));
    }
  for (int64_t g : left) {
    if (plan.self) {
      const auto at = std::lower_bound(rows.right_rows.begin(), rows.right_rows.end(), g);
      rows.left_in_right.push_back(uint32_t(at - rows.right_rows.begin()));
    } else {
      rows.left.ra.push_back(a.ra[size_t(g)]);
      rows.left.dec.push_back(a.dec[size_t(g)]);
      rows.left_rows.push_back(g);
    }
  }
  return rows;
}

// The count of a match over `parts` partitions (as `parts` MPI ranks), each PartitionChunks::count
// on `device`, merged.
PairCount partition_count(const SkyPoints& a, const SkyPoints& b, bool self, Options o, int bins,
                          int parts, size_t plan_bytes) {
  const auto la = memory_positions(a), lb = memory_positions(self ? a : b);
  const int order = chunk_order(o);
  const auto lc = pixel_counts(*la, order, "left");
  const auto rc = self ? lc : pixel_counts(*lb, order, "right");
  const ChunkPlan plan =
      plan_chunks(order, lc, rc, self, std::max(plan_bytes, min_chunk_bytes(order, lc, rc)));
  const std::vector<size_t> bounds = split_chunks(plan, parts);
  PairCount total(o.radius_arcsec, bins);
  for (int k = 0; k < parts; ++k) {
    const size_t first = bounds[size_t(k)], last = bounds[size_t(k) + 1];
    const PartitionRows rows = partition_rows(a, self ? a : b, plan, first, last);
    PartitionChunks chunks(rows, plan, first, last, o);
    PairCount c(o.radius_arcsec, bins);
    chunks.count(c);
    total.merge(c);
  }
  return total;
}

PairCount reference_count(const SkyPoints& a, const SkyPoints& b, bool self, double radius,
                          int bins) {
  PairCount c(radius, bins);
  Options o;
  o.radius_arcsec = radius;
  c.add(self ? self_pairs(a, o) : match_pairs(a, b, o));
  return c;
}

}  // namespace

// Every edge is where the host's bin steps up: the double below it is in a lower bin, and over
// thousands of ulps around it, and at random chords, the count of edges at or below a chord is
// the host's bin of that chord's separation.
TEST(XMatchCountBins, EdgesGiveTheHostBin) {
  std::mt19937_64 rng(5);
  for (double radius : {0.0005, 2.0, 20.16, 0.0056 * 3600, 3600.0, 90 * 3600.0}) {
    for (size_t bins : {size_t(1), size_t(2), size_t(7), size_t(20), size_t(1000)}) {
      SCOPED_TRACE(std::to_string(radius) + " arcsec, " + std::to_string(bins) + " bins");
      const std::vector<double> starts = detail::chord2_bin_starts(radius, bins);
      ASSERT_EQ(starts.size(), bins - 1);
      const double lim2 = hp::chord2_of_angle(radius * kArcsec);
      for (size_t k = 0; k + 1 < bins; ++k) {
        const double s = starts[k];
        ASSERT_TRUE(std::isfinite(s) && s <= lim2) << k;
        ASSERT_EQ(detail::chord2_bin(s, radius, bins), k + 1) << k;
        ASSERT_LT(detail::chord2_bin(std::nextafter(s, 0.0), radius, bins), k + 1) << k;
        if (k > 0) ASSERT_LT(starts[k - 1], s);
        double lo = s, hi = s;
        for (int u = 0; u < (bins > 100 ? 200 : 3000); ++u) {
          lo = std::nextafter(lo, 0.0);
          hi = std::nextafter(hi, 8.0);
          ASSERT_EQ(detail::bin_of(starts, lo), detail::chord2_bin(lo, radius, bins)) << lo;
          ASSERT_EQ(detail::bin_of(starts, hi), detail::chord2_bin(hi, radius, bins)) << hi;
        }
      }
      std::uniform_real_distribution<double> u(0.0, lim2);
      for (int t = 0; t < 20000; ++t) {
        const double c2 = t == 0 ? lim2 : t == 1 ? 0.0 : u(rng);
        ASSERT_EQ(detail::bin_of(starts, c2), detail::chord2_bin(c2, radius, bins)) << c2;
      }
      // A pair at the radius is in the last bin, as PairCount::add puts it.
      EXPECT_EQ(detail::bin_of(starts, lim2), bins - 1);
    }
  }
}

// The histogram rule itself: what PairCount::add does with a separation.
TEST(XMatchCountBins, HistogramBinIsPairCountAdd) {
  PairCount c(10.0, 4);
  for (double sep : {0.0, 2.4999, 2.5, 5.0, 9.9999, 10.0, 10.0000001}) c.add(Pair{0, 1, sep});
  EXPECT_EQ(c.pairs, 7u);
  EXPECT_EQ(c.histogram, (std::vector<uint64_t>{2, 1, 1, 3}));
  EXPECT_EQ(detail::histogram_bin(2.5, 10.0, 4), 1u);
  EXPECT_EQ(detail::histogram_bin(10.0, 10.0, 4), 3u);
}

// On the CPU, PartitionChunks::count over 1, 2 and 4 partitions and count_pairs give the pairs'
// own counts.
TEST(XMatchCountBins, CpuCountsArePairCounts) {
  std::mt19937_64 rng(6);
  const SkyPoints a = sky(rng, 4000, 20), b = sky(rng, 3000, 20);
  for (bool self : {false, true}) {
    const PairCount want = reference_count(a, b, self, 20, 9);
    ASSERT_GT(want.pairs, 1000u);
    Options o;
    o.radius_arcsec = 20;
    for (int parts : {1, 2, 4}) {
      const PairCount got = partition_count(a, b, self, o, 9, parts, 200000);
      expect_same_count(got, want, std::string(self ? "self, " : "") + std::to_string(parts));
    }
    PairCount c(20, 9);
    count_pairs(a, b, self, o, c);
    expect_same_count(c, want, self ? "count_pairs self" : "count_pairs");
  }
}

// On the GPU: counted on the device (no pairs written) equal to the CPU's pairs binned on the
// host, for several radii and bin counts (shared-memory and global histograms), whole catalogs
// and catalogs cut into runs by a small device-memory bound, over 1, 2 and 4 partitions (as MPI
// ranks would hold them).
TEST(XMatchCuda, CountSameAsCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(7);
  for (double radius : {2.0, 20.16, 300.0}) {
    const SkyPoints a = sky(rng, 150000, radius), b = sky(rng, 100000, radius);
    for (bool self : {false, true}) {
      for (int bins : {20, 5000}) {
        const std::string what = std::to_string(radius) + " arcsec, " + (self ? "self, " : "") +
                                 std::to_string(bins) + " bins";
        const PairCount want = reference_count(a, b, self, radius, bins);
        ASSERT_GT(want.pairs, 10000u) << what;
        Options o;
        o.radius_arcsec = radius;
        o.backend = celeris::Backend::Cuda;
        PairCount whole(radius, bins);
        count_pairs(a, b, self, o, whole);
        expect_same_count(whole, want, what + ", whole");
        // 20 MiB: runs of a few chunks (count_pairs plans chunks of a quarter of it).
        o.device_memory = size_t(20) << 20;
        PairCount runs(radius, bins);
        count_pairs(a, b, self, o, runs);
        expect_same_count(runs, want, what + ", 20 MiB runs");
        o.device_memory = 0;
        for (int parts : {1, 2, 4})
          expect_same_count(partition_count(a, b, self, o, bins, parts, 2000000), want,
                            what + ", " + std::to_string(parts) + " partitions");
      }
    }
  }
}

// pixel_sorted: the rows in (pixel, row) order, the pixel offsets those of the pixels' counts.
TEST(XMatchSortedCount, PixelSortedIsStableByPixel) {
  std::mt19937_64 rng(8);
  const SkyPoints a = sky(rng, 20000, 20);
  for (int order : {0, 3, 7}) {
    const PixelSorted s = pixel_sorted(a, order);
    ASSERT_EQ(s.size(), a.size());
    ASSERT_EQ(s.start.size(), size_t(hp::npix(order)) + 1);
    std::vector<size_t> want(a.size());
    std::iota(want.begin(), want.end(), size_t(0));
    auto pix = [&](size_t k) { return hp::radec2pix_nest(order, a.ra[k], a.dec[k]); };
    std::stable_sort(want.begin(), want.end(), [&](size_t x, size_t y) { return pix(x) < pix(y); });
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(s.ra[k], a.ra[want[k]]) << order << ", " << k;
      ASSERT_EQ(s.dec[k], a.dec[want[k]]) << order << ", " << k;
      const int64_t p = pix(want[k]);
      ASSERT_LE(s.start[size_t(p)], k);
      ASSERT_LT(k, s.start[size_t(p) + 1]);
    }
  }
  const PixelSorted none = pixel_sorted(SkyPoints{}, 2);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.start, std::vector<uint64_t>(size_t(hp::npix(2)) + 1, 0));
}

// A bad position is one line naming the side and the 1-based row; a catalog sorted at another
// order than the radius's chunk order, or a --find other than all, is refused.
TEST(XMatchSortedCount, BadInput) {
  SkyPoints a;
  a.ra = {10, 20, 30, 40};
  a.dec = {0, 0, std::nan(""), 95};
  try {
    pixel_sorted(a, 3, "left catalog");
    FAIL() << "no error";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("left catalog: row 3"), std::string::npos) << e.what();
  }
  a.dec[2] = 0;
  a.dec[3] = 0;
  Options o;
  o.radius_arcsec = 20;
  const PixelSorted wrong = pixel_sorted(a, 2);
  PairCount c(20, 4);
  EXPECT_THROW(count_sorted(wrong, nullptr, o, c), celeris::Error);
  const PixelSorted right = pixel_sorted(a, chunk_order(o));
  o.find = Find::Best;
  EXPECT_THROW(count_sorted(right, nullptr, o, c), celeris::Error);
}

// On the CPU: count_sorted over runs of many sizes (down to chunks that split the dense spots'
// pixels) gives the pairs' own counts, self-match and two catalogs, an empty side counting none.
TEST(XMatchSortedCount, CpuCountsArePairCounts) {
  std::mt19937_64 rng(9);
  const SkyPoints a = sky(rng, 6000, 20), b = sky(rng, 4000, 20);
  Options o;
  o.radius_arcsec = 20;
  const int order = chunk_order(o);
  const PixelSorted sa = pixel_sorted(a, order), sb = pixel_sorted(b, order);
  for (bool self : {false, true}) {
    const PairCount want = reference_count(a, b, self, 20, 9);
    ASSERT_GT(want.pairs, 1000u);
    for (size_t bytes : {size_t(0), size_t(2000000), size_t(200000), size_t(1)}) {
      PairCount got(20, 9);
      SortedCountStats stats;
      count_sorted(sa, self ? nullptr : &sb, o, got, &stats, bytes);
      expect_same_count(got, want,
                        std::string(self ? "self, " : "") + std::to_string(bytes) + " bytes");
      if (bytes == 1) EXPECT_GT(stats.runs, 10u);
    }
  }
  const PixelSorted empty = pixel_sorted(SkyPoints{}, order);
  PairCount zero(20, 9);
  count_sorted(sa, &empty, o, zero);
  count_sorted(empty, nullptr, o, zero);
  EXPECT_EQ(zero.pairs, 0u);
}

// On the GPU: count_sorted's runs (uploaded straight from the sorted arrays, a self-match's left
// rows a range of its right rows) equal the CPU's pairs binned on the host, with one run and with
// runs cut by a small device budget.
TEST(XMatchCuda, SortedCountSameAsCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(10);
  for (double radius : {2.0, 20.16}) {
    const SkyPoints a = sky(rng, 150000, radius), b = sky(rng, 100000, radius);
    Options o;
    o.radius_arcsec = radius;
    o.backend = celeris::Backend::Cuda;
    const int order = chunk_order(o);
    const PixelSorted sa = pixel_sorted(a, order), sb = pixel_sorted(b, order);
    for (bool self : {false, true}) {
      for (int bins : {20, 5000}) {
        const PairCount want = reference_count(a, b, self, radius, bins);
        ASSERT_GT(want.pairs, 10000u);
        for (size_t bytes : {size_t(0), size_t(20) << 20, size_t(16) << 20}) {
          PairCount got(radius, bins);
          SortedCountStats stats;
          count_sorted(sa, self ? nullptr : &sb, o, got, &stats, bytes);
          expect_same_count(got, want,
                            std::to_string(radius) + " arcsec, " + (self ? "self, " : "") +
                                std::to_string(bins) + " bins, " + std::to_string(bytes) +
                                " bytes, " + std::to_string(stats.runs) + " runs");
        }
      }
    }
  }
}

// count_sorted_part over 1, 2, 3 and 5 parts, each holding only its pixels' rows and their
// neighbours' (as an MPI rank that generates or reads only those), summed: the self-match's count.
TEST(XMatchSortedCount, PartsSumToTheWhole) {
  std::mt19937_64 rng(12);
  const SkyPoints a = sky(rng, 6000, 20);
  Options o;
  o.radius_arcsec = 20;
  const int order = chunk_order(o);
  const int64_t npix = hp::npix(order);
  const PairCount want = reference_count(a, a, true, 20, 9);
  ASSERT_GT(want.pairs, 1000u);
  for (int parts : {1, 2, 3, 5}) {
    PairCount total(20, 9);
    for (int k = 0; k < parts; ++k) {
      const int64_t first = npix * k / parts, end = npix * (k + 1) / parts;
      std::vector<uint8_t> held(size_t(npix), 0);
      for (int64_t p = first; p < end; ++p) {
        int64_t nb[9];
        const int n = pixel_and_neighbours(order, p, nb);
        for (int q = 0; q < n; ++q) held[size_t(nb[q])] = 1;
      }
      SkyPoints mine;
      for (size_t r = 0; r < a.size(); ++r)
        if (held[size_t(hp::radec2pix_nest(order, a.ra[r], a.dec[r]))]) {
          mine.ra.push_back(a.ra[r]);
          mine.dec.push_back(a.dec[r]);
        }
      PairCount c(20, 9);
      count_sorted_part(pixel_sorted(mine, order), first, end, o, c, nullptr, 200000);
      total.merge(c);
    }
    expect_same_count(total, want, std::to_string(parts) + " parts");
  }
}
