// Whether a sum in double of float values is the same in any order (OrderFreeSum), written once
// for the host's trees (deblend_tree.cpp), the stage's choice of the candidates a builder takes
// (deblend.cpp) and the GPU's preparation of them (gpu/deblend_prepare_kernels.cu). Plain C++17,
// CELERIS_HD; only functions both sides compute exactly (fabsf, ilogbf, ldexp).
#pragma once

#include <math.h>
#include <cfloat>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// Whether a sum in double of float values is the same whatever the order of the additions: all
// of them are multiples of the smallest magnitude's ulp, so no partial sum rounds while the sum
// of magnitudes stays below 2^52 of those ulps. When it holds for the pixels above the first
// level, the union-find's sums equal SExtractor's chain-order sums bit for bit; otherwise each
// node's sum is taken along its chain.
struct OrderFreeSum {
  double total = 0;        // sum of magnitudes (an upper bound of every partial sum's magnitude)
  float minabs = FLT_MAX;  // smallest non-zero magnitude (FLT_MAX: none yet)
  bool any = false;        // a non-zero magnitude was added
  CELERIS_HD void add(float v) {
    const float a = fabsf(v);
    total += a;
    if (a > 0 && (!any || a < minabs)) {
      minabs = a;
      any = true;
    }
  }
  // The exponent of the smallest magnitude's ulp: every value added is a multiple of
  // 2^ulp_exponent() (0 when none was non-zero or the smallest is not finite). When exact(),
  // each value is an integer times that power of two and every partial sum of those integers is
  // below 2^52 in magnitude, so a sum may also be taken in 64-bit integers (the GPU's trees do,
  // gpu/deblend_tree_kernels.cu).
  CELERIS_HD int ulp_exponent() const {
    if (!any || !(minabs <= FLT_MAX)) return 0;
    return minabs < FLT_MIN ? -149 : ilogbf(minabs) - (FLT_MANT_DIG - 1);
  }
  CELERIS_HD bool exact() const {
    if (total == 0) return true;
    if (!(total <= DBL_MAX)) return false;  // infinite or NaN
    return total < ldexp(1.0, 52 + ulp_exponent());
  }
};

}  // namespace celeris::extract
