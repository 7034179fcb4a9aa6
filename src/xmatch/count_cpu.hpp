// `--count` on CPU cores without writing the pairs (issue 20: >= 3 M pairs/s a core). The join
// (join.cpp) returns every pair with its separation (an asin each), sorted, and a self-match there
// tests every pair twice; counting needs neither. This is the CPU twin of the GPU's counting
// kernel (join_cuda.cu, count_kernel):
//   * both sides in (pixel at the index order, row) order as structure-of-arrays unit vectors, the
//     candidate pixels (the pixel and its neighbours, or the disc query's ranges) found once per
//     occupied pixel and shared by its rows;
//   * a self-match tests only the candidates after the row's own index entry ("half scan"): each
//     unordered pair once, from the row whose entry comes first;
//   * candidates tested in blocks: the squared chords of a block in one loop the compiler
//     vectorises (the same double expression as hp::chord2; lanes round as the scalar code does,
//     and no FMA: the build targets the x86-64 baseline, which has none, in ISO C++ mode, which
//     does not contract), the ones within the squared-chord limit compacted without a branch,
//     then binned by the squared-chord bin starts (count_bins.hpp) with a branch-free bisection.
// The pairs are exactly those of match_pairs / self_pairs (chord2 <= chord2_of_angle(radius) on
// the same vectors) and each lands in the bin PairCount::add gives the join's separation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "celeris/xmatch.hpp"

namespace celeris::xmatch::detail {

// n rows' positions in degrees (validated by the caller: finite, |Dec| <= 90, |RA| <= 360).
struct RowSpan {
  const double* ra = nullptr;
  const double* dec = nullptr;
  size_t n = 0;
};

// hist[b] += the pairs in bin b (bins = starts.size() + 1, starts = chord2_bin_starts of the
// count's radius and bins; a pair's bin is the number of starts <= its squared chord). A pair is
// a left row and a right row within options.radius_arcsec, found by the search of
// index_order(options) / neighbour_search(options) as the join does.
// left == nullptr: a self-match of `right` whose left rows are the right rows k with
// self_left[k] != 0 (self_left == nullptr: every row): the pairs of distinct rows whose row that
// comes first in (pixel at the index order, row) order is a left row, each once (every row left:
// every pair once). That order is the same in any subset of a catalog whose rows keep their
// relative order, so calls over the parts of a cut of a catalog, each holding its part's rows and
// the rows around them (margins marked not left), count every pair of the whole once.
// Else (self_left ignored) every (left, right) pair.
// threads: OpenMP threads (0: OpenMP's default; 1: the caller's thread alone). Throws when a side
// has 2^32 rows or more. Radius, order and positions are the caller's to validate (check_inputs,
// check_options in join_search.hpp).
void count_cpu(const RowSpan* left, const RowSpan& right, const uint8_t* self_left,
               const Options& options, const std::vector<double>& starts,
               std::vector<uint64_t>& hist, int threads = 0);

}  // namespace celeris::xmatch::detail
