// The clipped-histogram mode of one background mesh, from its histogram's cumulative sums:
// the part of the mesh statistics shared, line for line, by the CPU (background.cpp) and the GPU
// (gpu/background_cuda.cu), so that both give the same floats. Plain C++17 for nvcc.
#pragma once

#include <cmath>
#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::extract::mode {

// SExtractor's histogram median walk: over bins lcut..hcut, one bin per step is added to the
// low side (from lcut up) while its sum is below the high side's, else to the high side (from
// hcut down). That is a merge of the two sorted sequences of partial sums (ties to the high
// side), so the number of bins the low side ends with is the count of its partial sums whose
// merge rank is below the number of bins: binary searches on the cumulative counts c0 give the
// walk's end state in O(log^2 n) instead of O(n) unpredictable branches.
struct MedianWalk {
  int lo, hi;               // next bin of each side (lo == hi + 1 at the end)
  int64_t lowsum, highsum;  // counts taken by each side
};

template <class C0>
CELERIS_HD inline MedianWalk median_walk(const C0& c0, int lcut, int hcut) {
  if (hcut < lcut) return {lcut, hcut, 0, 0};
  const int n = hcut - lcut + 1;
  auto low = [&](int a) { return static_cast<int64_t>(c0[lcut + a]) - c0[lcut]; };
  auto high = [&](int b) { return static_cast<int64_t>(c0[hcut + 1]) - c0[hcut + 1 - b]; };
  auto high_at_most = [&](int64_t v) {  // #{b in 0..n : high(b) <= v}
    int l = 0, r = n + 1;
    while (l < r) {
      const int m = (l + r) / 2;
      if (high(m) <= v)
        l = m + 1;
      else
        r = m;
    }
    return l;
  };
  int a0 = 0, a1 = n;
  while (a0 < a1) {
    const int m = (a0 + a1) / 2;
    if (m + high_at_most(low(m)) >= n)
      a1 = m;
    else
      a0 = m + 1;
  }
  return {lcut + a0, hcut - (n - a0), low(a0), high(n - a0)};
}

constexpr double kModeEps = 1e-4;  // convergence of the clipped-histogram iteration

struct Mode {
  float back, sigma;
};

// Iterative 3-sigma clipping of the histogram around its median; the mode is 2.5 median - 1.5
// mean when the distribution is not too skewed, the median otherwise (SExtractor manual,
// "Background estimation"). SExtractor sums counts, counts x bin and counts x bin^2 in double
// over the clipped range at every iteration; those sums are integers far below 2^53, hence
// exact, so the cumulative integer sums c0, c1, c2 (nlevels + 1 entries each) give the same
// doubles in O(1) per iteration. `mean` is the 2-sigma-clipped mean that fixed the histogram
// origin qzero and step qscale. c0, c1, c2: anything indexable that gives those integers (arrays
// on the CPU; on the GPU c1 and c2 are rebuilt on demand from per-chunk prefixes, which keeps the
// block's shared memory small).
template <class C0, class C1, class C2>
CELERIS_HD inline Mode histogram_mode(const int* histo, const C0& c0, const C1& c1, const C2& c2,
                                      int nlevels, double mean, float qzero, float qscale) {
  const int nlm1 = nlevels - 1;
  int lcut_i = 0, hcut_i = nlm1;
  double sig = 10.0 * nlm1, sig1 = 1.0, mea = static_cast<float>(mean), med = mea;
  for (int n = 100; n-- && sig >= 0.1 && fabs(sig / sig1 - 1.0) > kModeEps;) {
    sig1 = sig;
    const MedianWalk walk = median_walk(c0, lcut_i, hcut_i);
    const int lo = walk.lo, hi = walk.hi;
    const int64_t lowsum = walk.lowsum, highsum = walk.highsum;
    const bool any = hcut_i >= lcut_i;
    const double hsum =
        any ? static_cast<double>(static_cast<int64_t>(c0[hcut_i + 1]) - c0[lcut_i]) : 0.0;
    mea = any ? static_cast<double>(static_cast<int64_t>(c1[hcut_i + 1]) - c1[lcut_i]) : 0.0;
    sig = any ? static_cast<double>(static_cast<int64_t>(c2[hcut_i + 1]) - c2[lcut_i]) : 0.0;
    const int hlo = histo[lo < nlevels ? lo : nlm1], hhi = histo[hi >= 0 ? hi : 0];
    const double peak = hlo > hhi ? hlo : hhi;
    med = hi >= 0 ? (hi + 0.5 +
                     (static_cast<double>(highsum) - static_cast<double>(lowsum)) / (2.0 * peak))
                  : 0.0;
    if (hsum > 0) {
      mea /= hsum;
      sig = sig / hsum - mea * mea;
    }
    sig = sig > 0.0 ? sqrt(sig) : 0.0;
    double t = med - 3.0 * sig;
    lcut_i = t > 0.0 ? static_cast<int>(t + 0.5) : 0;
    t = med + 3.0 * sig;
    hcut_i = t < nlm1 ? static_cast<int>(t > 0.0 ? t + 0.5 : t - 0.5) : nlm1;
  }
  double mode;
  if (fabs(sig) > 0.0) {
    mode = fabs((mea - med) / sig) < 0.3 ? qzero + (2.5 * med - 1.5 * mea) * qscale
                                         : qzero + med * qscale;
  } else {
    mode = qzero + mea * qscale;
  }
  return {static_cast<float>(mode), static_cast<float>(sig * qscale)};
}

}  // namespace celeris::extract::mode
