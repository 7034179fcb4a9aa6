// A partition's chunks matched one at a time from rows already in memory (an MPI rank's after the
// row exchange). The rows are bucketed by coarse pixel once; each chunk takes its left rows (a run
// of (pixel, rank) cuts) and the right rows of its pixels and their neighbours from the buckets,
// so no chunk rescans the partition, and only one chunk's rows and pairs exist at a time: a rank
// counting 9 billion pairs never holds more than its current chunk's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

namespace hp = celeris::healpix;

namespace {

// Local rows grouped by coarse pixel: the rows of pixel p are index[start[p] .. start[p + 1]),
// in local (= global) row order. 32-bit local rows (4 B a row): a rank's exchange already stops
// at 2^31 rows.
struct Buckets {
  std::vector<uint64_t> start;
  std::vector<uint32_t> index;
  uint64_t count(int64_t p) const { return start[size_t(p) + 1] - start[size_t(p)]; }
};

// `at(k)` gives local row k's position (RA, Dec) of n rows.
template <class At>
Buckets bucket_by_pixel(size_t n, At at, int order) {
  if (n > size_t(UINT32_MAX)) throw Error("a partition of more than 2^32 rows: use more ranks");
  std::vector<int32_t> pix(n);  // coarse orders <= 7: below 2^31 pixels
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < int64_t(n); ++k) {
    const auto [ra, dec] = at(size_t(k));
    pix[size_t(k)] = int32_t(hp::radec2pix_nest(order, ra, dec));
  }
  Buckets b;
  const int64_t npix = hp::npix(order);
  b.start.assign(size_t(npix) + 1, 0);
  for (int32_t p : pix) ++b.start[size_t(p) + 1];
  for (int64_t p = 0; p < npix; ++p) b.start[size_t(p) + 1] += b.start[size_t(p)];
  std::vector<uint64_t> next(b.start.begin(), b.start.end() - 1);
  b.index.resize(n);
  // A counting sort keeps each pixel's rows in row order.
  for (size_t k = 0; k < n; ++k) b.index[next[size_t(pix[k])]++] = uint32_t(k);
  return b;
}

[[noreturn]] void mismatch(const std::string& what, int64_t pix, uint64_t have, uint64_t want) {
  throw Error("partition rows do not match the chunk plan: " + what + " of HEALPix pixel " +
              std::to_string(pix) + ": " + std::to_string(have) + " rows, the plan says " +
              std::to_string(want));
}

}  // namespace

struct PartitionChunks::Impl {
  const PartitionRows& rows;
  const ChunkPlan& plan;
  size_t first, last;
  Options options;
  Buckets left, right;
  ChunkCut begin;               // the partition's first cut
  std::vector<uint32_t> stamp;  // right pixels already taken by the chunk being gathered
  uint32_t mark = 0;

  // Left row k's position and global row (a self-match's left rows may be held in `right`).
  std::pair<double, double> left_at(size_t k) const {
    if (rows.left_in_right.empty()) return {rows.left.ra[k], rows.left.dec[k]};
    const size_t r = rows.left_in_right[k];
    return {rows.right.ra[r], rows.right.dec[r]};
  }
  int64_t left_row(size_t k) const {
    return rows.left_in_right.empty() ? rows.left_rows[k] : rows.right_rows[rows.left_in_right[k]];
  }

  // The left rows of pixel p that chunk cuts [b, e) hold: ranks [lo, hi) among p's left rows.
  std::pair<uint64_t, uint64_t> cut_range(int64_t p, ChunkCut b, ChunkCut e) const {
    const uint64_t lo = p == b.pix ? b.rank : 0;
    const uint64_t hi = p == e.pix ? e.rank : plan.left_counts[size_t(p)];
    return {lo, std::max(lo, hi)};
  }
};

PartitionChunks::PartitionChunks(const PartitionRows& rows, const ChunkPlan& plan, size_t first,
                                 size_t last, const Options& o)
    : impl_(new Impl{rows, plan, first, last, o, {}, {}, {}, {}, 0}) {
  if (rows.left.ra.size() != rows.left.dec.size() || rows.left.size() != rows.left_rows.size() ||
      rows.right.ra.size() != rows.right.dec.size() || rows.right.size() != rows.right_rows.size())
    throw Error("PartitionChunks: positions and row numbers differ in length");
  if (!rows.left_in_right.empty()) {
    if (!plan.self || rows.left.size() != 0)
      throw Error("PartitionChunks: left rows given in `right` are for a self-match only");
    for (size_t k = 0; k < rows.left_in_right.size(); ++k)
      if (rows.left_in_right[k] >= rows.right.size() ||
          (k > 0 && rows.left_in_right[k] <= rows.left_in_right[k - 1]))
        throw Error("PartitionChunks: left rows in `right` out of range or not ascending");
  }
  if (last > plan.chunks.size() || first > last)
    throw Error("PartitionChunks: chunk range out of the plan");
  auto outside = [](uint64_t n) {
    return Error("partition rows do not match the chunk plan: " + std::to_string(n) +
                 " left rows outside the partition's chunks");
  };
  if (first == last) {
    if (rows.left_count() != 0) throw outside(rows.left_count());
    return;
  }
  Impl& m = *impl_;
  m.options.find = Find::All;
  m.options.join = Join::And;
  m.left = bucket_by_pixel(
      rows.left_count(), [&m](size_t k) { return m.left_at(k); }, plan.order);
  m.right = bucket_by_pixel(
      rows.right.size(),
      [&rows](size_t k) {
        return std::pair<double, double>{rows.right.ra[k], rows.right.dec[k]};
      },
      plan.order);
  m.stamp.assign(size_t(hp::npix(plan.order)), 0);
  // Pixel p holds the partition's cuts [lo, hi) of p; in the first pixel they start at the
  // partition's first cut's rank, which match() subtracts to find them in the bucket.
  m.begin = plan.chunks[first].begin;
  const ChunkCut end = plan.chunks[last - 1].end;
  const int64_t last_pix = end.rank > 0 ? end.pix : end.pix - 1;
  uint64_t inside = 0;
  for (int64_t p = m.begin.pix; p <= last_pix; ++p) {
    const auto [lo, hi] = m.cut_range(p, m.begin, end);
    if (m.left.count(p) != hi - lo) mismatch("left rows", p, m.left.count(p), hi - lo);
    inside += hi - lo;
  }
  if (inside != rows.left_count()) throw outside(rows.left_count() - inside);
}

PartitionChunks::~PartitionChunks() = default;

size_t PartitionChunks::size() const {
  return impl_->last - impl_->first;
}

std::vector<Pair> PartitionChunks::match(size_t k, ChunkStats* stats) {
  Impl& m = *impl_;
  if (k >= size()) throw Error("PartitionChunks: chunk index out of range");
  const auto t0 = std::chrono::steady_clock::now();
  const int order = m.plan.order;
  const ChunkCut cb = m.plan.chunks[m.first + k].begin, ce = m.plan.chunks[m.first + k].end;
  const int64_t last_pix = ce.rank > 0 ? ce.pix : ce.pix - 1;
  ++m.mark;
  std::vector<uint32_t> li, ri;  // local rows of the chunk
  std::vector<int64_t> margin;   // its right pixels
  for (int64_t p = cb.pix; p <= last_pix; ++p) {
    const auto [lo, hi] = m.cut_range(p, cb, ce);
    if (lo == hi) continue;
    const uint64_t shift = p == m.begin.pix ? m.begin.rank : 0;
    const uint32_t* at = m.left.index.data() + m.left.start[size_t(p)];
    li.insert(li.end(), at + (lo - shift), at + (hi - shift));
    int64_t nb[9];
    const int nnb = pixel_and_neighbours(order, p, nb);
    for (int a = 0; a < nnb; ++a)
      if (m.stamp[size_t(nb[a])] != m.mark) {
        m.stamp[size_t(nb[a])] = m.mark;
        margin.push_back(nb[a]);
      }
  }
  for (int64_t q : margin) {
    // Every right row of a margin pixel must have been sent to this partition.
    if (m.right.count(q) != m.plan.right_counts[size_t(q)])
      mismatch("right rows", q, m.right.count(q), m.plan.right_counts[size_t(q)]);
    const uint32_t* at = m.right.index.data() + m.right.start[size_t(q)];
    ri.insert(ri.end(), at, at + m.right.count(q));
  }
  // Local rows are in global row order: sorted, the chunk's pairs come out sorted by (i, j).
  std::sort(li.begin(), li.end());
  std::sort(ri.begin(), ri.end());
  SkyPoints lp, rp;
  lp.ra.resize(li.size());
  lp.dec.resize(li.size());
  rp.ra.resize(ri.size());
  rp.dec.resize(ri.size());
  for (size_t n = 0; n < li.size(); ++n) {
    std::tie(lp.ra[n], lp.dec[n]) = m.left_at(li[n]);
  }
  for (size_t n = 0; n < ri.size(); ++n) {
    rp.ra[n] = m.rows.right.ra[ri[n]];
    rp.dec[n] = m.rows.right.dec[ri[n]];
  }
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<Pair> pairs = match_pairs(lp, rp, m.options);
  size_t kept = 0;
  for (const Pair& q : pairs) {
    const int64_t i = m.left_row(li[size_t(q.i)]);
    const int64_t j = m.rows.right_rows[ri[size_t(q.j)]];
    if (!m.plan.self || j > i) pairs[kept++] = Pair{i, j, q.sep_arcsec};
  }
  pairs.resize(kept);
  if (stats) {
    const auto t2 = std::chrono::steady_clock::now();
    ++stats->chunks;
    stats->peak_rows = std::max(stats->peak_rows, lp.size() + rp.size());
    stats->gather_seconds += std::chrono::duration<double>(t1 - t0).count();
    stats->join_seconds += std::chrono::duration<double>(t2 - t1).count();
  }
  return pairs;
}

}  // namespace celeris::xmatch
