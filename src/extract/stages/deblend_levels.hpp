// A detection pixel's level in the deblending tree, written once for the host's tree
// (deblend_tree.cpp) and the GPU's (gpu/deblend_tree_kernels.cu): comparisons only, so both
// give the same level to every value. Plain C++17, CELERIS_HD.
#pragma once

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

}  // namespace celeris::extract
