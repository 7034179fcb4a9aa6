// count_cpu: `--count` on CPU cores, pairs counted and binned without being written
// (count_cpu.hpp says how and why).
#include "count_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <parallel/algorithm>
#include <string>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "count_bins.hpp"
#include "join_search.hpp"

namespace celeris::xmatch::detail {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);

// Candidates whose squared chords are computed in one vectorised loop before they are compared.
constexpr size_t kBlock = 64;

// Rows above which a side is sorted by the parallel sort.
constexpr size_t kParallelSortRows = size_t(1) << 16;

// A side in (pixel at the index order, row) order: unit vectors as structure of arrays, so that
// the chord loop reads three contiguous columns.
struct Side {
  std::vector<int64_t> pix;   // ascending
  std::vector<uint32_t> row;  // the input row of each entry
  std::vector<double> x, y, z;
  size_t size() const { return pix.size(); }
};

Side sorted_side(const RowSpan& s, int order, int threads) {
  const int64_t n = int64_t(s.n);
  std::vector<hp::Vec3> v(s.n);
  // (pixel, row): sorting the pairs orders the rows of a pixel by row, as a stable sort would.
  std::vector<std::pair<int64_t, uint32_t>> key(s.n);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t k = 0; k < n; ++k) {
    v[size_t(k)] = hp::radec2vec(s.ra[k], s.dec[k]);  // as join.cpp's unit_vectors
    key[size_t(k)] = {hp::vec2pix_nest(order, v[size_t(k)]), uint32_t(k)};
  }
  if (threads > 1 && s.n >= kParallelSortRows)
    __gnu_parallel::sort(key.begin(), key.end(), __gnu_parallel::multiway_mergesort_tag(threads));
  else
    std::sort(key.begin(), key.end());
  Side out;
  out.pix.resize(s.n);
  out.row.resize(s.n);
  out.x.resize(s.n);
  out.y.resize(s.n);
  out.z.resize(s.n);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t k = 0; k < n; ++k) {
    const auto [p, r] = key[size_t(k)];
    out.pix[size_t(k)] = p;
    out.row[size_t(k)] = r;
    out.x[size_t(k)] = v[r].x;
    out.y[size_t(k)] = v[r].y;
    out.z[size_t(k)] = v[r].z;
  }
  return out;
}

// One thread's counting state: the right side's columns, the limit, the bins and its histogram.
struct Counter {
  const double *x, *y, *z;
  double lim2;
  const double* starts;
  size_t nstarts;
  uint64_t* hist;

  // Bins the pairs of v with right entries [b, e).
  void scan(double vx, double vy, double vz, size_t b, size_t e) const {
    double c2[kBlock];
    for (size_t k0 = b; k0 < e; k0 += kBlock) {
      const size_t m = std::min(kBlock, e - k0);
      const double* __restrict xs = x + k0;
      const double* __restrict ys = y + k0;
      const double* __restrict zs = z + k0;
      // hp::chord2(v, w), term for term: the same roundings, so the same pairs as the join.
      for (size_t j = 0; j < m; ++j) {
        const double dx = vx - xs[j], dy = vy - ys[j], dz = vz - zs[j];
        c2[j] = dx * dx + dy * dy + dz * dz;
      }
      size_t hits = 0;  // the chords within the limit, moved to the front in order
      for (size_t j = 0; j < m; ++j) {
        const double c = c2[j];
        c2[hits] = c;
        hits += c <= lim2 ? 1 : 0;
      }
      for (size_t j = 0; j < hits; ++j) ++hist[bin_of_branch_free(starts, nstarts, c2[j])];
    }
  }
};

// First entry of `s` with pixel >= p.
size_t locate(const Side& s, int64_t p) {
  return size_t(std::lower_bound(s.pix.begin(), s.pix.end(), p) - s.pix.begin());
}

}  // namespace

void count_cpu(const RowSpan* left, const RowSpan& right, const uint8_t* self_left,
               const Options& o, const std::vector<double>& starts, std::vector<uint64_t>& hist,
               int threads) {
  if (hist.size() != starts.size() + 1) throw Error("count_cpu: bins and edges differ");
  const bool self = left == nullptr;
  const size_t nl = self ? right.n : left->n;
  if (nl >= (uint64_t(1) << 32) || right.n >= (uint64_t(1) << 32))
    throw Error("count_cpu: more than 2^32 - 1 rows on one side");
  if (nl == 0 || right.n == 0) return;
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  const int order = index_order(o);
  const bool neighbours = neighbour_search(o);
  const double r = o.radius_arcsec * kArcsec;  // as join.cpp, so the same limit
  const double lim2 = hp::chord2_of_angle(r);
  const hp::DiscPlan plan = hp::make_disc_plan(order, r);

  const Side rs = sorted_side(right, order, nthreads);
  Side ls_own;
  if (!self) ls_own = sorted_side(*left, order, nthreads);
  const Side& ls = self ? rs : ls_own;

  // The left side's occupied pixels: entries [first[g], first[g + 1]) share pixel ls.pix[first[g]].
  std::vector<size_t> first;
  for (size_t k = 0; k < ls.size(); ++k)
    if (k == 0 || ls.pix[k] != ls.pix[k - 1]) first.push_back(k);
  first.push_back(ls.size());
  const int64_t groups = int64_t(first.size()) - 1;

  std::vector<std::vector<uint64_t>> part(size_t(nthreads), std::vector<uint64_t>(hist.size(), 0));
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
  {
    const Counter cnt{rs.x.data(),
                      rs.y.data(),
                      rs.z.data(),
                      lim2,
                      starts.data(),
                      starts.size(),
                      part[size_t(omp_get_thread_num())].data()};
#pragma omp for schedule(dynamic, 16)
    for (int64_t g = 0; g < groups; ++g) {
      const size_t gb = first[size_t(g)], ge = first[size_t(g) + 1];
      const int64_t pix = ls.pix[gb];
      // The right entries of the pixel and its neighbours, each pixel once, ascending (in a
      // self-match those below the pixel hold only entries before the row's own: skipped).
      std::pair<size_t, size_t> ranges[9];
      int nranges = 0;
      if (neighbours) {
        int64_t cand[9];
        cand[0] = pix;
        hp::neighbours_nest(order, pix, cand + 1);
        std::sort(cand, cand + 9);
        for (int q = 0; q < 9; ++q) {
          if (cand[q] < 0 || (q > 0 && cand[q] == cand[q - 1]) || (self && cand[q] < pix)) continue;
          const size_t b = locate(rs, cand[q]);
          const size_t e = locate(rs, cand[q] + 1);
          if (b < e) ranges[nranges++] = {b, e};
        }
      }
      for (size_t t = gb; t < ge; ++t) {
        if (self && self_left && !self_left[ls.row[t]]) continue;
        const double vx = ls.x[t], vy = ls.y[t], vz = ls.z[t];
        // Half scan: in a self-match only the entries after t (t's own pixel is one of the
        // ranges, so every entry after t within the radius is in a range).
        const size_t from = self ? t + 1 : 0;
        if (neighbours) {
          for (int q = 0; q < nranges; ++q)
            cnt.scan(vx, vy, vz, std::max(ranges[q].first, from), ranges[q].second);
        } else {
          hp::query_disc_nest(plan, hp::Vec3{vx, vy, vz}, [&](int64_t pb, int64_t pe) {
            cnt.scan(vx, vy, vz, std::max(locate(rs, pb), from), locate(rs, pe));
          });
        }
      }
    }
  }
  for (const auto& h : part)
    for (size_t b = 0; b < hist.size(); ++b) hist[b] += h[b];
}

}  // namespace celeris::xmatch::detail
