// Internal to src/maxsub: the maximum convex sum's trace-back, written once for convex.cpp (host)
// and convex_cuda.cu (a one-thread kernel): the bits recorded for every (column, t, b) and the
// walk that follows them from the best interval back to the region's left column. Plain C++17
// (the .cu file includes it); CELERIS_HD from tie_order.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "maxsub/tie_order.hpp"

namespace celeris::maxsub::detail {

// Trace-back bits of one (column, t, b).
enum : uint8_t {
  kGrowExtends = 1,      // grow continues G of the previous column (else starts here)
  kGSelf = 0 << 1,       // G(t,b) = grow(t,b)
  kGDown = 1 << 1,       // G(t,b) = G(t+1,b)
  kGUp = 2 << 1,         // G(t,b) = G(t,b-1)
  kGMask = 3 << 1,       //
  kHGrow = 0 << 3,       // H(t,b) = grow(t,b)
  kHShrink = 1 << 3,     // H(t,b) = shrink(t,b)
  kHTopOut = 2 << 3,     // H(t,b) = H(t-1,b)
  kHBottomOut = 3 << 3,  // H(t,b) = H(t,b+1)
  kHMask = 3 << 3,
};

// From interval (t, b) of column x, reached by growing or shrinking, follows the bits back:
// writes each column's interval, right to left, to tops[k] / bottoms[k] (room for x + 1) and
// returns their count; *left is the region's left column. Column c's bits start at
// trace + stride * c; `at(t, b)` is the offset of (t, b) within a column.
template <class Index>
CELERIS_HD inline int convex_trace_back(const uint8_t* trace, size_t stride, Index at, int x, int t,
                                        int b, bool growing, int* tops, int* bottoms, int* left) {
  int n = 0;
  for (;;) {
    tops[n] = t;
    bottoms[n] = b;
    ++n;
    const uint8_t* tr = trace + stride * size_t(x);
    if (growing) {
      if (!(tr[at(t, b)] & kGrowExtends)) break;
      // Follow G of column x-1 to the interval it came from.
      const uint8_t* tp = trace + stride * size_t(x - 1);
      for (;;) {
        const uint8_t gb = tp[at(t, b)] & kGMask;
        if (gb == kGSelf) break;
        if (gb == kGDown)
          ++t;
        else
          --b;
      }
    } else {
      const uint8_t* tp = trace + stride * size_t(x - 1);
      for (;;) {
        const uint8_t hb = tp[at(t, b)] & kHMask;
        if (hb == kHGrow || hb == kHShrink) {
          growing = hb == kHGrow;
          break;
        }
        if (hb == kHTopOut)
          --t;
        else
          ++b;
      }
    }
    --x;
  }
  *left = x;
  return n;
}

}  // namespace celeris::maxsub::detail
