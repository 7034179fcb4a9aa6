// Internal to src/maxsub's .cu files: the kernel that lays the image out as the searches' grid
// (converted to the accumulation type and transposed when the image is taller than wide, as
// grid.hpp's Grid on the host). Buffers, error checks and timers come from src/core/cuda/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace celeris::maxsub::detail {

// Launch: one thread per grid cell (m x n, m = rows of the grid). Grid (i, j) is src(x = j, y = i)
// or, transposed, src(x = i, y = j); src is row-major with src_width columns. Writes a[i * n + j]
// (coalesced) and, when blocked_src is given, blocked[i * n + j].
template <class T, class In>
__global__ void to_grid_kernel(const In* __restrict__ src, const uint8_t* __restrict__ blocked_src,
                               int src_width, bool transpose, int m, int n, T* __restrict__ a,
                               uint8_t* __restrict__ blocked) {
  const size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= size_t(m) * n) return;
  const int i = int(idx / n), j = int(idx % n);
  const size_t s = transpose ? size_t(j) * src_width + i : size_t(i) * src_width + j;
  a[idx] = static_cast<T>(src[s]);
  if (blocked) blocked[idx] = blocked_src[s];
}

}  // namespace celeris::maxsub::detail
