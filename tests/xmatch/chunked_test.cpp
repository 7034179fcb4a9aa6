// Larger than memory: chunked_pairs under a tiny memory bound (many HEALPix chunks) gives the same
// pairs as the in-memory join and the O(N*M) brute force (poles, RA wrap, exact duplicates,
// self-match), from memory and from FITS read block by block; memory sizes; the Table III
// density model of the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

using namespace celeris::xmatch;
namespace fs = std::filesystem;

namespace {

constexpr double kDeg = celeris::healpix::pi / 180.0;

// Uniform on the sphere (half the rows), plus crowds at both poles and across RA 0/360, plus
// exact duplicates.
SkyPoints mixed(std::mt19937_64& rng, size_t n, double radius_arcsec) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints p;
  const double spread = 4 * radius_arcsec / 3600.0;
  for (size_t k = 0; k < n; ++k) {
    double ra, dec;
    switch (k % 8) {
      case 0:  // north pole
        dec = 90 - spread * u(rng);
        ra = 360 * u(rng);
        break;
      case 1:  // south pole
        dec = -90 + spread * u(rng);
        ra = 360 * u(rng);
        break;
      case 2:  // across RA 0/360 on the equator
        dec = spread * (2 * u(rng) - 1);
        ra = std::fmod(360 + spread * (2 * u(rng) - 1), 360.0);
        break;
      case 3:  // exact duplicate of an earlier row
        if (k > 5) {
          p.ra.push_back(p.ra[k / 3]);
          p.dec.push_back(p.dec[k / 3]);
          continue;
        }
        [[fallthrough]];
      default:  // anywhere
        ra = 360 * u(rng);
        dec = std::asin(2 * u(rng) - 1) / kDeg;
    }
    p.ra.push_back(ra);
    p.dec.push_back(std::clamp(dec, -90.0, 90.0));
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

// chunked_pairs with a bound of about an eighth of the whole working set (doubled until the rows
// around every coarse pixel fit), so that there are many chunks.
// (A bound that is too small fails while planning, before any progress report.)
std::vector<Pair> chunked_tiny(const PositionSource& l, const PositionSource& r, bool self,
                               const Options& o, ChunkStats& stats,
                               const std::function<void(size_t, size_t)>& progress = {}) {
  const size_t whole = l.rows() * chunk_bytes_per_left_row + r.rows() * chunk_bytes_per_right_row;
  for (size_t bound = std::max<size_t>(4096, whole / 8);; bound *= 2) {
    try {
      return chunked_pairs(l, r, self, o, bound, progress, &stats);
    } catch (const celeris::Error&) {
      if (bound > (size_t(1) << 30)) throw;
    }
  }
}

}  // namespace

TEST(XMatchChunked, SameAsInMemoryAndBruteForce) {
  std::mt19937_64 rng(5);
  for (double radius : {0.5, 2.0, 60.0, 3600.0}) {
    const SkyPoints a = mixed(rng, 2500, radius), b = mixed(rng, 2000, radius);
    Options o;
    o.radius_arcsec = radius;
    const auto la = memory_positions(a), lb = memory_positions(b);
    ChunkStats stats;
    const auto got = chunked_tiny(*la, *lb, false, o, stats);
    EXPECT_GE(stats.chunks, 4u) << radius;
    const auto want = brute_force_pairs(a, b, radius, false);
    ASSERT_FALSE(want.empty()) << radius;
    expect_same_pairs(got, want, "brute force, radius " + std::to_string(radius));
    expect_same_pairs(got, match_pairs(a, b, o), "in memory, radius " + std::to_string(radius));

    const auto self_got = chunked_tiny(*la, *la, true, o, stats);
    EXPECT_GE(stats.chunks, 4u) << radius;
    expect_same_pairs(self_got, brute_force_pairs(a, a, radius, true),
                      "self, radius " + std::to_string(radius));
  }
}

// A crowded field: all left rows in one coarse pixel, split over several chunks, each with the
// pixel's right rows and its neighbours'.
TEST(XMatchChunked, CrowdedPixelIsSplit) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a, b;
  for (int k = 0; k < 4000; ++k) {  // a 0.02 deg patch around (0.01, 30), across RA 0
    a.ra.push_back(std::fmod(359.99 + 0.02 * u(rng), 360.0));
    a.dec.push_back(30 + 0.02 * u(rng));
  }
  for (int k = 0; k < 300; ++k) {
    b.ra.push_back(std::fmod(359.99 + 0.02 * u(rng), 360.0));
    b.dec.push_back(30 + 0.02 * u(rng));
  }
  Options o;
  o.radius_arcsec = 5;
  const auto la = memory_positions(a), lb = memory_positions(b);
  ChunkStats stats;
  // Room for the 300 right rows and ~600 left rows per chunk.
  const auto got = chunked_pairs(*la, *lb, false, o, 300 * 128 + 600 * 64, {}, &stats);
  EXPECT_GE(stats.chunks, 6u);
  expect_same_pairs(got, brute_force_pairs(a, b, 5, false), "crowded");
  const auto self_got = chunked_pairs(*la, *la, true, o, 4000 * 128 + 600 * 64, {}, &stats);
  EXPECT_GE(stats.chunks, 6u);
  expect_same_pairs(self_got, brute_force_pairs(a, a, 5, true), "crowded self");
}

// What each MPI rank runs: the plan split into parts (split_chunks), each part's pairs from
// match_chunk_range; their union is the brute force, each pair once, for 1 to 7 parts, with a
// crowded pixel (the RA 0 patch) split over several chunks and parts.
TEST(XMatchChunked, PartsOfThePlanCoverEveryPairOnce) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a = mixed(rng, 3000, 5.0), b = mixed(rng, 1500, 5.0);
  for (int k = 0; k < 2000; ++k) {  // crowded: a 0.01 deg patch across RA 0 (left side only)
    a.ra.push_back(std::fmod(359.995 + 0.01 * u(rng), 360.0));
    a.dec.push_back(-20 + 0.01 * u(rng));
  }
  Options o;
  o.radius_arcsec = 5;
  const auto la = memory_positions(a), lb = memory_positions(b);
  for (bool self : {false, true}) {
    const PositionSource& right = self ? *la : *lb;
    const int order = chunk_order(o);
    auto lc = pixel_counts(*la, order, "left");
    auto rc = self ? lc : pixel_counts(right, order, "right");
    const size_t least = min_chunk_bytes(order, lc, rc);
    EXPECT_THROW(plan_chunks(order, lc, rc, self, least - 1), celeris::Error);
    const ChunkPlan plan = plan_chunks(order, lc, rc, self, least + least / 4);
    size_t split_pixels = 0;
    for (const ChunkRange& c : plan.chunks) split_pixels += c.begin.rank > 0;
    EXPECT_GE(split_pixels, 2u) << "the crowded pixel is cut into several chunks";
    const auto want = brute_force_pairs(a, self ? a : b, 5.0, self);
    ASSERT_FALSE(want.empty());
    for (int parts = 1; parts <= 7; ++parts) {
      const std::vector<size_t> bounds = split_chunks(plan, parts);
      ASSERT_EQ(bounds.size(), size_t(parts) + 1);
      ASSERT_EQ(bounds.front(), 0u);
      ASSERT_EQ(bounds.back(), plan.chunks.size());
      std::vector<Pair> all;
      for (int k = 0; k < parts; ++k) {
        ASSERT_LE(bounds[size_t(k)], bounds[size_t(k) + 1]);
        const auto part =
            match_chunk_range(*la, right, o, plan, bounds[size_t(k)], bounds[size_t(k) + 1]);
        all.insert(all.end(), part.begin(), part.end());
      }
      std::sort(all.begin(), all.end(),
                [](const Pair& x, const Pair& y) { return x.i != y.i ? x.i < y.i : x.j < y.j; });
      expect_same_pairs(all, want, (self ? "self, " : "") + std::to_string(parts) + " parts");
    }
  }
}

// What an MPI rank holds after the row exchange: the left rows of chunks [first, last) (by their
// (pixel, rank in pixel) cuts) and the right rows of those rows' pixels and their neighbours, in
// row order. `drop_right` leaves out the first right row of the margin (a broken exchange);
// `in_right` (a self-match) gives the left rows as positions in the right rows, as the MPI
// exchange does.
PartitionRows exchanged_rows(const SkyPoints& a, const SkyPoints& b, const ChunkPlan& plan,
                             size_t first, size_t last, bool drop_right = false,
                             bool in_right = false) {
  PartitionRows rows;
  if (first >= last) return rows;
  const ChunkCut begin = plan.chunks[first].begin, end = plan.chunks[last - 1].end;
  std::vector<uint64_t> rank(plan.left_counts.size(), 0);
  std::vector<uint8_t> margin(plan.left_counts.size(), 0);
  for (size_t k = 0; k < a.size(); ++k) {
    const int64_t p = celeris::healpix::radec2pix_nest(plan.order, a.ra[k], a.dec[k]);
    const ChunkCut at{p, rank[size_t(p)]++};
    if (!(begin <= at) || end <= at) continue;
    rows.left.ra.push_back(a.ra[k]);
    rows.left.dec.push_back(a.dec[k]);
    rows.left_rows.push_back(int64_t(k));
    int64_t nb[9];
    const int n = pixel_and_neighbours(plan.order, p, nb);
    for (int q = 0; q < n; ++q) margin[size_t(nb[q])] = 1;
  }
  for (size_t k = 0; k < b.size(); ++k)
    if (margin[size_t(celeris::healpix::radec2pix_nest(plan.order, b.ra[k], b.dec[k]))]) {
      if (drop_right) {
        drop_right = false;
        continue;
      }
      rows.right.ra.push_back(b.ra[k]);
      rows.right.dec.push_back(b.dec[k]);
      rows.right_rows.push_back(int64_t(k));
    }
  if (in_right) {
    for (int64_t g : rows.left_rows) {
      const auto at = std::lower_bound(rows.right_rows.begin(), rows.right_rows.end(), g);
      EXPECT_TRUE(at != rows.right_rows.end() && *at == g);
      rows.left_in_right.push_back(uint32_t(at - rows.right_rows.begin()));
    }
    rows.left = SkyPoints{};
    rows.left_rows.clear();
  }
  return rows;
}

// An MPI rank's chunks matched one at a time from its exchanged rows (PartitionChunks): each
// chunk's pairs equal match_chunk_range's for that chunk, and the union over the parts is the
// brute force, for 1 to 5 parts, with the crowded pixel cut over several chunks and parts.
TEST(XMatchChunked, PartitionChunksFromExchangedRows) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a = mixed(rng, 3000, 5.0), b = mixed(rng, 1500, 5.0);
  for (int k = 0; k < 2000; ++k) {  // crowded: a 0.01 deg patch across RA 0 (left side only)
    a.ra.push_back(std::fmod(359.995 + 0.01 * u(rng), 360.0));
    a.dec.push_back(-20 + 0.01 * u(rng));
  }
  Options o;
  o.radius_arcsec = 5;
  const auto la = memory_positions(a), lb = memory_positions(b);
  for (bool self : {false, true}) {
    const SkyPoints& r = self ? a : b;
    const PositionSource& right = self ? *la : *lb;
    const int order = chunk_order(o);
    auto lc = pixel_counts(*la, order, "left");
    auto rc = self ? lc : pixel_counts(right, order, "right");
    const size_t least = min_chunk_bytes(order, lc, rc);
    const ChunkPlan plan = plan_chunks(order, lc, rc, self, least + least / 4);
    ASSERT_GE(plan.chunks.size(), 4u);  // several chunks a part for 1 and 2 parts
    const auto want = brute_force_pairs(a, r, 5.0, self);
    for (int parts = 1; parts <= 5; ++parts) {
      const std::vector<size_t> bounds = split_chunks(plan, parts);
      std::vector<Pair> all;
      for (int k = 0; k < parts; ++k) {
        const size_t first = bounds[size_t(k)], last = bounds[size_t(k) + 1];
        // A self-match's left rows also as positions in the right rows (odd part counts).
        const PartitionRows rows =
            exchanged_rows(a, r, plan, first, last, false, self && parts % 2 == 1);
        PartitionChunks chunks(rows, plan, first, last, o);
        ASSERT_EQ(chunks.size(), last - first);
        ChunkStats stats;
        for (size_t c = 0; c < chunks.size(); ++c) {
          const auto got = chunks.match(c, &stats);
          const std::string what = (self ? "self, " : "") + std::to_string(parts) +
                                   " parts, chunk " + std::to_string(first + c);
          expect_same_pairs(got, match_chunk_range(*la, right, o, plan, first + c, first + c + 1),
                            what);
          all.insert(all.end(), got.begin(), got.end());
        }
        EXPECT_EQ(stats.chunks, last - first);
      }
      std::sort(all.begin(), all.end(),
                [](const Pair& x, const Pair& y) { return x.i != y.i ? x.i < y.i : x.j < y.j; });
      expect_same_pairs(all, want, (self ? "self, " : "") + std::to_string(parts) + " parts");
    }
    // Rows that are not the partition's are refused, not matched into a wrong result.
    const std::vector<size_t> bounds = split_chunks(plan, 2);
    const PartitionRows whole = exchanged_rows(a, r, plan, 0, plan.chunks.size());
    EXPECT_THROW(PartitionChunks(whole, plan, bounds[0], bounds[1], o), celeris::Error);
    if (self) {
      const PartitionRows whole_in_right =
          exchanged_rows(a, r, plan, 0, plan.chunks.size(), false, true);
      EXPECT_THROW(PartitionChunks(whole_in_right, plan, bounds[0], bounds[1], o), celeris::Error);
    }
    const PartitionRows short_margin = exchanged_rows(a, r, plan, bounds[0], bounds[1], true);
    PartitionChunks broken(short_margin, plan, bounds[0], bounds[1], o);
    bool threw = false;
    for (size_t c = 0; c < broken.size() && !threw; ++c) {
      try {
        broken.match(c);
      } catch (const celeris::Error&) {
        threw = true;
      }
    }
    EXPECT_TRUE(threw) << "a margin pixel missing a right row";
  }
}

// Parts of nearly equal cost: no part more than one chunk above an equal share.
TEST(XMatchChunked, SplitBalancesCost) {
  ChunkPlan plan;
  for (uint64_t k = 0; k < 100; ++k)
    plan.chunks.push_back(ChunkRange{{int64_t(k), 0}, {int64_t(k + 1), 0}, 10 + k % 7, 5});
  uint64_t total = 0, largest = 0;
  auto cost = [](const ChunkRange& c) {
    return c.left_rows * chunk_bytes_per_left_row + c.right_rows * chunk_bytes_per_right_row;
  };
  for (const auto& c : plan.chunks) {
    total += cost(c);
    largest = std::max(largest, cost(c));
  }
  for (int parts : {1, 2, 3, 4, 8, 100, 150}) {
    const auto bounds = split_chunks(plan, parts);
    for (int k = 0; k < parts; ++k) {
      uint64_t sum = 0;
      for (size_t c = bounds[size_t(k)]; c < bounds[size_t(k) + 1]; ++c)
        sum += cost(plan.chunks[c]);
      EXPECT_LE(double(sum), double(total) / parts + largest) << parts << " parts, part " << k;
    }
  }
  EXPECT_THROW(split_chunks(plan, 0), celeris::Error);
}

// --count: integer bins over [0, radius], partial counts add up.
TEST(XMatchCount, HistogramBinsAndMerge) {
  PairCount c(10.0, 5), d(10.0, 5);
  c.add(Pair{0, 1, 0.0});
  c.add(Pair{0, 2, 1.999});
  c.add(Pair{0, 3, 2.0});
  d.add(Pair{1, 3, 10.0});  // at the radius: the last bin
  d.add(Pair{1, 4, 9.99});
  c.merge(d);
  EXPECT_EQ(c.pairs, 5u);
  EXPECT_EQ(c.histogram, (std::vector<uint64_t>{2, 1, 0, 0, 2}));
  EXPECT_EQ(format_count(c).substr(0, 8), "pairs 5\n");
  EXPECT_THROW(c.merge(PairCount(10.0, 4)), celeris::Error);
  EXPECT_THROW(PairCount(10.0, 0), celeris::Error);
}

TEST(XMatchChunked, ProgressCountsEveryLeftRow) {
  std::mt19937_64 rng(6);
  const SkyPoints a = mixed(rng, 3000, 30.0);
  Options o;
  o.radius_arcsec = 30;
  const auto src = memory_positions(a);
  size_t last = 0, calls = 0;
  ChunkStats stats;
  chunked_tiny(*src, *src, true, o, stats, [&](size_t done, size_t total) {
    EXPECT_GE(done, last);
    EXPECT_EQ(total, a.size());
    last = done;
    ++calls;
  });
  EXPECT_GE(stats.chunks, 4u);
  EXPECT_EQ(last, a.size());
  EXPECT_EQ(calls, stats.chunks);
}

TEST(XMatchChunked, FitsReadBlockByBlock) {
  std::mt19937_64 rng(7);
  const SkyPoints a = mixed(rng, 3000, 20.0), b = mixed(rng, 2500, 20.0);
  const fs::path dir = fs::temp_directory_path() / "celeris_xmatch_chunked_fits";
  fs::create_directories(dir);
  auto write = [&](const SkyPoints& p, const std::string& name) {
    celeris::Table t;
    t.rows = p.size();
    t.columns.push_back({"ALPHA_J2000", "deg", "", celeris::ColumnType::Float64, 1, "", p.ra});
    t.columns.push_back({"DELTA_J2000", "deg", "", celeris::ColumnType::Float64, 1, "", p.dec});
    const std::string path = (dir / name).string();
    write_catalog(path, t);
    return path;
  };
  const std::string fa = write(a, "a.fits"), fb = write(b, "b.fits");
  // Block sizes that do not divide the row counts; column names in another case.
  const auto sa = fits_positions(fa, "alpha_j2000", "delta_j2000", 77);
  const auto sb = fits_positions(fb, "ALPHA_J2000", "DELTA_J2000", 1000);
  EXPECT_EQ(sa->rows(), a.size());
  Options o;
  o.radius_arcsec = 20;
  ChunkStats stats;
  expect_same_pairs(chunked_tiny(*sa, *sb, false, o, stats), brute_force_pairs(a, b, 20, false),
                    "fits");
  EXPECT_GE(stats.chunks, 4u);
  EXPECT_THROW(fits_positions(fa, "RA", "DEC", 10), celeris::Error);
  // Row slices (an MPI rank's share): FITS, memory and the default (scan and clip) give the
  // rows asked for, in order, once.
  struct ScanOnly final : PositionSource {
    const SkyPoints& p;
    explicit ScanOnly(const SkyPoints& q) : p(q) {}
    size_t rows() const override { return p.size(); }
    void scan(const Visit& visit) const override {
      for (size_t b = 0; b < p.size(); b += 100)
        visit(b, p.ra.data() + b, p.dec.data() + b, std::min<size_t>(100, p.size() - b));
    }
  } scan_only(a);
  const auto ma = memory_positions(a);
  for (const PositionSource* src :
       {static_cast<const PositionSource*>(sa.get()), static_cast<const PositionSource*>(ma.get()),
        static_cast<const PositionSource*>(&scan_only)})
    for (auto [first, count] :
         {std::pair<size_t, size_t>{0, 3000}, {5, 150}, {2999, 1}, {1234, 0}, {2900, 500}}) {
      std::vector<size_t> got;
      src->scan_rows(first, count, [&](size_t f, const double* ra, const double* dec, size_t n) {
        for (size_t k = 0; k < n; ++k) {
          got.push_back(f + k);
          ASSERT_EQ(ra[k], a.ra[f + k]);
          ASSERT_EQ(dec[k], a.dec[f + k]);
        }
      });
      const size_t end = std::min<size_t>(first + count, a.size());
      ASSERT_EQ(got.size(), end - first) << first << "+" << count;
      for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], first + k);
    }
  fs::remove_all(dir);
}

TEST(XMatchChunked, BadInput) {
  SkyPoints a;
  a.ra = {10, 20, 30};
  a.dec = {0, 91, 0};  // row 2 out of range
  Options o;
  o.radius_arcsec = 2;
  const auto src = memory_positions(a);
  try {
    chunked_pairs(*src, *src, true, o, 1 << 20);
    FAIL() << "no error";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  a.dec = {0, 0, 0};
  EXPECT_THROW(chunked_pairs(*src, *src, true, o, 100), celeris::Error);  // a right row: 128 B
}

TEST(XMatchChunked, MemorySizes) {
  EXPECT_EQ(parse_memory_size("2G"), size_t(2) << 30);
  EXPECT_EQ(parse_memory_size("500M"), size_t(500) << 20);
  EXPECT_EQ(parse_memory_size("64k"), size_t(64) << 10);
  EXPECT_EQ(parse_memory_size("1.5GB"), size_t(3) << 29);
  EXPECT_EQ(parse_memory_size("1000"), 1000u);
  EXPECT_THROW(parse_memory_size("lots"), celeris::Error);
  EXPECT_THROW(parse_memory_size("5Q"), celeris::Error);
  EXPECT_THROW(parse_memory_size("-1G"), celeris::Error);
}

// The simulator's density model: a self-match of a simulated catalog gives the matches per row
// asked for (the Table III mechanism, at a smaller size).
TEST(XMatchSimulate, MatchesPerRowAsAsked) {
  CatalogParams p;
  p.rows = 150000;
  p.dec_min = -0.2;
  p.dec_max = 0.2;
  p.seed = 9;
  const double radius = 20.16, want = 6.0;
  p.repeats = repeats_for_matches(p.rows, p.dec_min, p.dec_max, radius, want);
  EXPECT_NEAR(expected_matches(p.rows, p.dec_min, p.dec_max, radius, p.repeats), want, 1e-9);
  const celeris::Table t = simulate_catalog(p);
  SkyPoints pts;
  pts.ra = t.columns[2].values;
  pts.dec = t.columns[3].values;
  Options o;
  o.radius_arcsec = radius;
  const double got = 1.0 + 2.0 * double(self_pairs(pts, o).size()) / double(p.rows);
  EXPECT_NEAR(got, want, 0.03 * want);
  EXPECT_EQ(table3_params("d25").rows, 25000000u);
  EXPECT_THROW(table3_params("d7"), celeris::Error);
  // Denser than asked: the background alone exceeds 1.5 matches per row.
  EXPECT_THROW(repeats_for_matches(p.rows, -0.01, 0.01, radius, 1.5), celeris::Error);
}
