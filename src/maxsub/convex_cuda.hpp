// Internal to src/maxsub: the maximum convex (W-N) sum on a GPU (convex_cuda.cu), the same dynamic
// programme as convex.cpp with the same floating-point operations and tie rules, so that it
// returns the CPU's region bit for bit. Plain C++17 types only.
#pragma once

#include <cstdint>
#include <vector>

namespace celeris::maxsub::detail {

struct CudaConvex {
  bool found = false;  // false: every cell blocked
  int left = 0;
  std::vector<int> top, bottom;  // per column left..left+size-1
};

// pixels: row-major width x height (finite); blocked: same shape, or nullptr. Throws celeris::Error
// (no device, CUDA failure, trace-back table larger than the free device memory).
CudaConvex cuda_max_convex(const double* pixels, const uint8_t* blocked, int width, int height);

}  // namespace celeris::maxsub::detail
