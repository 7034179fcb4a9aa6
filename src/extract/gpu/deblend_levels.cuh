// A candidate's exponential levels on the device (stages/deblend_levels.hpp product_levels with
// CUDA's pow for the ratio's root and exponential_levels' bound, 1e-14 a term), for the levels'
// kernel (deblend_levels_gpu.cu) and the candidates' preparation (deblend_prepare_kernels.cu).
// CUDA C++; compiled with --fmad=false.
#pragma once

#include "extract/stages/deblend_levels.hpp"

namespace celeris::extract::gpu {

// levels[0] = t0 and levels[k], k = 1 .. nthresh - 1, as exponential_levels gives them where the
// products are sure of them, NaN elsewhere; returns how many are NaN.
__device__ inline int device_levels(float t0, float peak, int nthresh, float* levels) {
  const float r = peak / t0;  // in float, as SExtractor
  const double bound = 1e-14 * (fabs(log(static_cast<double>(r))) + nthresh + 2);
  levels[0] = t0;
  return product_levels(t0, r, pow(static_cast<double>(r), 1.0 / nthresh), nthresh, bound, levels);
}

}  // namespace celeris::extract::gpu
