// A partition's chunks matched one at a time from rows already in memory (an MPI rank's after the
// row exchange). The rows are bucketed by coarse pixel once; each chunk takes its left rows (a run
// of (pixel, rank) cuts) and the right rows of its pixels and their neighbours from the buckets,
// so no chunk rescans the partition, and only one chunk's rows and pairs exist at a time: a rank
// counting 9 billion pairs never holds more than its current chunk's.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <parallel/algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "count_bins.hpp"
#include "count_cpu.hpp"
#include "counting_sort.hpp"
#include "join_search.hpp"

#ifdef CELERIS_HAVE_CUDA
#include "join_cuda.hpp"
#endif

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

// Coarse pixel of each of n rows, `at(k)` giving local row k's position (RA, Dec).
template <class At>
std::vector<int32_t> pixels_of(size_t n, At at, int order) {
  if (n > size_t(UINT32_MAX)) throw Error("a partition of more than 2^32 rows: use more ranks");
  std::vector<int32_t> pix(n);  // coarse orders <= 7: below 2^31 pixels
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < int64_t(n); ++k) {
    const auto [ra, dec] = at(size_t(k));
    pix[size_t(k)] = int32_t(hp::radec2pix_nest(order, ra, dec));
  }
  return pix;
}

// The rows grouped by pixel, each pixel's rows in row order: a parallel stable counting sort
// (counting_sort.hpp) of the row numbers.
Buckets bucket_by_pixel(const std::vector<int32_t>& pix, int order) {
  Buckets b;
  b.index.resize(pix.size());
  uint32_t* index = b.index.data();
  b.start = detail::counting_sort(pix.data(), pix.size(), size_t(hp::npix(order)),
                                  [index](size_t k, size_t d) { index[d] = uint32_t(k); });
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
  // f(p, lo, hi) for every pixel p from b's to the last one e leaves rows of, with cut_range.
  template <class F>
  void for_each_cut(ChunkCut b, ChunkCut e, F&& f) const {
    const int64_t last_pix = e.rank > 0 ? e.pix : e.pix - 1;
    for (int64_t p = b.pix; p <= last_pix; ++p) {
      const auto [lo, hi] = cut_range(p, b, e);
      f(p, lo, hi);
    }
  }

  // The local rows of the partition's chunks [ka, kb): left rows `li` and the right rows of their
  // margin `ri`; `sorted`: each ascending (so in global row order), else in pixel order. Throws
  // when a margin pixel's right rows are not all present.
  void gather(size_t ka, size_t kb, std::vector<uint32_t>& li, std::vector<uint32_t>& ri,
              bool sorted);
  // Chunk k's pairs counted on the CPU into hist (count_cpu.hpp), bins of `starts`.
  void count_cpu(size_t k, const std::vector<double>& starts, std::vector<uint64_t>& hist,
                 ChunkStats* stats);
  // The margin pixels (the chunks' left pixels and their neighbours) of chunks [ka, kb), each once.
  std::vector<int64_t> margin(size_t ka, size_t kb);
  // Throws unless every right row of each of these pixels is in the partition.
  void check_margin(const std::vector<int64_t>& pixels) const {
    for (int64_t q : pixels)
      if (right.count(q) != plan.right_counts[size_t(q)])
        mismatch("right rows", q, right.count(q), plan.right_counts[size_t(q)]);
  }
};

void PartitionChunks::Impl::count_cpu(size_t k, const std::vector<double>& starts,
                                      std::vector<uint64_t>& hist, ChunkStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  // Every step on the threads of the count (a rank's few cores would otherwise wait for the
  // chunk's sorts and copies on one).
  const int nt = options.threads > 0 ? options.threads : omp_get_max_threads();
  std::vector<uint32_t> li, ri;
  gather(k, k + 1, li, ri, false);
  auto ascending = [nt](std::vector<uint32_t>& v) {  // local rows ascending: global row order
    if (nt > 1 && v.size() >= (size_t(1) << 16))
      __gnu_parallel::sort(v.begin(), v.end(), __gnu_parallel::multiway_mergesort_tag(nt));
    else
      std::sort(v.begin(), v.end());
  };
  ascending(li);
  ascending(ri);
  SkyPoints lp, rp;
  rp.ra.resize(ri.size());
  rp.dec.resize(ri.size());
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t n = 0; n < int64_t(ri.size()); ++n) {
    rp.ra[size_t(n)] = rows.right.ra[ri[size_t(n)]];
    rp.dec[size_t(n)] = rows.right.dec[ri[size_t(n)]];
  }
  // A self-match's left rows marked among the chunk's right rows (found by global row; the
  // margin holds the left pixels themselves, so each is there).
  std::vector<uint8_t> is_left;
  int64_t missing = -1;
  if (plan.self) {
    is_left.assign(ri.size(), 0);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t n = 0; n < int64_t(li.size()); ++n) {
      const int64_t g = left_row(li[size_t(n)]);
      const auto at = std::lower_bound(ri.begin(), ri.end(), g, [this](uint32_t r, int64_t x) {
        return rows.right_rows[r] < x;
      });
      if (at == ri.end() || rows.right_rows[*at] != g) {
#pragma omp critical(celeris_partition_count_missing)
        missing = g;
        continue;
      }
      is_left[size_t(at - ri.begin())] = 1;
    }
  } else {
    lp.ra.resize(li.size());
    lp.dec.resize(li.size());
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t n = 0; n < int64_t(li.size()); ++n)
      std::tie(lp.ra[size_t(n)], lp.dec[size_t(n)]) = left_at(li[size_t(n)]);
  }
  if (missing >= 0)
    throw Error("PartitionChunks: a self-match's left row " + std::to_string(missing) +
                " is not among its chunk's right rows");
  const auto t1 = std::chrono::steady_clock::now();
  // Each pair of a self-match counts in the chunk whose left rows hold the row that comes first
  // in (index pixel, global row) order, the order count_cpu's half scan uses here since the
  // chunk's rows keep their global order: once over all chunks and partitions.
  const detail::RowSpan rs{rp.ra.data(), rp.dec.data(), rp.size()};
  const detail::RowSpan ls{lp.ra.data(), lp.dec.data(), lp.size()};
  detail::count_cpu(plan.self ? nullptr : &ls, rs, plan.self ? is_left.data() : nullptr, options,
                    starts, hist, nt);
  if (stats) {
    ++stats->chunks;
    stats->peak_rows = std::max(stats->peak_rows, (plan.self ? 0 : li.size()) + ri.size());
    stats->gather_seconds += std::chrono::duration<double>(t1 - t0).count();
    stats->join_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }
}

std::vector<int64_t> PartitionChunks::Impl::margin(size_t ka, size_t kb) {
  std::vector<int64_t> out;
  ++mark;
  for (size_t k = ka; k < kb; ++k) {
    for_each_cut(plan.chunks[first + k].begin, plan.chunks[first + k].end,
                 [&](int64_t p, uint64_t lo, uint64_t hi) {
                   if (lo == hi) return;
                   int64_t nb[9];
                   const int nnb = pixel_and_neighbours(plan.order, p, nb);
                   for (int a = 0; a < nnb; ++a)
                     if (stamp[size_t(nb[a])] != mark) {
                       stamp[size_t(nb[a])] = mark;
                       out.push_back(nb[a]);
                     }
                 });
  }
  return out;
}

void PartitionChunks::Impl::gather(size_t ka, size_t kb, std::vector<uint32_t>& li,
                                   std::vector<uint32_t>& ri, bool sorted) {
  li.clear();
  ri.clear();
  for (size_t k = ka; k < kb; ++k) {
    for_each_cut(plan.chunks[first + k].begin, plan.chunks[first + k].end,
                 [&](int64_t p, uint64_t lo, uint64_t hi) {
                   if (lo == hi) return;
                   const uint64_t shift = p == begin.pix ? begin.rank : 0;
                   const uint32_t* at = left.index.data() + left.start[size_t(p)];
                   li.insert(li.end(), at + (lo - shift), at + (hi - shift));
                 });
  }
  const std::vector<int64_t> pixels = margin(ka, kb);
  check_margin(pixels);
  for (int64_t q : pixels) {
    const uint32_t* at = right.index.data() + right.start[size_t(q)];
    ri.insert(ri.end(), at, at + right.count(q));
  }
  if (!sorted) return;
  std::sort(li.begin(), li.end());
  std::sort(ri.begin(), ri.end());
}

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
  std::vector<int32_t> rpix = pixels_of(
      rows.right.size(),
      [&rows](size_t k) {
        return std::pair<double, double>{rows.right.ra[k], rows.right.dec[k]};
      },
      plan.order);
  if (rows.left_in_right.empty()) {
    m.left =
        bucket_by_pixel(pixels_of(
                            rows.left.size(), [&m](size_t k) { return m.left_at(k); }, plan.order),
                        plan.order);
  } else {
    // A self-match's left rows are right rows: their pixels are known.
    std::vector<int32_t> lpix(rows.left_in_right.size());
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < int64_t(lpix.size()); ++k)
      lpix[size_t(k)] = rpix[rows.left_in_right[size_t(k)]];
    m.left = bucket_by_pixel(lpix, plan.order);
  }
  m.right = bucket_by_pixel(rpix, plan.order);
  m.stamp.assign(size_t(hp::npix(plan.order)), 0);
  // Pixel p holds the partition's cuts [lo, hi) of p; in the first pixel they start at the
  // partition's first cut's rank, which match() subtracts to find them in the bucket.
  m.begin = plan.chunks[first].begin;
  const ChunkCut end = plan.chunks[last - 1].end;
  uint64_t inside = 0;
  m.for_each_cut(m.begin, end, [&](int64_t p, uint64_t lo, uint64_t hi) {
    if (m.left.count(p) != hi - lo) mismatch("left rows", p, m.left.count(p), hi - lo);
    inside += hi - lo;
  });
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
  std::vector<uint32_t> li, ri;  // local rows of the chunk
  // Local rows are in global row order: sorted, the chunk's pairs come out sorted by (i, j).
  m.gather(k, k + 1, li, ri, true);
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

void PartitionChunks::count(PairCount& c, ChunkStats* stats) {
  Impl& m = *impl_;
  if (c.histogram.empty()) throw Error("PartitionChunks::count: a PairCount without bins");
  if (resolve_backend(m.options.backend) != Backend::Cuda) {
    if (c.radius_arcsec != m.options.radius_arcsec)
      throw Error("PartitionChunks::count: the count's radius is not the match's");
    detail::check_options(m.options, m.plan.self);  // as match_pairs did for each chunk
    const std::vector<double> starts =
        detail::chord2_bin_starts(c.radius_arcsec, c.histogram.size());
    std::vector<uint64_t> hist(c.histogram.size(), 0);
    for (size_t k = 0; k < size(); ++k) m.count_cpu(k, starts, hist, stats);
    for (size_t b = 0; b < hist.size(); ++b) {
      c.histogram[b] += hist[b];
      c.pairs += hist[b];
    }
    return;
  }
#ifndef CELERIS_HAVE_CUDA
  throw Error("celeris was built without the CUDA backend");
#else
  const Options& o = m.options;
  const int order = index_order(o);
  const bool neighbours = detail::neighbour_search(o);
  const double radius = o.radius_arcsec * hp::pi / (180.0 * 3600.0);
  const std::vector<double> starts = detail::chord2_bin_starts(c.radius_arcsec, c.histogram.size());
  if (c.radius_arcsec != o.radius_arcsec)
    throw Error("PartitionChunks::count: the count's radius is not the match's");
  const size_t budget = detail::cuda_budget(o.device_memory);
  std::vector<uint64_t> hist(c.histogram.size(), 0);
  double gather_s = 0, join_s = 0;
  auto count_rows = [&](const SkyPoints& lp, const std::vector<int64_t>& lid, const SkyPoints& rp,
                        const std::vector<int64_t>& rid) {
    const auto tj = std::chrono::steady_clock::now();
    detail::count_cuda(&lp, lid.data(), rp, rid.data(), m.plan.self, order, neighbours, radius,
                       starts, hist);
    join_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tj).count();
    if (stats) stats->peak_rows = std::max(stats->peak_rows, lp.size() + rp.size());
  };
  // Runs of consecutive chunks whose left rows and margin fit the device (cuda_count_bytes),
  // each uploaded and counted in one call; a chunk alone too large for it is matched by
  // match_pairs on the GPU (which cuts it further) and its pairs counted on the host.
  std::vector<std::pair<size_t, size_t> > runs;
  {
    size_t ka = 0;
    uint64_t nl = 0, nr = 0;
    ++m.mark;
    for (size_t k = 0; k < size(); ++k) {
      const std::vector<int64_t> own = m.margin(k, k + 1);
      uint64_t more = 0;
      for (int64_t q : own) more += m.plan.right_counts[size_t(q)];
      const uint64_t left_k = m.plan.chunks[m.first + k].left_rows;
      // Right rows already in the run are counted again: an over-estimate, never an under one.
      if (k > ka && detail::cuda_count_bytes(nl + left_k, nr + more, false) > budget) {
        runs.emplace_back(ka, k);
        ka = k;
        nl = nr = 0;
      }
      nl += left_k;
      nr += more;
    }
    if (size() > ka) runs.emplace_back(ka, size());
  }
  for (const auto& [ka, kb] : runs) {
    const auto tg = std::chrono::steady_clock::now();
    std::vector<uint32_t> li, ri;
    m.gather(ka, kb, li, ri, false);  // the count needs no row order: ids travel with rows
    if (detail::cuda_count_bytes(li.size(), ri.size(), false) > budget) {
      // One chunk (runs of several always fit): the pairs' path, which chunks on the device.
      gather_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tg).count();
      for (size_t k = ka; k < kb; ++k) {
        const auto tj = std::chrono::steady_clock::now();
        for (const Pair& p : match(k))
          ++hist[detail::histogram_bin(p.sep_arcsec, c.radius_arcsec, hist.size())];
        join_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tj).count();
      }
      continue;
    }
    SkyPoints lp, rp;
    std::vector<int64_t> lid(li.size()), rid(ri.size());
    lp.ra.resize(li.size());
    lp.dec.resize(li.size());
    rp.ra.resize(ri.size());
    rp.dec.resize(ri.size());
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < int64_t(li.size()); ++n) {
      std::tie(lp.ra[size_t(n)], lp.dec[size_t(n)]) = m.left_at(li[size_t(n)]);
      lid[size_t(n)] = m.left_row(li[size_t(n)]);
    }
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < int64_t(ri.size()); ++n) {
      rp.ra[size_t(n)] = m.rows.right.ra[ri[size_t(n)]];
      rp.dec[size_t(n)] = m.rows.right.dec[ri[size_t(n)]];
      rid[size_t(n)] = m.rows.right_rows[ri[size_t(n)]];
    }
    gather_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tg).count();
    count_rows(lp, lid, rp, rid);
  }
  uint64_t total = 0;
  for (size_t b = 0; b < hist.size(); ++b) {
    c.histogram[b] += hist[b];
    total += hist[b];
  }
  c.pairs += total;
  if (stats) {
    stats->chunks += size();
    stats->gather_seconds += gather_s;
    stats->join_seconds += join_s;
  }
#endif
}

}  // namespace celeris::xmatch
