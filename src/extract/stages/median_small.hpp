// The median of a few values (at most kSmallMedian), in place: the host's median_of
// (background.cpp) for the mesh filter's windows, and the GPU's finish of the mesh grid
// (gpu/background_finish_kernels.cu). One definition, so that both keep the same one of equal
// values (+0 and -0). Plain C++17 (CELERIS_HD).
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

constexpr int kSmallMedian = 32;

// The middle value of p[0 .. n), the mean (in double) of the two middle values for an even
// count; 0 < n <= kSmallMedian. Reorders p.
CELERIS_HD inline float median_small(float* p, int n) {
  if (n < 2) return p[0];
  if (n == 9) {
    // The default 3x3 mesh filter's window: the median by a fixed network of 19 compare-exchanges
    // (no branches to mispredict on noise-like values); the same order statistic. The min and
    // max are std::min's and std::max's (each keeps its first argument where neither is less).
    auto cx = [p](int a, int b) {
      const float lo = p[b] < p[a] ? p[b] : p[a], hi = p[a] < p[b] ? p[b] : p[a];
      p[a] = lo;
      p[b] = hi;
    };
    cx(1, 2), cx(4, 5), cx(7, 8), cx(0, 1), cx(3, 4), cx(6, 7), cx(1, 2), cx(4, 5), cx(7, 8);
    cx(0, 3), cx(5, 8), cx(4, 7), cx(3, 6), cx(1, 4), cx(2, 5), cx(4, 7), cx(4, 2), cx(6, 4);
    cx(4, 2);
    return p[4];
  }
  // An insertion sort costs a fraction of nth_element's set-up on so few values (4096 windows
  // per 4096^2 frame).
  for (int i = 1; i < n; ++i) {
    const float x = p[i];
    int j = i;
    for (; j > 0 && x < p[j - 1]; --j) p[j] = p[j - 1];
    p[j] = x;
  }
  if (n % 2) return p[n / 2];
  return static_cast<float>((p[n / 2 - 1] + static_cast<double>(p[n / 2])) / 2.0);
}

}  // namespace celeris::extract
