// count_sorted: `--count` from catalogs sorted by coarse pixel (sorted_count.hpp explains why).
// pixel_sorted makes the sorted catalog; count_sorted cuts the plan's chunks into runs, finds each
// run's rows as ranges of the sorted arrays and counts them on the GPU (uploaded straight from
// those ranges) or on the CPU (count_cpu, a run a thread).
#include "sorted_count.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "count_bins.hpp"
#include "count_cpu.hpp"
#include "counting_sort.hpp"
#include "join_search.hpp"

#ifdef CELERIS_HAVE_CUDA
#include "join_cuda.hpp"
#endif

namespace celeris::xmatch {

namespace hp = celeris::healpix;
using Clock = std::chrono::steady_clock;

namespace {

// The CPU's runs: small enough that a run per thread stays in a few tens of MB (count_cpu holds
// about 100 B a row: the copy, the vectors, the sort keys), large enough that the margins
// (neighbour pixels' rows, indexed again by the next run) cost little.
constexpr size_t kCpuRunBytes = size_t(32) << 20;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool bad_position(double ra, double dec) {
  return !(std::isfinite(ra) && std::isfinite(dec) && dec >= -90 && dec <= 90 && ra >= -360 &&
           ra <= 360);
}

using Ranges = std::vector<std::pair<size_t, size_t>>;

// One run of chunks: its left rows (places in the sorted left catalog) and the ranges of the
// sorted right catalog holding its margin, ascending and merged.
struct Run {
  size_t left_begin = 0, left_end = 0;
  Ranges right;
  size_t right_rows = 0;
};

// Builds runs of consecutive chunks whose rows fit `fits(left rows, right rows)`; the margin of a
// run is the exact union of its chunks' margins (each pixel's rows once).
class RunPlanner {
 public:
  // The left rows are those of pixels below end_pix (the plan holds none elsewhere).
  RunPlanner(const PixelSorted& left, const PixelSorted& right, const ChunkPlan& plan,
             int64_t end_pix)
      : left_(left),
        right_(right),
        plan_(plan),
        end_place_(left.start[size_t(end_pix)]),
        stamp_(plan.left_counts.size(), 0) {}

  // Runs of consecutive chunks as long as fits(left rows, right rows) holds; throws when one
  // chunk alone does not fit.
  template <class Fits>
  std::vector<Run> runs(Fits&& fits) {
    std::vector<Run> out;
    size_t ka = 0;
    uint64_t nr = 0;
    ++mark_;
    for (size_t k = 0; k < plan_.chunks.size(); ++k) {
      // Right rows chunk k adds to the run (its margin pixels not yet in it), stamped.
      auto add_margin = [&] {
        uint64_t more = 0;
        each_margin_pixel(k, [&](int64_t q) {
          if (stamp_[size_t(q)] == mark_) return;
          stamp_[size_t(q)] = mark_;
          more += plan_.right_counts[size_t(q)];
        });
        return more;
      };
      nr += add_margin();
      const uint64_t nl = left_place(plan_.chunks[k].end) - left_place(plan_.chunks[ka].begin);
      if (k > ka && !fits(nl, nr)) {
        out.push_back(make(ka, k));  // chunks before k (make stamps with marks of its own)
        ka = k;
        ++mark_;
        nr = add_margin();
      }
      const uint64_t own = left_place(plan_.chunks[k].end) - left_place(plan_.chunks[k].begin);
      if (!fits(own, nr) && k == ka)
        throw Error("count_sorted: the rows around one chunk (" + std::to_string(own) + " left, " +
                    std::to_string(nr) +
                    " right rows) exceed the memory for one run; allow more (--gpu-memory)");
    }
    if (plan_.chunks.size() > ka) out.push_back(make(ka, plan_.chunks.size()));
    return out;
  }

 private:
  // Place of a cut in the sorted left catalog (the plan's last cut, at npix: the end of the left
  // pixels' rows).
  size_t left_place(ChunkCut c) const {
    return c.pix >= int64_t(plan_.left_counts.size()) ? end_place_
                                                      : left_.start[size_t(c.pix)] + c.rank;
  }
  // f(q) for each pixel holding left rows of chunk k and each of their neighbours (repeats).
  template <class F>
  void each_margin_pixel(size_t k, F&& f) const {
    const ChunkCut b = plan_.chunks[k].begin, e = plan_.chunks[k].end;
    const int64_t last = e.rank > 0 ? e.pix : e.pix - 1;
    for (int64_t p = b.pix; p <= last; ++p) {
      if (plan_.left_counts[size_t(p)] == 0) continue;
      int64_t nb[9];
      const int n = pixel_and_neighbours(plan_.order, p, nb);
      for (int a = 0; a < n; ++a) f(nb[a]);
    }
  }
  Run make(size_t ka, size_t kb) {
    Run r;
    r.left_begin = left_place(plan_.chunks[ka].begin);
    r.left_end = left_place(plan_.chunks[kb - 1].end);
    std::vector<int64_t> pix;
    ++mark_;
    for (size_t k = ka; k < kb; ++k)
      each_margin_pixel(k, [&](int64_t q) {
        if (stamp_[size_t(q)] == mark_) return;
        stamp_[size_t(q)] = mark_;
        pix.push_back(q);
      });
    std::sort(pix.begin(), pix.end());
    for (int64_t q : pix) {
      const size_t b = right_.start[size_t(q)], e = right_.start[size_t(q) + 1];
      if (b == e) continue;
      if (!r.right.empty() && r.right.back().second == b)
        r.right.back().second = e;
      else
        r.right.emplace_back(b, e);
      r.right_rows += e - b;
    }
    return r;
  }

  const PixelSorted& left_;
  const PixelSorted& right_;
  const ChunkPlan& plan_;
  size_t end_place_;
  std::vector<uint32_t> stamp_;
  uint32_t mark_ = 0;
};

// In a self-match, where a run's left rows [b, e) of the catalog lie among its right rows: the
// left pixels' rows are all in the margin and no rows lie between them, so [b, e) sits inside one
// merged range.
std::pair<size_t, size_t> left_within_right(const Run& r) {
  size_t before = 0;
  for (const auto& [b, e] : r.right) {
    if (b <= r.left_begin && r.left_end <= e)
      return {before + (r.left_begin - b), before + (r.left_end - b)};
    before += e - b;
  }
  throw Error("count_sorted: a run's left rows are not among its right rows (internal error)");
}

SkyPoints copy_ranges(const double* ra, const double* dec, const Ranges& ranges) {
  SkyPoints out;
  for (const auto& [b, e] : ranges) {
    out.ra.insert(out.ra.end(), ra + b, ra + e);
    out.dec.insert(out.dec.end(), dec + b, dec + e);
  }
  return out;
}

// n values of T, neither zeroed nor touched, on 2 MB pages where the kernel allows.
template <class T>
HostColumn<T> host_column(size_t n) {
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t bytes = std::max<size_t>(kHuge, (n * sizeof(T) + kHuge - 1) / kHuge * kHuge);
  void* p = std::aligned_alloc(kHuge, bytes);
  if (!p) throw Error("out of host memory for " + std::to_string(n) + " sorted rows");
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: ignored where transparent huge pages are off
  return HostColumn<T>(static_cast<T*>(p));
}

// One run on the calling thread: its right rows copied out (its left rows are one range of the
// sorted catalog, read in place) and counted by count_cpu. In a self-match the left rows are a
// range of the run's rows and each pair counts from the row first in (pixel at the index order,
// place) order; the run's rows keep their order in the catalog, so that order is the same in
// every run and each pair counts in exactly one: the run whose left rows hold that first row
// (the other row, within the radius, is in its margin).
void count_run_cpu(const PixelSorted& left, const PixelSorted& right, bool self, const Run& r,
                   const Options& o, const std::vector<double>& starts, std::vector<uint64_t>& hist,
                   int threads) {
  const SkyPoints rp = copy_ranges(right.ra.get(), right.dec.get(), r.right);
  const detail::RowSpan rs{rp.ra.data(), rp.dec.data(), rp.size()};
  if (self) {
    const auto [la, lb] = left_within_right(r);
    std::vector<uint8_t> is_left(rp.size(), 0);
    std::fill(is_left.begin() + int64_t(la), is_left.begin() + int64_t(lb), uint8_t(1));
    detail::count_cpu(nullptr, rs, is_left.data(), o, starts, hist, threads);
  } else {
    const detail::RowSpan ls{left.ra.get() + r.left_begin, left.dec.get() + r.left_begin,
                             r.left_end - r.left_begin};
    detail::count_cpu(&ls, rs, nullptr, o, starts, hist, threads);
  }
}

// The runs on the CPU: one run a thread when there are enough runs for every thread (no
// synchronisation inside a run), else the runs one after the other, each on all threads.
void count_runs_cpu(const PixelSorted& left, const PixelSorted& right, bool self,
                    const std::vector<Run>& runs, const Options& o,
                    const std::vector<double>& starts, std::vector<uint64_t>& hist) {
  const int nthreads = o.threads > 0 ? o.threads : omp_get_max_threads();
  if (runs.size() < size_t(nthreads)) {
    for (const Run& r : runs) count_run_cpu(left, right, self, r, o, starts, hist, nthreads);
    return;
  }
  std::vector<std::vector<uint64_t>> part(size_t(nthreads), std::vector<uint64_t>(hist.size(), 0));
  std::exception_ptr failed;  // an exception may not leave the parallel region
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
  for (int64_t k = 0; k < int64_t(runs.size()); ++k) {
    try {
      count_run_cpu(left, right, self, runs[size_t(k)], o, starts,
                    part[size_t(omp_get_thread_num())], 1);
    } catch (...) {
#pragma omp critical(celeris_count_runs_cpu)
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  for (const auto& h : part)
    for (size_t b = 0; b < hist.size(); ++b) hist[b] += h[b];
}

}  // namespace

void FreeDeleter::operator()(void* p) const {
  std::free(p);
}

PixelSorted pixel_sorted(const SkyPoints& s, int order, const char* side, PixelSortTimes* times) {
  const auto t0 = Clock::now();
  if (s.ra.size() != s.dec.size()) throw Error("RA and Dec have different lengths");
  if (order < 0 || order > 7) throw Error("pixel_sorted: order must be in 0..7");
  const size_t n = s.size();
  // Pixels at order <= 7 are below 2^31; written (and faulted in) by the threads below.
  const HostColumn<int32_t> pix = host_column<int32_t>(n);
  int64_t bad = int64_t(n);
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t k = 0; k < int64_t(n); ++k) {
    const double ra = s.ra[size_t(k)], dec = s.dec[size_t(k)];
    if (bad_position(ra, dec)) {
      bad = std::min(bad, k);
      pix[size_t(k)] = 0;
      continue;
    }
    pix[size_t(k)] = int32_t(hp::radec2pix_nest(order, ra, dec));
  }
  if (bad < int64_t(n))
    throw Error(std::string(side) + ": row " + std::to_string(bad + 1) +
                ": RA/Dec out of range or not finite (" + std::to_string(s.ra[size_t(bad)]) + ", " +
                std::to_string(s.dec[size_t(bad)]) + ")");
  const auto t1 = Clock::now();
  PixelSorted out;
  out.order = order;
  out.n = n;
  out.ra = host_column<double>(n);
  out.dec = host_column<double>(n);
  double* ra = out.ra.get();
  double* dec = out.dec.get();
  out.start = detail::counting_sort(pix.get(), n, size_t(hp::npix(order)), [&](size_t k, size_t d) {
    ra[d] = s.ra[k];
    dec[d] = s.dec[k];
  });
  if (times) {
    times->pixels += std::chrono::duration<double>(t1 - t0).count();
    times->scatter += since(t1);
  }
  return out;
}

namespace {

// count_sorted and count_sorted_part: the left rows are those of pixels [first_pix, end_pix) of
// `left` (all of them for two catalogs).
void count_impl(const PixelSorted& left, const PixelSorted* right_in, int64_t first_pix,
                int64_t end_pix, const Options& o, PairCount& c, SortedCountStats* stats,
                size_t run_bytes) {
  const bool self = right_in == nullptr;
  const PixelSorted& right = self ? left : *right_in;
  if (o.find != Find::All) throw Error("count_sorted counts --find all only");
  if (c.radius_arcsec != o.radius_arcsec || c.histogram.empty())
    throw Error("count_sorted: the count's radius is not the match's, or it has no bins");
  const int order = chunk_order(o);
  const size_t npix = size_t(hp::npix(order));
  if (left.order != order || right.order != order || left.start.size() != npix + 1 ||
      right.start.size() != npix + 1)
    throw Error("count_sorted: the catalogs are not sorted at the chunk order " +
                std::to_string(order));
  if (left.size() == 0 || right.size() == 0) return;
  if (first_pix < 0 || first_pix > end_pix || end_pix > int64_t(npix))
    throw Error("count_sorted_part: pixels out of range");
  std::vector<uint64_t> lc(npix, 0), rc(npix);
  for (size_t p = 0; p < npix; ++p) {
    if (int64_t(p) >= first_pix && int64_t(p) < end_pix) lc[p] = left.start[p + 1] - left.start[p];
    rc[p] = right.start[p + 1] - right.start[p];
  }
  const bool cuda = resolve_backend(o.backend) == Backend::Cuda;
  std::vector<uint64_t> hist(c.histogram.size(), 0);
  if (!cuda) {
    detail::check_options(o, self);  // as match_pairs did for each run
    // Runs of about run_bytes (chunk_bytes_per_*_row), grouped from chunks of a quarter of it as
    // on the GPU (so that the grouping is tested without a device too).
    const size_t least = min_chunk_bytes(order, lc, rc);
    const size_t bytes = std::max(least, run_bytes ? run_bytes : kCpuRunBytes);
    const ChunkPlan plan =
        plan_chunks(order, std::move(lc), std::move(rc), self, std::max(least, bytes / 4));
    RunPlanner planner(left, right, plan, end_pix);
    const std::vector<Run> runs = planner.runs([&](uint64_t nl, uint64_t nr) {
      return nl * chunk_bytes_per_left_row + nr * chunk_bytes_per_right_row <= bytes;
    });
    const auto t = Clock::now();
    count_runs_cpu(left, right, self, runs, o,
                   detail::chord2_bin_starts(c.radius_arcsec, hist.size()), hist);
    if (stats) {
      stats->join_seconds += since(t);
      for (const Run& r : runs)
        stats->peak_rows =
            std::max(stats->peak_rows, (self ? 0 : r.left_end - r.left_begin) + r.right_rows);
      stats->runs += runs.size();
    }
  } else {
#ifndef CELERIS_HAVE_CUDA
    throw Error("celeris was built without the CUDA backend");
#else
    size_t budget = detail::cuda_budget(o.device_memory);
    if (run_bytes) budget = std::min(budget, run_bytes);
    // Chunks of a quarter of the budget (in chunk_bytes_per_*_row), grouped into runs that fill
    // it (cuda_count_bytes, right rows counted once).
    const size_t bytes = std::max(min_chunk_bytes(order, lc, rc), budget / 4);
    const ChunkPlan plan = plan_chunks(order, std::move(lc), std::move(rc), self, bytes);
    RunPlanner planner(left, right, plan, end_pix);
    const std::vector<Run> runs = planner.runs([&](uint64_t nl, uint64_t nr) {
      return detail::cuda_count_bytes(self ? 0 : nl, nr, self) <= budget;
    });
    const std::vector<double> starts = detail::chord2_bin_starts(c.radius_arcsec, hist.size());
    const double radius = o.radius_arcsec * hp::pi / (180.0 * 3600.0);
    for (const Run& r : runs) {
      const auto t = Clock::now();
      const detail::HostRanges rr{right.ra.get(), right.dec.get(), r.right};
      detail::CudaCountTimes times;
      if (self) {
        const auto [la, lb] = left_within_right(r);
        detail::count_cuda_ranges(nullptr, rr, la, lb, index_order(o), detail::neighbour_search(o),
                                  radius, starts, hist, &times);
      } else {
        const detail::HostRanges lr{left.ra.get(), left.dec.get(), {{r.left_begin, r.left_end}}};
        detail::count_cuda_ranges(&lr, rr, 0, 0, index_order(o), detail::neighbour_search(o),
                                  radius, starts, hist, &times);
      }
      if (stats) {
        stats->join_seconds += since(t);
        stats->upload_index_ms += times.index;
        stats->count_ms += times.count;
        stats->peak_rows =
            std::max(stats->peak_rows, (self ? 0 : r.left_end - r.left_begin) + r.right_rows);
      }
    }
    if (stats) stats->runs += runs.size();
#endif
  }
  for (size_t b = 0; b < hist.size(); ++b) {
    c.histogram[b] += hist[b];
    c.pairs += hist[b];
  }
}

}  // namespace

void count_sorted(const PixelSorted& left, const PixelSorted* right, const Options& o, PairCount& c,
                  SortedCountStats* stats, size_t run_bytes) {
  count_impl(left, right, 0, int64_t(left.start.empty() ? 0 : left.start.size() - 1), o, c, stats,
             run_bytes);
}

void count_sorted_part(const PixelSorted& rows, int64_t first_pix, int64_t end_pix,
                       const Options& o, PairCount& c, SortedCountStats* stats, size_t run_bytes) {
  count_impl(rows, nullptr, first_pix, end_pix, o, c, stats, run_bytes);
}

}  // namespace celeris::xmatch
