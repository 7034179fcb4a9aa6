// A detection pixel's level in the deblending tree, written once for the host's tree
// (deblend_tree.cpp) and the GPU's (gpu/deblend_tree_kernels.cu): comparisons only, so both
// give the same level to every value. Plain C++17, CELERIS_HD.
#pragma once

#include <cfloat>
#include <cstdint>
#include <cstring>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// std::lower_bound(t, t + n, c) - t for ascending t (n >= 0): how many of the t are below c. A
// binary search whose steps are selects, not branches: a detection's pixel values fall
// anywhere among its levels, so a branching search mispredicts at every step.
CELERIS_HD inline int count_below(const float* t, int n, float c) {
  if (n <= 0) return 0;
  const float* first = t;
  while (n > 1) {
    const int half = n / 2;
    first = first[half] < c ? first + half : first;
    n -= half;
  }
  return static_cast<int>(first - t) + (*first < c ? 1 : 0);
}

// The highest threshold up to each level: tmax[0] = 0, tmax[1] = thresh[1], tmax[k] =
// max(tmax[k - 1], thresh[k]). Level k's set is taken inside level k - 1's nodes, so a pixel's
// level is the highest k with value > tmax[k]: count_below(tmax + 1, nthresh - 1, value).
CELERIS_HD inline void level_ceilings(const float* thresh, int nthresh, float* tmax) {
  if (nthresh > 0) tmax[0] = 0.0f;
  for (int k = 1; k < nthresh; ++k)
    tmax[k] = k > 1 ? (tmax[k - 1] < thresh[k] ? thresh[k] : tmax[k - 1]) : thresh[k];
}

// The products' part of exponential_levels (deblend.cpp), written once for the host and the
// device: for k = 1 .. nthresh - 1, thresh[k] = float(t0 q^k) where that product is sure to
// round as t0 pow(r, k / nthresh) does, NaN elsewhere (thresh[0] is left alone); returns how many
// are NaN. q is pow(r, 1 / nthresh) in double from either side's pow: the terms of `bound`
// (relative; exponential_levels takes 1e-14 (|ln r| + nthresh + 2)) are each 45 ulps, room for
// glibc's pow (within an ulp) and CUDA's (within two) alike, so a level sure on either side is
// the float that glibc's pow gives. r is peak / t0 in float, as SExtractor.
CELERIS_HD inline int product_levels(float t0, float r, double q, int nthresh, double bound,
                                     float* thresh) {
  const uint32_t nan_bits = 0x7fc00000u;
  float nan = 0;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  // No positive finite ratio: no level by products. (q > 0 && q <= DBL_MAX: not NaN either.)
  const bool products = t0 > 0 && r > 0 && r <= FLT_MAX && q > 0 && q <= DBL_MAX;
  int unsure = 0;
  double v = 1.0;
  for (int k = 1; k < nthresh; ++k) {
    v *= q;
    const double y = t0 * v;
    const float f = static_cast<float>(y);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    const uint32_t exponent = (bits >> 23) & 0xffu;
    // f positive and normal, y finite: f's neighbours are the floats whose bits are one less
    // and one more, and its rounding boundaries lie halfway to them; both more than `bound`
    // away from y.
    bool sure = products && y <= DBL_MAX && exponent != 0 && exponent != 0xffu;
    if (sure) {
      float below = 0, above = 0;
      const uint32_t down = bits - 1, up = bits + 1;
      std::memcpy(&below, &down, sizeof below);
      std::memcpy(&above, &up, sizeof above);
      const double lo = (static_cast<double>(f) + below) / 2;
      const double hi = (static_cast<double>(f) + above) / 2;
      sure = y * (1 - bound) > lo && y * (1 + bound) < hi;
    }
    thresh[k] = sure ? f : nan;
    unsure += sure ? 0 : 1;
  }
  return unsure;
}

}  // namespace celeris::extract
