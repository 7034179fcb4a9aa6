// The `--count` histogram's bins, on the host and as squared-chord edges for the GPU.
//   PairCount::add bins a pair by its separation as the CPU join computes it
//   (angle_of_chord2(c2) / arcsec). The GPU's asin may differ from glibc's in the last bit, so a
//   separation computed there could land in the neighbouring bin. Instead the GPU compares the
//   pair's squared chord (bit-identical to the CPU's: no FMA) with the edges below, found on the
//   host with the host's own separation, so both sides bin every pair alike.
#pragma once

#include <cstddef>
#include <vector>

namespace celeris::xmatch::detail {

// The bin of a separation among `bins` equal bins over [0, radius]: floor(sep / radius * bins),
// a separation at the radius (or rounded above it) in the last bin. PairCount::add uses it.
size_t histogram_bin(double sep_arcsec, double radius_arcsec, size_t bins);

// The bin of a pair whose squared chord is c2, as PairCount::add gives it from the separation the
// CPU join computes (hp::angle_of_chord2(c2) / arcsec).
size_t chord2_bin(double c2, double radius_arcsec, size_t bins);

// starts[k - 1] for k = 1 .. bins - 1: the smallest squared chord c2 >= 0 whose chord2_bin is at
// least k (+inf when none is), found by bisection over the bit patterns of non-negative doubles
// (which order like the values; 64 steps a bin). chord2_bin is non-decreasing in c2 (sqrt, the
// scaling and floor are monotone; glibc's asin is in practice, though no standard promises it:
// the test XMatchCountBins.EdgesGiveTheHostBin checks it over thousands of ulps around every
// edge), so a pair's bin is the number of starts <= c2:
// bin_of(starts, c2) == chord2_bin(c2).
std::vector<double> chord2_bin_starts(double radius_arcsec, size_t bins);

// Number of starts <= c2 (the starts ascend).
inline size_t bin_of(const std::vector<double>& starts, double c2) {
  size_t lo = 0, hi = starts.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (starts[mid] <= c2)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// bin_of over starts[0, n) without a data-dependent branch (the CPU count's inner loop, where a
// pair's bin is unpredictable): the window [base, base + len) holds the first start > c2 or its
// end; each step keeps the upper part when the lower part's last start is <= c2 (a conditional
// move, not a jump).
inline size_t bin_of_branch_free(const double* starts, size_t n, double c2) {
  if (n == 0) return 0;
  const double* base = starts;
  size_t len = n;
  while (len > 1) {
    const size_t half = len / 2;
    base = base[half - 1] <= c2 ? base + half : base;
    len -= half;
  }
  return size_t(base - starts) + (base[0] <= c2 ? 1 : 0);
}

}  // namespace celeris::xmatch::detail
